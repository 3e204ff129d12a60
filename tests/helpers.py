"""Helpers the tests and the benchmarks share and the product never calls.

Each left the package for here, as nothing of it runs in a command: seeded random positions reached by legal
play (the tests' and the benches' positions: the same seed gives the same positions),
a deck that pays base points only, grid text read back into cells, and the rank
correlations the grading bench and its tests report.

The tests import it by name (pytest puts this folder on the path, as for conftest);
the bench scripts put this folder on their path first (``sys.path``), so both read the
same positions.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import replace

from rove.engine import PLAYING, Deck, State, deck_for, pack, position_from_state, state_from_position, successors
from rove.generators.deals import deal
from rove.grid import Cell, grid_rows
from rove.position import Current, Position, normalized_cells
from rove.spec import Spec

# --------------------------------------------------------------------------- seeded positions


def random_layout(rng: random.Random, n: int, shift: int = 0) -> tuple[int, ...]:
    """A random king-connected layout of ``n`` modules (packed cells, module ``i`` at the
    ``i``-th), randomly labelled and moved by up to ``shift`` cells each way.

    For the checks of the distance tables, which hold every layout the rules allow, most
    of which no deal's play reaches: a sample of layouts must not depend on play."""
    cells = [(0, 0)]
    while len(cells) < n:
        x, y = rng.choice(cells)
        c = (x + rng.randint(-1, 1), y + rng.randint(-1, 1))
        if c not in cells:
            cells.append(c)
    rng.shuffle(cells)
    dx, dy = (rng.randint(-shift, shift), rng.randint(-shift, shift)) if shift else (0, 0)
    return tuple(pack((x + dx, y + dy)) for x, y in cells)


def random_play(deck: Deck, s: State, rng: random.Random, steps: int) -> State:
    """Up to ``steps`` uniformly random legal actions that keep the game going."""
    for _ in range(steps):
        options = [(a, s2) for a, s2 in successors(deck, s) if s2.status == PLAYING]
        if not options:
            break
        s = rng.choice(options)[1]
    return s


def random_mission_puzzle(spec: Spec, seed: int, max_budget: int = 8, max_steps: int = 12,
                          keep_hand: bool = False) -> Position:
    """A mission puzzle: a random deal advanced by random legal play, then the current
    mission as the goal with a bare budget of 0..``max_budget`` points.  The layout is
    re-based to (0, 0) so the position file and its plans share coordinates."""
    rng = random.Random(f"rove-puzzle:{seed}")
    pos = deal(spec, seed)
    deck = deck_for(spec, pos.rules)
    s = random_play(deck, state_from_position(deck, pos), rng, rng.randint(0, max_steps))
    p = position_from_state(deck, s, pos)
    p = p.with_cells(normalized_cells(p.cells))
    return replace(p, goal="mission", current=Current(None, rng.randint(0, max_budget)),
                   hand=p.hand if keep_hand else (), discard=p.discard if keep_hand else p.discard)


def bare_budget_puzzle(spec: Spec, seed: int, spent: int, budget: int = 8,
                       max_steps: int = 12) -> Position:
    """A bare-budget mission puzzle with modules spent: a random deal advanced by random
    legal play, then modules spent at random until at least ``spent`` are, and a mission
    the layout does not match yet, with ``budget`` points and no cards.

    These are the benchmarks' hard cases: with few abilities left the optimum is a long
    chain of moves, and some are impossible within the budget."""
    rng = random.Random(f"rove-bare:{seed}:{spent}")
    pos = deal(spec, seed)
    deck = deck_for(spec, pos.rules)
    s = random_play(deck, state_from_position(deck, pos), rng, rng.randint(0, max_steps))
    active = [i for i in range(deck.n) if not s.spent >> i & 1]
    for i in rng.sample(active, max(0, min(len(active), spent - (deck.n - len(active))))):
        s = s.with_layout(s.cells, s.spent | 1 << i, s.points)
    p = position_from_state(deck, s, pos)
    p = p.with_cells(normalized_cells(p.cells))
    unmatched = [c for c in range(len(deck.card_ids)) if not deck.mission_pat[c].matches(s.cells)]
    mission = deck.card_ids[rng.choice(unmatched)]
    return replace(p, goal="mission", mission=mission, current=Current(None, budget), hand=(),
                   draw=(), discard=(), missions_done=0, completed=())


def playing_states(spec: Spec, count: int, seed: int) -> list[State]:
    """``count`` states of ongoing games with a legal action: fresh deals advanced by
    0..40 random legal actions (the benchmarks' positions; the same seed gives the same
    states)."""
    deck = deck_for(spec)
    rng = random.Random(seed)
    states: list[State] = []
    n = 0
    while len(states) < count:
        s = state_from_position(deck, deal(spec, seed * 100_000 + n))
        n += 1
        s = random_play(deck, s, rng, rng.randrange(0, 41))
        if s.status == PLAYING and any(True for _ in successors(deck, s)):
            states.append(s)
    return states


# --------------------------------------------------------------------------- decks and grids


def without_bonus(deck: Deck) -> Deck:
    """A copy of the deck whose cards pay their base points even when the pattern matches."""
    d = copy.copy(deck)
    d.bonus = deck.base
    return d


def parse_grid(text: str) -> dict[Cell, str]:
    """Grid text to {cell: character} for every character other than '.'."""
    out: dict[Cell, str] = {}
    for y, row in enumerate(grid_rows(text)):
        for x, ch in enumerate(row):
            if ch != ".":
                out[(x, y)] = ch
    return out


# --------------------------------------------------------------------------- rank correlation


def _ranks(xs: list[float] | list[int]) -> list[float]:
    """Ranks 1..n, ties given the average of the ranks they span."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs: list[float] | list[int], ys: list[float] | list[int]) -> float:
    """Spearman's rank correlation (Pearson's on average ranks); 0 when either is constant."""
    rx, ry = _ranks(xs), _ranks(ys)
    n = len(rx)
    if n < 2:
        return 0.0
    mx, my = sum(rx) / n, sum(ry) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else 0.0


def kendall_tau_b(xs: list[float] | list[int], ys: list[float] | list[int]) -> float:
    """Kendall's tau-b (ties in either variable accounted for); 0 when either is constant."""
    n = len(xs)
    conc = disc = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = (xs[i] > xs[j]) - (xs[i] < xs[j])
            dy = (ys[i] > ys[j]) - (ys[i] < ys[j])
            if dx and dy:
                if dx == dy:
                    conc += 1
                else:
                    disc += 1
            elif dx:
                ty += 1
            elif dy:
                tx += 1
    denom = math.sqrt((conc + disc + tx) * (conc + disc + ty))
    return (conc - disc) / denom if denom else 0.0
