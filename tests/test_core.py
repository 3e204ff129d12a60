"""The compiled core (``rove._core``) held to the rules engine.

* Property: on random states of four specs that together use every arrow kind on both
  sides (spent sides with other arrows too), must-be-empty and anonymous patterns, every
  ability and every rule option, the core generates exactly the engine's successors,
  action for action, state for state, in the same order (with and without no-ops); its
  heuristic gives the Python heuristic's bounds.
* Differential: with the distance tables off (``ROVE_TABLES=0``, ``reference``), the
  core's A* and the pure-Python A* expand the same nodes and return the same plan on
  random mission puzzles (hence the same optimum; the product path's
  agreement with the plain uniform-cost baseline is tested in test_search.py and
  test_search_cards.py, which now run on the core); the core's game searches give the
  verdict of an exhaustive walk of every legal action on whole deals of a small deck,
  each search on its own (with the tables on, as the product runs), and the same
  verdicts and node counts as the Python searches (tables off).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import CLASSIC, classic_data, flow_data
from helpers import random_mission_puzzle

from rove.engine import GOAL, LOST, PLAYING, WON, Deck, State, state_from_position, successors
from rove.generators.deals import deal
from rove.rules import OPTIONS, Rules
from rove.solve import astar, core
from rove.solve.astar import solve_mission_python, solve_mission_state
from rove.solve.heuristic import Heuristic
from rove.solve.nodes import Budget, Limit, canonical_key
from rove.solve.winnable import solve_game_python
from rove.spec import load_spec

# conftest.py stops a run without the core unless it asks for the Python path
pytestmark = pytest.mark.skipif(os.environ.get("ROVE_CORE") == "0",
                                reason="ROVE_CORE=0: this run tests the pure-Python path only")

KINDS = ("standard", "variant", "flow", "empties")


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Four decks: the bundled one; a variant whose spent sides move by other arrows (so
    flips matter) with a second Gripper that pushes; "flow", whose easy missions make
    random play complete missions, recycle, win and lose; "empties", with must-be-empty
    cells and anonymous patterns on both sides of the cards."""
    root = tmp_path_factory.mktemp("core-specs")
    base = classic_data()
    out = {"standard": CLASSIC}

    variant = json.loads(json.dumps(base))
    variant["name"], variant["missions_to_win"] = "variant", 3
    spent = {"L": [{"kind": "short", "dirs": ["orthogonal"]}],
             "S": [{"kind": "jump", "dirs": ["all"]}, {"kind": "push", "dirs": ["N"]}],
             "B": [{"kind": "push", "dirs": ["diagonal"]}],
             "C": [{"kind": "standard", "dirs": ["N", "S"]}],
             "G": [{"kind": "jump", "dirs": ["orthogonal"]}],
             "M": [{"kind": "short", "dirs": ["all"]}, {"kind": "standard", "dirs": ["W"]}]}
    for m in variant["modules"]:
        m["spent_arrows"] = spent[m["code"]]
    variant["modules"].append({"id": "hand", "code": "H", "name": "Hand", "ability": "gripper",
                               "arrows": [{"kind": "push", "dirs": ["diagonal"]}]})

    flow = flow_data()

    empties = json.loads(json.dumps(base))
    empties["name"], empties["missions_to_win"] = "empties", 4
    missions = ["B _\n# #", "# # _", "_ S\n# #", "#\n#\n_", "C _ #", "# #\n_ G",
                "_ #\n# _", "M # _", "# _\n# #", "L\n_\n#", "# # #\n_ . .", "_ G #"]
    moves = ["# _", "_\n#\n#", "# # _", "#\n_", "_ # #", "# _ #"]
    for i, c in enumerate(empties["cards"]):
        c["mission"]["pattern"] = missions[i]
        c["movement"] = {"points": i % 3, "bonus": 2 + i % 3, "pattern": moves[i % 6]}

    for name, data in (("variant", variant), ("flow", flow), ("empties", empties)):
        path = root / f"{name}.yaml"
        path.write_text(json.dumps(data), encoding="utf-8")
        out[name] = path
    return out


def random_rules(rng: random.Random) -> Rules:
    return Rules(**{name: rng.choice(values) for name, values in OPTIONS.items()})


def engine_successors(deck: Deck, s: State, include_noops: bool) -> list:
    return list(successors(deck, s, include_noops))


def compare(deck: Deck, s: State, h: Heuristic) -> None:
    for include_noops in (False, True):
        want = engine_successors(deck, s, include_noops)
        got = core.successors(deck, s, include_noops)
        assert got == want, f"successors differ from the engine's on {s}"
    if s.status == PLAYING:
        assert core.estimate(deck, s) == (*h.estimate(s), h.points_obtainable(s)), s


