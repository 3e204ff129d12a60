"""The zero-point walk (``rove.solve.closure``, the core's ``closure`` module) held to A*.

* On the bundled deck and on a g35-like bench deck, for every mission from several
  start arrangements: wherever the walk settles a mission, its (points, cards,
  abilities) is the core A*'s optimum, and the pure-Python A*'s on a sample; its plan
  replays through the engine and completes the mission.  Where it does not, A* finds
  that the optimum needs a point or a card (the walk ran out of states), or the
  walk stopped first.
* A deck whose abilities cannot move a module: nothing is settled, everything is A*'s.
* The node limit stops the walk, and what it found by then is still exact.
* ``rove check``'s static figures are the same with the walk as with A* alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TRIO_SPEC

from rove.check import CheckOptions, run_check
from rove.check import run as check_run
from rove.check.options import start_arrangements
from rove.engine import Deck, state_from_position
from rove.position import Position
from rove.replay import replay
from rove.solve import closure, core
from rove.solve.astar import solve_mission_python
from rove.solve.nodes import Budget
from rove.solve.result import plan_cost
from rove.solve.search import solve
from rove.spec import Spec, load_spec

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")

ROOT = Path(__file__).resolve().parents[1]
G35 = ROOT / "bench" / "decks" / "g35.yaml"


def start_positions(spec: Spec, arrangement: tuple[str, ...]) -> list[Position]:
    return [check_run._start_position(spec, arrangement, card.id, frozenset()) for card in spec.cards]


@pytest.mark.parametrize(("ref", "starts"), [
    ("standard", 2), (str(G35), 2),
    pytest.param("standard", 12, marks=pytest.mark.slow), pytest.param(str(G35), 12, marks=pytest.mark.slow),
])
def test_walk_gives_the_astar_optimum(ref: str, starts: int) -> None:
    spec = load_spec(ref)
    settled = left = python_checked = 0
    for arrangement in start_arrangements(spec, starts, 0):
        positions = start_positions(spec, arrangement)
        walk = closure.solve_zero_point(positions, 1_000_000)
        assert walk.nodes > 0
        for pos, r in zip(positions, walk.results):
            best = solve(pos, max_nodes=1_000_000)
            assert best.status == "solved" and best.plan is not None
            best_cost = plan_cost(best.plan)
            if r is None:
                left += 1
                # the walk does not stop before settling everything within 1,000,000
                # nodes here, so a mission it leaves needs a point or a card
                # (or matches at the start); a walk that ran out of states without a
                # zero-point plan A* then finds would be a wrong verdict
                assert best_cost[:2] != (0, 0) or best.plan == (), (pos.mission, best_cost, walk.exhausted)
                continue
            settled += 1
            assert r.plan is not None and r.status == "solved" and r.optimal
            assert plan_cost(r.plan) == best_cost == (0, 0, r.abilities), (pos.mission, best_cost)
            assert (r.points, r.cards) == (0, 0)
            done = replay(pos, list(r.plan))
            assert done.first_illegal is None and done.goal_reached
            if python_checked < 2 and r.abilities == 2:  # the pure-Python A* (slow) on two
                deck = Deck(pos.spec, pos.rules)
                py = solve_mission_python(deck, state_from_position(deck, pos), Budget.of(None, 200_000))
                assert py.plan is not None and plan_cost(py.plan) == best_cost
                python_checked += 1
    assert settled >= starts * 6 and python_checked == 2, (settled, left)


def test_missions_out_of_zero_point_reach_are_left_to_astar(tmp_path: Path) -> None:
    """Trio: with Motor spent, Brain and Laser make the Step and the Hook from a row at no
    point, not the Tower nor the Ladder; with Laser spent too, nothing at all."""
    path = tmp_path / "trio.yaml"
    path.write_text(TRIO_SPEC, encoding="utf-8")
    spec = load_spec(path)
    for spent, want in ((frozenset({"M"}), [None, 2, 2, None]), (frozenset({"L", "M"}), [None] * 4)):
        positions = [check_run._start_position(spec, ("B", "L", "M"), card.id, spent) for card in spec.cards]
        walk = closure.solve_zero_point(positions, 100_000)
        assert walk.exhausted
        assert [None if r is None else r.abilities for r in walk.results] == want
        for pos, r in zip(positions, walk.results):
            best = solve(pos, max_nodes=100_000)
            assert best.plan is not None
            cost = plan_cost(best.plan)
            # left to A*: the optimum spends a point; settled: A*'s optimum
            assert cost[0] > 0 if r is None else cost == (0, 0, r.abilities), (pos.mission, cost)


def test_without_the_core_nothing_is_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_spec("standard")
    positions = start_positions(spec, start_arrangements(spec, 1, 0)[0])
    monkeypatch.setenv("ROVE_CORE", "0")
    walk = closure.solve_zero_point(positions, 100_000)
    assert walk.results == [None] * len(positions) and walk.nodes == 0


def test_the_node_limit_stops_the_walk_with_exact_finds() -> None:
    spec = load_spec(str(G35))
    positions = start_positions(spec, start_arrangements(spec, 1, 0)[0])
    full = closure.solve_zero_point(positions, 1_000_000)
    found = [r for r in full.results if r is not None]
    assert len(found) >= 6
    deepest = max(r.abilities or 0 for r in found)
    assert deepest >= 2
    # two nodes: the start and one state of level 1 are expanded, so only missions one
    # ability away can be found
    small = closure.solve_zero_point(positions, 2)
    assert small.nodes == 2 and not small.exhausted
    for r, whole in zip(small.results, full.results):
        if r is not None:
            assert whole is not None and r.abilities == whole.abilities == 1
    assert sum(r is not None for r in small.results) < len(found)


@pytest.mark.parametrize("ref", ["trio", pytest.param("standard", marks=pytest.mark.slow)])
def test_check_figures_are_the_same_with_and_without_the_walk(ref: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    if ref == "trio":
        ref = str(tmp_path / "trio.yaml")
        Path(ref).write_text(TRIO_SPEC, encoding="utf-8")
    spec = load_spec(ref)
    options = CheckOptions(deals=0, starts=12)
    walks: list[closure.Walk] = []
    real = closure.solve_zero_point

    def counted(positions: list[Position], max_nodes: int, time_limit: float | None = None) -> closure.Walk:
        walks.append(real(positions, max_nodes, time_limit))
        return walks[-1]

    monkeypatch.setattr(closure, "solve_zero_point", counted)
    walked = run_check(spec, options).to_json(timing=False)
    settled = [r for w in walks for r in w.results if r is not None]
    assert len(walks) == walked["mission_costs"]["arrangements"] and settled

    def no_walk(positions: list[Position], max_nodes: int, time_limit: float | None = None) -> closure.Walk:
        return closure.Walk([None] * len(positions), 0, False)

    monkeypatch.setattr(closure, "solve_zero_point", no_walk)
    by_astar = run_check(spec, options).to_json(timing=False)
    for key in ("mission_costs", "points", "checks"):
        assert json.dumps(walked[key]) == json.dumps(by_astar[key]), key
    # not a trivial agreement: the walk settled missions at several levels
    assert len({r.abilities for r in settled}) >= 2
