"""The compiled search core (``rove._core``, Rust) seen from Python.

The core mirrors the rules engine on compact integer states and runs the hot
searches: A* for ``goal: mission`` and the whole-deal search for ``goal: game``.  This
module converts at the boundary, once per solve: ``core_deck`` compiles a
``rove.engine.Deck`` into the core's tables, ``state_tuple`` passes a state in, and the
plans that come back become ``Action`` values.  The engine stays the referee: every
plan is replayed through ``rove.engine.apply`` by the callers before anyone sees it
(``rebase`` for mission plans, ``verify_plan`` for every solve).

The searches are the same algorithms as the pure-Python ones in ``astar`` and
``winnable``, in the same order, so both expand the same nodes; ``ROVE_CORE=0`` in the
environment selects the pure-Python path (the benchmarks compare the two).

The core's product searches also use exact move-only distance tables (its ``tables``
module) wherever no ability can change the layout any more: a sharper bound, the
same verdicts and optimal costs, fewer nodes.  The Python searches have no tables, so
the node-for-node comparisons run with them off: ``ROVE_TABLES=0`` in the environment
(or ``reference=True`` for a game search) switches them off (see ``tables_after``).
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..actions import Action
from ..engine import DIR_NAMES, GOAL, LOST, PLAYING, WON, Deck, State, unpack
from ..spec import ABILITIES, ANY, ARROW_KINDS, EMPTY, Pattern

if TYPE_CHECKING:
    from .nodes import Budget

try:
    from .. import _core
except ImportError:  # a source tree without the built extension: the Python path only
    _core = None  # type: ignore[assignment]

_STATUS = (PLAYING, WON, LOST, GOAL)
_STATUS_CODE = {s: i for i, s in enumerate(_STATUS)}


def available(deck: Deck | None = None) -> bool:
    """Whether the core is built, switched on, and handles this deck."""
    if _core is None or os.environ.get("ROVE_CORE", "1") == "0":
        return False
    return deck is None or (deck.n <= _core.MAX_MODULES and len(deck.card_ids) <= _core.MAX_CARDS)


def shutdown() -> None:
    """The process is ending: every compiled search, running or to come, stops at once
    with KeyboardInterrupt (see ``_core.shutdown``), so that a worker thread inside one
    can be joined before the interpreter finalizes."""
    if _core is not None:
        _core.shutdown()


_TABLES_OFF = [0]
"""How many ``tables_off`` blocks are open."""


@contextmanager
def tables_off() -> Iterator[None]:
    """The searches inside switch no distance table on, as under ``ROVE_TABLES=0``.

    For a run of many short searches on a deck new to the process, the book's: a table
    costs seconds to build, which searches of tens of thousands of nodes do not earn
    back (the bundled deck's default book: 168 s with the tables, 120 s without, the
    same PDF byte for byte)."""
    _TABLES_OFF[0] += 1
    try:
        yield
    finally:
        _TABLES_OFF[0] -= 1


TABLE_MODULES = 6
"""The most modules the core's distance tables hold (its ``tables::MAX_TABLE_MODULES``)."""

_TABLES_EAGER = [0]
"""How many ``tables_eager`` blocks are open."""


@contextmanager
def tables_eager() -> Iterator[None]:
    """The searches inside switch a distance table on at its first ask, as under
    ``ROVE_TABLES=eager`` (``ROVE_TABLES=0`` and ``tables_off`` still win).

    For a caller that knows a search will pay for its table before the search does:
    the seer and the expert, once a search of the same mission and spent set ran long
    (:class:`rove.solve.expert.PlayerBudget`'s ``table_after``)."""
    _TABLES_EAGER[0] += 1
    try:
        yield
    finally:
        _TABLES_EAGER[0] -= 1


def tables_after() -> int:
    """After how many asks a solve switches a distance table on (0: never).

    ``ROVE_TABLES=0`` in the environment switches the tables off (the reference
    bounds), ``ROVE_TABLES=eager`` on at the first ask (tests and benchmarks: small
    searches then use them too; so does a ``tables_eager`` block); otherwise the core's
    default, which spares the short searches a table's build."""
    value = os.environ.get("ROVE_TABLES", "")
    if value == "0" or _TABLES_OFF[0]:
        return 0
    return 1 if value == "eager" or _TABLES_EAGER[0] else int(_core.TABLES_AFTER)


def tables_possible(deck: Deck) -> bool:
    """Whether a search of this deck can use a distance table at all: the core is built
    and on, the deck small enough, and ``ROVE_TABLES=0`` not set."""
    return (available(deck) and 2 <= deck.n <= TABLE_MODULES
            and os.environ.get("ROVE_TABLES", "") != "0")


