"""The book's progress display: a bar per kind (puzzles chosen of those wanted) and one
for the whole book with the time left, estimated only once enough is done to say."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .puzzles import KIND_NAMES

#: the time left is shown once this share of the book is proven (and ESTIMATE_AFTER_MIN
#: puzzles): before that the rate seen says little (the first kinds are the slow ones)
ESTIMATE_AFTER, ESTIMATE_AFTER_MIN = 0.1, 3


def time_left(done: int, total: int, elapsed: float) -> str:
    """The time left at the rate seen so far, as h:mm:ss, or "estimating" while too little
    is done for the rate to mean anything."""
    if done >= total:
        return "0:00:00"
    if done < max(ESTIMATE_AFTER_MIN, ESTIMATE_AFTER * total) or elapsed <= 0:
        return "estimating"
    left = round(elapsed / done * (total - done))
    return f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"


@contextmanager
def book_progress(console: Any, count: int) -> Iterator[Any]:
    """A Rich display fed by ``generate_book``'s progress callback ``(kind, found,
    wanted)``; it disappears when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:>16}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[left]}"), console=console,
                  transient=True) as bar:
        whole = bar.add_task("puzzles proven", total=count, left="time left: estimating")
        tasks: dict[str, Any] = {}
        found: dict[str, int] = {}
        t0 = time.monotonic()

        def progress(kind: str, done: int, total: int) -> None:
            if kind not in tasks:
                tasks[kind] = bar.add_task(KIND_NAMES.get(kind, kind), total=total, left="")
            bar.update(tasks[kind], completed=done, total=max(total, done))
            found[kind] = done
            n = min(count, sum(found.values()))
            bar.update(whole, completed=n,
                       left=f"time left: {time_left(n, count, time.monotonic() - t0)}")

        yield progress
