"""Run as a script: two threads parse Python while a third makes garbage whose finalisers run Python
(so the collector interleaves with a parse). Prints the SystemErrors seen; with ``--serialised``
first installs server.python_fixes.serialise_ast_parsing. Used by tests/test_python_fixes.py."""
import ast
import sys
import threading
import time

if "--serialised" in sys.argv:
    sys.path.insert(0, sys.argv[sys.argv.index("--serialised") + 1])
    from server.python_fixes import serialise_ast_parsing

    serialise_ast_parsing()

SECONDS = float(sys.argv[1])
SOURCE = open(ast.__file__.replace(".pyc", ".py"), encoding="utf-8").read()
errors: list[str] = []


class Garbage:
    def __del__(self):
        sum(range(50))


def make_cycles(stop: float) -> None:
    while time.monotonic() < stop:
        for _ in range(50):
            a, b = Garbage(), Garbage()
            a.other, b.other = b, a


def parse(stop: float) -> None:
    while time.monotonic() < stop and not errors:
        try:
            ast.parse(SOURCE)
        except SystemError as e:
            errors.append(str(e))


sys.setswitchinterval(1e-6)
stop = time.monotonic() + SECONDS
threads = [threading.Thread(target=parse, args=(stop,)) for _ in range(2)]
threads.append(threading.Thread(target=make_cycles, args=(stop,)))
for t in threads:
    t.start()
for t in threads:
    t.join()
print(f"system_errors: {len(errors)}", *errors[:1], sep="\n")
