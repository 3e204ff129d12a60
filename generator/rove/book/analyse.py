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

from dataclasses import dataclass

from ..actions import Action
from ..engine import GOAL, PLAYING, WON, Deck, IllegalAction, State, apply
from ..replay import run_plan
from ..solve import nodes
from ..solve.astar import solve_mission
from ..solve.heuristic import Heuristic
from ..solve.nodes import Budget, Limit, canonical_key, dominated_base_play
from ..solve.result import plan_cost

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
    return nodes.useful_successors(deck, s)


def reaches_goal(deck: Deck, s: State, plan: list[Action], max_points: int) -> bool:
    """Whether ``plan`` replays from ``s`` to the goal spending at most ``max_points``."""
    states, bad = run_plan(deck, s, plan)
    end = states[-1] if states else s
    return bad is None and end.status in (GOAL, WON) and plan_points(plan) <= max_points


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


# --------------------------------------------------------------------------- solutions


def useful_successors_on_core(deck: Deck, s: State) -> list[tuple[Action, State]]:
    """``start_actions`` on the compiled core when it is there (same actions, same order,
    same pruning of dominated card plays); the engine otherwise."""
    from ..solve import core

    if not core.available(deck):
        return nodes.useful_successors(deck, s)
    return [(a, s2) for a, s2 in core.successors(deck, s) if not dominated_base_play(deck, s, a)]


Cost = tuple[int, int, int]  # (points, cards, abilities), compared in that order


def _step_cost(g: Cost, a: Action) -> Cost:
    return (g[0] + (a.act == "move"), g[1] + (a.act == "play"), g[2] + (a.act == "ability"))


def _reached(start: State, s: State) -> bool:
    return s.status in (GOAL, WON) or s.done > start.done


MAX_PLANS = 20_000  # optimal plans listed, at most, to sort them into classes


@dataclass(frozen=True)
class Solutions:
    """The optimal solutions of a puzzle, counted exactly (see ``optimal_solutions``).

    ``plans``: how many optimal plans there are (action sequences); ``classes``: how many
    of them are essentially different (the same up to the order of independent actions),
    None when there are more than MAX_PLANS plans to sort; ``nodes``: states examined."""

    plans: int
    classes: int | None
    nodes: int

    @property
    def unique(self) -> bool:
        return self.classes == 1


