"""Card specs: the modules and the double-sided cards of a ROVE deck (docs/FORMATS.md, "Card specs").

A spec is read from YAML into frozen dataclasses and validated as a whole: every
problem of a file is reported at once, each with its line and a fix.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal, get_args

from .errors import InputError, Problem, Problems
from .grid import (
    NEIGHBOUR_OFFSETS,
    Cell,
    Direction,
    GridTextError,
    connected,
    format_grid,
    grid_rows,
    parse_dirs,
)
from .titles import title_problem
from .yamlio import LineDict, LineList, load_yaml_file, load_yaml_text, short_repr, yaml_scalar

SPEC_FORMAT = "rove-spec/1"
ArrowKind = Literal["standard", "short", "jump", "push"]
"""How an arrow moves its module (docs/RULES.md, "Arrows")."""
Ability = Literal["brain", "coil", "gripper", "laser", "motor", "sensor"]
"""A module's ability (docs/RULES.md, "Abilities")."""
ARROW_KINDS: tuple[ArrowKind, ...] = get_args(ArrowKind)
ABILITIES: tuple[Ability, ...] = get_args(Ability)
ANY = "#"
EMPTY = "_"
MAX_POINTS = 9
DEFAULT_MISSIONS_TO_WIN = 7
MAX_INCLUDES = 100
MAX_CARDS = 1000  # cards in one spec (a real deck has a dozen; every card costs memory and print time)
"""Most files one spec may include, at any depth (each one at most once; docs/LIMITS.md)."""

BUNDLED_DIR = Path(__file__).resolve().parent / "specs"
"""Bundled specs and their JSON Schemas: package data, installed with rove (the
repository's ``specs/`` is a link to this folder)."""
DEFAULT_SPEC = "standard"
"""The bundled deck every command plays when it is not given one."""

# used with fullmatch: ``$`` would also match before a final line break ("a\n" as an id)
_ID_RE = re.compile(r"[a-z][a-z0-9_-]*")
_CARD_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_CODE_RE = re.compile(r"[A-Z]")


@dataclass(frozen=True, slots=True)
class Arrow:
    """A kind of movement and the directions it may be used in."""

    kind: ArrowKind
    dirs: tuple[Direction, ...]


@dataclass(frozen=True, slots=True)
class Pattern:
    """A set of cells to match by translation: '#' any module, a code, or '_' empty.

    Cells are in the pattern text's own coordinates (top-left character is (0, 0)).
    """

    cells: tuple[tuple[Cell, str], ...]

    @classmethod
    def from_cells(cls, cells: dict[Cell, str]) -> Pattern:
        return cls(tuple(sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0]))))

    @property
    def occupied(self) -> tuple[Cell, ...]:
        """Cells that must hold a module (any or named)."""
        return tuple(c for c, v in self.cells if v != EMPTY)

    @property
    def empty(self) -> tuple[Cell, ...]:
        return tuple(c for c, v in self.cells if v == EMPTY)

    @property
    def named(self) -> dict[str, Cell]:
        return {v: c for c, v in self.cells if v not in (ANY, EMPTY)}

    @property
    def size(self) -> int:
        return len(self.occupied)

    def text(self) -> str:
        """The pattern as grid text, with the original (0, 0) kept at the top left."""
        return format_grid(dict(self.cells), origin=(0, 0))

    def normalized(self) -> Pattern:
        """The same pattern moved so its bounding box starts at (0, 0): equal up to translation."""
        if not self.cells:
            return self
        x0 = min(c[0] for c, _ in self.cells)
        y0 = min(c[1] for c, _ in self.cells)
        return Pattern.from_cells({(x - x0, y - y0): v for (x, y), v in self.cells})


@dataclass(frozen=True, slots=True)
class Module:
    id: str
    code: str
    name: str
    ability: Ability
    arrows: tuple[Arrow, ...]
    spent_arrows: tuple[Arrow, ...]
    spent_same: bool = True

    def arrows_for(self, spent: bool) -> tuple[Arrow, ...]:
        return self.spent_arrows if spent else self.arrows


@dataclass(frozen=True, slots=True)
class Mission:
    title: str
    pattern: Pattern


