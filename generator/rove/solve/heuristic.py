"""The mission heuristic: an admissible, consistent bound on the points still needed.

Costs are compared lexicographically: movement points spent, then cards played, then
abilities used.  Abilities cost no points and chain, so the heuristic counts them
explicitly: a pattern placement with ``D`` unfilled cells needs at least ``D`` actions
that bring a module in, and only Brain, Coil, Motor and Gripper can do that without a
point; so at least ``D - (those abilities left)`` points remain.  The bound is
consistent (no action lowers it by more than the points it costs), which makes A* with
duplicate detection exact.
"""

from __future__ import annotations

import functools

from ..engine import STRIDE, CompiledPattern, Deck, State, sensor_draws_left, unpack

FILLERS = ("brain", "coil", "motor", "gripper")  # abilities that can bring a module into a cell


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
