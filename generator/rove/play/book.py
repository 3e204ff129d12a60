"""``rove play DIR``: a book's export folder as a puzzle list, and a shared link's game.

``rove book --export-dir DIR`` writes each puzzle as a position file, its solution as a
plan, and ``DIR/index.json`` (docs/FORMATS.md, "Book index"), which says what each
puzzle is: its number, file, title, kind, stars, proven optimum and three hint levels.
:func:`load_index` reads and checks the index once, when the command starts (a bad one
stops it with exit 2, naming the file and the problem); the server then opens only the
files the index named, picked by number, never a path the browser sends.

The page keeps the game in its address (the start position or the book's puzzle number,
and the line played), so a reload or a shared link comes back to the same game:
:func:`follow_link` plays it again through the engine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import InputError
from .session import Started, export_spec_ref

INDEX = "index.json"
FORMAT = "rove-book-index"
VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One puzzle of the index, checked."""

    number: int
    file: str
    solution: str | None
    title: str
    kind: str
    stars: int
    optimum: dict[str, int] | None
    hints: tuple[str, str, str]

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "title": self.title, "kind": self.kind, "stars": self.stars,
                "optimum": self.optimum, "hints": list(self.hints)}


@dataclass(frozen=True)
class Book:
    """A book's export folder and its checked index."""

    folder: Path
    title: str
    spec: str
    seed: int
    puzzles: tuple[Entry, ...]

    def entry(self, number: int) -> Entry | None:
        return next((e for e in self.puzzles if e.number == number), None)

    def to_json(self) -> dict[str, Any]:
        """The list the page shows; ``key`` names the book for the solved ticks the
        browser keeps (its title and seed: another book, another set of ticks)."""
        return {"title": self.title, "seed": self.seed, "key": f"{self.title}#{self.seed}",
                "puzzles": [e.to_json() for e in self.puzzles]}

    def started(self, number: int, open_deck: bool = False) -> Started:
        """The puzzle ``number`` as a game to play (InputError for a bad position file)."""
        from ..position import position_from_data
        from ..yamlio import load_yaml_file

        entry = self.entry(number)
        assert entry is not None
        path = self.folder / entry.file
        pos = position_from_data(load_yaml_file(path, "position (YAML)"), str(path), path.parent)
        return Started(pos, f"Puzzle {entry.number}: {entry.title}", export_spec_ref(pos.spec_ref, path.parent),
                       open_deck, puzzle=entry.number)


def _relative_file(value: Any, folder: Path, where: str, probs: list[str], must_exist: bool = True) -> str | None:
    """A file name inside the folder (no absolute path, no '..'), which exists."""
    if not isinstance(value, str) or not value.strip():
        probs.append(f"{where} must be a file name inside the folder, like \"01-mission.yaml\"")
        return None
    p = PurePosixPath(value)
    if p.is_absolute() or ".." in p.parts or "\\" in value:
        probs.append(f"{where} is {value!r}: give a path relative to the folder, without '..'")
        return None
    if must_exist and not (folder / p).is_file():
        probs.append(f"{where} names {value!r}, which is not a file in {folder}")
        return None
    return value


