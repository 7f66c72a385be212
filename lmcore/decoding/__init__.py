"""Decoding: greedy, beam search (with its whole search tree) and exhaustive search over any
next-token scorer ``score(prefixes) -> (n × |V|) log-probs``; adapters for n-gram and neural LMs."""
from lmcore.decoding.adapters import DistributionScorer, RecurrentScorer
from lmcore.decoding.beam import beam_search
from lmcore.decoding.exhaustive import exhaustive_search
from lmcore.decoding.greedy import greedy_decode
from lmcore.decoding.scorers import RandomScorer, Scorer, TableScorer, sequence_logprob
from lmcore.decoding.sweep import beam_width_sweep, exhaustive_optimum
from lmcore.decoding.textbook import textbook_scorer
from lmcore.decoding.tree import FINISHED, KEPT, PRUNED, Hypothesis, Node, SearchTree

__all__ = [
    "DistributionScorer", "FINISHED", "KEPT", "PRUNED", "Hypothesis", "Node", "RandomScorer",
    "RecurrentScorer", "Scorer", "SearchTree", "TableScorer", "beam_search",
    "beam_width_sweep", "exhaustive_optimum", "exhaustive_search", "greedy_decode",
    "sequence_logprob", "textbook_scorer",
]
