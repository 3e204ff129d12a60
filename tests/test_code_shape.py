"""The package's shape, read from the source with ``ast``: rules of the house that no
linter holds.

* No function of ``generator/rove`` is longer than ``MAX_FUNCTION_LINES``: a longer one
  does several things a reader must hold at once, and each of them is easier to read,
  test and change as a function of its own (as OR-Tools' samples keep one short block
  per constraint family).
* A ``Deck`` (a spec compiled for play) is built in one place, ``rove.engine.deck_for``,
  which keeps it for every later user of the same spec: the solvers, the generators, the
  book, the check's workers and the play page once built their own, 24 times in 13
  files.  A new ``Deck(`` call elsewhere needs a reason in ``DECK_BUILDERS``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "generator" / "rove"

MAX_FUNCTION_LINES = 120
"""Longest function, from its ``def`` line to its last, docstring and comments included
(a decorator above it does not count; a function nested in it counts in both)."""


def functions(source: str) -> Iterator[tuple[str, int, int]]:
    """(qualified name, first line, number of lines) of every function and method of
    ``source``, nested ones included."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, int, int]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                assert child.end_lineno is not None
                yield name, child.lineno, child.end_lineno - child.lineno + 1
                yield from walk(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, prefix + child.name + ".")
            else:
                yield from walk(child, prefix)

    yield from walk(ast.parse(source), "")


#: (file, function) -> why it builds a deck of its own
DECK_BUILDERS = {
    ("generator/rove/engine.py", "deck_for"): "the one cache of engine decks",
    ("generator/rove/solve/core.py", "core_deck"): "the compiled core's own deck (rove._core.Deck), "
                                                   "built from an engine deck and kept by its tables",
}


def deck_calls(source: str) -> Iterator[tuple[str, int]]:
    """(enclosing function, line) of every call of a name ``Deck`` (``Deck(...)`` or
    ``module.Deck(...)``) in ``source``; "" for one outside any function."""

    def walk(node: ast.AST, function: str) -> Iterator[tuple[str, int]]:
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call):
                f = child.func
                if (isinstance(f, ast.Name) and f.id == "Deck") or (isinstance(f, ast.Attribute) and f.attr == "Deck"):
                    yield function, child.lineno
            yield from walk(child, inner)

    yield from walk(ast.parse(source), "")


def long_functions(limit: int = MAX_FUNCTION_LINES) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name, line, length in functions(path.read_text(encoding="utf-8")):
            if length > limit:
                found.append(f"{path.relative_to(ROOT)}:{line} {name} ({length} lines)")
    return found


def test_the_walk_sees_methods_nested_functions_and_their_length() -> None:
    source = ("class A:\n"
              "    @property\n"
              "    def m(self):\n"
              "        '''doc'''\n"
              "        def inner():\n"
              "            return 1\n"
              "        return inner()\n"
              "async def f():\n"
              "    pass\n")
    assert list(functions(source)) == [("A.m", 3, 5), ("A.m.inner", 5, 2), ("f", 8, 2)]


def test_no_function_is_longer_than_the_limit() -> None:
    assert len(long_functions(0)) > 1000  # the walk reads the whole package
    too_long = long_functions()
    assert not too_long, (f"functions over {MAX_FUNCTION_LINES} lines: split each along its "
                          "seams:\n" + "\n".join(too_long))


def test_the_deck_walk_sees_plain_and_dotted_calls() -> None:
    source = ("def a(spec):\n"
              "    return Deck(spec)\n"
              "def b(x):\n"
              "    return _core.Deck(*x), Decks(x)\n"
              "d = Deck(s)\n")
    assert list(deck_calls(source)) == [("a", 2), ("b", 4), ("", 5)]


def test_decks_are_built_in_one_place() -> None:
    """Every ``Deck(`` of the package is ``deck_for``'s or has a reason in DECK_BUILDERS:
    a deck built again for every solve, page or worker task costs more than a short
    search (rove.engine.deck_for says how much)."""
    found, builders = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for function, line in deck_calls(path.read_text(encoding="utf-8")):
            builders.add((rel, function))
            if (rel, function) not in DECK_BUILDERS:
                found.append(f"{rel}:{line} in {function or 'the module'}")
    assert not found, ("Deck( built outside rove.engine.deck_for: use deck_for (or pass the deck "
                       "down), or name the place and the reason in DECK_BUILDERS:\n" + "\n".join(found))
    assert builders == set(DECK_BUILDERS), "a place DECK_BUILDERS names builds no deck any more"