GAME_TABLES_MIN_NODES = 1_000_000
"""A whole-deal search with a smaller node limit switches no distance table on (unless
``ROVE_TABLES=eager``).  A table's build costs what some 300,000 to 600,000 of the
search's nodes do (2 to 4 s), which a search this short does not earn back: the book's
deal searches (200,000 nodes) took 28.9 s with tables and 2.6 s without on a bundled
deal, unknown both ways.  At the 2,000,000 nodes of ``rove check`` they pay in verdicts
(on 20 deals of bench/decks/g35.yaml: 12 decided with tables, 11 without, on 26% fewer
nodes), so they stay on there."""


def _game_tables(budget: Budget) -> int:
    """``tables_after()`` for a whole-deal search with this budget (see
    ``GAME_TABLES_MIN_NODES``)."""
    after = tables_after()
    if after == int(_core.TABLES_AFTER) and budget.max_nodes < GAME_TABLES_MIN_NODES:
        return 0  # the default switch-on yields; off and eager stand
    return after


def _pattern_cells(pattern: Pattern, index: dict[str, int]) -> tuple[tuple[int, int, int], ...]:
    return tuple((x, y, -1 if v == ANY else -2 if v == EMPTY else index[v]) for (x, y), v in pattern.cells)


_DECKS: weakref.WeakKeyDictionary[Deck, tuple[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()

# Compiled decks by what they were compiled from, the most recent few: a worker that
# plays deal after deal of one spec builds a new Deck each time, and sharing the
# compiled deck shares its heuristic's memo (estimates are a pure function of the
# compiled deck and the layout, spent set and mission).
_COMPILED: dict[tuple[Any, ...], Any] = {}
_COMPILED_KEPT = 8


def core_deck(deck: Deck) -> Any:
    """The core's compiled deck for ``deck``, built from the engine's own tables (so a
    deck copy with other points, like the base-points-only copy the tests make,
    compiles as it plays) and kept while the deck lives and its tables stay the same."""
    fingerprint = (deck.base, deck.bonus, deck.rules, deck.missions_to_win,
                   tuple(p.pattern for p in deck.mission_pat), tuple(p.pattern for p in deck.move_pat))
    cached = _DECKS.get(deck)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    modules = tuple(
        (ABILITIES.index(m.ability),
         tuple((ARROW_KINDS.index(kind), DIR_NAMES.index(name)) for kind, _, name in deck.move_dirs[i][0]),
         tuple((ARROW_KINDS.index(kind), DIR_NAMES.index(name)) for kind, _, name in deck.move_dirs[i][1]))
        for i, m in enumerate(deck.modules)
    )
    cards = tuple(
        (deck.base[c], deck.bonus[c], _pattern_cells(deck.mission_pat[c].pattern, deck.index),
         _pattern_cells(deck.move_pat[c].pattern, deck.index))
        for c in range(len(deck.card_ids))
    )
    rules = deck.rules
    args = (modules, cards, deck.missions_to_win,
            (rules.auto_complete_on_reveal, rules.recycle == "when_empty",
             rules.gripper_target == "active_only"))
    compiled = _COMPILED.get(args)
    if compiled is None:
        compiled = _core.Deck(*args)
        if len(_COMPILED) >= _COMPILED_KEPT:
            del _COMPILED[next(iter(_COMPILED))]
        _COMPILED[args] = compiled
    _DECKS[deck] = (fingerprint, compiled)
    return compiled


def table_distance(deck: Deck, state: State) -> int | None:
    """The distance table's answer for a state with a mission: the fewest moves (a point
    each) from its layout to one that matches the mission, by the arrows its spent set
    gives, without abilities but a Sensor's flip, free whenever it is shorter (None: no
    sequence of moves gets there).  Exact up to 253;
    a larger figure is a lower bound (the core stores 254 for everything beyond).  The
    table is built on the first ask (a few seconds for six modules) and kept with the
    compiled deck.  ValueError when the deck has more modules than tables hold; the
    caller must check ``available`` first."""
    distance: int | None = _core.table_distance(core_deck(deck), state_tuple(state))
    return distance


def state_tuple(s: State) -> tuple[Any, ...]:
    return (s.cells, s.spent, s.hand, s.draw, s.discard, s.card, s.points, s.mission, s.done,
            s.completed, _STATUS_CODE[s.status], s.goal == "mission")


def state_from_tuple(t: tuple[Any, ...]) -> State:
    cells, spent, hand, draw, discard, card, points, mission, done, completed, status, goal = t
    return State(tuple(cells), spent, tuple(hand), tuple(draw), tuple(discard), card, points,
                 mission, done, tuple(completed), _STATUS[status], "mission" if goal else "game")


def action_from_tuple(deck: Deck, t: tuple[Any, ...]) -> Action:
    act, module, card, bonus, dir_, dist, via, target, swap, to = t
    codes = deck.codes
    if act == "play":
        return Action.play(deck.card_ids[card], bonus)
    if act == "move":
        return Action.move(codes[module], DIR_NAMES[dir_], dist)
    return Action.ability(
        codes[module], via=codes[via] if via is not None else None,
        target=codes[target] if target is not None else None,
        dir=DIR_NAMES[dir_] if dir_ is not None else None,
        swap=(codes[swap[0]], codes[swap[1]]) if swap is not None else None,
        to=unpack(to) if to is not None else None)


def successors(deck: Deck, s: State, include_noops: bool = False) -> list[tuple[Action, State]]:
    """The core's successors, as engine values (for the tests that compare the two)."""
    return [(action_from_tuple(deck, a), state_from_tuple(t))
            for a, t in _core.successors(core_deck(deck), state_tuple(s), include_noops)]


def estimate(deck: Deck, s: State) -> tuple[int, int, int]:
    """(points needed, abilities at that many points, points obtainable), from the core."""
    return _core.estimate(core_deck(deck), state_tuple(s))


def _limits(budget: Budget) -> tuple[int, float | None]:
    """What is left of a solve's budget for one call into the core: (nodes, seconds)."""
    seconds = None if budget.deadline == float("inf") else max(0.0, budget.deadline - time.monotonic())
    return max(0, budget.max_nodes - budget.nodes), seconds


def solve_mission_steps(deck: Deck, start: State, budget: Budget, max_points: int | None,
                        ) -> list[tuple[Action, int]] | None:
    """A* in the core: (action, translation it was made in) steps, or None when proven
    impossible; charges the nodes to ``budget`` and raises ``Limit`` at its limits."""
    from .nodes import Limit

    status, steps, nodes = _core.solve_mission(core_deck(deck), state_tuple(start), max_points,
                                               *_limits(budget), tables_after())
    budget.nodes += nodes
    if status == "limit":
        raise Limit
    if steps is None:
        return None
    return [(action_from_tuple(deck, a), shift) for a, shift in steps]


def zero_point_walk(deck: Deck, start: State, missions: list[int], budget: Budget,
                    ) -> tuple[list[list[tuple[Action, int]] | None], int, bool]:
    """The core's zero-point walk from ``start`` (its own mission ignored) for the
    missions ``missions`` (card indices): per mission its zero-point optimal plan as
    (action, translation) steps when the walk proved one, else None; the nodes (also
    charged to ``budget``); whether the walk ran out of states.  The walk stops at the
    budget's limits with what it proved by then."""
    plans, nodes, exhausted = _core.zero_point_walk(core_deck(deck), state_tuple(start), missions,
                                                    *_limits(budget))
    budget.nodes += nodes
    return ([None if steps is None else [(action_from_tuple(deck, a), shift) for a, shift in steps]
             for steps in plans], nodes, exhausted)


def solve_game(deck: Deck, start: State, budget: Budget, optimal: bool,
               progress: Callable[[int], None] | None, stats: dict[str, Any],
               strategy: str | None = None, reference: bool = False,
               ) -> tuple[list[Action] | None, bool]:
    """The whole-deal search in the core; the same contract as ``winnable.solve_game``.

    ``strategy`` (tests only) runs one search of the portfolio on its own: ``greedy``
    or ``deepening``.  ``reference=True`` (tests, and ``rove check --verify-losses``'s
    second proof of each loss) runs the algorithm of the Python reference search,
    without the lost tables' dominance nor the distance tables, so that both visit the
    same nodes.  ``stats`` gets what the distance tables did unless they are off
    (``ROVE_TABLES=0``, ``tables_off``, the reference search): ``table_probes``
    (distances the search asked for), ``tables_used`` (tables switched on for this
    solve) and ``tables_built`` (of those, built for it rather than kept from an earlier
    solve in this process, of the deck or of another whose modules move alike).  A
    search too short to switch one on (``GAME_TABLES_MIN_NODES``) reports zeros, so that
    the JSON of a solve has the same fields whatever its node limit."""
    from .nodes import Limit

    strategy = strategy or ("cheapest" if optimal else "portfolio")
    tables = 0 if reference else _game_tables(budget)
    status, plan, is_optimal, nodes, done, mission, (probes, used, built) = _core.solve_game(
        core_deck(deck), state_tuple(start), strategy, *_limits(budget), progress, reference, tables)
    budget.nodes += nodes
    if not reference and tables_after():
        for key, value in (("table_probes", probes), ("tables_used", used), ("tables_built", built)):
            stats[key] = stats.get(key, 0) + value
    if done >= 0:
        stats["deepest_done"] = done
        stats["deepest_mission"] = deck.card_ids[mission] if mission >= 0 else None
    if status == "limit":
        raise Limit
    if plan is None:
        return None, False
    return [action_from_tuple(deck, a) for a in plan], is_optimal
