"""Print-and-play card sheets (``rove cards``): every card of a spec, both sides, as one PDF.

Card pairs (a *front* and the *back* printed behind it): a module card's front is its active
side and its back the spent side; a mission/movement card's front is the mission side and its
back the movement side.

Layouts
-------
``duplex``
    Portrait pages, alternating fronts and backs (sheet 1 front, sheet 1 back, ...). Backs are
    mirrored left-right in the grid, so the back of the card at grid position (r, c) sits at
    (r, cols-1-c): printed double-sided with *long-edge flip* each back lands behind its front.
``gutterfold``
    Fronts and backs on the same page, which is turned to **landscape**: the fronts fill the
    left half, the backs the right half, mirrored about the vertical fold line drawn in the
    middle. Folding along it puts each back behind its front, the right way up. A landscape
    page was chosen over a portrait one because it holds more cards: poker and bridge cards
    go 2x2 per half (4 cards a page instead of 3 on a portrait page folded across), mini cards
    3x3 per half on A4 and 2x3 on Letter. The fold line stays 4 mm from the nearest card so
    the fold never cuts into one.
``fronts``
    Only the fronts, on portrait pages (for card backs made another way, or a quick test print).

Geometry
--------
Nothing is printed closer than 5 mm to the paper's edge, which home printers clip.
Nine poker or bridge cards a page (3x3), centred, at the default 0 mm bleed on A4 and Letter;
mini cards fill as many as fit (4x4 on both). A bleed of *b* mm widens every card's printed
area by *b* on each side, so neighbouring cards sit 2*b* apart -- unless that loses cards: then
neighbours *share* their bleed (they butt together on one cut line, each one's art the
other's bleed, as print shops gang cards) and only the grid's outer edges and empty slots get
bleed; with bleed the margins also keep room for crop marks of at least 2 mm (poker with 3 mm
bleed: 2x3 on A4 and 3x2 on Letter, shared). On a gutterfold page the cut nearest the fold
stays 4 mm from it; with bleed the art runs on to the fold (the gutter is the bleed, at
least 2 mm), so front and back art meet there.
Crop marks sit in the page margins, on the extension of every trim line (never on the bleed
edge), on every page, and end 5 mm from the paper's edge; a margin too narrow for a mark of
1.5 mm has none (only without bleed, where each card also gets a hairline cut outline). A short
registration note with the printer settings goes in a margin of the first page.

All drawing is vector, in an embedded open font (Bitstream Vera); the output is byte-for-byte
deterministic (ReportLab invariant mode, fixed metadata), so a spec under version control
gives reproducible print files. Every card face also carries an invisible text marker
``rove-face:KEY`` at its trim corner so tools (and the tests) can find each card on a page.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.colors import CMYKColor, Color, toColor, white
from reportlab.pdfgen.canvas import Canvas

from ..spec import Card, Module, Spec
from ..titles import DESIGN_W, TITLE_LEADING, mission_title_fit, module_name_fit, spent_tag_w
from .fonts import FONT, FONT_BOLD, FONT_ITALIC, clip_text, fit_lines, register_fonts, text_width, wrap_text
from .glyphs import (
    INK,
    KIND_LEGEND,
    MIN_TEXT,
    arrows_by_direction,
    draw_compass,
    draw_legend,
    draw_pattern,
    legend_height,
)
from .presets import COLORS, ORDERS

MM = 72.0 / 25.4
PAPERS_PT: dict[str, tuple[float, float]] = {"a4": (210 * MM, 297 * MM), "letter": (612.0, 792.0)}
CARD_SIZES_MM: dict[str, tuple[float, float]] = {
    "poker": (63.5, 88.9),
    "bridge": (57.15, 88.9),
    "mini": (44.45, 63.5),
    "mpc": (63.0, 88.0),  # the metric poker size MakePlayingCards-style services print
}
#: Grid cap per card size; mini cards take as many as fit.
MAX_GRID: dict[str, tuple[int, int] | None] = {"poker": (3, 3), "bridge": (3, 3), "mini": None,
                                                "mpc": (3, 3)}
LAYOUTS = ("duplex", "gutterfold", "fronts")

EDGE_KEEP_MM = 5.0  # nothing is printed nearer the paper's edge: home printers clip 3-5 mm
GUTTER_MM = 4.0  # gutterfold without bleed: fold line to the nearest cut
CROP_GAP_MM = 1.0  # card area to the start of a crop mark
CROP_LEN_MM = 5.0
MIN_MARK_MM = 1.5  # a shorter mark is left out (only without bleed: the cut outline remains)
BLEED_MARK_MM = 2.0  # with bleed the margins keep room for marks at least this long
PRINT_SAFE_MM = EDGE_KEEP_MM  # the registration note and fold line keep this far from the edge

# Cards are drawn in units where the card is DESIGN_W (180) wide: a poker card in points.
# Titles and module names are fitted to their boxes by rove.titles, whose check spec
# validation uses: a title that validates prints inside its box.

MODULE_ACCENT = Color(0.17, 0.25, 0.33)
MODULE_BG = Color(0.955, 0.945, 0.915)
SPENT_ACCENT = Color(0.36, 0.36, 0.37)
SPENT_BG = Color(0.885, 0.885, 0.885)
SPENT_HATCH = Color(0.80, 0.80, 0.80)
SPENT_INK = Color(0.30, 0.30, 0.31)
MISSION_ACCENT = Color(0.16, 0.33, 0.27)
MISSION_BG = Color(0.925, 0.950, 0.935)
MOVEMENT_ACCENT = Color(0.42, 0.26, 0.08)
MOVEMENT_BG = Color(0.970, 0.940, 0.890)
CUT_LINE = Color(0.55, 0.55, 0.55)
NOTE_INK = Color(0.25, 0.25, 0.25)

#: The ability as printed on a module card: short enough for three lines at 7 pt or more.
ABILITY_TEXT: dict[str, str] = {
    "brain": "Move another module to a cell next to Brain.",
    "coil": "Move Coil to any cell where the group stays whole.",
    "gripper": "Use the ability of a module next to Gripper (even a spent one).",
    "laser": "Swap any two modules.",
    "motor": "Shift any module one cell in any direction.",
    "sensor": "Draw a card if you hold fewer than 5.",
}


@dataclass(frozen=True)
class CardOptions:
    """What ``rove cards`` was asked for; the CLI's enums already reject unknown values.

    ``safe_mm`` (inward from the trim) is where the preflight wants text and symbols;
    ``dpi`` the resolution of PNG output; ``order`` whether each card's front or back page
    comes first in a one-card-a-page PDF; ``color`` the colour model written;
    ``back_offset_mm`` (x, y) shifts everything on duplex back pages, to make up for a
    printer that does not print the two sides in register; ``stamp`` a small line of text
    printed on every face (None: no stamp)."""

    paper: str = "a4"
    layout: str = "duplex"
    bleed_mm: float = 0.0
    card: str = "poker"
    safe_mm: float = 3.0
    dpi: int = 150
    order: str = "front-back"
    color: str = "rgb"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    stamp: str | None = None

    def __post_init__(self) -> None:
        if self.paper not in PAPERS_PT:
            raise ValueError(f"unknown paper {self.paper!r}; use one of {', '.join(PAPERS_PT)}")
        if self.layout not in LAYOUTS:
            raise ValueError(f"unknown layout {self.layout!r}; use one of {', '.join(LAYOUTS)}")
        if self.card not in CARD_SIZES_MM:
            raise ValueError(f"unknown card size {self.card!r}; use one of {', '.join(CARD_SIZES_MM)}")
        if not 0 <= self.bleed_mm <= 10:
            raise ValueError(f"bleed {self.bleed_mm} mm is outside 0..10 mm")
        if not 0 <= self.safe_mm <= 20:
            raise ValueError(f"safe zone {self.safe_mm} mm is outside 0..20 mm")
        if not 36 <= self.dpi <= 1200:
            raise ValueError(f"resolution {self.dpi} dpi is outside 36..1200 dpi")
        if self.order not in ORDERS:
            raise ValueError(f"unknown page order {self.order!r}; use one of {', '.join(ORDERS)}")
        if self.color not in COLORS:
            raise ValueError(f"unknown colour model {self.color!r}; use one of {', '.join(COLORS)}")
        if any(abs(v) > 10 for v in self.back_offset_mm):
            raise ValueError(f"back offset {self.back_offset_mm} mm is more than 10 mm")


@dataclass(frozen=True)
class Rect:
    """A rectangle in PDF points, origin at the bottom-left of the page."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    def grown(self, d: float) -> Rect:
        return Rect(self.x - d, self.y - d, self.w + 2 * d, self.h + 2 * d)

    def mirrored(self, axis_x: float) -> Rect:
        """Reflected left-right about the vertical line x = axis_x."""
        return Rect(2 * axis_x - self.x - self.w, self.y, self.w, self.h)


