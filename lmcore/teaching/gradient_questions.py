"""Questions on vanishing / exploding gradients and clipping (random cells, seeded).

- ``gradients.threshold``: after d steps back in time, is ‖∂J(T)/∂h(T−d)‖ above or below 10^e?
  (RNN, W_h = σ1·Q, one backward pass of :func:`lmcore.recurrent.gradient_flow.curve_for`);
- ``gradients.regime``: does the notes' bound (σ1·γ)^(t−k) vanish or explode? (γ = max σ');
- ``gradients.clip``: the first component of ĝ after clipping g at a threshold (the notes' rule);
- ``gradients.lstm``: at distance d, is the RNN's or the LSTM's gradient larger (forget bias b_f)?
"""
from __future__ import annotations

import math

import numpy as np

from lmcore.recurrent.clipping import clip_vector
from lmcore.recurrent.gradient_flow import activation_gamma, curve_for, regime
from lmcore.recurrent.weights import CellSpec
from lmcore.teaching.question import CHOICE, NUMERIC, Question, Tolerance, fmt, text

INPUT_DIM = 8
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(exponent: int) -> str:
    """10^e written with superscripts: power_of_ten(-3) == "10⁻³"."""
    return "10" + str(exponent).translate(SUPERSCRIPT)


def gradient_norm(cell: str, sigma1: float, activation: str, distance: int, hidden: int = 32,
                  input_scale: float = 1.0, forget_bias: float = 1.0, seed: int = 0) -> float:
    """‖∂J(T)/∂h(T − distance)‖ with ‖∂J(T)/∂h(T)‖ = 1, for a random cell with W_h = σ1·Q."""
    spec = CellSpec(cell, hidden, INPUT_DIM, "orthogonal", sigma1, activation, forget_bias)
    return float(curve_for(spec, distance + 1, input_scale, seed).norm_h[distance])


def _curve_data(cells: list[str], sigma1: float, activation: str, distance: int, hidden: int, input_scale: float,
                forget_bias: float, seed: int, threshold: float | None = None) -> dict:
    return {"cells": cells, "sigma1": sigma1, "activation": activation, "T": distance + 1, "hidden": hidden,
            "input_scale": input_scale, "forget_bias": forget_bias, "seed": seed, "threshold": threshold,
            "distance": distance}


def threshold_question(rng: np.random.Generator, hidden: int, input_scale: float) -> Question | None:
    """Above or below 10^e after d steps? e is drawn so that both answers are equally likely."""
    for _ in range(8):
        sigma1 = float(rng.choice([0.8, 0.9, 1.0, 1.1, 1.2]))
        activation = str(rng.choice(["tanh", "tanh", "sigmoid", "relu"]))
        distance = int(rng.choice([20, 30, 50]))
        seed = int(rng.integers(1000))
        norm = gradient_norm("rnn", sigma1, activation, distance, hidden, input_scale, seed=seed)
        if math.isfinite(norm) and norm > 0:
            break
    else:
        return None
    exponent = math.floor(math.log10(norm)) + int(rng.integers(2))
    threshold = 10.0 ** exponent
    answer = 0 if norm > threshold else 1
    bound = (sigma1 * activation_gamma(activation)) ** distance
    return Question(
        qid="gradients.threshold", topic="gradients", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.threshold", sigma1=fmt(sigma1), act=activation, d=distance, hidden=hidden,
                    x=fmt(input_scale), p10=power_of_ten(exponent)),
        choices=(text("teaching.choice.above", p10=power_of_ten(exponent)),
                 text("teaching.choice.below", p10=power_of_ten(exponent))),
        reveal=text("teaching.r.threshold", d=distance, norm=fmt(norm), bound=fmt(bound), p10=power_of_ten(exponent)),
        explain="gradient_curve",
        explain_data=_curve_data(["rnn"], sigma1, activation, distance, hidden, input_scale, 1.0, seed, threshold),
    )


