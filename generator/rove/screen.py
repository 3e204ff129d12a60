"""Tables for the terminal that stay readable however narrow it is, piped or not.

A Rich table squeezes its columns to fit the width and, once a column is narrower than
its longest word, cuts values with an ellipsis: at 60 columns the presets list read
``she…`` for ``sheets`` and dropped whole headers.  A cut figure is worse than none, so
``FittedTable`` prints as a table only where every value fits; otherwise each row
becomes a block of ``column: value`` lines, which any width can show.  Rich's own width
rules stay as they are (80 columns when stdout is not a terminal, ``COLUMNS`` when set).

Import this module only where Rich is used: it imports Rich.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


class FittedTable(Table):
    """A ``rich.table.Table`` that falls back to one block a row where its columns cannot
    fit without cutting values."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self._fits(console, options):
            yield from super().__rich_console__(console, options)
            return
        yield from self._blocks(console)

    def _fits(self, console: Console, options: ConsoleOptions) -> bool:
        """Whether the widths Rich gives the columns at this width hold each column's
        longest word (Rich's own measure is taken after the squeeze, and its squeeze does
        not stop at the words, so neither tells)."""
        wide = options.update_width(1 << 20)
        least = [self._measure_column(console, wide, c).minimum for c in self.columns]
        given = self._calculate_column_widths(console, options.update_width(options.max_width - self._extra_width))
        return all(g >= m for g, m in zip(given, least))

    def _blocks(self, console: Console) -> Iterator[Any]:
        if self.title:
            yield Text.from_markup(self.title, style="bold") if isinstance(self.title, str) else self.title
        headers = [c.header if isinstance(c.header, str) else str(c.header) for c in self.columns]
        rows = list(zip(*(list(c.cells) for c in self.columns)))
        for row in rows:
            first, *rest = row
            yield Text.from_markup(first, style="bold") if isinstance(first, str) else first
            for header, cell in zip(headers[1:], rest):
                if isinstance(cell, str) and not cell.strip():
                    continue
                label = Text(f"{header}: ", style="dim")
                yield Padding(label + (Text.from_markup(cell) if isinstance(cell, str) else Text(str(cell))),
                              (0, 0, 0, 2))
