"""The built-in corpora and their shipped recurrent LMs, loaded once per test process (read-only)."""
from __future__ import annotations

from functools import cache

import torch

from lmcore.corpus import Corpus
from lmcore.samples import default_settings, load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.persist import load_pretrained

CORPORA = ("english", "chinese")


@cache
def sample_corpus(name: str) -> Corpus:
    return load_sample(name, default_settings(name), 0)


@cache
def shipped_lm(name: str, cell: str) -> NeuralLM:
    """The shipped word-level model of the default configuration with ``cell``."""
    lm = load_pretrained(sample_corpus(name).key, TrainConfig(cell=cell))
    assert lm is not None, f"no shipped {cell} for {name}"
    return lm


def nn_weights(lm: NeuralLM) -> dict[str, torch.Tensor]:
    """The torch.nn module's parameters as float64 (embedding, recurrent layer, read-out)."""
    rnn = lm.model.rnn
    return {"E": lm.model.embed.weight.detach().double(), "W_ih": rnn.weight_ih_l0.detach().double(),
            "W_hh": rnn.weight_hh_l0.detach().double(), "b": (rnn.bias_ih_l0 + rnn.bias_hh_l0).detach().double(),
            "W_y": lm.model.output_weight().detach().double(), "b_y": lm.model.out_bias.detach().double()}
