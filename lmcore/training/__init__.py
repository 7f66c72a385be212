"""Neural language models trained on the user's text (RNN, LSTM, GRU with ``torch.nn`` modules).

embeddings → one recurrent layer → softmax, trained with truncated BPTT, Adam and gradient clipping
(the notes' RNN forward pass, BPTT and clipping). Sentences are ``<s> w1 … wn </s>``: ``</s>`` is
predicted, ``<s>`` never is, exactly as in the n-gram engine, so perplexities are comparable.

This is the one recurrent model family of lmcore: the RNN & BPTT page reads these weights through
the white-box cells of :mod:`lmcore.recurrent.rnn_lm`, and the clipping lab trains the same network
with plain SGD (:mod:`lmcore.recurrent.clip_run`).

Modules: :mod:`config` (what to train), :mod:`tokens` (symbols and ids), :mod:`batches` (padded
sentence batches), :mod:`model` (the network), :mod:`evaluate` (perplexity), :mod:`loop` (training
with a progress callback), :mod:`steps` (a process-wide count of optimizer steps), :mod:`neural_lm`
(the trained model, a ``lmcore.lm_protocol.LanguageModel``), :mod:`persist` (save/load, pretrained
files), :mod:`lstm_trace` and :mod:`gradient_path` (inspection of the trained LSTM),
:mod:`comparison` (one corpus feeds every model).
"""