def optimal_solutions(deck: Deck, start: State, best: Cost, max_nodes: int,
                      max_plans: int = MAX_PLANS) -> Solutions:
    """Every optimal plan from ``start``, and how many are essentially different.

    *Optimal* is the solver's own order: a plan that completes the mission with exactly
    the optimum ``best`` = (points, cards, abilities), that is the fewest movement points,
    then the fewest cards, then the fewest abilities (a card is played for its bonus
    whenever its pattern matches and the choice cannot matter, and no-op abilities are left
    out, as in the solvers).

    Two actions side by side in a plan are *independent* when either may go first: both
    orders are legal from the state before them and lead to the very same state.  Two
    optimal plans are *the same solution up to the order of independent actions* when one
    becomes the other by swapping independent neighbours, one pair at a time.  The
    classes of this equivalence are the *essentially different* optimal solutions.

    Exact: a depth-first search over (state, cost so far), pruned only by the admissible
    bounds A* uses (points, and abilities when the points are tight), finds every
    optimal plan; their number is counted on that graph, then (up to ``max_plans``) the
    plans are listed and joined by every swap of independent neighbours (union-find).
    Raises Limit past ``max_nodes`` states."""
    h = Heuristic(deck)
    P, C, A = best
    budget = Budget.of(None, max_nodes)
    edges: dict[tuple[State, Cost], list[tuple[Action, State | None, Cost]]] = {}
    count: dict[tuple[State, Cost], int] = {}

    def visit(s: State, g: Cost) -> int:
        key = (s, g)
        got = count.get(key)
        if got is not None:
            return got
        budget.tick()
        out: list[tuple[Action, State | None, Cost]] = []
        total = 0
        for a, s2 in useful_successors_on_core(deck, s):
            g2 = _step_cost(g, a)
            if g2[0] > P or g2[1] > C or g2[2] > A:
                continue
            if _reached(start, s2):
                if g2 == best:
                    out.append((a, None, g2))
                    total += 1
                continue
            if s2.status != PLAYING or g2 == best:  # every action costs something
                continue
            n = count.get((s2, g2))
            if n is None:
                hp, ha = h.estimate(s2)
                if g2[0] + hp > P or hp > h.points_obtainable(s2) or (
                        g2[0] + hp == P and g2[2] + ha > A):
                    count[(s2, g2)] = 0
                    continue
                # an exact A* from s2 decides whether an optimal plan goes through it
                rest = _optimum(deck, s2, budget, P - g2[0])
                if rest is None or (g2[0] + rest[0], g2[1] + rest[1], g2[2] + rest[2]) != best:
                    count[(s2, g2)] = 0
                    continue
                n = visit(s2, g2)
            if n:
                out.append((a, s2, g2))
                total += n
        edges[key] = out
        count[key] = total
        return total

    if _reached(start, start):
        return Solutions(1, 1, 0)
    plans_n = visit(start, (0, 0, 0))
    if plans_n > max_plans:
        return Solutions(plans_n, None, budget.nodes)
    # list the plans with the states along them
    plans: list[tuple[Action, ...]] = []
    trails: list[list[State]] = []

    def walk(s: State, g: Cost, acts: list[Action], states: list[State]) -> None:
        for a, s2, g2 in edges[(s, g)]:
            if s2 is None:
                plans.append((*acts, a))
                trails.append(states)
            else:
                walk(s2, g2, [*acts, a], [*states, s2])

    walk(start, (0, 0, 0), [], [start])
    index = {p: i for i, p in enumerate(plans)}
    parent = list(range(len(plans)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, p in enumerate(plans):
        states = trails[i]
        for j in range(len(p) - 1):
            a, b = p[j], p[j + 1]
            if a == b:
                continue
            k = index.get((*p[:j], b, a, *p[j + 2:]))
            if k is None or find(k) == find(i):
                continue
            if _commute(deck, states[j], a, b):
                parent[find(k)] = find(i)
    classes = len({find(i) for i in range(len(plans))})
    return Solutions(plans_n, classes, budget.nodes)


def _optimum(deck: Deck, s: State, budget: Budget, max_points: int) -> Cost | None:
    """The cost of the best plan from ``s`` within ``max_points`` (None: there is none),
    by A* (the compiled core's when it is there; the plan itself is not needed)."""
    from ..solve import core

    if core.available(deck):
        steps = core.solve_mission_steps(deck, s, budget, max_points)
        acts = None if steps is None else [a for a, _ in steps]
    else:
        acts, _ = solve_mission(deck, s, budget, max_points=max_points)
    if acts is None:
        return None
    return plan_cost(acts)


def _commute(deck: Deck, s: State, a: Action, b: Action) -> bool:
    """Whether ``a`` and ``b`` are independent at ``s``: both orders legal, same result."""
    try:
        ab = apply(deck, apply(deck, s, a), b)
        ba = apply(deck, apply(deck, s, b), a)
    except IllegalAction:
        return False
    return ab == ba


# --------------------------------------------------------------------------- a person's effort


def lookahead_effort(deck: Deck, start: State, best: Cost, max_nodes: int,
                     max_depth: int = 16) -> int:
    """The effort of a *lookahead player*, a model of a person solving the puzzle: the
    positions it looks at before it finds a solution (``max_nodes`` when it has not
    found one by then; the count is censored there).

    The player knows the budget (the optimum's points and cards, as the page says) and
    thinks ahead 1 action, then 2, then 3, ... (iterative deepening on the number of
    actions).  At each position it tries the actions that look closest to the mission
    first (``Heuristic.points_needed``), drops a line as soon as the points it has left
    cannot cover the cells still missing, and remembers the positions it has already
    looked at in the current pass.  It stops at the first plan that completes the
    mission within the budget.  Every action looked at counts as one."""
    h = Heuristic(deck)
    P, C, _ = best
    nodes = 0

    class Found(Exception):
        pass

    def dfs(s: State, g: Cost, depth: int, seen: dict[State, int]) -> None:
        nonlocal nodes
        kids: list[tuple[int, int, int, State, Cost]] = []
        for a, s2 in useful_successors_on_core(deck, s):
            nodes += 1
            if nodes >= max_nodes:
                raise Limit
            g2 = _step_cost(g, a)
            if g2[0] > P or g2[1] > C:
                continue
            if _reached(start, s2):
                raise Found
            if depth <= 1 or s2.status != PLAYING:
                continue
            hp = h.points_needed(s2)
            if g2[0] + hp > P:
                continue
            kids.append((hp, cost(a), len(kids), s2, g2))
        kids.sort(key=lambda k: k[:3])
        for _, _, _, s2, g2 in kids:
            if seen.get(s2, 0) >= depth - 1:
                continue
            seen[s2] = depth - 1
            dfs(s2, g2, depth - 1, seen)

    if _reached(start, start):
        return 0
    try:
        for depth in range(1, max_depth + 1):
            dfs(start, (0, 0, 0), depth, {})
    except Found:
        return nodes
    except Limit:
        return max_nodes
    return max_nodes
