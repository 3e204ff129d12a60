"""Small helpers for text people read (the CLI's messages, the book's pages)."""

from __future__ import annotations


def plural(n: int | None, word: str, words: str | None = None) -> str:
    """``3 points``, ``1 point``; ``words`` for an irregular plural (``abilities``)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def listed(names: list[str], most: int = 4) -> str:
    """``a, b, c and 5 more``: the first ``most`` names of a list a message quotes."""
    return ", ".join(names[:most]) + (f" and {len(names) - most} more" if len(names) > most else "")