@dataclass(frozen=True)
class Face:
    """One printed side of one card. ``key`` names it in markers and PNG file names."""

    key: str
    side: str  # active | spent | mission | movement
    title: str
    module: Module | None = None
    card: Card | None = None


@dataclass(frozen=True)
class Placement:
    """A face at a grid position of a page; ``trim`` is the cut line, ``bleed`` the art's extent."""

    face: Face
    row: int
    col: int
    trim: Rect
    bleed: Rect


@dataclass(frozen=True)
class SheetPage:
    """One page of the PDF: its size, its cards and where the crop marks go."""

    number: int  # 1-based
    width: float
    height: float
    role: str  # front | back | fold (fronts and backs on one page)
    rows: int
    cols: int
    placements: tuple[Placement, ...]
    area: Rect  # the bleed boxes of the whole grid (both halves on a gutterfold page)
    crop_xs: tuple[float, ...]  # x of every vertical trim line
    crop_ys: tuple[float, ...]  # y of every horizontal trim line
    fold_x: float | None = None


# --------------------------------------------------------------------------- layout


def card_size_pt(card: str) -> tuple[float, float]:
    w, h = CARD_SIZES_MM[card]
    return w * MM, h * MM


def card_faces(spec: Spec) -> tuple[tuple[Face, Face], ...]:
    """(front, back) for every card of the spec: modules first, then the mission cards."""
    pairs: list[tuple[Face, Face]] = []
    for m in spec.modules:
        pairs.append((Face(f"module-{m.id}-active", "active", m.name, module=m),
                      Face(f"module-{m.id}-spent", "spent", m.name, module=m)))
    for c in spec.cards:
        pairs.append((Face(f"card-{c.id}-mission", "mission", c.mission.title, card=c),
                      Face(f"card-{c.id}-movement", "movement", c.mission.title, card=c)))
    return tuple(pairs)


@dataclass(frozen=True)
class _Grid:
    """Cards in a grid: ``pitch`` from one card's trim to the next (the card, plus 2b when
    every card has its own bleed, nothing more when neighbours share it)."""

    cols: int
    rows: int
    shared: bool
    pitch_x: float
    pitch_y: float