@dataclass(frozen=True, slots=True)
class Movement:
    points: int
    bonus: int
    pattern: Pattern


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    mission: Mission
    movement: Movement


@dataclass(frozen=True)
class Spec:
    name: str
    modules: tuple[Module, ...]
    cards: tuple[Card, ...]
    missions_to_win: int = DEFAULT_MISSIONS_TO_WIN
    path: str | None = field(default=None, compare=False)
    #: every file read to make it: the spec file and each file it includes, at any depth;
    #: a command keeps its outputs off all of them, not only off the file it was given
    sources: tuple[Path, ...] = field(default=(), compare=False)

    @cached_property
    def module_by_code(self) -> dict[str, Module]:
        return {m.code: m for m in self.modules}

    @cached_property
    def card_by_id(self) -> dict[str, Card]:
        return {c.id: c for c in self.cards}

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(m.code for m in self.modules)

    def module(self, code: str) -> Module:
        return self.module_by_code[code]

    def card(self, card_id: str) -> Card:
        return self.card_by_id[card_id]


# --------------------------------------------------------------------------- loading


def resolve_spec_ref(ref: str | Path, base_dir: Path | None = None) -> Path:
    """A bundled name (``standard``) or a path, relative to ``base_dir`` when given."""
    text = str(ref)
    if "/" not in text and "\\" not in text and not text.endswith((".yaml", ".yml")):
        bundled = BUNDLED_DIR / f"{text}.yaml"
        if bundled.exists():
            return bundled
    path = Path(text)
    if base_dir is not None and not path.is_absolute():
        path = base_dir / path
    return path


def bundled_name(path: str | Path) -> str | None:
    """The bare name a bundled spec file goes by (``standard``), None for any other file."""
    p = Path(path)
    return p.stem if p.resolve().parent == BUNDLED_DIR else None


def ref_of(spec: Spec) -> str:
    """How a position names ``spec`` when its maker does not say: a bundled deck by its
    name, any other by its file's path.  A spec made from text alone has no file to name, so
    it is named as the default deck (the name positions carried before specs knew their
    file)."""
    if spec.path is None:
        return DEFAULT_SPEC
    return bundled_name(spec.path) or str(spec.path)


def bundled_names() -> list[str]:
    return sorted(p.stem for p in BUNDLED_DIR.glob("*.yaml"))


_SCHEMA_LINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.MULTILINE)


def bundled_spec_text(name: str) -> str:
    """The text of bundled deck ``name``, comments and layout as shipped, for a designer
    to start a deck of their own from (``rove new``).  Its editor line names the JSON
    Schema by a path relative to the bundled folder, which means nothing beside the
    designer's copy, so it is rewritten to the installed schema's absolute path."""
    if name not in bundled_names():
        raise InputError.single(f"--from {name}", None, f"no bundled deck of that name; bundled decks: "
                                            f"{', '.join(bundled_names())}")
    text = (BUNDLED_DIR / f"{name}.yaml").read_text(encoding="utf-8")

    def absolute(match: re.Match[str]) -> str:
        return f"# yaml-language-server: $schema={(BUNDLED_DIR / match.group(1)).as_posix()}"

    return _SCHEMA_LINE.sub(absolute, text, count=1)


def load_spec(ref: str | Path, base_dir: Path | None = None) -> Spec:
    """Read and validate a spec; raises InputError listing every problem found."""
    path = resolve_spec_ref(ref, base_dir)
    if not path.exists() and "/" not in str(ref) and not str(ref).endswith((".yaml", ".yml")):
        names = ", ".join(bundled_names()) or "none"
        raise InputError.single(
            str(ref), None, f"no bundled spec or file of that name; bundled specs: {names}"
        )
    return _SpecReader().read(path)


def spec_from_data(data: Any, path: Path) -> Spec:
    """The spec of the parsed YAML ``data`` of file ``path``, as ``load_spec`` reads it
    (includes relative to its folder), for a caller that has read the file already: a
    pipe (``/dev/stdin``) can be read only once."""
    reader = _SpecReader()
    reader.sources.append(path)
    return reader.read_data(path, data)


