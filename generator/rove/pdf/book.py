"""The puzzle book PDF (``rove book``): title, rules reminder, grading page, one puzzle a
page, then the worked solutions, cross-referenced both ways.

Pages are A5 (default) or Letter.  Everything is vector in the embedded Vera fonts, and
ReportLab's invariant mode with fixed metadata makes the bytes depend only on the puzzles.
Layout is done in two passes: the solutions are paginated first (their heights do not
depend on page numbers), so every puzzle page can print "Solution p. N" and every
solution "Puzzle 7, p. 4".

Import this module only from ``rove.pdf`` code and the CLI; it imports ReportLab.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from reportlab.lib.colors import Color, white
from reportlab.pdfgen.canvas import Canvas

from ..actions import Action
from ..engine import Deck, State, deck_for, matched_cells, state_cells, state_from_position
from ..generators.deals import start_layout
from ..grid import Cell, Direction
from ..position import Position
from ..replay import states_along
from ..spec import Arrow, Card, Module, Pattern, Spec
from ..words import plural
from .cards import ABILITY_TEXT, MISSION_ACCENT, MODULE_ACCENT, MOVEMENT_ACCENT
from .fonts import (
    FONT,
    FONT_BOLD,
    FONT_ITALIC,
    clip_text,
    fit_lines,
    fit_size,
    register_fonts,
    text_width,
    wrap_text,
)
from .glyphs import INK, KIND_LEGEND, MIN_TEXT, draw_arrow, draw_compass, draw_legend, draw_pattern, legend_height

MM = 72.0 / 25.4
#: page sizes (points): A5 and A4, US Letter, and the 6 x 9 in trim of print-on-demand books
PAPERS: dict[str, tuple[float, float]] = {"a5": (148 * MM, 210 * MM), "a4": (210 * MM, 297 * MM),
                                          "letter": (612.0, 792.0), "6x9": (432.0, 648.0)}
#: extra inner margin (the binding gutter), as a share of the page width
GUTTER_SHARE = 0.035

SPENT_FILL = Color(0.80, 0.80, 0.80)
SPENT_INK = Color(0.32, 0.32, 0.33)
MOVED_FILL = Color(1.0, 0.86, 0.52)
RULER_INK = Color(0.45, 0.45, 0.47)
GRID_FAINT = Color(0.86, 0.86, 0.87)
MATCH_INK = MISSION_ACCENT
SOFT = Color(0.35, 0.35, 0.37)
STAR_INK = Color(0.20, 0.20, 0.22)


# --------------------------------------------------------------------------- what is printed


@dataclass(frozen=True)
class Hints:
    """A puzzle's three hints, as printed (``rove.book.hints`` reads them off the solution)."""

    module: str | None             # the module acting first; None when a card is played first
    first: tuple[Action, ...]      # the first action (a campaign: each mission's, in order)
    cells: dict[str, Cell]         # the halfway layout
    spent: frozenset[str]          # modules spent at halfway
    note: str                      # what the halfway diagram shows, in words


def hint_runs(h: Hints, kind: str, level: int, names: dict[str, str]) -> list[tuple[str, str]]:
    """Hint 1 or 2 of a puzzle as printed, in (font, text) runs; ``names`` the deck's
    module names by code.  Hint 3 is its diagram, and ``h.note`` says what it shows."""
    if level == 1:
        if h.module is None:  # a card first: which one (hint 2 says for which points)
            return [(FONT, "card "), (FONT_BOLD, str(h.first[0].card)), (FONT, " is played first.")]
        return [(FONT_BOLD, f"{names.get(h.module, h.module)} ({h.module})"), (FONT, " acts first.")]
    if kind == "campaign":
        runs = []
        for i, a in enumerate(h.first):
            runs += [(FONT, f"mission {i + 1}: "), (FONT_BOLD, str(a)),
                     (FONT, "; " if i < len(h.first) - 1 else ".")]
        return runs
    return [(FONT_BOLD, str(h.first[0])), (FONT, ".")]


@dataclass(frozen=True)
class BookPuzzle:
    """A puzzle as the book prints it (built from ``rove.book.puzzles.Puzzle``)."""

    number: int
    name: str              # export name, e.g. 07-mission
    kind: str              # mission | hand | deal
    title: str             # "Mission in 3", "Hand puzzle", "Verified deal (hard)"
    stars: int
    position: Position
    plan: tuple[Action, ...]
    notes: tuple[str, ...] = ()
    measured: tuple[str, ...] = ()   # the graded features, in words
    difficulty: str | None = None
    #: campaigns: (position, plan) per mission; each position carries the campaign's spec
    legs: tuple[tuple[Position, tuple[Action, ...]], ...] = ()
    hints: Hints | None = None       # the graded hints, printed before the solutions


@dataclass(frozen=True)
class BookInfo:
    title: str = "ROVE"                   # the cover's big line (and the PDF's title)
    subtitle: str = "Verified Puzzles"    # the line under it
    spec_name: str = "Standard deck"
    seed: int = 0
    paper: str = "a5"
    grading: tuple[tuple[str, str], ...] = ()
    kinds_text: tuple[tuple[str, str], ...] = ()
    later_text: str = ""
    example: BookPuzzle | None = None     # the worked puzzle of "How to solve one"
    per_page: int = 1                     # 2: neighbouring small Mission in N share a page


# --------------------------------------------------------------------------- small drawings


def draw_star(c: Canvas, cx: float, cy: float, r: float, filled: bool) -> None:
    """A five-pointed star: filled (earned) or outlined."""
    p = c.beginPath()
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.45
        a = math.radians(90 + 36 * k)
        x, y = cx + rad * math.cos(a), cy + rad * math.sin(a)
        if k == 0:
            p.moveTo(x, y)
        else:
            p.lineTo(x, y)
    p.close()
    c.saveState()
    c.setStrokeColor(STAR_INK)
    c.setFillColor(STAR_INK)
    c.setLineWidth(max(0.5, r * 0.12))
    c.setLineJoin(1)
    c.drawPath(p, stroke=1, fill=1 if filled else 0)
    c.restoreState()


def draw_stars(c: Canvas, right: float, cy: float, r: float, n: int, total: int = 5) -> float:
    """``total`` stars ending at ``right``, the first ``n`` filled; returns the left edge."""
    step = r * 2.3
    x0 = right - step * total + step / 2
    for i in range(total):
        draw_star(c, x0 + i * step, cy, r, i < n)
    return x0 - r