def walk_states(deck: Deck, start: State, rng: random.Random, steps: int) -> list[State]:
    """A random walk, with now and then a random spent set or a bare budget, so that
    flips, abilities and card plays are met in many combinations."""
    out = [start]
    s = start
    for _ in range(steps):
        options = [s2 for _, s2 in successors(deck, s, include_noops=rng.random() < 0.3)]
        if not options:
            break
        s = rng.choice(options)
        if s.status == PLAYING and rng.random() < 0.15:
            s = State(s.cells, rng.getrandbits(deck.n), s.hand, s.draw, s.discard, s.card,
                      s.points if s.card >= 0 else rng.randint(0, 4), s.mission, s.done,
                      s.completed, s.status, s.goal)
        out.append(s)
        if s.status != PLAYING:
            break
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_core_successors_are_the_engines(specs: dict[str, Path], kind: str) -> None:
    """2,600+ random states per spec (10,000+ in all), every rule option drawn at random."""
    spec = load_spec(specs[kind])
    rng = random.Random(f"core:{kind}")
    seen = 0
    statuses: set[str] = set()
    abilities: set[str] = set()
    seed = 0
    while seen < 2_600:
        rules = random_rules(rng)
        pos = deal(spec, seed, rng.choice(["normal", "hard", "impossible"]), rules=rules)
        seed += 1
        deck = Deck(spec, rules)
        h = Heuristic(deck)
        start = state_from_position(deck, pos)
        if rng.random() < 0.3:  # a mission puzzle: a bare budget, no piles
            start = State(start.cells, start.spent, start.hand[:rng.randint(0, 2)], (), (), -1,
                          rng.randint(0, 5), start.mission, 0, (), start.status, "mission")
        for s in walk_states(deck, start, rng, rng.randint(5, 60)):
            compare(deck, s, h)
            seen += 1
            statuses.add(s.status)
            abilities.update(a.module for a, _ in successors(deck, s) if a.act == "ability")
    assert PLAYING in statuses and (GOAL in statuses or WON in statuses or LOST in statuses)
    assert abilities == set(deck.codes), "every ability was generated"