def parse_spec(text: str, name: str = "<spec>", base_dir: Path | None = None) -> Spec:
    """A spec from YAML (or JSON) text, validated as ``load_spec`` validates a file;
    ``name`` stands for the file in problems, and includes are read relative to
    ``base_dir`` (default: the working folder)."""
    path = (base_dir or Path()) / name
    return _SpecReader().read_data(path, load_yaml_text(text, str(path)))


class _SpecReader:
    """Reads one spec file and the files it includes, then validates the whole deck."""

    def __init__(self) -> None:
        self.stack: list[Path] = []
        #: codes of every module entry, read or not, so a bad module does not make
        #: every pattern that names it look wrong too
        self.declared_codes: set[str] = set()
        self.declared_modules = 0
        self.declared_cards = 0
        self.bad_mtw = False
        self.includes = 0
        self.sources: list[Path] = []
        #: every file included so far (real path) -> where: (file, line) of its include
        self.included: dict[Path, tuple[Path, int]] = {}
        #: the patterns of cards rejected for other problems (file, line, label, pattern),
        #: still checked against the deck so that a card's every problem is reported
        self.loose_patterns: list[tuple[str, int, str, Pattern]] = []

    def read(self, path: Path) -> Spec:
        self.sources.append(path)
        return self.read_data(path, load_yaml_file(path, "card spec (YAML)"))

    def read_data(self, path: Path, data: Any) -> Spec:
        """The spec of the parsed YAML ``data`` of file ``path`` (its includes are read)."""
        probs = Problems(str(path))
        name, mtw, modules, cards = self._read_file(path, data, probs, top=True)
        if not isinstance(data, LineDict):
            probs.raise_if_any()
        # 0 when missions_to_win itself was bad (already reported): skip the count check
        mtw_line = 0 if self.bad_mtw else data.line_of("missions_to_win")
        spec = Spec(name=name or path.stem, modules=tuple(m for m, _, _ in modules),
                    cards=tuple(c for c, _, _ in cards), missions_to_win=mtw, path=str(path),
                    sources=tuple(self.sources))
        # Deck-wide checks run even when some entries were bad: they look only at the
        # entries that were read, so every problem of the file is reported at once.
        _check_deck(spec, modules, cards, probs, mtw_line, codes=self.declared_codes,
                    n_modules=self.declared_modules, n_cards=self.declared_cards,
                    loose=self.loose_patterns)
        probs.raise_if_any()
        return spec

    def _read_file(
        self, path: Path, data: Any, probs: Problems, top: bool
    ) -> tuple[str | None, int, list[tuple[Module, str, int]], list[tuple[Card, str, int]]]:
        """Returns the name, missions_to_win and (item, file, line) lists, includes first."""
        modules: list[tuple[Module, str, int]] = []
        cards: list[tuple[Card, str, int]] = []
        if not isinstance(data, LineDict):
            probs.add(1, "a spec must be a YAML mapping with format, name, modules and cards")
            return None, DEFAULT_MISSIONS_TO_WIN, modules, cards
        name, mtw = self._read_header(data, probs, top)
        self._read_includes(path, data, probs, modules, cards)
        self._read_sections(path, data, probs, top, modules, cards)
        return name, mtw, modules, cards

    def _read_header(self, data: LineDict, probs: Problems, top: bool) -> tuple[str | None, int]:
        """The top-level keys, the format, the name and missions_to_win."""
        allowed = {"format", "name", "missions_to_win", "modules", "cards", "include", "description"}
        _unknown_keys(data, allowed, probs, "spec")
        fmt = data.get("format")
        if fmt != SPEC_FORMAT:
            probs.add(data.line_of("format"),
                      f"format is {fmt!r}; write 'format: {SPEC_FORMAT}' at the top")
        name = data.get("name")
        if top and "name" not in data:
            probs.add(data.line, "missing or non-text 'name'; add 'name: My deck'")
        elif top:
            problem = _text_problem(name, "spec name", "name: My deck", None)
            if problem:
                probs.add(data.line_of("name"), problem)
        mtw = data.get("missions_to_win", DEFAULT_MISSIONS_TO_WIN)
        if not _is_int(mtw) or mtw < 1:
            probs.add(data.line_of("missions_to_win"),
                      f"missions_to_win is {mtw!r}; give a whole number of at least 1")
            mtw = DEFAULT_MISSIONS_TO_WIN
            self.bad_mtw = self.bad_mtw or top
        return (name if isinstance(name, str) else None), mtw

    def _read_includes(self, path: Path, data: LineDict, probs: Problems,
                       modules: list[tuple[Module, str, int]], cards: list[tuple[Card, str, int]]) -> None:
        """Read every file ``include`` names (their modules and cards go first)."""
        includes = data.get("include", [])
        if isinstance(includes, str):
            includes = LineList([includes])
            includes.line = data.line_of("include")
            includes.item_lines = [includes.line]
        if not isinstance(includes, list):
            probs.add(data.line_of("include"), "include must be a file path or a list of paths")
            includes = []
        for i, inc in enumerate(includes):
            line = includes.line_of(i) if isinstance(includes, LineList) else data.line_of("include")
            if not isinstance(inc, str):
                probs.add(line, f"include entry {inc!r} is not a path; write a relative file path")
                continue
            inc_path = self._include_path(path, inc, line, probs)
            if inc_path is None:
                continue
            self.stack.append(path)
            self.sources.append(inc_path)
            try:
                inc_data = load_yaml_file(inc_path, "card spec (YAML)")
                inc_probs = Problems(str(inc_path))
                _, _, m2, c2 = self._read_file(inc_path, inc_data, inc_probs, top=False)
                probs.extend(inc_probs.items)
                modules += m2
                cards += c2
            except InputError as exc:
                probs.extend(exc.problems)
            finally:
                self.stack.pop()

    def _include_path(self, path: Path, inc: str, line: int, probs: Problems) -> Path | None:
        """The file an include names, or None (the problem added) when it cannot be read:
        missing, a link loop, a cycle, a second include of one file, over the limit."""
        inc_path = resolve_spec_ref(inc, path.parent)
        try:
            inc_real = inc_path.resolve()
        except (OSError, RuntimeError):  # a loop of symbolic links
            probs.add(line, f"included file {inc_path} is a loop of symbolic links; fix the link")
            return None
        if inc_real in [p.resolve() for p in [*self.stack, path]]:
            probs.add(line, f"include of {inc} makes a cycle; remove it")
            return None
        if not inc_path.exists():
            probs.add(line, f"included file {inc_path} does not exist; fix the path "
                            "(it is relative to this file's folder)")
            return None
        if inc_real in self.included:  # its modules and cards would all be "used twice"
            first, first_line = self.included[inc_real]
            where = f"line {first_line}" if first == path else f"{first}:{first_line}"
            probs.add(line, f"{inc} is included a second time (first at {where}); a file's "
                            "modules and cards can be in a deck once: remove one include")
            return None
        self.included[inc_real] = (path, line)
        self.includes += 1
        if self.includes > MAX_INCLUDES:
            probs.add(line, f"more than {MAX_INCLUDES} includes in all, at any depth (the limit); "
                            "include fewer files")
            return None
        return inc_path

    def _read_sections(self, path: Path, data: LineDict, probs: Problems, top: bool,
                       modules: list[tuple[Module, str, int]], cards: list[tuple[Card, str, int]]) -> None:
        """The file's own modules and cards, appended to ``modules`` and ``cards``."""
        loose = self.loose_patterns

        def card(item: Any, line: int, probs: Problems) -> Card | None:
            return _read_card(item, line, probs, (str(path), loose))

        # the same steps for both lists (a module reader fills ``modules``, a card reader ``cards``)
        sections: list[tuple[str, Callable[[Any, int, Problems], Any], list[Any]]] = [
            ("modules", _read_module, modules), ("cards", card, cards)]
        for key, reader, out in sections:
            items = data.get(key)
            if items is None:
                if top and key == "modules" and not modules:
                    probs.add(data.line, "missing 'modules'; list the deck's module cards")
                if top and key == "cards" and not cards:
                    probs.add(data.line, "missing 'cards'; list the deck's mission/movement cards")
                continue
            if not isinstance(items, LineList):
                probs.add(data.line_of(key), f"'{key}' must be a list")
                continue
            if not items and top and not out:
                probs.add(data.line_of(key), f"'{key}' is empty; list at least one")
            if key == "cards" and self.declared_cards + len(items) > MAX_CARDS:
                probs.add(data.line_of(key), f"more than {MAX_CARDS} cards (limit MAX_CARDS); "
                                             "a deck is a dozen or so cards: split the file")
                continue
            for i, item in enumerate(items):
                if key == "cards":
                    self.declared_cards += 1
                if key == "modules":
                    self.declared_modules += 1
                    if isinstance(item, LineDict) and isinstance(item.get("code"), str):
                        self.declared_codes.add(item["code"])
                got = reader(item, items.line_of(i), probs)
                if got is not None:
                    out.append((got, str(path), items.line_of(i)))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _label(v: Any) -> str:
    """An id as a message names it: as written when it is short text, else quoted and cut."""
    return v if isinstance(v, str) and len(v) <= 40 and v.isprintable() else short_repr(v, 40)