@dataclass(frozen=True)
class Frame:
    """The grid cells a layout diagram shows: columns x0..x1, rows y0..y1 (inclusive)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def cols(self) -> int:
        return self.x1 - self.x0 + 1

    @property
    def rows(self) -> int:
        return self.y1 - self.y0 + 1

    @classmethod
    def around(cls, cells: Sequence[Cell], pad: int = 1) -> Frame:
        xs = [x for x, _ in cells]
        ys = [y for _, y in cells]
        return cls(min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)

    def union(self, other: Frame) -> Frame:
        return Frame(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1),
                     max(self.y1, other.y1))


def layout_size(frame: Frame, cell: float, ruler: bool) -> tuple[float, float]:
    """Width and height a layout diagram takes (ruler included)."""
    r = ruler_room(cell) if ruler else 0.0
    return frame.cols * cell + r, frame.rows * cell + r


def ruler_room(cell: float) -> float:
    return max(11.0, cell * 0.55)  # room for "y\\x" and "-3" at MIN_TEXT


def draw_layout(c: Canvas, cells: dict[str, Cell], spent: frozenset[str] | set[str], frame: Frame,
                left: float, top: float, cell: float, ruler: bool = True,
                moved: frozenset[str] | set[str] = frozenset(),
                matched: frozenset[Cell] | set[Cell] = frozenset()) -> tuple[float, float]:
    """A layout on a faint grid with its top-left at (left, top): module tiles with their
    codes, spent modules grey with a slash, ``moved`` ones highlighted, ``matched`` cells (the
    completed mission) outlined; a coordinate ruler along the top and the left.  Returns the
    (width, height) used."""
    r = ruler_room(cell) if ruler else 0.0
    gx, gy = left + r, top - r  # top-left of the grid
    c.saveState()
    if ruler:
        size = max(MIN_TEXT, min(8.0, cell * 0.34))
        c.setFont(FONT, size)
        c.setFillColor(RULER_INK)
        for i in range(frame.cols):
            c.drawCentredString(gx + (i + 0.5) * cell, gy + (r - size) / 2 + size * 0.2,
                                str(frame.x0 + i))
        for j in range(frame.rows):
            c.drawRightString(gx - (r - size * 0.9) / 2 - size * 0.05,
                              gy - (j + 0.5) * cell - size * 0.35, str(frame.y0 + j))
        c.setFont(FONT_ITALIC, max(MIN_TEXT, size * 0.9))
        c.drawCentredString(left + r / 2, top - r / 2 - size * 0.3, "y\\x")
    c.setStrokeColor(GRID_FAINT)
    c.setLineWidth(max(0.3, cell * 0.02))
    for i in range(frame.cols + 1):
        c.line(gx + i * cell, gy, gx + i * cell, gy - frame.rows * cell)
    for j in range(frame.rows + 1):
        c.line(gx, gy - j * cell, gx + frame.cols * cell, gy - j * cell)
    pad = cell * 0.08
    s = cell - 2 * pad
    rad = cell * 0.16
    for code, (x, y) in sorted(cells.items()):
        if not (frame.x0 <= x <= frame.x1 and frame.y0 <= y <= frame.y1):
            continue
        px = gx + (x - frame.x0) * cell + pad
        py = gy - (y - frame.y0 + 1) * cell + pad
        is_spent = code in spent
        if code in moved:
            fill = MOVED_FILL
        elif is_spent:
            fill = SPENT_FILL
        else:
            fill = white
        _tile(c, px, py, s, rad, fill, is_spent, code in moved)
        c.setFillColor(SPENT_INK if is_spent else INK)
        fs = max(MIN_TEXT, s * 0.62)
        c.setFont(FONT_BOLD, fs)
        c.drawCentredString(px + s / 2, py + s / 2 - fs * 0.36, code)
    if matched:
        c.setStrokeColor(MATCH_INK)
        c.setLineWidth(max(0.7, cell * 0.06))
        c.setDash(max(1.0, cell * 0.12), max(0.8, cell * 0.08))
        for x, y in sorted(matched):
            px = gx + (x - frame.x0) * cell + pad * 0.2
            py = gy - (y - frame.y0 + 1) * cell + pad * 0.2
            c.roundRect(px, py, cell - pad * 0.4, cell - pad * 0.4, rad, stroke=1, fill=0)
        c.setDash()
    c.restoreState()
    return frame.cols * cell + r, frame.rows * cell + r


def _tile(c: Canvas, x: float, y: float, s: float, rad: float, fill: Color, spent: bool,
          moved: bool) -> None:
    """A module tile: white and solid when active, grey with a dashed edge when spent,
    amber with a heavy edge when it just moved."""
    c.setFillColor(fill)
    c.setStrokeColor(SPENT_INK if spent else INK)
    c.setLineWidth(max(0.6, s * (0.08 if moved else 0.05)))
    if spent:
        c.setDash(max(0.8, s * 0.12), max(0.6, s * 0.07))
    c.roundRect(x, y, s, s, rad, stroke=1, fill=1)
    if spent:
        c.setDash()


def draw_layout_key(c: Canvas, cx: float, y: float, size: float, moved: bool = False,
                    matched: bool = False) -> float:
    """A one-line key to the layout diagrams centred on cx (baseline y); returns its width."""
    items = [("active module", white, False, False), ("spent module (ability used)", SPENT_FILL, True, False)]
    if moved:
        items.append(("moved by this step", MOVED_FILL, False, True))
    sw, gap = size * 1.35, size * 1.2
    widths = [sw + size * 0.4 + text_width(t, FONT, size) for t, *_ in items]
    extra = 0.0
    if matched:
        extra = gap + sw + size * 0.4 + text_width("mission cells", FONT, size)
    total = sum(widths) + gap * (len(items) - 1) + extra
    x = cx - total / 2
    c.saveState()
    for (text, fill, spent, mv), w in zip(items, widths):
        _tile(c, x, y - sw * 0.22, sw, sw * 0.18, fill, spent, mv)
        c.setFillColor(INK)
        c.setFont(FONT, size)
        c.drawString(x + sw + size * 0.4, y, text)
        x += w + gap
    if matched:
        c.setStrokeColor(MATCH_INK)
        c.setLineWidth(0.8)
        c.setDash(1.2, 0.9)
        c.roundRect(x, y - sw * 0.22, sw, sw, sw * 0.18, stroke=1, fill=0)
        c.setDash()
        c.setFillColor(INK)
        c.setFont(FONT, size)
        c.drawString(x + sw + size * 0.4, y, "mission cells")
    c.restoreState()
    return total


def combined_legend_pattern(patterns: Sequence[Pattern]) -> Pattern:
    """A pattern holding one cell of every mark the given patterns use (for one legend)."""
    marks: list[str] = []
    for p in patterns:
        for _, v in p.cells:
            if v not in marks:
                marks.append(v)
    return Pattern.from_cells({(i, 0): v for i, v in enumerate(marks)})


# --------------------------------------------------------------------------- text


class Pen:
    """Text helpers bound to a canvas."""

    def __init__(self, c: Canvas) -> None:
        self.c = c

    def para(self, text: str, x: float, top: float, width: float, font: str = FONT,
             size: float = 8.0, leading: float = 1.3, color: Color = INK) -> float:
        """A wrapped paragraph with its first line's top at ``top``; returns the height."""
        lines = wrap_text(text, font, size, width)
        self.c.setFillColor(color)
        self.c.setFont(font, size)
        for i, line in enumerate(lines):
            self.c.drawString(x, top - size - i * size * leading, line)
        return len(lines) * size * leading

    @staticmethod
    def para_height(text: str, width: float, font: str = FONT, size: float = 8.0,
                    leading: float = 1.3) -> float:
        return len(wrap_text(text, font, size, width)) * size * leading

    def rich(self, runs: Sequence[tuple[str, str]], x: float, top: float, width: float,
             size: float = 8.0, leading: float = 1.3, color: Color = INK) -> float:
        """Wrapped text made of (font, text) runs; returns the height."""
        lines = rich_lines(runs, width, size)
        self.c.setFillColor(color)
        for i, line in enumerate(lines):
            # one text object a line, one string per font change: the text extracts (and
            # copies) as the words and spaces it is
            t = self.c.beginText(x, top - size - i * size * leading)
            merged: list[tuple[str, str]] = []
            for font, word in line:
                if merged and merged[-1][0] == font:
                    merged[-1] = (font, merged[-1][1] + word)
                else:
                    merged.append((font, word))
            for font, text in merged:
                t.setFont(font, size)
                t.textOut(text)
            self.c.drawText(t)
        return len(lines) * size * leading


def rich_lines(runs: Sequence[tuple[str, str]], width: float, size: float,
               ) -> list[list[tuple[str, str]]]:
    """Greedy wrap of (font, text) runs; words keep their font, spaces go with the word."""
    words: list[tuple[str, str]] = []
    for font, text in runs:
        parts = text.split(" ")
        for i, part in enumerate(parts):
            if i > 0:
                words.append((font, " "))
            if part:
                words.append((font, part))
    lines: list[list[tuple[str, str]]] = [[]]
    used = 0.0
    for font, word in words:
        w = text_width(word, font, size)
        if word == " ":
            if lines[-1]:
                lines[-1].append((font, word))
                used += w
            continue
        if used + w > width and lines[-1]:
            while lines[-1] and lines[-1][-1][1] == " ":
                lines[-1].pop()
            lines.append([])
            used = 0.0
        lines[-1].append((font, word))
        used += w
    return [ln for ln in lines if ln]


def rich_height(runs: Sequence[tuple[str, str]], width: float, size: float = 8.0,
                leading: float = 1.3) -> float:
    return len(rich_lines(runs, width, size)) * size * leading


# --------------------------------------------------------------------------- flowing pages


@dataclass
class Item:
    """A piece of a flowing page: its height and how to draw it at (left, top)."""

    height: float
    draw: Callable[[Canvas, float, float], object]  # what it returns is not used
    keep_with_next: bool = False


@dataclass
class Block:
    """Items that belong together; kept on one page when they fit on one."""

    key: int
    items: list[Item] = field(default_factory=list)
    gap_after: float = 14.0

    @property
    def height(self) -> float:
        return sum(i.height for i in self.items)


def paginate(blocks: Sequence[Block], avail: float) -> tuple[list[list[tuple[Item, float]]], dict[int, int]]:
    """Place blocks top-down on pages of height ``avail``.  Returns the pages (items with
    their offset from the top) and, per block key, the index of the page it starts on."""
    pages: list[list[tuple[Item, float]]] = [[]]
    y = 0.0
    starts: dict[int, int] = {}
    for block in blocks:
        if pages[-1] and y + block.height > avail and block.height <= avail:
            pages.append([])
            y = 0.0
        items = block.items
        i = 0
        first = True
        while i < len(items):
            # the run of keep-with-next items and the item after them stay together
            j = i
            while j < len(items) - 1 and items[j].keep_with_next:
                j += 1
            run = items[i:j + 1]
            h = sum(it.height for it in run)
            if pages[-1] and y + h > avail:
                pages.append([])
                y = 0.0
            if first:
                starts[block.key] = len(pages) - 1
                first = False
            for it in run:
                pages[-1].append((it, y))
                y += it.height
            i = j + 1
        y += block.gap_after
    return pages, starts


# --------------------------------------------------------------------------- the book


