"""Booklet imposition (``rove book --imposition booklet``): a finished PDF's pages, two a side.

A saddle-stitched booklet is a stack of sheets printed on both sides, folded in the middle
and stapled on the fold. With its page count rounded up to a multiple of four (blank pages
at the end), sheet *s* (from 0) of an *m*-page booklet carries pages *m - 2s* and *2s + 1*
on its front, left and right, and *2s + 2* and *m - 2s - 1* on its back. Printed double-sided
with a short-edge flip (the sheet is landscape), folded and nested in order, the pages run
1 to *m*.

Each page keeps its size when it fits half the sheet (A5 on A4) and is scaled down to fit
when it does not (a Letter page on half a Letter sheet: 5.5 x 8.5 in, 64.7%); it sits
against the fold, centred top to bottom. The pages are copied as they are (vector, fonts
and all), through pdfium; the output is deterministic for the same input.
"""

from __future__ import annotations

import hashlib
import io
import re

MM = 72.0 / 25.4
SHEETS: dict[str, tuple[float, float]] = {"a4": (297 * MM, 210 * MM), "letter": (792.0, 612.0)}


def booklet_order(n: int) -> list[tuple[int | None, int | None]]:
    """(left, right) page numbers (1-based; None: blank) of every sheet side, in print order:
    sheet 1 front, sheet 1 back, sheet 2 front, ..."""
    if n < 1:
        raise ValueError("a booklet needs at least one page")
    m = -(-n // 4) * 4

    def page(k: int) -> int | None:
        return k if k <= n else None

    sides: list[tuple[int | None, int | None]] = []
    for s in range(m // 4):
        sides.append((page(m - 2 * s), page(2 * s + 1)))
        sides.append((page(2 * s + 2), page(m - 2 * s - 1)))
    return sides


def impose_booklet(data: bytes, sheet: str) -> bytes:
    """The PDF ``data`` imposed as a saddle-stitch booklet on landscape ``sheet`` paper."""
    import pypdfium2 as pdfium

    sw, sh = SHEETS[sheet]
    half = sw / 2
    src = pdfium.PdfDocument(data)
    dst = pdfium.PdfDocument.new()
    try:
        sizes = [src.get_page_size(i) for i in range(len(src))]
        for left, right in booklet_order(len(src)):
            side = dst.new_page(sw, sh)
            try:
                for number, on_left in ((left, True), (right, False)):
                    if number is None:
                        continue
                    pw, ph = sizes[number - 1]
                    k = min(1.0, half / pw, sh / ph)
                    x = half - pw * k if on_left else half  # against the fold
                    y = (sh - ph * k) / 2
                    xobject = src.page_as_xobject(number - 1, dst)
                    obj = xobject.as_pageobject()
                    obj.transform(pdfium.PdfMatrix().scale(k, k).translate(x, y))
                    side.insert_obj(obj)
                side.gen_content()
            finally:
                side.close()
        out = io.BytesIO()
        dst.save(out)
        return _fixed_id(_fixed_dates(out.getvalue()))
    finally:
        dst.close()
        src.close()


_DATE = re.compile(rb"/(?:CreationDate|ModDate)\s*\(D:(\d{14})")


def _fixed_dates(data: bytes) -> bytes:
    """pdfium stamps the clock's time as the creation date; write the fixed date ReportLab's
    invariant mode uses instead (same length: no offset moves)."""
    return _DATE.sub(lambda m: m.group(0).replace(m.group(1), b"20000101000000"), data)


_ID = re.compile(rb"/ID\s*\[\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*\]")


def _fixed_id(data: bytes) -> bytes:
    """pdfium writes a random file /ID; put the content's own hash in its place (the same
    length, so no offset moves), which makes the booklet byte-identical run to run."""
    found = list(_ID.finditer(data))
    if not found:
        return data
    m = found[-1]
    a, b = m.span(1)
    c, d = m.span(2)
    blank = data[:a] + b"0" * (b - a) + data[b:c] + b"0" * (d - c) + data[d:]
    digest = hashlib.md5(blank, usedforsecurity=False).hexdigest().upper().encode("ascii")
    first, second = (digest * 4)[:b - a], (digest * 4)[:d - c]
    return data[:a] + first + data[b:c] + second + data[d:]