def _fit_grid(avail_w: float, avail_h: float, w: float, h: float, b: float,
              cap: tuple[int, int] | None, fold_side: bool = False) -> _Grid:
    """The grid that holds the most cards: own bleed, or shared when that holds more.

    ``avail_w`` spans from the outer bleed edge to the far trim (``fold_side``: the bleed
    beyond the last column lives in the gutter) or to the far bleed edge."""
    best: _Grid | None = None
    for shared in (False, True):
        px, py = (w, h) if shared else (w + 2 * b, h + 2 * b)
        extra_w = b if fold_side else 2 * b
        cols = int((avail_w - extra_w - w + 1e-6) // px) + 1
        rows = int((avail_h - 2 * b - h + 1e-6) // py) + 1
        if cap is not None:
            cols, rows = min(cols, cap[0]), min(rows, cap[1])
        if cols < 1 or rows < 1:
            continue
        if best is None or cols * rows > best.cols * best.rows:
            best = _Grid(cols, rows, shared, px, py)
    if best is None:
        raise ValueError("the card with its bleed does not fit on the page; use less bleed")
    return best


def _margin(opts: CardOptions) -> float:
    """Page edge to the grid's outer (bleed) edge: 5 mm, plus room for crop marks with bleed."""
    extra = CROP_GAP_MM + BLEED_MARK_MM if opts.bleed_mm > 0 else 0.0
    return (EDGE_KEEP_MM + extra) * MM


def _bleed_rect(trim: Rect, b: float, shared: bool, open_sides: tuple[bool, bool, bool, bool]) -> Rect:
    """The art's extent: the trim grown by the bleed, with shared bleed only on the ``open``
    sides (left, bottom, right, top: the grid's edge or an empty slot)."""
    if not shared:
        return trim.grown(b)
    left, bottom, right, top = (b if o else 0.0 for o in open_sides)
    return Rect(trim.x - left, trim.y - bottom, trim.w + left + right, trim.h + bottom + top)


def _open_sides(i: int, n: int, cols: int, rows: int) -> tuple[bool, bool, bool, bool]:
    """Which sides of slot ``i`` (of ``n`` filled, row by row) face no card."""
    r, c = divmod(i, cols)

    def filled(rr: int, cc: int) -> bool:
        return 0 <= rr < rows and 0 <= cc < cols and rr * cols + cc < n

    return (not filled(r, c - 1), not filled(r + 1, c), not filled(r, c + 1), not filled(r - 1, c))


def cards_per_page(spec: Spec, opts: CardOptions) -> int:
    """How many cards (front and back counted once) one page or sheet holds."""
    page = plan_pages(spec, opts)[0]
    return page.rows * page.cols // (2 if page.role == "fold" else 1)


def plan_pages(spec: Spec, opts: CardOptions) -> tuple[SheetPage, ...]:
    """Every page of the sheet: which face goes where. Pure geometry, no drawing."""
    pairs = card_faces(spec)
    if opts.layout == "gutterfold":
        return _plan_gutterfold(pairs, opts)
    return _plan_grid(pairs, opts)


def _edges(values: Sequence[float]) -> tuple[float, ...]:
    """Sorted distinct coordinates (neighbouring cards with no bleed share a trim line)."""
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > 1e-6:
            out.append(v)
    return tuple(out)


def _plan_grid(pairs: Sequence[tuple[Face, Face]], opts: CardOptions) -> tuple[SheetPage, ...]:
    pw, ph = PAPERS_PT[opts.paper]
    w, h = card_size_pt(opts.card)
    b = opts.bleed_mm * MM
    margin = _margin(opts)
    g = _fit_grid(pw - 2 * margin, ph - 2 * margin, w, h, b, MAX_GRID[opts.card])
    cols, rows = g.cols, g.rows
    gw, gh = 2 * b + (cols - 1) * g.pitch_x + w, 2 * b + (rows - 1) * g.pitch_y + h
    area = Rect((pw - gw) / 2, (ph - gh) / 2, gw, gh)

    def trim(r: int, c: int) -> Rect:
        return Rect(area.x + b + c * g.pitch_x, area.top - b - h - r * g.pitch_y, w, h)

    xs = _edges([trim(0, c).x for c in range(cols)] + [trim(0, c).right for c in range(cols)])
    ys = _edges([trim(r, 0).y for r in range(rows)] + [trim(r, 0).top for r in range(rows)])
    per_page = cols * rows
    pages: list[SheetPage] = []
    for start in range(0, len(pairs), per_page):
        chunk = pairs[start:start + per_page]
        fronts, backs = [], []
        for i, (front, back) in enumerate(chunk):
            r, c = divmod(i, cols)
            opened = _open_sides(i, len(chunk), cols, rows)
            fronts.append(Placement(front, r, c, trim(r, c), _bleed_rect(trim(r, c), b, g.shared, opened)))
            bc = cols - 1 - c
            mirrored = (opened[2], opened[1], opened[0], opened[3])  # left and right swap
            backs.append(Placement(back, r, bc, trim(r, bc), _bleed_rect(trim(r, bc), b, g.shared, mirrored)))
        roles = [("front", fronts)] + ([("back", backs)] if opts.layout == "duplex" else [])
        for role, placed in roles:
            pages.append(SheetPage(len(pages) + 1, pw, ph, role, rows, cols, tuple(placed),
                                   area, xs, ys))
    return tuple(pages)


def _plan_gutterfold(pairs: Sequence[tuple[Face, Face]], opts: CardOptions) -> tuple[SheetPage, ...]:
    short, long_ = PAPERS_PT[opts.paper]
    pw, ph = long_, short  # landscape
    w, h = card_size_pt(opts.card)
    b = opts.bleed_mm * MM
    margin = _margin(opts)
    # Fold line to the nearest cut: 4 mm of white without bleed (a fold a little off stays
    # out of the cards); with bleed the art runs on to the fold, so the gutter is the bleed
    # itself (at least 2 mm), which lets 2 mm bleed keep 2x2 poker cards a half on Letter.
    gutter = GUTTER_MM * MM if b == 0 else max(b, 2.0 * MM)
    fold = pw / 2
    g = _fit_grid(fold - gutter - margin, ph - 2 * margin, w, h, b, MAX_GRID[opts.card], fold_side=True)
    cols, rows = g.cols, g.rows
    gh = 2 * b + (rows - 1) * g.pitch_y + h
    top = (ph + gh) / 2
    last_right = fold - gutter  # the trim of the column nearest the fold ends here
    first_x = last_right - w - (cols - 1) * g.pitch_x
    left = first_x - b
    area = Rect(left, top - gh, 2 * (fold - left), gh)

    def trim(r: int, c: int) -> Rect:
        return Rect(first_x + c * g.pitch_x, top - b - h - r * g.pitch_y, w, h)

    xs_left = [trim(0, c).x for c in range(cols)] + [trim(0, c).right for c in range(cols)]
    xs = _edges(xs_left + [2 * fold - x for x in xs_left])
    ys = _edges([trim(r, 0).y for r in range(rows)] + [trim(r, 0).top for r in range(rows)])
    per_page = cols * rows
    pages: list[SheetPage] = []
    for start in range(0, len(pairs), per_page):
        chunk = pairs[start:start + per_page]
        placed: list[Placement] = []
        for i, (front, back) in enumerate(chunk):
            r, c = divmod(i, cols)
            t = trim(r, c)
            bl = _bleed_rect(t, b, g.shared, _open_sides(i, len(chunk), cols, rows))
            placed.append(Placement(front, r, c, t, bl))
            # Right half: column 0 is the one nearest the fold, so a back's column mirrors its front's.
            placed.append(Placement(back, r, cols + (cols - 1 - c), t.mirrored(fold), bl.mirrored(fold)))
        pages.append(SheetPage(len(pages) + 1, pw, ph, "fold", rows, 2 * cols, tuple(placed),
                               area, xs, ys, fold_x=fold))
    return tuple(pages)


# --------------------------------------------------------------------------- page furniture


def registration_note(opts: CardOptions) -> str:
    """The printer settings that make the sheet come out at size and aligned."""
    w, h = CARD_SIZES_MM[opts.card]
    size = f"{w:g} × {h:g} mm"
    head = "Print at actual size (100% scale, no 'fit to page')"
    if opts.layout == "duplex":
        text = (f"{head}, double-sided, flip on long edge. "
                f"Check: a card measures {size}. Cut on the crop marks.")
    elif opts.layout == "gutterfold":
        text = (f"{head}, single-sided, landscape. Fold on the dashed line, glue the halves "
                f"back to back, then cut on the crop marks. A card measures {size}.")
    else:
        text = f"{head}, single-sided. Cut on the crop marks. A card measures {size}."
    if opts.bleed_mm:
        text += f" Art runs {opts.bleed_mm:g} mm past the cut (bleed)."
    return text


def crop_mark_lengths(page: SheetPage) -> tuple[float, float]:
    """Mark lengths in pt above/below the grid and left/right of it: up to 5 mm, ending
    5 mm from the paper's edge; 0 where a mark of 1.5 mm does not fit (no marks there)."""
    a = page.area

    def length(space: float) -> float:
        room = min(CROP_LEN_MM * MM, space - (CROP_GAP_MM + EDGE_KEEP_MM) * MM)
        return room if room >= MIN_MARK_MM * MM - 1e-6 else 0.0

    return (length(min(a.y, page.height - a.top)), length(min(a.x, page.width - a.right)))


def crop_mark_length(page: SheetPage) -> float:
    """The longest mark on the page, in pt (how far the marks reach into the margins)."""
    return max(crop_mark_lengths(page))


def crop_mark_segments(page: SheetPage) -> list[tuple[float, float, float, float]]:
    """(x1, y1, x2, y2) of every crop mark: trim lines extended into the four margins."""
    gap = CROP_GAP_MM * MM
    vertical, horizontal = crop_mark_lengths(page)
    a = page.area
    segs = []
    if vertical:
        for x in page.crop_xs:
            segs.append((x, a.top + gap, x, a.top + gap + vertical))
            segs.append((x, a.y - gap, x, a.y - gap - vertical))
    if horizontal:
        for y in page.crop_ys:
            segs.append((a.x - gap, y, a.x - gap - horizontal, y))
            segs.append((a.right + gap, y, a.right + gap + horizontal, y))
    return segs


def _draw_crop_marks(c: Canvas, page: SheetPage) -> None:
    c.saveState()
    c.setStrokeColor(INK)
    c.setLineWidth(0.35)
    for x1, y1, x2, y2 in crop_mark_segments(page):
        c.line(x1, y1, x2, y2)
    c.restoreState()


def _draw_fold_line(c: Canvas, page: SheetPage) -> None:
    assert page.fold_x is not None
    safe = PRINT_SAFE_MM * MM
    c.saveState()
    c.setStrokeColor(NOTE_INK)
    c.setLineWidth(0.5)
    c.setDash(4, 3)
    c.line(page.fold_x, safe, page.fold_x, page.height - safe)
    c.setDash()
    c.setFillColor(NOTE_INK)
    c.setFont(FONT_ITALIC, 6)
    c.translate(page.fold_x - 2, page.height - safe - 2)
    c.rotate(90)
    c.drawRightString(0, 0, "fold")
    c.restoreState()


@dataclass(frozen=True)
class _NoteBox:
    rect: Rect
    vertical: bool  # text runs bottom-to-top (left margin)


def _note_boxes(page: SheetPage) -> list[_NoteBox]:
    """Free margin areas for the note: beyond the crop marks, or between two of them."""
    safe, pad = PRINT_SAFE_MM * MM, 1.0 * MM
    reach = CROP_GAP_MM * MM + crop_mark_length(page) + pad
    a, pw, ph = page.area, page.width, page.height
    xs = sorted([*page.crop_xs, *([page.fold_x] if page.fold_x is not None else [])])
    ys = sorted(page.crop_ys)

    def widest(cuts: list[float], lo: float, hi: float, pad: float = pad) -> tuple[float, float]:
        bounds = [lo, *[v for v in cuts if lo < v < hi], hi]
        pairs = [(bounds[i] + pad, bounds[i + 1] - pad) for i in range(len(bounds) - 1)]
        return max(pairs, key=lambda p: p[1] - p[0])

    gx0, gx1 = widest(xs, safe, pw - safe)
    gy0, gy1 = widest(ys, safe, ph - safe)
    # Beyond the marks only the fold line (which runs the page's full height) is in the way.
    # (4 mm each side keeps the note clear of the line's "fold" label too.)
    bx0, bx1 = widest([page.fold_x] if page.fold_x is not None else [], safe, pw - safe, 4 * MM)
    boxes = [
        _NoteBox(Rect(bx0, safe, bx1 - bx0, a.y - reach - safe), False),  # bottom, beyond marks
        _NoteBox(Rect(gx0, safe, gx1 - gx0, a.y - pad - safe), False),  # bottom, between marks
        _NoteBox(Rect(bx0, a.top + reach, bx1 - bx0, ph - safe - a.top - reach), False),
        _NoteBox(Rect(gx0, a.top + pad, gx1 - gx0, ph - safe - a.top - pad), False),
        _NoteBox(Rect(safe, safe, a.x - reach - safe, ph - 2 * safe), True),  # left
        _NoteBox(Rect(safe, gy0, a.x - pad - safe, gy1 - gy0), True),
    ]
    return [bx for bx in boxes if bx.rect.w > 0 and bx.rect.h > 0]


def short_registration_note(opts: CardOptions) -> str:
    """What must be said when the margins have no room for the whole note."""
    w, h = CARD_SIZES_MM[opts.card]
    return f"Print at 100% scale, no 'fit to page'. A card measures {w:g} × {h:g} mm."


def _draw_note(c: Canvas, page: SheetPage, texts: Sequence[str]) -> None:
    """The first of ``texts`` that fits a margin box, in the box where it fits at the
    largest size (margins kept 5 mm from the edge can be too narrow for the whole note)."""
    best: tuple[float, _NoteBox, list[str]] | None = None
    leading = 1.2
    for text in texts:
        for bx in _note_boxes(page):
            along, across = (bx.rect.h, bx.rect.w) if bx.vertical else (bx.rect.w, bx.rect.h)
            size, lines = fit_lines(text, FONT, along, across, 6.5, 4.5, leading, max_lines=4)
            fits = len(lines) * size * leading <= across + 1e-6 and all(
                text_width(line, FONT, size) <= along + 1e-6 for line in lines)
            if fits and (best is None or size > best[0]):
                best = (size, bx, lines)
        if best is not None:
            break
    if best is None:
        return
    size, bx, lines = best
    r = bx.rect
    c.saveState()
    c.setFillColor(NOTE_INK)
    c.setFont(FONT, size)
    # Work in the box's own frame: x along the lines, y across them (page-left when vertical).
    if bx.vertical:
        c.translate(r.right, r.y)
        c.rotate(90)
        along, across = r.h, r.w
    else:
        c.translate(r.x, r.y)
        along, across = r.w, r.h
    block = len(lines) * size * leading
    x0 = (along - max(text_width(line, FONT, size) for line in lines)) / 2
    first = across - (across - block) / 2 - size
    for k, line in enumerate(lines):
        c.drawString(x0, first - k * size * leading, line)
    c.restoreState()


# --------------------------------------------------------------------------- card faces


@dataclass(frozen=True)
class _Box:
    """A card in design units: DESIGN_W wide, H tall, with ``bleed`` beyond every edge."""

    W: float
    H: float
    bleed: float


def _mark_face(c: Canvas, key: str) -> None:
    """Invisible text naming the face at the trim corner: searchable, and found by tests."""
    c.saveState()
    t = c.beginText(0, 0)
    t.setTextRenderMode(3)
    t.setFont(FONT, 1)
    t.textOut(f"rove-face:{key}")
    c.drawText(t)
    c.restoreState()


def draw_face(c: Canvas, face: Face, trim: Rect, bleed: float, names: dict[str, str],
              stamp: str | None = None, art: Rect | None = None) -> None:
    """One card face with its trim at ``trim`` (pt) and art ``bleed`` pt beyond it, clipped
    to ``art`` (default: the trim grown by the bleed; less where neighbours share bleed), and
    the ``stamp`` line (if any) small at the bottom, under every card's content."""
    art = art or trim.grown(bleed)
    c.saveState()
    c.translate(trim.x, trim.y)
    _mark_face(c, face.key)
    clip = c.beginPath()
    clip.rect(art.x - trim.x, art.y - trim.y, art.w, art.h)
    c.clipPath(clip, stroke=0, fill=0)
    s = trim.w / DESIGN_W
    c.saveState()
    c.scale(s, s)
    box = _Box(DESIGN_W, trim.h / s, bleed / s)
    painter: Callable[[Canvas, _Box, Face, dict[str, str]], None] = _PAINTERS[face.side]
    painter(c, box, face, names)
    if stamp:
        _draw_stamp(c, box, stamp, s)
    c.restoreState()
    if bleed == 0:
        c.setStrokeColor(CUT_LINE)
        c.setLineWidth(0.3)
        c.rect(0, 0, trim.w, trim.h, stroke=1, fill=0)
    c.restoreState()


STAMP_SIZE = 6.0  # pt at the least (MIN_TEXT), in the 10-unit strip at the bottom
STAMP_INK = Color(0.40, 0.40, 0.40)


def _draw_stamp(c: Canvas, box: _Box, text: str, scale: float = 1.0) -> None:
    """The playtest stamp, centred 3 units above the cut: every face keeps that strip free.
    Never under MIN_TEXT on paper (``scale``: pt per design unit); a line too long for the
    card at that size is cut with an ellipsis."""
    size = max(STAMP_SIZE, MIN_TEXT / scale)
    c.setFillColor(STAMP_INK)
    c.setFont(FONT, size)
    c.drawCentredString(box.W / 2, 3.0, clip_text(text, FONT, size, box.W - 24))


def _paint_hidden(c: Canvas, box: _Box, face: Face, names: dict[str, str]) -> None:
    """The card Tabletop Simulator shows for a card in a hidden zone: the deck's name."""
    _background(c, box, MODULE_ACCENT)
    c.setFillColor(white)
    c.setFont(FONT_BOLD, 34)
    c.drawCentredString(box.W / 2, box.H / 2 + 4, "ROVE")
    size, lines = fit_lines(face.title, FONT, box.W - 40, 40, 10, 6, max_lines=2)
    if len(lines) > 2:  # a deck name too long for two lines: the second ends in an ellipsis
        lines = [lines[0], " ".join(lines[1:])]
    lines = [clip_text(line, FONT, size, box.W - 40) for line in lines]
    c.setFont(FONT, size)
    for i, line in enumerate(lines):
        c.drawCentredString(box.W / 2, box.H / 2 - 18 - i * size * 1.2, line)


def _background(c: Canvas, box: _Box, color: Color) -> None:
    c.setFillColor(color)
    c.rect(-box.bleed, -box.bleed, box.W + 2 * box.bleed, box.H + 2 * box.bleed, stroke=0, fill=1)


def _band(c: Canvas, box: _Box, height: float, color: Color) -> None:
    """A full-width colour band at the top of the card, running into the bleed."""
    c.setFillColor(color)
    c.rect(-box.bleed, box.H - height, box.W + 2 * box.bleed, height + box.bleed, stroke=0, fill=1)


def _bold(text: str, size: float) -> float:
    return text_width(text, FONT_BOLD, size)


def _paint_module(c: Canvas, box: _Box, face: Face, names: dict[str, str]) -> None:
    m = face.module
    assert m is not None
    spent = face.side == "spent"
    accent = SPENT_ACCENT if spent else MODULE_ACCENT
    ink = SPENT_INK if spent else INK
    W, H = box.W, box.H
    _background(c, box, SPENT_BG if spent else MODULE_BG)
    if spent:  # diagonal hatching over the whole card: spent at a glance, even in greyscale
        c.saveState()
        c.setStrokeColor(SPENT_HATCH)
        c.setLineWidth(1.2)
        step = 9.0
        k = -box.H - 2 * box.bleed
        while k < W + box.bleed:
            c.line(k, -box.bleed, k + H + 2 * box.bleed, H + box.bleed)
            k += step
        c.restoreState()

    header = 40.0
    _band(c, box, header, accent)
    # Right of the header: the code badge (active) or a SPENT tag.
    c.setFillColor(white)
    if spent:
        tag_w = spent_tag_w(_bold)
        c.setStrokeColor(white)
        c.setLineWidth(1.2)
        c.roundRect(W - 11 - tag_w, H - 28, tag_w, 16, 8, stroke=1, fill=0)  # clear of the safe line
        c.setFont(FONT_BOLD, 9)
        c.drawCentredString(W - 11 - tag_w / 2, H - 23.3, "SPENT")
    else:
        # 9 units below the top edge: inside a 1/8 in safe zone, which services ask for
        c.circle(W - 24, H - 21, 12, stroke=0, fill=1)
        c.setFillColor(accent)
        c.setFont(FONT_BOLD, 15)
        c.drawCentredString(W - 24, H - 26.4, m.code)
    size = module_name_fit(m.name, spent, _bold).size
    c.setFillColor(white)
    c.setFont(FONT_BOLD, size)
    c.drawString(12, H - 20 - size * 0.36, m.name)

    # The arrows around the code, on a faint ring.
    arrows = m.arrows_for(spent)
    cx, cy = W / 2, H - header - 64
    c.saveState()
    c.setStrokeColor(Color(0.75, 0.75, 0.75))
    c.setLineWidth(0.6)
    c.setDash(1.5, 2.5)
    c.circle(cx, cy, 61, stroke=1, fill=0)
    c.restoreState()
    tile = 34.0
    c.saveState()
    if spent:
        c.setFillColor(white)
        c.setStrokeColor(ink)
        c.setLineWidth(1.4)
        c.setDash(3, 2)
        c.roundRect(cx - tile / 2, cy - tile / 2, tile, tile, 6, stroke=1, fill=1)
        c.setFillColor(ink)
    else:
        c.setFillColor(accent)
        c.roundRect(cx - tile / 2, cy - tile / 2, tile, tile, 6, stroke=0, fill=1)
        c.setFillColor(white)
    c.setFont(FONT_BOLD, 24)
    c.drawCentredString(cx, cy - 8.6, m.code)
    c.restoreState()
    draw_compass(c, arrows, cx, cy, r0=24, r1=60, width=2.3, color=ink)

    # What the arrow kinds on this side do.
    kinds = sorted({k for ks in arrows_by_direction(arrows).values() for k in ks},
                   key=list(KIND_LEGEND).index)
    legend = "   ".join(f"{k}: {KIND_LEGEND[k]}" for k in kinds)
    lines = wrap_text(legend, FONT_ITALIC, 7, W - 24)
    c.setFillColor(ink)
    c.setFont(FONT_ITALIC, 7)
    for i, line in enumerate(lines[:2]):
        c.drawCentredString(cx, cy - 71 - i * 8.4, line)

    # The ability.
    bx, by, bw, bh = 10.0, 10.0, W - 20, 60.0
    c.saveState()
    c.setFillColor(white)
    c.setStrokeColor(accent)
    c.setLineWidth(1)
    c.roundRect(bx, by, bw, bh, 6, stroke=1, fill=1)
    c.restoreState()
    c.setFillColor(accent)
    c.setFont(FONT_BOLD, 7)
    c.drawString(bx + 8, by + bh - 11, "ABILITY · USED" if spent else "ABILITY")
    font = FONT_ITALIC if spent else FONT
    size, ab_lines = fit_lines(ABILITY_TEXT.get(m.ability, m.ability), font, bw - 16, bh - 19,
                               9.5, 7, leading=1.2, max_lines=3)
    c.setFillColor(ink)
    c.setFont(font, size)
    for i, line in enumerate(ab_lines):
        c.drawString(bx + 8, by + bh - 15 - size - i * size * 1.2, line)


def _header(c: Canvas, box: _Box, label: str, card_id: str, accent: Color) -> float:
    """A slim top band with the side's name and the card id; returns its height."""
    height = 22.0
    _band(c, box, height, accent)
    c.setFillColor(white)
    c.saveState()  # character spacing is graphics state: keep it to this label
    # baselines 15.3 below the top: the caps stay inside a 1/8 in (9 unit) safe zone
    t = c.beginText(12, box.H - 15.3)
    t.setFont(FONT_BOLD, 8)
    t.setCharSpace(2.2)  # letter-spaced caps that still extract as one word
    t.textOut(label)
    c.drawText(t)
    c.restoreState()
    c.setFillColor(white)
    c.setFont(FONT, 7.5)
    c.drawRightString(box.W - 12, box.H - 15.3, card_id)
    return height


def _panel(c: Canvas, x: float, y: float, w: float, h: float, accent: Color) -> None:
    c.saveState()
    c.setFillColor(white)
    c.setStrokeColor(accent)
    c.setLineWidth(0.8)
    c.roundRect(x, y, w, h, 6, stroke=1, fill=1)
    c.restoreState()


def _paint_mission(c: Canvas, box: _Box, face: Face, names: dict[str, str]) -> None:
    card = face.card
    assert card is not None
    W, H = box.W, box.H
    _background(c, box, MISSION_BG)
    top = H - _header(c, box, "MISSION", card.id, MISSION_ACCENT)

    # Title: one line if it fits at 10 pt or more, else two lines (mission_title_fit).
    title = card.mission.title
    c.setFillColor(INK)
    fit = mission_title_fit(title, _bold)
    size = fit.size
    c.setFont(FONT_BOLD, size)
    if not fit.wrapped:
        c.drawCentredString(W / 2, top - 14 - size * 0.7, title)
    else:
        for i, line in enumerate(fit.lines):
            c.drawCentredString(W / 2, top - 6 - size - i * size * TITLE_LEADING, line)
    panel_top = top - 40

    pattern = card.mission.pattern
    legend_h = legend_height(pattern, names, W - 20, 7)
    panel_y = 12 + legend_h + 6
    _panel(c, 10, panel_y, W - 20, panel_top - panel_y, MISSION_ACCENT)
    draw_pattern(c, pattern, W / 2, (panel_top + panel_y) / 2, W - 36, panel_top - panel_y - 16,
                 max_cell=34)
    draw_legend(c, pattern, names, W / 2, 12 + legend_h, W - 20, 7)


def _paint_movement(c: Canvas, box: _Box, face: Face, names: dict[str, str]) -> None:
    card = face.card
    assert card is not None
    mv = card.movement
    W, H = box.W, box.H
    _background(c, box, MOVEMENT_BG)
    top = H - _header(c, box, "MOVEMENT", card.id, MOVEMENT_ACCENT)

    # Tick strip along the right edge: one numbered tick per point, to count points spent.
    strip = 24.0
    c.saveState()
    c.setFillColor(Color(0.93, 0.88, 0.80))
    c.rect(W - strip, -box.bleed, strip + box.bleed, top + box.bleed, stroke=0, fill=1)
    c.setStrokeColor(MOVEMENT_ACCENT)
    c.setLineWidth(0.6)
    c.line(W - strip, -box.bleed, W - strip, top)  # into the bleed, like the strip it edges
    n = max(mv.bonus, 1)
    y_first, y_last = top - 14, 16.0
    step = min(22.0, (y_first - y_last) / (n - 1)) if n > 1 else 0.0
    for k in range(1, n + 1):
        y = y_first - (k - 1) * step
        base = k <= mv.points
        c.setStrokeColor(INK)
        c.setLineWidth(1.8 if base else 0.8)
        c.line(W - 9, y, W + box.bleed, y)
        c.setFillColor(INK)
        c.setFont(FONT_BOLD if base else FONT_ITALIC, 8 if base else 7)
        c.drawRightString(W - 11, y - 2.8, str(k))
    c.restoreState()

    content_w = W - strip
    cx = content_w / 2
    # Base points at the top.
    r = 17.0
    cy = top - 10 - r
    c.saveState()
    c.setFillColor(white)
    c.setStrokeColor(MOVEMENT_ACCENT)
    c.setLineWidth(2)
    c.circle(cx, cy, r, stroke=1, fill=1)
    c.setFillColor(INK)
    c.setFont(FONT_BOLD, 22)
    c.drawCentredString(cx, cy - 7.9, str(mv.points))
    c.setFont(FONT, 7)
    c.drawRightString(cx - r - 5, cy - 2.5, "points")
    c.restoreState()

    # Bonus beneath the pattern.
    bonus_h = 40.0
    by = 12.0
    c.saveState()
    c.setFillColor(MOVEMENT_ACCENT)
    badge = 30.0
    c.roundRect(12, by + (bonus_h - badge) / 2, badge, badge, 6, stroke=0, fill=1)
    c.setFillColor(white)
    c.setFont(FONT_BOLD, 20)
    c.drawCentredString(12 + badge / 2, by + bonus_h / 2 - 7.2, str(mv.bonus))
    c.setFillColor(MOVEMENT_ACCENT)
    c.setFont(FONT_BOLD, 7.5)
    tx = 12 + badge + 7
    c.drawString(tx, by + bonus_h - 10, "BONUS")
    c.setFillColor(INK)
    size, lines = fit_lines("instead, if this pattern matches when you play the card",
                            FONT, content_w - tx - 6, bonus_h - 14, 7, 5.5, max_lines=3)
    c.setFont(FONT, size)
    for i, line in enumerate(lines):
        c.drawString(tx, by + bonus_h - 14 - size - i * size * 1.2, line)
    c.restoreState()

    panel_top = cy - r - 8
    panel_w = content_w - 18
    legend_h = legend_height(mv.pattern, names, panel_w, 6.5)
    panel_y = by + bonus_h + 4 + legend_h + 2
    _panel(c, 10, panel_y, panel_w, panel_top - panel_y, MOVEMENT_ACCENT)
    draw_pattern(c, mv.pattern, 10 + panel_w / 2, (panel_top + panel_y) / 2,
                 content_w - 34, panel_top - panel_y - 14, max_cell=30, named_fill=INK)
    draw_legend(c, mv.pattern, names, 10 + panel_w / 2, panel_y - 1, panel_w, 6.5)


_PAINTERS: dict[str, Callable[[Canvas, _Box, Face, dict[str, str]], None]] = {
    "active": _paint_module,
    "spent": _paint_module,
    "mission": _paint_mission,
    "movement": _paint_movement,
    "hidden": _paint_hidden,
}


# --------------------------------------------------------------------------- output


def cmyk_of(color: Any) -> CMYKColor:
    """The naive CMYK of an RGB colour: greys go on the black plate alone (no rich black
    from a grey), other colours take the grey component as black (full under-colour removal)."""
    col = toColor(color)
    if isinstance(col, CMYKColor):
        return col
    r, g, b = col.red, col.green, col.blue
    k = 1 - max(r, g, b)
    if k >= 1 - 1e-9:
        return CMYKColor(0, 0, 0, 1)
    cyan, magenta, yellow = (round((1 - v - k) / (1 - k), 4) for v in (r, g, b))
    return CMYKColor(cyan, magenta, yellow, round(k, 4))


class CmykCanvas(Canvas):
    """A canvas that writes every fill and stroke colour as CMYK (for print services that
    ask for it); ReportLab's own check refuses any RGB colour that would still slip through."""

    def setFillColor(self, aColor: Any, alpha: Any = None) -> None:  # noqa: N802 (ReportLab's name)
        super().setFillColor(cmyk_of(aColor), alpha)

    def setStrokeColor(self, aColor: Any, alpha: Any = None) -> None:  # noqa: N802
        super().setStrokeColor(cmyk_of(aColor), alpha)


def new_canvas(buf: io.BytesIO, pagesize: tuple[float, float], title: str, subject: str,
               color: str = "rgb") -> Canvas:
    """A deterministic canvas (ReportLab invariant mode, fixed metadata) in the colour model asked."""
    register_fonts()
    cls = CmykCanvas if color == "cmyk" else Canvas
    extra = {"enforceColorSpace": "cmyk"} if color == "cmyk" else {}
    c = cls(buf, pagesize=pagesize, invariant=1, pageCompression=1, initialFontName=FONT,
            initialFontSize=8, **extra)
    c.setTitle(title)
    c.setAuthor("rove")
    c.setSubject(subject)
    c.setCreator("rove cards")
    c.setKeywords("ROVE, print and play, cards")
    return c


def _new_canvas(buf: io.BytesIO, pagesize: tuple[float, float], spec: Spec, what: str,
                color: str = "rgb") -> Canvas:
    return new_canvas(buf, pagesize, f"{spec.name} - {what}", f"ROVE card spec '{spec.name}'", color)


def hull(rects: Sequence[Rect]) -> Rect:
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    x1, y1 = max(r.right for r in rects), max(r.top for r in rects)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def set_boxes(c: Canvas, trim: Rect, bleed: Rect) -> None:
    """TrimBox and BleedBox of the page about to be drawn (they stay until set again)."""
    c.setTrimBox((trim.x, trim.y, trim.right, trim.top))
    c.setBleedBox((bleed.x, bleed.y, bleed.right, bleed.top))


def _shifted(r: Rect, dx: float, dy: float) -> Rect:
    return Rect(r.x + dx, r.y + dy, r.w, r.h)


def render_cards_pdf(spec: Spec, opts: CardOptions) -> bytes:
    """The whole print-and-play PDF, deterministic for a given spec and options.

    Every page carries a TrimBox around its cards' cut lines and a BleedBox around their
    art, and the document asks viewers to print at actual size (no "fit to page")."""
    pages = plan_pages(spec, opts)
    names = {m.code: m.name for m in spec.modules}
    bleed = opts.bleed_mm * MM
    buf = io.BytesIO()
    c = _new_canvas(buf, (pages[0].width, pages[0].height), spec, "print-and-play cards", opts.color)
    c.setViewerPreference("PrintScaling", "None")
    notes = (registration_note(opts), short_registration_note(opts))
    for page in pages:
        dx, dy = (v * MM for v in opts.back_offset_mm) if page.role == "back" else (0.0, 0.0)
        c.setPageSize((page.width, page.height))
        set_boxes(c, _shifted(hull([pl.trim for pl in page.placements]), dx, dy),
                  _shifted(hull([pl.bleed for pl in page.placements]), dx, dy))
        c.saveState()
        c.translate(dx, dy)
        for pl in page.placements:
            draw_face(c, pl.face, pl.trim, bleed, names, opts.stamp, pl.bleed)
        _draw_crop_marks(c, page)
        c.restoreState()
        if page.fold_x is not None:
            _draw_fold_line(c, page)
        if page.number == 1:
            _draw_note(c, page, notes)
        c.showPage()
    c.save()
    return buf.getvalue()


def ordered_faces(spec: Spec, order: str = "front-back") -> list[Face]:
    """Every face, each card's two in the order asked (``back-front``: the back first)."""
    return [f for front, back in card_faces(spec)
            for f in ((back, front) if order == "back-front" else (front, back))]


def hidden_face(spec: Spec) -> Face:
    """The face Tabletop Simulator shows for hidden cards."""
    return Face("hidden", "hidden", spec.name)


def render_faces_pdf(spec: Spec, opts: CardOptions,
                     faces: Sequence[Face] | None = None) -> tuple[bytes, list[Face]]:
    """One face a page (every face in ``opts.order`` unless ``faces`` are given), each page
    the card with its bleed, its TrimBox the cut line and its BleedBox the whole page:
    the file a one-card-a-page print service takes, and what previews are rendered from."""
    w, h = card_size_pt(opts.card)
    bleed = opts.bleed_mm * MM
    names = {m.code: m.name for m in spec.modules}
    faces = list(faces) if faces is not None else ordered_faces(spec, opts.order)
    buf = io.BytesIO()
    c = _new_canvas(buf, (w + 2 * bleed, h + 2 * bleed), spec, "card faces", opts.color)
    trim = Rect(bleed, bleed, w, h)
    set_boxes(c, trim, trim.grown(bleed))
    for face in faces:
        draw_face(c, face, trim, bleed, names, opts.stamp)
        c.showPage()
    c.save()
    return buf.getvalue(), faces


def face_pixels(opts: CardOptions) -> tuple[int, int]:
    """The exact pixel size of a face image: the card with its bleed at ``opts.dpi``."""
    w, h = CARD_SIZES_MM[opts.card]
    b = opts.bleed_mm
    return round((w + 2 * b) / 25.4 * opts.dpi), round((h + 2 * b) / 25.4 * opts.dpi)


def render_page_exact(page: Any, size: tuple[int, int]) -> Any:
    """A PIL image of a pdfium page drawn onto exactly ``size`` pixels (white paper).

    ``PdfPage.render`` rounds the bitmap size from one scale up, a pixel too wide at times
    (63 + 6 mm at 300 dpi is 814.96 px); pdfium's own call stretches the page over a
    bitmap of the size given, which is what a print service's pixel rule asks for."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    bitmap = pdfium.PdfBitmap.new_native(size[0], size[1], pdfium_c.FPDFBitmap_BGR)
    bitmap.fill_rect((255, 255, 255, 255), 0, 0, size[0], size[1])
    pdfium_c.FPDF_RenderPageBitmap(bitmap.raw, page.raw, 0, 0, size[0], size[1], 0,
                                   pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_PRINTING)
    image = bitmap.to_pil().convert("RGB")
    bitmap.close()
    return image


def render_face_images(spec: Spec, opts: CardOptions, faces: Sequence[Face] | None = None) -> list[Any]:
    """PIL images of the faces at ``opts.dpi``, each exactly ``face_pixels(opts)`` in size."""
    import pypdfium2 as pdfium  # heavy and only needed here

    data, faces = render_faces_pdf(spec, opts, faces)
    size = face_pixels(opts)
    images = []
    pdf = pdfium.PdfDocument(data)
    try:
        for i in range(len(faces)):
            page = pdf[i]
            try:
                images.append(render_page_exact(page, size))
            finally:
                page.close()
    finally:
        pdf.close()
    return images


def png_bytes(image: Any, dpi: int) -> bytes:
    """A PNG with its resolution tagged (pHYs), deterministic: Pillow writes no dates."""
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), optimize=False)
    return out.getvalue()


def render_card_pngs(spec: Spec, opts: CardOptions) -> dict[str, bytes]:
    """``KEY.png`` of every face (``module-brain-active.png``, ...), tagged at ``opts.dpi``."""
    faces = ordered_faces(spec, opts.order)
    images = render_face_images(spec, opts, faces)
    return {f"{face.key}.png": png_bytes(im, opts.dpi) for face, im in zip(faces, images, strict=True)}


def write_card_pngs(spec: Spec, opts: CardOptions, png_dir: Path, dpi: int | None = None) -> list[Path]:
    """A PNG of every card face (``module-brain-active.png``, ``card-c01-mission.png``, ...)."""
    from dataclasses import replace

    if dpi is not None:
        opts = replace(opts, dpi=dpi)
    png_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, data in render_card_pngs(spec, opts).items():
        path = png_dir / name
        path.write_bytes(data)
        written.append(path)
    return written
