"""Shared-server messages: the training queue, memory limits, upload bounds, link parameters."""

STRINGS = {
    # the job scheduler
    "jobs.queued": ("Waiting for a free training slot: {ahead} run(s) ahead of you, about {eta} s.",
                    "正在等待空闲的训练名额：前面还有 {ahead} 个任务，约 {eta} 秒。"),
    "jobs.running": ("Training…", "训练中……"),
    "jobs.stop": ("Stop", "停止"),
    "jobs.failed": ("The run failed: {error}", "训练失败：{error}"),
    "jobs.busy": ("The server's training queue is full. Please try again in a minute.",
                  "服务器的训练队列已满，请稍后再试。"),
    "jobs.time_cap": ("The run reached the server's time limit ({seconds} s) and kept the model trained so far.",
                      "训练达到服务器的时间上限（{seconds} 秒），保留了到此为止训练出的模型。"),
    "jobs.other_running": ("You already have a run in progress ({kind}). Stop it or wait for it to finish.",
                           "你已有一个正在进行的训练（{kind}）。请先停止它或等待它结束。"),
    "jobs.kind.lstm": ("recurrent LM", "循环语言模型"),
    "jobs.kind.seq2seq": ("encoder-decoder", "编码器-解码器"),
    "jobs.kind.rnn": ("RNN for this page", "本页的 RNN"),
    "jobs.kind.clip": ("clipping experiment", "裁剪实验"),
    "jobs.waiting_model": ("This part needs a model trained on your text; it appears here when the run finishes.",
                           "这一部分需要在你的文本上训练的模型；训练结束后会显示在这里。"),
    # memory budget
    "memory.too_large": ("This text is too large for the server's memory budget ({needed} MB needed, {allowed} MB "
                         "allowed per text). Upload a shorter text.",
                         "这段文本超出了服务器的内存预算（需要 {needed} MB，每个文本最多 {allowed} MB）。请上传更短的文本。"),
    "memory.lower_order": ("To fit the server's memory budget, n-grams of this text are counted up to order {order} "
                           "(instead of {wanted}).",
                           "为了不超出服务器的内存预算，本文本的 n 元语法只统计到 {order} 阶（而不是 {wanted} 阶）。"),
    # link parameters
    "params.bad": ("The link's value {name}={value} is not valid here; using {default} instead.",
                   "链接中的参数 {name}={value} 在这里无效；改用 {default}。"),
    # upload limits
    "limits.help": ("Limits per upload: tokens are cut at {chars} characters, sentences split at {sentence} tokens, "
                    "the first {tokens:,} tokens are used, and at most {types:,} distinct tokens are accepted.",
                    "每次上传的限制：词元超过 {chars} 个字符会被截断，句子超过 {sentence} 个词元会被切分，"
                    "只使用前 {tokens:,} 个词元，最多接受 {types:,} 个不同的词元。"),
    "limits.applied": ("To keep the shared server responsive, this upload was bounded: {what}.",
                       "为了保证共享服务器的响应速度，本次上传做了限制：{what}。"),
    "limits.long_tokens": ("{n:,} tokens cut to {chars} characters", "{n:,} 个词元被截断为 {chars} 个字符"),
    "limits.long_sentences": ("{n:,} long sentences split into pieces of {sentence} tokens",
                              "{n:,} 个长句被切分成每段 {sentence} 个词元"),
    "limits.dropped_sentences": ("only the first {tokens:,} tokens were used ({n:,} later sentences left out)",
                                 "只使用了前 {tokens:,} 个词元（其后 {n:,} 个句子未使用）"),
    "error.too_many_types": ("The text has more than {limit:,} distinct tokens, more than one server can hold for a "
                             "class. Try the character tokenizer or a shorter text.",
                             "文本中不同词元超过 {limit:,} 个，超出了共享服务器能为全班保留的范围。请改用字符分词或更短的文本。"),
}
