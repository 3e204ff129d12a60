"""Positions: a deal, a mid-game table or a puzzle (docs/FORMATS.md, "Positions").

A Position is an immutable value; the rules engine turns it into a mutable game
state.  ``dump_position`` writes it back in one fixed layout so that the same
position always gives the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, cast, get_args

from .errors import InputError, Problems
from .grid import Cell, GridTextError, connected, format_grid, grid_rows
from .rules import HAND_LIMIT, OPTIONS, Rules, option_message
from .spec import DEFAULT_SPEC, Spec, load_spec
from .yamlio import LineDict, load_yaml_file, load_yaml_text, yaml_scalar

POSITION_FORMAT = "rove-position/1"
MAX_BUDGET = 1000
"""Most points a position's current card or bare budget may hold (docs/LIMITS.md)."""
Goal = Literal["game", "mission"]
"""What a position asks for: win the game, or complete the current mission."""
GOALS: tuple[Goal, ...] = get_args(Goal)


@dataclass(frozen=True, slots=True)
class Current:
    """The current movement card and its points left; ``card`` None is a bare budget."""

    card: str | None
    points: int


@dataclass(frozen=True)
class Position:
    spec: Spec
    layout: tuple[tuple[str, Cell], ...]
    mission: str
    goal: Goal = "game"
    spent: frozenset[str] = frozenset()
    missions_done: int = 0
    hand: tuple[str, ...] = ()
    draw: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    current: Current | None = None
    rules: Rules = Rules()
    completed: tuple[str, ...] = ()
    spec_ref: str = field(default=DEFAULT_SPEC, compare=False)

    @property
    def cells(self) -> dict[str, Cell]:
        return dict(self.layout)

    @staticmethod
    def layout_of(cells: dict[str, Cell]) -> tuple[tuple[str, Cell], ...]:
        return tuple(sorted(cells.items()))

    def with_cells(self, cells: dict[str, Cell]) -> Position:
        return replace(self, layout=self.layout_of(cells))


def layout_text(cells: dict[str, Cell]) -> str:
    """Module cells as grid text whose top-left is the bounding box's corner."""
    return format_grid({c: code for code, c in cells.items()})


def normalized_cells(cells: dict[str, Cell]) -> dict[str, Cell]:
    """Shift cells so the bounding box starts at (0, 0), as a written layout does."""
    x0 = min(c[0] for c in cells.values())
    y0 = min(c[1] for c in cells.values())
    return {k: (x - x0, y - y0) for k, (x, y) in cells.items()}


# --------------------------------------------------------------------------- reading


def load_position(path: str | Path) -> Position:
    path = Path(path)
    data = load_yaml_file(path, "position (YAML)")
    return position_from_data(data, str(path), path.parent)


def parse_position(text: str, path: str = "<position>", base_dir: Path | None = None) -> Position:
    return position_from_data(load_yaml_text(text, path), path, base_dir or Path.cwd())


def _ids(value: Any, line: int, key: str, probs: Problems) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        probs.add(line, f"{key} must be a list of card ids like [c02, c03]")
        return None
    return tuple(value)


def position_from_data(data: Any, path: str, base_dir: Path) -> Position:
    """A position from its parsed YAML: every problem of the file is collected (each
    section below adds its own) before one InputError names them all."""
    probs = Problems(path)
    _check_keys(data, path, probs)
    spec_ref = data["spec"]
    spec = _read_spec(data, path, base_dir)
    L = data.line_of
    goal = data.get("goal", "game")
    if goal not in GOALS:
        probs.add(L("goal"), f"goal is {goal!r}; use game or mission")
    cells = _read_layout(data, spec, probs)
    spent = _read_spent(data, spec, probs)
    done = data.get("missions_done", 0)
    if not isinstance(done, int) or isinstance(done, bool) or not 0 <= done < spec.missions_to_win:
        probs.add(L("missions_done"), f"missions_done is {done!r}; give a whole number from 0 to "
                                      f"{spec.missions_to_win - 1}")
        done = 0
    mission = data["mission"]
    hand = _ids(data.get("hand"), L("hand"), "hand", probs)
    draw = _ids(data.get("draw"), L("draw"), "draw", probs)
    discard = _ids(data.get("discard"), L("discard"), "discard", probs)
    completed = _ids(data.get("completed"), L("completed"), "completed", probs)
    if hand is not None and len(hand) > HAND_LIMIT:
        probs.add(L("hand"), f"hand holds {len(hand)} cards; the hand limit is {HAND_LIMIT}")
    current = _read_current(data, probs)
    _check_cards(data, spec, probs, [
        ("mission", (mission,) if isinstance(mission, str) else None),
        ("hand", hand), ("draw", draw), ("discard", discard), ("completed", completed),
        ("current", (current.card,) if current and current.card else ()),
    ])
    if completed is not None and len(completed) > done:
        probs.add(L("completed"), f"completed lists {len(completed)} cards but missions_done is {done}")
    rules = _read_rules(data, probs)
    probs.raise_if_any()
    assert hand is not None and draw is not None and discard is not None and completed is not None
    return Position(spec=spec, layout=Position.layout_of(cells), mission=mission, goal=cast(Goal, goal),
                    spent=spent, missions_done=done, hand=hand, draw=draw, discard=discard,
                    current=current, rules=rules, completed=completed, spec_ref=spec_ref)


