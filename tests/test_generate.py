"""`rove generate missions`: the CEGAR mission generator and its pattern model.

The generated sequence is checked from the outside: every mission re-solves to its stated
cost from its stated start (search engine), the plan replays, the next mission starts
where the plan ends, no two patterns are alike, each is one piece of 3-6 cells with one
named module, and the written spec validates and prints.  The pattern model is checked
on layouts where the answer is known by hand (a horizon of 0: only the start's layout).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rove.cli import app
from rove.engine import Deck, state_cells, state_from_position
from rove.generators.deals import start_layout
from rove.generators.missions import (
    GenerationFailed,
    Settings,
    _position,
    _unmatchable,
    generate_missions,
    movement_only,
    ramp,
    with_mission,
)
from rove.grid import connected
from rove.replay import verify_plan
from rove.solve.search import solve as solve_search
from rove.spec import ANY, Pattern, load_spec

runner = CliRunner()
SPEC = load_spec("classic")
#: a safety net against a search that runs away, in nodes (no verdict depends on the clock)
SAFETY_NODES = 2_000_000
SMALL = Settings(count=3, min_cost=1, max_cost=3, seed=4)


@pytest.fixture(scope="module")
def campaign():
    return generate_missions(SPEC, SMALL)


# --------------------------------------------------------------------------- the sequence


def test_each_mission_costs_what_it_says_from_where_the_last_one_ended(campaign) -> None:
    play = movement_only(SPEC)
    cells = start_layout(SPEC.codes)
    assert len(campaign.missions) == SMALL.count
    for m in campaign.missions:
        assert dict(m.start) == cells
        assert SMALL.min_cost <= m.cost <= SMALL.max_cost
        pos = _position(with_mission(play, m.pattern), cells, SMALL.max_cost)
        r = solve_search(pos, max_nodes=SAFETY_NODES)
        assert r.status == "solved" and r.points == m.cost
        # the stated plan is optimal too, and the next start is where it ends
        rep = verify_plan(pos, list(m.plan))
        assert sum(a.act == "move" for a in m.plan) == m.cost
        assert all(a.act == "move" for a in m.plan)  # movement only: no ability, no card
        end = state_cells(rep.deck, rep.final)
        xs, ys = [x for x, _ in end.values()], [y for _, y in end.values()]
        cells = {c: (x - min(xs), y - min(ys)) for c, (x, y) in end.items()}
        # one cheaper budget does not reach it (the bound the CP-SAT proof also gives)
        if m.cost:
            cheaper = _position(with_mission(play, m.pattern), dict(m.start), m.cost - 1)
            assert solve_search(cheaper, max_nodes=SAFETY_NODES).status == "unsolvable"


def test_patterns_are_new_single_pieces_with_one_named_module(campaign) -> None:
    keys = set()
    for m in campaign.missions:
        assert 3 <= m.pattern.size <= 6
        assert len(m.pattern.named) == 1 and not m.pattern.empty
        assert connected(m.pattern.occupied)
        keys.add(m.pattern.normalized())
    assert len(keys) == len(campaign.missions)
    kept = {c.mission.pattern.normalized() for c in SPEC.cards[SMALL.count:]}
    assert not keys & kept


def test_costs_ramp_from_min_to_max() -> None:
    assert ramp(Settings(count=7, min_cost=2, max_cost=5)) == [2, 3, 3, 4, 4, 5, 5]
    assert ramp(Settings(count=1, min_cost=3, max_cost=6)) == [3]
    assert ramp(Settings(count=3, min_cost=4, max_cost=4)) == [4, 4, 4]


def test_output_spec_keeps_modules_and_movements(campaign) -> None:
    out = campaign.spec
    assert out.modules == SPEC.modules
    assert [c.movement for c in out.cards] == [c.movement for c in SPEC.cards]
    assert [c.mission.pattern for c in out.cards[:3]] == [m.pattern for m in campaign.missions]
    assert out.cards[3:] == SPEC.cards[3:]
    assert len({c.mission.title for c in out.cards}) == len(out.cards)


def test_options_are_checked() -> None:
    assert Settings(min_cost=3, max_cost=2).problems(SPEC)
    assert Settings(count=0).problems(SPEC)
    assert Settings(max_cost=13).problems(SPEC)
    assert not Settings().problems(SPEC)
    with pytest.raises(ValueError):
        generate_missions(SPEC, Settings(min_cost=5, max_cost=4))


def test_a_deck_that_cannot_move_is_proven_to_have_no_mission() -> None:
    frozen = replace(SPEC, modules=tuple(replace(m, arrows=(), spent_arrows=()) for m in SPEC.modules))
    with pytest.raises(GenerationFailed) as exc:
        generate_missions(frozen, Settings(count=1, min_cost=1, max_cost=2))
    assert exc.value.proven and "proven" in str(exc.value)


# --------------------------------------------------------------------------- the pattern model


def synth_at_start(cuts=(), alike=(), size=None, named=None):
    """The pattern model with horizon 0: its only layout is the standard start."""
    from ortools.sat.python import cp_model

    from rove.generators.patterns import PatternVariables
    from rove.solve.cpsat_model import RoveModel

    deck = Deck(with_mission(movement_only(SPEC), _unmatchable(6)))
    start = state_from_position(deck, _position(deck.spec, start_layout(SPEC.codes), 0))
    mdl = RoveModel(deck, start, 0, goal="free", universe=(), max_takes=0, objective=False)
    pv = PatternVariables(mdl, 3, 6)
    pv.fix(size=size, named=None if named is None else deck.index[named])
    pv.connected()
    for i, layout in enumerate(cuts):
        pv.not_matched_by(layout, f"c{i}")
    for i, q in enumerate(alike):
        pv.not_alike(q, f"a{i}")
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    status = solver.solve(mdl.m)
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    return status == cp_model.INFEASIBLE, (pv.decode(solver) if found else None)


START = start_layout(SPEC.codes)  # B L S / C G M


def test_the_start_layout_cuts_every_pattern_it_matches() -> None:
    infeasible, _ = synth_at_start(cuts=[tuple(START[c] for c in SPEC.codes)])
    assert infeasible


def test_a_cut_layout_leaves_the_patterns_it_does_not_match() -> None:
    # B L S in a row over C G M shifted one cell right: B's column neighbour is gone
    other = {**START, "C": (1, 1), "G": (2, 1), "M": (3, 1)}
    infeasible, pat = synth_at_start(cuts=[tuple(other[c] for c in SPEC.codes)], named="B")
    assert not infeasible and pat is not None
    # the pattern found matches the start but not the cut layout
    deck = Deck(with_mission(movement_only(SPEC), pat))
    assert deck.mission_pat[0].matches(tuple(_pack(START[c]) for c in SPEC.codes))
    assert not deck.mission_pat[0].matches(tuple(_pack(other[c]) for c in SPEC.codes))


def _pack(cell):
    from rove.engine import pack

    return pack(cell)


def test_not_alike_removes_exactly_that_pattern() -> None:
    full = Pattern.from_cells({START[c]: ("B" if c == "B" else ANY) for c in SPEC.codes})
    assert synth_at_start(alike=[full], size=6, named="B")[0]
    moved = Pattern.from_cells({(x + 5, y - 2): v for (x, y), v in full.cells})  # alike up to translation
    assert synth_at_start(alike=[moved], size=6, named="B")[0]
    other = Pattern.from_cells({START[c]: ("L" if c == "L" else ANY) for c in SPEC.codes})
    infeasible, pat = synth_at_start(alike=[other], size=6, named="B")
    assert not infeasible and pat == full.normalized()


def test_patterns_are_one_piece() -> None:
    # from B L S / C G M every 3-cell subset but {B, S, x-in-the-other-row-far-side} is one
    # piece; B, S and M is not (B and S are two apart), so with those forced it is infeasible
    from ortools.sat.python import cp_model

    from rove.generators.patterns import PatternVariables
    from rove.solve.cpsat_model import RoveModel

    deck = Deck(with_mission(movement_only(SPEC), _unmatchable(6)))
    start = state_from_position(deck, _position(deck.spec, START, 0))
    for chosen, ok in ((("B", "S", "L"), True), (("B", "S", "C"), False), (("B", "M"), False)):
        mdl = RoveModel(deck, start, 0, goal="free", universe=(), max_takes=0, objective=False)
        pv = PatternVariables(mdl, 2, 6)
        pv.connected()
        for c in SPEC.codes:
            mdl.m.add(pv.sel[deck.index[c]] == (c in chosen))
        solver = cp_model.CpSolver()
        assert (solver.solve(mdl.m) != cp_model.INFEASIBLE) == ok, chosen


# --------------------------------------------------------------------------- the command


def test_cli_writes_a_spec_that_validates_and_prints(tmp_path: Path) -> None:
    out = tmp_path / "new.yaml"
    r = runner.invoke(app, ["generate", "missions", "--count", "2", "--min-cost", "1", "--max-cost", "2",
                            "--seed", "3", "-o", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert "generated by `rove generate missions --count 2" in text
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    pdf = tmp_path / "cards.pdf"
    assert runner.invoke(app, ["cards", str(out), "-o", str(pdf)]).exit_code == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    # the same seed gives the same bytes; JSON carries the same missions
    again = tmp_path / "again.yaml"
    r2 = runner.invoke(app, ["generate", "missions", "--count", "2", "--min-cost", "1", "--max-cost", "2",
                             "--seed", "3", "-o", str(again), "--json"])
    assert r2.exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    data = json.loads(r2.stdout)
    assert data["status"] == "generated" and len(data["missions"]) == 2
    spec = load_spec(out)
    assert [m["pattern"] for m in data["missions"]] == [c.mission.pattern.text() for c in spec.cards[:2]]
    assert all(1 <= m["cost"] <= 2 for m in data["missions"])


def test_cli_bad_options_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x.yaml"
    r = runner.invoke(app, ["generate", "missions", "--min-cost", "5", "--max-cost", "3", "-o", str(out)])
    assert r.exit_code == 2 and "--max-cost" in r.stderr and not out.exists()
    r = runner.invoke(app, ["generate", "missions", "--spec", str(tmp_path / "nope.yaml"), "-o", str(out)])
    assert r.exit_code == 2 and "nope.yaml" in r.stderr and not out.exists()
    assert "Traceback" not in r.output


ROW = """\
format: rove-spec/1
name: Three in a row
missions_to_win: 2
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: jump, dirs: [E, W]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: jump, dirs: [E, W]}]}
  - {id: sensor, code: S, name: Sensor, ability: sensor, arrows: [{kind: jump, dirs: [E, W]}]}
