"""Recurrent cells and their gradients, written out step by step in the course notes' notation.

- :mod:`.cells` — vanilla RNN, LSTM and GRU cells returning full traces (z(t), h(t), gates, c(t)).
- :mod:`.weights` — W_h with an exact largest singular value σ1 or a given spectral radius ρ.
- :mod:`.gradient_flow` — ‖∂J(T)/∂h(k)‖ for every k from one backward pass;
  :mod:`.vjp` writes that pass out as vector–Jacobian products (numpy).
- :mod:`.jacobian` — the notes' product ∏ W_hᵀ diag(σ'(z(j))) and the bound (σ1·γ)^(t−k).
- :mod:`.bptt` — contributions of each step k to ∂J(t)/∂W_h and truncated BPTT.
- :mod:`.clipping` — gradient norm clipping; :mod:`.cliff` — Pascanu et al.'s one-unit RNN wall.
- :mod:`.rnn_lm` — the white-box view: a trained LM of :mod:`lmcore.training` in these cells.
- :mod:`.clip_run` — the clipping lab's SGD run (same network as :mod:`lmcore.training`);
  :mod:`.clip_lab` its settings grid and shipped logs; :mod:`.diagnostics` gathers page panels.

Everything runs in float64: in float32 a vanishing gradient underflows to 0 within ~100 steps.
"""
