"""Navigation, shared sidebar, home page and the corpus pipeline's error messages."""

STRINGS = {
    "app.title": ("LM Lab", "LM Lab 语言模型实验室"),
    "app.tagline": ("See how classic language models work.", "亲眼看看经典语言模型如何工作。"),
    # navigation (page titles)
    "nav.home": ("Home", "首页"),
    "nav.corpus": ("Corpus", "语料"),
    "nav.chain_rule": ("Chain rule & perplexity", "链式法则与困惑度"),
    "nav.ngram": ("N-grams & smoothing", "N 元语法与平滑"),
    "nav.rnn_bptt": ("RNN forward pass & BPTT", "RNN 前向传播与 BPTT"),
    "nav.gradients": ("Vanishing & exploding gradients", "梯度消失与爆炸"),
    "nav.lstm": ("LSTM gates & memory", "LSTM 门控与记忆"),
    "nav.seq2seq": ("Conditional LMs & attention", "条件语言模型与注意力"),
    "nav.decoding": ("Greedy vs beam search", "贪心与束搜索"),
    "nav.section.basics": ("Start", "开始"),
    "nav.section.counts": ("Counting models", "计数模型"),
    "nav.section.neural": ("Recurrent networks", "循环神经网络"),
    "nav.section.generation": ("Conditioning & decoding", "条件生成与解码"),
    # sidebar
    "sidebar.language": ("Language", "语言"),
    "sidebar.corpus": ("Corpus", "语料"),
    "sidebar.sample.english": ("English sample", "英文样例"),
    "sidebar.sample.chinese": ("Chinese sample", "中文样例"),
    "sidebar.sample.synthetic": ("Synthetic (known entropy)", "合成语料（已知熵）"),
    "sidebar.sample.upload": ("My upload: {name}", "我的上传：{name}"),
    "sidebar.upload": ("Upload a text (.txt, .md)", "上传文本（.txt、.md）"),
    "sidebar.upload_button": ("Upload", "上传"),
    "sidebar.upload_limits": ("{limit} MB per file · TXT, MD", "每个文件最多 {limit} MB · TXT、MD"),
    "sidebar.upload_help": (
        "Plain text in any common encoding (UTF-8, UTF-16, GBK/GB18030, Big5, Latin-1), up to {limit} MB. "
        "Only you see your upload and the models you train on it. While it is in use the server keeps its "
        "statistics in memory; someone who uploads the very same file shares those. {limits}",
        "常见编码的纯文本（UTF-8、UTF-16、GBK/GB18030、Big5、Latin-1），最大 {limit} MB。"
        "你的上传和你在其上训练的模型只有你能看到。使用期间服务器会在内存中保留它的统计数据；"
        "上传完全相同文件的人会共用这些数据。{limits}",
    ),
    "sidebar.synthetic_size": ("Synthetic sentences", "合成句子数"),
    "sidebar.tokenizer": ("Tokenizer", "分词方式"),
    "sidebar.tokenizer.words": ("Words (regex)", "单词（正则）"),
    "sidebar.tokenizer.whitespace": ("Whitespace (pre-tokenised text)", "空格切分（已分词文本）"),
    "sidebar.tokenizer.chars": ("Characters", "字符"),
    "sidebar.tokenizer.jieba": ("Chinese words (jieba)", "中文词（jieba）"),
    "sidebar.lowercase": ("Lowercase", "转为小写"),
    "sidebar.sentence_mode": ("Sentences", "句子切分"),
    "sidebar.sentence_mode.auto": ("By punctuation", "按标点"),
    "sidebar.sentence_mode.lines": ("One per line", "每行一句"),
    "sidebar.min_count": ("Min count (rarer → <unk>)", "最小词频（更少 → <unk>）"),
    "sidebar.max_vocab": ("Vocabulary cap (0 = none)", "词表上限（0 = 不限）"),
    "sidebar.vocab_help": (
        "Training words below the min count, or beyond the cap, become <unk>.",
        "训练集中低于最小词频或超出上限的词记为 <unk>。",
    ),
    "sidebar.summary": ("{tokens:,} tokens · {types:,} types · {sentences:,} sentences", "{tokens:,} 个词元 · {types:,} 种 · {sentences:,} 句"),
    "sidebar.building": ("Reading the corpus…", "正在读取语料…"),
    "sidebar.stage.queued": ("In the queue: {ahead} text(s) ahead of yours", "排队中：前面还有 {ahead} 个文本"),
    "sidebar.stage.decode": ("Detecting the encoding", "检测编码"),
    "sidebar.stage.split": ("Splitting sentences", "切分句子"),
    "sidebar.stage.tokenize": ("Tokenising", "分词"),
    "sidebar.stage.done": ("Done", "完成"),
    "sidebar.upload_failed": ("Your upload could not be used: {reason} The English sample is shown instead.", "无法使用你上传的文件：{reason} 现在显示英文样例。"),
    # corpus pipeline errors (lmcore.corpus.CorpusError keys)
    "error.empty": ("The text is empty (or only whitespace).", "文本为空（或只有空白）。"),
    "error.worker_failed": (
        "The process reading the text stopped before it finished (the file may be too large for this server). "
        "Try a smaller file.",
        "读取文本的进程在完成前停止了（文件可能超出了本服务器的能力）。请换一个较小的文件。",
    ),
    "error.binary": (
        "This looks like a binary file (an image, a PDF, a program), not plain text.",
        "这看起来是二进制文件（图片、PDF 或程序），不是纯文本。",
    ),
    "error.too_big": ("The file has {size_mb} MB; the limit is {limit_mb} MB.", "文件大小为 {size_mb} MB，上限为 {limit_mb} MB。"),
    "error.too_few_sentences": (
        "The text has {n} sentence(s); a language model needs at least 2 (one to train on, one to test).",
        "文本只有 {n} 个句子；语言模型至少需要 2 句（一句训练，一句测试）。",
    ),
    # home page
    "home.intro": (
        "LM Lab lets you *see* how classic language models work: from counting n-grams to recurrent "
        "networks, attention and beam search. Every number is computed live on a corpus you choose.",
        "LM Lab 让你**看见**经典语言模型的工作方式：从 n 元语法计数到循环神经网络、注意力与束搜索。每个数字都在你选择的语料上实时计算。",
    ),
    "home.map": ("The pages", "页面导览"),
    "home.map.corpus": ("sizes, Zipf's and Heaps' laws, the vocabulary and `<unk>`.", "规模、齐普夫定律与赫普斯定律、词表与 `<unk>`。"),
    "home.map.chain_rule": ("P(x₁…x_T) = ∏ P(x_t | x_<t), surprisal, perplexity = exp(J).", "P(x₁…x_T) = ∏ P(x_t | x_<t)、惊奇度、困惑度 = exp(J)。"),
    "home.map.ngram": ("counts, MLE, add-δ, Kneser-Ney; sparsity and held-out perplexity.", "计数、最大似然、加 δ 平滑、Kneser-Ney；稀疏性与留出集困惑度。"),
    "home.map.rnn_bptt": ("h(t) = σ(W_h h(t−1) + W_x x(t) + b), softmax per step, the BPTT sum.", "h(t) = σ(W_h h(t−1) + W_x x(t) + b)、每步 softmax、BPTT 求和。"),
    "home.map.gradients": ("gradient norm vs distance, σ₁γ, RNN vs LSTM, gradient clipping.", "梯度范数随距离的变化、σ₁γ、RNN 与 LSTM 对比、梯度裁剪。"),
    "home.map.lstm": ("gates and cell state over real text; ∂c(t)/∂c(t−1) ≈ f(t).", "真实文本上的门与记忆单元；∂c(t)/∂c(t−1) ≈ f(t)。"),
    "home.map.seq2seq": ("encoder-decoder, the bottleneck, attention.", "编码器-解码器、瓶颈、注意力。"),
    "home.map.decoding": ("greedy vs beam search, drawn as a tree.", "贪心与束搜索，画成一棵树。"),
    "home.upload": ("Use your own text", "使用你自己的文本"),
    "home.upload.body": (
        "Open the sidebar, drop a `.txt` or `.md` file on **Upload a text**, and every page switches to it. "
        "English and Chinese work; the encoding is detected for you. Choose the tokenizer (words, characters, "
        "or jieba for Chinese words) and the vocabulary size there too.",
        "打开侧边栏，把 `.txt` 或 `.md` 文件拖到 **上传文本**，所有页面都会改用它。支持中英文，编码会自动识别。"
        "你也可以在那里选择分词方式（单词、字符或用于中文的 jieba）和词表大小。",
    ),
    "home.share": (
        "Teaching? Each page keeps its main settings in the address bar: copy the URL and your students open the same view.",
        "在上课？每个页面都把主要设置写在地址栏里：复制网址，学生打开的就是同一视图。",
    ),
    "home.current": ("Current corpus: **{name}** — {summary}", "当前语料：**{name}** —— {summary}"),
}
