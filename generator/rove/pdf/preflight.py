"""Preflight: read the print files back and check them against the rules in force.

Everything is measured from the bytes that are about to be written (pdfium reads the
PDFs, Pillow the PNGs), never from the numbers the renderer meant to use:

- page sizes and boxes: every card page is the card plus its bleed, its TrimBox the card,
  its BleedBox the page; every sheet page the paper, with the boxes inside it;
- bleed: some piece of art covers the whole bleed box (so no paper shows past a cut);
- safe zone: every text line and every symbol lies inside the trim minus the safe margin,
  except art that runs on into the bleed (a band, a background, hatching: meant to be
  cut through);
- fonts: every font a text uses is embedded;
- colour: a CMYK file sets no RGB or grey colour (pypdf reads the content streams);
- images: raster images at the resolution asked at least;
- PNGs: exact pixel sizes and the resolution tag.

A problem names the card face (or file, or page), the check, where, and by how much.
"""

from __future__ import annotations

import ctypes
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import CARD_SIZES_MM, MM, PAPERS_PT, Face, face_pixels
from .printing import PrintFiles

TOL_PT = 0.01  # page and box sizes: a hundredth of a point
ART_TOL_PT = 0.05  # art reaching the bleed edge, objects inside the safe line


@dataclass(frozen=True)
class Problem:
    """One failed check: ``item`` is a card face key, a file name or ``page N``."""

    item: str
    check: str
    where: str
    detail: str
    by_mm: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"item": self.item, "check": self.check, "where": self.where, "detail": self.detail,
                "by_mm": None if self.by_mm is None else round(self.by_mm, 2)}


@dataclass
class Preflight:
    """The outcome for one job: what was checked and every problem found."""

    preset: str
    faces: int
    files: int
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def failing_items(self) -> list[str]:
        return list(dict.fromkeys(p.item for p in self.problems))

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "ok": self.ok, "faces_checked": self.faces,
                "files_checked": self.files, "problems": [p.to_json() for p in self.problems]}


def _close(a: Sequence[float], b: Sequence[float], tol: float = TOL_PT) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def _fmt_box(box: Sequence[float]) -> str:
    return "[" + " ".join(f"{v / MM:.2f}" for v in box) + "] mm"


def _text_of(obj: Any, textpage: Any) -> str:
    import pypdfium2.raw as pdfium_c

    n = pdfium_c.FPDFTextObj_GetText(obj.raw, textpage.raw, None, 0)
    if n <= 2:
        return ""
    buf = ctypes.create_string_buffer(n)
    pdfium_c.FPDFTextObj_GetText(obj.raw, textpage.raw, ctypes.cast(buf, ctypes.POINTER(ctypes.c_ushort)), n)
    return buf.raw[:n - 2].decode("utf-16-le", errors="replace")


