"""The RNN forward pass & BPTT page and its figures (keys ``rnn_bptt.*``)."""

STRINGS = {
    "parts.rnn_bptt.step": ("One step t", "单步 t"),
    "parts.rnn_bptt.topk": ("Top-k at every step", "每一步的前 k 个词"),
    "parts.rnn_bptt.bptt": ("Backpropagation through time", "随时间反向传播"),
    "rnn_bptt.caption": (
        "The vanilla RNN language model of the LSTM page on the current corpus, run word by word with its weights in "
        "explicit float64 cells: the hidden state, the next-word distribution, the losses J(t), and where the "
        "gradient ∂J/∂W_h comes from (BPTT).",
        "LSTM 页在当前语料上的普通 RNN 语言模型，把权重放进显式的 float64 单元逐词运行：隐状态、下一个词的分布、"
        "损失 J(t)，以及梯度 ∂J/∂W_h 的来源（BPTT）。",
    ),
    "rnn_bptt.model": ("Model", "模型"),
    "rnn_bptt.model.random": ("random initialisation", "随机初始化"),
    "rnn_bptt.model.trained": ("trained (Adam, as on the LSTM page)", "已训练（Adam，与 LSTM 页相同）"),
    "rnn_bptt.sentence": ("Sentence (index in the test split)", "句子（测试集中的序号）"),
    "rnn_bptt.no_sentence": ("The corpus has no test sentence of {lo} to {hi} tokens.", "语料中没有 {lo} 到 {hi} 个词元的测试句。"),
    "rnn_bptt.one_sentence": ("The only test sentence of the right length is shown.", "只显示长度合适的唯一一个测试句。"),
    "rnn_bptt.meanwhile": ("Meanwhile, the random initialisation shows every step of the same network.",
                           "在此期间，可以选择“随机初始化”查看同一网络的每一步。"),
    "rnn_bptt.model_info": (
        "The corpus vocabulary: {v} symbols (words, <unk>, </s>), embedding d = {d}, hidden n = {n}, tanh, "
        "{steps} training steps. A sentence is read as <s> w1 … wn and predicts w1 … wn </s>, as on every page.",
        "语料词表：{v} 个符号（词、<unk>、</s>），嵌入 d = {d}，隐层 n = {n}，tanh，训练 {steps} 步。"
        "句子读作 <s> w1 … wn，预测 w1 … wn </s>，与所有页面一致。",
    ),
    "rnn_bptt.forward.header": ("Forward pass, step by step", "逐步前向传播"),
    "rnn_bptt.step": ("Step t", "时间步 t"),
    "rnn_bptt.step_caption": (
        "Step {t}: input x({t}) = “{word}”, the model should predict “{target}” (p = {p:.4f}).",
        "第 {t} 步：输入 x({t}) = “{word}”，模型应当预测“{target}”（p = {p:.4f}）。",
    ),
    "rnn_bptt.topk": ("Top-{k} next words ŷ(t) at each step", "每步 ŷ(t) 概率最高的 {k} 个词"),
    "rnn_bptt.k": ("k (how many next words to list)", "k（列出几个候选词）"),
    "rnn_bptt.col.t": ("t", "t"),
    "rnn_bptt.col.input": ("input x(t)", "输入 x(t)"),
    "rnn_bptt.col.target": ("target x(t+1)", "目标 x(t+1)"),
    "rnn_bptt.col.p_target": ("ŷ(t)[target]", "ŷ(t)[目标]"),
    "rnn_bptt.col.J": ("J(t)", "J(t)"),
    "rnn_bptt.col.top": ("top {k}", "前 {k}"),
    "rnn_bptt.metric.J": ("J = mean J(t)", "J = J(t) 的平均"),
    "rnn_bptt.metric.ppl": ("PPL = exp(J)", "PPL = exp(J)"),
    "rnn_bptt.metric.T": ("T (steps)", "T（步数）"),
    "rnn_bptt.metric.split_ppl": ("Model PPL on the test split", "模型在测试集上的 PPL"),
    "rnn_bptt.bptt.header": ("BPTT: where ∂J/∂W_h comes from", "BPTT：∂J/∂W_h 从哪里来"),
    "rnn_bptt.bptt.caption": (
        "Cell (t, k) is ‖G(t, k)‖ = ‖δ(t,k) h(k−1)ᵀ‖, the part of ∂J(t)/∂W_h that flows back to step k. Row t sums "
        "(as matrices) to ∂J(t)/∂W_h; everything divided by T sums to ∂J/∂W_h — checked against autograd in the tests. "
        "Column k = 1 is empty: h(0) = 0, so W_h h(0) passes no gradient to W_h. g_(t−k<w) is truncated BPTT's sum.",
        "单元格 (t, k) 为 ‖G(t, k)‖ = ‖δ(t,k) h(k−1)ᵀ‖，即 ∂J(t)/∂W_h 中回传到第 k 步的部分。第 t 行（按矩阵）求和得 ∂J(t)/∂W_h；"
        "全部求和再除以 T 得 ∂J/∂W_h——测试中已与自动微分核对。第 k = 1 列为空：h(0) = 0，W_h h(0) 不给 W_h 传梯度。"
        "g_(t−k<w) 为截断 BPTT 的求和。",
    ),
    "rnn_bptt.window": ("Truncation window (steps kept back in time)", "截断窗口（向过去保留的步数）"),
    "rnn_bptt.metric.dropped": ("Share of Σ‖G‖ dropped", "被丢弃的 Σ‖G‖ 占比"),
    "rnn_bptt.metric.trunc_err": ("Error of truncated ∂J/∂W_h", "截断后 ∂J/∂W_h 的误差"),
    "rnn_bptt.metric.grad_norm": ("‖∂J/∂W_h‖ (full BPTT)", "‖∂J/∂W_h‖（完整 BPTT）"),
    "rnn_bptt.formulas": ("The notes' formulas with this sentence's numbers", "讲义公式与本句的数值"),
    # figures
    "rnn_bptt.fig.topk_title": ("ŷ(t): top next words (red = true)", "ŷ(t)：最可能的下一个词（红 = 真实）"),
    "rnn_bptt.fig.prob_axis": ("probability ŷ(t)[w]", "概率 ŷ(t)[w]"),
    "rnn_bptt.play": ("Play the forward pass in the browser (▶, or drag the slider under the chart); it shows the "
                      "{units} of {n} hidden units that vary most over this sentence.",
                      "在浏览器中播放前向传播（点 ▶，或拖动图下方的滑块）；图中显示本句中变化最大的 {units} 个隐藏单元（共 {n} 个）。"),
    "rnn_bptt.fig.h_title": ("Hidden state h(t) over time (units × steps)", "隐状态 h(t) 随时间变化（单元 × 时间步）"),
    "rnn_bptt.fig.input_axis": ("step t (input word x(t))", "时间步 t（输入词 x(t)）"),
    "rnn_bptt.fig.unit_axis": ("hidden unit i", "隐藏单元 i"),
    "rnn_bptt.fig.loss_title": ("Per-step loss J(t) = −log ŷ(t)[x(t+1)]", "每步损失 J(t) = −log ŷ(t)[x(t+1)]"),
    "rnn_bptt.fig.target_axis": ("step t (target word x(t+1))", "时间步 t（目标词 x(t+1)）"),
    "rnn_bptt.fig.loss_axis": ("J(t) (nats)", "J(t)（奈特）"),
    "rnn_bptt.fig.mean_J": ("J = {J:.3f}, PPL = {ppl:.1f}", "J = {J:.3f}，PPL = {ppl:.1f}"),
    "rnn_bptt.fig.bptt_colour": ("log10 ‖G(t,k)‖", "log10 ‖G(t,k)‖"),
    "rnn_bptt.fig.bptt_title": ("BPTT contributions ‖∂J(t)/∂W_h through step k‖", "BPTT 贡献 ‖∂J(t)/∂W_h 经由第 k 步‖"),
    "rnn_bptt.fig.k_axis": ("step k the gradient flows back to (input word)", "梯度回传到的时间步 k（输入词）"),
    "rnn_bptt.fig.t_axis": ("loss J(t) at step t", "第 t 步的损失 J(t)"),
    "rnn_bptt.fig.window": ("truncation: left of the line is dropped (window {w})", "截断：线左侧被丢弃（窗口 {w}）"),
    "rnn_bptt.fig.trunc_title": ("Truncated BPTT: relative error of ∂J/∂W_h", "截断 BPTT：∂J/∂W_h 的相对误差"),
    "rnn_bptt.fig.window_axis": ("window (steps back in time)", "窗口（向过去的步数）"),
    "rnn_bptt.fig.trunc_axis": ("‖truncated − full‖ / ‖full‖", "‖截断 − 完整‖ / ‖完整‖"),
}
