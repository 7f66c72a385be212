"""The beam-search tree: every hypothesis the search looked at, and how it ended.

A node is a prefix :math:`y_{1..t}` of the output, reached from its parent :math:`y_{1..t-1}` by
the token :math:`y_t`. Its score is the cumulative log-probability

.. math:: s(y_{1..t}) = \\sum_{i=1}^{t} \\log P(y_i \\mid y_{<i}, x) = s(y_{1..t-1}) + \\log P(y_t \\mid y_{<t}, x).

States: ``"kept"`` (in the beam after its step), ``"pruned"`` (scored but dropped from the beam),
``"finished"`` (ended with the end token and kept; it leaves the beam as a complete hypothesis).
Node 0 is the root (the empty output, score 0, step 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field

KEPT, PRUNED, FINISHED = "kept", "pruned", "finished"
STATES: tuple[str, ...] = (KEPT, PRUNED, FINISHED)


@dataclass(frozen=True)
class Node:
    """One hypothesis: ``token`` appended to ``parent`` at ``step``; ``score`` = cumulative log-prob."""

    id: int
    parent: int | None
    token: int | None
    step: int
    score: float
    token_logprob: float
    state: str


@dataclass(frozen=True)
class Hypothesis:
    """A complete output: its tokens, raw log-prob and length-normalised score s / |y|^α."""

    tokens: tuple[int, ...]
    logprob: float
    normalised: float
    finished: bool
    node: int


@dataclass
class SearchTree:
    """All nodes of one search (parallel lists, index = node id) and the final n-best list."""

    parent: list[int | None] = field(default_factory=lambda: [None])
    token: list[int | None] = field(default_factory=lambda: [None])
    step: list[int] = field(default_factory=lambda: [0])
    score: list[float] = field(default_factory=lambda: [0.0])
    token_logprob: list[float] = field(default_factory=lambda: [0.0])
    state: list[str] = field(default_factory=lambda: [KEPT])
    nbest: list[Hypothesis] = field(default_factory=list)

    def add(self, parent: int, token: int, token_logprob: float, state: str) -> int:
        """Append the child ``parent + token``; its score is the parent's plus ``token_logprob``."""
        self.parent.append(parent)
        self.token.append(token)
        self.step.append(self.step[parent] + 1)
        self.score.append(self.score[parent] + token_logprob)
        self.token_logprob.append(token_logprob)
        self.state.append(state)
        return len(self.parent) - 1

    def add_many(self, parents: list[int], tokens: list[int], token_logprobs: list[float], state: str) -> None:
        """:meth:`add` for many children at once (``parents[i]`` + ``tokens[i]``), all in ``state``."""
        step, score = self.step, self.score
        self.step.extend([step[p] + 1 for p in parents])
        self.score.extend([score[p] + lp for p, lp in zip(parents, token_logprobs)])
        self.parent.extend(parents)
        self.token.extend(tokens)
        self.token_logprob.extend(token_logprobs)
        self.state.extend([state] * len(parents))

    def __len__(self) -> int:
        return len(self.parent)

    def node(self, i: int) -> Node:
        return Node(i, self.parent[i], self.token[i], self.step[i], self.score[i],
                    self.token_logprob[i], self.state[i])

    @property
    def nodes(self) -> list[Node]:
        return [self.node(i) for i in range(len(self))]

    def children(self) -> list[list[int]]:
        """``children()[i]`` = ids of the nodes whose parent is ``i``."""
        kids: list[list[int]] = [[] for _ in range(len(self))]
        for i, p in enumerate(self.parent):
            if p is not None:
                kids[p].append(i)
        return kids

    def tokens(self, i: int) -> tuple[int, ...]:
        """The output prefix y_{1..t} of node ``i`` (root excluded)."""
        out: list[int] = []
        while self.parent[i] is not None:
            out.append(self.token[i])  # type: ignore[arg-type]
            i = self.parent[i]  # type: ignore[assignment]
        return tuple(reversed(out))

    def path(self, i: int) -> list[int]:
        """Node ids from the root to ``i``."""
        ids = [i]
        while self.parent[ids[-1]] is not None:
            ids.append(self.parent[ids[-1]])  # type: ignore[arg-type]
        return ids[::-1]

    @property
    def best(self) -> Hypothesis:
        return self.nbest[0]


def normalised_score(logprob: float, length: int, alpha: float) -> float:
    """Length normalisation: s(y) / |y|^α (α = 0 gives the raw log-probability)."""
    return logprob / max(length, 1) ** alpha if alpha else logprob
