"""The duplex calibration sheet (``rove cards --calibration``): how far a printer's backs drift.

Printed double-sided (flip on long edge, actual size), the front page carries five crosses
and the back page, at the same places seen through the paper, a millimetre scale under
each cross and one beside it. Held against a light, back side up, each cross of the front
shows through on the scales: the horizontal scale reads X, the vertical one Y, and
``--back-offset X,Y`` moves the backs by that much. The scales are drawn in the back
page's own frame, as every back page is shifted, so a sheet printed again with the offset
reads 0,0 when it is right (and the new reading adds to the offset when it is not).
"""

from __future__ import annotations

import io

from reportlab.lib.colors import Color
from reportlab.pdfgen.canvas import Canvas

from .cards import EDGE_KEEP_MM, MM, PAPERS_PT, Rect, new_canvas, set_boxes
from .fonts import FONT, FONT_BOLD, fit_lines
from .glyphs import INK

CROSS_MM = 20.0  # each arm of a cross is half of this
SCALE_MM = 6  # the scales run from -6 to +6 mm
SCALE_AWAY_MM = 6.0  # a scale sits this far from its cross's centre (clear of the other arm)
INSET_MM = 35.0  # the corner crosses' centres, from the paper's edges
FAINT = Color(0.55, 0.55, 0.55)


def targets(paper: str) -> list[tuple[float, float]]:
    """The crosses' centres on the front page, in points: the centre and near each corner."""
    pw, ph = PAPERS_PT[paper]
    d = INSET_MM * MM
    return [(pw / 2, ph / 2), (d, d), (pw - d, d), (d, ph - d), (pw - d, ph - d)]


def _cross(c: Canvas, x: float, y: float) -> None:
    arm = CROSS_MM / 2 * MM
    c.setLineWidth(0.3)
    c.line(x - arm, y, x + arm, y)
    c.line(x, y - arm, x, y + arm)
    c.circle(x, y, 1.5 * MM, stroke=1, fill=0)


def _scale(c: Canvas, x: float, y: float, horizontal: bool) -> None:
    """A ruler centred on (x, y) from -6 to +6 mm: ticks every 0.5 mm, numbers every 2 mm.
    Positive is right (horizontal) or up (vertical) on the back page as it is looked at."""
    c.setLineWidth(0.25)
    c.setFont(FONT, 3.6)
    for k in range(-2 * SCALE_MM, 2 * SCALE_MM + 1):
        v = k / 2 * MM
        long_ = k % 2 == 0
        size = (2.2 if k == 0 else 1.6 if long_ else 0.9) * MM
        if horizontal:
            c.line(x + v, y, x + v, y - size)
        else:
            c.line(x, y + v, x + size, y + v)
        if long_ and (k // 2) % 2 == 0:
            label = f"{k // 2:+d}" if k else "0"
            if horizontal:
                c.drawCentredString(x + v, y - 3.6 * MM, label)
            else:
                c.drawString(x + 3.0 * MM, y + v - 0.45 * MM, label)
    if horizontal:
        c.line(x - SCALE_MM * MM, y, x + SCALE_MM * MM, y)
    else:
        c.line(x, y - SCALE_MM * MM, x, y + SCALE_MM * MM)


def _text_block(c: Canvas, lines: list[str], x: float, top: float, width: float) -> None:
    c.setFillColor(INK)
    c.setFont(FONT_BOLD, 11)
    c.drawCentredString(x, top, lines[0])
    y = top - 16
    for paragraph in lines[1:]:
        size, wrapped = fit_lines(paragraph, FONT, width, 60, 8, 6.5, max_lines=4)
        c.setFont(FONT, size)
        for line in wrapped:
            c.drawCentredString(x, y, line)
            y -= size * 1.3
        y -= 3


def render_calibration_pdf(paper: str, back_offset_mm: tuple[float, float] = (0.0, 0.0)) -> bytes:
    """Two pages, front and back, deterministic for the same paper and offset."""
    pw, ph = PAPERS_PT[paper]
    buf = io.BytesIO()
    c = new_canvas(buf, (pw, ph), "rove duplex calibration", f"back offset test on {paper}")
    c.setViewerPreference("PrintScaling", "None")
    page = Rect(0, 0, pw, ph)
    keep = EDGE_KEEP_MM * MM
    inner = Rect(keep, keep, pw - 2 * keep, ph - 2 * keep)
    set_boxes(c, inner, inner)
    width = pw - 2 * (INSET_MM + 15) * MM
    # Front: the crosses.
    c.setStrokeColor(INK)
    for x, y in targets(paper):
        _cross(c, x, y)
    dx, dy = back_offset_mm
    _text_block(c, [
        "Duplex calibration: front",
        "Print this sheet at actual size (100%, no 'fit to page'), double-sided, flip on long edge.",
        "Turn the sheet over and hold it against a light, back side towards you. Each cross of "
        "this side shows through next to the scales on the back.",
        f"This sheet was made with --back-offset {dx:g},{dy:g}.",
    ], pw / 2, ph / 2 + 60 * MM, width)
    c.showPage()
    # Back: the scales where the crosses land after a long-edge flip, shifted like every back.
    set_boxes(c, inner, inner)
    c.saveState()
    c.translate(dx * MM, dy * MM)
    c.setStrokeColor(INK)
    c.setFillColor(INK)
    away = SCALE_AWAY_MM * MM
    for x, y in targets(paper):
        bx = page.w - x  # long-edge flip mirrors left and right
        _scale(c, bx, y - away, horizontal=True)  # the front's vertical line crosses it: X
        _scale(c, bx + away, y, horizontal=False)  # the front's horizontal line crosses it: Y
        c.setFillColor(FAINT)
        c.setFont(FONT, 4.5)
        c.drawRightString(bx - SCALE_MM * MM - 1.5 * MM, y - away - 1 * MM, "X")
        c.drawCentredString(bx + away, y + SCALE_MM * MM + 1.5 * MM, "Y")
        c.setFillColor(INK)
    c.restoreState()
    _text_block(c, [
        "Duplex calibration: back",
        "Read where each cross of the front crosses the scales: the horizontal scale gives X, "
        "the vertical one Y (in millimetres; the five crosses should agree, take their middle).",
        f"Then make the cards with --back-offset X,Y added to the offset this sheet was made with "
        f"({dx:g},{dy:g}). Printed again with the new offset, the crosses fall on 0.",
    ], pw / 2, ph / 2 + 60 * MM, width)
    c.showPage()
    c.save()
    return buf.getvalue()
