"""server/python_fixes.py: ``ast.parse`` serialised on the CPython versions where concurrent parses race
(gh-106905): the race probe (tests/ast_race_probe.py) sees no SystemError with the fix, and the app
installs the fix once at start-up. (Without the fix, the probe printed one SystemError in each of five
1.5 s runs on this machine's 3.11.7.)"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.apptest_helpers import run_page
from server.python_fixes import has_ast_parse_race

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("version", "racy"),
    [((3, 10, 13), False), ((3, 11, 0), True), ((3, 11, 7), True), ((3, 11, 8), False),
     ((3, 12, 1), True), ((3, 12, 2), False), ((3, 13, 0), False)],
)
def test_the_affected_versions_are_3_11_before_8_and_3_12_before_2(version, racy):
    assert has_ast_parse_race(version) is racy


@pytest.mark.skipif(not has_ast_parse_race(), reason="this Python parses safely in threads")
def test_serialised_parsing_survives_the_race_probe():
    probe = ROOT / "tests" / "ast_race_probe.py"
    out = subprocess.run([sys.executable, str(probe), "2", "--serialised", str(ROOT)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.splitlines()[0] == "system_errors: 0", out


@pytest.mark.skipif(not has_ast_parse_race(), reason="this Python parses safely in threads")
def test_the_app_serialises_parsing_once_at_start_up():
    run_page("home")
    assert getattr(ast.parse, "_lmlab_serialised", False)
    wrapped = ast.parse
    from server.python_fixes import serialise_ast_parsing

    serialise_ast_parsing()
    assert ast.parse is wrapped  # idempotent: not wrapped twice
    assert ast.dump(ast.parse("x = 1")) == "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1))], type_ignores=[])"
