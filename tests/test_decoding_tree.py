"""Invariants of the recorded beam-search tree."""
import pytest

from lmcore.decoding import FINISHED, KEPT, PRUNED, RandomScorer, beam_search, textbook_scorer
from lmcore.decoding.scorers import as_logprob_tensor

CASES = [(RandomScorer(5, seed=s, temperature=0.6, end_id=0), k) for s in range(4) for k in (1, 2, 4)]
CASES.append((textbook_scorer(), 2))


@pytest.mark.parametrize("score,width", CASES)
def test_node_score_is_parent_plus_token_logprob(score, width):
    tree = beam_search(score, width, max_len=6, end_id=score.end_id)
    assert tree.score[0] == 0.0 and tree.parent[0] is None
    for i in range(1, len(tree)):
        p = tree.parent[i]
        direct = float(as_logprob_tensor(score([tree.tokens(p)]))[0, tree.token[i]])
        assert tree.score[i] == pytest.approx(tree.score[p] + direct)
        assert tree.step[i] == tree.step[p] + 1


@pytest.mark.parametrize("score,width", CASES)
def test_pruned_and_finished_nodes_have_no_children(score, width):
    tree = beam_search(score, width, max_len=6, end_id=score.end_id)
    kids = tree.children()
    for i in range(len(tree)):
        if tree.state[i] in (PRUNED, FINISHED):
            assert kids[i] == []
        if tree.state[i] == FINISHED:
            assert tree.tokens(i)[-1] == score.end_id
        if kids[i]:
            assert tree.state[i] == KEPT


@pytest.mark.parametrize("score,width", CASES)
def test_beam_never_exceeds_its_width(score, width):
    tree = beam_search(score, width, max_len=6, end_id=score.end_id)
    for step in range(1, max(tree.step) + 1):
        in_beam = [i for i in range(len(tree)) if tree.step[i] == step and tree.state[i] != PRUNED]
        finished_before = sum(1 for i in range(len(tree))
                              if tree.step[i] < step and tree.state[i] == FINISHED)
        assert len(in_beam) + finished_before <= width
    finished = [h for h in tree.nbest if h.finished]
    assert all(h.tokens[-1] == score.end_id for h in finished)
    assert [h.normalised for h in tree.nbest] == sorted((h.normalised for h in tree.nbest),
                                                       reverse=True)


def test_every_candidate_is_recorded_for_small_vocabularies():
    score = RandomScorer(4, seed=1, end_id=0)
    tree = beam_search(score, 2, max_len=3, end_id=0)
    kids = tree.children()
    for i in range(len(tree)):
        if kids[i]:
            assert sorted(tree.token[c] for c in kids[i]) == [0, 1, 2, 3]


@pytest.mark.parametrize("per_parent", [0, 1, 3])
def test_recorded_pruned_children_are_each_parents_best_rejected_tokens(per_parent):
    score = RandomScorer(40, seed=5, temperature=0.5, end_id=0)
    tree = beam_search(score, 4, max_len=6, end_id=0, pruned_per_parent=per_parent)
    kids = tree.children()
    expanded = [i for i in range(len(tree)) if kids[i]]
    assert len(expanded) > 4
    for i in expanded:
        row = as_logprob_tensor(score([tree.tokens(i)]))[0].tolist()
        kept = {tree.token[c] for c in kids[i] if tree.state[c] != PRUNED}
        pruned = [tree.token[c] for c in kids[i] if tree.state[c] == PRUNED]
        rejected = sorted((t for t in range(len(row)) if t not in kept), key=lambda t: -row[t])
        assert pruned == rejected[:per_parent]
        for c in kids[i]:
            assert tree.token_logprob[c] == row[tree.token[c]]
