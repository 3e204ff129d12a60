"""Print that reads: no visible text under 6 pt (``MIN_TEXT``) on a card sheet of any PDF
preset or on any page of a book (diagram rulers, module letters, deck stamps included),
read back from the PDFs: pypdf's text visitor gives each run's font size and matrices,
and the size on paper is the font size times the text and page matrices' scale."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.cli import app
from rove.pdf.glyphs import MIN_TEXT

runner = CliRunner()
#: the invisible face markers (text render mode 3, never printed) that tools find cards by
INVISIBLE = "rove-face:"


def small_text(data: bytes) -> list[tuple[int, float, str]]:
    """(page, size on paper, text) of every visible run under MIN_TEXT."""
    out: list[tuple[int, float, str]] = []
    for n, page in enumerate(PdfReader(io.BytesIO(data)).pages, 1):
        def visit(text: str, cm: list[float], tm: list[float], font: object, size: float,
                  n: int = n) -> None:
            if not text.strip() or text.startswith(INVISIBLE):
                return
            scale = math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1])
            if size * scale < MIN_TEXT - 1e-6:
                out.append((n, round(size * scale, 2), text.strip()[:30]))
        page.extract_text(visitor_text=visit)
    return out


@pytest.mark.parametrize("preset", ["home-a4", "home-letter", "drivethrucards"])
def test_card_sheets_print_nothing_under_6_pt(preset: str, tmp_path: Path) -> None:
    out = tmp_path / "cards.pdf"
    result = runner.invoke(app, ["cards", "standard", "--preset", preset, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert small_text(out.read_bytes()) == []


def test_book_pages_print_nothing_under_6_pt(tmp_path: Path) -> None:
    """Every kind's page, the hints' halfway diagrams and the solutions' layouts."""
    out = tmp_path / "book.pdf"
    result = runner.invoke(app, ["book", "--spec", "classic", "--count", "4", "--mix",
                                 "mission:50,hand:25,deal:25", "--seed", "5", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert small_text(out.read_bytes()) == []


def test_the_reader_sees_small_text() -> None:
    """The check itself: a page with a 5 pt line is caught, scaled text counted as printed."""
    from reportlab.pdfgen.canvas import Canvas

    buf = io.BytesIO()
    c = Canvas(buf)
    c.setFont("Helvetica", 10)
    c.drawString(50, 700, "ten points")
    c.saveState()
    c.scale(0.5, 0.5)
    c.drawString(100, 100, "five points on paper")
    c.restoreState()
    c.save()
    assert [(s, t) for _, s, t in small_text(buf.getvalue())] == [(5.0, "five points on paper")]
