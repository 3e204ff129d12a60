"""The package's shape, read from the source with ``ast``: rules of the house that no
linter holds.

* No function of ``generator/rove`` is longer than ``MAX_FUNCTION_LINES``: a longer one
  does several things a reader must hold at once, and each of them is easier to read,
  test and change as a function of its own (as OR-Tools' samples keep one short block
  per constraint family).
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