class BookWriter:
    def __init__(self, spec: Spec, puzzles: Sequence[BookPuzzle], info: BookInfo) -> None:
        self.spec = spec
        self.puzzles = list(puzzles)
        self.info = info
        self.W, self.H = PAPERS[info.paper]
        self.big = info.paper in ("letter", "a4")
        # scale of sizes relative to A5 (the tighter of width and height)
        self.k = min(self.W / PAPERS["a5"][0], self.H / PAPERS["a5"][1])
        self.margin = 30.0 * self.k
        # a bound book loses some of each page to the spine: the inner margin is wider by
        # the gutter (left on odd pages, right on even ones; ``begin_page`` shifts the page)
        self.gutter = round(GUTTER_SHARE * self.W, 2)
        self.cw = self.W - 2 * self.margin - self.gutter
        self.right = self.margin + self.cw  # the right edge of the text block
        self.cx = self.margin + self.cw / 2  # its centre
        self.names = {m.code: m.name for m in spec.modules}
        self.deck = deck_for(spec)
        # front matter: title, the contents (a line a puzzle), rules, grading
        self.contents_lines = max(1, int((self.H - 2 * self.margin - 60 * self.k) / (self.fs(8) * 1.75)))
        contents_pages = -(-len(self.puzzles) // self.contents_lines) or 1
        self.contents_page_no = 2
        self.rules_page_no = self.contents_page_no + contents_pages
        self.grading_page_no = self.rules_page_no + 1
        self.example_page_no = self.grading_page_no + 1 if info.example else None
        self.first_puzzle_page = self.grading_page_no + 1 + (1 if info.example else 0)
        self.sheets = self._sheets()
        self.page_of = {p.number: self.first_puzzle_page + i
                        for i, sheet in enumerate(self.sheets) for p in sheet}
        self.page_no = 0

    # ------------------------------------------------------------------ geometry helpers
    def fs(self, size: float) -> float:
        """A font size scaled to the paper (A5 is the reference)."""
        return round(size * (1 + (self.k - 1) * 0.55), 2)

    def puzzle_page(self, p: BookPuzzle) -> int:
        return self.page_of[p.number]

    #: the largest layout frame (columns, rows) that a half page shows legibly
    HALF_FRAME = (9, 7)

    def _fits_half(self, p: BookPuzzle) -> bool:
        """Whether ``p`` reads well on half a page: a Mission in N whose layout is small and
        whose spent modules move as their active sides (no spent-side strip to show)."""
        if p.kind != "mission" or self._spent_differently(p.position.spent):
            return False
        fr = Frame.around(list(p.position.cells.values()), 1)
        return fr.cols <= self.HALF_FRAME[0] and fr.rows <= self.HALF_FRAME[1]

    def _sheets(self) -> list[list[BookPuzzle]]:
        """The puzzle pages: one puzzle each, or with ``per_page`` 2 two neighbouring
        puzzles that both fit half a page (book order is kept)."""
        out: list[list[BookPuzzle]] = []
        i = 0
        while i < len(self.puzzles):
            p = self.puzzles[i]
            if (self.info.per_page == 2 and i + 1 < len(self.puzzles) and self._fits_half(p)
                    and self._fits_half(self.puzzles[i + 1])):
                out.append([p, self.puzzles[i + 1]])
                i += 2
            else:
                out.append([p])
                i += 1
        return out

    # ------------------------------------------------------------------ whole document
    def render(self) -> bytes:
        register_fonts()
        sol_blocks = [self.solution_block(p) for p in self.puzzles]
        top_room = 22.0 * self.k
        avail = self.H - 2 * self.margin - top_room - 8 * self.k
        sol_pages, starts = paginate(sol_blocks, avail)
        hint_pages, hint_starts = paginate(self.hint_blocks(), avail)
        hint_pages = [page for page in hint_pages if page]
        self.first_hint_page = self.first_puzzle_page + len(self.sheets)
        #: the page of each level of hints (1, 2, 3)
        self.hint_page = {level: self.first_hint_page + at for level, at in hint_starts.items()}
        self.first_solution_page = self.first_hint_page + len(hint_pages)
        self.solution_page = {p.number: self.first_solution_page + starts[p.number]
                              for p in self.puzzles}
        buf = io.BytesIO()
        c = Canvas(buf, pagesize=(self.W, self.H), invariant=1, pageCompression=1,
                   initialFontName=FONT, initialFontSize=8)
        c.setTitle(f"{self.info.title}: {self.info.subtitle}" if self.info.subtitle else self.info.title)
        c.setAuthor("rove")
        c.setSubject(f"ROVE puzzle book, deck '{self.spec.name}', seed {self.info.seed}")
        c.setCreator("rove book")
        c.setKeywords("ROVE, puzzles, solitaire")
        self.c = c
        self.pen = Pen(c)
        self.title_page()
        self.contents_pages()
        self.rules_page()
        self.grading_page()
        if self.info.example is not None:
            self.example_page(self.info.example)
        for sheet in self.sheets:
            if len(sheet) == 1:
                self.puzzle(sheet[0])
            else:
                self.puzzle_pair(sheet)
        for i, page in enumerate(hint_pages):
            self.begin_page()
            self.running_head("Hints" + (" (continued)" if i else ""),
                              "try one level at a time")
            top = self.H - self.margin - top_room
            for item, off in page:
                item.draw(c, self.margin, top - off)
            self.end_page()
        for i, page in enumerate(sol_pages):
            self.begin_page()
            self.running_head("Solutions" + (" (continued)" if i else ""))
            top = self.H - self.margin - top_room
            for item, off in page:
                item.draw(c, self.margin, top - off)
            self.end_page()
        c.save()
        return buf.getvalue()

    def begin_page(self) -> None:
        """A new page; an odd (right-hand) page's text block moves away from the spine."""
        self.page_no += 1
        self.shift = self.gutter if self.page_no % 2 else 0.0
        self.c.translate(self.shift, 0)

    def end_page(self) -> None:
        c = self.c
        if self.page_no > 1:
            c.setFillColor(SOFT)
            c.setFont(FONT, self.fs(8))
            c.drawCentredString(self.cx, self.margin * 0.5, str(self.page_no))
        c.showPage()

    def running_head(self, text: str, right: str = "") -> None:
        c = self.c
        y = self.H - self.margin + 4 * self.k
        c.setFillColor(SOFT)
        c.setFont(FONT_BOLD, self.fs(7))
        c.drawString(self.margin, y, text.upper())
        if right:
            c.setFont(FONT, self.fs(7))
            c.drawRightString(self.right, y, right)
        c.setStrokeColor(GRID_FAINT)
        c.setLineWidth(0.6)
        c.line(self.margin, y - 4 * self.k, self.right, y - 4 * self.k)

    def heading(self, text: str, top: float, size: float = 15) -> float:
        c = self.c
        size = self.fs(size)
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, size)
        c.drawString(self.margin, top - size, text)
        return size * 1.5

    # ------------------------------------------------------------------ front matter
    def title_page(self) -> None:
        self.begin_page()
        c, pen, k = self.c, self.pen, self.k
        info = self.info
        top = self.H - self.margin - 60 * k
        c.setFillColor(MODULE_ACCENT)
        c.rect(-self.shift, self.H - 150 * k, self.W, 150 * k, stroke=0, fill=1)
        # a small decorative layout: the deck's own modules at the standard start, the
        # second one spent
        codes = self.spec.codes
        demo = start_layout(codes)
        fr = Frame.around(list(demo.values()), 0)
        cell = min(18 * k, 120 * k / max(fr.cols, 1), 100 * k / max(fr.rows, 1))
        draw_layout(c, demo, set(codes[1:2]), fr, self.right - fr.cols * cell,
                    self.H - 40 * k, cell, ruler=False)
        # the title lines, shrunk (then cut) to the room left of the layout
        room = self.cw - fr.cols * cell - 10 * k
        c.setFillColor(white)
        for text, font, want, down in ((info.title, FONT_BOLD, 30.0, 80), (info.subtitle, FONT, 15.0, 104),
                                       (f"{len(self.puzzles)} puzzles · {info.spec_name} · seed {info.seed}",
                                        FONT, 8.5, 124)):
            size = fit_size(text, font, self.fs(want), room, self.fs(want) * 0.45)
            c.setFont(font, size)
            c.drawString(self.margin, self.H - down * k, clip_text(text, font, size, room))
        top = self.H - 175 * k
        intro = ("Every puzzle in this book was generated from the card spec and proven by the "
                 "solvers: each one has a solution, the optimum stated is the true optimum, and "
                 "every printed solution was replayed move by move through the rules engine. "
                 "The puzzles ramp from gentle (one star) to brutal (five stars).")
        top -= pen.para(intro, self.margin, top, self.cw, size=self.fs(9), leading=1.35) + 10 * k
        for head, text in info.kinds_text:
            top -= pen.rich([(FONT_BOLD, head + ". "), (FONT, text)], self.margin, top, self.cw,
                            size=self.fs(8.5), leading=1.35) + 5 * k
        top -= pen.rich([(FONT_BOLD, "How to use it. "), (FONT,
                         "Each puzzle has a page of its own, with its grade, the layout on a "
                         "ruled grid and pointers to its hints (three levels, each giving away "
                         "a little more) and its worked solution at the back. Every "
                         "puzzle is also exported as a position file with its solution (rove "
                         "book --export-dir), so rove solve and rove replay can check it again.")],
                        self.margin, top, self.cw, size=self.fs(8.5), leading=1.35) + 5 * k
        if info.later_text:
            top -= pen.para(info.later_text, self.margin, top, self.cw, font=FONT_ITALIC,
                            size=self.fs(8), leading=1.35) + 5 * k
        top -= 10 * k
        top -= self.heading("Contents", top, 12)
        rows = [("Every puzzle, with its kind and grade", self.contents_page_no),
                ("Rules reminder and notation", self.rules_page_no),
                ("How the puzzles are graded", self.grading_page_no),
                *((("How to solve one: a worked example", self.example_page_no),)
                  if self.example_page_no else ()),
                (f"Puzzles 1-{len(self.puzzles)}", self.first_puzzle_page),
                *((("Hints, in three levels", self.first_hint_page),) if self.hint_page else ()),
                ("Solutions", self.first_solution_page)]
        c.setFont(FONT, self.fs(9))
        for text, page in rows:
            y = top - self.fs(9)
            c.setFillColor(INK)
            c.drawString(self.margin, y, text)
            c.drawRightString(self.right, y, f"p. {page}")
            c.setStrokeColor(GRID_FAINT)
            c.setDash(1, 2)
            c.line(self.margin + text_width(text, FONT, self.fs(9)) + 4, y + 1,
                   self.right - text_width(f"p. {page}", FONT, self.fs(9)) - 4, y + 1)
            c.setDash()
            top -= self.fs(9) * 1.7
        self.end_page()

    def contents_pages(self) -> None:
        """Every puzzle on a line: number, title, kind's grade in stars, its page."""
        c, k = self.c, self.k
        fs = self.fs(8)
        step = fs * 1.75
        for first in range(0, max(len(self.puzzles), 1), self.contents_lines):
            self.begin_page()
            self.running_head("Contents" + (" (continued)" if first else ""))
            top = self.H - self.margin - 16 * k
            if first == 0:
                top -= self.heading("The puzzles", top, 13)
            for i, p in enumerate(self.puzzles[first:first + self.contents_lines]):
                y = top - fs - i * step
                c.setFillColor(INK)
                c.setFont(FONT_BOLD, fs)
                c.drawRightString(self.margin + 14 * k, y, f"{p.number}.")
                c.setFont(FONT, fs)
                c.drawString(self.margin + 19 * k, y, p.title)
                page = f"p. {self.puzzle_page(p)}"
                c.drawRightString(self.right, y, page)
                stars_right = self.right - text_width("p. 000", FONT, fs) - 8 * k
                left = draw_stars(c, stars_right, y + fs * 0.35, 3.4 * k, p.stars)
                c.setStrokeColor(GRID_FAINT)
                c.setDash(1, 2)
                c.line(self.margin + 19 * k + text_width(p.title, FONT, fs) + 4, y + 1, left - 6 * k, y + 1)
                c.setDash()
            self.end_page()

    def rules_page(self) -> None:
        self.begin_page()
        c, pen, k = self.c, self.pen, self.k
        self.running_head("Rules reminder")
        top = self.H - self.margin - 16 * k
        top -= self.heading("Rules reminder", top, 13)
        fs = self.fs(7.1)
        text = [
            [(FONT_BOLD, "Table and moves. "), (FONT, "Modules sit on a square grid, one per cell, "
             "and must always form one group: each touches another, edge or corner. Each module "
             "move costs 1 movement point of the current card (or of the bare budget); a module "
             "moves along its arrows:")],
        ]
        for runs in text:
            top -= pen.rich(runs, self.margin, top, self.cw, size=fs, leading=1.3) + 2 * k
        # the four arrow kinds
        kinds = list(KIND_LEGEND.items())
        colw = self.cw / 4
        gy = top - 9 * k
        for i, (kind, what) in enumerate(kinds):
            x = self.margin + i * colw
            c.saveState()
            c.translate(x + 4 * k, gy)
            draw_arrow(c, kind, 0, 26 * k, width=1.6 * k)
            c.restoreState()
            c.setFillColor(INK)
            c.setFont(FONT_BOLD, fs)
            c.drawString(x + 33 * k, gy + 1 * k, kind)
            c.setFont(FONT, fs * 0.92)
            for j, line in enumerate(wrap_text(what, FONT, fs * 0.92, colw - 34 * k)):
                c.drawString(x + 33 * k, gy - fs * 1.05 * (j + 1) + 1 * k, line)
        top = gy - 3 * fs - 4 * k
        # module table: every module's arrows, and its spent side's beside them when a
        # module of the deck moves differently once spent (the reader checks solutions
        # against both)
        two_sides = any(m.spent_arrows != m.arrows for m in self.spec.modules)
        if two_sides:
            top -= pen.rich([(FONT_BOLD, "Two sides. "), (FONT, "Arrows of the side facing up: "
                             "active (white) until the ability is used, then spent (grey).")],
                            self.margin, top, self.cw, size=fs, leading=1.3) + 1 * k
        row_h = (26.5 if two_sides else 24) * k
        for m in self.spec.modules:
            cy = top - row_h / 2
            ix = self.margin + 13 * k
            self._module_icon(m.code, m.arrows, False, ix, cy)
            x = self.margin + 32 * k
            lines = ["; ".join(f"{a.kind} {_dirs_text(a.dirs)}" for a in m.arrows)]
            if two_sides:
                self._module_icon(m.code, m.spent_arrows, True, ix + 30 * k, cy)
                x += 30 * k
                lines = [f"active: {lines[0]}", "spent: " + ("the same" if m.spent_arrows == m.arrows else
                                                             "; ".join(f"{a.kind} {_dirs_text(a.dirs)}"
                                                                       for a in m.spent_arrows))]
            c.setFillColor(INK)
            c.setFont(FONT_BOLD, fs)
            c.drawString(x, cy + 1.5 * k, m.name)
            c.setFont(FONT, fs * 0.9)
            for j, line in enumerate(lines):
                c.drawString(x, cy - fs * 0.95 * (j + 1), line)
            ab = ABILITY_TEXT.get(m.ability, m.ability)
            ax = self.margin + (166 if two_sides else 128) * k
            lines = wrap_text(ab, FONT, fs, self.right - ax)
            yy = cy + (len(lines) * fs * 1.2) / 2 - fs * 0.85
            for line in lines:
                c.drawString(ax, yy, line)
                yy -= fs * 1.2
            top -= row_h
        top -= 4 * k
        more = [
            [(FONT_BOLD, "Abilities "), (FONT, "cost no points and need no card: flip the module to "
             "spent, then resolve. A spent module still moves"
             + (", along its spent side's arrows. " if two_sides else ". ") + "Gripper triggers a neighbour's "
             "ability, even a spent one's; via Gripper, Brain places next to Brain and Coil "
             "moves Coil.")],
            [(FONT_BOLD, "Cards. "), (FONT, "Playing a movement card discards the current card or "
             "budget (unspent points are lost) and gives its base points, or its bonus points if "
             "the layout matches its bonus pattern right now. An empty draw pile is refilled by "
             "turning the discard pile over, oldest card on top.")],
            [(FONT_BOLD, "Patterns "), (FONT, "match by shifting only (no turning or mirroring): "
             "a grey cell needs any module, a letter that module, a crossed cell an empty cell. "
             "A mission is complete the moment the layout matches it.")],
            [(FONT_BOLD, "Coordinates. "), (FONT, "x grows to the right, y down; the top-left cell "
             "of each puzzle's layout is 0,0 and keeps its number all puzzle long (cells may go "
             "negative). The rulers on the diagrams give the numbers.")],
        ]
        for runs in more:
            top -= pen.rich(runs, self.margin, top, self.cw, size=fs, leading=1.3) + 2.5 * k
        top -= 2 * k
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, self.fs(9))
        c.drawString(self.margin, top - self.fs(9), "Notation")
        top -= self.fs(9) * 1.5
        rows = [("play c02+", "play card c02 for its bonus (its pattern must match now)"),
                ("play c02-", "play c02 for its base points"),
                ("B E2", "move B two cells east (1 point)"),
                ("L swap B C", "Laser's ability: B and C trade cells"),
                ("M shift S NE", "Motor's ability: S moves one cell north-east"),
                ("B place G 2,-1", "Brain's ability: G goes to cell 2,-1, next to B"),
                ("C to 3,1", "Coil's ability: C goes to cell 3,1"),
                ("S draw", "Sensor's ability: draw a card"),
                ("G via L swap B C", "Gripper triggers its neighbour Laser's ability")]
        code_w = max(text_width(code, FONT_BOLD, fs) for code, _ in rows) + 8 * k
        for i, (code, what) in enumerate(rows):
            y = top - fs - i * fs * 1.5
            c.setFont(FONT_BOLD, fs)
            c.setFillColor(INK)
            c.drawString(self.margin, y, code)
            c.setFont(FONT, fs)
            c.setFillColor(SOFT)
            c.drawString(self.margin + code_w, y, what)
        top -= len(rows) * fs * 1.5 + 5 * k
        top -= self.pen.rich([(FONT_BOLD, "Diagrams. "), (FONT, "Solutions show the layout after "
                              "each step that moves something; card plays and draws go with the "
                              "next diagram.")], self.margin, top, self.cw, size=fs, leading=1.3)
        draw_layout_key(c, self.cx, top - 4 * k - self.fs(6.5), self.fs(6.5), moved=True,
                        matched=True)
        self.end_page()

    def _module_icon(self, code: str, arrows: Sequence[Arrow], spent: bool, ix: float, cy: float,
                     scale: float = 1.0) -> None:
        """A module tile (white when active, grey and dashed when spent) with the side's
        arrows around it, centred on (ix, cy)."""
        c, k = self.c, self.k * scale
        t = 10 * k
        c.saveState()
        if spent:
            _tile(c, ix - t / 2, cy - t / 2, t, 2 * k, SPENT_FILL, True, False)
        else:
            c.setFillColor(white)
            c.setStrokeColor(INK)
            c.setLineWidth(0.8)
            c.roundRect(ix - t / 2, cy - t / 2, t, t, 2 * k, stroke=1, fill=1)
        c.setFillColor(SPENT_INK if spent else INK)
        c.setFont(FONT_BOLD, t * 0.66)
        c.drawCentredString(ix, cy - t * 0.23, code)
        c.restoreState()
        draw_compass(c, arrows, ix, cy, 6.5 * k, 13 * k, width=0.8 * k, color=SPENT_INK if spent else INK)

    def grading_page(self) -> None:
        self.begin_page()
        pen, k = self.pen, self.k
        self.running_head("How the puzzles are graded")
        top = self.H - self.margin - 16 * k
        for i, (head, text) in enumerate(self.info.grading):
            # the reader's part first; the technical note after it, in smaller type
            size = self.fs(7.8 if i == 0 else 6.3)
            if i == 0:
                top -= self.heading(head, top, 13)
            else:
                c = self.c
                c.setFillColor(INK)
                c.setFont(FONT_BOLD, self.fs(9 if i == 1 else 7.6))
                c.drawString(self.margin, top - self.fs(9 if i == 1 else 7.6), head)
                top -= self.fs(9 if i == 1 else 7.6) * 1.5
            for line in text.split("\n"):
                if line.startswith("+"):  # a bullet with a hanging indent
                    c = self.c
                    c.setFillColor(INK)
                    c.setFont(FONT, size)
                    c.drawString(self.margin + 4 * k, top - size, "•")
                    # (a term of the score keeps its sign; the reader's list drops it)
                    top -= pen.para(line[1:].strip() if i == 0 else line, self.margin + 12 * k, top,
                                    self.cw - 12 * k,
                                    size=size, leading=1.3) + 1 * k
                else:
                    top -= pen.para(line, self.margin, top, self.cw, size=size,
                                    leading=1.3) + 1 * k
            top -= (5 if i == 0 else 3) * k
            if i == 0:
                top -= self.star_scale(top)
        self.end_page()

    def star_scale(self, top: float) -> float:
        """The star scale, with how many puzzles of each grade this book holds, below
        ``top``; returns the height used."""
        c, k = self.c, self.k
        for n in range(1, 6):
            y = top - 10 * k - (n - 1) * 14 * k
            draw_stars(c, self.margin + 60 * k, y + 3 * k, 4.2 * k, n)
            c.setFillColor(INK)
            c.setFont(FONT, self.fs(8))
            c.drawString(self.margin + 68 * k, y, ("gentle", "easy", "tricky", "hard",
                                                     "brutal")[n - 1])
            here = [p for p in self.puzzles if p.stars == n]
            counts = [(sum(p.kind == kind for p in here), one, many) for kind, one, many in (
                ("mission", "Mission in N", "Mission in N"), ("hand", "hand puzzle", "hand puzzles"),
                ("deal", "deal", "deals"), ("campaign", "campaign", "campaigns"))]
            kinds = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts if n)
            c.setFillColor(SOFT)
            c.drawString(self.margin + 112 * k, y,
                         f"{len(here)} puzzle{'s' if len(here) != 1 else ''}" + (f": {kinds}" if kinds else ""))
        return 5 * 14 * k + 2 * k

    # ------------------------------------------------------------------ the worked example
    def example_page(self, p: BookPuzzle) -> None:
        """"How to solve one": a small Mission in N (not one of the book's), the way to
        think about it, and its solution step by step, each step in words and drawn."""
        self.begin_page()
        c, pen, k = self.c, self.pen, self.k
        self.running_head("How to solve one")
        top = self.H - self.margin - 16 * k
        top -= self.heading("How to solve one", top, 13)
        pos = p.position
        card = self.spec.card(pos.mission)
        n = pos.current.points if pos.current else 0
        fs = self.fs(7.8)
        # the puzzle, small: layout left, mission right
        frame = Frame.around(list(pos.cells.values()), 1)
        cell = min(20 * k, (self.cw * 0.55) / (frame.cols + 0.6), 110 * k / (frame.rows + 0.6))
        w, h = layout_size(frame, cell, True)
        draw_layout(c, pos.cells, pos.spent, frame, self.margin, top, cell)
        px = self.margin + max(w, self.cw * 0.55) + 8 * k
        pw = self.right - px
        ph = min(h, 96 * k)
        self.panel(px, top - ph, pw, ph, MISSION_ACCENT)
        c.setFillColor(MISSION_ACCENT)
        c.setFont(FONT_BOLD, self.fs(6.5))
        c.drawString(px + 5 * k, top - 10 * k, f"MISSION · {card.mission.title}")
        draw_pattern(c, card.mission.pattern, px + pw / 2, top - 14 * k - (ph - 20 * k) / 2,
                     pw - 12 * k, ph - 24 * k, max_cell=16 * k)
        top -= max(h, ph) + 8 * k
        spent = sorted(pos.spent)
        active = [x for x in self.spec.codes if x not in pos.spent]
        steps = [
            ("Read the task. ", f"A bare budget of {plural(n, 'point')} and no cards: every move along "
             "an arrow costs 1 point. " + (f"Spent: {' '.join(spent)}. " if spent else "") +
             (f"Abilities still free to use: {' '.join(active)}." if active else "No ability is left.")),
            ("Find the shape. ", f"The mission {card.mission.title} is matched when some shift of its "
             "pattern puts the named module on its letter and any modules on the grey cells. Look "
             "for the place where the layout already holds most of the shape, with the named "
             "module closest to its cell."),
            ("Count before you move. ", f"Each module that must change cells costs at least one move "
             f"(or a free ability). If that count is above {n}, look for another place, or an "
             "ability that moves a module for nothing."),
            ("The solution. ", "Here it is, step by step:"),
        ]
        for head, text in steps:
            top -= pen.rich([(FONT_BOLD, head), (FONT, text)], self.margin, top, self.cw, size=fs,
                            leading=1.3) + 3 * k
        states = _replay_states(self.deck, pos, p.plan)
        for i, a in enumerate(p.plan):
            runs = [(FONT_BOLD, f"{i + 1}. {a}  "), (FONT, action_words(a, self.spec))]
            top -= pen.rich(runs, self.margin + 8 * k, top, self.cw - 8 * k, size=fs, leading=1.3) + 1 * k
        top -= 4 * k
        block = Block(0)
        self._step_diagrams(block, p, states)
        for item in block.items:
            item.draw(c, self.margin, top)
            top -= item.height
        pen.para(f"The layout now matches {card.mission.title}: the mission is complete, with "
                 f"{plural(n, 'point')} spent, the fewest possible. Every puzzle in this book "
                 "works the same way; the hints before the solutions help one step at a time.",
                 self.margin, top - 2 * k, self.cw, font=FONT_ITALIC, size=fs, color=SOFT)
        self.end_page()

    # ------------------------------------------------------------------ a puzzle page
    def puzzle(self, p: BookPuzzle) -> None:
        if p.kind == "campaign":
            self.campaign(p)
            return
        self.begin_page()
        c, pen, k = self.c, self.pen, self.k
        pos = p.position
        spec = self.spec
        top = self.title_line(p)
        card = spec.card(pos.mission)
        task = self.task_text(p)
        top -= pen.para(task, self.margin, top, self.cw, size=self.fs(8.5), leading=1.35) + 8 * k

        # the layout
        cells = pos.cells
        frame = Frame.around(list(cells.values()), 1)
        if p.kind == "deal":
            lay_h = 120 * k
        elif p.kind == "hand":
            lay_h = 170 * k
        else:
            lay_h = 230 * k
        strip = self.spent_sides_height(pos.spent)
        lay_h -= strip
        cell = min(38.0 * k, (self.cw - 12 * k) / (frame.cols + 0.6), lay_h / (frame.rows + 0.6))
        w, h = layout_size(frame, cell, True)
        draw_layout(c, cells, pos.spent, frame, self.margin + (self.cw - w) / 2, top, cell)
        top -= h + 4 * k
        draw_layout_key(c, self.cx, top - self.fs(6.5), self.fs(6.5))
        top -= self.fs(6.5) * 2 + 6 * k
        top -= self.spent_sides(pos.spent, top)

        # mission panel (left) and facts (right)
        panel_w = self.cw * 0.46
        panel_h = {"mission": 112 * k, "hand": 96 * k}.get(p.kind, 80 * k)
        self.mission_panel(card, self.margin, top, panel_w, panel_h)
        fx = self.margin + panel_w + 10 * k
        fw = self.cw - panel_w - 10 * k
        ft = top
        for runs in self.facts(p):
            ft -= pen.rich(runs, fx, ft, fw, size=self.fs(7.6), leading=1.3) + 3 * k
        top -= max(panel_h, top - ft) + 8 * k

        patterns = [card.mission.pattern]
        if p.kind == "hand":
            top -= self.hand_row(pos.hand, top, patterns)
        if p.kind == "deal":
            top -= self.deck_order(pos, top)
        self.footer(p, patterns, top)
        self.end_page()

    def footer(self, p: BookPuzzle, patterns: list[Pattern], top: float, bottom: float | None = None) -> None:
        """The legend of every pattern on the page (below ``top``, above the footer), the
        cross-references to the hints and the solution, a box to tick and the export name,
        on a line at ``bottom`` (the page's bottom margin unless given)."""
        c, k = self.c, self.k
        base = self.margin if bottom is None else bottom
        footer_room = (34 if bottom is None else 16) * k
        legend = combined_legend_pattern(patterns)
        lh = legend_height(legend, self.names, self.cw, self.fs(6.5))
        y_leg = max(base + footer_room - 6 * k + lh, min(top, base + footer_room + lh))
        draw_legend(c, legend, self.names, self.cx, y_leg, self.cw, self.fs(6.5))
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, self.fs(8))
        ref = f"Solution p. {self.solution_page[p.number]}"
        if p.kind == "deal":
            ref = f"Winning line: solution p. {self.solution_page[p.number]}"
        if p.hints is not None and self.hint_page:
            lo, hi = min(self.hint_page.values()), max(self.hint_page.values())
            ref = (f"Hints p. {lo}" if lo == hi else f"Hints pp. {lo}-{hi}") + " · " + ref
        c.drawRightString(self.right, base + 4 * k, ref)
        # a box to tick, and the export name
        box = self.fs(7)
        c.setStrokeColor(INK)
        c.setLineWidth(0.6)
        c.rect(self.margin, base + 3 * k, box, box, stroke=1, fill=0)
        c.setFillColor(INK)
        c.setFont(FONT, self.fs(7))
        c.drawString(self.margin + box + 3 * k, base + 4 * k, "solved")
        c.setFont(FONT, self.fs(6.5))
        c.setFillColor(SOFT)
        c.drawString(self.margin + box + 6 * k + text_width("solved", FONT, self.fs(7)), base + 4 * k,
                     f"· rove book · {p.name}")

    def mission_panel(self, card: Card, x: float, top: float, w: float, h: float, compact: bool = False) -> None:
        """A mission card's panel with its top-left at (x, top): the MISSION label, the
        card's id, its title and its pattern (``compact``: the half-page puzzle's sizes)."""
        c, k = self.c, self.k
        pad, title_size, title_down, max_cell = (5, 7.8, 20, 16) if compact else (6, 8.5, 21, 20)
        self.panel(x, top - h, w, h, MISSION_ACCENT)
        c.setFillColor(MISSION_ACCENT)
        c.setFont(FONT_BOLD, self.fs(6.5))
        c.drawString(x + pad * k, top - 10 * k, "MISSION")
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, self.fs(title_size))
        c.drawString(x + pad * k, top - title_down * k, card.mission.title)
        c.setFont(FONT, self.fs(6.5))
        c.drawRightString(x + w - pad * k, top - 10 * k, card.id)
        down, inset = (24, 12) if compact else (25, 16)
        draw_pattern(c, card.mission.pattern, x + w / 2, top - down * k - (h - 30 * k) / 2,
                     w - inset * k, h - (inset + 20 if compact else 34) * k, max_cell=max_cell * k)

    def puzzle_pair(self, pair: list[BookPuzzle]) -> None:
        """Two Mission in N on one page, each in its half: title and stars, the task, the
        layout beside the mission and the facts, the legend and the footer line."""
        self.begin_page()
        c, k = self.c, self.k
        a, b = pair
        self.running_head(f"Puzzles {a.number} and {b.number}", f"{a.title} · {b.title}")
        top = self.H - self.margin - 10 * k
        half = (top - self.margin) / 2
        for i, p in enumerate(pair):
            self.compact_puzzle(p, top - i * half, top - (i + 1) * half + (4 * k if i == 0 else 0))
            if i == 0:
                c.setStrokeColor(GRID_FAINT)
                c.setLineWidth(0.8)
                c.setDash(3, 2)
                c.line(self.margin, top - half, self.right, top - half)
                c.setDash()
        self.end_page()

    def compact_puzzle(self, p: BookPuzzle, top: float, bottom: float) -> None:
        """A Mission in N between ``top`` and ``bottom`` (half a page)."""
        c, pen, k = self.c, self.pen, self.k
        pos = p.position
        card = self.spec.card(pos.mission)
        self.title_and_stars(p, top, self.fs(13), 4.6 * k)
        top -= self.fs(13) * 1.7
        top -= pen.para(self.task_text(p), self.margin, top, self.cw, size=self.fs(7.4), leading=1.3) + 5 * k
        legend = combined_legend_pattern([card.mission.pattern])
        room = top - (bottom + 22 * k + legend_height(legend, self.names, self.cw, self.fs(6.5)))
        # the layout on the left, the mission and the facts on the right
        lw = self.cw * 0.56
        frame = Frame.around(list(pos.cells.values()), 1)
        cell = min(26.0 * k, (lw - 8 * k) / (frame.cols + 0.6), room / (frame.rows + 0.6))
        w, _ = layout_size(frame, cell, True)
        draw_layout(c, pos.cells, pos.spent, frame, self.margin + (lw - w) / 2, top, cell)
        rx = self.margin + lw + 8 * k
        rw = self.right - rx
        ph = min(room * 0.6, 86 * k)
        self.mission_panel(card, rx, top, rw, ph, compact=True)
        ft = top - ph - 5 * k
        for runs in self.facts(p):
            ft -= pen.rich(runs, rx, ft, rw, size=self.fs(7), leading=1.25) + 2 * k
        self.footer(p, [card.mission.pattern], min(top - room, ft), bottom)

    def title_and_stars(self, p: BookPuzzle, top: float, size: float, r: float) -> None:
        """A puzzle's numbered title below ``top`` at ``size``, its stars (radius ``r``) at
        the right.  A long title (a deck whose missions take many actions) is shrunk to
        keep clear of the stars, down to 12/17 of its size."""
        c, k = self.c, self.k
        c.setFillColor(INK)
        stars = draw_stars(c, self.right, top - size * 0.62, r, p.stars)
        title = f"{p.number}. {p.title}"
        fitted, _ = fit_lines(title, FONT_BOLD, stars - 6 * k - self.margin, size * 1.2, size,
                              size * 12 / 17, max_lines=1)
        c.setFont(FONT_BOLD, fitted)
        c.drawString(self.margin, top - size, title)

    def title_line(self, p: BookPuzzle) -> float:
        """Running head, title and stars; returns the top of what follows."""
        c, k = self.c, self.k
        self.running_head(f"Puzzle {p.number}", p.title)
        top = self.H - self.margin - 14 * k
        self.title_and_stars(p, top, self.fs(17), 5.5 * k)
        c.setFont(FONT, self.fs(6.5))
        c.setFillColor(SOFT)
        c.drawRightString(self.right, top - self.fs(17) - 9 * k, f"{p.stars} of 5 stars")
        return top - self.fs(17) * 1.9

    def campaign(self, p: BookPuzzle) -> None:
        """A campaign's page: the start, then every mission with its budget, in order."""
        self.begin_page()
        c, pen, k = self.c, self.pen, self.k
        top = self.title_line(p)
        budgets = [pos.current.points if pos.current else 0 for pos, _ in p.legs]
        sides = (" (each along its spent side's arrows, shown below)"
                 if self._spent_differently(p.legs[0][0].spent) else "")
        task = (f"Start from the standard layout below. Every module is spent: move only{sides}, no "
                f"abilities, no cards. Complete the {len(p.legs)} missions in order, each within "
                "its own budget of movement points (unused points are lost). Each budget is the "
                "proven least the mission needs from where the solution's line leaves the "
                "layout, so finish every mission with the next one in mind.")
        top -= pen.para(task, self.margin, top, self.cw, size=self.fs(8.5), leading=1.35) + 8 * k
        start = p.legs[0][0]
        cells = start.cells
        frame = Frame.around(list(cells.values()), 1)
        cell = min(34.0 * k, (self.cw - 12 * k) / (frame.cols + 0.6), 150 * k / (frame.rows + 0.6))
        w, h = layout_size(frame, cell, True)
        draw_layout(c, cells, start.spent, frame, self.margin + (self.cw - w) / 2, top, cell)
        top -= h + 4 * k
        draw_layout_key(c, self.cx, top - self.fs(6.5), self.fs(6.5))
        top -= self.fs(6.5) * 2 + 8 * k
        top -= self.spent_sides(start.spent, top)
        # the missions, left to right
        n = len(p.legs)
        gap = 7 * k
        pw = (self.cw - gap * (n - 1)) / n
        ph = 118 * k
        patterns = []
        for i, ((pos, _), budget) in enumerate(zip(p.legs, budgets)):
            card = pos.spec.card(pos.mission)
            patterns.append(card.mission.pattern)
            x = self.margin + i * (pw + gap)
            self.panel(x, top - ph, pw, ph, MISSION_ACCENT)
            c.setFillColor(MISSION_ACCENT)
            c.setFont(FONT_BOLD, self.fs(6.5))
            c.drawString(x + 5 * k, top - 10 * k, f"MISSION {i + 1}")
            c.setFillColor(INK)
            c.setFont(FONT_BOLD, self.fs(7.5))
            c.drawString(x + 5 * k, top - 20 * k, card.mission.title)
            draw_pattern(c, card.mission.pattern, x + pw / 2, top - 24 * k - (ph - 44 * k) / 2,
                         pw - 12 * k, ph - 48 * k, max_cell=16 * k)
            c.setFillColor(MISSION_ACCENT)
            c.setFont(FONT_BOLD, self.fs(9))
            c.drawCentredString(x + pw / 2, top - ph + 8 * k,
                                f"budget {budget}")
        top -= ph + 8 * k
        facts = [[(FONT_BOLD, "Budgets: "), (FONT, " + ".join(map(str, budgets))
                                              + f" = {sum(budgets)} points over the campaign.")]]
        facts += [[(FONT_ITALIC, note)] for note in p.notes]
        for runs in facts:
            top -= pen.rich(runs, self.margin, top, self.cw, size=self.fs(7.6), leading=1.3) + 3 * k
        self.footer(p, patterns, top)
        self.end_page()

    def _spent_differently(self, spent: frozenset[str] | set[str]) -> list[Module]:
        """The spent modules whose spent side moves otherwise than their active side."""
        return [m for m in self.spec.modules if m.code in spent and m.spent_arrows != m.arrows]

    def spent_sides_height(self, spent: frozenset[str] | set[str]) -> float:
        return 36 * self.k if self._spent_differently(spent) else 0.0

    def spent_sides(self, spent: frozenset[str] | set[str], top: float) -> float:
        """Below ``top``, the arrows of every spent module whose spent side moves otherwise
        than its active side, so the reader checks moves against the side facing up;
        returns the height used (none on a deck whose sides move alike)."""
        mods = self._spent_differently(spent)
        if not mods:
            return 0.0
        c, k = self.c, self.k
        fs = self.fs(7.2)
        label = "Spent sides move:"
        lw = text_width(label, FONT_BOLD, fs) + 10 * k
        step = min(42 * k, (self.cw - lw) / len(mods))
        scale = min(1.3, step / (32 * k))
        width = lw + step * len(mods)
        x = self.margin + max(0.0, (self.cw - width) / 2)
        cy = top - 17 * k
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, fs)
        c.drawString(x, cy - fs * 0.35, label)
        x += lw + step / 2
        for m in mods:
            self._module_icon(m.code, m.spent_arrows, True, x, cy, scale)
            x += step
        return self.spent_sides_height(spent)

    def task_text(self, p: BookPuzzle) -> str:
        pos = p.position
        title = self.spec.card(pos.mission).mission.title
        if p.kind == "mission":
            n = pos.current.points if pos.current else 0
            text = (f"Complete the mission {title} with a bare budget of {n} movement "
                    f"point{'s' if n != 1 else ''} and no cards. {n} is the proven optimum: "
                    f"it cannot be done with fewer.")
            if pos.spent >= frozenset(self.spec.codes):
                return text + f" Every module is spent: {plural(n, 'move')}, nothing else."
            acts = len(p.plan)
            return text + (f" Abilities cost no points: the best solution takes {plural(n, 'point')} "
                           f"and {plural(acts, 'action')}.")
        if p.kind == "hand":
            pts = sum(a.act == "move" for a in p.plan)
            cards = sum(a.act == "play" for a in p.plan)
            return (f"Complete the mission {title} with the cards in hand (no budget, no draw "
                    f"pile). The best solution spends {pts} point{'s' if pts != 1 else ''} and "
                    f"plays {cards} card{'s' if cards != 1 else ''}. Which card first, and for "
                    "its bonus or its base points? A wrong opening fails or costs more.")
        need = self.spec.missions_to_win
        return (f"Win a whole game from this deal: complete {need} missions in a row. It is "
                f"proven winnable (the note beside the mission says by whom); stack your deck "
                f"as below and play.")

    def facts(self, p: BookPuzzle) -> list[list[tuple[str, str]]]:
        pos = p.position
        codes = [m.code for m in self.spec.modules]
        spent = [x for x in codes if x in pos.spent]
        active = [x for x in codes if x not in pos.spent]
        out: list[list[tuple[str, str]]] = []
        if p.kind == "mission":
            n = pos.current.points if pos.current else 0
            out.append([(FONT_BOLD, "Budget: "), (FONT, f"{n} point{'s' if n != 1 else ''}, no cards.")])
        elif p.kind == "hand":
            out.append([(FONT_BOLD, "Hand: "), (FONT, " ".join(pos.hand) + "; no budget, empty piles.")])
        elif p.difficulty:
            out.append([(FONT_BOLD, "Difficulty: "),
                        (FONT, f"{p.difficulty}, a hand of {len(pos.hand)}.")])
        else:  # a deal made without a difficulty: say only what the table shows
            out.append([(FONT_BOLD, "Hand: "), (FONT, f"{len(pos.hand)} cards.")])
        out.append([(FONT_BOLD, "Spent: "), (FONT, " ".join(spent) if spent else "none")])
        out.append([(FONT_BOLD, "Abilities left: "), (FONT, " ".join(active) if active else "none")])
        out += [[(FONT_ITALIC, note)] for note in p.notes]
        return out

    def panel(self, x: float, y: float, w: float, h: float, accent: Color) -> None:
        c = self.c
        c.saveState()
        c.setFillColor(white)
        c.setStrokeColor(accent)
        c.setLineWidth(0.8)
        c.roundRect(x, y, w, h, 5 * self.k, stroke=1, fill=1)
        c.restoreState()

    def hand_row(self, hand: Sequence[str], top: float, patterns: list[Pattern]) -> float:
        """The hand as small movement cards: base points, bonus pattern, bonus points."""
        c, k = self.c, self.k
        n = max(1, len(hand))
        gap = 8 * k
        w = min(92 * k, (self.cw - gap * (n - 1)) / n)
        h = 104 * k
        x0 = self.margin + (self.cw - (w * n + gap * (n - 1))) / 2
        for i, cid in enumerate(hand):
            mv = self.spec.card(cid).movement
            patterns.append(mv.pattern)
            x = x0 + i * (w + gap)
            self.panel(x, top - h, w, h, MOVEMENT_ACCENT)
            c.setFillColor(MOVEMENT_ACCENT)
            c.setFont(FONT_BOLD, self.fs(6.5))
            c.drawString(x + 5 * k, top - 10 * k, "MOVEMENT")
            c.setFillColor(INK)
            c.setFont(FONT, self.fs(6.5))
            c.drawRightString(x + w - 5 * k, top - 10 * k, cid)
            c.setFont(FONT_BOLD, self.fs(11))
            c.drawCentredString(x + w / 2, top - 25 * k, f"{mv.points}")
            c.setFont(FONT, self.fs(6))
            c.drawCentredString(x + w / 2, top - 32 * k, "base points")
            draw_pattern(c, mv.pattern, x + w / 2, top - 36 * k - 24 * k, w - 14 * k, 44 * k,
                         max_cell=14 * k)
            c.setFillColor(MOVEMENT_ACCENT)
            c.setFont(FONT_BOLD, self.fs(9))
            c.drawCentredString(x + w / 2, top - h + 9 * k, f"bonus {mv.bonus}")
        return h + 8 * k

    def deck_order(self, pos: Position, top: float) -> float:
        """How to stack a real deck for a verified deal."""
        c, pen, k = self.c, self.pen, self.k
        spec = self.spec
        fs = self.fs(7.6)
        start = top
        c.setFillColor(INK)
        c.setFont(FONT_BOLD, self.fs(8.5))
        c.drawString(self.margin, top - self.fs(8.5), "Stack the deck")
        top -= self.fs(8.5) * 1.6
        rows = [("Mission", [pos.mission]), (f"Hand ({len(pos.hand)})", list(pos.hand)),
                ("Draw pile, top first", list(pos.draw))]
        for head, ids in rows:
            runs = [(FONT_BOLD, head + ": ")]
            runs.append((FONT, ", ".join(f"{i} {spec.card(i).mission.title}" for i in ids)))
            top -= pen.rich(runs, self.margin, top, self.cw, size=fs, leading=1.3) + 2 * k
        modules = " / ".join(" ".join(row) for row in _layout_rows(pos.cells))
        top -= pen.rich([(FONT_BOLD, "Modules: "), (FONT, f"active side up, rows top to bottom: {modules}.")],
                        self.margin, top, self.cw, size=fs, leading=1.3) + 2 * k
        top -= pen.para("Put the mission card on the table mission side up, take the hand, and "
                        "stack the draw pile mission side up in this order, the first card "
                        "named on top.", self.margin, top, self.cw, font=FONT_ITALIC, size=fs,
                        leading=1.3)
        return start - top + 6 * k

    # ------------------------------------------------------------------ hints
    def hint_blocks(self) -> list[Block]:
        """The three levels of hints, one block each: which module acts first, the first
        action, the position halfway (diagrams)."""
        k, cw = self.k, self.cw
        fs = self.fs(7.8)
        hinted = [p for p in self.puzzles if p.hints is not None]
        if not hinted:
            return []
        levels = (
            ("Hint 1: where to start", "Which module moves or acts first in a solution (or which "
             "card is played first)."),
            ("Hint 2: the first action", "The first action of a solution, in the notation of "
             f"page {self.rules_page_no} (a campaign: the first action of each mission)."),
            ("Hint 3: halfway", "The position half way through a solution: reach it, then "
             "finish from there."),
        )
        blocks = []
        for level, (head, what) in enumerate(levels, 1):
            block = Block(level, gap_after=18 * k)

            def heading(c: Canvas, x: float, top: float, head: str = head, what: str = what) -> None:
                c.setFillColor(INK)
                c.setFont(FONT_BOLD, self.fs(11))
                c.drawString(x, top - self.fs(11), head)
                self.pen.para(what, x, top - self.fs(11) * 1.5, cw, font=FONT_ITALIC,
                              size=self.fs(7.4), color=SOFT)

            block.items.append(Item(self.fs(11) * 1.5 + self.fs(7.4) * 1.3 * 2 + 4 * k, heading,
                                    keep_with_next=True))
            if level < 3:
                for p in hinted:
                    runs = self._hint_runs(p, level)

                    def line(c: Canvas, x: float, top: float, runs: list[tuple[str, str]] = runs) -> None:
                        self.pen.rich(runs, x, top, cw, size=fs)

                    block.items.append(Item(rich_height(runs, cw, fs) + 3 * k, line))
            else:
                self._halfway_rows(block, hinted)
            blocks.append(block)
        return blocks

    def _hint_runs(self, p: BookPuzzle, level: int) -> list[tuple[str, str]]:
        assert p.hints is not None
        return [(FONT_BOLD, f"{p.number}. "), (FONT, f"{p.title} (p. {self.puzzle_page(p)}): "),
                *hint_runs(p.hints, p.kind, level, self.names)]

    def _halfway_rows(self, block: Block, hinted: list[BookPuzzle]) -> None:
        """Hint 3's diagrams, a few a row, each with its puzzle and what it shows."""
        k = self.k
        per_row = 4 if self.big else 3
        gap = 10 * k
        w = (self.cw - gap * (per_row - 1)) / per_row
        cap_fs = self.fs(6.6)
        for r0 in range(0, len(hinted), per_row):
            row = hinted[r0:r0 + per_row]
            frames = [Frame.around(list(p.hints.cells.values()), 1) for p in row if p.hints]
            cell = min(12 * k, min((w - 8 * k) / (f.cols + 0.55) for f in frames),
                       70 * k / max(f.rows for f in frames))
            dh = max(layout_size(f, cell, True)[1] for f in frames)
            caps = [wrap_text(f"{p.number}. {p.hints.note}" if p.hints else "", FONT, cap_fs, w)
                    for p in row]
            row_h = dh + max(map(len, caps)) * cap_fs * 1.25 + 10 * k

            def draw_row(c: Canvas, x: float, top: float, row: list[BookPuzzle] = row,
                         frames: list[Frame] = frames, caps: list[list[str]] = caps,
                         cell: float = cell, dh: float = dh) -> None:
                for j, (p, fr, cap) in enumerate(zip(row, frames, caps)):
                    if p.hints is None:
                        continue
                    left = x + j * (w + gap)
                    dw, _ = layout_size(fr, cell, True)
                    draw_layout(c, p.hints.cells, p.hints.spent, fr, left + (w - dw) / 2, top, cell)
                    c.setFillColor(INK)
                    c.setFont(FONT, cap_fs)
                    for li, line in enumerate(cap):
                        c.drawCentredString(left + w / 2, top - dh - cap_fs * (1.1 + 1.25 * li) - 2 * k,
                                            line)

            block.items.append(Item(row_h, draw_row))

    # ------------------------------------------------------------------ solutions
    def solution_block(self, p: BookPuzzle) -> Block:
        k = self.k
        block = Block(p.number)
        cw = self.cw
        pos = p.position
        deck = self.deck
        states = _replay_states(deck, pos, p.plan) if p.kind != "campaign" else []

        def head(c: Canvas, x: float, top: float, p: BookPuzzle = p) -> None:
            c.setFillColor(INK)
            c.setFont(FONT_BOLD, self.fs(10))
            c.drawString(x, top - self.fs(10), f"{p.number}. {p.title}")
            c.setFont(FONT, self.fs(7.5))
            c.setFillColor(SOFT)
            c.drawRightString(x + cw, top - self.fs(10),
                              f"Puzzle {p.number}, p. {self.puzzle_page(p)}")
            draw_stars(c, x + cw - text_width(f"Puzzle {p.number}, p. {self.puzzle_page(p)}",
                                              FONT, self.fs(7.5)) - 8 * k,
                       top - self.fs(10) * 0.62, 3.2 * k, p.stars)
            c.setStrokeColor(GRID_FAINT)
            c.setLineWidth(0.5)
            c.line(x, top - self.fs(10) * 1.45, x + cw, top - self.fs(10) * 1.45)

        block.items.append(Item(self.fs(10) * 1.8, head, keep_with_next=True))
        if p.kind == "deal":
            self._deal_solution(block, p, states)
        elif p.kind == "campaign":
            for i, (leg, plan) in enumerate(p.legs):
                card = leg.spec.card(leg.mission)
                budget = leg.current.points if leg.current else 0
                self._plan_line(block, plan, f"Mission {i + 1}, {card.mission.title} ({budget}): ")
                self._step_diagrams(block, replace(p, position=leg, plan=plan),
                                    _replay_states(deck_for(leg.spec), leg, plan))
        else:
            self._plan_line(block, p.plan, "Plan: ")
            self._step_diagrams(block, p, states)
        words = list(p.measured)
        if words:
            text = "Measured: " + "; ".join(words) + "."
            h = Pen.para_height(text, cw, FONT_ITALIC, self.fs(7))
            block.items.append(Item(h + 2 * k, lambda c, x, t: self.pen.para(
                text, x, t, cw, font=FONT_ITALIC, size=self.fs(7), color=SOFT)))
        return block

    def _plan_line(self, block: Block, plan: Sequence[Action], head: str) -> None:
        """The plan in notation, numbered."""
        fs, cw, k = self.fs(8), self.cw, self.k
        runs = [(FONT_BOLD, head)]
        for i, a in enumerate(plan):
            runs.append((FONT, f"{i + 1}. "))
            runs.append((FONT_BOLD, str(a) + ("," if i < len(plan) - 1 else "")))
            runs.append((FONT, " "))
        h = rich_height(runs, cw, fs)
        block.items.append(Item(h + 4 * k, lambda c, x, t: self.pen.rich(runs, x, t, cw, size=fs),
                                keep_with_next=True))

    def _step_diagrams(self, block: Block, p: BookPuzzle, states: list[State]) -> None:
        """Small diagrams after every step that changes the layout; card plays and draws are
        folded into the caption of the next diagram."""
        k = self.k
        deck = self.deck
        pos = p.position
        codes = deck.codes
        start_cells = state_cells(deck, states[0])
        frames = Frame.around(list(start_cells.values()), 1)
        shots: list[tuple[list[str], dict[str, Cell], frozenset[str], frozenset[str]]] = []
        caption: list[str] = []
        for i, a in enumerate(p.plan):
            before, after = states[i], states[i + 1]
            spent_move = (a.act == "move" and a.module in self.spec.module_by_code
                          and before.spent >> deck.index[a.module] & 1
                          and self.spec.module(a.module).spent_arrows != self.spec.module(a.module).arrows)
            caption.append(f"{i + 1}. {a}" + (" (spent)" if spent_move else ""))
            if before.cells == after.cells and i < len(p.plan) - 1:
                continue
            cells = state_cells(deck, after)
            moved = frozenset(c for j, c in enumerate(codes) if before.cells[j] != after.cells[j])
            spent = frozenset(c for j, c in enumerate(codes) if after.spent >> j & 1)
            frames = frames.union(Frame.around(list(cells.values()), 1))
            shots.append((caption, cells, spent, moved))
            caption = []
        if not shots:
            return
        mission_pat = pos.spec.card(pos.mission).mission.pattern
        per_row = 4 if not self.big else 5
        gap = 8 * k
        w = (self.cw - gap * (per_row - 1)) / per_row
        cell = min(11 * k, (w - 8 * k) / (frames.cols + 0.55))
        dw, dh = layout_size(frames, cell, True)
        cap_fs = self.fs(6.8)
        cap_lines = max(len(s[0]) for s in shots)
        row_h = dh + cap_lines * cap_fs * 1.25 + 8 * k
        for r0 in range(0, len(shots), per_row):
            row = shots[r0:r0 + per_row]
            last_row = r0 + per_row >= len(shots)

            def draw_row(c: Canvas, x: float, top: float, row=row, last_row=last_row) -> None:
                for j, (cap, cells, spent, moved) in enumerate(row):
                    left = x + j * (w + gap)
                    final = last_row and j == len(row) - 1
                    matched = matched_cells(mission_pat, cells) if final else frozenset()
                    draw_layout(c, cells, spent, frames, left + (w - dw) / 2, top, cell,
                                moved=moved, matched=matched)
                    c.setFillColor(INK)
                    for li, line in enumerate(cap):
                        c.setFont(FONT_BOLD, cap_fs)
                        c.drawCentredString(left + w / 2, top - dh - cap_fs * (1.1 + 1.25 * li) - 2 * k,
                                            line)

            block.items.append(Item(row_h, draw_row))

    def _deal_solution(self, block: Block, p: BookPuzzle, states: list[State]) -> None:
        """The winning line grouped by mission, with the layout at each completion."""
        k = self.k
        deck = self.deck
        codes = deck.codes
        fs = self.fs(7.4)
        cw = self.cw
        # one group per action that completes missions (a revealed mission that already
        # matches completes at once, so one action may complete several)
        groups: list[tuple[tuple[int, ...], list[tuple[int, Action]]]] = []
        cur: list[tuple[int, Action]] = []
        for i, a in enumerate(p.plan):
            cur.append((i, a))
            done = states[i + 1].completed[len(states[i].completed):]
            if done:
                groups.append((done, cur))
                cur = []
        if cur:  # pragma: no cover - a winning line ends with a completion
            groups.append(((), cur))
        shots = []
        count = 0
        for done, acts in groups:
            ids = [deck.card_ids[m] for m in done]
            lo, count = count + 1, count + len(ids)
            nums = f"{lo}" if count == lo else f"{lo}-{count}"
            names = ", ".join(f"{mid} {self.spec.card(mid).mission.title}" for mid in ids)
            runs = [(FONT_BOLD, f"Mission{'s' if count > lo else ''} {nums}, {names}: ")]
            for j, (_i, a) in enumerate(acts):
                runs.append((FONT, str(a) + (", " if j < len(acts) - 1 else ".")))
            h = rich_height(runs, cw, fs)

            def draw_runs(c: Canvas, x: float, top: float, runs: list[tuple[str, str]] = runs) -> float:
                return self.pen.rich(runs, x, top, cw, size=fs)

            block.items.append(Item(h + 2.5 * k, draw_runs))
            after = states[acts[-1][0] + 1]
            cells_after = state_cells(deck, after)
            spent = frozenset(c for j, c in enumerate(codes) if after.spent >> j & 1)
            matched: frozenset[Cell] = frozenset()
            for mid in ids:
                matched |= matched_cells(self.spec.card(mid).mission.pattern, cells_after)
            shots.append((f"{nums}. {', '.join(ids)} done", cells_after, spent, matched))
        frame = Frame.around([xy for s in shots for xy in s[1].values()], 1)
        per_row = 4 if not self.big else 5
        gap = 8 * k
        w = (cw - gap * (per_row - 1)) / per_row
        cell = min(10 * k, (w - 8 * k) / (frame.cols + 0.55))
        dw, dh = layout_size(frame, cell, True)
        cap_fs = self.fs(6.8)
        row_h = dh + cap_fs * 1.4 + 8 * k
        first = True
        for r0 in range(0, len(shots), per_row):
            row = shots[r0:r0 + per_row]

            def draw_row(c: Canvas, x: float, top: float, row=row) -> None:
                for j, (cap, cells, spent, matched) in enumerate(row):
                    left = x + j * (w + gap)
                    draw_layout(c, cells, spent, frame, left + (w - dw) / 2, top, cell,
                                matched=matched)
                    c.setFillColor(INK)
                    c.setFont(FONT_BOLD, cap_fs)
                    c.drawCentredString(left + w / 2, top - dh - cap_fs * 1.1 - 2 * k, cap)

            if first:
                block.items.append(Item(self.fs(7.4) * 1.8, lambda c, x, t: self.pen.para(
                    "The layout as each mission completes (dashed: the mission's cells):", x,
                    t - 3 * k, cw, font=FONT_ITALIC, size=self.fs(7.2), color=SOFT),
                    keep_with_next=True))
                first = False
            block.items.append(Item(row_h, draw_row))


