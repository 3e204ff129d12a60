"""The searches against unpruned oracles on small decks: A* against the plain baseline on
positions built to stress the card rules, and the game search against an exhaustive
walk of every legal action on whole deals.

The deals of the classic deck rarely empty the piles, so Sensor draws that recycle a
card just spent, a current card with points left, bare budgets and small hands hardly
occur in the other agreement tests.  Here the positions are built at random from a small
deck: a layout from random play, the cards spread over hand, piles, the current card
and out of play, both piles empty seven times in ten, and most abilities spent but the
Sensor's.  The baseline (uniform-cost search, no heuristic, no pruning) is the oracle;
every A* pruning must leave status and cost alone.  (The range holds a position that the
points bound once pruned wrongly: a card spent, drawn back by the Sensor and paid again.)
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers import random_play

from rove.engine import PLAYING, WON, Deck, State, state_from_position, successors, unpack
from rove.generators.deals import deal
from rove.position import Position, layout_text, normalized_cells, parse_position
from rove.replay import verify_plan
from rove.solve.result import UNKNOWN
from rove.solve.search import solve
from rove.spec import load_spec

SPEC = """\
format: rove-spec/1
name: Cards
missions_to_win: 3
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: sensor, code: S, name: Sensor, ability: sensor, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: gripper, code: G, name: Gripper, ability: gripper, arrows: [{kind: short, dirs: [all]}]}
  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}]}
