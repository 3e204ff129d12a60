"""Embedded fonts and small text-fitting helpers for rove's PDFs.

The PDFs embed Bitstream Vera (shipped inside ReportLab, free licence) rather than
relying on the 14 standard PDF fonts: an embedded font prints the same on every
printer and lets text-extraction tools (and our tests) read the cards back.
Import this module only from ``rove.pdf`` code; it imports ReportLab.
"""

from __future__ import annotations

from pathlib import Path

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from ..titles import fit, wrap

FONT = "RoveSans"
FONT_BOLD = "RoveSans-Bold"
FONT_ITALIC = "RoveSans-Oblique"
FONT_BOLD_ITALIC = "RoveSans-BoldOblique"

_FILES = {
    FONT: "Vera.ttf",
    FONT_BOLD: "VeraBd.ttf",
    FONT_ITALIC: "VeraIt.ttf",
    FONT_BOLD_ITALIC: "VeraBI.ttf",
}
FONT_DIR = Path(reportlab.__file__).resolve().parent / "fonts"


def register_fonts() -> None:
    """Register the Vera family under rove's names (idempotent, cheap after the first call)."""
    registered = set(pdfmetrics.getRegisteredFontNames())
    if all(name in registered for name in _FILES):
        return
    for name, filename in _FILES.items():
        if name not in registered:
            pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / filename)))
    pdfmetrics.registerFontFamily(FONT, normal=FONT, bold=FONT_BOLD, italic=FONT_ITALIC,
                                  boldItalic=FONT_BOLD_ITALIC)


def text_width(text: str, font: str, size: float) -> float:
    return pdfmetrics.stringWidth(text, font, size)


def wrap_text(text: str, font: str, size: float, width: float) -> list[str]:
    """Greedy word wrap to ``width`` points; a single over-long word gets a line of its own."""
    return wrap(text, size, width, lambda s, z: text_width(s, font, z))


def fit_lines(
    text: str, font: str, width: float, height: float, max_size: float, min_size: float,
    leading: float = 1.2, max_lines: int = 99,
) -> tuple[float, list[str]]:
    """The largest size (in 0.25 pt steps) at which ``text`` wraps into the box.

    Returns (size, lines); when nothing fits, the smallest size is returned anyway so
    the caller always has something to draw (the tests and the visual check catch it).
    (The wrapping is rove.titles's, which also fits card titles without ReportLab.)
    """
    return fit(text, width, height, max_size, min_size, lambda s, z: text_width(s, font, z),
               leading=leading, max_lines=max_lines)


def fit_size(text: str, font: str, size: float, width: float, smallest: float) -> float:
    """The largest font size from ``size`` down to ``smallest`` at which ``text`` fits in
    ``width`` (``smallest`` when none does)."""
    w = text_width(text, font, size)
    return size if w <= width else max(smallest, size * width / w)


def clip_text(text: str, font: str, size: float, width: float) -> str:
    """``text``, cut with an ellipsis to fit ``width`` when it does not.

    A deck's name has no length limit (docs/LIMITS.md), and it is printed on the book's
    cover and on every card's stamp: the text is measured a character at a time only as
    far as the cut, so a name of 300,000 characters costs what its first line does (the
    font has no kerning: a string is as wide as its characters together)."""
    ellipsis = "\u2026"
    room = width - text_width(ellipsis, font, size)
    used, cut = 0.0, -1  # cut: the longest prefix that leaves room for the ellipsis
    for i, ch in enumerate(text):
        used += text_width(ch, font, size)
        if cut < 0 and used > room + 1e-6:
            cut = i
        if used > width + 1e-6:
            return text[:max(cut, 0)].rstrip() + ellipsis
    return text