def _entry(item: Any, i: int, folder: Path, probs: list[str]) -> Entry | None:
    where = f"puzzles[{i}]"
    if not isinstance(item, dict):
        probs.append(f"{where} must be an object with number, file, title, kind, stars, optimum, hints")
        return None
    before = len(probs)
    missing = [k for k in ("number", "file", "title", "kind", "stars", "hints") if k not in item]
    if missing:
        probs.append(f"{where} lacks {', '.join(missing)}")
        return None
    number, stars, hints, optimum = item["number"], item["stars"], item["hints"], item.get("optimum")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        probs.append(f"{where}.number is {number!r}; give a whole number from 1")
    file = _relative_file(item["file"], folder, f"{where}.file", probs)
    solution = item.get("solution")
    if solution is not None:
        solution = _relative_file(solution, folder, f"{where}.solution", probs, must_exist=False)
    for key in ("title", "kind"):
        if not isinstance(item[key], str) or not item[key].strip():
            probs.append(f"{where}.{key} must be a non-empty string")
    if not isinstance(stars, int) or isinstance(stars, bool) or not 1 <= stars <= 3:
        probs.append(f"{where}.stars is {stars!r}; give 1, 2 or 3")
    if optimum is not None and not (isinstance(optimum, dict) and set(optimum) == {"points", "cards", "abilities"}
                                    and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                            for v in optimum.values())):
        probs.append(f"{where}.optimum is {optimum!r}; give null or "
                     "{\"points\": N, \"cards\": N, \"abilities\": N} (whole numbers)")
    if not (isinstance(hints, list) and len(hints) == 3 and all(isinstance(h, str) for h in hints)):
        probs.append(f"{where}.hints must be a list of three strings (levels 1, 2 and 3)")
    if len(probs) > before or file is None:
        return None
    return Entry(number, file, solution, item["title"], item["kind"], stars, optimum, tuple(hints))


def load_index(folder: Path) -> Book:
    """The folder's ``index.json``, checked; InputError (exit 2) naming the file and
    every problem, or saying how to make one when the folder has none."""
    path = folder / INDEX
    if not path.is_file():
        raise InputError.single(str(folder), None, (
            f"{folder} is a folder without {INDEX}: `rove play DIR` opens a book's export; "
            "make one with `rove book --export-dir DIR` (or give a position file)"))
    from ..yamlio import read_text

    text = read_text(path, "book index (JSON)")
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise InputError.single(str(path), line, f"not valid JSON ({exc}); "
                                "export the book again with `rove book --export-dir`") from None
    probs: list[str] = []
    if not isinstance(data, dict):
        raise InputError.single(str(path), None, "the index must be a JSON object with format, version, "
                                "title, spec, seed and puzzles")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        probs.append(f"format is {data.get('format')!r} version {data.get('version')!r}; "
                     f"this rove reads {FORMAT!r} version {VERSION}")
    title, spec, seed, puzzles = data.get("title"), data.get("spec"), data.get("seed"), data.get("puzzles")
    if not isinstance(title, str) or not title.strip():
        probs.append("title must be the book's title (a non-empty string)")
    if not isinstance(spec, str):
        probs.append("spec must name the book's spec file, like \"specs/classic.yaml\"")
    if not isinstance(seed, int) or isinstance(seed, bool):
        probs.append(f"seed is {seed!r}; give the book's seed (a whole number)")
    entries: list[Entry] = []
    if not isinstance(puzzles, list) or not puzzles:
        probs.append("puzzles must be a non-empty list of the book's puzzles")
    else:
        for i, item in enumerate(puzzles):
            e = _entry(item, i, folder, probs)
            if e is not None:
                if any(x.number == e.number for x in entries):
                    probs.append(f"puzzles[{i}].number {e.number} is given twice")
                entries.append(e)
    if probs:
        from ..errors import Problem

        raise InputError([Problem(str(path), None, p) for p in probs])
    assert isinstance(title, str) and isinstance(spec, str) and isinstance(seed, int)
    return Book(folder, title, spec, seed, tuple(sorted(entries, key=lambda e: e.number)))


def shared_started(text: str, current: Started) -> Started:
    """A shared link's start position, as a game of the deck this server plays (its
    spec named as the current game names it: the server opens no other spec file);
    InputError for a bad or foreign one."""
    from ..position import position_from_data
    from ..yamlio import LineDict, load_yaml_text

    where = "the link's position"
    data = load_yaml_text(text, where)
    if not isinstance(data, LineDict) or data.get("spec") != current.spec_ref:
        spec = data.get("spec") if isinstance(data, dict) else None
        raise InputError.single(where, None, f"it is a position of spec {spec!r}; this server plays "
                                f"{current.spec_ref!r}: start `rove play` on that deck to open it")
    pos = position_from_data(data, where, Path.cwd())
    title = data.get("title")
    return Started(pos, str(title) if title else "shared position", current.spec_ref, current.open_deck)
