"""The core's exact move-only distance tables held to A* and to the engine.

* Per table, 1,000+ random layouts: the table's distance is what mission A* (tables
  off, every ability spent, or every one but the Sensor's, whose use only flips it
  and so changes its arrows, a bare budget of exactly that many points) finds, plan
  replayed through the rules engine; a layout the table says no move sequence (or more
  than ``CAP`` moves) can complete is proven unsolvable by A* at ``CAP`` points; a
  distance of 0 is the engine's own pattern match.  Specs: every arrow kind on both
  sides (spent sides move by other arrows), named, anonymous and must-be-empty cells.
* With the tables on (switched on at the first ask, ``ROVE_TABLES=eager``), A* gives
  the same optimal costs as with them off (``ROVE_TABLES=0``); in the slow suite the
  whole-deal search gives the same verdicts on 210 deals of three decks (test_core.py
  holds it, tables on, to an exhaustive walk); ``rove solve --json`` reports what the
  tables did.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import LAB_CARDS, TRIO_SPEC, card, mod, spec_text
from helpers import random_layout

from rove.engine import PLAYING, Deck, State, apply, state_from_position
from rove.generators.deals import deal
from rove.solve import core
from rove.solve.astar import solve_mission_state
from rove.solve.nodes import Budget, Limit
from rove.spec import load_spec

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")

#: layouts drawn per table
LAYOUTS = 1_000
#: points A* gets to prove a layout the table puts further away (or nowhere) unsolvable
CAP = 5

#: every arrow kind on the active sides and, by other kinds and directions, on the spent ones
KINDS = [
    mod("B", "brain", "brain", ("standard", ["orthogonal"]), spent=[("jump", ["all"])]),
    mod("L", "laser", "laser", ("short", ["all"]), spent=[("push", ["orthogonal"])]),
    mod("S", "sensor", "sensor", ("jump", ["orthogonal"]), spent=[("standard", ["diagonal"])]),
    mod("C", "coil", "coil", ("push", ["all"]), spent=[("short", ["orthogonal"])]),
    mod("G", "gripper", "gripper", ("standard", ["diagonal"]), spent=[("jump", ["diagonal"]), ("short", ["N"])]),
    mod("M", "motor", "motor", ("push", ["diagonal"]), ("short", ["orthogonal"]),
        spent=[("push", ["N", "E"]), ("standard", ["S"])]),
]

#: missions: named with must-be-empty cells, anonymous with must-be-empty cells, a line
MISSIONS = {
    "kinds": ["B _ C\n# . #", "_ # _\n# # #", "S\n#\n#\nG"],
    "standard": ["M _\n# L", "# _ #\n_ # _"],
}


def write_spec(root: Path, name: str, modules: list[dict] | None) -> Path:
    cards = [card(f"t{i}", mission=m) for i, m in enumerate(MISSIONS[name])] + LAB_CARDS
    path = root / f"{name}.yaml"
    path.write_text(spec_text(modules, cards, name=name), encoding="utf-8")
    return path


def bare(deck: Deck, cells: tuple[int, ...], mission: int, points: int, spent: int | None = None) -> State:
    """Every ability spent (or those of ``spent``), a bare budget of ``points``, no cards."""
    spent = (1 << deck.n) - 1 if spent is None else spent
    return State(cells, spent, (), (), (), -1, points, mission, 0, (), PLAYING, "mission")


def all_but_sensor(deck: Deck) -> int:
    """Every module spent but the Sensor."""
    return ((1 << deck.n) - 1) & ~(1 << deck.codes.index("S"))


#: (spec, mission, Sensor unspent) per table: one table of each spec and one with the
#: Sensor's free flip in the default suite (a table takes a few seconds to build and
#: 1,000 A* solves to check), the others in the slow one
TABLES = [
    ("kinds", 0, False), ("standard", 1, False), ("kinds", 2, True),
    *(pytest.param(name, m, sensor, marks=pytest.mark.slow)
      for name, m, sensor in (("kinds", 1, False), ("kinds", 2, False), ("standard", 0, False), ("kinds", 0, True))),
]


@pytest.mark.parametrize(("name", "mission", "sensor"), TABLES)
def test_tables_equal_mission_astar(name: str, mission: int, sensor: bool, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROVE_TABLES", "0")  # the A* this is compared with runs without tables
    spec = load_spec(write_spec(tmp_path, name, KINDS if name == "kinds" else None))
    deck = Deck(spec)
    compiled = core.core_deck(deck)
    spent = all_but_sensor(deck) if sensor else None
    rng = random.Random(f"tables:{name}:{mission}" + (":sensor" if sensor else ""))
    seen: dict[str, int] = {"zero": 0, "near": 0, "far": 0}
    flips = 0
    m = mission
    for _ in range(LAYOUTS):
        cells = random_layout(rng, deck.n, shift=3)
        d = core._core.table_distance(compiled, core.state_tuple(bare(deck, cells, m, 0, spent)))
        if d == 0:
            assert deck.mission_pat[m].matches(cells)
            seen["zero"] += 1
            continue
        assert not deck.mission_pat[m].matches(cells)
        points = CAP if d is None or d > CAP else d
        start = bare(deck, cells, m, points, spent)
        plan, _, _ = solve_mission_state(deck, start, Budget.of(None, 2_000_000))
        if points < (d or CAP + 1):
            assert plan is None, (name, m, cells, d)
            seen["far"] += 1
            continue
        assert plan is not None, (name, m, cells, d)
        assert sum(a.act == "move" for a in plan) == d, (name, m, cells, d, plan)
        flips += any(a.act == "ability" for a in plan)
        s = start
        for a in plan:
            s = apply(deck, s, a)
        assert s.done == 1
        seen["near"] += 1
    # matching layouts and layouts a few moves away were met in numbers; on the kinds
    # deck's first mission (jump, short and push arrows) layouts beyond CAP or nowhere too
    assert seen["zero"] >= 1 and seen["near"] >= 300, seen
    assert (name, mission) != ("kinds", 0) or seen["far"] >= 20, seen
    # with the Sensor unspent, some of the cheapest plans flip it on the way
    assert not sensor or flips > 0, seen


def test_tables_keep_astar_costs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the kinds deck, mission puzzles from random layouts and spent sets get the same
    optimal cost with the tables (switched on at the first ask, so that these small
    searches use them) as without.  (The whole-deal search with the tables is held to
    an exhaustive walk in test_core.py, and to itself without them below.)"""
    spec = load_spec(write_spec(tmp_path, "kinds", KINDS))
    deck = Deck(spec)
    rng = random.Random("tables:keep")
    for i in range(60):
        cells = random_layout(rng, deck.n, shift=3)
        spent = (1 << deck.n) - 1 if i % 2 else rng.getrandbits(deck.n)
        start = State(cells, spent, (), (), (), -1, rng.randint(1, 5), i % 3, 0, (), PLAYING, "mission")
        costs = []
        for flag in ("0", "eager"):
            monkeypatch.setenv("ROVE_TABLES", flag)
            plan, _, _ = solve_mission_state(deck, start, Budget.of(None, 2_000_000))
            costs.append(None if plan is None else
                         (sum(a.act == "move" for a in plan), sum(a.act == "ability" for a in plan)))
        assert costs[0] == costs[1], (cells, spent, costs)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["classic", "bench/decks/b01.yaml", "bench/decks/g11.yaml"])
