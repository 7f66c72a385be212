"""The special symbols of every model in lmcore (n-gram, recurrent, seq2seq), defined once.

A sentence is read as ``<s> x1 … xT </s>``: ``<s>`` is only ever a context (never predicted),
``</s>`` is predicted and counts as a token, and a word outside the vocabulary is read as ``<unk>``.
``<pad>`` fills batches of the seq2seq toy tasks; ``SPACE`` separates words for character models.
"""

BOS = "<s>"
EOS = "</s>"
UNK = "<unk>"
PAD = "<pad>"
SPACE = " "
