"""Print-and-play card PDFs: geometry, faces, duplex/gutterfold alignment, marks, determinism.

The PDFs are read back with pypdf. Each card face carries an invisible ``rove-face:KEY``
text at its trim corner, so positions are checked from the PDF itself, not only from the
layout function; rectangles and crop-mark lines come from the content stream operators
(with pypdf's current transformation matrix applied).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from functools import cache
from pathlib import Path

import pytest
from pypdf import PdfReader
from reportlab.pdfbase.pdfmetrics import stringWidth

from rove.pdf.cards import (
    MM,
    CardOptions,
    Rect,
    SheetPage,
    card_faces,
    card_size_pt,
    crop_mark_segments,
    plan_pages,
    registration_note,
    render_cards_pdf,
    render_faces_pdf,
    write_card_pngs,
)
from rove.pdf.fonts import FONT, FONT_BOLD, FONT_ITALIC
from rove.spec import Spec, load_spec

TOL = 0.1 * MM  # 0.1 mm, in points
FONT_BY_BASE = {"VeraSans-Roman": FONT, "VeraSans-Bold": FONT_BOLD,
                "VeraSans-Oblique": FONT_ITALIC, "VeraSans-BoldOblique": "RoveSans-BoldOblique"}
A4 = (210 * MM, 297 * MM)
LETTER = (612.0, 792.0)


@cache
def classic() -> Spec:
    return load_spec("classic")


@cache
def pdf_bytes(paper: str = "a4", layout: str = "duplex", bleed: float = 0.0,
              card: str = "poker") -> bytes:
    return render_cards_pdf(classic(), CardOptions(paper, layout, bleed, card))


@cache
def reader(paper: str = "a4", layout: str = "duplex", bleed: float = 0.0,
           card: str = "poker") -> PdfReader:
    return PdfReader(io.BytesIO(pdf_bytes(paper, layout, bleed, card)))


def _apply(m: list[float], x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _mul(a: list[float], b: list[float]) -> list[float]:
    """a then b, PDF matrix order."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


class PageScan:
    """What one PDF page draws: face markers, other text, rectangles and line segments."""

    def __init__(self, page) -> None:  # type: ignore[no-untyped-def]
        self.marks: dict[str, tuple[float, float]] = {}
        self.texts: list[tuple[str, float, float, float]] = []  # text, x, y, x where it ends
        self.spaced: list[str] = []  # texts drawn with extra character spacing (Tc)
        tc: list[float] = [0.0]  # character spacing, saved and restored with q / Q
        self.rects: list[Rect] = []
        self.clips: list[Rect] = []  # rectangles used as clipping paths ('re W n')
        self.fills: list[Rect] = []  # rectangles painted ('re f')
        self.segments: list[tuple[float, float, float, float]] = []
        point: list[tuple[float, float] | None] = [None]
        last: list[bytes] = [b""]

        def before(op: bytes, args: list, cm: list[float], tm: list[float]) -> None:  # type: ignore[type-arg]
            vals = [float(a) for a in args] if op in (b"re", b"m", b"l") else []
            if op in (b"W", b"W*") and last[0] == b"re":
                self.clips.append(self.rects[-1])
            if op in (b"f", b"f*", b"B", b"B*") and last[0] == b"re":
                self.fills.append(self.rects[-1])
            last[0] = op
            if op == b"q":
                tc.append(tc[-1])
            elif op == b"Q":
                tc.pop()
            elif op == b"Tc":
                tc[-1] = float(args[0])
            if op == b"re":
                x0, y0 = _apply(cm, vals[0], vals[1])
                x1, y1 = _apply(cm, vals[0] + vals[2], vals[1] + vals[3])
                self.rects.append(Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)))
            elif op == b"m":
                point[0] = _apply(cm, vals[0], vals[1])
            elif op == b"l":
                end = _apply(cm, vals[0], vals[1])
                if point[0] is not None:
                    self.segments.append((*point[0], *end))
                point[0] = end

        def text(t: str, cm: list[float], tm: list[float], font: dict, size: float) -> None:  # type: ignore[type-arg]
            if not t.strip():
                return
            m = _mul(tm, cm)
            x, y = _apply(m, 0, 0)
            if t.startswith("rove-face:"):
                self.marks[t.removeprefix("rove-face:").strip()] = (x, y)
            else:
                base = str(font["/BaseFont"])
                name = FONT_BY_BASE[next(k for k in FONT_BY_BASE if base.endswith(k))]
                end = x + stringWidth(t.strip(), name, size * m[0]) if m[1] == 0 else x
                self.texts.append((t, x, y, end))
                if tc[-1]:
                    self.spaced.append(t.strip())

        self.text = page.extract_text(visitor_operand_before=before, visitor_text=text)