_DIR_WORDS = {"N": "north", "NE": "north-east", "E": "east", "SE": "south-east", "S": "south",
              "SW": "south-west", "W": "west", "NW": "north-west"}


def action_words(a: Action, spec: Spec) -> str:
    """An action as a sentence for a reader (the notation says it in short)."""
    def name(code: str | None) -> str:
        return spec.module(code).name if code in spec.module_by_code else str(code)

    if a.act == "play":
        how = {True: "for its bonus", False: "for its base points", None: ""}[a.bonus]
        return f"Play card {a.card} {how}".rstrip() + "."
    if a.act == "move":
        return (f"{name(a.module)} moves {plural(a.dist or 0, 'cell')} {_DIR_WORDS.get(a.dir or '', a.dir)} "
                "along its arrow (1 point).")
    actor = a.via or a.module or ""
    lead = (f"{name(a.module)} triggers {name(a.via)}'s ability (free): " if a.via else
            f"{name(a.module)}'s ability (free): ")
    ability = spec.module(actor).ability if actor in spec.module_by_code else ""
    if ability == "laser" and a.swap:
        return lead + f"{name(a.swap[0])} and {name(a.swap[1])} trade cells."
    if ability == "motor":
        return lead + f"{name(a.target)} shifts one cell {_DIR_WORDS.get(a.dir or '', a.dir)}."
    if ability == "brain" and a.to:
        return lead + f"{name(a.target)} goes to cell {a.to[0]},{a.to[1]}."
    if ability == "coil" and a.to:
        return lead + f"{name(actor)} goes to cell {a.to[0]},{a.to[1]}."
    if ability == "sensor":
        return lead + "draw a card."
    return lead.rstrip(": ") + "."


def _dirs_text(dirs: Sequence[Direction]) -> str:
    names = [d.name for d in dirs]
    if len(names) == 8:
        return "all 8 ways"
    return " ".join(names)


def _layout_rows(cells: dict[str, Cell]) -> list[list[str]]:
    xs = [x for x, _ in cells.values()]
    ys = [y for _, y in cells.values()]
    at = {v: k for k, v in cells.items()}
    return [[at.get((x, y), ".") for x in range(min(xs), max(xs) + 1)]
            for y in range(min(ys), max(ys) + 1)]


def _replay_states(deck: Deck, pos: Position, plan: Sequence[Action]) -> list[State]:
    """The start state and the state after each step (the plan was verified before)."""
    return states_along(deck, state_from_position(deck, pos), plan)


def render_book_pdf(spec: Spec, puzzles: Sequence[BookPuzzle], info: BookInfo) -> bytes:
    """The whole book as PDF bytes; the same puzzles and info always give the same bytes."""
    if info.paper not in PAPERS:
        raise ValueError(f"unknown paper {info.paper!r}; use one of {', '.join(PAPERS)}")
    return BookWriter(spec, puzzles, info).render()