cards:
""" + "".join(f"""\
  - id: k{i}
    mission: {{title: K{i}, pattern: "B L"}}
    movement: {{points: 1, bonus: 2, pattern: "S"}}
""" for i in range(4))


def test_cli_proven_impossible_exits_1(tmp_path: Path) -> None:
    # Three modules in a row that only jump east or west: an end module jumps to the
    # other end, so the layouts are the three rotations of B L S and the 3-cell patterns
    # are nine rows with one named cell.  Each costs 0 or 1 from anywhere, so ten new
    # missions of cost exactly 1 cannot exist: some mission's synthesis is infeasible for
    # every named module, which is a proof.
    spec_file = tmp_path / "row.yaml"
    spec_file.write_text(ROW)
    assert runner.invoke(app, ["validate", str(spec_file)]).exit_code == 0
    out = tmp_path / "x.yaml"
    r = runner.invoke(app, ["generate", "missions", "--spec", str(spec_file), "--count", "10",
                            "--min-cost", "1", "--max-cost", "1", "-o", str(out)])
    assert r.exit_code == 1, r.output
    assert "proven" in r.stderr and not out.exists()
    ok = runner.invoke(app, ["generate", "missions", "--spec", str(spec_file), "--count", "2",
                             "--min-cost", "1", "--max-cost", "1", "-o", str(out)])
    assert ok.exit_code == 0, ok.output
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0


def test_cli_time_limit_exits_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's time is up (the clock says no time is left, whatever the machine): exit 3,
    nothing written."""
    import rove.generators.missions

    monkeypatch.setattr(rove.generators.missions._Clock, "left", lambda self: 0.0)
    out = tmp_path / "x.yaml"
    r = runner.invoke(app, ["generate", "missions", "--count", "7", "--min-cost", "4", "--max-cost", "6",
                            "--time-limit", "1", "-o", str(out)])
    assert r.exit_code == 3, r.output
    # nothing, or the missions proven before the limit (a fast machine may prove one)
    assert "time limit" in r.stderr and (not out.exists() or "# (only the first" in out.read_text())