def _yaml_kind(v: Any) -> str:
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, bool):
        return "a yes/no value"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, (datetime.date, datetime.datetime)):
        return "a date"
    return f"a {type(v).__name__} value"


def _text_problem(value: Any, what: str, example: str, kind: str | None) -> str | None:
    """Why ``value`` cannot be a printed title or name, or None when it can: it must be
    non-empty text that the card fonts draw and, for a mission title (``kind`` "mission")
    or a module name ("module"), that fits its box on the card (rove.titles, which measures
    with the card fonts' own data without importing ReportLab)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return f"{what} is empty; write it, like '{example}'"
    if not isinstance(value, str):
        if isinstance(value, (dict, list)):
            hint = "quote text that starts with '{' or '[' or holds ': '"
        else:
            hint = "put quotes around text that YAML would read as a number, a date or yes/no: \"1984\""
        return (f"{what} is {short_repr(value)}, {_yaml_kind(value)}, not text; write text, "
                f"like '{example}' ({hint})")
    problem = title_problem(value, kind)
    return f"{what} {short_repr(value)} {problem}" if problem else None


def _unknown_keys(d: LineDict, allowed: set[str], probs: Problems, what: str) -> None:
    for key in d:
        if key not in allowed:
            near = ", ".join(sorted(allowed))
            probs.add(d.line_of(key), f"unknown key '{key}' in {what}; allowed keys: {near}")


def _require(d: LineDict, keys: Iterable[str], probs: Problems, what: str) -> bool:
    ok = True
    for key in keys:
        if key not in d:
            probs.add(d.line, f"{what} is missing '{key}'; add it")
            ok = False
    return ok


def _read_arrows(value: Any, line: int, probs: Problems, what: str) -> tuple[Arrow, ...] | None:
    if not isinstance(value, LineList) or not value:
        probs.add(line, f"{what} must be a non-empty list like [{{kind: standard, dirs: [N, E]}}]")
        return None
    arrows = []
    for i, a in enumerate(value):
        aline = value.line_of(i)
        if not isinstance(a, LineDict):
            probs.add(aline, f"each arrow must be a mapping {{kind: ..., dirs: [...]}}, not {a!r}")
            continue
        _unknown_keys(a, {"kind", "dirs"}, probs, "arrow")
        if not _require(a, ("kind", "dirs"), probs, "arrow"):
            continue
        kind = a["kind"]
        if kind not in ARROW_KINDS:
            probs.add(a.line_of("kind"),
                      f"unknown arrow kind {kind!r}; use one of: {', '.join(ARROW_KINDS)}")
            continue
        dirs = a["dirs"]
        if isinstance(dirs, str):
            dirs = [dirs]
        if not isinstance(dirs, list) or not dirs:
            probs.add(a.line_of("dirs"), "dirs must be a non-empty list of directions")
            continue
        try:
            parsed = parse_dirs(str(d) for d in dirs)
        except KeyError as exc:
            probs.add(a.line_of("dirs"),
                      f"unknown direction {exc.args[0]!r}; use N NE E SE S SW W NW, "
                      "orthogonal, diagonal or all")
            continue
        arrows.append(Arrow(kind, parsed))
    return tuple(arrows) if len(arrows) == len(value) else None


def _read_module(d: Any, line: int, probs: Problems) -> Module | None:
    if not isinstance(d, LineDict):
        probs.add(line, "each module must be a mapping with id, code, name, ability, arrows")
        return None
    _unknown_keys(d, {"id", "code", "name", "ability", "arrows", "spent_arrows"}, probs, "module")
    if not _require(d, ("id", "code", "name", "ability", "arrows"), probs, "module"):
        return None
    ok = True
    mid, code, ability = d["id"], d["code"], d["ability"]
    if not isinstance(mid, str) or not _ID_RE.fullmatch(mid):
        probs.add(d.line_of("id"), f"module id {mid!r} must be lower-case letters, digits, '_' or '-'")
        ok = False
    if not isinstance(code, str) or not _CODE_RE.fullmatch(code):
        probs.add(d.line_of("code"), f"module code {code!r} must be a single upper-case letter")
        ok = False
    if ability not in ABILITIES:
        probs.add(d.line_of("ability"),
                  f"unknown ability {ability!r}; use one of: {', '.join(ABILITIES)}")
        ok = False
    problem = _text_problem(d["name"], f"module {_label(mid)} name", "name: Brain", "module")
    if problem:
        probs.add(d.line_of("name"), problem)
        ok = False
    arrows = _read_arrows(d["arrows"], d.line_of("arrows"), probs, "arrows")
    spent_raw = d.get("spent_arrows", "same")
    spent_same = spent_raw == "same"
    spent = arrows if spent_same else _read_arrows(
        spent_raw, d.line_of("spent_arrows"), probs, "spent_arrows ('same' or a list)")
    if not ok or arrows is None or spent is None:
        return None
    return Module(id=mid, code=code, name=d["name"], ability=ability, arrows=arrows,
                  spent_arrows=spent, spent_same=spent_same)


def _read_pattern(value: Any, line: int, probs: Problems, what: str) -> Pattern | None:
    if not isinstance(value, str):
        probs.add(line, f"{what} must be grid text (use 'pattern: |' and rows like '# B #')")
        return None
    try:
        rows = grid_rows(value)
    except GridTextError as exc:
        probs.add(line, f"{what}: {exc}")
        return None
    cells: dict[Cell, str] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == ".":
                continue
            if ch not in (ANY, EMPTY) and not _CODE_RE.fullmatch(ch):
                probs.add(line, f"{what} has the character {ch!r} in row {y + 1}; use '#', a "
                                "module code, '.' (not part of the pattern) or '_' (must be empty)")
                return None
            cells[(x, y)] = ch
    if not any(v != EMPTY for v in cells.values()):
        probs.add(line, f"{what} is empty; mark at least one cell with '#' or a module code")
        return None
    return Pattern.from_cells(cells)


def _read_card(d: Any, line: int, probs: Problems,
               loose: tuple[str, list[tuple[str, int, str, Pattern]]] | None = None) -> Card | None:
    """A card, or None (its problems added).  ``loose``: (file, list) where the patterns
    of a card rejected for another problem go, for the deck's pattern checks."""
    if not isinstance(d, LineDict):
        probs.add(line, "each card must be a mapping with id, mission and movement")
        return None
    _unknown_keys(d, {"id", "mission", "movement"}, probs, "card")
    if not _require(d, ("id", "mission", "movement"), probs, "card"):
        return None
    cid = d["id"]
    ok = True
    if not isinstance(cid, str) or not _CARD_ID_RE.fullmatch(cid):
        probs.add(d.line_of("id"), f"card id {cid!r} must be letters, digits, '_' or '-' (like c01)")
        ok = False
    mission = movement = None
    read: list[tuple[str, Pattern]] = []  # the patterns read, whatever else is wrong
    m = d["mission"]
    if not isinstance(m, LineDict):
        probs.add(d.line_of("mission"), "mission must be a mapping with title and pattern")
    else:
        _unknown_keys(m, {"title", "pattern"}, probs, "mission")
        if _require(m, ("title", "pattern"), probs, "mission"):
            problem = _text_problem(m["title"], f"card {_label(cid)} mission title", "title: Wake Up",
                                    "mission")
            if problem:
                probs.add(m.line_of("title"), problem)
            pat = _read_pattern(m["pattern"], m.line_of("pattern"), probs, f"card {cid} mission pattern")
            if pat is not None:
                read.append(("mission", pat))
            if pat is not None and not problem:
                mission = Mission(m["title"], pat)
    mv = d["movement"]
    if not isinstance(mv, LineDict):
        probs.add(d.line_of("movement"), "movement must be a mapping with points, bonus and pattern")
    else:
        _unknown_keys(mv, {"points", "bonus", "pattern"}, probs, "movement")
        if _require(mv, ("points", "bonus", "pattern"), probs, "movement"):
            pts, bonus = mv["points"], mv["bonus"]
            for key, v in (("points", pts), ("bonus", bonus)):
                if not _is_int(v) or not 0 <= v <= MAX_POINTS:
                    probs.add(mv.line_of(key),
                              f"movement {key} is {v!r}; give a whole number from 0 to {MAX_POINTS}")
                    ok = False
            if ok and bonus <= pts:
                probs.add(mv.line_of("bonus"),
                          f"bonus {bonus} is not above the base points {pts}; raise the bonus")
                ok = False
            pat = _read_pattern(mv["pattern"], mv.line_of("pattern"), probs,
                                f"card {cid} movement pattern")
            if pat is not None:
                read.append(("movement", pat))
            if pat is not None and ok:
                movement = Movement(pts, bonus, pat)
    if not ok or mission is None or movement is None:
        if loose is not None:
            loose[1].extend((loose[0], line, f"card {_label(cid)} {what}", p) for what, p in read)
        return None
    return Card(cid, mission, movement)


