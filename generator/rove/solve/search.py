"""The exact search's front door: a position in, a checked :class:`SolveResult` out.

``goal: mission`` runs A* (:mod:`.astar`, or the plain baseline of :mod:`.baseline`
with ``method="bfs"``); ``goal: game`` the whole-deal search (:mod:`.winnable`), and
where that stops at its node limit, the seer (:mod:`.seer`) if it is given nodes: a win
it finds decides the deal, its failure decides nothing.  Every plan is replayed through
the rules engine before it is returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..actions import Action
from ..engine import Deck, State, deck_for, state_from_position
from ..position import Position
from ..replay import verify_plan
from .astar import solve_mission
from .baseline import solve_mission_bfs
from .nodes import Budget, Limit
from .result import SOLVED, UNKNOWN, UNSOLVABLE, SolveResult, plan_cost
from .winnable import solve_game


def solve(pos: Position, time_limit: float | None = None, max_nodes: int | None = None,
          optimal: bool = False, method: str = "astar",
          progress: Callable[[int], None] | None = None, seer_nodes: int = 0) -> SolveResult:
    """Solve a position with the search engine; the plan is replayed before returning.

    ``seer_nodes``: for ``goal: game``, the seer's nodes on a deal the exact search leaves
    at its node limit (0: no seer).  Its win comes back ``solved`` (not proven cheapest)
    with ``stats["witness"] == "seer"``; ``nodes`` counts both searches' nodes.  The seer
    is bounded by nodes only, so it does not run when the time limit stopped the search."""
    t0 = time.monotonic()
    deck = deck_for(pos.spec, pos.rules)
    start = state_from_position(deck, pos)
    budget = Budget.of(time_limit, max_nodes)
    rules = pos.rules.to_dict()
    stats: dict[str, object] = {}
    try:
        if pos.goal == "mission":
            fn = solve_mission if method == "astar" else solve_mission_bfs
            plan, _ = fn(deck, start, budget)
            is_optimal = True
        else:
            plan, is_optimal = solve_game(deck, start, budget, optimal=optimal, progress=progress,
                                          stats=stats)
    except Limit:
        plan = None
        if pos.goal == "game" and seer_nodes > 0 and budget.nodes >= budget.max_nodes:
            plan = _seer(deck, start, seer_nodes, budget, stats)
        if plan is None:
            return SolveResult(UNKNOWN, "search", pos.goal, False, None, None, None,
                               time.monotonic() - t0, rules, nodes=budget.nodes,
                               reason="time or node limit reached", stats=stats)
        is_optimal = False
    else:
        if pos.goal == "game" and plan is not None:
            stats["witness"] = "search"
    if plan is None:
        return SolveResult(UNSOLVABLE, "search", pos.goal, False, None, None, None,
                           time.monotonic() - t0, rules, nodes=budget.nodes, stats=stats)
    verify_plan(pos, plan, deck)
    points, cards, abilities = plan_cost(plan)
    reason = ("the limit was reached before this win was proven the cheapest"
              if optimal and not is_optimal else "")
    return SolveResult(SOLVED, "search", pos.goal, is_optimal, tuple(plan), points, cards,
                       time.monotonic() - t0, rules, nodes=budget.nodes, abilities=abilities,
                       reason=reason, stats=stats)


def _seer(deck: Deck, start: State, nodes: int, budget: Budget, stats: dict[str, object],
          ) -> list[Action] | None:
    """The seer's win after the exact search stopped at its limit (None: it found none);
    what it spent goes to ``budget`` and ``stats["seer"]``."""
    from .seer import seek

    found = seek(deck, start, nodes)
    budget.nodes += found.nodes
    stats["seer"] = {"nodes": found.nodes, "decisions": found.decisions,
                     "discrepancies": found.discrepancies, "deepest": found.deepest}
    if found.plan is None:
        return None
    stats["witness"] = "seer"
    return list(found.plan)
