"""Vector glyphs drawn on the cards: the four arrow kinds and pattern grids.

Every glyph is drawn with plain ReportLab canvas paths in the caller's coordinates
(y up), so it scales with the card and stays sharp at any print resolution. Shapes,
not colours, tell things apart (a jump has a hop arc, a push has a block at its head,
a must-be-empty cell has a cross), so the cards read the same printed in greyscale.
Import this module only from ``rove.pdf`` code; it imports ReportLab.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from reportlab.lib.colors import Color, white
from reportlab.pdfgen.canvas import Canvas

from ..grid import DIRECTION_BY_NAME, Direction
from ..spec import ANY, ARROW_KINDS, EMPTY, Arrow, Pattern
from .fonts import FONT, FONT_BOLD, text_width

INK = Color(0.11, 0.12, 0.14)
#: the smallest text any sheet or page prints, in pt (the usual floor for print)
MIN_TEXT = 6.0
ANY_FILL = Color(0.60, 0.62, 0.64)
GRID_LINE = Color(0.78, 0.79, 0.80)

#: What each arrow kind does, as the short legend printed under the arrows.
KIND_LEGEND = {
    "standard": "any distance",
    "short": "1 cell",
    "jump": "hop over modules",
    "push": "1 cell, pushes the row",
}


def direction_angle(d: Direction) -> float:
    """Page angle in degrees of a grid direction (grid y grows south, page y grows up)."""
    return math.degrees(math.atan2(-d.dy, d.dx))


def arrows_by_direction(arrows: Sequence[Arrow]) -> dict[str, tuple[str, ...]]:
    """{direction name: kinds that may move that way}, kinds in canonical order.

    A direction shared by two arrows of different kinds gets both glyphs side by side.
    """
    out: dict[str, list[str]] = {}
    for a in arrows:
        for d in a.dirs:
            kinds = out.setdefault(d.name, [])
            if a.kind not in kinds:
                kinds.append(a.kind)
    return {k: tuple(sorted(v, key=ARROW_KINDS.index)) for k, v in out.items()}


def draw_arrow(c: Canvas, kind: str, r0: float, r1: float, width: float = 2.2,
               color: Color = INK, hop_side: float = 1.0) -> None:
    """One arrow glyph pointing along +x from ``r0`` to ``r1`` in the current coordinates.

    The caller translates to the compass centre and rotates to the direction; ``hop_side``
    (+1 or -1) picks the side a jump's arc bulges to.
    standard: long shaft and head; short: a stub reaching a third of the way;
    jump: the shaft hops over a dot (a module) in an arc; push: a block ahead of the head.
    """
    head_len = width * 3.8
    head_half = width * 2.3
    c.saveState()
    c.setStrokeColor(color)
    c.setFillColor(color)
    c.setLineWidth(width)
    c.setLineCap(1)
    c.setLineJoin(1)

    def head(tip: float) -> None:
        p = c.beginPath()
        p.moveTo(tip, 0)
        p.lineTo(tip - head_len, head_half)
        p.lineTo(tip - head_len, -head_half)
        p.close()
        c.drawPath(p, stroke=0, fill=1)

    if kind == "short":
        tip = r0 + (r1 - r0) * 0.5
        c.line(r0, 0, tip - head_len * 0.8, 0)
        head(tip)
        # A tick across the base marks "exactly one cell".
        c.setLineWidth(width * 0.8)
        c.line(r0, -head_half * 0.8, r0, head_half * 0.8)
    elif kind == "jump":
        tip = r1
        a = r0 + width * 0.5
        b = tip - head_len - width * 1.2
        span = b - a
        hop = span * 0.42 * hop_side
        p = c.beginPath()
        p.moveTo(r0, 0)
        p.lineTo(a, 0)
        p.curveTo(a + span * 0.08, hop * 1.33, b - span * 0.08, hop * 1.33, b, 0)
        p.lineTo(tip - head_len * 0.8, 0)
        c.drawPath(p, stroke=1, fill=0)
        head(tip)
        c.circle((a + b) / 2, 0, width * 1.25, stroke=0, fill=1)
    elif kind == "push":
        block = width * 3.4
        tip = r1 - block - width * 0.6
        c.line(r0, 0, tip - head_len * 0.8, 0)
        head(tip)
        c.rect(r1 - block, -block / 2, block, block, stroke=0, fill=1)
    else:  # standard
        tip = r1
        c.line(r0, 0, tip - head_len * 0.8, 0)
        head(tip)
    c.restoreState()


def draw_compass(c: Canvas, arrows: Sequence[Arrow], cx: float, cy: float, r0: float,
                 r1: float, width: float = 2.2, color: Color = INK) -> None:
    """Every arrow of a module side around (cx, cy): one glyph per (direction, kind)."""
    spread = width * 4.2
    for dname, kinds in arrows_by_direction(arrows).items():
        d = DIRECTION_BY_NAME[dname]
        for i, kind in enumerate(kinds):
            offset = (i - (len(kinds) - 1) / 2) * spread
            c.saveState()
            c.translate(cx, cy)
            c.rotate(direction_angle(d))
            c.translate(0, offset)
            # Diagonals start a little further out, clear of a square centre tile's corners.
            start = r0 * 1.12 if d.dx and d.dy else r0
            draw_arrow(c, kind, start, r1, width, color, _hop_side(d))
            c.restoreState()


def _hop_side(d: Direction) -> float:
    """Jump arcs bulge up the page (east for N and S arrows), as a hop does."""
    if d.dx == 0:
        return -1.0 if d.dy < 0 else 1.0
    return 1.0 if d.dx > 0 else -1.0


def pattern_cell_size(pattern: Pattern, w: float, h: float, max_cell: float) -> float:
    """Cell size that fits the pattern's bounding box in w x h, capped at ``max_cell``."""
    cols, rows = pattern_extent(pattern)
    return min(max_cell, w / cols, h / rows)


