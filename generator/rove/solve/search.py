"""Exact search: optimal mission plans (A*) and whole-deal winnability (depth-first).

Costs are compared lexicographically: movement points spent, then cards played,
then abilities used.  Abilities cost no points and chain, so the heuristic counts
them explicitly: a pattern placement with ``D`` unfilled cells needs at least ``D``
actions that bring a module in, and only Brain, Coil, Motor and Gripper can do that
without a point; so at least ``D - (those abilities left)`` points remain.  The
bound is consistent (no action lowers it by more than the points it costs), which
makes A* with duplicate detection exact.

Every plan is replayed through the rules engine before it is returned.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..actions import Action
from ..engine import (
    GOAL,
    LOST,
    PLAYING,
    STRIDE,
    WON,
    CompiledPattern,
    Deck,
    State,
    pack,
    sensor_draws_left,
    state_from_position,
    successors,
    unpack,
)
from ..position import Position
from ..replay import verify_plan
from .result import SOLVED, UNKNOWN, UNSOLVABLE, SolveResult, plan_cost

FILLERS = ("brain", "coil", "motor", "gripper")  # abilities that can bring a module into a cell


class Limit(Exception):
    """Raised inside a search when its time or node limit is reached."""


@dataclass
class Budget:
    """Time and node limits shared by the parts of one solve."""

    deadline: float
    max_nodes: int
    nodes: int = 0

    @classmethod
    def of(cls, time_limit: float | None, max_nodes: int | None) -> Budget:
        """None means no limit; 0 means none at all (the answer is ``unknown`` at once)."""
        return cls(time.monotonic() + time_limit if time_limit is not None else float("inf"),
                   max_nodes if max_nodes is not None else 1 << 62)

    def tick(self) -> None:
        # one node costs about a millisecond; the clock is read every 16
        self.nodes += 1
        if self.nodes >= self.max_nodes or (self.nodes & 15 == 0 and time.monotonic() > self.deadline):
            raise Limit
        if self.nodes == 1 and time.monotonic() > self.deadline:
            raise Limit


class Heuristic:
    """Admissible, consistent lower bound on the points still needed for one mission."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self._ability_counts: dict[int, tuple[int, int]] = {}
        self._pats: dict[int, tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...], int]] = {}
        self._memo: dict[tuple[tuple[int, ...], int, int], tuple[int, int]] = {}
        self._side_tables: dict[int, tuple[dict[int, int], ...]] = {}
        self.max_bonus = max(deck.bonus) if deck.bonus else 0
        self._draws: dict[int, int] = {}
        pushes = tuple(sorted({off for j in range(deck.n) for side in deck.move_dirs[j]
                               for kind, off, _ in side if kind == "push"}))
        # per module: [distances while active (it may flip first), distances while spent]
        self.dist = []
        for i in range(deck.n):
            active, spent = (_move_distances(deck.move_dirs[i][side], pushes) for side in (0, 1))
            merged = {k: min(v, spent.get(k, v)) for k, v in active.items()}
            self.dist.append([merged, spent])

    def abilities_left(self, spent: int) -> tuple[int, int]:
        """(uses that can fill a cell, uses that can change the layout at all)."""
        got = self._ability_counts.get(spent)
        if got is None:
            fill = anyuse = 0
            for i, m in enumerate(self.deck.modules):
                if spent >> i & 1:
                    continue
                if m.ability in FILLERS:
                    fill += 1
                    anyuse += 1
                elif m.ability == "laser":
                    anyuse += 1
            got = self._ability_counts[spent] = (fill, anyuse)
        return got

    def _pattern(self, mission: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, int], ...], int]:
        got = self._pats.get(mission)
        if got is None:
            pat: CompiledPattern = self.deck.mission_pat[mission]
            occ_offs, empties, named = [], [], []
            for (x, y), v in pat.pattern.cells:
                off = x + y * STRIDE
                if v == "_":
                    empties.append(off)
                else:
                    occ_offs.append(off)
                    if v != "#":
                        named.append((self.deck.index[v], off))
            got = self._pats[mission] = (tuple(occ_offs), tuple(empties), tuple(named), len(occ_offs))
        return got

    def points_needed(self, s: State) -> int:
        return self.estimate(s)[0]

    def estimate(self, s: State) -> tuple[int, int]:
        """(points, abilities): lower bounds for the lexicographically best completion.

        Memoised by (cells, spent, mission): card plays and draws leave it unchanged."""
        if s.mission < 0:
            return (0, 0)
        key = (s.cells, s.spent, s.mission)
        got = self._memo.get(key)
        if got is None:
            if len(self._memo) > 1_000_000:
                self._memo.clear()
            got = self._memo[key] = self._estimate(s)
        return got

    def _estimate(self, s: State) -> tuple[int, int]:
        """For each placement T of the pattern: ``defect`` = the most of (cells to fill,
        must-empty cells to clear, a misplaced named module), each action mending at most
        one of each; ``need`` = defect less what the abilities left can mend.  Points >=
        min need.  When a plan spends exactly that many points (the only case in which
        the abilities count decides the order), its placement T has need == min need and
        the abilities it uses mend the rest: abilities >= defect_T - points."""
        occ_offs, empties, named, size = self._pattern(s.mission)
        fill, anyuse = self.abilities_left(s.spent)
        cells = s.cells
        occ = set(cells)
        tables = self._tables(s.spent)
        # placements that put no pattern cell on a module: every cell to fill
        far_defect = max(size, 1 if named else 0)
        best = max(size - fill, (1 if named else 0) - anyuse, 0)
        candidates = [(best, far_defect)]
        seen: set[int] = set()
        for c in cells:
            for o in occ_offs:
                base = c - o
                if base in seen:
                    continue
                seen.add(base)
                holes = 0
                for off in occ_offs:
                    if base + off not in occ:
                        holes += 1
                blocks = 0
                for off in empties:
                    if base + off in occ:
                        blocks += 1
                wrong = 0
                for m, off in named:
                    if cells[m] != base + off:
                        wrong = 1
                        break
                need = max(holes - fill, blocks - fill, wrong - anyuse, 0)
                if need <= best and not anyuse and need > 0:
                    need = max(need, self._distance_bound(cells, tables, base, occ_offs, named, occ))
                if need <= best:
                    best = need
                    candidates.append((need, max(holes, blocks, wrong)))
        abilities = min(max(0, defect - best) for need, defect in candidates if need == best)
        return best, abilities

    def _tables(self, spent: int) -> tuple[dict[int, int], ...]:
        """Per module, the move-distance table of the side it is on."""
        got = self._side_tables.get(spent)
        if got is None:
            got = self._side_tables[spent] = tuple(
                self.dist[i][spent >> i & 1] for i in range(self.deck.n))
        return got

    def _distance_bound(self, cells: tuple[int, ...], tables: tuple[dict[int, int], ...],
                        base: int, occ_offs: tuple[int, ...],
                        named: tuple[tuple[int, int], ...], occ: set[int]) -> int:
        """With no ability left to relocate modules, each unfilled cell needs a module that
        can get there, and the named module must travel to its cell: each takes at least
        its own (obstacle-free) move distance."""
        bound = 0
        for off in occ_offs:
            target = base + off
            if target in occ:
                continue
            d = 99
            for tab, c in zip(tables, cells):
                e = tab.get(target - c, 1)
                if e < d:
                    d = e
                    if d <= bound:
                        break
            if d > bound:
                bound = d
        for m, off in named:
            target = base + off
            if cells[m] != target:
                d = tables[m].get(target - cells[m], 1)
                if d > bound:
                    bound = d
        return bound

    def points_obtainable(self, s: State) -> int:
        """An upper bound on the points this state can still get for this mission.

        A Sensor draw can find a card even when both piles are empty now: a card played
        from the hand (or the current one) reaches the discard pile once it runs out,
        and can be drawn and played again."""
        total = s.points + sum(self.deck.bonus[c] for c in s.hand)
        draws = self._draws.get(s.spent)
        if draws is None:
            draws = self._draws[s.spent] = sensor_draws_left(self.deck, s.spent)
        if draws and (s.draw or s.discard or s.hand or s.card >= 0):
            total += draws * self.max_bonus
        return total