cards:
  - {id: k1, mission: {title: A, pattern: "B #\\n. #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k2, mission: {title: B, pattern: "S\\n#\\n#"}, movement: {points: 1, bonus: 3, pattern: "#\\n#"}}
  - {id: k3, mission: {title: C, pattern: "G . #"}, movement: {points: 2, bonus: 3, pattern: "# . #"}}
  - {id: k4, mission: {title: D, pattern: "# M"}, movement: {points: 0, bonus: 2, pattern: "# #\\n# #"}}
  - {id: k5, mission: {title: E, pattern: "# . .\\n. . B"}, movement: {points: 1, bonus: 2, pattern: "# # # #"}}
"""


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cards") / "cards.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return path


def built_position(spec_path: Path, seed: int) -> Position:
    """A mission position with the cards spread at random (see the module docstring)."""
    spec = load_spec(spec_path)
    rng = random.Random(seed)
    start = deal(spec, seed)
    deck = Deck(spec, start.rules)
    s = random_play(deck, state_from_position(deck, start), rng, rng.randint(0, 10))
    cells = normalized_cells({deck.codes[i]: unpack(c) for i, c in enumerate(s.cells)})
    cards = [c.id for c in spec.cards]
    rng.shuffle(cards)
    mission = cards.pop()
    hand: list[str] = []
    draw: list[str] = []
    discard: list[str] = []
    current: dict[str, object] | None = None
    for c in cards:
        r = rng.random()
        empty = rng.random() < 0.7
        if r < 0.35 and len(hand) < 2:
            hand.append(c)
        elif r < 0.5 and not empty:
            draw.append(c)
        elif r < 0.65 and not empty:
            discard.append(c)
        elif r < 0.8 and current is None:
            current = {"card": c, "points": rng.randint(1, 2)}
    if current is None and rng.random() < 0.5:
        current = {"card": None, "points": rng.randint(0, 2)}
    codes = list(spec.codes)
    if rng.random() < 0.7:
        spent = [c for c in codes if c != "S" and rng.random() < 0.85]
    else:
        spent = [c for c in codes if rng.random() < 0.5]
    data = {"format": "rove-position/1", "spec": str(spec_path), "goal": "mission",
            "layout": layout_text(cells), "spent": spent, "mission": mission, "hand": hand,
            "draw": draw, "discard": discard, "current": current,
            "rules": {"recycle": rng.choice(["on_demand", "when_empty"])}}
    return parse_position(json.dumps(data), f"<seed {seed}>", None)


# the first hundred seeds in the default run (about 35 s on one core), all four hundred in
# the slow one
@pytest.mark.parametrize("start", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in (100, 200, 300))])
def test_astar_agrees_with_baseline_on_card_corners(spec_path: Path, start: int) -> None:
    mismatches = []
    decided = 0
    for seed in range(start, start + 100):
        p = built_position(spec_path, seed)
        a = solve(p, max_nodes=20_000)
        b = solve(p, max_nodes=20_000, method="bfs")
        if UNKNOWN in (a.status, b.status):
            continue
        decided += 1
        got = [(r.status, r.points, r.cards, r.abilities) for r in (a, b)]
        if got[0] != got[1]:
            mismatches.append((seed, *got))
        for r in (a, b):
            if r.plan is not None:
                assert verify_plan(p, list(r.plan)).goal_reached
    assert not mismatches, f"(seed, A*, baseline): {mismatches}"
    assert decided >= 95


GAME_SPEC = """\
format: rove-spec/1
name: Game
missions_to_win: 2
modules:
  - {id: sensor, code: S, name: Sensor, ability: sensor, arrows: [{kind: short, dirs: [orthogonal]}]}
  - {id: gripper, code: G, name: Gripper, ability: gripper, arrows: [{kind: short, dirs: [all]}]}
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: short, dirs: [E, W]}]}
cards:
  - {id: k1, mission: {title: A, pattern: "B\\n#"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k2, mission: {title: B, pattern: "S . #"}, movement: {points: 0, bonus: 1, pattern: "#\\n#"}}
  - {id: k3, mission: {title: C, pattern: "# G"}, movement: {points: 1, bonus: 2, pattern: "# . #"}}
  - {id: k4, mission: {title: D, pattern: "#\\n.\\n#"}, movement: {points: 0, bonus: 2, pattern: "# # #"}}
  - {id: k5, mission: {title: E, pattern: "# . B"}, movement: {points: 1, bonus: 3, pattern: "G S"}}
"""


def winnable_by_walk(deck: Deck, start: State, limit: int = 300_000) -> bool | None:
    """Every legal action from every state reached, once each: True when a win is found,
    False when none is left (the deck is small, so the walk ends), None past ``limit``."""
    seen: set[State] = set()
    stack = [start]
    while stack:
        s = stack.pop()
        if s.status == WON:
            return True
        if s.status != PLAYING or s in seen:
            continue
        seen.add(s)
        if len(seen) > limit:
            return None
        stack.extend(s2 for _, s2 in successors(deck, s) if s2 not in seen)
    return False


# deals 0-44 exercise every verdict of both searches (about 20 s on one core); the slow run
# takes deals 45-299 (a few minutes)
@pytest.mark.parametrize("seeds", [range(0, 45), pytest.param(range(45, 300), marks=pytest.mark.slow)],
                         ids=["0-44", "45-299"])
def test_game_searches_agree_with_a_full_walk(tmp_path: Path, seeds: range) -> None:
    """Whole deals of a three-module deck at every difficulty.  Each of the two searches
    the portfolio runs, on its own (on a deck this small the greedy dive alone would
    decide everything), gives the walk's verdict: the greedy dive through every action,
    and the mission-by-mission search (deepening on points, lost tables, points bounds).
    Every win replays through the engine.  A search stopped by its node limit says
    nothing; a wrong cut shows as a None (\"lost\") on a deal the walk wins."""
    from rove.replay import replay
    from rove.solve.nodes import Budget, Limit
    from rove.solve.winnable import INF, _GameSearch

    path = tmp_path / "game.yaml"
    path.write_text(GAME_SPEC, encoding="utf-8")
    spec = load_spec(path)
    wrong = []
    decided: dict[str, set[bool]] = {"run": set(), "win_from": set()}
    for seed in seeds:
        p = deal(spec, seed, ("normal", "hard", "impossible")[seed % 3])
        deck = Deck(spec, p.rules)
        start = state_from_position(deck, p)
        truth = winnable_by_walk(deck, start)
        assert truth is not None
        for name in decided:
            search = _GameSearch(deck, Budget.of(None, 3_000), None)
            try:
                plan = search.run(start, INF) if name == "run" else search.win_from(start)
            except Limit:
                continue
            decided[name].add(truth)
            if (plan is not None) != truth:
                wrong.append((seed, name, truth))
            elif plan is not None:
                assert replay(p, plan).final.status == WON
    assert wrong == []
    assert decided == {"run": {True, False}, "win_from": {True, False}}  # every verdict exercised


# A position from one of the expert's games on bench/decks/t35.yaml (seed 1, deal 3 at
# normal, its second mission): four abilities spent, a full hand, no current card.
AFTER_A_PLAY = """\
format: rove-position/1
spec: {spec}
goal: mission
layout: |
  S
  B
  . L
  . C
  . . G
  . . . M
spent: [B, C, G, L]
missions_done: 1
completed: [c08]
mission: c04
hand: [c09, c05, c03, c01, c12]
draw: [c07]
discard: []
current: null
"""


@pytest.mark.parametrize(("bounds", "nodes"), [((True, True), 16), ((False, True), 40), ((True, False), 20),
                                               ((False, False), 44)])
def test_bounds_on_points_and_cards_keep_the_optimum(monkeypatch: pytest.MonkeyPatch, bounds: tuple[bool, bool],
                                                     nodes: int) -> None:
    """A*'s bounds on what a state still needs, a point on a path that played a card and
    made no move since (``nodes.played_for_a_move``) and a card when the points needed
    are more than the current card holds (``nodes.cards_needed``), each spare Python's
    A* nodes on a position where plays and abilities reach many states at the cheapest
    points, and find the same plan as without them."""
    from rove.solve import astar
    from rove.solve.nodes import Budget

    if not bounds[0]:
        monkeypatch.setattr(astar, "played_for_a_move", lambda estimate, fresh: estimate)
    if not bounds[1]:
        monkeypatch.setattr(astar, "cards_needed", lambda points, s: 0)
    spec = Path(__file__).resolve().parents[1] / "bench" / "decks" / "t35.yaml"
    p = parse_position(AFTER_A_PLAY.format(spec=spec), "<t35 deal 3>", None)
    deck = Deck(p.spec, p.rules)
    r = astar.solve_mission_python(deck, state_from_position(deck, p), Budget(float("inf"), 10_000))
    assert r.plan is not None and [str(a) for a in r.plan] == ["play c09-", "M NW3", "M shift C E"]
    assert r.nodes == nodes
    assert verify_plan(p, r.plan).goal_reached
