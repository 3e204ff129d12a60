"""Measuring a puzzle: the proofs and the features its grade is computed from.

Everything here is exact and deterministic: searches are bounded by node counts (a
``Budget``), never by the clock alone, so the same seed gives the same book on any
machine.  A search that hits its bound raises ``Limit``; the generators then drop the
candidate (an unknown result is never printed).

Optimal first moves, up to equivalence (what "the optimal first move is unique" means):

* a first action ``a`` of the start state is *optimal* when some plan that starts with
  ``a`` completes the mission within the optimum ``N`` points (checked with
  ``solve_mission(state after a, max_points=N - cost(a))``);
* two optimal first actions are *equivalent* when they lead to the same state up to
  translation (same ``canonical_key``), or when one is a later step of an optimal plan
  that starts with the other and moving it to the front of that plan still replays to
  the goal within ``N`` points (the same set of actions in another order; the optimal
  plans compared are the ones A* returns for each first action);
* the number of classes of this equivalence (closed transitively) is the number of
  optimal first moves; 1 means the first move is unique.  The count is capped at
  ``FIRST_MOVES_CAP`` (a count of 2 means "2 or more"); every first action is examined,
  so classes that a later action joins are counted once.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from ..actions import Action
from ..engine import GOAL, PLAYING, WON, Deck, IllegalAction, State, apply
from ..solve.search import Budget, Heuristic, Limit, _useful_successors, canonical_key, solve_mission

FIRST_MOVES_CAP = 2
GREEDY_OPTIMAL, GREEDY_OVERSPENDS, GREEDY_FAILS = 0, 1, 2


def cost(a: Action) -> int:
    """Movement points an action spends."""
    return 1 if a.act == "move" else 0


def plan_points(plan: list[Action] | tuple[Action, ...]) -> int:
    return sum(cost(a) for a in plan)


def start_actions(deck: Deck, s: State) -> list[tuple[Action, State]]:
    """The actions a solver considers at ``s`` (no no-ops, no base play when the bonus is
    there), in the engine's order."""
    return _useful_successors(deck, s)


def reaches_goal(deck: Deck, s: State, plan: list[Action], max_points: int) -> bool:
    """Whether ``plan`` replays from ``s`` to the goal spending at most ``max_points``."""
    spent = 0
    for a in plan:
        if s.status != PLAYING:
            return False
        try:
            s = apply(deck, s, a)
        except IllegalAction:
            return False
        spent += cost(a)
    return s.status in (GOAL, WON) and spent <= max_points


def optimal_first_moves(deck: Deck, start: State, optimum: int, max_nodes: int,
                        time_limit: float | None = None,
                        plan: tuple[Action, ...] | list[Action] = ()) -> int:
    """How many optimal first moves the start state has, up to equivalence (see the module
    text); capped at FIRST_MOVES_CAP.  ``plan``, a known optimal plan, only orders the
    work (its steps are tried first).  Raises Limit when a check runs out of nodes."""
    budget = Budget.of(time_limit, max_nodes)
    steps = list(plan)
    actions = start_actions(deck, start)
    actions.sort(key=lambda x: (steps.index(x[0]) if x[0] in steps else len(steps)))
    optimal: list[tuple[Action, State, list[Action]]] = []  # (a, state after a, plan after a)
    parent: list[int] = []

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    keys: dict[tuple, int] = {}
    for a, s2 in actions:
        room = optimum - cost(a)
        if room < 0:
            continue
        if s2.status in (GOAL, WON):
            rest: list[Action] | None = []
        elif s2.status != PLAYING:
            continue
        else:
            rest, _ = solve_mission(deck, s2, budget, max_points=room)
        if rest is None:
            continue
        i = len(optimal)
        optimal.append((a, s2, rest))
        parent.append(i)
        key = canonical_key(s2, True)
        if key in keys:
            parent[i] = find(keys[key])
        else:
            keys[key] = i
        for j in range(i):
            if find(i) == find(j):
                continue
            if _reorders(deck, start, optimal[j][0], optimal[j][2], a, optimum) or \
                    _reorders(deck, start, a, rest, optimal[j][0], optimum):
                parent[find(i)] = find(j)
    # every first action is examined (a later one may join two classes), then capped
    classes = len({find(k) for k in range(len(optimal))})
    return min(classes, FIRST_MOVES_CAP)


def _reorders(deck: Deck, start: State, a: Action, rest: list[Action], b: Action,
              optimum: int) -> bool:
    """Whether ``b`` is a later step of the plan ``[a, *rest]`` and moving it to the front
    still reaches the goal within ``optimum`` points."""
    if b not in rest:
        return False
    k = rest.index(b)
    return reaches_goal(deck, start, [b, a, *rest[:k], *rest[k + 1:]], optimum)


def greedy(deck: Deck, start: State, h: Heuristic, optimum: int, max_steps: int = 40) -> int:
    """How a greedy player does: at every step it takes the action whose result needs the
    fewest points by ``Heuristic.points_needed`` (ties: no point spent, then most points in
    hand, then the notation), never returning to a state it has seen.

    Returns GREEDY_OPTIMAL (reaches the goal within ``optimum`` points), GREEDY_OVERSPENDS
    (reaches it, spending more) or GREEDY_FAILS (gets stuck or wanders)."""
    end, spent = greedy_run(deck, start, h, max_steps)
    if end is None:
        return GREEDY_FAILS
    return GREEDY_OPTIMAL if spent <= optimum else GREEDY_OVERSPENDS