_RADIUS = 10


@functools.lru_cache(maxsize=256)
def _move_distances(arrows: tuple[tuple[str, int, str], ...], pushes: tuple[int, ...],
                    ) -> dict[int, int]:
    """Fewest moves that carry a module with these arrows by each offset on an empty grid:
    its own arrows (standard and jump any distance, short and push one cell; a jump needs
    two or more) plus one-cell pushes in any direction some module can push.  Obstacles
    and connectivity only make real paths longer, so these are lower bounds.  (A module
    cannot push itself, but counting its own push direction as a push only lowers the
    bound.)  Offsets beyond the table's radius count as 1."""
    steps: set[int] = set(pushes)
    for kind, off, _ in arrows:
        if kind in ("short", "push"):
            steps.add(off)
        else:
            for k in range(2 if kind == "jump" else 1, 2 * _RADIUS + 1):
                steps.add(off * k)
    dist = {0: 0}
    frontier = [0]
    while frontier:
        nxt = []
        for c in frontier:
            for st in steps:
                d = c + st
                if d in dist:
                    continue
                x, y = unpack(d)
                if abs(x) > _RADIUS or abs(y) > _RADIUS:
                    continue
                dist[d] = dist[c] + 1
                nxt.append(d)
        frontier = nxt
    return dist


