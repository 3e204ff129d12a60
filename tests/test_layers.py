"""The package's layering, read from the source: no import cycles, and no name of a module
that does not exist.

Every ``import`` of ``generator/rove`` counts, wherever it stands: at the top of a module,
inside a function (a lazy import is still a dependency: it runs the first time the
function does) or under ``TYPE_CHECKING``.  Two graphs must be acyclic:

* the *layers*: each subpackage (``solve``, ``generators``, ``book``, ``pdf``, ...) and each
  top-level module (``spec``, ``engine``, ...) is one node; a layer that reaches back up
  into one that imports it is where a change in one place breaks another;
* the *modules*: inside a subpackage too, no two modules import each other (``play``'s
  ``run`` starts the ``server``, so the server must not reach back into ``run``).

Names: every dotted ``rove.x.y`` in the code, the tests, the benches, the Rust core's
comments and the documents names a module that exists (a ``.py`` file, a package, or the
compiled ``rove._core``), and the first name after a module is defined in it; every path
``generator/rove/....py`` there names a file that exists.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "generator" / "rove"


# --------------------------------------------------------------------------- the import graph


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def is_module(name: str) -> bool:
    """``name`` (``rove.a.b``) is a module or package of the source tree."""
    rel = PACKAGE.parent.joinpath(*name.split("."))
    return (rel.with_suffix(".py").is_file() or (rel / "__init__.py").is_file()
            or rel.with_suffix(".pyi").is_file())


def imports_of(source: str, name: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """(module imported, line) for every import statement of ``source``, the module
    ``name``, anywhere in it: ``from pkg import mod`` imports ``pkg.mod`` when that is a
    module, else ``pkg``."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if is_module(sub) else base), node.lineno


