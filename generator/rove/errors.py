"""Bad-input errors that name the file, the line and the fix.

Every loader collects all the problems of a file before it gives up, so a designer
fixes a spec in one pass instead of one error per run.  The CLI prints them as
``path:line: message`` and exits with code 2.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_MESSAGE = 600
"""Longest message printed for one problem: a value quoted from a hostile file is cut
in the middle, keeping the start and the fix at the end."""


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut in the middle to at most about ``limit`` characters."""
    if len(text) <= limit:
        return text
    head = max(1, limit * 2 // 3)
    tail = max(1, limit - head - 30)
    return f"{text[:head]} ...[{len(text) - head - tail:,} characters cut]... {text[-tail:]}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input file; ``line`` is 1-based, None when unknown."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        path, message = one_line(shorten(self.path, 300)), one_line(shorten(self.message))
        return f"{path}:{self.line}: {message}" if self.line else f"{path}: {message}"


def one_line(text: str) -> str:
    """Text with its control characters escaped (a line break as \\n), so that every
    problem prints as one ``path:line: message`` line whatever the input quoted in it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class InputError(Exception):
    """Raised with every problem found in an input; exit code 2 at the command line."""

    def __init__(self, problems: list[Problem]) -> None:
        assert problems, "an InputError needs at least one problem"
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems

    def __reduce__(self) -> tuple[type[InputError], tuple[list[Problem]]]:
        # Pickled by its problems, not its message: a worker process (the check's pool,
        # Dask) hands the error back whole instead of as a list of characters.
        return (type(self), (self.problems,))

    @classmethod
    def single(cls, path: str, line: int | None, message: str) -> InputError:
        return cls([Problem(path, line, message)])


class Problems:
    """A collector: ``add`` as you go, ``raise_if_any`` at the end."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[Problem] = []

    def add(self, line: int | None, message: str) -> None:
        self.items.append(Problem(self.path, line, message))

    def extend(self, problems: list[Problem]) -> None:
        self.items.extend(problems)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self) -> None:
        """Raise every problem at once, in the order a designer reads the file: by line
        within each file (files in the order first met; a problem with no line first),
        not in the order the checks ran."""
        if self.items:
            order: dict[str, int] = {}
            for p in self.items:
                order.setdefault(p.path, len(order))
            raise InputError(sorted(self.items, key=lambda p: (order[p.path], p.line or 0)))


class SolverBug(AssertionError):
    """An internal check failed: never bad input, always a bug to report (a solver's plan
    that does not replay, a model that contradicts a replayed plan).  An AssertionError,
    so code that caught those still catches it; unlike ``assert`` it survives ``python -O``."""


class PlanRejected(SolverBug):
    """A solver's plan failed its replay through the rules engine: step ``index`` is
    illegal (``reason`` says why), or the plan is legal (``index`` None) but ends with
    ``status`` instead of the goal."""

    def __init__(self, message: str, index: int | None, reason: str, status: str) -> None:
        super().__init__(message)
        self.index = index
        self.reason = reason
        self.status = status
