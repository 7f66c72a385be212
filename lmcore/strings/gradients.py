"""The Vanishing & exploding gradients page and its figures (keys ``gradients.*``)."""

STRINGS = {
    # page
    "gradients.caption": (
        "How ∂J(T)/∂h(k) shrinks or grows with the distance T − k: the notes' product of Jacobians, "
        "measured by autograd in float64, against the bound (σ1·γ)^(T−k).",
        "∂J(T)/∂h(k) 如何随距离 T − k 缩小或增大：讲义中的雅可比连乘积，用 float64 自动微分实测，并与上界 (σ1·γ)^(T−k) 对比。",
    ),
    "gradients.curves.header": ("Gradient norm vs distance", "梯度范数与距离"),
    "parts.gradients.curves": ("Norm vs distance", "范数与距离"),
    "parts.gradients.why": ("Why: spectrum & slope", "原因：谱与斜率"),
    "parts.gradients.connectivity": ("Connectivity", "词间连通"),
    "parts.gradients.clipping": ("The cliff", "悬崖"),
    "parts.gradients.run": ("A real run", "真实训练"),
    "gradients.controls": ("Settings", "设置"),
    "gradients.cells": ("Cells", "单元类型"),
    "gradients.T": ("Sequence length T", "序列长度 T"),
    "gradients.hidden": ("Hidden size n", "隐层维度 n"),
    "gradients.kind": ("How W_h is built", "W_h 的构造方式"),
    "gradients.kind.orthogonal": ("σ1 × orthogonal (exact σ1)", "σ1 × 正交矩阵（σ1 精确）"),
    "gradients.kind.gaussian": ("Gaussian, spectral radius ρ", "高斯矩阵，谱半径 ρ"),
    "gradients.scale.orthogonal": ("Largest singular value σ1", "最大奇异值 σ1"),
    "gradients.scale.gaussian": ("Spectral radius ρ", "谱半径 ρ"),
    "gradients.activation": ("Activation σ (RNN)", "激活函数 σ（RNN）"),
    "gradients.forget_bias": ("LSTM forget-gate bias b_f", "LSTM 遗忘门偏置 b_f"),
    "gradients.input_scale": ("Input scale (std of x(t))", "输入尺度（x(t) 的标准差）"),
    "gradients.seeds": ("Seeds (median and min–max band)", "随机种子数（中位数与最小–最大带）"),
    "gradients.no_cell": ("Choose at least one cell.", "请至少选择一种单元。"),
    "gradients.metric.sigma1": ("σ1 of W_h (RNN)", "W_h 的 σ1（RNN）"),
    "gradients.metric.rho": ("Spectral radius ρ", "谱半径 ρ"),
    "gradients.metric.gamma": ("γ = max σ'", "γ = max σ'"),
    "gradients.metric.sg": ("σ1·γ", "σ1·γ"),
    "gradients.regime.vanishing": ("vanishing", "梯度消失"),
    "gradients.regime.exploding": ("exploding", "梯度爆炸"),
    "gradients.regime.critical": ("critical", "临界"),
    "gradients.regime_note": (
        "Regime by the notes: σ1·γ = {sg:.3g} → **{regime}**. (σ1γ)^k is only an upper bound: σ'(z) reaches γ "
        "only at some z — tanh and sigmoid only at z = 0, ReLU only on active units (σ' = 0 where z < 0) — so the "
        "measured norm usually decays faster, even at σ1γ = 1. Try it.",
        "按讲义判断：σ1·γ = {sg:.3g} → **{regime}**。(σ1γ)^k 只是上界：σ'(z) 只在部分 z 处达到 γ——tanh 与 sigmoid "
        "仅在 z = 0 处，ReLU 仅在激活的单元上（z < 0 时 σ' = 0）——所以实测范数通常衰减得更快，即使 σ1γ = 1。试试看。",
    ),
    "gradients.slope_note.tanh": (
        "With tanh, σ'(z) = 1 − tanh²(z) < 1 wherever z ≠ 0, so even σ1 = 1 decays — try it.",
        "tanh 的导数 σ'(z) = 1 − tanh²(z) 在 z ≠ 0 处都 < 1，所以即使 σ1 = 1 梯度也会衰减——试试看。",
    ),
    "gradients.slope_note.sigmoid": (
        "With the sigmoid, σ'(z) ≤ 1/4 everywhere (γ = 1/4): σ1 must exceed 4 before the bound even allows growth.",
        "sigmoid 的导数处处 σ'(z) ≤ 1/4（γ = 1/4）：σ1 必须大于 4，上界才允许梯度增长。",
    ),
    "gradients.slope_note.relu": (
        "With ReLU, σ'(z) is exactly 1 for active units and 0 for the others: the active units pass the gradient "
        "through W_h unchanged (σ1 > 1 can explode), the inactive ones cut it.",
        "ReLU 的导数对激活的单元恰为 1，对其他单元为 0：激活单元让梯度原样经过 W_h（σ1 > 1 可能爆炸），未激活的单元将其截断。",
    ),
    "gradients.forget_bias_note": (
        "The forget-gate bias only changes the LSTM: its curve is hidden (LSTM not selected), its panel below still follows it.",
        "遗忘门偏置只影响 LSTM：其曲线已隐藏（未选 LSTM），下方的 LSTM 面板仍随之变化。",
    ),
    "gradients.activation_note": (
        "The activation only changes the RNN: its curve is hidden (RNN not selected), the panels below still follow it.",
        "激活函数只影响 RNN：其曲线已隐藏（未选 RNN），下方的面板仍随之变化。",
    ),
    "gradients.exploded_msg": (
        "{cell}: the gradient norm exploded (inf/NaN in float64) at distance {k}.",
        "{cell}：梯度范数在距离 {k} 处爆炸（float64 溢出为 inf/NaN）。",
    ),
    "gradients.forward_exploded_msg": (
        "{cell}: the hidden state itself overflowed at step {k} (forward pass).",
        "{cell}：隐状态本身在第 {k} 步溢出（前向传播）。",
    ),
    "gradients.underflow_msg": (
        "{cell}: the gradient norm underflowed to exactly 0 in float64 at distance {k} (vanished).",
        "{cell}：梯度范数在距离 {k} 处下溢为 float64 的 0（彻底消失）。",
    ),
    "gradients.theory_overflow_msg": (
        "The bound (σ1γ)^k itself overflows float64 at distance {k}: it is marked exploded there.",
        "上界 (σ1γ)^k 本身在距离 {k} 处超出 float64 范围：图中在该处标记为爆炸。",
    ),
    "gradients.formula_header": ("The notes' derivation, live", "讲义推导与实时数值"),
    "gradients.formula_note": (
        "For the RNN at seed 0, distance T − k = {d}: ‖∏ W_hᵀ diag σ'(z(j))‖₂ = {prod:.3e}, bound (σ1γ)^{d} = {bound:.3e}, "
        "measured ‖∂J(T)/∂h(k)‖ = {meas:.3e} (‖∂J(T)/∂h(T)‖ = 1).",
        "RNN（种子 0），距离 T − k = {d}：‖∏ W_hᵀ diag σ'(z(j))‖₂ = {prod:.3e}，上界 (σ1γ)^{d} = {bound:.3e}，"
        "实测 ‖∂J(T)/∂h(k)‖ = {meas:.3e}（‖∂J(T)/∂h(T)‖ = 1）。",
    ),
    "gradients.formula_note_no_rnn": (
        "RNN at seed 0, distance T − k = {d}: ‖∏ W_hᵀ diag σ'(z(j))‖₂ = {prod:.3e}, bound (σ1γ)^{d} = {bound:.3e} "
        "(select the RNN to see the measured gradient too).",
        "RNN（种子 0），距离 T − k = {d}：‖∏ W_hᵀ diag σ'(z(j))‖₂ = {prod:.3e}，上界 (σ1γ)^{d} = {bound:.3e}"
        "（选择 RNN 即可同时看到实测梯度）。",
    ),
    "gradients.distance_pick": ("Distance T − k for the live numbers", "实时数值所用的距离 T − k"),
    "gradients.panels.first_steps": ("The per-step panels show the first {n} of the T = {T} steps (one matrix norm per step).",
                                     "逐步面板显示 T = {T} 步中的前 {n} 步（每步计算一次矩阵范数）。"),
    "gradients.panels.header": ("Why: the spectrum of W_h and the activation's slope", "原因：W_h 的谱与激活函数的斜率"),
    "gradients.lstm.header": ("LSTM: is ∂c(t)/∂c(t−1) really ≈ f(t)?", "LSTM：∂c(t)/∂c(t−1) 真的 ≈ f(t) 吗？"),
    "gradients.lstm.ignored": ("ignored in the notes", "讲义中忽略的项"),
    "gradients.lstm.note": (
        "Exact Jacobian = diag f(t) + terms through h(t−1) = o(t−1) ⊙ tanh c(t−1) that the notes ignore. "
        "Median relative error of the approximation over the steps: {err:.1%}.",
        "精确雅可比 = diag f(t) + 经由 h(t−1) = o(t−1) ⊙ tanh c(t−1) 的项（讲义忽略了它们）。各步近似的相对误差中位数：{err:.1%}。",
    ),
    "gradients.conn.header": ("Which earlier words does a prediction feel?", "一次预测能“感受”到哪些前面的词？"),
    "gradients.conn.caption": (
        "Each input word k is shaded by ‖∂J(t)/∂x(k)‖ for the prediction at step t, under the RNN and the LSTM "
        "trained on the current corpus (the models of the LSTM page; shade relative to the largest, log scale).",
        "每个输入词 k 按 ‖∂J(t)/∂x(k)‖ 着色，对应第 t 步的预测，模型为在当前语料上训练的 RNN 与 LSTM"
        "（即 LSTM 页的模型；相对最大值，对数刻度）。",
    ),
    "gradients.conn.sentence": ("Sentence (index in the training split)", "句子（训练集中的序号）"),
    "gradients.conn.position": ("Prediction at step t", "第 t 步的预测"),
    "gradients.conn.too_short": ("The training split has no sentence of {lo} to {hi} tokens for this view.",
                                 "训练集中没有 {lo} 到 {hi} 个词元的句子可用于此视图。"),
    "gradients.conn.one_sentence": ("The only training sentence of the right length is shown.",
                                    "只显示长度合适的唯一一个训练句。"),
    "gradients.conn.predicting": ("Predicting “{word}” from: {context}", "根据 {context} 预测“{word}”"),
    "gradients.clip.header": ("The clipping lab", "梯度裁剪实验"),
    "gradients.clip.rule": ("The notes' rule:", "讲义中的规则："),
    "gradients.cliff.header": ("1. The cliff (Pascanu, Mikolov & Bengio 2013)", "1. 悬崖（Pascanu、Mikolov 与 Bengio，2013）"),
    "gradients.cliff.caption": (
        "A one-unit RNN h(t) = w·sigmoid(h(t−1)) + b, h(0) = {h0:g}, loss L = (h({T}) − {target:g})². Near a "
        "bifurcation, h({T}) jumps: the loss has a wall where the gradient is huge. Same start, same learning rate.",
        "单单元 RNN：h(t) = w·sigmoid(h(t−1)) + b，h(0) = {h0:g}，损失 L = (h({T}) − {target:g})²。在分岔附近 h({T}) 会跳变："
        "损失面上出现梯度极大的“墙”。相同起点、相同学习率。",
    ),
    "gradients.cliff.threshold": ("Clipping threshold", "裁剪阈值"),
    "gradients.cliff.lr": ("Learning rate η", "学习率 η"),
    "gradients.cliff.start_w": ("Start w", "起点 w"),
    "gradients.cliff.start_b": ("Start b", "起点 b"),
    "gradients.cliff.max_step_plain": ("Largest step, no clipping", "最大步长（不裁剪）"),
    "gradients.cliff.max_step_clip": ("Largest step, clipped (≤ η·threshold)", "最大步长（裁剪，≤ η·阈值）"),
    "gradients.cliff.never_clipped": (
        "Clipping never fired on this path: the largest ‖∇L‖ was {norm:.3g}, below the threshold {threshold:g}, "
        "so both paths coincide. Lower the threshold or start nearer the wall.",
        "这条路径上从未触发裁剪：最大的 ‖∇L‖ 为 {norm:.3g}，低于阈值 {threshold:g}，所以两条路径重合。请降低阈值或从更靠近墙的位置出发。",
    ),
    "gradients.cliff.final": ("Final loss: plain {plain:.3g} · clipped {clip:.3g}", "最终损失：不裁剪 {plain:.3g} · 裁剪 {clip:.3g}"),
    "gradients.run.header": ("2. A real small LM training run on the current corpus", "2. 在当前语料上真实训练一个小语言模型"),
    "gradients.run.caption": (
        "The RNN language model of the LSTM page, small (embedding {emb}, hidden {n}, the corpus vocabulary of {v} "
        "words, sentences <s> … </s>), trained {steps} plain SGD steps on batches of {batch} sentences cut into "
        "chunks of {bptt} steps, W_h initialised with σ1 = {s1}: the same seed and batches, without and with clipping.",
        "LSTM 页的 RNN 语言模型的小型版本（嵌入 {emb}，隐层 {n}，语料词表 {v} 个词，句子 <s> … </s>），"
        "以每批 {batch} 个句子、每段 {bptt} 步做 {steps} 步普通 SGD，W_h 初始 σ1 = {s1}：相同种子与批次，分别不裁剪和裁剪。",
    ),
    "gradients.run.threshold": ("Clipping threshold", "裁剪阈值"),
    "gradients.run.lr": ("Learning rate η", "学习率 η"),
    "gradients.run.share": ("Clipped steps", "被裁剪的步数占比"),
    "gradients.run.final_plain": ("Final loss, no clipping", "最终损失（不裁剪）"),
    "gradients.run.final_clip": ("Final loss, clipped", "最终损失（裁剪）"),
    "gradients.run.diverged": ("The unclipped run blew up at step {k}: its loss became inf/NaN or passed 1000·ln|V|.",
                               "不裁剪的训练在第 {k} 步发散：损失变为 inf/NaN 或超过 1000·ln|V|。"),
    "gradients.run.lesson": (
        "Clipping only shrinks: ĝ keeps its direction and its length is capped. It cures explosion, but a vanished "
        "gradient (the curves above, far from T) stays vanished — that needs a better cell (LSTM/GRU), not clipping.",
        "裁剪只会缩小：ĝ 方向不变、长度被限制。它能治梯度爆炸，但已经消失的梯度（上图远离 T 的部分）依然消失——"
        "那需要更好的单元（LSTM/GRU），而不是裁剪。",
    ),
    "gradients.too_small": ("The corpus is too small to train on.", "语料太小，无法训练。"),
    # figures
    "gradients.fig.curve": ("{cell} ‖∂J(T)/∂h(k)‖ (median)", "{cell} ‖∂J(T)/∂h(k)‖（中位数）"),
    "gradients.fig.curve_c": ("{cell} ‖∂J(T)/∂c(k)‖ (median)", "{cell} ‖∂J(T)/∂c(k)‖（中位数）"),
    "gradients.fig.exploded": ("{cell} exploded at distance {k}", "{cell} 在距离 {k} 处爆炸"),
    "gradients.fig.underflow": ("{cell} underflowed to 0 at distance {k}", "{cell} 在距离 {k} 处下溢为 0"),
    "gradients.fig.theory": ("bound (σ1γ)^(T−k), σ1γ = {sg:.3g}", "上界 (σ1γ)^(T−k)，σ1γ = {sg:.3g}"),
    "gradients.fig.theory_overflow": ("bound exploded at distance {k}", "上界在距离 {k} 处爆炸"),
    "gradients.fig.curves_title": (
        "Gradient norm vs distance — σ1γ = {sg:.3g}: {regime}", "梯度范数与距离——σ1γ = {sg:.3g}：{regime}",
    ),
    "gradients.fig.distance": ("distance T − k (steps)", "距离 T − k（步）"),
    "gradients.fig.norm": ("‖∂J(T)/∂h(k)‖ (log scale)", "‖∂J(T)/∂h(k)‖（对数刻度）"),
    "gradients.fig.unit_circle": ("unit circle |λ| = 1", "单位圆 |λ| = 1"),
    "gradients.fig.eig_title": ("Eigenvalues of W_h (ρ = {rho:.3g}, σ1 = {sigma1:.3g})", "W_h 的特征值（ρ = {rho:.3g}，σ1 = {sigma1:.3g}）"),
    "gradients.fig.real": ("Re λ", "Re λ"),
    "gradients.fig.imag": ("Im λ", "Im λ"),
    "gradients.fig.step": ("time step j", "时间步 j"),
    "gradients.fig.deriv": ("mean σ'(z(j))", "σ'(z(j)) 的平均值"),
    "gradients.fig.deriv_ref": ("γ = max σ' = {v:.3g}", "γ = max σ' = {v:.3g}"),
    "gradients.fig.deriv_title": ("Mean slope σ'(z(j)) per step (RNN)", "每步平均斜率 σ'(z(j))（RNN）"),
    "gradients.fig.deriv_axis": ("mean σ'(z(j)) over units", "各单元 σ'(z(j)) 的平均"),
    "gradients.fig.jacobian": ("‖W_hᵀ diag σ'(z(j))‖₂", "‖W_hᵀ diag σ'(z(j))‖₂"),
    "gradients.fig.jacobian_ref": ("σ1·γ = {v:.3g}", "σ1·γ = {v:.3g}"),
    "gradients.fig.jacobian_title": ("One Jacobian factor's norm per step (RNN)", "每步单个雅可比因子的范数（RNN）"),
    "gradients.fig.jacobian_axis": ("‖W_hᵀ diag σ'(z(j))‖₂ (log scale)", "‖W_hᵀ diag σ'(z(j))‖₂（对数刻度）"),
    "gradients.fig.conn_colour": ("log10 relative ‖∂J/∂x(k)‖", "log10 相对 ‖∂J/∂x(k)‖"),
    "gradients.fig.conn_title": ("Gradient reaching each input word when predicting “{word}”", "预测“{word}”时传到各输入词的梯度"),
    "gradients.fig.conn_axis": ("input word x(k), position k", "输入词 x(k)（位置 k）"),
    "gradients.fig.conn_model": ("model", "模型"),
    "gradients.fig.lstm_exact": ("‖∂c(t)/∂c(t−1)‖₂ exact", "‖∂c(t)/∂c(t−1)‖₂ 精确值"),
    "gradients.fig.lstm_f": ("‖diag f(t)‖₂ (notes)", "‖diag f(t)‖₂（讲义）"),
    "gradients.fig.lstm_err": ("relative error", "相对误差"),
    "gradients.fig.lstm_title": ("LSTM cell path: exact Jacobian vs forget gate (seed 0)", "LSTM 记忆通路：精确雅可比与遗忘门（种子 0）"),
    "gradients.fig.lstm_axis": ("spectral norm", "谱范数"),
    "gradients.fig.lstm_err_axis": ("‖exact − diag f‖ / ‖exact‖", "‖精确 − diag f‖ / ‖精确‖"),
    "gradients.fig.cliff_colour": ("log10 L", "log10 L"),
    "gradients.fig.cliff_title": ("Loss surface of a one-unit RNN with gradient-descent paths", "单单元 RNN 的损失面与梯度下降路径"),
    "gradients.fig.path_plain": ("gradient descent", "梯度下降"),
    "gradients.fig.path_clipped": ("with norm clipping", "加范数裁剪"),
    "gradients.fig.w": ("recurrent weight w", "循环权重 w"),
    "gradients.fig.b": ("bias b", "偏置 b"),
    "gradients.fig.run_unclipped": ("no clipping", "不裁剪"),
    "gradients.fig.run_clipped": ("clipped", "裁剪"),
    "gradients.fig.diverged": ("diverged at step {k}", "在第 {k} 步发散"),
    "gradients.fig.threshold": ("threshold = {v:g}", "阈值 = {v:g}"),
    "gradients.fig.norm_trace_title": ("Global gradient norm ‖ĝ‖ per step (before clipping)", "每步的全局梯度范数 ‖ĝ‖（裁剪前）"),
    "gradients.fig.train_step": ("training step", "训练步"),
    "gradients.fig.grad_norm": ("‖ĝ‖ (log scale)", "‖ĝ‖（对数刻度）"),
    "gradients.fig.loss_title": ("Training loss with and without clipping (same seed)", "裁剪与不裁剪的训练损失（相同种子）"),
    "gradients.fig.loss_axis": ("J (nats per token)", "J（奈特/词元）"),
}