@functools.cache
def import_graph() -> dict[str, dict[str, list[str]]]:
    """module -> {rove module it imports: ["file:line", ...]}"""
    graph: dict[str, dict[str, list[str]]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        edges = graph.setdefault(name, {})
        for target, line in imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py"):
            if target == "rove" or target.startswith("rove."):
                edges.setdefault(target, []).append(f"{path.relative_to(ROOT)}:{line}")
    return graph


def layer(module: str) -> str:
    """The layer a module belongs to: its subpackage, or itself for a top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def condensed(graph: dict[str, dict[str, list[str]]], node_of) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for a, edges in graph.items():
        for b, where in edges.items():
            na, nb = node_of(a), node_of(b)
            if na != nb and "rove" not in (na, nb):
                out.setdefault(na, {}).setdefault(nb, []).extend(where)
    return out


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected components of more than one node (each a cycle or several)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def shortest_path(graph: dict[str, dict[str, list[str]]], start: str, goal: str, within: set[str]) -> list[str]:
    """The shortest path start .. goal through ``within`` (breadth first)."""
    came: dict[str, str | None] = {start: None}
    queue = [start]
    for v in queue:
        if v == goal:
            path = [v]
            while came[path[-1]] is not None:
                path.append(came[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for w in sorted(graph.get(v, {})):
            if w in within and w not in came:
                came[w] = v
                queue.append(w)
    raise AssertionError("no path")  # pragma: no cover - start and goal share a component


def explain(graph: dict[str, dict[str, list[str]]], comps: list[list[str]], most: int = 12) -> str:
    """The cycles closed by each edge of each component, shortest first, with the import
    sites of each step."""
    found: dict[tuple[str, ...], list[str]] = {}
    for comp in comps:
        for a in comp:
            for b in comp:
                if b in graph.get(a, {}):
                    cycle = [a] + shortest_path(graph, b, a, set(comp))
                    key = tuple(sorted(set(cycle)))
                    if key not in found or len(cycle) < len(found[key]):
                        found[key] = cycle
    lines = []
    for cycle in sorted(found.values(), key=lambda c: (len(c), c))[:most]:
        lines.append(" -> ".join(cycle))
        for a, b in zip(cycle, cycle[1:]):
            lines.append(f"    {a} -> {b}: {', '.join(graph[a][b][:2])}")
    return "\n".join(lines)


def test_the_collector_sees_lazy_relative_and_type_checking_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from ..solve import nodes\n"
        "if TYPE_CHECKING:\n"
        "    from ..pdf.book import BookInfo\n"
        "def f():\n"
        "    from .build import render_book\n"
        "    import rove.engine\n"
    )
    got = {m for m, _ in imports_of(source, "rove.book.hints", False)}
    assert {"rove.solve.nodes", "rove.pdf.book", "rove.book.build", "rove.engine"} <= got
    assert layer("rove.solve.nodes") == "rove.solve" and layer("rove.spec") == "rove.spec"


def test_no_layer_imports_one_that_imports_it() -> None:
    graph = condensed(import_graph(), layer)
    assert {"rove.book", "rove.solve", "rove.pdf", "rove.spec"} <= set(graph)  # the graph was read
    comps = cycles(graph)
    assert not comps, "layers that import each other (lazy imports included):\n" + explain(graph, comps)


def test_no_two_modules_import_each_other() -> None:
    graph = condensed(import_graph(), lambda m: m)
    comps = cycles(graph)
    assert not comps, "modules that import each other (lazy imports included):\n" + explain(graph, comps)


# --------------------------------------------------------------------------- names of modules

TEXT_SUFFIXES = {".py", ".pyi", ".rs", ".md", ".toml", ".yaml", ".yml", ".js", ".css", ".html", ".txt", ".cfg"}
SKIP_DIRS = {".venv", "target", "output", "__pycache__", ".git", ".pytest_cache", ".hypothesis", "node_modules"}
DOTTED = re.compile(r"(?<![\w.])rove(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"generator/rove/[\w/]+\.pyi?\b")


def text_files() -> Iterator[Path]:
    for path in [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]:
        if path.is_file():
            yield path
    for top in ("generator", "core", "tests", "bench", "docs"):
        for folder, dirs, files in os.walk(ROOT / top):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for f in sorted(files):
                path = Path(folder, f)
                if path.suffix in TEXT_SUFFIXES and path != Path(__file__).resolve():
                    yield path  # not this file: its examples name missing modules on purpose


@functools.cache
def defined_names(module: str) -> frozenset[str]:
    """The names a module's source binds at its top level, and its submodules."""
    rel = PACKAGE.parent.joinpath(*module.split("."))
    path = next(p for p in (rel.with_suffix(".py"), rel / "__init__.py", rel.with_suffix(".pyi")) if p.is_file())
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def missing_name(dotted: str) -> str | None:
    """What of ``rove.a.b.c`` does not exist (None: it all does, as far as it is checked:
    the longest module prefix and the first name after it)."""
    parts = dotted.split(".")
    k = max(i for i in range(1, len(parts) + 1) if is_module(".".join(parts[:i])))
    if k == len(parts):
        return None
    module, attr = ".".join(parts[:k]), parts[k]
    if attr.startswith("__") and attr.endswith("__"):  # __file__, __version__: every module's
        return None
    return None if attr in defined_names(module) else f"{module} has no {attr}"


def test_every_dotted_rove_name_exists() -> None:
    assert missing_name("rove.engine.Deck") is None and missing_name("rove.solve.search") is None
    assert missing_name("rove.solve.nosuch.solve") == "rove.solve has no nosuch"
    assert PATH.findall("see `generator/rove/solve/astar.py`, not generator/rove/x.pyc") == [
        "generator/rove/solve/astar.py"]
    bad = []
    for path in text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for m in DOTTED.finditer(line):
                why = missing_name(m.group())
                if why:
                    bad.append(f"{path.relative_to(ROOT)}:{number}: {m.group()} ({why})")
            for m in PATH.finditer(line):
                if not (ROOT / m.group()).is_file():
                    bad.append(f"{path.relative_to(ROOT)}:{number}: {m.group()} (no such file)")
    assert not bad, "names of modules or members that do not exist:\n" + "\n".join(bad)
