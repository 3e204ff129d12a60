"""What a card title may be: the characters the card fonts draw, the title font's widths,
and how a mission title or a module name is fitted to its box on the card.

Pure Python, no ReportLab: spec validation (``rove validate``, ``rove deal``, every command
that reads a spec) checks titles with it and stays fast to start, and ``rove.pdf.cards``
fits the titles it draws with the same functions, so what validation accepts is what
prints. It sits beside ``rove.spec``, not in ``rove.pdf``: the spec model is a lower layer
than the PDF code, which imports it. The table below is the card fonts' own data (Bitstream Vera, shipped inside
ReportLab); tests/test_cards.py checks it against the font files: the characters every
face of the family maps to a real glyph, and the bold face's advance widths, from which
:func:`title_width` gives ReportLab's ``stringWidth`` to the last bit.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

TITLE_FONT = "RoveSans-Bold"
"""The font of titles and module names (``fonts.FONT_BOLD``: Bitstream Vera Bold)."""

_ASCII = "".join(map(chr, range(0x20, 0x7F)))
_LATIN1 = "".join(chr(c) for c in range(0xA0, 0x100) if c != 0xAD)  # less the soft hyphen (format)
_MORE = "ĆćČčđĞğİıŁłŒœŞşŠšŸŽžƒˆˇ˘˙˚˛˜˝Ωπ–—‘’‚“”„†‡•…‰‹›€™∂∆∏∑−∕∙√∞∫≈≠≤≥◊ﬁﬂ"
DRAWABLE = frozenset(map(ord, _ASCII + _LATIN1 + _MORE))
"""The characters every face of the card fonts draws (a real glyph, not glyph 0, the empty
box), less control and format characters: printable ASCII, Latin-1 and 65 more; not all
of Latin Extended-A (no ź ż ą ę), no Greek or Cyrillic alphabet, no CJK, Arabic or emoji."""

UNITS_PER_EM = 2048
#: Advance widths of the title font's drawable characters in font units, by code point.
_BOLD_UNITS = (
    713, 934, 1067, 1716, 1425, 2052, 1786, 627, 936, 936, 1071, 1716, 778, 850, 778, 748, 1425,
    1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 1425, 819, 819, 1716, 1716, 1716, 1188, 2048,
    1585, 1561, 1503, 1700, 1399, 1399, 1681, 1714, 762, 762, 1587, 1305, 2038, 1714, 1741, 1501,
    1741, 1577, 1475, 1397, 1663, 1585, 2259, 1579, 1483, 1485, 936, 748, 936, 1716, 1024, 1024,
    1382, 1466, 1214, 1466, 1389, 891, 1466, 1458, 702, 702, 1362, 702, 2134, 1458, 1407, 1466,
    1466, 1010, 1219, 979, 1458, 1335, 1892, 1321, 1335, 1192, 1458, 748, 1458, 1716, 713, 934,
    1425, 1425, 1303, 1425, 748, 1024, 1024, 2048, 1155, 1323, 1716, 2048, 1024, 1024, 1716, 897,
    897, 1024, 1507, 1303, 778, 1024, 897, 1155, 1323, 2120, 2120, 2120, 1188, 1585, 1585, 1585,
    1585, 1585, 1585, 2222, 1503, 1399, 1399, 1399, 1399, 762, 762, 762, 762, 1716, 1714, 1741,
    1741, 1741, 1741, 1741, 1716, 1741, 1663, 1663, 1663, 1663, 1483, 1511, 1473, 1382, 1382, 1382,
    1382, 1382, 1382, 2146, 1214, 1389, 1389, 1389, 1389, 702, 702, 702, 702, 1407, 1458, 1407,
    1407, 1407, 1407, 1407, 1716, 1407, 1458, 1458, 1458, 1458, 1335, 1466, 1335, 1503, 1214, 1503,
    1214, 1466, 1681, 1466, 762, 702, 1315, 760, 2390, 2241, 1475, 1219, 1475, 1219, 1483, 1485,
    1192, 1425, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024, 1575, 1319, 1024, 2048, 778, 778,
    778, 1346, 1346, 1346, 1024, 1024, 1309, 2048, 2949, 844, 844, 1425, 2048, 1114, 1427, 1612,
    1470, 1716, 342, 778, 1366, 1706, 1249, 1716, 1716, 1716, 1716, 1012, 1518, 1518,
)
_WIDTHS = {cp: u * 1000 / UNITS_PER_EM for cp, u in zip(sorted(DRAWABLE), _BOLD_UNITS, strict=True)}
_DEFAULT_WIDTH = 1229 * 1000 / UNITS_PER_EM  # what ReportLab uses for a character without a width

Measure = Callable[[str, float], float]
"""The width in points of a text at a size, in the title font."""


def title_width(text: str, size: float) -> float:
    """``text`` at ``size`` in the title font, in points: ReportLab's TTF ``stringWidth``
    exactly (its sum, in its order, of the characters' widths in thousandths of the size)."""
    g = _WIDTHS.get
    return 0.001 * size * sum(g(ord(u), _DEFAULT_WIDTH) for u in text)


def undrawable_chars(text: str, limit: int = 5) -> list[str]:
    """Up to ``limit`` distinct characters of ``text`` the card fonts cannot draw (each would
    print as an empty box), in order of first appearance. Cheap for long text."""
    bad = {ch for ch in set(text) if ord(ch) not in DRAWABLE}
    if len(bad) <= 50:  # a search of the text for each (fast, in C)
        return sorted(bad, key=text.index)[:limit]
    out: list[str] = []  # many: the first few come early in the text
    for ch in text:
        if ch in bad and ch not in out:
            out.append(ch)
            if len(out) == limit:
                break
    return out


def char_label(ch: str) -> str:
    """A character as a message shows it: ``'漢' (U+6F22)``, ``'\\n' (U+000A)``."""
    return f"{ch!r} (U+{ord(ch):04X})"


def chars_text(chars: Iterable[str]) -> str:
    return ", ".join(char_label(ch) for ch in chars)


# --------------------------------------------------------------------------- fitting text


def wrap(text: str, size: float, width: float, measure: Measure) -> list[str]:
    """Greedy word wrap to ``width`` points; a single over-long word gets a line of its own."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}" if current else word
        if current and measure(trial, size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    if current:
        lines.append(current)
    return lines


def fit(text: str, width: float, height: float, max_size: float, min_size: float, measure: Measure,
        leading: float = 1.2, max_lines: int = 99) -> tuple[float, list[str]]:
    """The largest size (in 0.25 pt steps) at which ``text`` wraps into the box.

    Returns (size, lines); when nothing fits, the smallest size is returned anyway so
    the caller always has something to draw."""
    size = max_size
    while True:
        lines = wrap(text, size, width, measure)
        fits = (len(lines) <= max_lines and len(lines) * size * leading <= height + 1e-6
                and all(measure(line, size) <= width + 1e-6 for line in lines))
        if fits or size - 0.25 < min_size - 1e-9:
            return size, lines
        size -= 0.25


def shrink(text: str, width: float, max_size: float, min_size: float, measure: Measure) -> float:
    """The largest size (in 0.25 pt steps, not below ``min_size``) at which ``text`` is at most
    ``width`` wide on one line; ``min_size`` when even that is too wide."""
    size = max_size
    while size > min_size and measure(text, size) > width:
        size -= 0.25
    return size


# --------------------------------------------------------------------------- the card's boxes

# Sizes in design units: a card is DESIGN_W wide whatever its size (points on a poker card).
DESIGN_W = 180.0
TITLE_W = DESIGN_W - 24
"""A mission title's box: the card less 12 units each side."""
TITLE_ONE_LINE = (15.0, 10.0)
"""A mission title on one line: bold, shrunk from 15 pt down to 10 pt to fit ..."""
TITLE_TWO_LINES = (12.0, 8.0)
"""... else wrapped onto two lines, shrunk from 12 pt down to 8 pt; longer titles are refused."""
TITLE_TWO_LINES_H = 30.0
TITLE_LEADING = 1.15
NAME_SIZES = (17.0, 9.0)
"""A module name: one line in the header band, bold, shrunk from 17 pt down to 9 pt beside the
code badge (active side) or the SPENT tag (spent side); longer names are refused. Not wrapped:
the pattern legends and the puzzle book's module table hold one line."""


@dataclass(frozen=True)
class TitleFit:
    """How a title is printed: its size, its lines, whether they fit the box, and whether
    it was wrapped (set in the two-line block, even when one line came out)."""

    size: float
    lines: tuple[str, ...]
    fits: bool
    wrapped: bool = False


def mission_title_fit(title: str, measure: Measure = title_width) -> TitleFit:
    """One line if it fits at 10 pt or more, else up to two lines at 12 to 8 pt."""
    size = shrink(title, TITLE_W, *TITLE_ONE_LINE, measure)
    if measure(title, size) <= TITLE_W:
        return TitleFit(size, (title,), True)
    size, lines = fit(title, TITLE_W, TITLE_TWO_LINES_H, *TITLE_TWO_LINES, measure,
                      leading=TITLE_LEADING, max_lines=2)
    fits = (0 < len(lines) <= 2 and len(lines) * size * TITLE_LEADING <= TITLE_TWO_LINES_H + 1e-6
            and all(measure(line, size) <= TITLE_W + 1e-6 for line in lines))
    return TitleFit(size, tuple(lines), fits, wrapped=True)


def spent_tag_w(measure: Measure = title_width) -> float:
    """Width of the SPENT tag in a spent module card's header."""
    return measure("SPENT", 9) + 12


def module_name_room(spent: bool, measure: Measure = title_width) -> float:
    """Width left for the module name in the header band, left of the badge or the SPENT tag."""
    W = DESIGN_W
    return W - 22 - spent_tag_w(measure) - 18 if spent else W - 12 - 44


def module_name_fit(name: str, spent: bool = True, measure: Measure = title_width) -> TitleFit:
    """The name on one line; validation checks the spent side, which has less room."""
    room = module_name_room(spent, measure)
    size = shrink(name, room, *NAME_SIZES, measure)
    return TitleFit(size, (name,), measure(name, size) <= room)


# --------------------------------------------------------------------------- the check

#: Width at 1 pt of the narrowest drawable character: no more characters than the box
#: width over this fit, whatever they are.
_NARROWEST = min(_WIDTHS.values()) / 1000


def _longest_fitting(text: str, fits: Callable[[str], TitleFit], cap: int) -> int:
    """About the most characters of ``text`` (a prefix) that fit: a binary search."""
    lo, hi = 0, min(len(text), cap)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(text[:mid].rstrip()).fits:
            lo = mid
        else:
            hi = mid - 1
    return lo


def title_problem(text: str, kind: str | None) -> str | None:
    """Why ``text`` cannot be printed, or None: the one check spec validation uses.

    ``kind`` is "mission" (a mission title), "module" (a module name) or None (only the
    characters: the deck's name, printed on the puzzle book's cover). A character the card
    fonts have no glyph for would print as an empty box; a title that does not fit its box
    would run off the card. The returned text follows the value's name in a message."""
    bad = undrawable_chars(text)
    if bad:
        fixes = []
        if any(unicodedata.category(ch) == "Cc" for ch in bad):  # a line break, a tab
            fixes.append("write it on one line, without tabs or control characters")
        if any(unicodedata.category(ch) != "Cc" for ch in bad):
            fixes.append("use Latin letters, digits and common punctuation (the font, Bitstream "
                         "Vera, has Latin-1 and a few more)")
        return f"has characters the card font cannot draw: {chars_text(bad)}; {'; '.join(fixes)}"
    if kind is None:
        return None
    fits: Callable[[str], TitleFit]
    if kind == "mission":
        fits, room, lines, size = mission_title_fit, TITLE_W, 2, TITLE_TWO_LINES[1]
        where = f"the title box is {TITLE_W:g} pt wide and holds two lines at the smallest size, {size:g} pt"
    else:
        fits, room, lines, size = module_name_fit, module_name_room(True), 1, NAME_SIZES[1]
        where = (f"the name has {room:.0f} pt beside the SPENT tag, on one line at the smallest "
                 f"size, {size:g} pt")
    # No title of more characters than this fits (a quick refusal of a huge one, and the
    # bound of the search below).
    cap = math.ceil(lines * (room + title_width(" ", size)) / (_NARROWEST * size))
    if len(text) <= cap and fits(text).fits:
        return None
    most = _longest_fitting(text, fits, cap)
    return (f"is too long for the card: {where}; shorten it to about {most} characters (that much "
            f"of it fits; it has {len(text):,})")
