"""How a stored value becomes bytes and back: one codec per kind of value, chosen by the store key's
kind (``server.store.store_key``). The in-process store keeps live objects and never calls these; a
serialising back end (Redis, shared by replicas) encodes on ``put`` and decodes on ``get``.

- trained and untrained recurrent LMs (``lm``, ``untrained``): their state dict, settings and history
  (``lmcore.training.persist``), not a pickled module;
- encoder-decoders (``seq2seq``): the state dict and settings, the recipe and the bottleneck curve;
- everything else (corpora, n-gram counts and models, statistics, clipping logs, white-box copies,
  training inputs: plain data, NumPy arrays and tensors): pickled.
"""
from __future__ import annotations

import io
import pickle
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import torch

from lmcore.seq2seq.evaluation import LengthResult
from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.training.persist import from_bytes, to_bytes


def _pickle(value: Any) -> bytes:
    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _encode_seq2seq(value: tuple) -> bytes:
    model, recipe, curve = value
    buffer = io.BytesIO()
    torch.save({"config": model.config.to_dict(), "weights": model.state_dict(), "recipe": asdict(recipe),
                "curve": [asdict(point) for point in curve]}, buffer)
    return buffer.getvalue()


def _decode_seq2seq(data: bytes) -> tuple:
    payload = torch.load(io.BytesIO(data), weights_only=True)
    model = Seq2Seq(Seq2SeqConfig(**payload["config"]))
    model.load_state_dict(payload["weights"])
    model.eval()
    return model, Seq2SeqRecipe(**payload["recipe"]), [LengthResult(**point) for point in payload["curve"]]


Codec = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]
PICKLE: Codec = (_pickle, pickle.loads)
NEURAL_LM: Codec = (to_bytes, from_bytes)
SEQ2SEQ: Codec = (_encode_seq2seq, _decode_seq2seq)
CODECS: dict[str, Codec] = {"lm": NEURAL_LM, "untrained": NEURAL_LM, "seq2seq": SEQ2SEQ}


def codec_for(key: str) -> Codec:
    """The (encode, decode) pair for the value stored under ``key``."""
    return CODECS.get(key.split(":", 1)[0], PICKLE)


def encode(key: str, value: Any) -> bytes:
    """``value`` (stored under ``key``) as bytes."""
    return codec_for(key)[0](value)


def decode(key: str, data: bytes) -> Any:
    """The value :func:`encode` made ``data`` from."""
    return codec_for(key)[1](data)
