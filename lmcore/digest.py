"""A key of a model's content: the same settings and weights give the same key in any process, so a
value computed from a model can be cached under it and shared by every browser shown that model."""
from __future__ import annotations

import hashlib

from torch import nn

DIGEST_ATTRIBUTE = "_lmlab_digest"  # kept on the model object: a model shown is never trained further


def weights_digest(owner: object, module: nn.Module, header: str) -> str:
    """blake2b of ``header`` (the model's settings) and every tensor of ``module``'s state dict, hashed
    once per ``owner`` object and kept on it (the default LSTM's 385,000 weights: a few ms)."""
    found = getattr(owner, DIGEST_ATTRIBUTE, None)
    if found is None:
        digest = hashlib.blake2b(header.encode(), digest_size=16)
        for name, tensor in module.state_dict().items():
            digest.update(name.encode())
            digest.update(tensor.detach().contiguous().numpy().tobytes())
        found = digest.hexdigest()
        setattr(owner, DIGEST_ATTRIBUTE, found)
    return found
