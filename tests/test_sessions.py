"""server/sessions.py's closer: which disconnected sessions are due (the rest is checked against a real
server in tests/test_classroom_load.py: no uploaded file is left after the class)."""
from server.sessions import DisconnectedSince


def test_a_session_is_due_once_it_has_been_disconnected_for_the_grace_time():
    waiting = DisconnectedSince(grace=5.0)
    assert waiting.due(["a"], now=100.0) == []
    assert waiting.due(["a", "b"], now=104.9) == []
    assert waiting.due(["a", "b"], now=105.0) == ["a"]
    assert waiting.due(["b"], now=109.0) == []
    assert waiting.due(["b"], now=109.9) == ["b"]


def test_a_session_that_reconnected_starts_over_when_it_leaves_again():
    waiting = DisconnectedSince(grace=5.0)
    waiting.due(["a"], now=0.0)
    assert waiting.due([], now=3.0) == []  # reconnected (no longer in the store)
    assert waiting.due(["a"], now=6.0) == []  # disconnected again at 6 s: its wait starts over
    assert waiting.due(["a"], now=11.0) == ["a"]
