"""The decoding figures draw what the search found."""
import math

import pytest

from lmcore.decoding import (RandomScorer, beam_search, beam_width_sweep, exhaustive_optimum,
                             greedy_decode, textbook_scorer)
from lmcore.decoding.textbook import BEST_PATH, GREEDY_PATH
from lmcore.figures.decoding import beam_sweep_figure, beam_tree_figure, path_nodes, tree_layout


def _trace(fig, role):
    return next(d for d in fig.data if d.meta and d.meta["role"] == role)


def test_tidy_layout_puts_parents_between_children_and_steps_on_x():
    tree = beam_search(RandomScorer(4, seed=2, end_id=0), 3, max_len=4, end_id=0)
    pos = tree_layout(tree)
    kids = tree.children()
    for i, (x, y) in enumerate(pos):
        assert x == tree.step[i]
        if kids[i]:
            assert min(pos[c][1] for c in kids[i]) <= y <= max(pos[c][1] for c in kids[i])
    leaves = sorted(pos[i][1] for i in range(len(tree)) if not kids[i])
    assert leaves == [float(-n) for n in range(len(leaves) - 1, -1, -1)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_tree_figure_edges_states_and_paths(lang):
    score = textbook_scorer()
    tree = beam_search(score, 2, 4, end_id=score.end_id)
    greedy = greedy_decode(score, 4, score.end_id)
    fig = beam_tree_figure(tree, score.vocab, greedy.tokens, lang=lang)
    n_pruned = sum(s == "pruned" for s in tree.state)
    n_kept = len(tree) - 1 - n_pruned
    assert len(_trace(fig, "pruned_edges").x) == 3 * n_pruned  # (parent, child, None) per edge
    assert len(_trace(fig, "kept_edges").x) == 3 * n_kept
    assert _trace(fig, "pruned_edges").line.dash == "dot"
    assert _trace(fig, "kept_edges").line.dash is None
    finished = _trace(fig, "finished_nodes")
    assert all(tree.state[i] == "finished" for i in finished.meta["nodes"])
    assert set(finished.text) == {"&lt;/s&gt;"}
    pos = tree_layout(tree)
    greedy_ids = path_nodes(tree, GREEDY_PATH)
    assert list(_trace(fig, "greedy_path").y) == [pos[i][1] for i in greedy_ids]
    assert len(greedy_ids) == len(GREEDY_PATH) + 1
    assert tree.tokens(path_nodes(tree, BEST_PATH)[-1]) == BEST_PATH
    kept = _trace(fig, "kept_nodes")
    i = kept.meta["nodes"][1]
    assert f"{tree.score[i]:.3f}" in kept.hovertext[1]


def test_sweep_figure_shows_search_error_closing():
    score = textbook_scorer()
    points = beam_width_sweep(score, [1, 2, 3], 4, end_id=score.end_id)
    optimum = exhaustive_optimum(score, 4, end_id=score.end_id)
    fig = beam_sweep_figure(points, optimum, score.vocab, lang="zh")
    found = _trace(fig, "found")
    assert math.exp(found.y[0]) == pytest.approx(0.048)
    assert math.exp(found.y[1]) == pytest.approx(0.054)
    assert list(_trace(fig, "optimum").y) == pytest.approx([optimum.logprob] * 2)
    assert found.hovertext[1] == "A C B &lt;/s&gt;"
    assert exhaustive_optimum(RandomScorer(50, seed=0), 6, max_prefixes=1000) is None