def _check_keys(data: Any, path: str, probs: Problems) -> None:
    """A mapping of known keys with the format and the keys every position needs (the
    rest of the reading relies on them, so problems here are raised at once)."""
    if not isinstance(data, LineDict):
        raise InputError.single(path, 1, "a position must be a YAML mapping (format, spec, layout, ...)")
    allowed = {"format", "spec", "goal", "layout", "spent", "missions_done", "mission", "hand",
               "draw", "discard", "current", "rules", "completed", "title", "comment"}
    for key in data:
        if key not in allowed:
            probs.add(data.line_of(key), f"unknown key '{key}' in position; allowed keys: "
                                         + ", ".join(sorted(allowed)))
    if data.get("format") != POSITION_FORMAT:
        probs.add(data.line_of("format"),
                  f"format is {data.get('format')!r}; write 'format: {POSITION_FORMAT}' at the top")
    for key in ("spec", "layout", "mission"):
        if key not in data:
            probs.add(data.line, f"position is missing '{key}'; add it")
    probs.raise_if_any()


def _read_spec(data: LineDict, path: str, base_dir: Path) -> Spec:
    """The spec the position names; its own problems follow a line that says so."""
    spec_ref = data["spec"]
    if not isinstance(spec_ref, str):
        raise InputError.single(path, data.line_of("spec"), "spec must be a bundled name or a path")
    try:
        return load_spec(spec_ref, base_dir)
    except InputError as exc:
        head = Problems(path)
        head.add(data.line_of("spec"), f"spec {spec_ref!r} cannot be used; fix the problems below "
                                       "or name another spec")
        raise InputError([*head.items, *exc.problems]) from None


def _read_layout(data: LineDict, spec: Spec, probs: Problems) -> dict[str, Cell]:
    """Module code -> cell from the layout text: every module once, in one group."""
    L = data.line_of
    cells: dict[str, Cell] = {}
    layout = data["layout"]
    if not isinstance(layout, str):
        probs.add(L("layout"), "layout must be grid text of module codes, like 'B C G' / 'L M S'")
        return cells
    try:
        rows = grid_rows(layout)
    except GridTextError as exc:
        probs.add(L("layout"), f"layout: {exc}")
        rows = []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == ".":
                continue
            if ch not in spec.module_by_code:
                probs.add(L("layout"), f"layout has {ch!r} in row {y + 1}, which is not a "
                                       f"module code; use {' '.join(spec.codes)} or '.'")
            elif ch in cells:
                probs.add(L("layout"), f"layout has module {ch} twice; each module is in one place")
            else:
                cells[ch] = (x, y)
    if not probs:  # an empty layout too: it lacks every module
        missing = [c for c in spec.codes if c not in cells]
        if missing:
            probs.add(L("layout"), f"layout lacks module(s) {' '.join(missing)}; "
                                   "every module of the spec is on the table exactly once")
        elif not connected(cells.values()):
            probs.add(L("layout"), "layout is not one group: every module must touch another "
                                   "(edge or corner) so that all form one group")
    return cells


def _read_spent(data: LineDict, spec: Spec, probs: Problems) -> frozenset[str]:
    L = data.line_of
    spent_raw = data.get("spent", [])
    if not isinstance(spent_raw, list) or not all(isinstance(s, str) for s in spent_raw):
        probs.add(L("spent"), "spent must be a list of module codes like [L, S]")
        return frozenset()
    bad = [s for s in spent_raw if s not in spec.module_by_code]
    if bad:
        probs.add(L("spent"), f"spent names unknown module(s) {' '.join(bad)}; "
                              f"use codes from {' '.join(spec.codes)}")
    if len(set(spent_raw)) != len(spent_raw):
        probs.add(L("spent"), "spent lists a module twice; list each once")
    return frozenset(spent_raw)


