"""Print files for every preset (``rove cards --preset``): sheets, card PDFs, PNGs, TTS decks.

``resolve_job`` turns a preset and the options a user gave into the ``CardOptions`` in
force (a given option wins over the preset's value; one that means nothing for the
preset's output shape is refused). ``render_print`` makes every file in memory, so the
preflight can read them back before anything is written.  ``cards_output``,
``check_destinations`` and ``check_stale_files`` say where the files go and refuse, before
anything is written, a place that would mix them with others.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..outputs import check_output, names_a_folder
from ..spec import Spec, dump_spec
from ..words import listed, plural
from .cards import (
    CardOptions,
    Face,
    card_faces,
    face_pixels,
    hidden_face,
    png_bytes,
    render_card_pngs,
    render_cards_pdf,
    render_face_images,
    render_faces_pdf,
)
from .presets import PRESETS, Preset

#: The output shapes written as a folder of files (the others are one PDF).
FOLDER_SHAPES = ("png", "tts")

#: Tabletop Simulator's largest deck sheet; its last cell holds the hidden card.
TTS_MAX_COLS, TTS_MAX_ROWS = 10, 7


@dataclass(frozen=True)
class PrintJob:
    """A preset and the options in force after the user's overrides; ``stamp`` says whether
    the faces carry the playtest stamp (its text needs the spec: ``render_print`` adds it)."""

    preset: Preset
    opts: CardOptions
    stamp: bool = False
    stamp_date: str | None = None

    @property
    def shape(self) -> str:
        return self.preset.shape


def resolve_job(preset_name: str, *, paper: str | None = None, layout: str | None = None,
                bleed_mm: float | None = None, card: str | None = None, safe_mm: float | None = None,
                dpi: int | None = None, color: str | None = None,
                back_offset_mm: tuple[float, float] | None = None, stamp: bool | None = None,
                stamp_date: str | None = None) -> PrintJob:
    """The preset with the options given (None: the preset's own) laid over it.

    Raises ValueError, with a message that names the option, for an unknown preset or an
    option the preset's output shape has no use for."""
    if preset_name not in PRESETS:
        raise ValueError(f"unknown preset {preset_name!r}; use one of {', '.join(PRESETS)} "
                         "(rove cards --list-presets shows what each sets)")
    p = PRESETS[preset_name]
    if p.shape != "sheets":
        for option, value in (("--paper", paper), ("--layout", layout), ("--back-offset", back_offset_mm)):
            if value is not None:
                raise ValueError(f"{option} applies to home sheets only; preset {p.name} writes "
                                 f"{_SHAPE_WORDS[p.shape]} (use --preset home-a4 or home-letter)")
    lay = layout or p.layout
    if back_offset_mm is not None and lay != "duplex":
        raise ValueError(f"--back-offset shifts the back pages of --layout duplex; layout {lay} "
                         "has no back pages")
    if stamp_date is not None:
        from ..titles import undrawable_chars

        bad = undrawable_chars(stamp_date, limit=3)
        if bad or not 0 < len(stamp_date) <= 40:
            raise ValueError(f"--stamp-date {stamp_date!r}: give a short date, at most 40 characters"
                             + (f" the card font can draw (not {', '.join(map(repr, bad))})" if bad else ""))
    if stamp is False and stamp_date is not None:
        raise ValueError("--stamp-date dates the stamp that --no-stamp leaves out; give one of them")
    if color is not None and p.shape in ("png", "tts") and color != "rgb":
        raise ValueError(f"--color {color} is for PDFs; preset {p.name} writes "
                         f"{_SHAPE_WORDS[p.shape]}, which are RGB")
    opts = CardOptions(paper=paper or p.paper, layout=lay,
                       bleed_mm=p.bleed_mm if bleed_mm is None else bleed_mm,
                       card=card or p.card, safe_mm=p.safe_mm if safe_mm is None else safe_mm,
                       dpi=dpi or p.dpi, order=p.order, color=color or p.color,
                       back_offset_mm=back_offset_mm or (0.0, 0.0))
    wanted = (p.stamp if stamp is None else stamp) or stamp_date is not None
    return PrintJob(p, opts, wanted, stamp_date)


_SHAPE_WORDS = {"sheets": "home-print sheets", "card-pdf": "one PDF with a card a page",
                "png": "a folder of PNGs, one per card face",
                "tts": "Tabletop Simulator deck images"}


def spec_hash(spec: Spec) -> str:
    """A short hash of the spec's content (its canonical YAML), for the playtest stamp."""
    return hashlib.sha256(dump_spec(spec, None).encode("utf-8")).hexdigest()[:8]


def stamp_text(spec: Spec, date: str | None) -> str:
    """Deck name, spec hash and the date given: tells playtest printouts apart. No date is
    read from the clock, so the same inputs still give the same bytes."""
    return " · ".join([spec.name, spec_hash(spec), *([date] if date else [])])


@dataclass
class PrintFiles:
    """Everything one job writes, in memory: ``pdf`` (sheets, card-pdf) or ``files`` (a
    folder's files by name), and the one-face-a-page PDF the faces are checked on."""

    job: PrintJob
    faces_pdf: bytes
    faces: list[Face]
    pdf: bytes | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    tts_sheets: list[dict[str, Any]] = field(default_factory=list)


def render_print(spec: Spec, job: PrintJob) -> PrintFiles:
    """Every file of the job, deterministic for the same spec and job."""
    if job.stamp:
        job = replace(job, opts=replace(job.opts, stamp=stamp_text(spec, job.stamp_date)))
    opts = job.opts
    if job.shape == "tts":
        return _render_tts(spec, job)
    faces_pdf, faces = render_faces_pdf(spec, opts)
    out = PrintFiles(job, faces_pdf, faces)
    if job.shape == "sheets":
        out.pdf = render_cards_pdf(spec, opts)
    elif job.shape == "card-pdf":
        out.pdf = faces_pdf
    else:
        out.files = render_card_pngs(spec, opts)
    return out


def tts_grid(n: int) -> tuple[int, int]:
    """(cols, rows) of a deck sheet for ``n`` cards plus the hidden card's cell: at most
    10 x 7, at least 2 x 2 (what Tabletop Simulator's import takes)."""
    cells = n + 1
    cols = max(2, min(TTS_MAX_COLS, cells))
    rows = max(2, math.ceil(cells / cols))
    return cols, rows


def _render_tts(spec: Spec, job: PrintJob) -> PrintFiles:
    """Sheets of fronts (mission and active sides) and of backs in the same cells."""
    from PIL import Image

    opts = job.opts
    pairs = card_faces(spec)
    hidden = hidden_face(spec)
    faces = [f for pair in pairs for f in pair] + [hidden]
    faces_pdf, _ = render_faces_pdf(spec, opts, faces)
    images = dict(zip((f.key for f in faces), render_face_images(spec, opts, faces), strict=True))
    cw, ch = face_pixels(opts)
    per_sheet = TTS_MAX_COLS * TTS_MAX_ROWS - 1
    out = PrintFiles(job, faces_pdf, faces)
    for k, start in enumerate(range(0, len(pairs), per_sheet), start=1):
        chunk = pairs[start:start + per_sheet]
        cols, rows = tts_grid(len(chunk))
        entry: dict[str, Any] = {"cols": cols, "rows": rows, "cards": len(chunk)}
        for side, pick in (("fronts", 0), ("backs", 1)):
            sheet = Image.new("RGB", (cols * cw, rows * ch), (255, 255, 255))
            for i, pair in enumerate(chunk):
                r, c = divmod(i, cols)
                sheet.paste(images[pair[pick].key], (c * cw, r * ch))
            sheet.paste(images[hidden.key], ((cols - 1) * cw, (rows - 1) * ch))
            name = f"deck-{k}-{side}.png"
            out.files[name] = png_bytes(sheet, opts.dpi)
            entry[side] = name
            entry[f"{side}_keys"] = [pair[pick].key for pair in chunk]
        out.tts_sheets.append(entry)
    manifest = {"format": "rove-tts/1", "deck": spec.name, "card_px": [cw, ch], "sheets": [
        {k: v for k, v in e.items() if not k.endswith("_keys")} for e in out.tts_sheets]}
    out.files["deck.json"] = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
    return out


# --------------------------------------------------------------------------- where the files go


def cards_output(output: str | None, preset: str | None, *, calibration: bool = False) -> Path:
    """The path ``rove cards`` writes to: ``output`` as typed (``-o``), else the default
    of the preset (``output/cards.pdf`` when no preset is named, ``output/cards-NAME.pdf``
    or the folder ``output/cards-NAME``) or of the calibration sheet.

    ``output`` is text, not a ``Path``: a name ending in ``/`` names a folder, which only
    the png and tts presets write, and ``Path`` would drop the slash.  Raises ValueError
    for a folder name where one PDF is written; the preset must exist."""
    name = preset or "home-a4"
    shape = PRESETS[name].shape
    if output is not None:
        if names_a_folder(output) and (calibration or shape not in FOLDER_SHAPES):
            raise ValueError(f"-o {output!r} names a folder, not a file; this writes one PDF: "
                             "give a file name")
        return Path(output)
    if calibration:
        return Path("output/calibration.pdf")
    if preset is None:
        return Path("output/cards.pdf")
    return Path(f"output/cards-{name}.pdf") if shape in ("sheets", "card-pdf") else Path(f"output/cards-{name}")


def check_destinations(spec: Spec, output: Path, shape: str, png_dir: Path | None, force: bool) -> None:
    """Refuse (InputError), before any work, an output the files of ``shape`` cannot take
    (``check_output``) and a ``--png-dir`` that already holds previews of this deck's
    cards, unless ``force`` is given: they would be replaced without a word."""
    check_output(output, "-o", folder=shape in FOLDER_SHAPES, inputs=spec.sources)
    if png_dir is None:
        return
    check_output(png_dir, "--png-dir", folder=True, inputs=spec.sources, others=[("-o", output)])
    names = [f"{face.key}.png" for pair in card_faces(spec) for face in pair]
    there = [n for n in names if os.path.lexists(png_dir / n)]
    if there and not force:
        raise InputError.single(str(png_dir), None, (
            f"--png-dir already holds {plural(len(there), 'preview')} of this deck ({listed(there, 3)}); "
            "give a new or empty folder, or add --force to replace them"))


def check_stale_files(output: Path, files: PrintFiles) -> None:
    """Refuse (InputError) an existing output folder that holds card images or JSON this
    deck does not have: a card left over from an earlier deck would be uploaded with
    this one."""
    if files.pdf is not None or not output.is_dir():
        return
    stale = sorted(f.name for f in output.iterdir()
                   if f.suffix.lower() in (".png", ".json") and f.name not in files.files)
    if stale:
        raise InputError.single(str(output), None, (
            f"-o holds files this deck does not have ({listed(stale, 3)}), from an earlier run; "
            "give a new or empty folder, or remove them (nothing was written)"))