def regime_question(rng: np.random.Generator) -> Question:
    """Vanishing or exploding bound for σ1 and an activation (σ1 > 1 can still vanish with sigmoid)."""
    activation, sigma1 = [("sigmoid", 2.0), ("sigmoid", 3.0), ("sigmoid", 4.5), ("sigmoid", 5.0), ("sigmoid", 6.0),
                          ("tanh", 0.8), ("tanh", 1.2), ("relu", 1.1)][int(rng.integers(8))]
    gamma = activation_gamma(activation)
    options = ["vanishing", "exploding"]
    answer = options.index(regime(sigma1 * gamma))
    return Question(
        qid="gradients.regime", topic="gradients", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.regime", sigma1=fmt(sigma1), act=activation),
        choices=tuple(text(f"gradients.regime.{o}") for o in options),
        reveal=text("teaching.r.regime", sigma1=fmt(sigma1), gamma=fmt(gamma), sg=fmt(sigma1 * gamma),
                    regime=text(f"gradients.regime.{options[answer]}")),
        explain="bound", explain_data={"sigma1": sigma1, "gamma": gamma, "T": 50},
    )


def clip_question(rng: np.random.Generator) -> Question:
    """ĝ₁ after clipping g = (a, b) at a threshold (clipped or not, with equal chance)."""
    a, b = [(3, 4), (6, 8), (5, 12), (8, 6), (-3, 4), (12, -5), (9, 12)][int(rng.integers(7))]
    norm = math.hypot(a, b)
    threshold = float(rng.choice([1.0, 2.0, 5.0])) if rng.random() < 0.7 else float(math.ceil(norm + 1))
    clipped = clip_vector(np.array([a, b], dtype=float), threshold)
    return Question(
        qid="gradients.clip", topic="gradients", kind=NUMERIC, answer=float(clipped[0]),
        prompt=text("teaching.q.clip", a=a, b=b, tau=fmt(threshold)),
        tolerance=Tolerance("abs", 0.01),
        reveal=text("teaching.r.clip_yes" if norm > threshold else "teaching.r.clip_no", norm=fmt(norm),
                    tau=fmt(threshold), g1=fmt(float(clipped[0])), g2=fmt(float(clipped[1]))),
        explain="clip", explain_data={"g": [a, b], "clipped": [float(c) for c in clipped], "threshold": threshold},
    )


def lstm_question(rng: np.random.Generator, hidden: int, input_scale: float) -> Question | None:
    """At distance d, whose gradient is larger: an RNN (σ1 = 1, tanh) or an LSTM with forget bias b_f?"""
    forget_bias = float(rng.choice([-2.0, 0.0, 1.0, 3.0]))
    distance = int(rng.choice([30, 50]))
    seed = int(rng.integers(1000))
    norms = [gradient_norm(c, 1.0, "tanh", distance, hidden, input_scale, forget_bias, seed) for c in ("rnn", "lstm")]
    if not all(math.isfinite(n) for n in norms) or norms[0] == norms[1]:
        return None
    answer = int(np.argmax(norms))
    return Question(
        qid="gradients.lstm", topic="gradients", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.lstm", bf=fmt(forget_bias), d=distance, hidden=hidden),
        choices=(text("teaching.choice.rnn"), text("teaching.choice.lstm")),
        reveal=text("teaching.r.lstm", d=distance, rnn=fmt(norms[0]), lstm=fmt(norms[1]),
                    f=fmt(1 / (1 + math.exp(-forget_bias)))),
        explain="gradient_curve",
        explain_data=_curve_data(["rnn", "lstm"], 1.0, "tanh", distance, hidden, input_scale, forget_bias, seed),
    )


def gradient_questions(seed: int = 0, hidden: int = 32, input_scale: float = 1.0) -> list[Question]:
    """The gradient questions for this seed (and the page's hidden size and input scale)."""
    rng = np.random.default_rng([seed, 17])
    made = [threshold_question(rng, hidden, input_scale), regime_question(rng), lstm_question(rng, hidden, input_scale),
            clip_question(rng)]
    return [q for q in made if q is not None]