def pattern_extent(pattern: Pattern) -> tuple[int, int]:
    norm = pattern.normalized()
    xs = [x for (x, _), _ in norm.cells]
    ys = [y for (_, y), _ in norm.cells]
    return max(xs) + 1, max(ys) + 1


def draw_pattern(c: Canvas, pattern: Pattern, cx: float, cy: float, w: float, h: float,
                 max_cell: float, named_fill: Color = INK) -> tuple[float, float, float, float]:
    """A pattern as a small grid centred on (cx, cy) inside w x h; returns its (x, y, w, h).

    '#' is a grey tile, a named module a dark tile with its code, '_' a dashed cell with a
    cross (must be empty); cells of the bounding box outside the pattern get a faint outline
    so diagonal shapes keep their spacing.
    """
    norm = pattern.normalized()
    cols, rows = pattern_extent(pattern)
    cell = pattern_cell_size(pattern, w, h, max_cell)
    gw, gh = cols * cell, rows * cell
    x0, y0 = cx - gw / 2, cy - gh / 2
    pad = cell * 0.07
    radius = cell * 0.14
    values = dict(norm.cells)
    c.saveState()
    c.setLineJoin(1)
    for gy in range(rows):
        for gx in range(cols):
            x = x0 + gx * cell + pad
            y = y0 + (rows - 1 - gy) * cell + pad
            s = cell - 2 * pad
            v = values.get((gx, gy))
            if v is None:
                c.setStrokeColor(GRID_LINE)
                c.setLineWidth(max(0.5, cell * 0.025))
                c.setDash(cell * 0.06, cell * 0.08)
                c.roundRect(x, y, s, s, radius, stroke=1, fill=0)
                c.setDash()
            elif v == ANY:
                c.setFillColor(ANY_FILL)
                c.setStrokeColor(INK)
                c.setLineWidth(max(0.6, cell * 0.035))
                c.roundRect(x, y, s, s, radius, stroke=1, fill=1)
            elif v == EMPTY:
                c.setFillColor(white)
                c.setStrokeColor(INK)
                c.setLineWidth(max(0.6, cell * 0.035))
                c.setDash(cell * 0.10, cell * 0.07)
                c.roundRect(x, y, s, s, radius, stroke=1, fill=1)
                c.setDash()
                k = s * 0.28
                c.setLineWidth(max(0.7, cell * 0.05))
                c.setLineCap(1)
                c.line(x + k, y + k, x + s - k, y + s - k)
                c.line(x + k, y + s - k, x + s - k, y + k)
            else:
                c.setFillColor(named_fill)
                c.setStrokeColor(named_fill)
                c.setLineWidth(max(0.6, cell * 0.035))
                c.roundRect(x, y, s, s, radius, stroke=1, fill=1)
                size = max(MIN_TEXT, s * 0.62)
                c.setFillColor(white)
                c.setFont(FONT_BOLD, size)
                c.drawCentredString(x + s / 2, y + s / 2 - size * 0.36, v)
    c.restoreState()
    return x0, y0, gw, gh