def greedy_run(deck: Deck, start: State, h: Heuristic, max_steps: int = 40) -> tuple[State | None, int]:
    """The greedy player's game (see ``greedy``): its goal state and the points it spent,
    or (None, points) when it gets stuck or wanders."""
    s = start
    seen = {canonical_key(s, True)}
    spent = 0
    for _ in range(max_steps):
        best: tuple | None = None
        for a, s2 in start_actions(deck, s):
            if s2.status in (GOAL, WON):
                rank: tuple = (-1, cost(a), 0, str(a))
            elif s2.status != PLAYING or canonical_key(s2, True) in seen:
                continue
            else:
                rank = (h.points_needed(s2), cost(a), -(s2.points + len(s2.hand)), str(a))
            if best is None or rank < best[0]:
                best = (rank, a, s2)
        if best is None:
            return None, spent
        _, a, s = best
        spent += cost(a)
        if s.status in (GOAL, WON):
            return s, spent
        seen.add(canonical_key(s, True))
    return None, spent


def optimal_finishes(deck: Deck, start: State, optimum: int, max_states: int) -> list[State]:
    """Every way an optimal plan can leave the layout: the goal states reached with exactly
    ``optimum`` points (movement only: every action is a move), one per layout up to
    translation.  Breadth-first over layouts; raises Limit past ``max_states``."""
    frontier = [start]
    seen = {canonical_key(start, True)}
    ends: dict[tuple, State] = {}
    for depth in range(optimum):
        nxt = []
        for s in frontier:
            for _, s2 in start_actions(deck, s):
                key = canonical_key(s2, True)
                if key in seen:
                    continue
                seen.add(key)
                if len(seen) > max_states:
                    raise Limit
                if s2.status in (GOAL, WON):
                    if depth == optimum - 1:
                        ends[key] = s2
                elif s2.status == PLAYING:
                    nxt.append(s2)
        frontier = nxt
    return [ends[k] for k in sorted(ends)]


def without_bonus(deck: Deck) -> Deck:
    """A copy of the deck whose cards pay their base points even when the pattern matches."""
    d = copy.copy(deck)
    d.bonus = deck.base
    return d


@dataclass(frozen=True)
class Solved:
    """An optimal plan (fewest points, then cards, then abilities) and its search effort."""

    plan: tuple[Action, ...]
    points: int
    cards: int
    abilities: int
    nodes: int


def solve_optimal(deck: Deck, s: State, max_nodes: int, time_limit: float | None = None,
                  max_points: int | None = None) -> Solved | None:
    """A* optimum, or None when proven impossible; raises Limit."""
    budget = Budget.of(time_limit, max_nodes)
    plan, nodes = solve_mission(deck, s, budget, max_points=max_points)
    if plan is None:
        return None
    return Solved(tuple(plan), plan_points(plan), sum(a.act == "play" for a in plan),
                  sum(a.act == "ability" for a in plan), nodes)


def opening_plays(deck: Deck, start: State, best: tuple[int, int], max_nodes: int,
                  time_limit: float | None = None) -> tuple[int, int]:
    """(card plays available at the start, how many of them are *wrong*).

    A play is a card for its bonus (when the pattern matches) or for its base points.  It
    is wrong when no plan that starts with it is as good as ``best`` (points, then cards):
    the mission becomes impossible or dearer.  Each check is an A* capped at the best
    points, so a wrong play is proven, not guessed.  Raises Limit."""
    budget = Budget.of(time_limit, max_nodes)
    plays: list[tuple[Action, State]] = [(a, s2) for a, s2 in start_actions(deck, start)
                                         if a.act == "play"]
    # base plays the solver prunes (the bonus matches) are choices a player has too
    for c in start.hand:
        if deck.move_pat[c].matches(start.cells) and deck.base[c] < deck.bonus[c]:
            a = Action.play(deck.card_ids[c], False)
            plays.append((a, apply(deck, start, a)))
    wrong = 0
    for _a, s2 in plays:
        if s2.status in (GOAL, WON):
            got: tuple[int, int] | None = (0, 1)
        elif s2.status != PLAYING:
            got = None
        else:
            plan, _ = solve_mission(deck, s2, budget, max_points=best[0])
            got = None if plan is None else (plan_points(plan),
                                             1 + sum(x.act == "play" for x in plan))
        if got is None or got > best:
            wrong += 1
    return len(plays), wrong


def simplify_plan(deck: Deck, start: State, plan: list[Action], window: int = 6) -> list[Action]:
    """A shorter plan that still reaches the goal: steps, then pairs of steps at most
    ``window`` apart, are dropped while the replay still wins (each drop is proven by the
    replay).  The game solver's depth-first lines wander; this takes the wandering out."""
    plan = list(plan)

    def wins(p: list[Action]) -> bool:
        return reaches_goal(deck, start, p, 1 << 30)

    changed = True
    while changed:
        changed = False
        for i in range(len(plan)):
            trial = plan[:i] + plan[i + 1:]
            if wins(trial):
                plan, changed = trial, True
                break
        if changed:
            continue
        for i in range(len(plan)):
            for j in range(i + 1, min(len(plan), i + window + 1)):
                trial = plan[:i] + plan[i + 1:j] + plan[j + 1:]
                if wins(trial):
                    plan, changed = trial, True
                    break
            if changed:
                break
    return plan


def branching(deck: Deck, s: State) -> int:
    return len(start_actions(deck, s))
