"""The plain baseline the A* is tested against: uniform-cost search, nothing clever.

Out of the product's hot path on purpose: no heuristic, no canonical keys, no pruning
beyond exact duplicates, so that agreement with it means something.
"""

from __future__ import annotations

import heapq
import itertools

from ..actions import Action
from ..engine import GOAL, LOST, WON, Deck, State, successors
from .nodes import Budget
from .result import MissionPlan


def solve_mission_bfs(deck: Deck, start: State, budget: Budget) -> MissionPlan:
    """The plain baseline: uniform-cost search on (points, cards, abilities) with no
    heuristic, no canonical keys and no pruning beyond exact duplicates."""
    if start.status in (GOAL, WON):
        return MissionPlan([], 0)
    counter = itertools.count()
    open_: list[tuple[tuple[int, int, int], int, State, list[Action]]] = [((0, 0, 0), next(counter), start, [])]
    seen: dict[State, tuple[int, int, int]] = {start: (0, 0, 0)}
    expanded = 0
    while open_:
        g, _, s, plan = heapq.heappop(open_)
        if seen.get(s, g) < g:
            continue
        if s.status in (GOAL, WON):
            return MissionPlan(plan, expanded)
        budget.tick()
        expanded += 1
        for a, s2 in successors(deck, s):
            g2 = (g[0] + (a.act == "move"), g[1] + (a.act == "play"), g[2] + (a.act == "ability"))
            if s2.status == LOST:
                continue
            old = seen.get(s2)
            if old is not None and old <= g2:
                continue
            seen[s2] = g2
            heapq.heappush(open_, (g2, next(counter), s2, plan + [a]))
    return MissionPlan(None, expanded)
