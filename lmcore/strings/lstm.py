"""The LSTM gates & memory page, its training section and its figures (keys ``lstm.*``)."""

STRINGS = {
    # page
    "lstm.caption": (
        "Train a recurrent language model on the current corpus, then look inside the LSTM: what its gates do "
        "token by token, how far back its gradient reaches, and what one changed word does downstream.",
        "在当前语料上训练循环语言模型，然后打开 LSTM 看一看：门控在每个词元上做了什么、梯度能回传多远、改动一个词会对后文产生什么影响。",
    ),
    "lstm.no_model": (
        "No trained LSTM for this corpus yet: train one in the section above (a few seconds to a minute).",
        "该语料还没有训练好的 LSTM：请在上方的训练区训练一个（几秒到一分钟）。",
    ),
    "lstm.model_info": (
        "Model: {cell} ({level}), hidden size {hidden}, {steps} steps{stopped}; weights of step {best} "
        "(best validation perplexity {ppl:.2f}). Source: {source}.",
        "模型：{cell}（{level}），隐层 {hidden}，{steps} 步{stopped}；使用第 {best} 步的权重（最佳验证困惑度 {ppl:.2f}）。来源：{source}。",
    ),
    "lstm.stopped": (", stopped early", "，已提前停止"),
    "lstm.source.pretrained": ("shipped pretrained model", "预训练模型（随应用提供）"),
    "lstm.source.trained": ("trained in this session", "本次会话中训练"),
    "lstm.busy.load": ("Loading the models…", "正在加载模型……"),
    "lstm.busy.edit": ("Looking for an edit that changes the prediction…", "正在寻找能改变预测的编辑……"),
    "lstm.busy.gradient": ("Computing the exact Jacobians along the passage…", "正在沿文本计算精确雅可比……"),
    "lstm.busy.compare": ("Scoring every model on the split…", "正在用该划分为各模型评分……"),
    # training
    "lstm.train.header": ("Train a model", "训练模型"),
    "lstm.train.cell": ("Cell", "单元"),
    "lstm.train.level": ("Level", "粒度"),
    "lstm.level.word": ("words", "词"),
    "lstm.level.char": ("characters", "字符"),
    "lstm.train.hidden": ("Hidden size n", "隐层维度 n"),
    "lstm.train.steps": ("Steps (BPTT chunks)", "训练步数（BPTT 片段）"),
    "lstm.train.lr": ("Learning rate (Adam)", "学习率（Adam）"),
    "lstm.train.clip": ("Clipping threshold (0 = off)", "梯度裁剪阈值（0 = 不裁剪）"),
    "lstm.train.dropout": ("Dropout", "Dropout"),
    "lstm.train.seed": ("Seed", "随机种子"),
    "lstm.train.button": ("Train", "开始训练"),
    "lstm.train.progress": (
        "step {step}/{total} · train PPL {train:.1f} · valid PPL {valid} · {seconds:.0f} s",
        "第 {step}/{total} 步 · 训练 PPL {train:.1f} · 验证 PPL {valid} · {seconds:.0f} 秒",
    ),
    "lstm.train.done": (
        "Trained in {seconds:.1f} s: validation perplexity {ppl:.2f} (per token, </s> counted).",
        "训练用时 {seconds:.1f} 秒：验证困惑度 {ppl:.2f}（按词元计，含 </s>）。",
    ),
    "lstm.train.stopped_msg": ("Stopped at step {step}; the model is usable.", "已在第 {step} 步停止；模型可以使用。"),
    "lstm.train.note": (
        "Embeddings → one recurrent layer → softmax; truncated BPTT over {bptt} steps, Adam, clipping "
        "ĝ ← threshold/‖ĝ‖·ĝ, each sentence <s> … </s> from the zero state. The weights kept are those of the best "
        "validation perplexity (early stopping). Word level: a training word seen once is read as <unk> half of the "
        "time, so the model learns how often unseen words occur. Models are cached per corpus and settings.",
        "词嵌入 → 一层循环网络 → softmax；截断 BPTT（{bptt} 步）、Adam、梯度裁剪 ĝ ← threshold/‖ĝ‖·ĝ，每个句子 <s> … </s> "
        "从零状态开始。保留验证困惑度最佳时的权重（早停）。词级模型：训练中只出现一次的词有一半时间被读作 <unk>，"
        "让模型学会未登录词出现的频率。模型按语料与设置缓存。",
    ),
    "lstm.sample.header": ("Sample from the model", "从模型采样"),
    "lstm.sample.temperature": ("Temperature τ", "温度 τ"),
    "lstm.sample.note": ("P_τ(w) ∝ exp(logit_w / τ): τ < 1 sharpens, τ > 1 flattens.",
                         "P_τ(w) ∝ exp(logit_w / τ)：τ < 1 更尖锐，τ > 1 更平坦。"),
    # gates
    "parts.lstm.gates": ("Gates & cell state", "门控与记忆单元"),
    "parts.lstm.gradient": ("Gradient along the cell", "沿记忆单元的梯度"),
    "parts.lstm.edit": ("Edit one token", "改一个词"),
    "parts.lstm.compare": ("Compare models", "模型对比"),
    "lstm.gates.header": ("Gates and cell state on a passage", "一段文本上的门控与记忆单元"),
    "lstm.passage": ("Passage (validation sentences)", "文本（验证集句子）"),
    "lstm.passage.custom": ("…or type your own passage", "……或输入自己的文本"),
    "lstm.passage.empty": ("The passage is empty after tokenisation.", "分词后文本为空。"),
    "lstm.passage.cut": ("The passage was cut to its first {n} symbols.", "文本已截取为前 {n} 个符号。"),
    "lstm.signal": ("Signal", "信号"),
    "lstm.signal.f": ("forget gate f(t)", "遗忘门 f(t)"),
    "lstm.signal.i": ("input gate i(t)", "输入门 i(t)"),
    "lstm.signal.o": ("output gate o(t)", "输出门 o(t)"),
    "lstm.signal.c_tilde": ("candidate c̃(t)", "候选记忆 c̃(t)"),
    "lstm.signal.c": ("cell state c(t)", "记忆单元 c(t)"),
    "lstm.signal.h": ("hidden state h(t)", "隐状态 h(t)"),
    "lstm.sort": ("Sort units by", "单元排序方式"),
    "lstm.sort.index": ("unit number", "单元编号"),
    "lstm.sort.forget": ("mean forget gate (high first)", "遗忘门均值（高者在前）"),
    "lstm.sort.variance": ("variance of c(t) (high first)", "c(t) 的方差（高者在前）"),
    "lstm.units_shown": ("Units shown (after sorting)", "显示的单元数（排序后）"),
    "lstm.unit": ("Unit to colour the passage by", "用于给文本着色的单元"),
    "lstm.unit.caption.signed": (
        "Unit {unit}, {signal}: blue > 0 > red; hover a token for its value.",
        "单元 {unit}，{signal}：蓝色 > 0 > 红色；悬停查看数值。",
    ),
    "lstm.unit.caption.gate": (
        "Unit {unit}, {signal}: darker = closer to the largest value on this passage; hover a token for its value.",
        "单元 {unit}，{signal}：颜色越深越接近本段文本上的最大值；悬停查看数值。",
    ),
    # gradient path
    "lstm.grad.header": ("Gradient path through the cell", "梯度沿记忆单元的路径"),
    "lstm.grad.note": (
        "The notes drop the terms through h(t−1) and keep ∂c(t)/∂c(t−1) ≈ f(t), so ∂c(T)/∂c(k) ≈ ∏ f(t). "
        "The exact Jacobian (autograd, float64) and the vanilla RNN's ‖∂h(T)/∂h(k)‖ on the same passage are drawn with it.",
        "讲义忽略经过 h(t−1) 的项，只保留 ∂c(t)/∂c(t−1) ≈ f(t)，于是 ∂c(T)/∂c(k) ≈ ∏ f(t)。"
        "图中同时给出精确雅可比（自动微分，float64）以及同一段文本上普通 RNN 的 ‖∂h(T)/∂h(k)‖。",
    ),
    "lstm.grad.bias": ("Forget-bias shift Δb_f", "遗忘门偏置偏移 Δb_f"),
    "lstm.grad.no_rnn": (
        "No vanilla RNN trained with the same level on this corpus: train one (cell = rnn) to add its curve.",
        "该语料上没有同粒度的普通 RNN：训练一个（单元 = rnn）即可加入它的曲线。",
    ),
    "lstm.grad.metric.forget": ("∏ f (mean unit), k = 1", "∏ f（单元平均），k = 1"),
    "lstm.grad.metric.exact": ("‖∂c(T)/∂c(1)‖₂ exact", "‖∂c(T)/∂c(1)‖₂ 精确值"),
    "lstm.grad.metric.rnn": ("RNN ‖∂h(T)/∂h(1)‖₂", "RNN ‖∂h(T)/∂h(1)‖₂"),
    # counterfactual
    "lstm.cf.header": ("Counterfactual edit", "反事实编辑"),
    "lstm.cf.position": ("Token to change", "要修改的词元"),
    "lstm.cf.replacement": ("Replace it by", "替换为"),
    "lstm.cf.note": (
        "Δs(t) = s(t) with the edit − s(t) without it: zero before the edit, then the change travels along the passage.",
        "Δs(t) = 编辑后的 s(t) − 编辑前的 s(t)：编辑位置之前为零，之后变化沿文本向后传播。",
    ),
    "lstm.cf.kl": ("KL(after ‖ before), next symbol", "下一符号分布 KL(编辑后 ‖ 编辑前)"),
    "lstm.cf.delta_title": ("Δ {signal} after the edit", "编辑后的 Δ {signal}"),
    # comparison
    "lstm.cmp.header": ("One corpus feeds every model", "同一语料，所有模型"),
    "lstm.cmp.note": (
        "Every model is scored on the same unk-mapped sentences: PPL = exp(−(1/N) Σ ln P(x(t) | x(<t))), N counting "
        "every token and one </s> per sentence (char models: per corpus token too). Neural models chose their "
        "weights on the validation split, so the test split is the fair comparison.",
        "所有模型在同一批（已做 <unk> 映射的）句子上评分：PPL = exp(−(1/N) Σ ln P(x(t) | x(<t)))，N 计入每个词元和每句一个 </s>"
        "（字符级模型同样按语料词元计）。神经模型用验证集选择权重，因此测试集上的比较才公平。",
    ),
    "lstm.cmp.split": ("Split", "数据划分"),
    "lstm.cmp.split.valid": ("validation", "验证集"),
    "lstm.cmp.split.test": ("test", "测试集"),
    "lstm.cmp.model": ("Model", "模型"),
    "lstm.cmp.ppl": ("Perplexity", "困惑度"),
    "lstm.cmp.missing": (
        "Not trained yet for this corpus: {cells}. Train them above (same level) to add their rows.",
        "该语料尚未训练：{cells}。在上方训练（同一粒度）即可加入对应行。",
    ),
    "lstm.cmp.row.unigram": ("unigram (add-1)", "一元模型（加一）"),
    "lstm.cmp.row.mle3": ("3-gram MLE", "三元 MLE"),
    "lstm.cmp.row.add3": ("3-gram add-1", "三元 加一平滑"),
    "lstm.cmp.row.kn3": ("3-gram Kneser-Ney", "三元 Kneser-Ney"),
    "lstm.cmp.row.mkn3": ("3-gram modified KN", "三元 修正 KN"),
    "lstm.cmp.train_missing": ("Train {cells} (default settings)", "训练 {cells}（默认设置）"),
    "lstm.cmp.floor": ("True floor e^H = {ppl:.3f} (the synthetic source's entropy rate).",
                       "真实下限 e^H = {ppl:.3f}（合成语料源的熵率）。"),
    # figures
    "lstm.fig.hover": ("token %{customdata[0]}<br>unit %{customdata[1]}<br>value %{z:.3f}",
                       "词元 %{customdata[0]}<br>单元 %{customdata[1]}<br>数值 %{z:.3f}"),
    "lstm.fig.position": ("position t (token read at step t)", "位置 t（第 t 步读入的词元）"),
    "lstm.fig.unit": ("hidden unit", "隐藏单元"),
    "lstm.fig.k": ("step k (token read at k)", "步 k（第 k 步读入的词元）"),
    "lstm.fig.gain": ("how much of step k reaches step T", "第 k 步能传到第 T 步的比例"),
    "lstm.fig.gradient_title": ("∂c(T)/∂c(k): the notes' ∏ f(t) vs the exact Jacobian",
                                "∂c(T)/∂c(k)：讲义的 ∏ f(t) 与精确雅可比"),
    "lstm.fig.forget_norm": ("‖diag ∏ f(t)‖₂ (notes)", "‖diag ∏ f(t)‖₂（讲义）"),
    "lstm.fig.exact_norm": ("‖∂c(T)/∂c(k)‖₂ exact", "‖∂c(T)/∂c(k)‖₂ 精确"),
    "lstm.fig.forget_mean": ("mean over units of ∏ f(t)", "∏ f(t) 的单元平均"),
    "lstm.fig.exact_diag": ("mean diagonal of the exact Jacobian", "精确雅可比对角线均值"),
    "lstm.fig.rnn_norm": ("vanilla RNN ‖∂h(T)/∂h(k)‖₂", "普通 RNN ‖∂h(T)/∂h(k)‖₂"),
    "lstm.fig.before": ("before the edit", "编辑前"),
    "lstm.fig.after": ("after the edit", "编辑后"),
    "lstm.fig.travel_title": ("How far the edit travels: ‖Δs(t)‖₂ over units", "编辑影响能传多远：各单元上的 ‖Δs(t)‖₂"),
    "lstm.fig.next_title": ("Next-symbol distribution after the passage", "文本之后下一个符号的分布"),
    "lstm.fig.prob": ("probability", "概率"),
    "lstm.fig.next_y": ("next symbol", "下一个符号"),
    "lstm.fig.train_ppl": ("train PPL (running, per symbol)", "训练 PPL（滑动，按符号）"),
    "lstm.fig.valid_ppl": ("validation PPL (per token)", "验证 PPL（按词元）"),
    "lstm.fig.floor": ("true floor {ppl:.2f}", "真实下限 {ppl:.2f}"),
    "lstm.fig.curve_title": ("Training curve", "训练曲线"),
    "lstm.fig.step": ("step", "步"),
    "lstm.fig.compare_title": ("Perplexity of every model on the same split", "同一划分上各模型的困惑度"),
    "lstm.fig.model": ("model", "模型"),
}