@pytest.mark.parametrize("kind", ["standard", "empties"])
def test_core_astar_is_the_python_astar(specs: dict[str, Path], kind: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Same verdict, same plan and the same node count (or the same node at which the
    limit stops both) on 60 random mission puzzles per spec, with the core's distance
    tables off (the Python search has none; test_tables.py holds the tables to A*)."""
    monkeypatch.setenv("ROVE_TABLES", "0")
    spec = load_spec(specs[kind])
    decided = 0
    for seed in range(60):
        p = random_mission_puzzle(spec, seed, max_budget=4, keep_hand=seed % 3 == 0)
        deck = Deck(spec, p.rules)
        start = state_from_position(deck, p)
        answers = []
        for fn in (solve_mission_python, solve_mission_state):
            budget = Budget.of(None, 1_000)
            try:
                plan, _, nodes = fn(deck, start, budget)
                answers.append((plan, nodes, budget.nodes))
            except Limit:
                answers.append(("limit", budget.nodes))
        assert answers[0] == answers[1], (seed, answers)
        decided += answers[0][0] != "limit"
    assert decided >= 40


def test_core_game_search_is_the_python_search() -> None:
    """Whole deals of the classic deck: the portfolio gives the same plan and spends the
    same nodes in both, at every difficulty, within node limits that stop some."""
    spec = load_spec("classic")
    outcomes = set()
    for seed in range(15):
        p = deal(spec, seed, ("normal", "hard", "impossible")[seed % 3])
        deck = Deck(spec, p.rules)
        start = state_from_position(deck, p)
        answers = []
        for python in (True, False):
            budget = Budget.of(None, 300 + 200 * (seed % 4))
            stats: dict[str, object] = {}
            try:
                if python:
                    plan, optimal = solve_game_python(deck, start, budget, stats=stats)
                else:
                    plan, optimal = core.solve_game(deck, start, budget, False, None, stats,
                                                        reference=True)
                answers.append((plan, optimal, budget.nodes, stats))
            except Limit:
                answers.append(("limit", budget.nodes, stats))
        assert answers[0] == answers[1], seed
        outcomes.add(answers[0][0] == "limit")
    assert outcomes == {True, False}


def test_core_game_searches_agree_with_a_full_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each search of the portfolio, on its own, gives the verdict of an exhaustive walk
    on whole deals of a three-module deck, with the distance tables switched on at the
    first ask (so that they prune these small searches too); every win replays to a win."""
    monkeypatch.setenv("ROVE_TABLES", "eager")
    from test_search_cards import GAME_SPEC, winnable_by_walk

    from rove.replay import replay

    path = tmp_path / "game.yaml"
    path.write_text(GAME_SPEC, encoding="utf-8")
    spec = load_spec(path)
    verdicts: dict[str, set[bool]] = {"greedy": set(), "deepening": set()}
    for seed in range(150):
        p = deal(spec, seed, ("normal", "hard", "impossible")[seed % 3])
        deck = Deck(spec, p.rules)
        start = state_from_position(deck, p)
        truth = winnable_by_walk(deck, start)
        for strategy in verdicts:
            plan, _ = core.solve_game(deck, start, Budget.of(None, 200_000), False, None, {},
                                      strategy=strategy)
            assert (plan is not None) == truth, (seed, strategy)
            verdicts[strategy].add(bool(truth))
            if plan is not None:
                assert replay(p, plan).final.status == WON
    assert verdicts == {"greedy": {True, False}, "deepening": {True, False}}


def test_product_searches_keep_every_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the product's game search adds to the reference algorithm, the lost tables'
    dominance (fewer spent modules, more points on the same card, more allowance) and
    the distance tables (switched on at the first ask here),
    never turns a win into a loss: on whole deals of the three-module deck, and of a
    variant whose Brain moves by other arrows once spent (so its spent bit may not be
    dominated), under random rule options, each search and the portfolio give the
    exhaustive walk's verdict; every win replays."""
    from test_search_cards import GAME_SPEC, winnable_by_walk

    from rove.replay import replay

    variant = GAME_SPEC.replace(
        "arrows: [{kind: short, dirs: [E, W]}]}",
        "arrows: [{kind: short, dirs: [E, W]}], spent_arrows: [{kind: short, dirs: [N, S]}]}")
    assert variant != GAME_SPEC
    monkeypatch.setenv("ROVE_TABLES", "eager")
    rng = random.Random(7)
    verdicts: set[bool] = set()
    tables_used = 0
    for name, text in (("game", GAME_SPEC), ("flip", variant)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        spec = load_spec(path)
        for seed in range(60):
            rules = Rules(**{k: rng.choice(v) for k, v in OPTIONS.items()})
            p = deal(spec, seed, ("normal", "hard", "impossible")[seed % 3], rules=rules)
            deck = Deck(spec, p.rules)
            start = state_from_position(deck, p)
            truth = winnable_by_walk(deck, start)
            assert truth is not None
            verdicts.add(truth)
            for strategy in ("greedy", "deepening", "portfolio"):
                stats: dict[str, int] = {}
                plan, _ = core.solve_game(deck, start, Budget.of(None, 200_000), False, None, stats,
                                          strategy=strategy)
                tables_used += stats["tables_used"]
                assert (plan is not None) == truth, (name, seed, strategy, rules)
                if plan is not None:
                    assert replay(p, plan).final.status == WON
    assert verdicts == {True, False}
    assert tables_used > 100  # the tables took part


def test_a_deck_copy_with_other_points_compiles_its_own_points() -> None:
    """The core compiles the engine's own tables, so the book's base-points-only copy of
    a deck (``helpers.without_bonus``, a shallow copy made after the original was
    compiled) plays with base points in the core too."""
    from helpers import without_bonus

    spec = load_spec("classic")
    deck = Deck(spec)
    start = state_from_position(deck, deal(spec, 0))
    core.successors(deck, start)  # compiles and keeps the original
    base_only = without_bonus(deck)
    for d in (deck, base_only):
        assert core.successors(d, start) == engine_successors(d, start, False)
    assert core.successors(base_only, start) != core.successors(deck, start)


def dealt_mission_starts(spec_ref: str, seeds: range, missions: int) -> list[tuple[Deck, State]]:
    """The state at the start of each of a deal's first missions, each mission played by
    the core's optimal plan: hands, piles and a Sensor still to use, as the expert and
    the seer meet them (random mission puzzles rarely have all three)."""
    spec = load_spec(spec_ref)
    out = []
    for seed in seeds:
        for difficulty in ("normal", "impossible"):
            pos = deal(spec, seed, difficulty)
            deck = Deck(pos.spec, pos.rules)
            s = state_from_position(deck, pos)
            for _ in range(missions):
                if s.status != PLAYING:
                    break
                out.append((deck, s))
                try:
                    solution = solve_mission_state(deck, s, Budget.of(None, 20_000))
                except Limit:
                    break
                if solution.state is None:
                    break
                s = solution.state
    return out


def test_core_astar_is_the_python_astar_in_dealt_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Same plan and nodes mid-game, where A*'s card rules act: a card played over an
    unused one (``nodes.wasted_play``) and keys without the discard pile while no draw
    can reach it (``nodes.mission_key``)."""
    monkeypatch.setenv("ROVE_TABLES", "0")
    starts = dealt_mission_starts("standard", range(2, 4), 3)
    assert len(starts) >= 8

    def answer(fn: Any, deck: Deck, s: State) -> tuple[Any, ...]:
        budget = Budget.of(None, 2_000)
        try:
            plan, _, nodes = fn(deck, s, budget)
            return plan, nodes, budget.nodes
        except Limit:
            return "limit", budget.nodes

    decided = []
    for deck, s in starts:
        python = answer(solve_mission_python, deck, s)
        assert python == answer(solve_mission_state, deck, s)
        if python[0] != "limit":
            decided.append((deck, s))
    # the rules act here: without them, some of these searches run out
    monkeypatch.setattr(astar, "wasted_play", lambda deck, s, fresh: False)
    monkeypatch.setattr(astar, "mission_key", lambda deck, s: canonical_key(s, True))
    assert any(answer(solve_mission_python, deck, s)[0] == "limit" for deck, s in decided)
