"""Print presets for ``rove cards --preset NAME``: what each printer or service wants, as data.

A preset fixes everything a print file has to get right for one destination: the card
size, the bleed around it, the safe zone inside it (where text and symbols must stay),
the resolution of raster output, the order of the pages, the colour model and the shape
of the output. Options given on the command line override a preset's values; the
preflight (``rove.pdf.preflight``) then checks the files against the values in force.

Output shapes
-------------
``sheets``
    One PDF of home-print sheets (A4 or Letter, several cards a page, crop marks).
``card-pdf``
    One PDF with one card face a page, each page the card plus its bleed.
``png``
    A folder with one PNG per card face, the card plus its bleed at the preset's dpi.
``tts``
    Tabletop Simulator deck images: a sheet of up to 10 x 7 fronts whose last cell is the
    hidden card, and a sheet of the backs in the same cells.

This module imports nothing heavy: ``rove cards --list-presets`` uses it alone.
"""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_IN = 25.4
SHAPES = ("sheets", "card-pdf", "png", "tts")
ORDERS = ("front-back", "back-front")
COLORS = ("rgb", "cmyk")


@dataclass(frozen=True)
class Preset:
    """One print destination. Lengths in millimetres; ``safe_mm`` is measured inward from
    the trim (cut) line, ``bleed_mm`` outward from it."""

    name: str
    summary: str
    shape: str
    card: str = "poker"
    bleed_mm: float = 0.0
    safe_mm: float = 3.0
    dpi: int = 300
    paper: str = "a4"  # sheets only
    layout: str = "duplex"  # sheets only
    order: str = "front-back"  # card-pdf: each card's two pages in this order
    color: str = "rgb"
    home: bool = False  # printed at home: the PDF asks viewers not to scale it
    service: bool = False  # sent to a print service: preflight runs before anything is written
    stamp: bool = False  # the playtest stamp on every face (services forbid marks on the art)

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"unknown output shape {self.shape!r}")
        if self.order not in ORDERS:
            raise ValueError(f"unknown page order {self.order!r}")
        if self.color not in COLORS:
            raise ValueError(f"unknown colour model {self.color!r}")


#: Published requirements the service presets follow: DriveThruCards takes one PDF per deck,
#: one card a page with 1/8 in bleed, each card's back page before its front, CMYK; The Game
#: Crafter one PNG per face, 825 x 1125 px for poker cards (300 dpi with 1/8 in bleed) and a
#: 2.25 x 3.25 in safe area; MakePlayingCards 63 x 88 mm cards with 3 mm bleed; Tabletop
#: Simulator a sheet image of at most 10 x 7 cards whose last cell is the hidden card.
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("home-a4", "home printing on A4: nine poker cards a sheet, duplex, crop marks",
           "sheets", paper="a4", safe_mm=2.0, dpi=150, home=True, stamp=True),
    Preset("home-letter", "home printing on US Letter: nine poker cards a sheet, duplex, crop marks",
           "sheets", paper="letter", safe_mm=2.0, dpi=150, home=True, stamp=True),
    Preset("drivethrucards", "DriveThruCards: one PDF, a card a page, back then front, "
           "1/8 in bleed, CMYK", "card-pdf", bleed_mm=MM_PER_IN / 8, safe_mm=MM_PER_IN / 8,
           order="back-front", color="cmyk", service=True),
    Preset("thegamecrafter", "The Game Crafter: a PNG per face, 825 x 1125 px "
           "(300 dpi with 1/8 in bleed)", "png", bleed_mm=MM_PER_IN / 8, safe_mm=MM_PER_IN / 8,
           service=True),
    Preset("makeplayingcards", "MakePlayingCards: a PNG per face, 63 x 88 mm cards with 3 mm "
           "bleed, 300 dpi", "png", card="mpc", bleed_mm=3.0, safe_mm=3.0, service=True),
    Preset("tts", "Tabletop Simulator: deck sheets of up to 10 x 7 cards (last cell the hidden "
           "card) and their backs, 150 dpi", "tts", bleed_mm=0.0, safe_mm=3.0, dpi=150,
           service=True),
)}


def preset_rows(presets: dict[str, Preset] | None = None) -> list[dict[str, object]]:
    """What every preset sets, for ``--list-presets`` (the table and its JSON form)."""
    rows: list[dict[str, object]] = []
    for p in (presets or PRESETS).values():
        rows.append({"name": p.name, "shape": p.shape, "card": p.card, "bleed_mm": round(p.bleed_mm, 3),
                     "safe_mm": round(p.safe_mm, 3), "dpi": p.dpi,
                     "paper": p.paper if p.shape == "sheets" else None,
                     "layout": p.layout if p.shape == "sheets" else None,
                     "order": p.order, "color": p.color, "home": p.home, "service": p.service, "stamp": p.stamp,
                     "summary": p.summary})
    return rows