def _check_deck(spec: Spec, modules: list[tuple[Module, str, int]],
                cards: list[tuple[Card, str, int]], probs: Problems, mtw_line: int,
                codes: set[str], n_modules: int, n_cards: int,
                loose: Sequence[tuple[str, int, str, Pattern]] = ()) -> None:
    """Checks across the whole deck: uniqueness, codes in patterns, matchable patterns
    (``loose``: those of cards rejected for other problems, checked all the same)."""

    def add(file: str, line: int, message: str) -> None:
        probs.items.append(Problem(file, line, message))

    seen: dict[str, tuple[str, int]] = {}
    for m, file, line in modules:
        for label, key in (("id", m.id), ("code", m.code)):
            k = f"{label}:{key}"
            if k in seen:
                add(file, line, f"module {label} {key!r} is used twice (also at line {seen[k][1]}); "
                                "give each module its own")
            else:
                seen[k] = (file, line)
    card_seen: dict[str, int] = {}
    for c, file, line in cards:
        if c.id in card_seen:
            add(file, line, f"card id {c.id!r} is used twice (also at line {card_seen[c.id]}); "
                            "give each card its own id")
        card_seen[c.id] = line
    if n_cards and mtw_line and spec.missions_to_win > n_cards:
        add(spec.path or "", mtw_line, f"missions_to_win is {spec.missions_to_win} but the deck has "
                                       f"only {n_cards} cards; lower it or add cards")
    for c, file, line in cards:
        for what, pat in (("mission", c.mission.pattern), ("movement", c.movement.pattern)):
            for problem in pattern_problems(pat, codes, n_modules):
                add(file, line, f"card {c.id} {what} pattern {problem}")
    for file, line, label, pat in loose:
        for problem in pattern_problems(pat, codes, n_modules):
            add(file, line, f"{label} pattern {problem}")


