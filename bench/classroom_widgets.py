"""What a student does to a widget, in Streamlit's websocket protocol: read a widget's key from its
id, and pick a new value for it as the frontend would send it (used by classroom_ws.py)."""
from __future__ import annotations

import random

from streamlit.proto.WidgetStates_pb2 import WidgetState


def user_key(widget_id: str) -> str:
    """The ``key=`` a widget was given: its id is ``$$ID-<hash>-<key>`` (``None`` when unkeyed)."""
    return widget_id.split("-", 2)[-1]


def chosen(widget_id: str, label: str) -> WidgetState:
    """A segmented control's value once the option ``label`` is clicked: the frontend sends its label."""
    return WidgetState(id=widget_id, string_array_value={"data": [label]})


def random_value(kind: str, proto, rng: random.Random) -> WidgetState | None:
    """A new value for a widget, as the frontend would send it after a student moved it."""
    state = WidgetState(id=proto.id)
    if kind == "button_group":  # a segmented control (a page's bar of parts, ui/sections.py)
        if len(proto.options) < 2:
            return None
        return chosen(proto.id, rng.choice([option.content for option in proto.options]))
    if kind in ("selectbox", "radio"):
        if len(proto.options) < 2:
            return None
        state.string_value = rng.choice(list(proto.options))
    elif kind == "slider" and proto.options:  # select_slider: the formatted option
        state.string_array_value.data.append(rng.choice(list(proto.options)))
    elif kind == "slider":
        steps = int(round((proto.max - proto.min) / proto.step)) if proto.step else 0
        state.double_array_value.data.append(proto.min + rng.randint(0, max(steps, 0)) * proto.step)
    elif kind == "checkbox":
        state.bool_value = not proto.value if proto.set_value else rng.random() < 0.5
    elif kind == "number_input":
        value = proto.default + rng.randint(0, 3) * (proto.step or 1)
        state.double_value = min(value, proto.max) if proto.has_max else value
    else:
        return None
    return state
