"""The Corpus page."""

STRINGS = {
    "parts.corpus.laws": ("Zipf & Heaps", "齐普夫与希普斯定律"),
    "parts.corpus.tokens": ("Lengths & top tokens", "句长与高频词"),
    "parts.corpus.preview": ("The text", "文本预览"),
    "corpus.caption": (
        "What the models will learn from: sizes, the vocabulary, and the two laws of word frequencies.",
        "模型要学习的材料：规模、词表，以及词频的两条定律。",
    ),
    "corpus.metric.characters": ("Characters", "字符数"),
    "corpus.metric.sentences": ("Sentences", "句子数"),
    "corpus.metric.tokens": ("Tokens", "词元数"),
    "corpus.metric.types": ("Types", "词型数"),
    "corpus.metric.vocab": ("Vocabulary", "词表大小"),
    "corpus.metric.oov_valid": ("OOV rate, valid", "验证集 OOV 率"),
    "corpus.metric.oov_test": ("OOV rate, test", "测试集 OOV 率"),
    "corpus.split_note": (
        "Sentences are split 80/10/10 into train/valid/test with a fixed seed; every page uses this split "
        "({train:,} training sentences). Encoding: {encoding}.",
        "句子以固定随机种子按 80/10/10 划分为训练/验证/测试集，所有页面都用这一划分（训练句 {train:,} 个）。编码：{encoding}。",
    ),
    "corpus.floor": (
        "This corpus was sampled from a known Markov chain: its entropy rate is H = {h:.4f} nats per token, so no model "
        "can reach a perplexity below PPL* = e^H = {ppl:.3f}.",
        "该语料采样自已知的马尔可夫链：熵率 H = {h:.4f} 奈特/词元，因此任何模型的困惑度都不可能低于 PPL* = e^H = {ppl:.3f}。",
    ),
    "corpus.markers.unk": (
        "This text already marks unknown words: its {n:,} literal `<unk>` are read as the models' own `<unk>` "
        "symbol (one token each, not `<`, `unk`, `>`).",
        "该文本已标出未知词：其中 {n:,} 个字面 `<unk>` 被读作模型自己的 `<unk>` 符号（各算一个词元，而不是 `<`、`unk`、`>`）。",
    ),
    "corpus.markers.bounds": (
        "Its {n:,} literal `<s>` / `</s>` are read as sentence boundaries (a `</s>` ends a sentence) and left out of "
        "the tokens: every model adds its own.",
        "其中 {n:,} 个字面 `<s>` / `</s>` 被读作句子边界（`</s>` 结束一个句子），不计入词元：每个模型都会自己加上。",
    ),
    "corpus.zipf.title": ("Zipf's law: frequency vs rank (slope {slope:.2f})", "齐普夫定律：频率与排名（斜率 {slope:.2f}）"),
    "corpus.zipf.rank": ("rank r (log scale)", "排名 r（对数刻度）"),
    "corpus.zipf.freq": ("frequency f (log scale)", "频率 f（对数刻度）"),
    "corpus.zipf.data": ("tokens", "词元"),
    "corpus.zipf.fit": ("fit f ∝ r^{slope:.2f}", "拟合 f ∝ r^{slope:.2f}"),
    "corpus.heaps.title": ("Heaps' law: vocabulary growth (V = {k:.1f}·N^{beta:.2f})", "赫普斯定律：词表增长（V = {k:.1f}·N^{beta:.2f}）"),
    "corpus.heaps.tokens": ("tokens read N", "已读词元数 N"),
    "corpus.heaps.types": ("distinct types V", "不同词型数 V"),
    "corpus.heaps.fit": ("fit V = K·N^β", "拟合 V = K·N^β"),
    "corpus.lengths.title": ("Sentence lengths", "句子长度分布"),
    "corpus.lengths.x": ("tokens per sentence", "每句词元数"),
    "corpus.lengths.y": ("sentences", "句子数"),
    "corpus.top.header": ("Most frequent tokens", "最高频词元"),
    "corpus.top.n": ("How many", "显示数量"),
    "corpus.top.token": ("token", "词元"),
    "corpus.top.count": ("count", "次数"),
    "corpus.top.share": ("share", "占比"),
    "corpus.top.in_vocab": ("in vocabulary", "在词表中"),
    "corpus.preview.header": ("Preview", "预览"),
    "corpus.preview.text": ("Text (first {n:,} characters)", "原文（前 {n:,} 个字符）"),
    "corpus.preview.tokens": ("Tokenised training sentences (<unk> shown for words outside the vocabulary)", "分词后的训练句（词表外的词显示为 <unk>）"),
    "corpus.preview.sentence": ("sentence", "句子"),
    "corpus.preview.length": ("tokens", "词元数"),
}