def pattern_problems(pattern: Pattern, codes: set[str], n_modules: int) -> list[str]:
    """Why no valid layout of these modules could ever match the pattern (empty: it can)."""
    out: list[str] = []
    named = [v for _, v in pattern.cells if v not in (ANY, EMPTY)]
    for code in sorted(set(named)):
        if code not in codes:
            out.append(f"names module {code!r}, which the spec does not have; "
                       f"use one of: {' '.join(sorted(codes))}")
        if named.count(code) > 1:
            out.append(f"names module {code} {named.count(code)} times; a module is in one place, "
                       "so name it once")
    if out:
        return out
    size = pattern.size
    if size > n_modules:
        return [f"needs {size} modules but the spec has {n_modules}; remove cells"]
    extra = min_connectors(set(pattern.occupied), set(pattern.empty))
    if extra is None or size + extra > n_modules:
        return [f"cannot be matched: its cells cannot be joined into one group with the "
                f"{n_modules - size} module(s) left over; move its cells closer together"]
    return []


def min_connectors(cells: set[Cell], forbidden: set[Cell], limit: int = 8) -> int | None:
    """Fewest extra cells (not in ``forbidden``) that make ``cells`` one king-connected group.

    A small Steiner-tree search: grow the group from one component, adding one
    neighbouring cell at a time, with iterative deepening and a distance lower bound.
    Returns None when more than ``limit`` cells would be needed.
    """
    if connected(cells):
        return 0

    def gap_bound(group: set[Cell]) -> int:
        # Reaching even the nearest cell not yet joined needs (its distance - 1) cells;
        # farther cells may join through pattern cells in between, so only the nearest counts.
        return min(min(max(abs(c[0] - g[0]), abs(c[1] - g[1])) for g in group)
                   for c in cells - group) - 1

    def grow(group: set[Cell]) -> set[Cell]:
        # Absorb every pattern cell adjacent to the group.
        stack = list(group)
        group = set(group)
        while stack:
            x, y = stack.pop()
            for dx, dy in NEIGHBOUR_OFFSETS:
                c = (x + dx, y + dy)
                if c in cells and c not in group:
                    group.add(c)
                    stack.append(c)
        return group

    start = grow({min(cells)})

    def search(group: set[Cell], budget: int) -> bool:
        if cells <= group:
            return True
        if gap_bound(group) > budget:
            return False
        frontier = sorted({(x + dx, y + dy) for x, y in group for dx, dy in NEIGHBOUR_OFFSETS}
                          - group - forbidden - cells)
        return any(search(grow(group | {c}), budget - 1) for c in frontier)

    for budget in range(1, limit + 1):
        if search(start, budget):
            return budget
    return None


