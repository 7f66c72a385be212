"""Strings of teaching mode: projector view, predict-then-reveal questions, exercise sheets, exports, share."""

STRINGS = {
    "teaching.literal": ("{text}", "{text}"),
    # --- sidebar and projector view
    "teaching.sidebar.header": ("Teaching", "教学"),
    "teaching.projector": ("Projector view", "投影模式"),
    "teaching.projector_help": ("Large fonts, one section at a time (← → keys), sidebar collapsed. The link keeps the section.",
                                "大字体，一次一节（← → 键翻页），侧边栏收起。链接会记住当前小节。"),
    "teaching.prev": ("◀ Previous", "◀ 上一页"),
    "teaching.next": ("Next ▶", "下一页 ▶"),
    "teaching.slide": ("{i} / {n}", "{i} / {n}"),
    "teaching.keys_hint": ("← → keys change slides", "← → 键翻页"),
    "teaching.slide.empty": ("Nothing to show in this section for this corpus.", "该语料在这一节没有可显示的内容。"),
    "teaching.slide.question": ("Predict: question {i}", "预测：第 {i} 题"),
    "teaching.sec.ngram.table": ("Counts and MLE: next words after a context", "计数与 MLE：上下文之后的下一个词"),
    "teaching.sec.ngram.sparsity": ("Sparsity: unseen n-grams", "稀疏性：未出现的 n 元组"),
    "teaching.sec.ngram.formula": ("Smoothing formulas with live numbers", "平滑公式（实时数值）"),
    "teaching.sec.ngram.charts": ("Where smoothing moves probability", "平滑把概率移到哪里"),
    "teaching.sec.ngram.continuation": ("Kneser-Ney's continuation counts", "Kneser-Ney 的接续计数"),
    "teaching.sec.ngram.grid": ("Held-out perplexity: order × method", "留出集困惑度：阶数 × 方法"),
    "teaching.sec.ngram.sample": ("Sampling sentences", "采样句子"),
    "teaching.sec.gradients.curves": ("Gradient norm vs distance", "梯度范数与距离"),
    "teaching.sec.gradients.panels": ("Why: spectrum and σ′", "原因：谱与 σ′"),
    "teaching.sec.gradients.clipping": ("Clipping: the cliff", "梯度裁剪：悬崖"),
    "teaching.sec.gradients.run": ("Clipping in a real training run", "真实训练中的裁剪"),
    "teaching.sec.gradients.lstm": ("The LSTM's additive cell path", "LSTM 的加法记忆通路"),
    "teaching.sec.gradients.connectivity": ("Which earlier words reach the prediction", "哪些较早的词影响预测"),
    # --- predict, then reveal
    "teaching.quiz.caption": ("Questions drawn from this corpus and these settings; lmcore checks the answers. "
                              "The answer is computed on the server and only sent once you press Reveal.",
                              "题目来自当前语料与设置，由 lmcore 计算答案。答案只在服务器上，按“揭晓”后才发送到页面。"),
    "teaching.quiz.question_n": ("Question {i}", "第 {i} 题"),
    "teaching.quiz.your_answer": ("Your answer", "你的答案"),
    "teaching.quiz.number_placeholder": ("a number, e.g. 0.0123, 1/80 or 2.5e-3", "一个数，例如 0.0123、1/80 或 2.5e-3"),
    "teaching.quiz.reveal": ("Reveal the answer", "揭晓答案"),
    "teaching.quiz.correct": (":material/check_circle: Right!", ":material/check_circle: 答对了！"),  # no emoji font needed
    "teaching.quiz.wrong": (":material/cancel: Not quite: you said {response}.", ":material/cancel: 不对：你的答案是 {response}。"),
    "teaching.quiz.no_answer": ("Revealed without an answer (not scored).", "未作答就揭晓（不计分）。"),
    "teaching.quiz.bad_number": ("“{raw}” is not a number: try 0.0123, 1/80 or 2.5e-3.", "“{raw}”不是数字：请输入 0.0123、1/80 或 2.5e-3。"),
    "teaching.quiz.answer": ("Answer: {answer}", "答案：{answer}"),
    "teaching.quiz.score": ("Class score this session: {right} right of {answered} answered", "本节课得分：已答 {answered} 题，答对 {right} 题"),
    "teaching.quiz.new": ("New questions", "换一组题"),
    "teaching.quiz.none": ("This corpus is too small for questions here.", "该语料太小，无法在此出题。"),
    "teaching.topic.perplexity": ("Chain rule & perplexity", "链式法则与困惑度"),
    "teaching.topic.ngram": ("N-grams & smoothing", "N 元语法与平滑"),
    "teaching.topic.gradients": ("Vanishing gradients & clipping", "梯度消失与裁剪"),
    "teaching.topic.decoding": ("Greedy vs beam search", "贪心与束搜索"),
    "teaching.topic.corpus": ("The corpus: Zipf, Heaps, OOV", "语料：Zipf、Heaps 与未登录词"),
    "teaching.topic.rnn_bptt": ("RNN forward pass & BPTT", "RNN 前向计算与 BPTT"),
    "teaching.topic.lstm": ("LSTM gates & memory", "LSTM 的门与记忆"),
    "teaching.topic.seq2seq": ("Encoder-decoder & the bottleneck", "编码器-解码器与瓶颈"),
    "teaching.tol.abs": ("accepted within ±{value}", "误差 ±{value} 以内算对"),
    "teaching.tol.rel": ("accepted within {value}", "相对误差 {value} 以内算对"),
    "teaching.tol.factor": ("accepted within a factor of {value}", "相差不超过 {value} 倍算对"),
    # --- table columns
    "teaching.col.h": ("h", "h"),
    "teaching.col.w": ("w", "w"),
    "teaching.col.c_hw": ("C(h,w)", "C(h,w)"),
    "teaching.col.c_h": ("C(h)", "C(h)"),
    "teaching.col.c_w": ("C(w)", "C(w)"),
    "teaching.col.v": ("|V|", "|V|"),
    "teaching.col.delta": ("δ", "δ"),
    "teaching.col.d": ("d", "d"),
    "teaching.col.n1_h": ("N1+(h •)", "N1+(h •)"),
    "teaching.col.n1_w": ("N1+(• w)", "N1+(• w)"),
    "teaching.col.n1_all": ("N1+(• •)", "N1+(• •)"),
    "teaching.col.t": ("t", "t"),
    "teaching.col.token": ("x_t", "x_t"),
    "teaching.col.p_token": ("P(x_t | x_<t)", "P(x_t | x_<t)"),
    "teaching.col.prefix": ("prefix y_<t", "前缀 y_<t"),
    "teaching.col.p_next": ("P({w} | prefix)", "P({w} | 前缀)"),
    # --- questions (q), choices, reveals (r)
    "teaching.q.add_delta": ("Bigram counts from the training text are in the table. What is P_add-δ(“{w}” | “{h}”) with δ = {delta}?",
                             "表中是训练文本的二元计数。δ = {delta} 时，P_加δ(“{w}” | “{h}”) 是多少？"),
    "teaching.r.add_delta": ("P_add-δ = (C(h,w) + δ) / (C(h) + δ|V|) = ({c_hw} + {delta}) / ({c_h} + {delta} × {v}) = {p}",
                             "P_加δ = (C(h,w) + δ) / (C(h) + δ|V|) = ({c_hw} + {delta}) / ({c_h} + {delta} × {v}) = {p}"),
    "teaching.q.unseen": ("The bigram “{h} {w}” never occurs in training. Which bigram probability P(“{w}” | “{h}”) is largest?",
                          "二元组“{h} {w}”在训练集中从未出现。哪一种二元概率 P(“{w}” | “{h}”) 最大？"),
    "teaching.choice.p_mle": ("P_MLE", "P_MLE"),
    "teaching.choice.p_add-delta": ("P_add-δ", "P_加δ"),
    "teaching.choice.p_kn-interp": ("P_KN (interpolated)", "P_KN（插值）"),
    "teaching.r.unseen": ("P_MLE = {mle} (never seen: zero), P_add-δ = {add} (same for every unseen word after h), "
                          "P_KN = {kn} (λ(h) × continuation probability of w)",
                          "P_MLE = {mle}（未见过：为零），P_加δ = {add}（h 之后所有未见词都相同），"
                          "P_KN = {kn}（λ(h) × w 的接续概率）"),
    "teaching.q.continuation": ("“{a}” and “{b}”: their training counts C(w) are in the table. Which one gets more probability "
                                "from Kneser-Ney's unigram (continuation) distribution?",
                                "“{a}”和“{b}”：训练计数 C(w) 见表。Kneser-Ney 的一元（接续）分布给哪个词的概率更大？"),
    "teaching.r.continuation": ("KN counts distinct left neighbours, not occurrences: N1+(• {a}) = {na}, N1+(• {b}) = {nb}; "
                                "P_cont({a}) = {pa}, P_cont({b}) = {pb}",
                                "KN 计的是不同左邻词的个数而不是出现次数：N1+(• {a}) = {na}，N1+(• {b}) = {nb}；"
                                "P_cont({a}) = {pa}，P_cont({b}) = {pb}"),
    "teaching.q.from_probs": ("The {order}-gram {method} model scores the sentence “{sentence}” token by token (table, </s> included). "
                              "What is its perplexity?",
                              "{order} 元 {method} 模型逐词给句子“{sentence}”打分（见表，含 </s>）。它的困惑度是多少？"),
    "teaching.r.from_probs": ("PPL = exp(−(1/T) Σ ln P) with T = {n}: Σ ln P = {logp}, PPL = {ppl}",
                              "PPL = exp(−(1/T) Σ ln P)，T = {n}：Σ ln P = {logp}，PPL = {ppl}"),
    "teaching.q.guess": ("Guess the perplexity of “{sentence}” under the {order}-gram {method} model (|V| = {v}).",
                         "猜一猜“{sentence}”在 {order} 元 {method} 模型下的困惑度（|V| = {v}）。"),
    "teaching.r.guess": ("PPL = {ppl}: on average the model is as unsure as a fair {k}-sided die (out of |V| = {v} words).",
                         "PPL = {ppl}：平均而言，模型的不确定性相当于一个公平的 {k} 面骰子（词表 |V| = {v}）。"),
    "teaching.q.threshold": ("An RNN with W_h = σ₁·Q (every singular value σ₁ = {sigma1}), activation {act}, hidden size {hidden}, "
                             "random inputs of scale {x}; ‖∂J/∂h(T)‖ = 1. After {d} steps back in time, is ‖∂J/∂h(T−{d})‖ above or below {p10}?",
                             "一个 RNN：W_h = σ₁·Q（所有奇异值 σ₁ = {sigma1}），激活函数 {act}，隐藏层 {hidden} 维，"
                             "输入为尺度 {x} 的随机向量；‖∂J/∂h(T)‖ = 1。回传 {d} 步之后，‖∂J/∂h(T−{d})‖ 高于还是低于 {p10}？"),
    "teaching.choice.above": ("above {p10}", "高于 {p10}"),
    "teaching.choice.below": ("below {p10}", "低于 {p10}"),
    "teaching.r.threshold": ("Measured (one backward pass): ‖∂J/∂h(T−{d})‖ = {norm}; the notes' bound (σ₁γ)^{d} = {bound}; "
                             "the line is {p10}.",
                             "实测（一次反向传播）：‖∂J/∂h(T−{d})‖ = {norm}；讲义的上界 (σ₁γ)^{d} = {bound}；分界线是 {p10}。"),
    "teaching.q.regime": ("W_h has largest singular value σ₁ = {sigma1} and the activation is {act}. Does the notes' bound "
                          "(σ₁γ)^(t−k) vanish or explode as t − k grows?",
                          "W_h 的最大奇异值 σ₁ = {sigma1}，激活函数是 {act}。随着 t − k 增大，讲义中的上界 (σ₁γ)^(t−k) 会消失还是爆炸？"),
    "teaching.r.regime": ("γ = max σ′ = {gamma}, so σ₁γ = {sigma1} × {gamma} = {sg}: {regime}.",
                          "γ = max σ′ = {gamma}，所以 σ₁γ = {sigma1} × {gamma} = {sg}：{regime}。"),
    "teaching.q.clip": ("The gradient is g = ({a}, {b}) and the clipping threshold is {tau}. What is the first component of ĝ after clipping?",
                        "梯度 g = ({a}, {b})，裁剪阈值为 {tau}。裁剪后 ĝ 的第一个分量是多少？"),
    "teaching.r.clip_yes": ("‖g‖ = {norm} > {tau}, so ĝ = ({tau} / {norm}) · g = ({g1}, {g2}): same direction, length {tau}.",
                            "‖g‖ = {norm} > {tau}，所以 ĝ = ({tau} / {norm}) · g = ({g1}, {g2})：方向不变，长度为 {tau}。"),
    "teaching.r.clip_no": ("‖g‖ = {norm} ≤ {tau}: no clipping, ĝ = g = ({g1}, {g2}).",
                           "‖g‖ = {norm} ≤ {tau}：不裁剪，ĝ = g = ({g1}, {g2})。"),
    "teaching.q.lstm": ("An RNN (σ₁ = 1, tanh) and an LSTM with forget-gate bias b_f = {bf}, both hidden size {hidden}, same inputs. "
                        "{d} steps back in time, whose ‖∂J/∂h‖ is larger?",
                        "一个 RNN（σ₁ = 1，tanh）和一个遗忘门偏置 b_f = {bf} 的 LSTM，隐藏层都是 {hidden} 维，输入相同。"
                        "回传 {d} 步后，谁的 ‖∂J/∂h‖ 更大？"),
    "teaching.choice.rnn": ("the RNN", "RNN"),
    "teaching.choice.lstm": ("the LSTM", "LSTM"),
    "teaching.r.lstm": ("At distance {d}: RNN {rnn}, LSTM {lstm}. The LSTM's cell path multiplies by f ≈ σ(b_f) = {f} per step.",
                        "距离 {d} 处：RNN {rnn}，LSTM {lstm}。LSTM 的记忆通路每步乘以 f ≈ σ(b_f) = {f}。"),
    "teaching.q.beam": ("The table gives P(next | prefix) over {vocab}; after two words the output always ends. Which output "
                        "does beam search with k = {k} return? (A finished output leaves the beam and uses up one of its k places.)",
                        "表中给出 {vocab} 上的 P(下一个 | 前缀)；两个词之后输出必定结束。宽度 k = {k} 的束搜索返回哪个输出？"
                        "（已结束的输出离开束，并占用 k 个位置中的一个。）"),
    "teaching.r.beam": ("Beam search (k = {k}) returns “{beam}” with P = {pb}; greedy returns “{greedy}” with P = {pg}.",
                        "束搜索（k = {k}）返回“{beam}”，P = {pb}；贪心返回“{greedy}”，P = {pg}。"),
    "teaching.q.greedy": ("The table gives P(next | prefix) over {vocab}; after two words the output always ends. "
                          "Greedy decoding takes the most probable token at each step: what is P(y) of its output?",
                          "表中给出 {vocab} 上的 P(下一个 | 前缀)；两个词之后输出必定结束。贪心解码每步取概率最大的词：它的输出的 P(y) 是多少？"),
    "teaching.r.greedy": ("Greedy outputs “{y}”; by the chain rule P(y) = product of the probabilities along its path = {p}.",
                          "贪心输出“{y}”；由链式法则，P(y) = 沿路径的概率之积 = {p}。"),
    "teaching.col.n_tokens": ("first N tokens", "前 N 个词元"),
    "teaching.col.n_types": ("distinct types V(N)", "不同词型数 V(N)"),
    "teaching.col.rank": ("rank r", "排名 r"),
    "teaching.col.count": ("count", "次数"),
    "teaching.q.heaps": ("Reading the corpus from the start, the first {n1} tokens hold {v1} distinct types (table). "
                         "How many distinct types do the first {n2} tokens hold? Pick the closest.",
                         "从语料开头读起，前 {n1} 个词元中有 {v1} 个不同的词型（见表）。前 {n2} 个词元中有多少个不同的词型？选最接近的。"),
    "teaching.r.heaps": ("V({n2}) = {v2}, far below the linear guess {linear}: new types keep coming, ever more slowly. "
                         "Heaps' law fitted to this corpus: V(N) ≈ {k} · N^{beta}.",
                         "V({n2}) = {v2}，远小于按线性外推的 {linear}：新词型不断出现，但越来越慢。"
                         "本语料拟合的 Heaps 定律：V(N) ≈ {k} · N^{beta}。"),
    "teaching.q.zipf": ("The most frequent token, “{w1}”, occurs {c1} times in the corpus. How often does the token of "
                        "rank {r} occur? Pick the closest.",
                        "最常见的词元“{w1}”在语料中出现 {c1} 次。排名第 {r} 的词元出现多少次？选最接近的。"),
    "teaching.r.zipf": ("Rank {r} is “{w}”, seen {c} times; Zipf's law f(r) ∝ 1/r predicts about {zipf}. "
                        "The top token alone is {share} of all tokens.",
                        "排名第 {r} 的是“{w}”，出现 {c} 次；Zipf 定律 f(r) ∝ 1/r 预测约为 {zipf}。"
                        "仅最常见的词元就占全部词元的 {share}。"),
    "teaching.q.oov": ("The training split has {train} tokens and the vocabulary keeps |V| = {v} types (with <unk>). "
                       "What share of the {test} test tokens is out of vocabulary (becomes <unk>)? Pick the closest.",
                       "训练集有 {train} 个词元，词表保留 |V| = {v} 个词型（含 <unk>）。测试集的 {test} 个词元中，"
                       "未登录（变成 <unk>）的比例是多少？选最接近的。"),
    "teaching.r.oov": ("{n} of the {test} test tokens were never seen in training: OOV rate = {rate}. "
                       "Every one of them costs a model its P(<unk>).",
                       "测试集 {test} 个词元中有 {n} 个在训练集中从未出现：未登录率 = {rate}。"
                       "每一个都只能得到模型的 P(<unk>)。"),
    "teaching.q.hapax": ("The corpus has {tokens} tokens of {types} distinct types. What share of the types occur exactly once "
                         "(hapax legomena)? Pick the closest.",
                         "语料共有 {tokens} 个词元、{types} 个不同的词型。只出现一次的词型（hapax legomena）占多大比例？选最接近的。"),
    "teaching.r.hapax": ("{once} of the {types} types occur once: {share}. Zipf's long tail: most types are rare, so a model "
                         "sees most words only a handful of times.",
                         "{types} 个词型中有 {once} 个只出现一次：{share}。Zipf 的长尾：大多数词型都很罕见，模型对多数词只见过寥寥几次。"),
    "teaching.bar.oov_valid": ("validation", "验证集"),
    "teaching.bar.oov_test": ("test", "测试集"),
    "teaching.fig.oov": ("Out-of-vocabulary rate of each held-out split", "各留出集的未登录率"),
    "teaching.axis.oov": ("share of tokens not in V", "不在词表中的词元比例"),
    "teaching.axis.prob": ("probability", "概率"),
    "teaching.col.window": ("window w", "窗口 w"),
    "teaching.q.rnn_top": ("The RNN has read “{prefix}” (steps 1 … {t}). Which word gets the highest probability ŷ({t}) "
                           "as the next word?",
                           "RNN 已读入“{prefix}”（第 1 … {t} 步）。哪个词作为下一个词的概率 ŷ({t}) 最高？"),
    "teaching.r.rnn_top": ("ŷ({t}) puts {p} on “{w}”, ahead of “{w2}” ({p2}). The word that actually follows is "
                           "“{target}”, with ŷ = {pt}.",
                           "ŷ({t}) 给“{w}”的概率是 {p}，高于“{w2}”（{p2}）。实际的下一个词是“{target}”，ŷ = {pt}。"),
    "teaching.fig.rnn_top": ("ŷ({t}) of the four choices", "四个选项的 ŷ({t})"),
    "teaching.q.rnn_decay": ("The RNN reads “{sentence}” (T = {T} steps). Averaged over t, is a step d = {d} back's "
                             "contribution ‖G(t, t−{d})‖ to ∂J(t)/∂W_h smaller or larger than the same step's ‖G(t, t)‖?",
                             "RNN 读入“{sentence}”（T = {T} 步）。对 t 取平均，往回 d = {d} 步的贡献 ‖G(t, t−{d})‖ "
                             "（对 ∂J(t)/∂W_h）比同一步的 ‖G(t, t)‖ 更小还是更大？"),
    "teaching.choice.shrink": ("smaller: contributions shrink with t − k", "更小：贡献随 t − k 衰减"),
    "teaching.choice.grow": ("larger: contributions grow with t − k", "更大：贡献随 t − k 增长"),
    "teaching.r.rnn_decay": ("Mean ‖G(t, t)‖ = {m0}, mean ‖G(t, t−{d})‖ = {md}: a ratio of {ratio}, {way}. Each step back "
                             "multiplies by W_hᵀ diag σ′(z).",
                             "‖G(t, t)‖ 平均为 {m0}，‖G(t, t−{d})‖ 平均为 {md}：比值 {ratio}，{way}。每往回一步乘以 W_hᵀ diag σ′(z)。"),
    "teaching.fig.rnn_decay": ("Mean ‖G(t, t−d)‖ over t, by distance d", "按距离 d 对 t 平均的 ‖G(t, t−d)‖"),
    "teaching.axis.g_norm": ("mean ‖G(t, t−d)‖", "‖G(t, t−d)‖ 平均值"),
    "teaching.q.rnn_truncation": ("The RNN reads “{sentence}” (T = {T} steps). Truncated BPTT with window w = {w} keeps only "
                                  "the terms G(t, k) with t − k < {w}. Does it miss more or less than {line} of ∂J/∂W_h "
                                  "(relative error ‖g_w − g‖ / ‖g‖)?",
                                  "RNN 读入“{sentence}”（T = {T} 步）。窗口 w = {w} 的截断 BPTT 只保留 t − k < {w} 的项 G(t, k)。"
                                  "它丢掉的 ∂J/∂W_h 多于还是少于 {line}（相对误差 ‖g_w − g‖ / ‖g‖）？"),
    "teaching.choice.more_than": ("more than {line}", "多于 {line}"),
    "teaching.choice.less_than": ("less than {line}", "少于 {line}"),
    "teaching.choice.above_line": ("above {line}", "高于 {line}"),
    "teaching.choice.below_line": ("below {line}", "低于 {line}"),
    "teaching.r.rnn_truncation": ("With w = {w} the relative error is {err}; the dropped terms carry {dropped} of Σ‖G(t, k)‖.",
                                  "w = {w} 时相对误差为 {err}；被丢掉的项占 Σ‖G(t, k)‖ 的 {dropped}。"),
    "teaching.fig.rnn_truncation": ("Truncation error by window w", "截断误差与窗口 w"),
    "teaching.axis.trunc_err": ("‖g_w − g‖ / ‖g‖", "‖g_w − g‖ / ‖g‖"),
    "teaching.q.lstm_forget": ("The LSTM reads “{passage}”. At step {t} it reads “{word}”. Is unit {u}'s forget gate f_{u}({t}) "
                               "above or below 0.5?",
                               "LSTM 读入“{passage}”。第 {t} 步读入“{word}”。第 {u} 号单元的遗忘门 f_{u}({t}) 高于还是低于 0.5？"),
    "teaching.r.lstm_forget": ("f_{u}({t}) = {f} (mean over all units at this step: {mean}). Above 0.5 the cell keeps more than "
                               "half of c_{u}({t}−1); below, it forgets most of it.",
                               "f_{u}({t}) = {f}（这一步所有单元的平均值：{mean}）。高于 0.5 时记忆单元保留 c_{u}({t}−1) 的一半以上；"
                               "低于 0.5 则大部分被遗忘。"),
    "teaching.fig.lstm_forget": ("Forget gate f_{u}(t) of unit {u} along the passage", "第 {u} 号单元的遗忘门 f_{u}(t)"),
    "teaching.axis.forget": ("f(t)", "f(t)"),
    "teaching.q.lstm_memory": ("The LSTM reads “{passage}” (T = {T} steps). Along the cell, ∂c(T)/∂c(k) ≈ ∏_(t=k+1..T) f(t). "
                               "For k = {k}, is this product, averaged over the units, above or below {line}?",
                               "LSTM 读入“{passage}”（T = {T} 步）。沿记忆单元，∂c(T)/∂c(k) ≈ ∏_(t=k+1..T) f(t)。"
                               "k = {k} 时，这个乘积对各单元取平均后高于还是低于 {line}？"),
    "teaching.r.lstm_memory": ("Mean over units of ∏ f(t) from step {k} to {T}: {value} ({steps} factors f(t), each < 1). "
                               "The line was {line}.",
                               "从第 {k} 步到第 {T} 步的 ∏ f(t) 对单元取平均：{value}（{steps} 个小于 1 的因子 f(t)）。分界线是 {line}。"),
    "teaching.fig.lstm_memory": ("Mean over units of ∏_(t=k+1..T) f(t), by k", "各单元 ∏_(t=k+1..T) f(t) 的平均值（按 k）"),
    "teaching.axis.memory": ("mean ∏ f(t)", "∏ f(t) 平均值"),
    "teaching.q.lstm_edit": ("The LSTM reads “{passage}”. Replace word {j}, “{old}”, by “{new}”. Of the later words below, "
                             "whose log-probability ln P(w_t | w_<t) changes most?",
                             "LSTM 读入“{passage}”。把第 {j} 个词“{old}”换成“{new}”。下面这些后面的词中，"
                             "谁的对数概率 ln P(w_t | w_<t) 变化最大？"),
    "teaching.r.lstm_edit": ("“{w}”: |Δ ln P| = {d}; the next largest among the choices moves by {d2}. The edit travels "
                             "through h and c to every later step.",
                             "“{w}”：|Δ ln P| = {d}；其余选项中变化最大的是 {d2}。改动经由 h 和 c 传到之后的每一步。"),
    "teaching.fig.lstm_edit": ("|Δ ln P(w_t | w_<t)| after the edit", "改动后的 |Δ ln P(w_t | w_<t)|"),
    "teaching.axis.logp_change": ("|Δ ln P|", "|Δ ln P|"),
    "teaching.choice.yes": ("yes", "是"),
    "teaching.choice.no": ("no", "否"),
    "teaching.col.y_t": ("y_t", "y_t"),
    "teaching.col.p_y_t": ("P(y_t | y_<t, x)", "P(y_t | y_<t, x)"),
    "teaching.q.s2s_bottleneck": ("Task “{task}”. The encoder-decoder without attention was trained on sources of length {lo}–{hi}; "
                                  "its decoder sees the source only through c = h_enc^(m). On {n} held-out sources of length "
                                  "m = {m}, is its exact-match accuracy (greedy output = y) above or below {line}?",
                                  "任务“{task}”。无注意力的编码器-解码器在长度 {lo}–{hi} 的源序列上训练；解码器只能通过 c = h_enc^(m) "
                                  "看到源序列。在 {n} 个长度 m = {m} 的留出源序列上，它的完全匹配准确率（贪心输出 = y）高于还是低于 {line}？"),
    "teaching.r.s2s_bottleneck": ("Accuracy at m = {m}: {acc} (on {n} held-out sources). Without attention one fixed-size "
                                  "vector c has to carry all the source the task needs: follow the curve as m grows.",
                                  "m = {m} 时准确率为 {acc}（{n} 个留出源序列）。没有注意力时，任务所需的全部源信息都要装进一个"
                                  "固定长度的向量 c：看看曲线随 m 增大如何变化。"),
    "teaching.q.s2s_attention": ("Task “{task}”, held-out sources of length m = {m}. Which model has the higher exact-match accuracy?",
                                 "任务“{task}”，长度 m = {m} 的留出源序列。哪个模型的完全匹配准确率更高？"),
    "teaching.r.s2s_attention": ("At m = {m}: without attention {none}, with dot-product attention {dot}. Attention lets every "
                                 "decoder step read all encoder states h_1 … h_m, not just c.",
                                 "m = {m} 时：无注意力 {none}，点积注意力 {dot}。注意力让解码器每一步都能读取所有编码器状态 "
                                 "h_1 … h_m，而不只是 c。"),
    "teaching.q.s2s_greedy": ("Task “{task}”: the source x = {x} (m = {m}, held out) has the answer y = {y}. Does greedy decoding "
                              "with the model without attention output exactly y?",
                              "任务“{task}”：源序列 x = {x}（m = {m}，留出集）的答案是 y = {y}。无注意力模型的贪心解码输出恰好是 y 吗？"),
    "teaching.r.s2s_greedy": ("Greedy output: {out} (y = {y}). At m = {m} this model gets {acc} of held-out sources exactly right.",
                              "贪心输出：{out}（y = {y}）。m = {m} 时该模型在留出集上完全正确的比例是 {acc}。"),
    "teaching.q.s2s_factor": ("Task “{task}”, model without attention: x = {x}, y = {y}. The table gives each factor "
                              "P(y_t | y_<t, x) under teacher forcing (</s> included). What is P(y | x)?",
                              "任务“{task}”，无注意力模型：x = {x}，y = {y}。表中给出教师强制下的每个因子 P(y_t | y_<t, x)（含 </s>）。"
                              "P(y | x) 是多少？"),
    "teaching.r.s2s_factor": ("P(y | x) = ∏_t P(y_t | y_<t, x) over {n} factors: Σ ln P = {logp}, P(y | x) = {p}.",
                              "P(y | x) = ∏_t P(y_t | y_<t, x)，共 {n} 个因子：Σ ln P = {logp}，P(y | x) = {p}。"),
    "teaching.fig.s2s_factor": ("The chain-rule factors P(y_t | y_<t, x)", "链式法则的各因子 P(y_t | y_<t, x)"),
    "teaching.q.beam_gain": ("The table gives P(next | prefix) over {vocab}; after two words the output always ends. Does beam "
                             "search with k = {k} return an output with a higher P(y) than greedy decoding's?",
                             "表中给出 {vocab} 上的 P(下一个 | 前缀)；两个词之后输出必定结束。宽度 k = {k} 的束搜索返回的输出，"
                             "其 P(y) 比贪心解码的更高吗？"),
    "teaching.q.top_token": ("The {order}-gram {method} model scores “{sentence}” token by token (</s> included). Which token "
                             "contributes most to J = −(1/T) Σ_t ln P(x_t | x_<t)?",
                             "{order} 元 {method} 模型逐词给“{sentence}”打分（含 </s>）。哪个词元对 J = −(1/T) Σ_t ln P(x_t | x_<t) 的贡献最大？"),
    "teaching.r.top_token": ("“{w}”: P = {p}, so −ln P = {c} of the sum Σ −ln P = {total} over T = {T} tokens ({share}). "
                             "The least expected token costs the most.",
                             "“{w}”：P = {p}，−ln P = {c}，占总和 Σ −ln P = {total}（T = {T} 个词元）的 {share}。最出乎意料的词元代价最大。"),
    # --- figures that explain answers
    "teaching.explain.next_word": ("the next-word bars P(w | h)", "下一个词概率柱状图 P(w | h)"),
    "teaching.explain.continuation": ("C(w) vs N1+(• w)", "C(w) 与 N1+(• w)"),
    "teaching.explain.chain_rule": ("the chain-rule bars", "链式法则柱状图"),
    "teaching.explain.gradient_curve": ("gradient norm vs distance", "梯度范数与距离"),
    "teaching.explain.bound": ("the bound (σ₁γ)^(t−k)", "上界 (σ₁γ)^(t−k)"),
    "teaching.explain.clip": ("g and ĝ with the threshold circle", "g、ĝ 与阈值圆"),
    "teaching.explain.beam_tree": ("the beam-search tree", "束搜索树"),
    "teaching.explain.heaps": ("Heaps' law on this corpus", "本语料上的 Heaps 定律"),
    "teaching.explain.zipf": ("Zipf's law on this corpus", "本语料上的 Zipf 定律"),
    "teaching.explain.bars": ("the numbers behind the answer", "答案背后的数字"),
    "teaching.explain.length_curves": ("accuracy vs source length", "准确率与源序列长度"),
    "teaching.fig.next_word": ("P(w | h = “{h}”) under each method", "各方法下的 P(w | h = “{h}”)"),
    "teaching.fig.continuation": ("Occurrences C(w) vs distinct left neighbours N1+(• w)", "出现次数 C(w) 与不同左邻词数 N1+(• w)"),
    "teaching.fig.bound": ("The bound (σ₁γ)^(t−k) with σ₁γ = {sg}", "上界 (σ₁γ)^(t−k)，σ₁γ = {sg}"),
    "teaching.fig.clip": ("Clipping rescales g onto the threshold circle", "裁剪把 g 缩放到阈值圆上"),
    "teaching.fig.clip.ball": ("‖ĝ‖ = threshold", "‖ĝ‖ = 阈值"),
    "teaching.fig.clip.g": ("g", "g"),
    "teaching.fig.clip.ghat": ("ĝ (clipped)", "ĝ（裁剪后）"),
    "teaching.fig.beam": ("Beam search, k = {k}", "束搜索，k = {k}"),
    # --- exercise sheets
    "teaching.sheet.header": ("Exercise sheet", "练习题"),
    "teaching.sheet.n": ("Questions", "题数"),
    "teaching.sheet.seed": ("Seed (same seed, same sheet)", "随机种子（相同种子，相同题目）"),
    "teaching.sheet.lang": ("Sheet language", "题目语言"),
    "teaching.sheet.md": ("Sheet (Markdown)", "题目（Markdown）"),
    "teaching.sheet.pdf": ("Sheet (PDF)", "题目（PDF）"),
    "teaching.sheet.key_md": ("Answer key (Markdown)", "答案（Markdown）"),
    "teaching.sheet.key_pdf": ("Answer key (PDF)", "答案（PDF）"),
    "teaching.sheet.title": ("LM Lab — exercise sheet", "LM Lab — 练习题"),
    "teaching.sheet.key_title": ("LM Lab — answer key", "LM Lab — 参考答案"),
    "teaching.sheet.subtitle": ("Corpus: {corpus} · settings: {settings} · seed {seed}", "语料：{corpus} · 设置：{settings} · 种子 {seed}"),
    "teaching.sheet.instructions": ("Answer each question before looking anything up. Tables give every number you need.",
                                    "先独立作答，不要查资料。所需的数字都在表格中。"),
    "teaching.sheet.blank": ("Answer: ____________ ({tol})", "答案：____________（{tol}）"),
    "teaching.sheet.see": ("see {figure}", "参见{figure}"),
    "teaching.sheet.failed": ("The PDF could not be made here ({reason}); the Markdown sheet works everywhere.",
                              "此处无法生成 PDF（{reason}）；Markdown 版本始终可用。"),
    # --- exports and share
    "teaching.export.label": ("⬇ Export", "⬇ 导出"),
    "teaching.export.png": ("PNG {w}×{h}", "PNG {w}×{h}"),
    "teaching.export.svg": ("SVG {w}×{h}", "SVG {w}×{h}"),
    "teaching.export.csv": ("⬇ CSV", "⬇ CSV"),
    "teaching.export.failed": ("Export failed: {reason}", "导出失败：{reason}"),
    "teaching.share.header": ("Share this view", "分享此视图"),
    "teaching.share.caption": ("Scan to open this page, section and settings.", "扫码打开此页面、小节与设置。"),
}
