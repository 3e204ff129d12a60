"""A*: proven-optimal plans for the current mission.

Plans are compared lexicographically on (points, cards, abilities) and the search
uses :class:`.heuristic.Heuristic`, so the first completion popped is optimal.  On the
compiled core when it is built (the same algorithm, node for node), else in Python.
Every plan is rebuilt through the rules engine (:func:`rebase`).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import replace

from ..actions import Action
from ..engine import GOAL, PLAYING, WON, Deck, State, apply, pack, unpack
from .heuristic import Heuristic
from .nodes import (
    Budget,
    Key,
    cards_needed,
    mission_key,
    played_for_a_move,
    still_fresh,
    translation,
    useful_successors,
    wasted_play,
)
from .result import MissionPlan, MissionSolution

#: A* frontier entries: (f, -points so far, insertion order, state, g, fresh), where f
#: and g are (points, cards, abilities), the order breaks ties first in, first out, and
#: fresh says the entry's path played the current card and then only used abilities
#: that drew nothing (:func:`.nodes.wasted_play`)
_Entry = tuple[tuple[int, int, int], int, int, State, tuple[int, int, int], bool]


def solve_mission(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                  ) -> MissionPlan:
    """:func:`solve_mission_state` without the state the plan reaches."""
    plan, _, nodes = solve_mission_state(deck, start, budget, max_points)
    return MissionPlan(plan, nodes)


def solve_mission_state(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                        ) -> MissionSolution:
    """A* for the cheapest plan that completes the current mission.

    With ``max_points`` only plans spending at most that many points count (None: a
    proof that no such plan exists).  Returns the plan (None when proven impossible),
    the state it reaches and the nodes expanded; raises Limit.
    """
    from . import core

    if core.available(deck):
        nodes0 = budget.nodes
        steps = core.solve_mission_steps(deck, start, budget, max_points)
        if steps is None:
            return MissionSolution(None, None, budget.nodes - nodes0)
        plan, goal_state = rebase(deck, start, steps)
        return MissionSolution(plan, goal_state, budget.nodes - nodes0)
    return solve_mission_python(deck, start, budget, max_points)


def solve_mission_python(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                         ) -> MissionSolution:
    """The pure-Python A* (the compiled core runs the same algorithm): the reference
    the core is tested against and the path ``ROVE_CORE=0`` selects."""
    cap = float("inf") if max_points is None else max_points
    if start.status in (GOAL, WON):
        return MissionSolution([], start, 0)
    if start.status != PLAYING:
        return MissionSolution(None, None, 0)
    done0 = start.done
    h = Heuristic(deck)
    counter = itertools.count()
    h0, a0 = h.estimate(start)
    if h0 > h.points_obtainable(start) or h0 > cap:
        return MissionSolution(None, None, 0)
    open_: list[_Entry] = [((h0, cards_needed(h0, start), a0), -0, next(counter), start, (0, 0, 0), False)]
    # key -> (parent key, action, the parent's translation when the action was made):
    # translated copies of a state share a key, so actions with cells are re-based
    # when the plan is rebuilt
    parents: dict[Key, tuple[Key | None, Action | None, int]] = {}
    best_g: dict[Key, tuple[int, int, int]] = {}
    k0 = mission_key(deck, start)
    best_g[k0] = (0, 0, 0)
    parents[k0] = (None, None, 0)
    incumbent: tuple[int, int, int] | None = None
    goal_parent: Key | None = None
    goal_action: Action | None = None
    goal_state: State | None = None
    goal_shift = 0
    expanded = 0
    while open_:
        f, _, _, s, g, fresh = heapq.heappop(open_)
        if incumbent is not None and f >= incumbent:
            break
        key = mission_key(deck, s)
        if best_g.get(key, g) < g:
            continue  # a cheaper copy was expanded
        budget.tick()
        expanded += 1
        wasted = wasted_play(deck, s, fresh)
        for a, s2 in useful_successors(deck, s):
            if wasted and a.act == "play":
                continue
            g2 = (g[0] + (a.act == "move"), g[1] + (a.act == "play"), g[2] + (a.act == "ability"))
            if s2.status == GOAL or s2.status == WON or s2.done > done0:
                # the mission is complete (in a whole game: the next one is revealed)
                if g2[0] <= cap and (incumbent is None or g2 < incumbent):
                    incumbent, goal_parent, goal_action, goal_state = g2, key, a, s2
                    goal_shift = translation(s)
                continue
            if s2.status != PLAYING:
                continue
            k2 = mission_key(deck, s2)
            old = best_g.get(k2)
            if old is not None and old <= g2:
                continue
            fresh2 = still_fresh(a, s, s2, fresh)
            h2, ha2 = played_for_a_move(h.estimate(s2), fresh2)
            if h2 > h.points_obtainable(s2):
                continue
            f2 = (g2[0] + h2, g2[1] + cards_needed(h2, s2), g2[2] + ha2)
            if f2[0] > cap or (incumbent is not None and f2 >= incumbent):
                continue
            best_g[k2] = g2
            parents[k2] = (key, a, translation(s))
            heapq.heappush(open_, (f2, -g2[0], next(counter), s2, g2, fresh2))
    if incumbent is None:
        return MissionSolution(None, None, expanded)
    steps: list[tuple[Action, int]] = [(goal_action, goal_shift)]  # type: ignore[list-item]
    k = goal_parent
    while k is not None:
        pk, step, shift = parents[k]
        if step is not None:
            steps.append((step, shift))
        k = pk
    steps.reverse()
    plan, goal_state = rebase(deck, start, steps)
    return MissionSolution(plan, goal_state, expanded)


def rebase(deck: Deck, start: State, steps: list[tuple[Action, int]]) -> tuple[list[Action], State]:
    """Replay (action, translation it was made in) from ``start``, moving each action's
    cells into the translation the replayed state really has."""
    plan = []
    s = start
    for a, shift in steps:
        delta = translation(s) - shift
        if delta and a.to is not None:
            x, y = unpack(pack(a.to) + delta)
            a = replace(a, to=(x, y))
        plan.append(a)
        s = apply(deck, s, a)
    return plan, s
