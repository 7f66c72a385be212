"""Server work per control, timed in AppTest, for one code tree (run as a subprocess by page_latency.py).

``python bench/latency_apptest.py TREE CONTROLS_JSON`` runs TREE's app.py in AppTest and, for each
control, sets its values in turn and reruns what a browser would rerun: the innermost fragment that
holds the widget, else the whole script. Prints one JSON object: {page: {key: {"scope", "seconds"}}}.
The fragment helper is loaded from this checkout's tests/ by path, so TREE's own packages are the
ones imported.
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass in it looks its module up there
    spec.loader.exec_module(module)
    return module


def _widget(at, key: str):
    for kind in ("slider", "select_slider", "selectbox", "radio"):
        for widget in at.get(kind):
            if widget.key == key:
                return widget
    raise KeyError(key)


def measure(tree: Path, controls: dict[str, list], moves: int) -> dict:
    sys.path.insert(0, str(tree))
    from streamlit.runtime import pages_manager
    from streamlit.testing.v1 import AppTest

    original = pages_manager.PagesManager.__init__

    def init(self, *args, **kwargs):  # as tests/conftest.py: no legacy pages/ folder mode
        original(self, *args, **kwargs)
        pages_manager.PagesManager.uses_pages_directory = False

    pages_manager.PagesManager.__init__ = init
    fragments = _load("_lat_fragments", HERE / "tests" / "apptest_fragments.py")
    out: dict = {}
    for stem, specs in controls.items():
        for key, _, values, _, part in specs:
            at = AppTest.from_file(str(tree / "app.py"), default_timeout=600)
            at.session_state["lang"] = "en"
            if part:  # the page's part (tab) holding the control (older trees ignore it)
                at.query_params["part"] = part
            at.run()
            if stem != "home":
                at.switch_page(f"app_pages/{stem}.py")
            first = fragments.run_app(at, timeout=600)
            fragments.run_app(at, timeout=600)  # warm: the browser figures below are timed warm too
            try:
                fragment = fragments.widget_fragment(first, key)
            except KeyError:
                out.setdefault(stem, {})[key] = {"scope": "missing", "seconds": []}
                continue
            seconds = []
            for n in range(moves):
                _widget(at, key).set_value(values[n % len(values)])
                run = (fragments.run_fragment_ids(at, (fragment,), 600) if fragment
                       else fragments.run_app(at, 600))
                seconds.append(run.seconds)
                if fragment:
                    at.run()  # the whole page again, so the next control is found
            out.setdefault(stem, {})[key] = {"scope": "fragment" if fragment else "app", "seconds": seconds}
    return out


if __name__ == "__main__":
    tree, controls, moves = Path(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
    result = measure(tree, controls, moves)
    print("RESULT " + json.dumps(result))
