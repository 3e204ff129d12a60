"""The core's mission pairs and chains (``rove._core.pair_costs``, ``chain_cost``) held to
the rules engine: exhaustive breadth-first searches over every layout of a four-module
deck (every arrow kind, spent sides moving by other arrows), moves made by
``rove.engine.successors``, missions completed by the engine's own pattern match.

A chain's cost is the fewest moves of a line that uses no ability and completes the
missions in order, each from the layout the previous one ended in; so it never exceeds
the moves of any such line (which is what ``bench/tablebase_payoff.py`` reads it as).
"""

from __future__ import annotations

import random
from collections import deque
from itertools import permutations
from pathlib import Path

import pytest
from conftest import card, mod, spec_text

from rove import _core
from rove.engine import PLAYING, Deck, State, pack, successors, unpack
from rove.solve import core
from rove.spec import load_spec

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")

MODULES = [
    mod("B", "brain", "brain", ("standard", ["orthogonal"]), spent=[("jump", ["diagonal"])]),
    mod("L", "laser", "laser", ("short", ["all"]), spent=[("push", ["orthogonal"])]),
    mod("S", "sensor", "sensor", ("jump", ["all"]), spent=[("short", ["N", "S"])]),
    mod("C", "coil", "coil", ("push", ["diagonal"]), spent=[("standard", ["E", "W"])]),
]
MISSIONS = ["B _ C\n. # .", "S\n#\n#", "L # _\n. # #", "C\n. S"]
SPENT_SETS = [0, 0b1111, 0b0110]


@pytest.fixture(scope="module")
def deck(tmp_path_factory: pytest.TempPathFactory) -> Deck:
    cards = [card(f"m{i}", mission=m, pattern="B") for i, m in enumerate(MISSIONS)]
    cards += [card(f"f{i}", mission="B L", pattern="B") for i in range(2)]
    path: Path = tmp_path_factory.mktemp("chains") / "chains.yaml"
    path.write_text(spec_text(MODULES, cards, missions_to_win=3, name="chains"), encoding="utf-8")
    return Deck(load_spec(path))


def normal(cells: tuple[int, ...]) -> tuple[int, ...]:
    """The layout moved so that its bounding box's corner is (0, 0)."""
    xs, ys = [unpack(c)[0] for c in cells], [unpack(c)[1] for c in cells]
    return tuple(pack((x - min(xs), y - min(ys))) for x, y in map(unpack, cells))


_MOVES: dict[tuple[tuple[int, ...], int], list[tuple[int, ...]]] = {}


def moves(deck: Deck, cells: tuple[int, ...], spent: int) -> list[tuple[int, ...]]:
    """The layouts one move gives, by the engine (a bare budget of one point); the
    searches ask for the same layouts again and again, so the answers are kept."""
    key = (cells, spent)
    if key not in _MOVES:
        s = State(cells, spent, (), (), (), -1, 1, len(MISSIONS) + 1, 0, (), PLAYING, "mission")
        _MOVES[key] = [normal(s2.cells) for a, s2 in successors(deck, s) if a.act == "move"]
    return _MOVES[key]


def all_layouts(n: int) -> list[tuple[int, ...]]:
    """Every valid layout of ``n`` modules up to translation."""
    shapes = {frozenset([(0, 0)])}
    for _ in range(n - 1):
        grown = set()
        for sh in shapes:
            for x, y in sh:
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        if (x + dx, y + dy) not in sh:
                            cells = sh | {(x + dx, y + dy)}
                            x0, y0 = min(c[0] for c in cells), min(c[1] for c in cells)
                            grown.add(frozenset((a - x0, b - y0) for a, b in cells))
        shapes = grown
    return sorted({tuple(pack(c) for c in p) for sh in shapes for p in permutations(sorted(sh))})


def forward_chain(deck: Deck, missions: list[int], spent: int, start: tuple[int, ...]) -> int | None:
    """The fewest moves from ``start`` through ``missions`` in order (a layout that
    matches the current mission completes it at once), by breadth-first search."""
    def advance(cells: tuple[int, ...], done: int) -> int:
        while done < len(missions) and deck.mission_pat[missions[done]].matches(cells):
            done += 1
        return done

    first = (normal(start), advance(start, 0))
    seen = {first}
    queue = deque([(first, 0)])
    while queue:
        (cells, done), cost = queue.popleft()
        if done == len(missions):
            return cost
        for nxt in moves(deck, cells, spent):
            key = (nxt, advance(nxt, done))
            if key not in seen:
                seen.add(key)
                queue.append((key, cost + 1))
    return None


def cells_xy(cells: tuple[int, ...]) -> list[tuple[int, int]]:
    return [unpack(c) for c in cells]


@pytest.mark.parametrize("spent", SPENT_SETS)
def test_chain_cost_is_the_engines_optimum(deck: Deck, spent: int) -> None:
    compiled = core.core_deck(deck)
    rng = random.Random(f"chains:{spent}")
    layouts = all_layouts(deck.n)
    assert len(layouts) == 110 * 24
    found = 0
    for missions in ([0], [1, 2], [2, 0, 3], [3, 1, 0, 2]):
        for start in rng.sample(layouts, 8):
            want = forward_chain(deck, missions, spent, start)
            assert _core.chain_cost(compiled, missions, spent, cells_xy(start)) == want, (missions, start)
            found += want is not None and want > 0
    assert found >= 24, found


@pytest.mark.parametrize("spent", SPENT_SETS)
def test_pair_costs_are_the_least_over_matching_layouts(deck: Deck, spent: int) -> None:
    compiled = core.core_deck(deck)
    pairs = _core.pair_costs(compiled, spent)
    layouts = all_layouts(deck.n)
    for a in range(len(MISSIONS)):
        sources = [c for c in layouts if deck.mission_pat[a].matches(c)]
        assert sources
        for b in range(len(MISSIONS)):
            # one breadth-first search from every layout matching a at once
            seen = set(sources)
            frontier, cost, want = list(sources), 0, None
            while frontier and want is None:
                if any(deck.mission_pat[b].matches(c) for c in frontier):
                    want = cost
                    break
                nxt = []
                for c in frontier:
                    for m in moves(deck, c, spent):
                        if m not in seen:
                            seen.add(m)
                            nxt.append(m)
                frontier, cost = nxt, cost + 1
            assert pairs[a][b] == want, (a, b, spent)
    assert any(v not in (None, 0) for row in pairs[:len(MISSIONS)] for v in row[:len(MISSIONS)])
