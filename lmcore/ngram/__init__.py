"""n-gram language models: vectorised counting, MLE / add-δ / Kneser-Ney smoothing, ARPA export.

>>> from lmcore.ngram import NgramModel
>>> lm = NgramModel.fit(train_sentences, order=5, method="modified-kn")
>>> lm.perplexity(test_sentences).ppl
"""
from lmcore.ngram.memory import MAX_ORDER, estimate_count_bytes, largest_order_within
from lmcore.ngram.methods import ARPA_METHODS, KN_METHODS, METHODS, NORMALISED
from lmcore.ngram.model import NgramCounts, NgramModel, count_ngrams, count_ngrams_file
from lmcore.ngram.vocab import BOS, EOS, UNK

__all__ = ["ARPA_METHODS", "BOS", "EOS", "KN_METHODS", "MAX_ORDER", "METHODS", "NORMALISED",
           "NgramCounts", "NgramModel", "UNK", "count_ngrams", "count_ngrams_file", "estimate_count_bytes",
           "largest_order_within"]
