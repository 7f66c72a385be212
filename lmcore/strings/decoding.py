"""Strings of the decoding page and its figures (greedy vs beam search)."""

STRINGS = {
    "parts.decoding.search": ("Greedy & beam search", "贪心与束搜索"),
    "parts.decoding.sweep": ("Search error vs model error", "搜索错误与模型错误"),
    # figures
    "decoding.fig.tree_title": ("Beam-search tree", "束搜索树"),
    "decoding.stopped_early": ("The search ended at step {t}: all k = {k} hypotheses had finished, so the length limit L = {L} is never reached (a larger L changes nothing).",
                               "搜索在第 {t} 步结束：k = {k} 个假设都已完成，长度上限 L = {L} 没有起作用（再增大 L 也不会改变结果）。"),
    "decoding.fig.labels_hidden": ("{n} labels left out where they would overlap (hover a dot)",
                                   "{n} 个标签因会重叠而省略（悬停圆点查看）"),
    "decoding.fig.step": ("step t", "时间步 t"),
    "decoding.fig.kept_edges": ("kept", "保留"),
    "decoding.fig.pruned_edges": ("pruned", "剪枝"),
    "decoding.fig.greedy_path": ("greedy path", "贪心路径"),
    "decoding.fig.best_path": ("best hypothesis", "最佳假设"),
    "decoding.fig.hover": (
        "token: {token}<br>step: {step}<br>log P(token | prefix) = {lp:.3f}<br>"
        "cumulative log P = {score:.3f} (P = {prob:.4g})<br>{state}",
        "词元：{token}<br>时间步：{step}<br>log P(词元 | 前缀) = {lp:.3f}<br>"
        "累计 log P = {score:.3f}（P = {prob:.4g}）<br>{state}",
    ),
    "decoding.state.kept": ("kept in the beam", "留在束中"),
    "decoding.state.pruned": ("pruned", "被剪枝"),
    "decoding.state.finished": ("finished (ends with the end token)", "完成（以结束符结尾）"),
    "decoding.fig.sweep_title": ("Best score found vs beam width", "找到的最佳得分 vs 束宽"),
    "decoding.fig.beam_width": ("beam width k", "束宽 k"),
    "decoding.fig.score": ("log P(y) of the best hypothesis", "最佳假设的 log P(y)"),
    "decoding.fig.score_norm": ("log P(y) / |y|^α of the best hypothesis", "最佳假设的 log P(y) / |y|^α"),
    "decoding.fig.found": ("beam search (best found)", "束搜索（找到的最佳）"),
    "decoding.fig.optimum": ("exhaustive optimum", "穷举最优"),
    # page
    "decoding.intro": (
        "A language model gives P(y_t | y_<t, x) one token at a time; decoding searches for the "
        "sequence with the highest probability. **Greedy** decoding takes the best token at each "
        "step; **beam search** keeps the k best prefixes at each step. Both are approximations of "
        "the exhaustive argmax.",
        "语言模型一次给出一个词元的 P(y_t | y_<t, x)；解码要找概率最高的整个序列。"
        "**贪心解码**每一步取最好的词元；**束搜索**每一步保留 k 个最好的前缀。"
        "两者都是对穷举 argmax 的近似。",
    ),
    "decoding.source": ("Model", "模型"),
    "decoding.source.textbook": ("Textbook example (greedy is not optimal)", "教科书示例（贪心并非最优）"),
    "decoding.source.ngram": ("N-gram model on the current corpus", "当前语料上的 N 元模型"),
    "decoding.source.neural": ("Neural LM (word LSTM of the LSTM page)", "神经语言模型（LSTM 页面的词级 LSTM）"),
    "decoding.neural_note": (
        "The word-level LSTM trained on this corpus ({hidden} hidden units, {steps} steps): shipped for the built-in "
        "corpora, or the one you trained on the LSTM page. Its vocabulary is large, so the sweep has no exhaustive optimum.",
        "在本语料上训练的词级 LSTM（{hidden} 个隐藏单元，{steps} 步）：内置语料随应用提供，或使用你在 LSTM 页面训练的模型。"
        "它的词表很大，所以宽度扫描没有穷举最优解。",
    ),
    "decoding.source.seq2seq": ("Seq2seq decoder (shipped model with attention)", "Seq2seq 解码器（随应用提供的注意力模型）"),
    "decoding.seq2seq_task": ("Task of the seq2seq model", "Seq2seq 模型的任务"),
    "decoding.seq2seq_source": ("Source x (1 to 8 digits)", "源序列 x（1 到 8 个数字）"),
    "decoding.seq2seq_bad": ("Please type 1 to 8 digits (0-9; no leading 0 for numerals).",
                             "请输入 1 到 8 个数字（0-9；中文数字任务不能以 0 开头）。"),
    "decoding.seq2seq_note": ("The search looks for argmax_y P(y | x) under the decoder; the correct answer is {target}.",
                              "搜索的是解码器下的 argmax_y P(y | x)；正确答案是 {target}。"),
    "decoding.order": ("n-gram order n", "N 元阶数 n"),
    "decoding.prompt": ("Your prompt (the search continues it)", "你的提示（搜索将续写它）"),
    "decoding.prompt_help": (
        "Tokens are split like the corpus; unknown words become <unk>. Empty = start of a sentence.",
        "按语料的方式切分；未知词变为 <unk>。留空 = 从句首开始。",
    ),
    "decoding.beam_width": ("Beam width k", "束宽 k"),
    "decoding.max_len": ("Maximum length", "最大长度"),
    "decoding.alpha": ("Length normalisation α", "长度归一化 α"),
    "decoding.pruned_shown": ("Pruned children drawn per node", "每个节点画出的被剪枝子节点数"),
    "decoding.textbook_note": (
        "Hand-made distributions (after d2l): greedy follows A, B, C, </s> with "
        "P = 0.5·0.4·0.4·0.6 = 0.048, but A, C, B, </s> has P = 0.5·0.3·0.6·0.6 = 0.054. "
        "With k = 2 beam search finds it.",
        "手工构造的分布（仿 d2l）：贪心走 A, B, C, </s>，P = 0.5·0.4·0.4·0.6 = 0.048；"
        "而 A, C, B, </s> 的 P = 0.5·0.3·0.6·0.6 = 0.054。k = 2 的束搜索就能找到它。",
    ),
    "decoding.greedy_result": ("Greedy: {text} — P = {prob:.4g} (log P = {lp:.3f})",
                               "贪心：{text} —— P = {prob:.4g}（log P = {lp:.3f}）"),
    "decoding.beam_result": ("Beam (k = {k}): {text} — P = {prob:.4g} (log P = {lp:.3f})",
                             "束搜索（k = {k}）：{text} —— P = {prob:.4g}（log P = {lp:.3f}）"),
    "decoding.tree_header": ("The search tree", "搜索树"),
    "decoding.tree_caption": (
        "Solid: kept in the beam; grey dotted: pruned; stars: finished hypotheses; red: the greedy "
        "path; green: the best hypothesis. Hover a node for its step and log-probabilities.",
        "实线：留在束中；灰色虚线：被剪枝；星号：已完成的假设；红色：贪心路径；绿色：最佳假设。"
        "悬停在节点上可查看时间步与对数概率。",
    ),
    "decoding.nbest_header": ("n-best list", "n-best 列表"),
    "decoding.col.rank": ("rank", "排名"),
    "decoding.col.output": ("output", "输出"),
    "decoding.col.length": ("length |y|", "长度 |y|"),
    "decoding.col.logprob": ("log P(y)", "log P(y)"),
    "decoding.col.prob": ("P(y)", "P(y)"),
    "decoding.col.normalised": ("log P(y) / |y|^α", "log P(y) / |y|^α"),
    "decoding.col.finished": ("finished", "已完成"),
    "decoding.col.beam_width": ("k", "k"),
    "decoding.col.found": ("best found", "找到的最佳"),
    "decoding.col.optimum": ("optimum", "最优"),
    "decoding.col.search_error": ("search error", "搜索误差"),
    "decoding.length_header": ("Raw vs length-normalised choice", "原始得分 vs 长度归一化的选择"),
    "decoding.raw_choice": ("Raw log P(y) picks", "按原始 log P(y) 选"),
    "decoding.norm_choice": ("log P(y) / |y|^{alpha} picks", "按 log P(y) / |y|^{alpha} 选"),
    "decoding.length_note": (
        "Every token multiplies P(y) by a number ≤ 1, so the raw score favours short outputs; "
        "dividing by |y|^α compensates (α = 0: raw, α = 1: mean log-prob per token).",
        "每多一个词元，P(y) 就乘上一个 ≤ 1 的数，所以原始得分偏爱短输出；"
        "除以 |y|^α 可以补偿（α = 0：原始得分，α = 1：每词元平均对数概率）。",
    ),
    "decoding.same_choice": ("Both criteria pick the same output here.", "这里两个标准选出了同一个输出。"),
    "decoding.sweep_header": ("Search error vs model error", "搜索误差 vs 模型误差"),
    "decoding.sweep_note": (
        "**Search error**: the model prefers a sequence the search did not find (the gap to the "
        "exhaustive optimum, which closes as k grows). **Model error**: the optimum itself is a "
        "poor output — no beam width can fix that, only a better model.",
        "**搜索误差**：模型更偏好的序列没有被搜索找到（与穷举最优之间的差距，随 k 增大而消失）。"
        "**模型误差**：最优序列本身就是一个差的输出——再大的束宽也无济于事，只能改进模型。",
    ),
    "decoding.optimum_too_large": (
        "The space is too large for exhaustive search (|V|^L = {size:.3g} sequences); only the beam "
        "curve is drawn.",
        "搜索空间太大，无法穷举（|V|^L = {size:.3g} 个序列）；只画出束搜索曲线。",
    ),
    "decoding.optimum_result": ("Exhaustive optimum: {text} — log P = {lp:.3f}",
                                "穷举最优：{text} —— log P = {lp:.3f}"),
}
