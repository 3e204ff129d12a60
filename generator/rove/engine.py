"""The rules engine: ROVE play exactly as docs/RULES.md states it.

This is the single source of truth.  The solvers generate moves with it and every
plan they print is replayed through ``apply`` before it is shown.

Layout of the module:

* ``Deck``: a spec compiled for play (modules and cards as small indices, patterns
  compiled to integer offsets) together with the rule options.
* ``State``: an immutable game state (cells, spent set, piles, current card and
  points, mission).  Copies are free, so undo is "keep the old state".
* layout primitives (``move_result``, ``ability_result``, ``valid``) that compute the
  cells after one action or say why it is illegal; both ``apply`` (validation) and
  ``successors`` (generation) are built on them.
* ``Game``: a board in the python-chess sense: ``push``/``pop``, ``legal_actions``,
  ``is_won``/``is_lost``, conversion to and from a ``Position``.

Cells are packed into one int, ``x + y * STRIDE``, because solvers hash and compare
millions of layouts; ``pack``/``unpack`` convert at the edges.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Final, Literal

from .actions import Action
from .grid import DIRECTION_BY_NAME, DIRECTIONS, Cell, king_connected
from .position import Current, Goal, Position
from .rules import HAND_LIMIT, Rules
from .spec import ANY, EMPTY, Ability, ArrowKind, Pattern, Spec

STRIDE = 1024
_HALF = STRIDE // 2
NB: tuple[int, ...] = tuple(d.dx + d.dy * STRIDE for d in DIRECTIONS)
DIR_OFFSET: dict[str, int] = {d.name: d.dx + d.dy * STRIDE for d in DIRECTIONS}
DIR_NAMES: tuple[str, ...] = tuple(d.name for d in DIRECTIONS)

Status = Literal["playing", "won", "lost", "goal"]
"""Where a game stands: still playing, won, lost, or (``goal: mission``) its mission done."""
PLAYING: Final[Status] = "playing"
WON: Final[Status] = "won"
LOST: Final[Status] = "lost"
GOAL: Final[Status] = "goal"


def pack(cell: Cell) -> int:
    return cell[0] + cell[1] * STRIDE


def unpack(c: int) -> Cell:
    y = (c + _HALF) // STRIDE
    return (c - y * STRIDE, y)


def state_cells(deck: Deck, s: State) -> dict[str, Cell]:
    """The layout of a state: module code -> cell."""
    return {c: unpack(s.cells[i]) for i, c in enumerate(deck.codes)}


class IllegalAction(ValueError):
    """An action the rules do not allow here; the message says why."""


# --------------------------------------------------------------------------- patterns


class CompiledPattern:
    """A pattern as packed offsets, for matching by translation millions of times.

    With a named module the translation is fixed by that module's cell, so a match
    is a handful of set look-ups; an anonymous pattern tries each module's cell as
    the image of its first cell.
    """

    __slots__ = ("pattern", "anchor_module", "anchor_off", "named", "anys", "empties", "size")

    def __init__(self, pattern: Pattern, index: dict[str, int]) -> None:
        self.pattern = pattern
        named: list[tuple[int, int]] = []
        anys: list[int] = []
        empties: list[int] = []
        for (x, y), v in pattern.cells:
            off = x + y * STRIDE
            if v == ANY:
                anys.append(off)
            elif v == EMPTY:
                empties.append(off)
            else:
                named.append((index[v], off))
        self.size = len(named) + len(anys)
        if named:
            self.anchor_module, self.anchor_off = named[0]
            named = named[1:]
        else:
            self.anchor_module, self.anchor_off = -1, anys[0]
            anys = anys[1:]
        self.named = tuple(named)
        self.anys = tuple(anys)
        self.empties = tuple(empties)

    def anchors(self, cells: tuple[int, ...]) -> tuple[int, ...]:
        """Candidate translations (the cell the pattern's (0, 0) maps to)."""
        if self.anchor_module >= 0:
            return (cells[self.anchor_module] - self.anchor_off,)
        return tuple(c - self.anchor_off for c in cells)

    def matches_at(self, cells: tuple[int, ...], occ: frozenset[int] | set[int], base: int) -> bool:
        for m, off in self.named:
            if cells[m] != base + off:
                return False
        for off in self.anys:
            if base + off not in occ:
                return False
        for off in self.empties:
            if base + off in occ:
                return False
        return True

    def matches(self, cells: tuple[int, ...], occ: frozenset[int] | set[int] | None = None) -> bool:
        if occ is None:
            occ = set(cells)
        for base in self.anchors(cells):
            if self.matches_at(cells, occ, base):
                return True
        return False

    def covered(self, base: int) -> frozenset[int]:
        """The cells that must hold a module when the pattern's (0, 0) is at ``base``."""
        return frozenset(base + x + y * STRIDE for (x, y), v in self.pattern.cells if v != EMPTY)


def matched_cells(pattern: Pattern, cells: Mapping[str, Cell]) -> frozenset[Cell]:
    """The layout cells that ``pattern`` covers where it matches ``cells`` (module code ->
    cell), or nothing when it does not match.  Of several matches, the one whose
    translation is least in (x, y) order (the leftmost, then the topmost): the cells a
    picture highlights.  Matching is ``CompiledPattern``'s, as in play."""
    codes = tuple(cells)
    if any(v not in cells for v in pattern.named):
        return frozenset()
    compiled = CompiledPattern(pattern, {c: i for i, c in enumerate(codes)})
    packed = tuple(pack(cells[c]) for c in codes)
    occ = set(packed)
    bases = [b for b in compiled.anchors(packed) if compiled.matches_at(packed, occ, b)]
    if not bases:
        return frozenset()
    return frozenset(unpack(c) for c in compiled.covered(min(bases, key=unpack)))


# --------------------------------------------------------------------------- deck


Side = tuple[tuple[ArrowKind, tuple[str, ...]], ...]
"""A module side's arrows: (kind, direction names) each."""


@dataclass(frozen=True, slots=True)
class ModuleRules:
    code: str
    ability: Ability
    #: per side (0 active, 1 spent)
    arrows: tuple[Side, Side]

    @property
    def flip_matters(self) -> bool:
        """Whether flipping changes the module's arrows (then a flip alone is not a no-op)."""
        return self.arrows[0] != self.arrows[1]


class Deck:
    """A spec compiled for play, with the rule options it is played under."""

    def __init__(self, spec: Spec, rules: Rules = Rules()) -> None:
        self.spec = spec
        self.rules = rules
        self.codes: tuple[str, ...] = spec.codes
        self.n = len(self.codes)
        self.index: dict[str, int] = {c: i for i, c in enumerate(self.codes)}
        self.modules: tuple[ModuleRules, ...] = tuple(
            ModuleRules(m.code, m.ability, (
                tuple((a.kind, tuple(d.name for d in a.dirs)) for a in m.arrows),
                tuple((a.kind, tuple(d.name for d in a.dirs)) for a in m.spent_arrows),
            )) for m in spec.modules)
        self.card_ids: tuple[str, ...] = tuple(c.id for c in spec.cards)
        self.card_index: dict[str, int] = {c: i for i, c in enumerate(self.card_ids)}
        self.base: tuple[int, ...] = tuple(c.movement.points for c in spec.cards)
        self.bonus: tuple[int, ...] = tuple(c.movement.bonus for c in spec.cards)
        self.mission_pat: tuple[CompiledPattern, ...] = tuple(
            CompiledPattern(c.mission.pattern, self.index) for c in spec.cards)
        self.move_pat: tuple[CompiledPattern, ...] = tuple(
            CompiledPattern(c.movement.pattern, self.index) for c in spec.cards)
        self.missions_to_win = spec.missions_to_win

    @cached_property
    def move_dirs(self) -> tuple[tuple[tuple[tuple[str, int, str], ...], ...], ...]:
        """Per module and side: (kind, direction offset, direction name) for every arrow."""
        return tuple(tuple(tuple((kind, DIR_OFFSET[d], d) for kind, dirs in side for d in dirs)
                           for side in m.arrows) for m in self.modules)


_DECKS: dict[tuple[int, Rules], Deck] = {}
#: decks kept by ``deck_for``: a process plays positions of a few specs at most
_DECKS_KEPT = 8
#: the play server's threads and the coach ask for decks at the same time
_DECKS_LOCK = threading.Lock()


def deck_for(spec: Spec, rules: Rules = Rules()) -> Deck:
    """The deck of ``spec`` under ``rules``, built once and shared by every user of its
    positions: the solvers, the generators, the book, the check's workers, the play page.

    Building a deck and, from it, the key of the core's compiled deck (``core.core_deck``)
    cost some 90 us, more than a short search (bench/startup.py: a 1-node solve took
    0.23 ms in process, 0.13 ms with the deck kept).  Specs are immutable but hashed by
    value, which costs as much as the build, so the key is the spec's identity with the
    rules; the deck holds its spec, so that identity is not reused while the entry
    lives.  The least recently asked deck goes first.  Nothing changes a deck it is
    given (a deck with other points is a copy), so sharing it changes no answer;
    tests/test_code_shape.py keeps the other ``Deck(`` calls to a short list."""
    key = (id(spec), rules)
    with _DECKS_LOCK:
        deck = _DECKS.pop(key, None)
        if deck is None:
            deck = Deck(spec, rules)
            if len(_DECKS) >= _DECKS_KEPT:
                del _DECKS[next(iter(_DECKS))]
        _DECKS[key] = deck
    return deck


# --------------------------------------------------------------------------- state


@dataclass(frozen=True, slots=True)
class State:
    """Everything that changes during play.  Cards are indices into ``Deck.card_ids``.

    ``card`` is the current movement card (-1: none or a bare budget); ``points`` the
    points left on it.  ``draw`` is top first, ``discard`` bottom first.
    """

    cells: tuple[int, ...]
    spent: int = 0
    hand: tuple[int, ...] = ()
    draw: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    card: int = -1
    points: int = 0
    mission: int = -1
    done: int = 0
    completed: tuple[int, ...] = ()
    status: Status = PLAYING
    goal: Goal = "game"

    def is_spent(self, i: int) -> bool:
        return bool(self.spent >> i & 1)

    def with_layout(self, cells: tuple[int, ...], spent: int, points: int) -> State:
        """This state with another layout, spent set and points: ``replace`` without its
        per-call walk over the fields, for the generation loops that make millions."""
        return State(cells, spent, self.hand, self.draw, self.discard, self.card, points,
                     self.mission, self.done, self.completed, self.status, self.goal)


# --------------------------------------------------------------------------- layout primitives


def valid(cells: tuple[int, ...]) -> bool:
    """Distinct cells forming one king-connected group."""
    todo = set(cells)
    return len(todo) == len(cells) and king_connected(todo, NB)


@functools.lru_cache(maxsize=1 << 16)
def relocation_cells(cells: tuple[int, ...], t: int) -> frozenset[int]:
    """The empty cells where module t alone may be put with the layout staying valid.

    Generation's fast path (``apply`` checks with ``valid``; the property tests hold the
    two to the same answers): the new cell must touch every group the other modules
    form without t, so it is the intersection of the groups' neighbourhoods."""
    if len(cells) == 1:  # alone on the grid: anywhere is valid; generation stops at 2 cells
        return frozenset(cells[0] + o * k for o in NB for k in (1, 2))
    todo = set(cells[:t] + cells[t + 1:])
    result: set[int] | None = None
    while todo:
        # one group of the others, and the cells around it
        start = todo.pop()
        stack = [start]
        around: set[int] = set()
        while stack:
            c = stack.pop()
            for o in NB:
                d = c + o
                around.add(d)
                if d in todo:
                    todo.discard(d)
                    stack.append(d)
        result = around if result is None else result & around
    if result is None:
        return frozenset()
    result.difference_update(cells)
    return frozenset(result)


def _moved(cells: tuple[int, ...], i: int, to: int) -> tuple[int, ...]:
    return cells[:i] + (to,) + cells[i + 1:]


def _arrow_result(cells: tuple[int, ...], occ: set[int], i: int, kind: str, off: int,
                  dist: int) -> tuple[int, ...] | str:
    """Cells after module i uses one arrow (kind, direction) for ``dist`` cells, or why not.

    Validity of the whole layout is checked by the caller.
    """
    start = cells[i]
    land = start + off * dist
    if kind == "push":
        if dist != 1:
            return "a push arrow moves exactly 1 cell"
        if land not in occ:
            return _moved(cells, i, land)
        where = {c: j for j, c in enumerate(cells)}
        new = list(cells)
        new[i] = land
        c = land
        while c in where:
            new[where[c]] = c + off
            c += off
        return tuple(new)
    if land in occ:
        return "lands on an occupied cell"
    if kind == "short" and dist != 1:
        return "a short arrow moves exactly 1 cell"
    if kind == "jump":
        if dist < 2:
            return "a jump moves at least 2 cells"
        if not any(start + off * k in occ for k in range(1, dist)):
            return "a jump must pass over at least one module"
    return _moved(cells, i, land)


def move_result(deck: Deck, cells: tuple[int, ...], spent: int, i: int, dir: str,
                dist: int) -> tuple[int, ...]:
    """Cells after module i moves ``dist`` in ``dir`` by any arrow of its current side."""
    off = DIR_OFFSET[dir]
    side = spent >> i & 1
    code = deck.codes[i]
    occ = set(cells)
    reasons = []
    for kind, aoff, _ in deck.move_dirs[i][side]:
        if aoff != off:
            continue
        got = _arrow_result(cells, occ, i, kind, off, dist)
        if isinstance(got, str):
            reasons.append(f"{kind} arrow: {got}")
            continue
        if not valid(got):
            raise IllegalAction(f"{code} {dir}{dist} would split the group")
        return got
    if not reasons:
        dirs = sorted({d for _, _, d in deck.move_dirs[i][side]}, key=DIR_NAMES.index)
        raise IllegalAction(f"{code} has no arrow pointing {dir} on its "
                            f"{'spent' if side else 'active'} side (it moves {' '.join(dirs)})")
    land = cells[i] + off * dist
    if land in occ and any("occupied" in r for r in reasons):
        j = cells.index(land)
        raise IllegalAction(f"{code} {dir}{dist} lands on {deck.codes[j]}'s cell")
    raise IllegalAction(f"{code} {dir}{dist}: " + "; ".join(reasons))


def module_moves(deck: Deck, cells: tuple[int, ...], spent: int,
                 i: int) -> Iterator[tuple[str, int, tuple[int, ...]]]:
    """Every legal (dir, dist, new cells) for module i.

    Exact: a landing cell must touch another module, so it lies in the others'
    bounding box grown by one; the box is convex and the start lies in it, so the
    distances to try stop where the line leaves the box.  (A one-module spec, where
    any distance is valid, is cut at 2.)
    """
    occ = set(cells)
    side = spent >> i & 1
    sx, sy = unpack(cells[i])
    others = [unpack(c) for j, c in enumerate(cells) if j != i]
    if others:
        x0, x1 = min(x for x, _ in others) - 1, max(x for x, _ in others) + 1
        y0, y1 = min(y for _, y in others) - 1, max(y for _, y in others) + 1
    else:
        x0, x1, y0, y1 = sx - 2, sx + 2, sy - 2, sy + 2
    reloc = relocation_cells(cells, i)
    seen: set[tuple[int, int]] = set()
    for kind, off, name in deck.move_dirs[i][side]:
        d = DIRECTION_BY_NAME[name]
        k = 2 if kind == "jump" else 1
        last = 1 if kind in ("short", "push") else 1 << 30
        while k <= last and x0 <= sx + d.dx * k <= x1 and y0 <= sy + d.dy * k <= y1:
            if (off, k) not in seen:
                got = _arrow_result(cells, occ, i, kind, off, k)
                # one module moved: its landing decides; a push that moved a chain: check all
                pushed = kind == "push" and cells[i] + off in occ
                if not isinstance(got, str) and (valid(got) if pushed else got[i] in reloc):
                    seen.add((off, k))
                    yield name, k, got
            k += 1


# ----- abilities on a layout


def brain_cells(cells: tuple[int, ...], b: int, j: int) -> list[int]:
    """Empty cells adjacent to module b where module j may be put (j's own cell counts)."""
    occ = set(cells)
    occ.discard(cells[j])
    centre = cells[b]
    return [centre + o for o in NB if centre + o not in occ]


def ability_result(deck: Deck, cells: tuple[int, ...], actor: int, action: Action,
                   ) -> tuple[int, ...] | None:
    """Cells after ``actor``'s ability with the action's arguments (None: Sensor, no layout
    change).  ``actor`` is the module whose ability resolves (the ``via`` for Gripper)."""
    ability = deck.modules[actor].ability
    code = deck.codes[actor]
    idx = deck.index

    def module_arg(name: str | None, what: str) -> int:
        if name is None:
            raise IllegalAction(f"{code}'s ability needs {what}")
        if name not in idx:
            raise IllegalAction(f"there is no module {name!r}")
        return idx[name]

    if ability == "sensor":
        if action.swap or action.target or action.to or action.dir:
            raise IllegalAction("Sensor's ability takes no arguments")
        return None
    if ability == "laser":
        if action.swap is None or action.target or action.to or action.dir:
            raise IllegalAction(f"{code}'s ability is a swap: '{code} swap X Y'")
        a, b = module_arg(action.swap[0], "two modules"), module_arg(action.swap[1], "two modules")
        if a == b:
            raise IllegalAction("a swap needs two different modules")
        swapped = list(cells)
        swapped[a], swapped[b] = cells[b], cells[a]
        return tuple(swapped)
    if ability == "motor":
        if action.target is None or action.dir is None or action.swap or action.to:
            raise IllegalAction(f"{code}'s ability is a shift: '{code} shift X DIR'")
        t = module_arg(action.target, "a target")
        if action.dir not in DIR_OFFSET:
            raise IllegalAction(f"{action.dir!r} is not a direction; use N NE E SE S SW W NW")
        land = cells[t] + DIR_OFFSET[action.dir]
        if land in cells:
            raise IllegalAction(f"shift {action.target} {action.dir} lands on "
                                f"{deck.codes[cells.index(land)]}'s cell")
        new = _moved(cells, t, land)
    elif ability == "brain":
        if action.target is None or action.to is None or action.swap or action.dir:
            raise IllegalAction(f"{code}'s ability is a placement: '{code} place X x,y'")
        t = module_arg(action.target, "a target")
        if t == actor:
            raise IllegalAction(f"{code} cannot place itself")
        land = pack(action.to)
        if land not in brain_cells(cells, actor, t):
            raise IllegalAction(f"{action.to[0]},{action.to[1]} is not an empty cell next to {code}")
        new = _moved(cells, t, land)
    elif ability == "coil":
        if action.to is None or action.target or action.swap or action.dir:
            raise IllegalAction(f"{code}'s ability is a jump to a cell: '{code} to x,y'")
        land = pack(action.to)
        if land == cells[actor]:
            raise IllegalAction(f"{code} must go to a cell other than its own")
        if land in cells:
            raise IllegalAction(f"{action.to[0]},{action.to[1]} is {deck.codes[cells.index(land)]}'s cell")
        new = _moved(cells, actor, land)
    else:  # gripper triggering gripper is rejected by the caller
        raise IllegalAction(f"{code}'s ability ({ability}) cannot be used this way")
    if not valid(new):
        raise IllegalAction("the result would split the group")
    return new


def layout_abilities(deck: Deck, cells: tuple[int, ...], actor: int,
                     ) -> Iterator[tuple[Action, tuple[int, ...] | None]]:
    """Every use of ``actor``'s ability that keeps the layout valid, with its result
    (as an Action whose ``module`` is the actor; callers rewrite it for a via use).
    Brain placing a module back on its own cell is included (callers drop no-ops)."""
    ability = deck.modules[actor].ability
    codes = deck.codes
    n = deck.n
    if ability == "sensor":
        yield Action.ability(codes[actor]), None
    elif ability == "laser":
        for a in range(n):
            for b in range(a + 1, n):
                new = list(cells)
                new[a], new[b] = cells[b], cells[a]
                yield Action.ability(codes[actor], swap=(codes[a], codes[b])), tuple(new)
    elif ability == "motor":
        for t in range(n):
            reloc = relocation_cells(cells, t)
            for off, name in zip(NB, DIR_NAMES):
                land = cells[t] + off
                if land in reloc:
                    yield Action.ability(codes[actor], target=codes[t], dir=name), _moved(cells, t, land)
    elif ability == "brain":
        for t in range(n):
            if t == actor:
                continue
            reloc = relocation_cells(cells, t)
            for land in brain_cells(cells, actor, t):
                if land in reloc or land == cells[t]:
                    yield (Action.ability(codes[actor], target=codes[t], to=unpack(land)),
                           _moved(cells, t, land))
    elif ability == "coil":
        for land in sorted(relocation_cells(cells, actor)):
            yield Action.ability(codes[actor], to=unpack(land)), _moved(cells, actor, land)


# --------------------------------------------------------------------------- card flow


def sensor_draws_left(deck: Deck, spent: int) -> int:
    """The Sensor-draw count: cards the Sensor ability can still draw with the modules
    not in ``spent``, at most.  Once per active Sensor, and once more per active
    Gripper, which may trigger a Sensor, even a spent one (under ``gripper_target:
    active_only`` only while some Sensor is active: it triggers that Sensor before the
    Sensor's own use); none without a Sensor.  An upper bound: a Gripper must also be
    next to a Sensor when it is used.  The one definition (the compiled core's
    ``Deck::sensor_draws_left`` computes the same, and tests/test_core.py holds the two
    equal): the searches, their dominance rules and the bounds of every solver call it."""
    mods = deck.modules
    sensors = [i for i, m in enumerate(mods) if m.ability == "sensor"]
    if not sensors:
        return 0
    active = sum(1 for i in sensors if not spent >> i & 1)
    if deck.rules.gripper_target == "active_only" and not active:
        return 0
    return active + sum(1 for i, m in enumerate(mods) if m.ability == "gripper" and not spent >> i & 1)


def _take(deck: Deck, draw: tuple[int, ...], discard: tuple[int, ...],
          ) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Take the top card of the draw pile, recycling the discard pile as the rulings say.

    Returns (card or -1 when none can be had, draw, discard)."""
    if not draw and discard:
        draw, discard = discard, ()
    if not draw:
        return -1, draw, discard
    card, draw = draw[0], draw[1:]
    if not draw and discard and deck.rules.recycle == "when_empty":
        draw, discard = discard, ()
    return card, draw, discard


def _draw_one(deck: Deck, s: State) -> State | None:
    """``s`` with the top card drawn into the hand ("draw 1": after a completion and on a
    Sensor use), or None when nothing is drawn: the hand is at its limit or neither pile
    holds a card (the callers differ in what they do then)."""
    if len(s.hand) >= HAND_LIMIT:
        return None
    c, draw, discard = _take(deck, s.draw, s.discard)
    if c < 0:
        return None
    return replace(s, hand=s.hand + (c,), draw=draw, discard=discard)


def _discard_current(s: State) -> State:
    if s.card >= 0:  # hot (every move that spends a card's last point): no ``replace``
        return State(s.cells, s.spent, s.hand, s.draw, s.discard + (s.card,), -1, 0,
                     s.mission, s.done, s.completed, s.status, s.goal)
    return replace(s, card=-1, points=0) if s.points else s


def _complete(deck: Deck, s: State) -> State:
    """The completion procedure as a unit: discard, reveal, draw 1; then check the new
    mission (chained completions) when the rules complete on reveal."""
    while True:
        s = _discard_current(s)
        s = replace(s, done=s.done + 1, completed=s.completed + (s.mission,))
        if s.goal == "mission":
            return replace(s, mission=-1, status=GOAL)
        if s.done >= deck.missions_to_win:
            return replace(s, mission=-1, status=WON)
        nxt, draw, discard = _take(deck, s.draw, s.discard)
        if nxt < 0:
            return replace(s, mission=-1, status=LOST, draw=draw, discard=discard)
        s = replace(s, mission=nxt, draw=draw, discard=discard)
        s = _draw_one(deck, s) or s
        if not (deck.rules.auto_complete_on_reveal and deck.mission_pat[s.mission].matches(s.cells)):
            return s


def check_mission(deck: Deck, s: State) -> State:
    """The check after every action: complete the current mission if the layout matches."""
    if s.status == PLAYING and s.mission >= 0 and deck.mission_pat[s.mission].matches(s.cells):
        return _complete(deck, s)
    return s


def reveal_check(deck: Deck, s: State) -> State:
    """A position's own mission counts as just revealed."""
    if deck.rules.auto_complete_on_reveal:
        return check_mission(deck, s)
    return s


# --------------------------------------------------------------------------- apply


def apply(deck: Deck, s: State, a: Action) -> State:
    """The state after action ``a``, or IllegalAction saying why it is not allowed."""
    if s.status != PLAYING:
        raise IllegalAction({WON: "the game is already won", LOST: "the game is lost",
                             GOAL: "the goal is already reached"}[s.status])
    if a.act == "play":
        return check_mission(deck, _play(deck, s, a))
    if a.act == "move":
        i = _module(deck, a.module)
        if a.dir not in DIR_OFFSET or not isinstance(a.dist, int) or a.dist < 1:
            raise IllegalAction("a move needs a direction (N NE E SE S SW W NW) and a "
                                "distance of at least 1")
        if s.points < 1:
            raise IllegalAction(f"{a.module} {a.dir}{a.dist}: no movement points; play a card first")
        cells = move_result(deck, s.cells, s.spent, i, a.dir, a.dist)
        points = s.points - 1
        s2 = s.with_layout(cells, s.spent, points)
        if points == 0:
            s2 = _discard_current(s2)
        return check_mission(deck, s2)
    if a.act == "ability":
        return check_mission(deck, _ability(deck, s, a))
    raise IllegalAction(f"unknown act {a.act!r}")


def _module(deck: Deck, code: str | None) -> int:
    if code not in deck.index:
        raise IllegalAction(f"there is no module {code!r}; modules are {' '.join(deck.codes)}")
    return deck.index[code]


def _play(deck: Deck, s: State, a: Action) -> State:
    if a.card not in deck.card_index:
        raise IllegalAction(f"there is no card {a.card!r}")
    c = deck.card_index[a.card]
    if c not in s.hand:
        raise IllegalAction(f"card {a.card} is not in the hand")
    matched = deck.move_pat[c].matches(s.cells)
    if a.bonus and not matched:
        raise IllegalAction(f"play {a.card}+: the layout does not match {a.card}'s movement pattern")
    take_bonus = matched if a.bonus is None else a.bonus
    s = _discard_current(s)
    hand = tuple(h for h in s.hand if h != c)
    pts = deck.bonus[c] if take_bonus else deck.base[c]
    if pts == 0:
        return replace(s, hand=hand, discard=s.discard + (c,))
    return replace(s, hand=hand, card=c, points=pts)


def _ability(deck: Deck, s: State, a: Action) -> State:
    g = _module(deck, a.module)
    if s.is_spent(g):
        raise IllegalAction(f"{a.module} is spent; its ability was already used")
    spent = s.spent | (1 << g)
    actor = g
    if a.via is not None:
        if deck.modules[g].ability != "gripper":
            raise IllegalAction(f"only Gripper uses 'via'; {a.module} is {deck.modules[g].ability}")
        actor = _module(deck, a.via)
        refusal = gripper_refusal(deck, s.cells, s.spent, g, actor)
        if refusal is not None:
            raise IllegalAction(_GRIPPER_REFUSALS[refusal].format(gripper=a.module, target=a.via))
    elif deck.modules[g].ability == "gripper":
        raise IllegalAction(f"{a.module}'s ability needs 'via': the adjacent module to trigger")
    new = ability_result(deck, s.cells, actor, a)
    if new is None:  # sensor
        s = replace(s, spent=spent)
        return _draw_one(deck, s) or s
    return s.with_layout(new, spent, s.points)


def _adjacent(a: int, b: int) -> bool:
    return a != b and (b - a) in NB


GripperRefusal = Literal["itself", "gripper", "apart", "spent"]
"""Why a Gripper may not trigger a module (:func:`gripper_refusal`)."""

_GRIPPER_REFUSALS: Final[dict[GripperRefusal, str]] = {
    "itself": "{gripper} cannot trigger itself",
    "gripper": "a Gripper never triggers another Gripper",
    "apart": "{target} is not next to {gripper}",
    "spent": "{target} is spent (rule gripper_target: active_only)",
}


def gripper_may_target(deck: Deck, g: int, t: int) -> bool:
    """Whether Gripper ``g`` may trigger module ``t`` on some layout: another module that
    is not a Gripper itself (the part of :func:`gripper_refusal` that no state changes,
    for the CP-SAT model, which decides adjacency and spent sides in its variables)."""
    return t != g and deck.modules[t].ability != "gripper"


def gripper_refusal(deck: Deck, cells: tuple[int, ...], spent: int, g: int, t: int) -> GripperRefusal | None:
    """Why Gripper ``g`` may not trigger module ``t`` on this layout and spent set, or None
    when it may: the one statement of the rule, for validation (``apply``, which names
    the reason) and generation (``ability_uses``) alike."""
    if not gripper_may_target(deck, g, t):
        return "itself" if t == g else "gripper"
    if not _adjacent(cells[g], cells[t]):
        return "apart"
    if deck.rules.gripper_target == "active_only" and spent >> t & 1:
        return "spent"
    return None


# --------------------------------------------------------------------------- generation


def ability_uses(deck: Deck, s: State, include_noops: bool = False,
                 ) -> Iterator[tuple[Action, State]]:
    """Every legal ability use and the state right after it (before the mission check).

    No-ops (nothing changes but a flip that does not change arrows) are skipped unless
    ``include_noops``, or unless the current mission matches and waits for the next
    action (``auto_complete_on_reveal: false``): then even a no-op completes it."""
    cells = s.cells
    if not include_noops and not deck.rules.auto_complete_on_reveal and s.mission >= 0:
        include_noops = deck.mission_pat[s.mission].matches(cells)
    for g in range(deck.n):
        if s.spent >> g & 1:
            continue
        spent = s.spent | (1 << g)
        mod = deck.modules[g]
        if mod.ability == "gripper":
            actors = [t for t in range(deck.n) if gripper_refusal(deck, cells, s.spent, g, t) is None]
        else:
            actors = [g]
        for actor in actors:
            for act, new in layout_abilities(deck, cells, actor):
                if actor != g:
                    act = replace(act, module=deck.codes[g], via=deck.codes[actor])
                if new is None:
                    flipped = s.with_layout(cells, spent, s.points)
                    drawn = _draw_one(deck, flipped)
                    if drawn is not None:
                        yield act, drawn
                    elif include_noops or mod.flip_matters:
                        yield act, flipped
                    continue
                if new == cells and not (include_noops or mod.flip_matters):
                    continue
                yield act, s.with_layout(new, spent, s.points)


def successors(deck: Deck, s: State, include_noops: bool = False,
               ) -> Iterator[tuple[Action, State]]:
    """Every legal action with the state after it (mission checks included)."""
    if s.status != PLAYING:
        return
    # card plays: bonus exactly when the movement pattern matches
    seen_cards: set[int] = set()
    for c in s.hand:
        if c in seen_cards:
            continue
        seen_cards.add(c)
        matched = deck.move_pat[c].matches(s.cells)
        for bonus in ((True, False) if matched else (False,)):
            a = Action.play(deck.card_ids[c], bonus)
            yield a, check_mission(deck, _play(deck, s, a))
    if s.points >= 1:
        for i in range(deck.n):
            for name, k, new in module_moves(deck, s.cells, s.spent, i):
                s2 = s.with_layout(new, s.spent, s.points - 1)
                if s2.points == 0:
                    s2 = _discard_current(s2)
                yield Action.move(deck.codes[i], name, k), check_mission(deck, s2)
    for a, s2 in ability_uses(deck, s, include_noops):
        yield a, check_mission(deck, s2)


def legal_actions(deck: Deck, s: State, include_noops: bool = False) -> list[Action]:
    return [a for a, _ in successors(deck, s, include_noops)]


def is_stuck(deck: Deck, s: State) -> bool:
    """Lost for sure: playing, mission unmet, no points, no cards, and no ability use
    that changes anything."""
    if s.status != PLAYING:
        return False
    if s.points > 0 or s.hand:
        return False
    return not any(True for _ in ability_uses(deck, s))


# --------------------------------------------------------------------------- positions


def state_from_position(deck: Deck, pos: Position) -> State:
    """The state a position describes, after its own mission's reveal check."""
    ci = deck.card_index
    cur = pos.current
    s = State(
        cells=tuple(pack(pos.cells[c]) for c in deck.codes),
        spent=sum(1 << deck.index[c] for c in pos.spent),
        hand=tuple(ci[c] for c in pos.hand),
        draw=tuple(ci[c] for c in pos.draw),
        discard=tuple(ci[c] for c in pos.discard),
        card=ci[cur.card] if cur and cur.card else -1,
        points=cur.points if cur else 0,
        mission=ci[pos.mission],
        done=pos.missions_done,
        completed=tuple(ci[c] for c in pos.completed),
        goal=pos.goal,
    )
    return reveal_check(deck, s)


def position_from_state(deck: Deck, s: State, template: Position) -> Position:
    """A position for a state; raises ValueError if the game is over (no mission)."""
    if s.mission < 0:
        raise ValueError(f"the game is over ({s.status}); there is no position to write")
    ids = deck.card_ids
    if s.card >= 0 or s.points:
        current: Current | None = Current(ids[s.card] if s.card >= 0 else None, s.points)
    else:
        current = None
    return replace(
        template,
        layout=Position.layout_of(state_cells(deck, s)),
        spent=frozenset(deck.codes[i] for i in range(deck.n) if s.spent >> i & 1),
        hand=tuple(ids[c] for c in s.hand), draw=tuple(ids[c] for c in s.draw),
        discard=tuple(ids[c] for c in s.discard), current=current, mission=ids[s.mission],
        missions_done=s.done, completed=tuple(ids[c] for c in s.completed), goal=s.goal,
        rules=deck.rules,
    )


def state_json(deck: Deck, s: State) -> dict[str, object]:
    """The ``final`` object of ``rove replay --json`` (docs/FORMATS.md)."""
    ids = deck.card_ids
    return {
        "cells": {c: list(unpack(s.cells[i])) for i, c in enumerate(deck.codes)},
        "spent": [deck.codes[i] for i in range(deck.n) if s.spent >> i & 1],
        "mission": ids[s.mission] if s.mission >= 0 else None,
        "hand": [ids[c] for c in s.hand],
        "draw": [ids[c] for c in s.draw],
        "discard": [ids[c] for c in s.discard],
        "completed": [ids[c] for c in s.completed],
        "current": ({"card": ids[s.card] if s.card >= 0 else None, "points": s.points}
                    if (s.card >= 0 or s.points) else None),
    }


class Game:
    """A board: the current state, a move stack, push/pop and legal action generation."""

    def __init__(self, deck: Deck, state: State, position: Position | None = None) -> None:
        self.deck = deck
        self.state = state
        self.position = position
        self.stack: list[tuple[Action, State]] = []

    @classmethod
    def from_position(cls, pos: Position) -> Game:
        deck = deck_for(pos.spec, pos.rules)
        return cls(deck, state_from_position(deck, pos), pos)

    def push(self, a: Action) -> State:
        new = apply(self.deck, self.state, a)
        self.stack.append((a, self.state))
        self.state = new
        return new

    def pop(self) -> Action:
        a, self.state = self.stack.pop()
        return a

    def copy(self) -> Game:
        g = Game(self.deck, self.state, self.position)
        g.stack = list(self.stack)
        return g

    @property
    def plan(self) -> list[Action]:
        return [a for a, _ in self.stack]

    def legal_actions(self, include_noops: bool = False) -> list[Action]:
        return legal_actions(self.deck, self.state, include_noops)

    def successors(self, include_noops: bool = False) -> Iterator[tuple[Action, State]]:
        return successors(self.deck, self.state, include_noops)

    @property
    def status(self) -> str:
        return self.state.status

    def is_won(self) -> bool:
        return self.state.status == WON

    def is_goal_reached(self) -> bool:
        """Won the game, or completed the mission of a ``goal: mission`` position."""
        return self.state.status in (WON, GOAL)

    def is_lost(self) -> bool:
        return self.state.status == LOST or is_stuck(self.deck, self.state)

    def cell_of(self, code: str) -> Cell:
        return unpack(self.state.cells[self.deck.index[code]])

    def layout_text(self) -> str:
        from .position import layout_text

        return layout_text(state_cells(self.deck, self.state))

    def to_position(self) -> Position:
        if self.position is None:
            raise ValueError("this game was not made from a position")
        return position_from_state(self.deck, self.state, self.position)