def _read_current(data: LineDict, probs: Problems) -> Current | None:
    """The current movement card and its points (a card id, or null for a bare budget)."""
    L = data.line_of
    cur = data.get("current")
    if cur is None:
        return None
    if not isinstance(cur, LineDict) or set(cur) - {"card", "points"} or "points" not in cur:
        probs.add(L("current"), "current must be null or {card: ID or null, points: N}")
        return None
    card, pts = cur.get("card"), cur["points"]
    if not isinstance(pts, int) or isinstance(pts, bool) or not 0 <= pts <= MAX_BUDGET:
        probs.add(L("current"), f"current points is {pts!r}; give a whole number >= 0 and "
                                f"<= {MAX_BUDGET} (the most every engine handles)")
    elif card is not None and not isinstance(card, str):
        probs.add(L("current"), "current card must be a card id or null (a bare budget)")
    elif card is not None and pts < 1:
        probs.add(L("current"), "a current card with 0 points is already discarded; "
                                "put it on the discard pile and write current: null")
    else:
        return Current(card, pts)
    return None


def _check_cards(data: LineDict, spec: Spec, probs: Problems,
                 groups: list[tuple[str, tuple[str, ...] | None]]) -> None:
    """Every card id known to the spec, and in one place at most across the piles."""
    L = data.line_of
    where: dict[str, str] = {}
    if not isinstance(data["mission"], str):
        probs.add(L("mission"), "mission must be a card id like c01")
    for key, ids in groups:
        for cid in ids or ():
            if cid not in spec.card_by_id:
                probs.add(L(key), f"{key} names card {cid!r}, which {spec.name!r} does not have")
            elif cid in where:
                probs.add(L(key), f"card {cid} is in {where[cid]} and in {key}; a card is in one "
                                  "place at a time")
            else:
                where[cid] = key


def _read_rules(data: LineDict, probs: Problems) -> Rules:
    """The rule options the position sets (the defaults for the rest)."""
    raw_rules = data.get("rules") or {}
    if not isinstance(raw_rules, dict):
        probs.add(data.line_of("rules"), "rules must be a mapping of option: value")
        return Rules()
    bad_rule = False
    for k, v in raw_rules.items():
        if k not in OPTIONS or v not in OPTIONS[k] or type(v) is not type(OPTIONS[k][0]):
            line = raw_rules.line_of(k) if isinstance(raw_rules, LineDict) else data.line_of("rules")
            probs.add(line, option_message(k, v))
            bad_rule = True
    return Rules() if bad_rule else Rules(**raw_rules)


# --------------------------------------------------------------------------- writing


def _flow(ids: tuple[str, ...] | list[str]) -> str:
    return "[" + ", ".join(yaml_scalar(i) for i in ids) + "]"


def dump_position(pos: Position, title: str | None = None) -> str:
    """Canonical YAML text of a position (fixed key order, flow lists, no timestamps).

    The layout is written from its bounding box, so a layout whose cells do not start
    at (0, 0) is re-based; callers that pair a position with a plan normalise first.
    """
    cells = pos.cells
    lines = [f"format: {POSITION_FORMAT}"]
    if title:
        lines.append(f"title: {json.dumps(title, ensure_ascii=False)}")
    lines += [f"spec: {yaml_scalar(pos.spec_ref)}", f"goal: {pos.goal}", "layout: |"]
    lines += ["  " + row for row in layout_text(cells).rstrip("\n").split("\n")]
    lines.append(f"spent: {_flow(sorted(pos.spent))}")
    lines.append(f"missions_done: {pos.missions_done}")
    if pos.completed:
        lines.append(f"completed: {_flow(pos.completed)}")
    lines.append(f"mission: {yaml_scalar(pos.mission)}")
    lines.append(f"hand: {_flow(pos.hand)}")
    lines.append(f"draw: {_flow(pos.draw)}")
    lines.append(f"discard: {_flow(pos.discard)}")
    if pos.current is None:
        lines.append("current: null")
    else:
        card = yaml_scalar(pos.current.card) if pos.current.card is not None else "null"
        lines.append(f"current: {{card: {card}, points: {pos.current.points}}}")
    extra = pos.rules.non_default()
    if extra:
        body = ", ".join(f"{k}: {str(v).lower() if isinstance(v, bool) else v}" for k, v in extra.items())
        lines.append(f"rules: {{{body}}}")
    else:
        lines.append("rules: {}")
    return "\n".join(lines) + "\n"
