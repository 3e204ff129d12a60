"""Graded hints for a stuck reader: three levels, each giving away a little more.

1. *Which module first*: the module that acts first in the printed solution (or which
   card is played first).
2. *The first action*: the printed solution's first action (a campaign: each mission's).
3. *Halfway*: the position after half the printed solution's actions, rounded down (a
   campaign: the layout when half its missions are done), drawn.

Every hint is read off the printed plan, which the solvers proved optimal (Mission in N,
hand puzzles, each campaign mission) or winning (deals) and the rules engine replayed.  The
remainder of an optimal plan is optimal from the position it passes through (costs add up
along a plan and the position holds everything that decides what follows), so the first
action is that of an optimal plan and the halfway position lies on one.  ``check_hints``
re-proves the second claim with A* (the remainder's cost is the optimum from halfway) and
raises SolverBug on a disagreement; a re-proof that runs out of nodes leaves the
construction argument standing.

The hints are returned as :class:`rove.pdf.book.Hints`, the form the PDF prints: the
book layer fills what the printing layer defines, never the other way round.
"""

from __future__ import annotations

from ..actions import Action
from ..engine import Deck, State, deck_for, state_cells, state_from_position
from ..errors import SolverBug
from ..grid import Cell
from ..pdf.book import Hints
from ..replay import states_along
from ..solve.nodes import Limit
from ..solve.result import plan_cost
from ..words import plural
from .analyse import solve_optimal

#: nodes for re-proving that the halfway position is on an optimal plan
CHECK_NODES = 40_000


def _actor(a: Action) -> str | None:
    """The module whose move or ability an action is (Gripper for a via use)."""
    return a.module if a.act in ("move", "ability") else None


def _halfway(deck: Deck, start: State, plan: tuple[Action, ...]) -> tuple[int, State]:
    """(actions taken, the state) half way through ``plan`` (rounded down, at least one
    action: a one-action plan's halfway is its end)."""
    half = max(1, len(plan) // 2)
    return half, states_along(deck, start, plan[:half])[-1]


def _layout(deck: Deck, s: State) -> tuple[dict[str, Cell], frozenset[str]]:
    return state_cells(deck, s), frozenset(c for j, c in enumerate(deck.codes) if s.spent >> j & 1)


def hints_for(kind: str, legs: tuple[tuple, ...]) -> Hints:
    """The hints for a puzzle of ``kind`` whose (position, plan) pairs are ``legs`` (one
    pair, or a campaign's missions in order)."""
    pos, plan = legs[0]
    deck = deck_for(pos.spec, pos.rules)
    module = _actor(plan[0]) if plan else None
    if kind == "campaign":
        first = tuple(p[0] for _, p in legs if p)
        done = max(1, len(legs) // 2)  # missions done at halfway
        leg_pos, leg_plan = legs[done - 1]
        end = states_along(deck, state_from_position(deck, leg_pos), leg_plan)[-1]
        cells, spent = _layout(deck, end)
        return Hints(module, first, cells, spent,
                     f"the layout after mission {done} of {len(legs)} on the solution's line")
    half, s = _halfway(deck, state_from_position(deck, pos), plan)
    cells, spent = _layout(deck, s)
    moves = sum(a.act == "move" for a in plan[:half])
    note = f"after {half} of {plural(len(plan), 'action')}, {plural(moves, 'point')} spent"
    if kind == "deal":
        note += f", {s.done} of {pos.spec.missions_to_win} missions done"
    if s.card >= 0:
        note += f"; {deck.card_ids[s.card]} current with {plural(s.points, 'point')} left"
    return Hints(module, plan[:1], cells, spent, note)


def check_hints(kind: str, legs: tuple[tuple, ...], nodes: int = CHECK_NODES) -> None:
    """Re-prove that the halfway position of an optimal puzzle (not a deal, whose line
    is only a winning one) lies on an optimal plan: A*'s optimum from there costs what
    the rest of the printed plan costs.  SolverBug on a disagreement."""
    if kind == "deal":
        return
    for pos, plan in legs:
        deck = deck_for(pos.spec, pos.rules)
        half, s = _halfway(deck, state_from_position(deck, pos), plan)
        if half >= len(plan):
            continue  # nothing left to re-prove
        try:
            got = solve_optimal(deck, s, nodes)
        except Limit:
            continue  # the construction argument stands (module text)
        rest = plan_cost(plan[half:])
        if got is None or (got.points, got.cards, got.abilities) != rest:
            raise SolverBug(f"hint 3 is off an optimal plan: from halfway the optimum is "
                            f"{None if got is None else (got.points, got.cards, got.abilities)}, "
                            f"the printed plan's rest costs {rest}")