def check_face_page(page: Any, key: str, trim: tuple[float, float, float, float],
                    bleed: tuple[float, float, float, float], safe_pt: float,
                    dpi: int, ignore_texts: frozenset[str] = frozenset()) -> list[Problem]:
    """The art, text, symbols, fonts and images of one card face whose cut line is ``trim``
    and whose art must reach ``bleed`` (x0, y0, x1, y1 in points on ``page``)."""
    import pypdfium2.raw as pdfium_c

    problems: list[Problem] = []
    safe = (trim[0] + safe_pt, trim[1] + safe_pt, trim[2] - safe_pt, trim[3] - safe_pt)
    textpage = page.get_textpage()
    covered = False
    worst: dict[tuple[str, str], tuple[float, str]] = {}  # (what, side) -> (overshoot, label)
    try:
        for obj in page.get_objects(max_depth=4):
            if obj.type == pdfium_c.FPDF_PAGEOBJ_FORM:
                continue
            left, bottom, right, top = obj.get_bounds()
            if obj.type == pdfium_c.FPDF_PAGEOBJ_TEXT:
                if pdfium_c.FPDFTextObj_GetTextRenderMode(obj.raw) == pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE:
                    continue  # the face marker, for tools: never printed
                text = _text_of(obj, textpage).strip()
                font = pdfium_c.FPDFTextObj_GetFont(obj.raw)
                if not pdfium_c.FPDFFont_GetIsEmbedded(font):
                    problems.append(Problem(key, "fonts", "text", f"font of {text!r} is not embedded"))
                if not text or text in ignore_texts:
                    continue
                what, reaches = f"text {text!r}", False
            elif obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE:
                px_w, _ = obj.get_px_size()
                width_in = (right - left) / 72
                eff = px_w / width_in if width_in > 0 else float("inf")
                if eff + 0.5 < dpi:
                    problems.append(Problem(key, "resolution", "image",
                                            f"{eff:.0f} dpi, {dpi} dpi asked"))
                what, reaches = "image", True
            else:
                if (left <= bleed[0] + ART_TOL_PT and bottom <= bleed[1] + ART_TOL_PT
                        and right >= bleed[2] - ART_TOL_PT and top >= bleed[3] - ART_TOL_PT):
                    covered = True
                what, reaches = "symbol", True
            at_edge = (left <= bleed[0] + ART_TOL_PT or bottom <= bleed[1] + ART_TOL_PT
                       or right >= bleed[2] - ART_TOL_PT or top >= bleed[3] - ART_TOL_PT)
            if reaches and at_edge:
                continue  # art that runs on into the bleed (a band, hatching): cut through by design
            sides = (("left", safe[0] - left), ("bottom", safe[1] - bottom),
                     ("right", right - safe[2]), ("top", top - safe[3]))
            for side, over in sides:
                if over <= ART_TOL_PT:
                    continue
                label = what if what != "symbol" else (
                    f"symbol at {(left - trim[0]) / MM:.1f},{(bottom - trim[1]) / MM:.1f} mm from the "
                    "card's lower left corner")
                k = (what if what != "symbol" else "symbol", side)
                if k not in worst or over > worst[k][0]:
                    worst[k] = (over, label)
    finally:
        textpage.close()
    for (_, side), (over, label) in worst.items():
        problems.append(Problem(key, "safe zone", f"{side} edge",
                                f"{label} crosses the safe line", over / MM))
    if not covered:
        problems.append(Problem(key, "bleed", "all edges",
                                "no art covers the whole bleed box: paper would show past the cut"))
    return problems


def _box(page: Any, which: str) -> tuple[float, float, float, float]:
    return tuple(getattr(page, f"get_{which}")())


def check_faces_pdf(data: bytes, faces: Sequence[Face], card: str, bleed_mm: float, safe_mm: float,
                    dpi: int, item_names: Sequence[str] | None = None,
                    ignore_texts: frozenset[str] = frozenset()) -> tuple[list[Problem], int]:
    """A one-face-a-page PDF: page count, every page's size and boxes, and its face."""
    import pypdfium2 as pdfium

    w_mm, h_mm = CARD_SIZES_MM[card]
    w, h, b = w_mm * MM, h_mm * MM, bleed_mm * MM
    want_media = (0.0, 0.0, w + 2 * b, h + 2 * b)
    want_trim = (b, b, b + w, b + h)
    problems: list[Problem] = []
    pdf = pdfium.PdfDocument(data)
    try:
        if len(pdf) != len(faces):
            problems.append(Problem("document", "pages", "whole file",
                                    f"{len(pdf)} pages for {len(faces)} card faces"))
        for i, face in enumerate(faces[:len(pdf)]):
            page = pdf[i]
            key = item_names[i] if item_names else face.key
            try:
                media, trim, bleedbox = _box(page, "mediabox"), _box(page, "trimbox"), _box(page, "bleedbox")
                if not _close(media, want_media):
                    dw = (media[2] - media[0]) - want_media[2]
                    dh = (media[3] - media[1]) - want_media[3]
                    problems.append(Problem(key, "page size", f"page {i + 1}",
                                            f"page is {_fmt_box(media)}, wants {_fmt_box(want_media)}",
                                            max(abs(dw), abs(dh)) / MM))
                if not _close(trim, want_trim):
                    problems.append(Problem(key, "trim box", f"page {i + 1}",
                                            f"TrimBox {_fmt_box(trim)}, wants {_fmt_box(want_trim)}"))
                if not _close(bleedbox, want_media):
                    problems.append(Problem(key, "bleed box", f"page {i + 1}",
                                            f"BleedBox {_fmt_box(bleedbox)}, wants the page"))
                problems += check_face_page(page, key, want_trim, want_media, safe_mm * MM, dpi,
                                            ignore_texts)
            finally:
                page.close()
    finally:
        pdf.close()
    return problems, len(faces)