@cache
def scans(paper: str = "a4", layout: str = "duplex", bleed: float = 0.0,
          card: str = "poker") -> tuple[PageScan, ...]:
    return tuple(PageScan(p) for p in reader(paper, layout, bleed, card).pages)


def close(a: float, b: float, tol: float = TOL) -> bool:
    return abs(a - b) <= tol


def inside(r: Rect, x: float, y: float, slack: float = 0.01) -> bool:
    return r.x - slack <= x <= r.right + slack and r.y - slack <= y <= r.top + slack


# --------------------------------------------------------------------------- layout function


def test_card_sizes_in_points() -> None:
    assert card_size_pt("poker") == pytest.approx((180.0, 252.0), abs=1e-9)
    assert card_size_pt("bridge") == pytest.approx((162.0, 252.0), abs=1e-9)
    assert card_size_pt("mini") == pytest.approx((126.0, 180.0), abs=1e-9)


def test_default_is_nine_poker_cards_centred_on_a4() -> None:
    pages = plan_pages(classic(), CardOptions())
    first = pages[0]
    assert (first.width, first.height) == pytest.approx(A4)
    assert (first.cols, first.rows) == (3, 3)
    assert len(first.placements) == 9
    for pl in first.placements:
        assert (pl.trim.w, pl.trim.h) == pytest.approx((180.0, 252.0))
        assert pl.bleed == pl.trim
    # 3 x 63.5 mm across 210 mm leaves 9.75 mm each side; 3 x 88.9 mm down 297 mm, 15.15 mm.
    by_pos = {(pl.row, pl.col): pl.trim for pl in first.placements}
    assert close(by_pos[(0, 0)].x, 9.75 * MM)
    assert close(by_pos[(0, 0)].top, (297 - 15.15) * MM)
    assert close(by_pos[(2, 2)].right, (210 - 9.75) * MM)
    assert close(by_pos[(2, 2)].y, 15.15 * MM)
    assert close(by_pos[(1, 1)].x - by_pos[(1, 0)].x, 63.5 * MM)


def test_every_face_is_placed_once() -> None:
    spec = classic()
    keys = [pl.face.key for page in plan_pages(spec, CardOptions()) for pl in page.placements]
    expected = {f.key for pair in card_faces(spec) for f in pair}
    assert len(expected) == 2 * (len(spec.modules) + len(spec.cards)) == 36
    assert sorted(keys) == sorted(expected)
    assert "module-brain-active" in expected and "card-c01-mission" in expected


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("card", ["poker", "bridge", "mini"])
@pytest.mark.parametrize("layout", ["duplex", "gutterfold"])
@pytest.mark.parametrize("bleed", [0.0, 3.0])
def test_cards_fit_on_the_page_without_overlap(paper: str, card: str, layout: str,
                                               bleed: float) -> None:
    for page in plan_pages(classic(), CardOptions(paper, layout, bleed, card)):
        boxes = [pl.bleed for pl in page.placements]
        for pl in page.placements:
            assert (pl.trim.w, pl.trim.h) == pytest.approx(card_size_pt(card))
            b, t = pl.bleed, pl.trim
            # Each side has the full bleed, or none where it butts on a neighbour (shared bleed).
            for outer, inner, sign in ((b.x, t.x, -1), (b.y, t.y, -1), (b.right, t.right, 1),
                                       (b.top, t.top, 1)):
                assert close(outer, inner) or close(outer, inner + sign * bleed * MM)
                if close(outer, inner) and bleed:
                    assert any(o is not pl and (o.trim.x < (t.x + t.right) / 2 + sign * t.w < o.trim.right
                                                or o.trim.y < (t.y + t.top) / 2 + sign * t.h < o.trim.top)
                               for o in page.placements)
            # Nothing within 5 mm of the paper's edge, which home printers clip.
            assert b.x >= 5 * MM - 1e-6 and b.y >= 5 * MM - 1e-6
            assert b.right <= page.width - 5 * MM + 1e-6 and b.top <= page.height - 5 * MM + 1e-6
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                overlap_x = min(a.right, b.right) - max(a.x, b.x)
                overlap_y = min(a.top, b.top) - max(a.y, b.y)
                assert overlap_x <= 1e-6 or overlap_y <= 1e-6


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_grid_sizes_per_card_size(paper: str) -> None:
    def shape(card: str, bleed: float = 0.0) -> tuple[int, int]:
        page = plan_pages(classic(), CardOptions(paper, "fronts", bleed, card))[0]
        return page.cols, page.rows

    assert shape("poker") == (3, 3)
    assert shape("bridge") == (3, 3)
    cols, rows = shape("mini")
    assert cols * rows >= 12 and cols >= 4 and rows >= 3
    # A bleed that no longer lets 3x3 fit inside the 4 mm margin drops a row or column.
    assert shape("poker", 3.0)[0] * shape("poker", 3.0)[1] < 9


