"""Strings of the seq2seq page (conditional LMs, the bottleneck, attention) and its figures."""

STRINGS = {
    # figures
    "seq2seq.fig.heat_title": ("Attention weights α_tj", "注意力权重 α_tj"),
    "seq2seq.fig.key_axis": ("key: source position j (token x_j)", "键（key）：源序列位置 j（词元 x_j）"),
    "seq2seq.fig.query_axis": ("query: decoder step t (predicting y_t)", "查询（query）：解码步 t（预测 y_t）"),
    "seq2seq.fig.heat_hover": ("decoder step predicting %{customdata[0]}<br>source x_j = %{customdata[1]}"
                               "<br>α = %{z:.3f}",
                               "解码步（预测 %{customdata[0]}）<br>源词元 x_j = %{customdata[1]}<br>α = %{z:.3f}"),
    "seq2seq.fig.length_axis": ("source length m", "源序列长度 m"),
    "seq2seq.fig.accuracy": ("exact-match accuracy", "完全匹配准确率"),
    "seq2seq.fig.token_loglik": ("mean log P(y_t | y_<t, x) per token", "每词元平均 log P(y_t | y_<t, x)"),
    "seq2seq.fig.accuracy_title": ("Exact match vs source length (held-out)", "完全匹配率 vs 源序列长度（留出集）"),
    "seq2seq.fig.token_loglik_title": ("Per-token log-likelihood vs source length (held-out)",
                                       "每词元对数似然 vs 源序列长度（留出集）"),
    "seq2seq.variant.none": ("no attention (bottleneck c)", "无注意力（瓶颈 c）"),
    "seq2seq.variant.dot": ("dot-product attention", "点积注意力"),
    "seq2seq.variant.additive": ("additive attention", "加性注意力"),
    # page
    "seq2seq.intro": (
        "A conditional language model predicts a target y one token at a time, given a source x. "
        "The encoder reads x; without attention the decoder sees x only through the encoder's last "
        "state c — one fixed-size vector, whatever the length of x: the **bottleneck**. Attention "
        "lets every decoder step read all encoder states h_1 … h_m.",
        "条件语言模型在给定源序列 x 的条件下逐个预测目标 y 的词元。编码器读入 x；没有注意力时，"
        "解码器只能通过编码器最后的隐状态 c 看到 x——无论 x 多长，都只是一个固定大小的向量：这就是"
        "**瓶颈**。注意力让每个解码步都能读取所有编码器状态 h_1 … h_m。",
    ),
    "seq2seq.attention_label": ("attention:", "注意力："),
    "seq2seq.task": ("Task", "任务"),
    "seq2seq.task.copy": ("copy", "复制"),
    "seq2seq.task.reverse": ("reverse", "反转"),
    "seq2seq.task.sort": ("sort", "排序"),
    "seq2seq.task.translate": ("digits → Chinese numerals", "数字 → 中文数字"),
    "seq2seq.task_example": ("Example: {source} → {target}", "示例：{source} → {target}"),
    "seq2seq.models_header": ("Models", "模型"),
    "seq2seq.shipped": ("{variant}: pretrained (shipped), trained on m = {lo}…{hi}, {steps} steps",
                        "{variant}：预训练（随应用提供），训练长度 m = {lo}…{hi}，{steps} 步"),
    "seq2seq.trained_here": ("{variant}: trained in this app, m = {lo}…{hi}, {steps} steps",
                             "{variant}：在本应用中训练，m = {lo}…{hi}，{steps} 步"),
    "seq2seq.missing": ("{variant}: not trained yet", "{variant}：尚未训练"),
    "seq2seq.train_header": ("Train a model for this task", "为此任务训练模型"),
    "seq2seq.train_variant": ("Attention", "注意力"),
    "seq2seq.train_max_len": ("Longest training source m", "训练的最长源序列 m"),
    "seq2seq.train_steps": ("Training steps", "训练步数"),
    "seq2seq.train_button": ("Train", "训练"),
    "seq2seq.training": ("Training: step {step}/{total}, loss {loss:.3f} nats/token",
                         "训练中：第 {step}/{total} 步，损失 {loss:.3f} 奈特/词元"),
    "seq2seq.train_done": ("Trained in {seconds:.0f} s.", "训练完成，用时 {seconds:.0f} 秒。"),
    "seq2seq.no_models": ("No model for this task yet: train one below.", "此任务还没有模型：请在下方训练。"),
    "seq2seq.bottleneck_header": ("The bottleneck experiment", "瓶颈实验"),
    "seq2seq.bottleneck_note": (
        "Greedy outputs on {n} held-out sources per length (never seen in training). Without "
        "attention, accuracy falls as m grows: c has to hold the whole source.",
        "每个长度取 {n} 个留出的源序列（训练中从未见过），用贪心解码。没有注意力时，随着 m 增大准确率"
        "下降：c 必须装下整个源序列。",
    ),
    "seq2seq.table.length": ("m", "m"),
    "seq2seq.example_header": ("One example, step by step", "逐步看一个例子"),
    "seq2seq.variant": ("Model", "模型"),
    "seq2seq.source": ("Source x (digits)", "源序列 x（数字）"),
    "seq2seq.source_help": ("Digits only, {lo} to {hi} of them.", "只能是数字，长度 {lo} 到 {hi}。"),
    "seq2seq.bad_source": ("Please type {lo} to {hi} digits (0-9){extra}.", "请输入 {lo} 到 {hi} 个数字（0-9）{extra}。"),
    "seq2seq.no_leading_zero": (", not starting with 0", "，且不能以 0 开头"),
    "seq2seq.new_example": ("New random example", "换一个随机例子"),
    "seq2seq.expected": ("Correct y", "正确的 y"),
    "seq2seq.greedy": ("Greedy ŷ", "贪心 ŷ"),
    "seq2seq.match": ("exact match", "完全匹配"),
    "seq2seq.mismatch": ("wrong", "错误"),
    # Streamlit's own Material icon font and colour markup: no emoji font needed (emoji show as boxes without one)
    "seq2seq.match_line": (":green[:material/check_circle: exact match]", ":green[:material/check_circle: 完全匹配]"),
    "seq2seq.mismatch_line": (":red[:material/cancel: wrong]", ":red[:material/cancel: 错误]"),
    "seq2seq.factorisation_header": ("The factorisation with live numbers (correct y, teacher forcing)",
                                     "带实时数值的分解（正确的 y，教师强制）"),
    "seq2seq.factor_table.step": ("t", "t"),
    "seq2seq.factor_table.token": ("y_t", "y_t"),
    "seq2seq.factor_table.prob": ("P(y_t | y_<t, x)", "P(y_t | y_<t, x)"),
    "seq2seq.factor_table.logprob": ("log P", "log P"),
    "seq2seq.no_attention_map": ("This model has no attention: every step reads the same c.",
                                 "该模型没有注意力：每一步读取的都是同一个 c。"),
    "seq2seq.beam_header": ("Beam search with the decoder as scorer", "以解码器为打分器的束搜索"),
    "seq2seq.beam_width": ("Beam width k", "束宽 k"),
    "seq2seq.col.output": ("output", "输出"),
    "seq2seq.col.logprob": ("log P(y | x)", "log P(y | x)"),
    "seq2seq.col.correct": ("correct", "正确"),
}