EDGE_CHECK_MM = 4.5  # 5 mm kept clear, less half a millimetre for anti-aliased edges
EDGE_DPI = 100


def _ink_near_edge(page: Any) -> float | None:
    """How near the paper's edge (mm) anything is drawn, from the page rendered at 100 dpi,
    if nearer than 4.5 mm; None when that band is blank. Rendering sees what is printed,
    clipping included, which the objects' own bounds do not."""
    band = int(EDGE_CHECK_MM / 25.4 * EDGE_DPI)
    image = page.render(scale=EDGE_DPI / 72, grayscale=True).to_pil().convert("L")
    w, h = image.size
    nearest: int | None = None
    for box in ((0, 0, w, band), (0, h - band, w, h), (0, 0, band, h), (w - band, 0, w, h)):
        strip = image.crop(box)
        if strip.getextrema()[0] >= 250:
            continue
        px = strip.load()
        sw, sh = strip.size
        for y in range(sh):
            for x in range(sw):
                if px[x, y] < 250:
                    gx, gy = box[0] + x, box[1] + y
                    d = min(gx, gy, w - 1 - gx, h - 1 - gy)
                    nearest = d if nearest is None else min(nearest, d)
    return None if nearest is None else nearest / EDGE_DPI * 25.4


def check_sheets_pdf(data: bytes, paper: str, landscape: bool) -> list[Problem]:
    """Home sheets: every page the paper size, its TrimBox inside its BleedBox inside the
    page, and nothing drawn within 5 mm of the paper's edge (home printers clip there)."""
    import pypdfium2 as pdfium

    pw, ph = PAPERS_PT[paper]
    want = (0.0, 0.0, ph, pw) if landscape else (0.0, 0.0, pw, ph)
    problems: list[Problem] = []
    pdf = pdfium.PdfDocument(data)
    try:
        for i in range(len(pdf)):
            page = pdf[i]
            try:
                media, trim, bleed = _box(page, "mediabox"), _box(page, "trimbox"), _box(page, "bleedbox")
                near = _ink_near_edge(page)
            finally:
                page.close()
            where = f"page {i + 1}"
            if near is not None:
                problems.append(Problem(where, "edge", where, f"printed {near:.1f} mm from the paper's "
                                        "edge, which home printers clip; keep 5 mm clear",
                                        5.0 - near))
            if not _close(media, want):
                problems.append(Problem(where, "page size", where,
                                        f"page is {_fmt_box(media)}, wants {paper} {_fmt_box(want)}"))
            inside = (media[0] - TOL_PT <= bleed[0] <= trim[0] + TOL_PT
                      and media[1] - TOL_PT <= bleed[1] <= trim[1] + TOL_PT
                      and trim[2] - TOL_PT <= bleed[2] <= media[2] + TOL_PT
                      and trim[3] - TOL_PT <= bleed[3] <= media[3] + TOL_PT)
            if not inside or _close(trim, media):
                problems.append(Problem(where, "boxes", where, f"TrimBox {_fmt_box(trim)} and BleedBox "
                                        f"{_fmt_box(bleed)} are not nested inside the page"))
    finally:
        pdf.close()
    return problems


_NOT_CMYK = {b"rg": "RGB fill", b"RG": "RGB stroke", b"g": "grey fill", b"G": "grey stroke"}


def check_cmyk(data: bytes, items: Sequence[str]) -> list[Problem]:
    """Every page's content stream sets colours in CMYK only (``k``/``K``), for services
    that print from CMYK files; ``items`` name the pages."""
    from pypdf import PdfReader

    problems: list[Problem] = []
    for i, page in enumerate(PdfReader(io.BytesIO(data)).pages):
        content = page.get_contents()
        ops = {op for _, op in content.operations} if content is not None else set()
        found = sorted(_NOT_CMYK[op] for op in ops if op in _NOT_CMYK)
        if found:
            item = items[i] if i < len(items) else f"page {i + 1}"
            problems.append(Problem(item, "colour", f"page {i + 1}",
                                    f"{', '.join(found)} in a CMYK file"))
    return problems