# --------------------------------------------------------------------------- writing


def _block(text: str, indent: str) -> str:
    return "".join(f"{indent}{line}\n" for line in text.rstrip("\n").split("\n"))


def _arrows_yaml(arrows: tuple[Arrow, ...]) -> str:
    return "[" + ", ".join(f"{{kind: {a.kind}, dirs: [{', '.join(d.name for d in a.dirs)}]}}"
                           for a in arrows) + "]"




def dump_spec(spec: Spec, schema: str | None = "rove-spec.schema.json") -> str:
    """The spec as YAML text in the house layout; loading it gives an equal Spec."""
    out: list[str] = []
    if schema:
        out.append(f"# yaml-language-server: $schema={schema}\n")
    out.append(f"format: {SPEC_FORMAT}\nname: {yaml_scalar(spec.name)}\n")
    out.append(f"missions_to_win: {spec.missions_to_win}\nmodules:\n")
    for m in spec.modules:
        out.append(f"  - id: {yaml_scalar(m.id)}\n    code: {m.code}\n    name: {yaml_scalar(m.name)}\n")
        out.append(f"    ability: {m.ability}\n    arrows: {_arrows_yaml(m.arrows)}\n")
        if not m.spent_same:
            out.append(f"    spent_arrows: {_arrows_yaml(m.spent_arrows)}\n")
    out.append("cards:\n")
    for c in spec.cards:
        out.append(f"  - id: {yaml_scalar(c.id)}\n    mission:\n      title: {yaml_scalar(c.mission.title)}\n")
        out.append("      pattern: |\n" + _block(c.mission.pattern.text(), "        "))
        mv = c.movement
        out.append(f"    movement:\n      points: {mv.points}\n      bonus: {mv.bonus}\n")
        out.append("      pattern: |\n" + _block(mv.pattern.text(), "        "))
    return "".join(out)


def iter_patterns(spec: Spec) -> Iterator[tuple[Card, str, Pattern]]:
    for c in spec.cards:
        yield c, "mission", c.mission.pattern
        yield c, "movement", c.movement.pattern
