"""The exact search's front door: a position in, a checked :class:`SolveResult` out.

``goal: mission`` runs A* (:mod:`.astar`, or the plain baseline of :mod:`.baseline`
with ``method="bfs"``); ``goal: game`` the whole-deal search (:mod:`.winnable`).
Every plan is replayed through the rules engine before it is returned.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..engine import Deck, state_from_position
from ..position import Position
from ..replay import verify_plan
from .astar import solve_mission
from .baseline import solve_mission_bfs
from .nodes import Budget, Limit
from .result import SOLVED, UNKNOWN, UNSOLVABLE, SolveResult, plan_cost
from .winnable import solve_game


def solve(pos: Position, time_limit: float | None = None, max_nodes: int | None = None,
          optimal: bool = False, method: str = "astar",
          progress: Callable[[int], None] | None = None) -> SolveResult:
    """Solve a position with the search engine; the plan is replayed before returning."""
    t0 = time.monotonic()
    deck = Deck(pos.spec, pos.rules)
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
        return SolveResult(UNKNOWN, "search", pos.goal, False, None, None, None,
                           time.monotonic() - t0, rules, nodes=budget.nodes,
                           reason="time or node limit reached", stats=stats)
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
