"""The chain-rule page scores a sentence with the neural LM too (any LanguageModel)."""
import math

import pytest

from lmcore.training.config import TrainConfig
from lmcore.training.persist import load_pretrained
from tests.apptest_helpers import errors, run_page


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_neural_lm_is_a_choice_and_its_perplexity_is_the_chain_rule_one(lang):
    at = run_page("chain_rule", lang, query={"part": "perplexity"})
    corpus = at.session_state["corpus"]
    lm = load_pretrained(corpus.key, TrainConfig())  # the shipped file itself, not the app's store
    assert lm is not None, "the English sample ships a pretrained LSTM"
    at.selectbox(key="chain_method").set_value("neural-0").run()
    assert errors(at) == []
    sentence = at.selectbox(key="chain_pick").value
    logp = lm.sentence_logprobs(sentence).logprobs
    expected = math.exp(-sum(logp) / len(logp))
    assert float(at.metric[0].value) == pytest.approx(expected, rel=1e-3)
    assert at.slider(key="chain_order").disabled
