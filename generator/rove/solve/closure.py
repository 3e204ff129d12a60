"""Zero-point optima of many missions from one start, by one search.

``rove check`` asks the optimal cost of every mission of a deck from each start
arrangement, with every ability available.  Most of those optima spend no point: the
mission is a few ability uses away, and the missions of one start search largely the
same states.  The core's zero-point walk (``rove_core::closure``) searches the states a
start reaches by ability uses alone once for all the missions: an A* by abilities
used whose bound is the smallest of the open missions' bounds, each raised to one use
for a state that does not match.  A mission it settles has its optimum, (0 points, 0
cards, k abilities), exactly what A* proves (the proof is in the core's module); a
mission it does not settle (its optimum needs a point or a card, or the walk reached
its node limit first) is left to the caller's A*.

Every plan the walk gives is replayed through the rules engine (``verify_plan``) before
it counts, like every solver's plan.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..engine import PLAYING, State, deck_for, state_from_position
from ..errors import SolverBug
from ..position import Position
from ..replay import verify_plan
from .nodes import Budget
from .result import SOLVED, SolveResult, plan_cost


@dataclass(frozen=True)
class Walk:
    """What one walk settled: per position asked (in order), its proven-optimal result,
    or None (left to A*); the nodes the walk expanded (once, for all the positions),
    and whether it ran out of states (then a position left None has no zero-point
    plan)."""

    results: list[SolveResult | None]
    nodes: int
    exhausted: bool


def _walk_state(s: State) -> State:
    """What the walk sees of a start: everything but the mission."""
    return replace(s, mission=-1)


def solve_zero_point(positions: Sequence[Position], max_nodes: int,
                     time_limit: float | None = None) -> Walk:
    """The zero-point optima of ``positions``: ``goal: mission`` positions that differ
    in their mission only (one start, many missions), by one walk of at most
    ``max_nodes`` nodes (and ``time_limit`` seconds, a safety net).

    A position is settled when the walk reaches its mission: its result is ``solved``,
    optimal, 0 points, 0 cards, the walk's level as abilities, with ``nodes`` 0 (the
    walk's nodes are the caller's to charge, ``Walk.nodes``).  Left None (for A*): every
    position when the core is not available (``ROVE_CORE=0``, or a deck it does not
    hold); a position whose start is not in play (its mission complete on reveal), or
    that differs from the first in more than its mission; a mission that matches the
    start; and every mission the walk did not reach."""
    from . import core
    from .astar import rebase

    t0 = time.monotonic()
    results: list[SolveResult | None] = [None] * len(positions)
    if not positions:
        return Walk(results, 0, False)
    first = positions[0]
    deck = deck_for(first.spec, first.rules)
    if not core.available(deck):
        return Walk(results, 0, False)
    starts = [state_from_position(deck, pos) for pos in positions]
    shared = _walk_state(starts[0])
    asked = [i for i, (pos, s) in enumerate(zip(positions, starts))
             if pos.goal == "mission" and pos.spec is first.spec and pos.rules == first.rules
             and s.status == PLAYING and _walk_state(s) == shared]
    if not asked:
        return Walk(results, 0, False)
    budget = Budget.of(time_limit, max_nodes)
    plans, nodes, exhausted = core.zero_point_walk(deck, shared, [starts[i].mission for i in asked],
                                                   budget)
    rules = first.rules.to_dict()
    for i, steps in zip(asked, plans):
        if steps is None:
            continue
        plan, _ = rebase(deck, starts[i], steps)
        verify_plan(positions[i], plan, deck)
        points, cards, abilities = plan_cost(plan)
        if (points, cards) != (0, 0):
            raise SolverBug(f"solver bug: the zero-point walk's plan for mission "
                            f"{positions[i].mission} spends {points} point(s) and {cards} card(s)")
        results[i] = SolveResult(SOLVED, "search", "mission", True, tuple(plan), 0, 0,
                                 time.monotonic() - t0, rules, nodes=0, abilities=abilities)
    return Walk(results, nodes, exhausted)
