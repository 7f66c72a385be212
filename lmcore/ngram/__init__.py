"""n-gram language models: vectorised counting, MLE / add-δ / Kneser-Ney smoothing, ARPA export.

>>> from lmcore.ngram import NgramModel
>>> lm = NgramModel.fit(train_sentences, order=5, method="modified-kn")
>>> lm.perplexity(test_sentences).ppl
"""
from lmcore.ngram.counts import BOS, EOS, UNK
from lmcore.ngram.methods import ARPA_METHODS, KN_METHODS, METHODS, NORMALISED
from lmcore.ngram.model import MAX_ORDER, NgramCounts, NgramModel, count_ngrams

__all__ = ["ARPA_METHODS", "BOS", "EOS", "KN_METHODS", "MAX_ORDER", "METHODS", "NORMALISED",
           "NgramCounts", "NgramModel", "UNK", "count_ngrams"]
