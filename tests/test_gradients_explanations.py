"""The gradients page's explanations hold for what is on screen: the regime note is true for each
activation the page offers (ReLU is not described as tanh) and the chart title names σ1γ once."""
import pytest

from lmcore.figures.gradients import gradient_curves_figure
from lmcore.i18n import t
from lmcore.recurrent.gradient_flow import activation_gamma, curves_over_seeds, regime
from lmcore.recurrent.weights import CellSpec

ACTIVATIONS = ["tanh", "sigmoid", "relu"]  # the page's choices


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_regime_note_holds_for_the_chosen_activation(lang, activation):
    sg = 1.0 * activation_gamma(activation)
    note = t("gradients.regime_note", lang, sg=sg, regime=t(f"gradients.regime.{regime(sg)}", lang))
    others = [a for a in ACTIVATIONS if a != activation]
    # the note once read "with tanh, σ'(z) < 1 almost everywhere" whatever σ was chosen: it must
    # either speak of every offered activation or only of the chosen one
    named = [a for a in ACTIVATIONS if a.lower() in note.lower()]
    assert named == ACTIVATIONS or named == [activation], (activation, note)
    assert not any(f"with {a}" in note for a in others) and "tanh 的导数几乎处处" not in note


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0])
def test_curves_title_names_sigma_gamma_once(lang, scale):
    bands = {"rnn": curves_over_seeds(CellSpec("rnn", 8, 4, "orthogonal", scale, "relu"), 20, 1.0, [0])}
    title = gradient_curves_figure(bands, scale, 1.0, lang).layout.title.text
    assert title.count("σ1γ") == 1, title
    assert t(f"gradients.regime.{regime(scale)}", lang) in title
