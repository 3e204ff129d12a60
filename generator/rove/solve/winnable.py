"""Whole-deal winnability: exact depth-first search with transposition tables.

"Thoughtful" in the solitaire-solver sense: the whole draw order is known.  Two
exact searches run as a portfolio:

1. a short greedy dive through every legal action, completing actions first and
   then those that bring the layout closest to the mission; it finds most wins in a
   few hundred nodes;
2. mission by mission, iterative deepening on the points spent on the current
   mission, so the cheapest completions (which keep cards, points and abilities for
   later missions) are tried first; the last depth is every point the state can
   still obtain for the mission, so exhausting it is a proof.

States shown to lose are stored by a canonical key (layout up to translation, spent
set, hand as a set, current card and points, pile orders, missions done) with the
points allowance they lost under, and a state whose mission needs more points than
the cards in reach can pay is cut at once.  A deal is ``unsolvable`` only when a
search was exhausted; a limit gives ``unknown``.

With ``optimal`` the search is branch and bound on points spent: after each win it
looks again for a win that spends fewer points, until none is left.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..actions import Action
from ..engine import PLAYING, WON, Deck, State
from .heuristic import Heuristic
from .nodes import Budget, Key, Limit, canonical_key, useful_successors
from .result import GamePlan

INF = 1 << 30
GREEDY_NODES = 2000  # the greedy dive gets at least this many nodes
GREEDY_SHARE = 0.05  # and this share of the node limit (the deepening search decides more per node)

#: a child to try: sort key (group, points needed, is ability, is play, order), action, state,
#: cost (a move costs a point)
_Child = tuple[int, int, bool, bool, int, Action, State, bool]


class _GameSearch:
    def __init__(self, deck: Deck, budget: Budget, progress: Callable[[int], None] | None,
                 stats: dict[str, Any] | None = None) -> None:
        self.deck = deck
        self.budget = budget
        self.h = Heuristic(deck)
        #: canonical key -> the largest points allowance under which the state was shown to lose
        self.lost: dict[Key, int] = {}
        #: first states of missions shown to lose whatever is spent on the mission
        self.lost_start: set[Key] = set()
        self.progress = progress
        #: the deepest line so far: missions done and the mission it could not complete
        #: (a lost deal's blocker), shared by the searches of one solve
        self.stats = stats if stats is not None else {}
        self.best_done = self.stats.get("deepest_done", -1)

    def _deepest(self, s: State) -> None:
        self.best_done = s.done
        self.stats["deepest_done"] = s.done
        self.stats["deepest_mission"] = self.deck.card_ids[s.mission] if s.mission >= 0 else None
        if self.progress:
            self.progress(s.done)

    # ------------------------------------------------------------------ deciding
    def win_from(self, s: State) -> list[Action] | None:
        """A winning plan from the first state of a mission, or None when none exists.

        The mission is tried with a growing cap on the points spent on it (iterative
        deepening: the lower bound, one more, then all), so the cheapest completions,
        which keep cards and points for the missions after it, are tried first.  The
        last cap is all the points the state can still obtain for this mission, so a
        None is a proof."""
        if s.status == WON:
            return []
        if s.status != PLAYING:
            return None
        key = canonical_key(s, True)
        if key in self.lost_start:
            return None
        if s.done > self.best_done:
            self._deepest(s)
        need = self.h.points_needed(s)
        top = self.h.points_obtainable(s)
        # the cheapest completions first, then everything at once: more steps would
        # find slightly cheaper lines but repeat the whole search for every proof
        for cap in sorted({min(need, top), min(need + 1, top), top}):
            plan = self.mission(s, cap)
            if plan is not None:
                return plan
        self.lost_start.add(key)
        return None

    def mission(self, s: State, cap: int) -> list[Action] | None:
        """A winning plan that spends at most ``cap`` points before this mission completes."""
        key = canonical_key(s, True)
        if self.lost.get(key, -1) >= cap:
            return None
        self.budget.tick()
        children: list[_Child] = []
        for a, s2 in useful_successors(self.deck, s):
            cost = a.act == "move"
            if cost > cap:
                continue
            if s2.status == WON:
                return [a]
            if s2.status != PLAYING:
                continue
            if s2.done > s.done:
                children.append((0, 0, False, False, len(children), a, s2, cost))
                continue
            need = self.h.points_needed(s2)
            if need > cap - cost or need > self.h.points_obtainable(s2):
                continue
            children.append((1, need, a.act == "ability", a.act == "play", len(children), a, s2, cost))
        children.sort(key=lambda c: c[:5])
        for *_, a, s2, cost in children:
            sub = self.win_from(s2) if s2.done > s.done else self.mission(s2, cap - cost)
            if sub is not None:
                return [a, *sub]
        self.lost[key] = cap
        return None

    # ------------------------------------------------------------------ optimal
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
            self._deepest(s)
        children: list[_Child] = []
        for a, s2 in useful_successors(self.deck, s):
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
               progress: Callable[[int], None] | None = None,
               stats: dict[str, Any] | None = None) -> GamePlan:
    """A winning plan for the whole deal, or None when none exists; raises Limit.

    The flag says whether the plan is proven to spend the fewest points (only asked
    for with ``optimal``; a limit hit while improving a win keeps the win found)."""
    from . import core

    if core.available(deck):
        return GamePlan(*core.solve_game(deck, start, budget, optimal, progress,
                                         stats if stats is not None else {}))
    return solve_game_python(deck, start, budget, optimal, progress, stats)


def solve_game_python(deck: Deck, start: State, budget: Budget, optimal: bool = False,
                      progress: Callable[[int], None] | None = None,
                      stats: dict[str, Any] | None = None) -> GamePlan:
    """The pure-Python search (the compiled core runs the same algorithm): the reference
    the core is tested against and the path ``ROVE_CORE=0`` selects."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    try:
        stats = stats if stats is not None else {}
        search = _GameSearch(deck, budget, progress, stats)
        if not optimal:
            # A portfolio of two exact searches: a short greedy dive (finds most wins in
            # a few hundred nodes), then the mission-by-mission deepening search, which
            # saves resources and proves losses.  Either one's None is a proof.
            # The dive's share is counted in nodes only, so where the portfolio switches
            # does not depend on the machine's speed; the time limit stays whole.
            quick = Budget(budget.deadline, min(budget.max_nodes, max(
                GREEDY_NODES, int(budget.max_nodes * GREEDY_SHARE))))
            try:
                plan = _GameSearch(deck, quick, progress, stats).run(start, INF)
                budget.nodes += quick.nodes
                return GamePlan(plan, False)
            except Limit:
                budget.nodes += quick.nodes
                if budget.nodes >= budget.max_nodes or quick.nodes < quick.max_nodes:
                    raise  # the whole node limit, or the time limit
            search.best_done = stats.get("deepest_done", -1)
            return GamePlan(search.win_from(start), False)
        plan = search.run(start, INF)
        if plan is None:
            return GamePlan(plan, False)
        while True:
            spent = sum(a.act == "move" for a in plan)
            if spent == 0:
                return GamePlan(plan, True)
            try:
                better = search.run(start, spent - 1)
            except Limit:
                return GamePlan(plan, False)
            if better is None:
                return GamePlan(plan, True)
            plan = better
    finally:
        sys.setrecursionlimit(old)
