"""Cells, compass directions and the grid text used by layouts and patterns.

Coordinates follow docs/RULES.md ("Space"): ``x`` grows east, ``y`` grows south, and the
top-left character of a grid text is (0, 0).  Everything here is a plain value
(tuples and frozen dataclasses) so that the engine and the solvers can hash and
compare them freely.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Direction:
    """One of the eight compass directions, as a unit step on the grid."""

    name: str
    dx: int
    dy: int

    def step(self, cell: Cell, k: int = 1) -> Cell:
        return (cell[0] + self.dx * k, cell[1] + self.dy * k)

    def __str__(self) -> str:
        return self.name


N = Direction("N", 0, -1)
NE = Direction("NE", 1, -1)
E = Direction("E", 1, 0)
SE = Direction("SE", 1, 1)
S = Direction("S", 0, 1)
SW = Direction("SW", -1, 1)
W = Direction("W", -1, 0)
NW = Direction("NW", -1, -1)

#: Clockwise from north; this order is the canonical order everywhere (output, notation).
DIRECTIONS: tuple[Direction, ...] = (N, NE, E, SE, S, SW, W, NW)
DIRECTION_BY_NAME: dict[str, Direction] = {d.name: d for d in DIRECTIONS}
ORTHOGONAL: tuple[Direction, ...] = (N, E, S, W)
DIAGONAL: tuple[Direction, ...] = (NE, SE, SW, NW)
SHORTHANDS: dict[str, tuple[Direction, ...]] = {
    "orthogonal": ORTHOGONAL,
    "diagonal": DIAGONAL,
    "all": DIRECTIONS,
}
#: King-move offsets: the neighbours that count as adjacent.
NEIGHBOUR_OFFSETS: tuple[Cell, ...] = tuple((d.dx, d.dy) for d in DIRECTIONS)


def neighbours(cell: Cell) -> Iterable[Cell]:
    x, y = cell
    for dx, dy in NEIGHBOUR_OFFSETS:
        yield (x + dx, y + dy)


def adjacent(a: Cell, b: Cell) -> bool:
    """King adjacency: edge or corner contact (a cell is not adjacent to itself)."""
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def connected(cells: Iterable[Cell]) -> bool:
    """True when the cells form one group under king adjacency (empty counts as connected).

    Packs the cells into ints over their bounding box (plus a margin, so no neighbour
    wraps to another row) and asks ``king_connected``, the one walk."""
    cells = set(cells)
    if not cells:
        return True
    x0 = min(x for x, _ in cells) - 1
    y0 = min(y for _, y in cells) - 1
    width = max(x for x, _ in cells) - x0 + 2
    offsets = tuple(dx + dy * width for dx, dy in NEIGHBOUR_OFFSETS)
    return king_connected({x - x0 + (y - y0) * width for x, y in cells}, offsets)


def king_connected(todo: set[int], offsets: tuple[int, ...]) -> bool:
    """True when the packed cells ``todo`` form one group, ``offsets`` being the eight
    king neighbours in the packing (``x + y * stride``): the walk behind ``connected``
    and the engine's ``valid``.  Empties ``todo``."""
    if not todo:
        return True
    stack = [todo.pop()]
    while stack:
        c = stack.pop()
        for o in offsets:
            d = c + o
            if d in todo:
                todo.discard(d)
                stack.append(d)
    return not todo


def parse_dirs(names: Iterable[str]) -> tuple[Direction, ...]:
    """Direction names and shorthands to directions, deduplicated, in canonical order.

    Raises ``KeyError`` naming the first unknown word.
    """
    chosen: set[Direction] = set()
    for name in names:
        if name in SHORTHANDS:
            chosen.update(SHORTHANDS[name])
        elif name in DIRECTION_BY_NAME:
            chosen.add(DIRECTION_BY_NAME[name])
        else:
            raise KeyError(name)
    return tuple(d for d in DIRECTIONS if d in chosen)


class GridTextError(ValueError):
    """A grid text that cannot be read; ``row`` is 0-based within the text's rows."""

    def __init__(self, message: str, row: int | None = None) -> None:
        super().__init__(message)
        self.row = row


def grid_rows(text: str) -> list[list[str]]:
    """Split grid text into rows of single-character cells.

    Cells are separated by single spaces (``# B #``); blank first and last lines are
    ignored; short rows are padded with '.'.  A row like ``#B#`` with no separators is
    also accepted, since designers type it that way.
    """
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        line = line.rstrip()
        if line[:1] == " ":
            raise GridTextError(f"row {i + 1} starts with a space; mark empty cells with '.'", i)
        if " " not in line:
            rows.append(list(line))
            continue
        if line[1::2].strip(" ") or any(c == " " for c in line[0::2]):
            raise GridTextError(
                f"row {i + 1} ({line!r}) is not single characters separated by single spaces", i
            )
        rows.append(list(line[0::2]))
    width = max((len(r) for r in rows), default=0)
    return [r + ["."] * (width - len(r)) for r in rows]


def format_grid(cells: Mapping[Cell, str], origin: Cell | None = None) -> str:
    """{cell: character} to grid text, one line per row, cells separated by spaces.

    With ``origin`` None the text starts at the bounding box's top-left corner; a given
    origin is used as the text's (0, 0), which lets a caller keep coordinates stable.
    """
    if not cells:
        return ""
    xs = [c[0] for c in cells]
    ys = [c[1] for c in cells]
    x0, y0 = origin if origin is not None else (min(xs), min(ys))
    lines = []
    for y in range(y0, max(ys) + 1):
        lines.append(" ".join(cells.get((x, y), ".") for x in range(x0, max(xs) + 1)).rstrip(" ."))
    return "\n".join(line if line else "." for line in lines) + "\n"