def test_reference_switch_keeps_deal_verdicts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """70 deals of each of three decks (210 in all), every difficulty: the whole-deal
    search with the tables (switched on at the first ask) and without them
    (``ROVE_TABLES=0``) give the same verdict wherever both decide within the nodes."""
    root = Path(__file__).resolve().parents[1]
    spec = load_spec(name if name == "classic" else root / name)
    decided = 0
    for seed in range(70):
        p = deal(spec, seed, ("normal", "hard", "impossible")[seed % 3])
        d = Deck(spec, p.rules)
        start = state_from_position(d, p)
        verdicts = []
        for flag in ("0", "eager"):
            monkeypatch.setenv("ROVE_TABLES", flag)
            try:
                plan, _ = core.solve_game(d, start, Budget.of(None, 400_000), False, None, {})
                verdicts.append(plan is not None)
            except Limit:
                verdicts.append(None)
        if None not in verdicts:
            assert verdicts[0] == verdicts[1], (name, seed)
            decided += 1
    assert decided >= 30, decided  # b01 decides 33 within these nodes, g11 and classic more


def test_solve_json_reports_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`rove solve --json` says what the distance tables did: on the three-module deck
    with the tables on from the first ask, each table is built in a blink (a six-module
    one takes seconds), and the search asks them."""
    from typer.testing import CliRunner

    from rove.cli import app

    monkeypatch.setenv("ROVE_TABLES", "eager")
    spec, pos = tmp_path / "trio.yaml", tmp_path / "deal.yaml"
    spec.write_text(TRIO_SPEC, encoding="utf-8")
    r = CliRunner().invoke(app, ["deal", "--spec", str(spec), "--seed", "1", "--difficulty",
                                 "impossible", "-o", str(pos)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["solve", str(pos), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    stats = out["stats"]
    assert out["status"] == "solved", out
    assert stats["table_probes"] > 0 and 0 < stats["tables_built"] <= stats["tables_used"], out


def test_short_game_searches_and_the_book_switch_no_table_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole-deal search below ``GAME_TABLES_MIN_NODES`` switches no table on (a build
    costs more than such a search can save), one at or above it does, after the core's
    usual number of asks; ``ROVE_TABLES=eager`` (tests) keeps them on for any search, and
    inside ``tables_off`` (the book) no search has them."""
    monkeypatch.delenv("ROVE_TABLES", raising=False)
    usual = core.tables_after()
    assert usual > 1
    assert core._game_tables(Budget.of(None, core.GAME_TABLES_MIN_NODES - 1)) == 0
    assert core._game_tables(Budget.of(None, core.GAME_TABLES_MIN_NODES)) == usual
    with core.tables_off():
        assert core.tables_after() == 0
        assert core._game_tables(Budget.of(None, 10 * core.GAME_TABLES_MIN_NODES)) == 0
    assert core.tables_after() == usual
    monkeypatch.setenv("ROVE_TABLES", "eager")
    assert core._game_tables(Budget.of(None, 1_000)) == 1
    # a short deal search on the bundled deck that uses tables when told to (eager)
    # leaves them off by default: no distance is even asked for
    spec = load_spec("standard")
    pos = deal(spec, 1, "impossible")
    deck = Deck(spec, pos.rules)
    start = state_from_position(deck, pos)
    for env, nodes in (("eager", 2_000), (None, 200_000), ("0", 2_000)):
        if env is None:
            monkeypatch.delenv("ROVE_TABLES")
        else:
            monkeypatch.setenv("ROVE_TABLES", env)
        stats: dict[str, int] = {}
        try:
            core.solve_game(deck, start, Budget.of(None, nodes), False, None, stats)
        except Limit:
            pass
        if env == "0":  # off, nothing is reported: there were no tables to ask
            assert "tables_used" not in stats and "table_probes" not in stats, stats
        elif env is None:  # still reported, as zeros: the JSON's fields do not depend on the limit
            assert stats["table_probes"] == stats["tables_used"] == stats["tables_built"] == 0, stats
        else:
            assert stats["tables_used"] > 0, stats