def canonical_key(s: State, keep_piles: bool) -> tuple:
    """State up to translation; hand as a set; piles only when a draw can still matter."""
    xs = [unpack(c) for c in s.cells]
    x0 = min(x for x, _ in xs)
    y0 = min(y for _, y in xs)
    shift = x0 + y0 * STRIDE
    cells = tuple(c - shift for c in s.cells)
    hand = tuple(sorted(s.hand))
    if keep_piles:
        return (cells, s.spent, hand, s.card, s.points, s.draw, s.discard, s.mission, s.done)
    return (cells, s.spent, hand, s.points, s.mission, s.done)


def _useful_successors(deck: Deck, s: State) -> list[tuple[Action, State]]:
    """Successors without dominated card plays: base points when the bonus is there.

    The bonus play does all the base play does, with more points; the one difference is
    that a card played for base runs out, and so reaches the discard pile, sooner.  That
    matters only if Sensor draws can empty both piles and take it back into the hand
    before the bonus line would have discarded it (no card joins the piles meanwhile),
    so while the piles hold fewer cards than the Sensor draws left, both plays are kept."""
    out = []
    for a, s2 in successors(deck, s):
        if (a.act == "play" and a.bonus is False and a.card is not None
                and deck.move_pat[deck.card_index[a.card]].matches(s.cells)
                and len(s.draw) + len(s.discard) >= sensor_draws_left(deck, s.spent)):
            continue
        out.append((a, s2))
    return out


def solve_mission(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                  ) -> tuple[list[Action] | None, int]:
    plan, _, nodes = solve_mission_state(deck, start, budget, max_points)
    return plan, nodes


def solve_mission_state(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                        ) -> tuple[list[Action] | None, State | None, int]:
    """A* for the cheapest plan that completes the current mission.

    With ``max_points`` only plans spending at most that many points count (None: a
    proof that no such plan exists).  Returns (plan or None when proven impossible,
    nodes expanded); raises Limit.
    """
    from . import core

    if core.available(deck):
        nodes0 = budget.nodes
        steps = core.solve_mission_steps(deck, start, budget, max_points)
        if steps is None:
            return None, None, budget.nodes - nodes0
        plan, goal_state = _rebase(deck, start, steps)
        return plan, goal_state, budget.nodes - nodes0
    return solve_mission_python(deck, start, budget, max_points)