# --------------------------------------------------------------------------- pages and positions


PAGES = {"duplex": 4, "fronts": 2, "gutterfold": 5}  # 18 cards: 9 a sheet, or 4 a fold page


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("layout", ["duplex", "gutterfold", "fronts"])
def test_page_count_and_size(paper: str, layout: str) -> None:
    pdf = reader(paper, layout)
    assert len(pdf.pages) == PAGES[layout]
    w, h = A4 if paper == "a4" else LETTER
    if layout == "gutterfold":
        w, h = h, w  # landscape
    for page in pdf.pages:
        assert float(page.mediabox.width) == pytest.approx(w, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(h, abs=0.01)


@pytest.mark.parametrize(("paper", "layout", "bleed", "card"), [
    ("a4", "duplex", 0.0, "poker"),
    ("letter", "duplex", 0.0, "poker"),
    ("a4", "gutterfold", 0.0, "poker"),
    ("letter", "fronts", 2.0, "bridge"),
    ("a4", "duplex", 3.0, "mini"),
])
def test_pdf_card_boxes_match_the_layout(paper: str, layout: str, bleed: float, card: str) -> None:
    plan = plan_pages(classic(), CardOptions(paper, layout, bleed, card))
    pages = scans(paper, layout, bleed, card)
    assert len(plan) == len(pages)
    for planned, scan in zip(plan, pages, strict=True):
        assert set(scan.marks) == {pl.face.key for pl in planned.placements}
        for pl in planned.placements:
            x, y = scan.marks[pl.face.key]
            assert close(x, pl.trim.x) and close(y, pl.trim.y), pl.face.key
            # The art is clipped to the bleed box (the trim box itself when there is no bleed).
            assert any(close(r.x, pl.bleed.x) and close(r.y, pl.bleed.y) and close(r.w, pl.bleed.w)
                       and close(r.h, pl.bleed.h) for r in scan.clips), pl.face.key
        assert len(scan.clips) == len(planned.placements)


def test_every_card_title_is_in_the_pdf() -> None:
    spec = classic()
    for layout in ("duplex", "gutterfold", "fronts"):
        text = " ".join(" ".join(s.text.split()) for s in scans("a4", layout))
        for m in spec.modules:
            assert m.name in text
        for c in spec.cards:
            assert c.mission.title in text
    duplex = " ".join(s.text for s in scans())
    assert "SPENT" in duplex and "BONUS" in duplex and "MOVEMENT" in duplex
    fronts = " ".join(s.text for s in scans("a4", "fronts"))
    assert "SPENT" not in fronts and "BONUS" not in fronts


def test_ability_texts_are_printed() -> None:
    text = " ".join(" ".join(s.text.split()) for s in scans())
    for phrase in ("Move another module to a cell next to Brain.",
                   "Move Coil to any cell where the group stays whole.",
                   "Use the ability of a module next to Gripper (even a spent one).",
                   "Swap any two modules.", "Shift any module one cell in any direction.",
                   "Draw a card if you hold fewer than 5."):
        assert phrase in text


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_duplex_backs_land_behind_fronts(paper: str) -> None:
    plan = plan_pages(classic(), CardOptions(paper, "duplex"))
    pages = scans(paper, "duplex")
    back_of = {f.key: b.key for f, b in card_faces(classic())}
    assert [p.role for p in plan] == ["front", "back"] * (len(plan) // 2)
    for i in range(0, len(plan), 2):
        front, back = plan[i], plan[i + 1]
        back_pos = {pl.face.key: (pl.row, pl.col) for pl in back.placements}
        assert set(back_pos) == {back_of[pl.face.key] for pl in front.placements}
        for pl in front.placements:
            bkey = back_of[pl.face.key]
            assert back_pos[bkey] == (pl.row, front.cols - 1 - pl.col)
            # Read back from the PDF: mirrored left-right about the page's centre, same height.
            fx, fy = pages[i].marks[pl.face.key]
            bx, by = pages[i + 1].marks[bkey]
            assert close(bx, front.width - fx - pl.trim.w), bkey
            assert close(by, fy), bkey


def test_gutterfold_backs_mirror_fronts_across_the_fold() -> None:
    plan = plan_pages(classic(), CardOptions("a4", "gutterfold"))
    back_of = {f.key: b.key for f, b in card_faces(classic())}
    for planned, scan in zip(plan, scans("a4", "gutterfold"), strict=True):
        fold = planned.fold_x
        assert fold is not None and close(fold, planned.width / 2)
        fronts = [pl for pl in planned.placements if pl.face.key in back_of]
        assert 0 < len(fronts) <= 4 and len(planned.placements) == 2 * len(fronts)
        for pl in fronts:
            fx, fy = scan.marks[pl.face.key]
            bx, by = scan.marks[back_of[pl.face.key]]
            assert fx + pl.trim.w <= fold - 4 * MM + TOL  # fronts on the left half
            assert bx >= fold + 4 * MM - TOL  # backs on the right half
            assert close(bx, 2 * fold - fx - pl.trim.w) and close(by, fy)
        # The fold line is drawn down the middle of the page.
        assert any(close(x1, fold) and close(x2, fold) and abs(y2 - y1) > planned.height / 3
                   for x1, y1, x2, y2 in scan.segments)
    assert "Fold on the dashed line" in " ".join(scans("a4", "gutterfold")[0].text.split())


def test_fronts_layout_has_only_fronts() -> None:
    keys = [k for s in scans("a4", "fronts") for k in s.marks]
    fronts = [f.key for f, _ in card_faces(classic())]
    assert sorted(keys) == sorted(fronts)
    assert not any(k.endswith(("-spent", "-movement")) for k in keys)


# --------------------------------------------------------------------------- crop marks and note


def _margin_segments(planned: SheetPage, scan: PageScan) -> list[tuple[float, float, float, float]]:
    """Line segments entirely outside the card grid (crop marks, and a fold line if any)."""
    a = planned.area
    out = []
    for seg in scan.segments:
        x1, y1, x2, y2 = seg
        if planned.fold_x is not None and close(x1, planned.fold_x) and close(x2, planned.fold_x):
            continue
        if (max(y1, y2) <= a.y + 1e-6 or min(y1, y2) >= a.top - 1e-6
                or max(x1, x2) <= a.x + 1e-6 or min(x1, x2) >= a.right - 1e-6):
            out.append(seg)
    return out


@pytest.mark.parametrize("layout", ["duplex", "gutterfold"])
@pytest.mark.parametrize("bleed", [0.0, 3.0])
def test_crop_marks_sit_on_the_trim_lines_on_every_page(layout: str, bleed: float) -> None:
    plan = plan_pages(classic(), CardOptions("a4", layout, bleed))
    # Every page has the marks of the full grid (the last page may be part-filled).
    trims = [pl.trim for page in plan for pl in page.placements]
    trim_xs = {round(v, 2) for t in trims for v in (t.x, t.right)}
    trim_ys = {round(v, 2) for t in trims for v in (t.y, t.top)}
    for planned, scan in zip(plan, scans("a4", layout, bleed), strict=True):
        marks = _margin_segments(planned, scan)
        vertical = [s for s in marks if close(s[0], s[2])]
        horizontal = [s for s in marks if close(s[1], s[3])]
        assert len(vertical) + len(horizontal) == len(marks) > 0
        # Every trim line of every card has a mark above and below (or left and right) ...
        for x in trim_xs:
            assert sum(close(s[0], x) for s in vertical) >= 2, x
        for y in trim_ys:
            assert sum(close(s[1], y) for s in horizontal) >= 2, y
        # ... each mark is on a trim line, never on a bleed edge, and outside every card's art.
        for s in vertical:
            assert any(close(s[0], x) for x in trim_xs)
        for s in horizontal:
            assert any(close(s[1], y) for y in trim_ys)
        for x1, y1, x2, y2 in marks:
            for pl in planned.placements:
                b = pl.bleed
                assert not (b.x < (x1 + x2) / 2 < b.right and b.y < (y1 + y2) / 2 < b.top)
        assert len(marks) == len(crop_mark_segments(planned))
        if bleed:
            bleed_xs = {round(v, 2) for page in plan for pl in page.placements
                        for v in (pl.bleed.x, pl.bleed.right)} - trim_xs
            assert bleed_xs and not any(close(s[0], x) for s in vertical for x in bleed_xs)
        # Every mark ends at least 5 mm from the paper's edge.
        for x1, y1, x2, y2 in marks:
            for x, y in ((x1, y1), (x2, y2)):
                assert 5 * MM - 0.01 <= x <= planned.width - 5 * MM + 0.01
                assert 5 * MM - 0.01 <= y <= planned.height - 5 * MM + 0.01


def test_bleed_moves_the_art_past_the_trim() -> None:
    plain = scans("a4", "duplex", 0.0)[0]
    bled = scans("a4", "duplex", 3.0)[0]
    plan = plan_pages(classic(), CardOptions(bleed_mm=3.0))[0]
    assert any(pl.bleed != pl.trim.grown(3 * MM) for pl in plan.placements)  # 2x3 shares bleed
    for pl in plan.placements:
        grown = pl.trim.grown(3 * MM)
        # The card background is painted over the whole bleed box (clipped where shared).
        assert any(close(r.x, grown.x) and close(r.w, grown.w) and close(r.h, grown.h)
                   and close(r.y, grown.y) for r in bled.fills)
    # With no bleed there is a hairline cut outline at the trim; with bleed there is none.
    assert len(plain.rects) > 0
    x0 = min(x for x, _ in plain.marks.values())
    assert close(x0, 9.75 * MM)


def test_registration_note_on_the_first_page_only() -> None:
    pages = scans("a4", "duplex")
    first = " ".join(pages[0].text.split())
    assert "100%" in first and "flip on long edge" in first and "63.5 × 88.9 mm" in first
    assert all("100%" not in p.text for p in pages[1:])
    assert "100%" in registration_note(CardOptions(layout="fronts"))
    assert "bleed" in registration_note(CardOptions(bleed_mm=3))


@pytest.mark.parametrize(("paper", "layout", "bleed"), [
    ("a4", "duplex", 0.0), ("letter", "duplex", 0.0), ("a4", "duplex", 3.0),
    ("letter", "gutterfold", 0.0),
])
def test_note_and_card_text_stay_where_they_belong(paper: str, layout: str, bleed: float) -> None:
    planned = plan_pages(classic(), CardOptions(paper, layout, bleed))[0]
    scan = scans(paper, layout, bleed)[0]
    trims = [pl.trim for pl in planned.placements]
    note_words = set(registration_note(CardOptions(paper, layout, bleed)).split())
    for t, x, y, _end in scan.texts:
        on_card = [r for r in trims if inside(r, x, y)]
        if on_card:
            continue
        # Text off the cards is the note (or the fold label), inside the paper and clear of
        # the card area by more than the crop marks' reach.
        assert set(t.split()) <= note_words | {"fold"}, t
        assert 0 < x < planned.width and 0 < y < planned.height
        assert not inside(planned.area, x, y)


@pytest.mark.parametrize(("layout", "card"), [("duplex", "poker"), ("duplex", "mini"),
                                               ("gutterfold", "bridge")])
def test_card_text_does_not_overflow_its_card(layout: str, card: str) -> None:
    plan = plan_pages(classic(), CardOptions("a4", layout, 0.0, card))
    for planned, scan in zip(plan, scans("a4", layout, 0.0, card), strict=True):
        trims = [pl.trim for pl in planned.placements]
        for t, x, y, end in scan.texts:
            home = [r for r in trims if inside(r, x, y)]
            if home:
                assert end <= home[0].right - 2 * MM, (t, card)  # 2 mm clear of the cut
                assert x >= home[0].x + 2 * MM, (t, card)
        # Letter-spacing is for the side labels only (it is state that can leak to later text).
        assert set(scan.spaced) <= {"MISSION", "MOVEMENT"}


# --------------------------------------------------------------------------- faces


CUSTOM = """\
format: rove-spec/1
name: Odd deck
missions_to_win: 1
modules:
  - id: alpha
    code: A
    name: Alpha
    ability: motor
    arrows: [{kind: jump, dirs: [all]}, {kind: standard, dirs: [N]}]
    spent_arrows: [{kind: short, dirs: [N]}]
  - id: beta
    code: B
    name: Beta
    ability: laser
    arrows: [{kind: push, dirs: [orthogonal]}]
cards:
  - id: x1
    mission:
      title: The Very Long Expedition Across the Northern Ice Field
      pattern: |
        A B
    movement:
      points: 1
      bonus: 9
      pattern: |
        A _
        . B
"""


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory) -> Spec:
    path = tmp_path_factory.mktemp("spec") / "odd.yaml"
    path.write_text(CUSTOM)
    return load_spec(str(path))


def _face_texts(spec: Spec) -> dict[str, str]:
    data, faces = render_faces_pdf(spec, CardOptions())
    pages = PdfReader(io.BytesIO(data)).pages
    return {f.key: " ".join(p.extract_text().split()) for f, p in zip(faces, pages, strict=True)}


def test_spent_side_uses_the_specs_spent_arrows(custom: Spec) -> None:
    texts = _face_texts(custom)
    active, spent = texts["module-alpha-active"], texts["module-alpha-spent"]
    assert "jump: hop over modules" in active and "standard: any distance" in active
    assert "short: 1 cell" in spent and "jump" not in spent
    assert "SPENT" in spent and "SPENT" not in active
    # Beta has no spent_arrows: its spent side repeats the active arrows.
    assert "push: 1 cell, pushes the row" in texts["module-beta-spent"]


def test_long_titles_wrap_inside_the_card(custom: Spec) -> None:
    data, faces = render_faces_pdf(custom, CardOptions())
    page = PdfReader(io.BytesIO(data)).pages[[f.key for f in faces].index("card-x1-mission")]
    scan = PageScan(page)
    assert "The Very Long Expedition Across the Northern Ice Field" in " ".join(scan.text.split())
    for t, x, y, end in scan.texts:
        assert 0 <= x <= end <= 180 and 0 <= y <= 252, t
    movement = _face_texts(custom)["card-x1-movement"]
    assert "9" in movement.split() and "BONUS" in movement


# --------------------------------------------------------------------------- titles and fonts


def test_the_title_table_is_the_card_fonts_own_data() -> None:
    """rove.titles (which validation uses without ReportLab) holds what the font files say:
    the characters every face draws, and the bold face's widths, to the last bit."""
    import random
    import unicodedata

    from reportlab.pdfbase import pdfmetrics

    from rove.pdf.fonts import FONT_BOLD_ITALIC, register_fonts
    from rove.titles import DRAWABLE, TITLE_FONT, title_width

    register_fonts()
    assert TITLE_FONT == FONT_BOLD
    faces = [pdfmetrics.getFont(name).face for name in (FONT, FONT_BOLD, FONT_ITALIC, FONT_BOLD_ITALIC)]
    drawn = set.intersection(*({cp for cp, glyph in f.charToGlyph.items() if glyph} for f in faces))
    assert DRAWABLE == {cp for cp in drawn if not unicodedata.category(chr(cp)).startswith("C")}
    chars = sorted(map(chr, DRAWABLE))
    rng = random.Random(16)
    for text in [*chars, "".join(chars), "Cross the Crevasse", *("".join(rng.choices(chars, k=rng.randint(0, 70)))
                                                                  for _ in range(500))]:
        for size in (7.3, 8, 8.25, 9, 10, 12, 14.75, 15, 17):
            assert title_width(text, size) == stringWidth(text, FONT_BOLD, size), (text, size)


def test_validation_refuses_what_the_card_fonts_cannot_draw() -> None:
    from rove.titles import DRAWABLE, undrawable_chars

    latin1 = {*range(0x20, 0x7F), *range(0xA0, 0x100)} - {0xAD}  # the soft hyphen is a format char
    assert latin1 <= DRAWABLE
    assert not {0x0A, 0x09, 0x7F, 0x85, 0x6F22, 0x0631, 0x041F, 0x1F680, 0x200B, 0xFFFF, 0x017A} & DRAWABLE
    assert {ord(ch) for ch in "ŁłŒœ–—“”€™…πΩ≤"} <= DRAWABLE
    assert undrawable_chars("Héllo 漢字 😀 漢\n") == ["漢", "字", "😀", "\n"]
    assert undrawable_chars("".join(chr(0x4E00 + i) for i in range(5000)), limit=3) == ["一", "丁", "丂"]


def test_validating_a_spec_does_not_import_reportlab() -> None:
    code = ("import sys\nfrom rove.spec import load_spec\nload_spec('classic')\n"
            "print(','.join(m for m in sys.modules if m.startswith('reportlab')))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stderr


LIMITS = """\
format: rove-spec/1
name: Limits
missions_to_win: 1
modules:
  - {id: alpha, code: A, name: WWWWWWWWW, ability: motor, arrows: [{kind: standard, dirs: [N]}]}
  - {id: beta, code: B, name: "Sensor Array Delu", ability: laser, arrows: [{kind: push, dirs: [N]}]}
cards:
  - id: x1
    mission: {title: "The Very Long Expedition Across the Northern Ice Field and Back H", pattern: "A B"}
    movement: {points: 1, bonus: 9, pattern: "A B"}
  - id: x2
    mission: {title: Supercalifragilisticexpialidocious, pattern: "A B"}
    movement: {points: 1, bonus: 9, pattern: "A B"}
  - id: x3
    mission: {title: WWWWWWWWWWWWWWWWW, pattern: "A B"}
    movement: {points: 1, bonus: 9, pattern: "A B"}
"""


def test_the_longest_titles_validation_accepts_stay_in_their_boxes(tmp_path: Path) -> None:
    from rove.titles import TITLE_W, mission_title_fit, module_name_room, title_problem

    path = tmp_path / "limits.yaml"
    path.write_text(LIMITS, encoding="utf-8")
    spec = load_spec(str(path))  # every title and name here passes validation ...
    for c in spec.cards:  # ... and is at the limit: one more character is refused
        assert mission_title_fit(c.mission.title).fits
        assert title_problem(c.mission.title + "W", "mission") is not None
    for m in spec.modules:
        assert title_problem(m.name + "W", "module") is not None
    assert [len(mission_title_fit(c.mission.title).lines) for c in spec.cards] == [2, 1, 1]
    data, faces = render_faces_pdf(spec, CardOptions())  # poker: one design unit is one point
    pages = PdfReader(io.BytesIO(data)).pages
    for face, page in zip(faces, pages, strict=True):
        scan = PageScan(page)
        if face.side == "mission":
            title = [(t, x, end) for t, x, y, end in scan.texts
                     if y > 252 - 70 and t.strip() not in (face.card.id, "MISSION")]
            assert " ".join(t.strip() for t, _, _ in title) == face.title
            assert all(12 - 0.01 <= x <= end <= 12 + TITLE_W + 0.01 for _, x, end in title), face.key
        if face.side in ("active", "spent"):
            [(x, end)] = [(x, end) for t, x, y, end in scan.texts if t.strip() == face.title]
            assert 12 <= x <= end <= 12 + module_name_room(face.side == "spent") + 0.01, face.key


def test_titles_that_validation_refuses_would_not_fit() -> None:
    from rove.titles import mission_title_fit, module_name_fit, title_problem

    for text in ("a", "Wake Up", "Ab " * 12, "Ab " * 13, "W" * 17, "W" * 18, "Mm" * 20, "x" * 400):
        assert (title_problem(text, "mission") is None) == mission_title_fit(text).fits, text
        assert (title_problem(text, "module") is None) == module_name_fit(text).fits, text
    assert title_problem("漢", None) is not None and title_problem("W" * 400, None) is None


def test_arrow_kinds_have_distinct_glyphs() -> None:
    from reportlab.pdfgen.canvas import Canvas

    from rove.pdf.glyphs import draw_arrow

    ops: dict[str, list[bytes]] = {}
    for kind in ("standard", "short", "jump", "push"):
        buf = io.BytesIO()
        c = Canvas(buf, pagesize=(100, 100))
        draw_arrow(c, kind, 20, 60)
        c.showPage()
        c.save()
        page = PdfReader(buf).pages[0]
        ops[kind] = [op for _, op in page.get_contents().operations]
    assert len({tuple(v) for v in ops.values()}) == 4
    assert b"c" in ops["jump"] and b"c" not in ops["standard"]  # the hop arc
    assert b"re" in ops["push"] and b"re" not in ops["standard"]  # the block at the head
    assert ops["short"].count(b"l") > ops["standard"].count(b"l")  # the base tick


# --------------------------------------------------------------------------- output


def test_output_is_deterministic_and_has_metadata() -> None:
    a = render_cards_pdf(classic(), CardOptions())
    assert a == render_cards_pdf(classic(), CardOptions())
    assert a != render_cards_pdf(classic(), CardOptions(bleed_mm=1))
    meta = reader().metadata
    assert meta is not None
    assert meta.title == "Classic deck - print-and-play cards" and meta.author == "rove"
    assert "2000" in str(meta.get("/CreationDate"))  # ReportLab's invariant date, not today
    # Fonts are embedded (Vera subsets), not the 14 standard fonts.
    fonts = reader().pages[0]["/Resources"]["/Font"]
    names = [str(f.get_object()["/BaseFont"]) for f in fonts.values()]
    assert names and all("Vera" in n for n in names)
    for f in fonts.values():
        desc = f.get_object()["/FontDescriptor"]
        assert "/FontFile2" in desc


def test_output_is_identical_across_processes(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import sys
        from rove.pdf.cards import CardOptions, render_cards_pdf
        from rove.spec import load_spec
        sys.stdout.buffer.write(render_cards_pdf(load_spec("classic"), CardOptions(layout="gutterfold")))
    """)
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, env=env)
    assert out.stdout == pdf_bytes("a4", "gutterfold")


def test_png_previews(tmp_path: Path) -> None:
    written = write_card_pngs(classic(), CardOptions(), tmp_path, dpi=72)
    names = sorted(p.name for p in written)
    assert len(names) == 36
    assert "module-brain-active.png" in names and "card-c01-mission.png" in names
    assert "module-brain-spent.png" in names and "card-c12-movement.png" in names
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    from PIL import Image

    with Image.open(tmp_path / "module-brain-active.png") as im:
        assert im.size == (180, 252)
        # Not blank: the header band is dark, the body light.
        grey = im.convert("L")
        assert grey.getpixel((20, 5)) < 100 < grey.getpixel((5, 150))


def test_cli_cards_writes_pdf_and_pngs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rove.cli import app

    out = tmp_path / "deck.pdf"
    result = CliRunner().invoke(app, ["cards", "classic", "-o", str(out), "--layout", "fronts",
                                      "--paper", "letter", "--card", "mini", "--no-stamp",
                                      "--png-dir", str(tmp_path / "png")])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == pdf_bytes("letter", "fronts", 0.0, "mini")
    assert len(list((tmp_path / "png").glob("*.png"))) == 36