def _legend_rows(pattern: Pattern, names: Mapping[str, str], width: float, size: float
                 ) -> tuple[list[tuple[str, str]], list[float], list[list[int]]]:
    """The legend's (mark, label) items, their widths, and how they flow into rows."""
    items: list[tuple[str, str]] = []
    values = [v for _, v in pattern.cells]
    if ANY in values:
        items.append((ANY, "any module"))
    for code in sorted({v for v in values if v not in (ANY, EMPTY)}):
        items.append((code, names.get(code, code)))
    if EMPTY in values:
        items.append((EMPTY, "must be empty"))
    sw, gap = size * 1.35, size * 1.1
    widths = [sw + size * 0.4 + text_width(label, FONT, size) for _, label in items]
    rows: list[list[int]] = [[]]
    used = 0.0
    for i, wd in enumerate(widths):
        need = wd if not rows[-1] else used + gap + wd
        if rows[-1] and need > width:
            rows.append([i])
            used = wd
        else:
            rows[-1].append(i)
            used = need
    return items, widths, rows


def legend_height(pattern: Pattern, names: Mapping[str, str], width: float, size: float) -> float:
    """Height :func:`draw_legend` will take, so the caller can size what sits above it."""
    return len(_legend_rows(pattern, names, width, size)[2]) * size * 1.7


def draw_legend(c: Canvas, pattern: Pattern, names: Mapping[str, str], cx: float, y: float,
                width: float, size: float, named_fill: Color = INK) -> float:
    """A key to the pattern's cell marks, centred on cx with its top at y, rows as needed.

    Only the marks the pattern uses are listed. Returns the height used.
    """
    items, widths, rows = _legend_rows(pattern, names, width, size)
    sw, gap = size * 1.35, size * 1.1
    line_h = size * 1.7
    for r, idxs in enumerate(rows):
        total = sum(widths[i] for i in idxs) + gap * (len(idxs) - 1)
        x = cx - total / 2
        base = y - size * 1.15 - r * line_h
        for i in idxs:
            mark, label = items[i]
            _legend_swatch(c, mark, x, base - sw * 0.18, sw, named_fill)
            c.setFillColor(INK)
            c.setFont(FONT, size)
            c.drawString(x + sw + size * 0.4, base, label)
            x += widths[i] + gap
    return len(rows) * line_h


def _legend_swatch(c: Canvas, mark: str, x: float, y: float, s: float, named_fill: Color) -> None:
    c.saveState()
    c.setLineWidth(0.6)
    c.setStrokeColor(INK)
    if mark == ANY:
        c.setFillColor(ANY_FILL)
        c.roundRect(x, y, s, s, s * 0.15, stroke=1, fill=1)
    elif mark == EMPTY:
        c.setFillColor(white)
        c.setDash(s * 0.2, s * 0.14)
        c.roundRect(x, y, s, s, s * 0.15, stroke=1, fill=1)
        c.setDash()
        k = s * 0.26
        c.line(x + k, y + k, x + s - k, y + s - k)
        c.line(x + k, y + s - k, x + s - k, y + k)
    else:
        c.setFillColor(named_fill)
        c.setStrokeColor(named_fill)
        c.roundRect(x, y, s, s, s * 0.15, stroke=1, fill=1)
        c.setFillColor(white)
        c.setFont(FONT_BOLD, s * 0.7)
        c.drawCentredString(x + s / 2, y + s * 0.24, mark)
    c.restoreState()