def solve_mission_python(deck: Deck, start: State, budget: Budget, max_points: int | None = None,
                         ) -> tuple[list[Action] | None, State | None, int]:
    """The pure-Python A* (the compiled core runs the same algorithm): the reference
    the core is tested against and the path ``ROVE_CORE=0`` selects."""
    cap = float("inf") if max_points is None else max_points
    if start.status in (GOAL, WON):
        return [], start, 0
    if start.status != PLAYING:
        return None, None, 0
    done0 = start.done
    h = Heuristic(deck)
    may_draw = sensor_draws_left(deck, start.spent) > 0
    counter = itertools.count()
    h0, a0 = h.estimate(start)
    if h0 > h.points_obtainable(start) or h0 > cap:
        return None, None, 0
    open_: list = [((h0, 0, a0), -0, next(counter), start, (0, 0, 0))]
    # key -> (parent key, action, the parent's translation when the action was made):
    # translated copies of a state share a key, so actions with cells are re-based
    # when the plan is rebuilt
    parents: dict[tuple, tuple[tuple | None, Action | None, int]] = {}
    best_g: dict[tuple, tuple[int, int, int]] = {}
    k0 = canonical_key(start, may_draw)
    best_g[k0] = (0, 0, 0)
    parents[k0] = (None, None, 0)
    incumbent: tuple[int, int, int] | None = None
    goal_parent: tuple | None = None
    goal_action: Action | None = None
    goal_state: State | None = None
    goal_shift = 0
    expanded = 0
    while open_:
        f, _, _, s, g = heapq.heappop(open_)
        if incumbent is not None and f >= incumbent:
            break
        key = canonical_key(s, may_draw)
        if best_g.get(key, g) < g:
            continue  # a cheaper copy was expanded
        budget.tick()
        expanded += 1
        for a, s2 in _useful_successors(deck, s):
            g2 = (g[0] + (a.act == "move"), g[1] + (a.act == "play"), g[2] + (a.act == "ability"))
            if s2.status == GOAL or s2.status == WON or s2.done > done0:
                # the mission is complete (in a whole game: the next one is revealed)
                if g2[0] <= cap and (incumbent is None or g2 < incumbent):
                    incumbent, goal_parent, goal_action, goal_state = g2, key, a, s2
                    goal_shift = translation(s)
                continue
            if s2.status != PLAYING:
                continue
            k2 = canonical_key(s2, may_draw)
            old = best_g.get(k2)
            if old is not None and old <= g2:
                continue
            h2, ha2 = h.estimate(s2)
            if h2 > h.points_obtainable(s2):
                continue
            f2 = (g2[0] + h2, g2[1], g2[2] + ha2)
            if f2[0] > cap or (incumbent is not None and f2 >= incumbent):
                continue
            best_g[k2] = g2
            parents[k2] = (key, a, translation(s))
            heapq.heappush(open_, (f2, -g2[0], next(counter), s2, g2))
    if incumbent is None:
        return None, None, expanded
    steps: list[tuple[Action, int]] = [(goal_action, goal_shift)]  # type: ignore[list-item]
    k = goal_parent
    while k is not None:
        pk, step, shift = parents[k]
        if step is not None:
            steps.append((step, shift))
        k = pk
    steps.reverse()
    plan, goal_state = _rebase(deck, start, steps)
    return plan, goal_state, expanded


def translation(s: State) -> int:
    """The packed offset of a state's bounding-box corner (what canonical keys remove)."""
    xs = [unpack(c) for c in s.cells]
    return min(x for x, _ in xs) + min(y for _, y in xs) * STRIDE


def _rebase(deck: Deck, start: State, steps: list[tuple[Action, int]]) -> tuple[list[Action], State]:
    """Replay (action, translation it was made in) from ``start``, moving each action's
    cells into the translation the replayed state really has."""
    from ..engine import apply

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


def solve_mission_bfs(deck: Deck, start: State, budget: Budget) -> tuple[list[Action] | None, int]:
    """The plain baseline: uniform-cost search on (points, cards, abilities) with no
    heuristic, no canonical keys and no pruning beyond exact duplicates."""
    if start.status in (GOAL, WON):
        return [], 0
    counter = itertools.count()
    open_: list = [((0, 0, 0), next(counter), start, [])]
    seen: dict[State, tuple[int, int, int]] = {start: (0, 0, 0)}
    expanded = 0
    while open_:
        g, _, s, plan = heapq.heappop(open_)
        if seen.get(s, g) < g:
            continue
        if s.status in (GOAL, WON):
            return plan, expanded
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
    return None, expanded


# --------------------------------------------------------------------------- entry point


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
            from .game import solve_game

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
