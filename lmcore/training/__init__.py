"""Neural language models trained on the user's text (RNN, LSTM, GRU with ``torch.nn`` modules).

embeddings → one recurrent layer → softmax, trained with truncated BPTT, Adam and gradient clipping
(the notes' RNN forward pass, BPTT and clipping). Sentences are ``<s> w1 … wn </s>``: ``</s>`` is
predicted, ``<s>`` never is, exactly as in the n-gram engine, so perplexities are comparable.

Modules: :mod:`config` (what to train), :mod:`tokens` (symbols and ids), :mod:`batches` (padded
sentence batches), :mod:`model` (the network), :mod:`evaluate` (perplexity), :mod:`loop` (training
with a progress callback), :mod:`neural_lm` (the trained model: distributions, sampling),
:mod:`persist` (save/load, pretrained files), :mod:`lstm_trace` and :mod:`gradient_path`
(inspection of the trained LSTM), :mod:`comparison` (one corpus feeds every model).
"""