def check_png(name: str, data: bytes, size: tuple[int, int], dpi: int) -> list[Problem]:
    """A PNG's pixel size, exactly, and its resolution tag."""
    from PIL import Image

    problems: list[Problem] = []
    with Image.open(io.BytesIO(data)) as im:
        if im.format != "PNG":
            problems.append(Problem(name, "format", "file", f"{im.format}, not PNG"))
        if im.size != size:
            problems.append(Problem(name, "pixel size", "image",
                                    f"{im.size[0]} x {im.size[1]} px, wants {size[0]} x {size[1]} px",
                                    max(abs(im.size[0] - size[0]), abs(im.size[1] - size[1])) / dpi * 25.4))
        tag = im.info.get("dpi")
        if tag is None or any(abs(float(v) - dpi) > 0.5 for v in tag):
            problems.append(Problem(name, "resolution", "image",
                                    f"tagged {'no dpi' if tag is None else f'{float(tag[0]):.0f} dpi'}, "
                                    f"wants {dpi} dpi"))
    return problems


def run_preflight(files: PrintFiles) -> Preflight:
    """Every check for the job's output shape, on the files in memory."""
    job, opts = files.job, files.job.opts
    ignore = frozenset([opts.stamp]) if opts.stamp else frozenset()
    result = Preflight(job.preset.name, len(files.faces), 0)
    problems, _ = check_faces_pdf(files.faces_pdf, files.faces, opts.card, opts.bleed_mm,
                                  opts.safe_mm, opts.dpi, ignore_texts=ignore)
    result.problems += problems
    if opts.color == "cmyk":
        result.problems += check_cmyk(files.faces_pdf, [f.key for f in files.faces])
        if job.shape == "sheets" and files.pdf is not None:
            result.problems += check_cmyk(files.pdf, [])
    if job.shape == "sheets":
        assert files.pdf is not None
        result.files = 1
        result.problems += check_sheets_pdf(files.pdf, opts.paper, opts.layout == "gutterfold")
    elif job.shape == "card-pdf":
        result.files = 1
    elif job.shape == "png":
        size = face_pixels(opts)
        for name, data in files.files.items():
            result.problems += check_png(name, data, size, opts.dpi)
        result.files = len(files.files)
    else:  # tts
        cw, ch = face_pixels(opts)
        for sheet in files.tts_sheets:
            cols, rows = sheet["cols"], sheet["rows"]
            if cols > 10 or rows > 7 or sheet["cards"] >= cols * rows:
                result.problems.append(Problem(sheet["fronts"], "grid", "sheet",
                                               f"{cols} x {rows} cells for {sheet['cards']} cards and "
                                               "the hidden card; at most 10 x 7"))
            for side in ("fronts", "backs"):
                result.problems += check_png(sheet[side], files.files[sheet[side]],
                                             (cols * cw, rows * ch), opts.dpi)
        result.files = len(files.files)
    return result


def preflight_lines(result: Preflight) -> list[str]:
    """The report as text: one table per failing item (check, where, what, by how much)."""
    if result.ok:
        return [f"preflight {result.preset}: ok ({result.faces} card faces, "
                f"{result.files} file{'s' if result.files != 1 else ''} checked)"]
    items = result.failing_items()
    lines = [f"preflight {result.preset}: {len(result.problems)} problem"
             f"{'s' if len(result.problems) != 1 else ''} on {len(items)} "
             f"item{'s' if len(items) != 1 else ''}; nothing written"]
    for item in items:
        rows = [p for p in result.problems if p.item == item]
        lines.append("")
        lines.append(item)
        w1 = max(len(p.check) for p in rows)
        w2 = max(len(p.where) for p in rows)
        for p in rows:
            by = "" if p.by_mm is None else f"  by {p.by_mm:.2f} mm"
            lines.append(f"  {p.check:<{w1}}  {p.where:<{w2}}  {p.detail}{by}")
    return lines
