"""Booklet imposition: saddle-stitch page order, blanks to a multiple of four, read back from the PDF."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from reportlab.pdfgen.canvas import Canvas

from rove.pdf.impose import SHEETS, booklet_order, impose_booklet

MM = 72 / 25.4
A5 = (148 * MM, 210 * MM)


def numbered_pdf(n: int, size: tuple[float, float] = A5) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=size, invariant=1)
    for i in range(1, n + 1):
        c.setFont("Helvetica", 20)
        c.drawString(40, size[1] / 2, f"p{i:02d}")
        c.showPage()
    c.save()
    return buf.getvalue()


def sides_read_back(data: bytes) -> list[tuple[int | None, int | None]]:
    """(left, right) page numbers on every side, from the text pdfium finds in each half
    (pdfium places the pages' form objects where they are drawn; pypdf does not)."""
    import pypdfium2 as pdfium

    def number(text: str) -> int | None:
        words = [w for w in text.split() if w.startswith("p") and w[1:].isdigit()]
        assert len(words) <= 1, words
        return int(words[0][1:]) if words else None

    out = []
    pdf = pdfium.PdfDocument(data)
    for i in range(len(pdf)):
        page = pdf[i]
        w, h = page.get_size()
        text = page.get_textpage()
        out.append((number(text.get_text_bounded(0, 0, w / 2, h)),
                    number(text.get_text_bounded(w / 2, 0, w, h))))
    return out


def saddle_stitch(n: int) -> list[tuple[int | None, int | None]]:
    """The expected order, spelled out: fold the stack and the pages run 1..m."""
    m = (n + 3) // 4 * 4
    sides = []
    lo, hi = 1, m
    while lo < hi:
        sides.append((hi, lo))  # front of a sheet: last and first page
        sides.append((lo + 1, hi - 1))  # its back: second and second-to-last
        lo, hi = lo + 2, hi - 2
    return [(a if a <= n else None, b if b <= n else None) for a, b in sides]


@pytest.mark.parametrize("n", [4, 8, 30])
def test_page_order_for_4_8_and_30_pages(n: int) -> None:
    data = impose_booklet(numbered_pdf(n), "a4")
    sides = sides_read_back(data)
    assert sides == saddle_stitch(n) == booklet_order(n)
    m = (n + 3) // 4 * 4
    assert len(sides) == m // 2  # two pages a side, blanks included
    for left, right in sides:  # the two pages of a side always add up to m + 1
        assert (left or m + 1 - (right or 0)) + (right or m + 1 - (left or 0)) == m + 1
    shown = sorted(p for side in sides for p in side if p is not None)
    assert shown == list(range(1, n + 1))


def test_thirty_pages_get_two_blanks_at_the_end() -> None:
    order = booklet_order(30)
    assert order[0] == (None, 1) and order[1] == (2, None)  # pages 31 and 32 are blank
    assert len(order) == 16


def test_a5_pages_sit_two_to_a_landscape_a4_at_full_size() -> None:
    pdf = PdfReader(io.BytesIO(impose_booklet(numbered_pdf(8), "a4")))
    for page in pdf.pages:
        assert float(page.mediabox.width) == pytest.approx(SHEETS["a4"][0], abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(SHEETS["a4"][1], abs=0.01)
    letter = PdfReader(io.BytesIO(impose_booklet(numbered_pdf(4, (612, 792)), "letter")))
    assert float(letter.pages[0].mediabox.width) == pytest.approx(792, abs=0.01)


def test_booklet_is_byte_identical_run_to_run() -> None:
    src = numbered_pdf(8)
    a = impose_booklet(src, "a4")
    assert a == impose_booklet(src, "a4")
    assert b"20000101000000" in a


def test_book_refuses_an_unknown_imposition() -> None:
    from typer.testing import CliRunner

    from rove.cli import app

    result = CliRunner().invoke(app, ["book", "--imposition", "quarto"])
    assert result.exit_code == 2 and "use none or booklet" in result.output


def test_book_imposition_booklet_writes_the_imposed_book(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from rove.cli import app

    flat, booklet = tmp_path / "flat.pdf", tmp_path / "booklet.pdf"
    for path, extra in ((flat, []), (booklet, ["--imposition", "booklet"])):
        result = CliRunner().invoke(app, ["book", "--spec", "classic",
                                          "--count", "2", "--seed", "3", "-o", str(path), *extra])
        assert result.exit_code == 0, result.output
    pages = len(PdfReader(flat).pages)
    assert len(PdfReader(booklet).pages) == (pages + 3) // 4 * 2
    assert booklet.read_bytes() == impose_booklet(flat.read_bytes(), "a4")
