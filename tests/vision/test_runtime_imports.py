"""The runtime must never pull in torch or Ultralytics (they are training-only dependencies),
nor the training and evaluation code; and no module of vision/ or web/ is part of an import cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIME_MODULES = ["vision.read.reader", "vision.commands.read", "vision.evaluate.photos", "vision.evaluate.bench", "vision.read.backends", "vision.train.command"]


@pytest.mark.parametrize("module", RUNTIME_MODULES)
def test_import_does_not_load_torch(module):
    code = (
        f"import sys, {module}\n"
        "heavy = sorted(m for m in ('torch', 'ultralytics', 'torchvision') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"{module} imported {done.stdout.strip()}"


# --- the import graph of vision/ and web/, read from the source (ast), not by importing ---

PACKAGES = ("vision", "web")
RUNTIME_PATH = [
    "vision.read.reader", "vision.live.pipeline", "vision.live.settle", "vision.live.camera", "vision.live.sources", "vision.demo.table",
    "vision.commands.read", "web.app", "web.session", "web.serve_cmd",
]
"""What a table runs: ``tableref read`` (vision.commands.read), ``tableref serve`` (web.serve_cmd,
web.app) and the live path they drive."""


def is_training_or_evaluation(module: str) -> bool:
    return module.split(".")[:2] in (["vision", "train"], ["vision", "evaluate"])


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name (a package by its ``__init__``)."""
    files = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def _type_checking(test: ast.expr) -> bool:
    return getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == "TYPE_CHECKING"


def _run_on_import(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when a module is imported: not those inside functions
    or under ``if TYPE_CHECKING``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if not _type_checking(node.test):
                yield from _run_on_import(node.body)
            yield from _run_on_import(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _run_on_import(block)
        elif isinstance(node, (ast.With, ast.ClassDef)):
            yield from _run_on_import(node.body)


def _every_import(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, a function's too (it runs when the function is called)."""
    for statement in body:
        yield from (n for n in ast.walk(statement) if isinstance(n, (ast.Import, ast.ImportFrom)))


def import_graph(lazy: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of the packages it imports; ``lazy`` adds the imports inside functions.

    ``from package import name`` is an edge to ``package.name`` where that is a module and to
    ``package`` otherwise; the implicit import of a module's parent packages is no edge (every
    submodule has it, and a package importing its own submodules is no cycle).
    """
    files = module_files()
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        statements = (_every_import if lazy else _run_on_import)(ast.parse(path.read_text(encoding="utf-8")).body)
        targets = []
        for node in statements:
            if isinstance(node, ast.Import):
                targets += [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                targets += [f"{base}.{alias.name}" for alias in node.names]
        deps = set()
        for target in targets:
            while target and target not in files:
                target = target.rpartition(".")[0]
            if target and target != name:
                deps.add(target)
        graph[name] = deps
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(cycles)


def import_chains(graph: dict[str, set[str]], start: str) -> dict[str, list[str]]:
    """Every module ``start`` imports, directly or not, with one chain of imports leading to it."""
    chains = {start: [start]}
    todo = [start]
    while todo:
        v = todo.pop()
        for w in sorted(graph.get(v, ())):
            if w not in chains:
                chains[w] = chains[v] + [w]
                todo.append(w)
    return chains


def test_the_graph_reads_imports_as_python_runs_them():
    graph, lazy = import_graph(), import_graph(lazy=True)
    assert "vision.live.pacer" in graph["vision.demo.table"]
    assert "vision.teach.labels" in graph["web.teaching"]
    assert "vision.synth.props" in graph["vision.synth.scene"]  # from vision.synth import props
    assert "vision.synth" not in graph["vision.synth.scene"]
    assert "vision.demo.table" not in graph["vision.live.sources"] and "vision.demo.table" in lazy["vision.live.sources"]  # opened lazily
    assert set(RUNTIME_PATH) <= set(graph)


def test_the_cycle_finder_finds_cycles():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_no_module_is_part_of_an_import_cycle():
    assert import_cycles(import_graph()) == []


def test_no_cycle_hides_behind_an_import_inside_a_function():
    """vision.live.sources opened the demo lazily while vision.demo.table imported vision.live.sources: each
    module needed the other, and which could load first hung on where the import sat."""
    assert import_cycles(import_graph(lazy=True)) == []


@pytest.mark.parametrize("module", RUNTIME_PATH)
def test_the_runtime_never_imports_training_or_evaluation_code(module):
    chains = import_chains(import_graph(lazy=True), module)
    reached = {m: " -> ".join(chain) for m, chain in chains.items() if is_training_or_evaluation(m)}
    assert reached == {}


def test_loading_the_runtime_loads_no_training_or_evaluation_module():
    code = (
        f"import sys, {', '.join(RUNTIME_PATH)}\n"
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('vision.', 'web.')))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.strip().split(",")
    assert "vision.read.reader" in loaded and "web.app" in loaded
    assert [m for m in loaded if is_training_or_evaluation(m)] == []
