"""The card PDFs' glyph code drawing SVG: one drawing source for the page and the cards.

:mod:`rove.pdf.glyphs` draws arrows on a ReportLab canvas.  ``SvgCanvas`` takes the
handful of canvas calls those glyphs make (state, colours, line style, transforms,
paths, lines, rectangles, circles) and records them as SVG elements, so the page's
modules carry the very arrows the printed cards do.  Coordinates stay ReportLab's (y
up): :func:`compass_svg` wraps the drawing in a group that flips y for the screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ..spec import Arrow


def _hex(color: Any) -> str:
    """A ReportLab colour as CSS ``#rrggbb``."""
    return "#" + "".join(f"{round(v * 255):02x}" for v in color.rgb())


def _n(v: float) -> str:
    """A coordinate, short and stable: 3 decimals, no trailing zeros."""
    return f"{v:.3f}".rstrip("0").rstrip(".") or "0"


class SvgPath:
    """The path object of ``SvgCanvas.beginPath``."""

    def __init__(self) -> None:
        self.d: list[str] = []

    def moveTo(self, x: float, y: float) -> None:  # noqa: N802 - ReportLab's names
        self.d.append(f"M{_n(x)},{_n(y)}")

    def lineTo(self, x: float, y: float) -> None:  # noqa: N802
        self.d.append(f"L{_n(x)},{_n(y)}")

    def curveTo(self, x1: float, y1: float, x2: float, y2: float, x3: float, y3: float) -> None:  # noqa: N802
        self.d.append(f"C{_n(x1)},{_n(y1)} {_n(x2)},{_n(y2)} {_n(x3)},{_n(y3)}")

    def close(self) -> None:
        self.d.append("Z")


class SvgCanvas:
    """Records the ReportLab canvas calls of :mod:`rove.pdf.glyphs` as SVG elements."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.transform: list[str] = []
        self.stroke, self.fill, self.width, self.cap, self.join = "#000000", "#000000", 1.0, 0, 0
        self.stack: list[tuple[Any, ...]] = []

    def saveState(self) -> None:  # noqa: N802
        self.stack.append((list(self.transform), self.stroke, self.fill, self.width, self.cap, self.join))

    def restoreState(self) -> None:  # noqa: N802
        self.transform, self.stroke, self.fill, self.width, self.cap, self.join = self.stack.pop()

    def setStrokeColor(self, color: Any) -> None:  # noqa: N802
        self.stroke = _hex(color)

    def setFillColor(self, color: Any) -> None:  # noqa: N802
        self.fill = _hex(color)

    def setLineWidth(self, width: float) -> None:  # noqa: N802
        self.width = width

    def setLineCap(self, cap: int) -> None:  # noqa: N802
        self.cap = cap

    def setLineJoin(self, join: int) -> None:  # noqa: N802
        self.join = join

    def translate(self, dx: float, dy: float) -> None:
        self.transform.append(f"translate({_n(dx)},{_n(dy)})")

    def rotate(self, degrees: float) -> None:
        self.transform.append(f"rotate({_n(degrees)})")

    def beginPath(self) -> SvgPath:  # noqa: N802
        return SvgPath()

    def _paint(self, stroke: int, fill: int) -> str:
        caps, joins = ("butt", "round", "square"), ("miter", "round", "bevel")
        out = f' fill="{self.fill if fill else "none"}"'
        if stroke:
            out += (f' stroke="{self.stroke}" stroke-width="{_n(self.width)}"'
                    f' stroke-linecap="{caps[self.cap]}" stroke-linejoin="{joins[self.join]}"')
        if self.transform:
            out += f' transform="{" ".join(self.transform)}"'
        return out

    def drawPath(self, path: SvgPath, stroke: int = 1, fill: int = 0) -> None:  # noqa: N802
        self.parts.append(f'<path d="{"".join(path.d)}"{self._paint(stroke, fill)}/>')

    def line(self, x1: float, y1: float, x2: float, y2: float) -> None:
        self.parts.append(f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}"{self._paint(1, 0)}/>')

    def rect(self, x: float, y: float, w: float, h: float, stroke: int = 1, fill: int = 0) -> None:
        self.parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}"'
                          f'{self._paint(stroke, fill)}/>')

    def circle(self, x: float, y: float, r: float, stroke: int = 1, fill: int = 0) -> None:
        self.parts.append(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}"{self._paint(stroke, fill)}/>')


def compass_svg(arrows: Sequence[Arrow], r0: float, r1: float, width: float, color: Any) -> str:
    """A module side's arrows around (0, 0) as an SVG group for the screen (y down),
    drawn by the cards' own :func:`rove.pdf.glyphs.draw_compass`."""
    from reportlab.pdfgen.canvas import Canvas

    from ..pdf.glyphs import draw_compass

    c = SvgCanvas()
    draw_compass(cast(Canvas, c), arrows, 0.0, 0.0, r0, r1, width, color)
    return f'<g transform="scale(1,-1)">{"".join(c.parts)}</g>'
