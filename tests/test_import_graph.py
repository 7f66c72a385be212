"""The first-party import graph (lmcore, ui, server, app_pages, app.py) has no cycles, and lmcore
imports neither streamlit nor the app's ui/server packages.

The graph is read from the source with :mod:`ast`, not by importing it: every ``import`` and
``from … import`` is an edge, at module level or inside a function or class (a lazy import is
still an edge, it only hides the cycle until the call), except under ``if TYPE_CHECKING:``
(annotations only, never run). ``from a.b import c`` is an edge to the module ``a.b.c`` when
that is a module, else to ``a.b``. A cycle is a strongly connected component of two or more
modules (Tarjan), or a module importing itself."""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("lmcore", "ui", "server", "app_pages")
SCRIPTS = ("app.py",)
APP_ONLY = ("streamlit", "ui", "server", "app_pages", "app")  # lmcore must import none of these


def module_name(path: Path, root: Path) -> str:
    """``lmcore/ngram/model.py`` -> ``lmcore.ngram.model``; a package's ``__init__.py`` -> the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def first_party_files(root: Path) -> dict[str, Path]:
    """Module name -> source file of every first-party module under ``root``."""
    files = [root / s for s in SCRIPTS if (root / s).exists()]
    for package in PACKAGES:
        files += sorted((root / package).rglob("*.py"))
    return {module_name(f, root): f for f in files}


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    """Every import statement of one module as (line, base, names), ``if TYPE_CHECKING:`` bodies
    left out: ``import a.b`` is (line, "a.b", []); ``from a import b, c`` is (line, "a", ["b", "c"]),
    relative bases made absolute."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.statements: list[tuple[int, str, list[str]]] = []

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.statements += [(node.lineno, alias.name, []) for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            anchor = self.package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        self.statements.append((node.lineno, base, [alias.name for alias in node.names]))


def import_statements(path: Path, module: str) -> list[tuple[int, str, list[str]]]:
    """The import statements of ``path`` (see :class:`_Imports`)."""
    visitor = _Imports(module, path.name == "__init__.py")
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return visitor.statements


def imported_modules(statement: tuple[int, str, list[str]], modules: set[str]) -> list[str]:
    """The modules one statement imports: ``from a import b`` is a.b when that is a module, else a."""
    _, base, names = statement
    if not names:
        return [base]
    return [f"{base}.{n}" if f"{base}.{n}" in modules else base for n in names]


def import_graph(files: dict[str, Path]) -> dict[str, dict[str, int]]:
    """module -> {first-party module it imports: line of the first such import}."""
    modules = set(files)
    graph: dict[str, dict[str, int]] = {}
    for module, path in files.items():
        edges: dict[str, int] = {}
        for statement in import_statements(path, module):
            for target in imported_modules(statement, modules):
                if target in modules:
                    edges.setdefault(target, statement[0])
        graph[module] = edges
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of two or more modules, and modules that import themselves
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph.get(child, {}))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph.get(node, {}):
                        found.append(sorted(component))
    return found


def describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    """The edges inside one cycle, ``a:line -> b``, one per line."""
    members = set(component)
    return "\n".join(f"  {a}:{line} -> {b}" for a in component for b, line in sorted(graph[a].items())
                     if b in members)


@pytest.fixture(scope="module")
def graph():
    return import_graph(first_party_files(ROOT))


def test_the_graph_covers_every_first_party_module(graph):
    assert {"app", "lmcore.ngram.model", "lmcore.ngram.arpa", "lmcore.seq2seq.model"} <= set(graph)
    assert all(m == "app" or m.split(".")[0] in PACKAGES for m in graph)
    # a lazy import and a module-level one are both edges; a TYPE_CHECKING-only one is not
    assert "lmcore.ngram.vocab" in graph["lmcore.ngram.model"]
    assert "lmcore.ngram.model" not in graph["lmcore.ngram.arpa"]


def test_no_import_cycles(graph):
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n\n".join(describe(c, graph) for c in found)


def test_lmcore_imports_neither_streamlit_nor_the_app():
    offenders = []
    for module, path in first_party_files(ROOT).items():
        if not module.startswith("lmcore"):
            continue
        for line, base, _ in import_statements(path, module):
            if base.split(".")[0] in APP_ONLY:
                offenders.append(f"{module}:{line} imports {base}")
    assert not offenders, "\n".join(offenders)


# --- the finder itself, on small made-up trees ---------------------------------------------------------

def _tree(tmp_path: Path, sources: dict[str, str]) -> dict[str, dict[str, int]]:
    for name, text in sources.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return import_graph({module_name(p, tmp_path): p for p in sorted(tmp_path.rglob("*.py"))})


def test_a_lazy_import_closes_a_cycle_and_a_type_checking_one_does_not(tmp_path):
    graph = _tree(tmp_path, {
        "lmcore/__init__.py": "",
        "lmcore/a.py": "from lmcore.b import f\n",
        "lmcore/b.py": "def f():\n    from lmcore import a\n",
        "lmcore/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from lmcore.a import g\n",
        "lmcore/d.py": "from .c import h\n",
    })
    assert graph["lmcore.b"] == {"lmcore.a": 2}
    assert graph["lmcore.c"] == {}
    assert graph["lmcore.d"] == {"lmcore.c": 1}
    assert cycles(graph) == [["lmcore.a", "lmcore.b"]]


def test_a_three_module_cycle_and_a_self_import_are_found(tmp_path):
    graph = _tree(tmp_path, {
        "p/__init__.py": "from p.x import X\n",
        "p/x.py": "import p.y\n",
        "p/y.py": "from p import z\n",
        "p/z.py": "from p.x import X\n",
        "p/s.py": "import p.s\n",
        "p/ok.py": "import p.x\n",
    })
    assert sorted(cycles(graph)) == [["p.s"], ["p.x", "p.y", "p.z"]]


def _mutually_reachable(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The cycles by brute force: the classes of nodes that reach each other (a self-loop counts)."""
    reach = {}
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo += graph.get(node, {})
        reach[start] = seen
    classes = {frozenset(b for b in graph if b in reach[a] and a in reach[b]) | {a} for a in graph}
    return sorted(sorted(c) for c in classes if len(c) > 1 or next(iter(c)) in reach[next(iter(c))])


@pytest.mark.parametrize("seed", range(40))
def test_tarjan_finds_what_brute_force_reachability_finds(seed):
    rng = random.Random(seed)
    nodes = [f"m{i}" for i in range(rng.randint(1, 12))]
    graph = {a: {b: 1 for b in nodes if rng.random() < 0.15} for a in nodes}
    assert sorted(cycles(graph)) == _mutually_reachable(graph)
