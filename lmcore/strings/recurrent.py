"""Messages about the trained recurrent models and clipping runs the RNN and gradients pages need
(keys ``recurrent.*``, used by ``ui/recurrent_models.py``)."""

STRINGS = {
    "recurrent.too_small": ("The corpus is too small to train on (it needs at least 50 training tokens).",
                            "语料太小，无法训练（至少需要 50 个训练词元）。"),
    "recurrent.train_missing": ("This part needs the {cells} trained on your text.",
                                "这一部分需要在你的文本上训练的 {cells}。"),
    "recurrent.train_button": ("Train in the background", "在后台训练"),
    "recurrent.clip_waiting": ("The two clipping runs are computed in the background; they appear here when done.",
                               "两次裁剪实验正在后台计算，完成后会显示在这里。"),
    "recurrent.clip_missing": ("These clipping runs have not been computed for your text.",
                               "这组裁剪实验尚未在你的文本上计算。"),
    "recurrent.clip_button": ("Run them in the background", "在后台运行"),
}
