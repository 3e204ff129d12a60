"""Whole-deal winnability: depth-first search with a transposition table.

"Thoughtful" in the solitaire-solver sense: the whole draw order is known.  The
search goes depth first through every legal action, trying first the actions that
complete the mission and then those that bring the layout closer to it, so a win
is usually found along the first lines tried.  A deal is ``unsolvable`` only when
every line was exhausted: states already shown to lose (stored by a canonical key)
are not searched again, and a state whose mission needs more points than the
cards in reach can still pay is cut at once.

With ``optimal`` the search becomes branch and bound on points spent: after each
win it looks again for a win that spends fewer points, until none is left.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from ..actions import Action
from ..engine import PLAYING, WON, Deck, State
from .search import Budget, Heuristic, _useful_successors, canonical_key

INF = 1 << 30


class _GameSearch:
    def __init__(self, deck: Deck, budget: Budget, progress: Callable[[int], None] | None) -> None:
        self.deck = deck
        self.budget = budget
        self.h = Heuristic(deck)
        #: canonical key -> the largest points allowance under which the state was shown to lose
        self.lost: dict[tuple, int] = {}
        self.progress = progress
        self.best_done = -1

    def run(self, s: State, allowance: int) -> list[Action] | None:
        """A winning plan from ``s`` spending at most ``allowance`` points, or None."""
        if s.status == WON:
            return []
        if s.status != PLAYING:
            return None
        key = canonical_key(s, True)
        if self.lost.get(key, -1) >= allowance:
            return None
        self.budget.tick()
        if s.done > self.best_done:
            self.best_done = s.done
            if self.progress:
                self.progress(s.done)
        children = []
        for a, s2 in _useful_successors(self.deck, s):
            cost = a.act == "move"
            if cost > allowance:
                continue
            if s2.status == WON:
                return [a]
            if s2.status != PLAYING:
                continue
            need = self.h.points_needed(s2)
            if need > self.h.points_obtainable(s2) or need > allowance - cost:
                continue
            # completing missions first, then the closest to the mission, moves before abilities
            children.append((-s2.done, need, a.act == "ability", a.act == "play", len(children), a, s2, cost))
        children.sort(key=lambda c: c[:5])
        for *_, a, s2, cost in children:
            sub = self.run(s2, allowance - cost)
            if sub is not None:
                return [a, *sub]
        self.lost[key] = allowance
        return None


def solve_game(deck: Deck, start: State, budget: Budget, optimal: bool = False,
               progress: Callable[[int], None] | None = None) -> tuple[list[Action] | None, int]:
    """A winning plan for the whole deal, or None when none exists; raises Limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    try:
        search = _GameSearch(deck, budget, progress)
        plan = search.run(start, INF)
        if plan is None or not optimal:
            return plan, budget.nodes
        while True:
            spent = sum(a.act == "move" for a in plan)
            if spent == 0:
                return plan, budget.nodes
            better = search.run(start, spent - 1)
            if better is None:
                return plan, budget.nodes
            plan = better
    finally:
        sys.setrecursionlimit(old)
