"""`rove check`: interval maths, known win rates, blockers, JSON schema, executors, CLI, PDF.

The specs here are tiny on purpose (three Sensor modules whose only arrow cannot move
them out of a row), so every deal is decided in a few hundred search nodes and the
whole file runs in seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rove.check import (
    DEFAULT_SEARCH_NODE_LIMIT,
    CheckOptions,
    deal_seed,
    outcome_bounds,
    parse_band,
    run_check,
    start_arrangements,
    wilson,
)
from rove.cli import app
from rove.engine import WON, Deck, state_from_position
from rove.executors import LocalPoolExecutor, SerialExecutor, chunked
from rove.generators.deals import deal
from rove.position import parse_position
from rove.spec import load_spec

runner = CliRunner()
def opts(**kw: object) -> CheckOptions:
    base = dict(deals=12, difficulties=("normal", "impossible"), seed=3, node_limit=20_000,
                mission_node_limit=5_000, time_limit=60.0)
    base.update(kw)
    return CheckOptions(**base)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- statistics


@pytest.mark.parametrize("k, n, lo, hi", [
    (0, 10, 0.0, 0.2775),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
    (40, 100, 0.3094, 0.4980),
    (1, 20, 0.0089, 0.2361),
])
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert round(got[0], 4) == lo and round(got[1], 4) == hi


def test_wilson_edges_and_bounds() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)
    assert outcome_bounds(3, 2, 10) == (0.3, 0.5)
    assert outcome_bounds(0, 0, 0) == (0.0, 1.0)


def test_seeds_and_starts_are_stable() -> None:
    assert deal_seed(0, 0) == deal_seed(0, 0) != deal_seed(0, 1) != deal_seed(1, 0)
    spec = load_spec("classic")
    assert len(start_arrangements(spec, None, 0)) == 720
    sample = start_arrangements(spec, 5, 7)
    assert sample == start_arrangements(spec, 5, 7) and len(set(sample)) == 5
    assert start_arrangements(spec, 0, 0) == []
    chunks = chunked(list(range(50)), 2)
    assert [i for c in chunks for i, _ in c] == list(range(50))


# --------------------------------------------------------------------------- known outcomes


def test_always_winnable(specs: dict[str, Path]) -> None:
    rep = run_check(load_spec(specs["always"]), opts(deals=10)).to_json()
    for w in rep["winnability"].values():
        assert (w["solved"], w["unsolvable"], w["unknown"]) == (10, 0, 0)
        assert w["win_rate"] == 1.0 and w["wilson95"] == [0.7225, 1.0] and w["bounds"] == [1.0, 1.0]
    assert {c["id"]: c["status"] for c in rep["checks"]}["missions_from_starts"] == "ok"
    assert all(m["with_abilities"]["matched_at_start"] == 6 for m in rep["mission_costs"]["missions"].values())


def test_never_winnable_and_unreachable_mission_named(specs: dict[str, Path]) -> None:
    spec = load_spec(specs["never"])
    rep = run_check(spec, opts(deals=10)).to_json()
    for w in rep["winnability"].values():
        assert (w["solved"], w["unsolvable"], w["unknown"]) == (0, 10, 0)
        assert w["win_rate"] == 0.0 and w["wilson95"] == [0.0, 0.2775]
    row = {c["id"]: c for c in rep["checks"]}["missions_from_starts"]
    assert row["status"] == "fail"
    assert "unreachable from every start" in row["detail"] and "k1 (Task 1)" in row["detail"]
    assert {it["card"] for it in row["items"]} == {f"k{i}" for i in range(1, 5)}
    # the blocker of each lost deal is its first mission; the counts add up
    for r in rep["deals"]:
        assert r["blocker"] == deal(spec, r["seed"], r["difficulty"]).mission
        assert r["blocker_source"] == "solver" and r["deepest"] == 0
    assert sum(c["blocked_total"] for c in rep["cards"].values()) == 20


def test_row_win_rate_is_exact(specs: dict[str, Path]) -> None:
    """Nothing can move, so a deal is won exactly when its start completes every mission."""
    spec = load_spec(specs["row"])
    rep = run_check(spec, opts(deals=30, difficulties=("normal",))).to_json()
    deck = Deck(spec)
    expected = [state_from_position(deck, deal(spec, deal_seed(3, i), "normal")).status == WON
                for i in range(30)]
    got = [r["status"] == "solved" for r in rep["deals"]]
    assert got == expected and 0 < sum(expected) < 30
    w = rep["winnability"]["normal"]
    assert w["solved"] == sum(expected) and w["unknown"] == 0
    assert w["wilson95"] == [round(x, 4) for x in wilson(sum(expected), 30)]
    lost = [r for r in rep["deals"] if r["status"] == "unsolvable"]
    assert all(r["blocker"] is not None for r in lost)
    assert sum(c["blocked"]["normal"] for c in rep["cards"].values()) == len(lost)


def test_blocker_found_along_a_line(specs: dict[str, Path]) -> None:
    """A Sensor draws a card, its point moves C under B (mission k1); the next mission
    cannot be matched, whatever the Sensors draw first."""
    pos = parse_position(
        f"format: rove-position/1\nspec: {specs['ell']}\nlayout: |\n  A B\n  C .\n"
        "mission: k1\nhand: []\ndraw: [k2, k3, k4, k5]\n", "ell.yaml")
    from rove.solve.search import solve

    deepest = [-1]
    r = solve(pos, max_nodes=20_000, progress=lambda d: deepest.__setitem__(0, max(deepest[0], d)))
    assert r.status == "unsolvable" and deepest[0] == 1
    assert r.stats["deepest_done"] == 1
    assert r.stats["deepest_mission"] in ("k2", "k3", "k4", "k5")


def test_workers_refuse_a_stale_spec_and_report_progress(specs: dict[str, Path]) -> None:
    from rove.check.run import _spec, spec_fingerprint

    spec = load_spec(specs["row"])
    assert _spec(str(specs["row"]), spec_fingerprint(spec)) == spec
    with pytest.raises(RuntimeError, match="differs"):
        _spec(str(specs["row"]), "0" * 16)
    seen: list[tuple[str, int, int, str]] = []
    run_check(spec, opts(deals=3, starts=2), progress=lambda g, d, n, note="": seen.append((g, d, n, note)))
    last = {g: (d, n, note) for g, d, n, note in seen}
    assert last["starts"][:2] == (2, 2) and last["normal expert"][:2] == last["impossible expert"][:2] == (3, 3)
    # the thoughtful bars count decided deals (nothing moves on this deck: all decided at
    # once), with what was found; the last line is the estimate of the time left
    assert last["normal"][:2] == last["impossible"][:2] == (3, 3)
    assert last["normal"][2].startswith("won ") and "lost" in last["impossible"][2]
    assert seen[-1][0] == "time left" and seen[-1][3].startswith("about ")
    # the expert's games come before any thoughtful deal (its wins need no search)
    groups = [g for g, *_ in seen]
    assert max(i for i, g in enumerate(groups) if g.endswith("expert")) < min(
        i for i, g in enumerate(groups) if g in ("normal", "impossible") and seen[i][1] > 0)


# --------------------------------------------------------------------------- schema, executors


def test_json_schema(specs: dict[str, Path]) -> None:
    rep = run_check(load_spec(specs["row"]), opts(deals=4, starts=2))
    data = rep.to_json()
    assert list(data) == ["format", "spec", "options", "verdict", "reproducibility", "checks",
                          "mission_costs", "points", "winnability", "cards", "modules", "deals",
                          "expert", "advice", "timing"]
    assert "timing" not in rep.to_json(timing=False)
    assert data["format"] == "rove-check/1"
    assert data["options"]["difficulties"] == ["normal", "impossible"]
    assert data["reproducibility"]["primary_limit"] == "nodes"
    assert data["reproducibility"]["reproducible"] is True
    for d, v in data["verdict"].items():
        assert {"band", "deals", "won", "interval", "settled", "verdict", "stopped", "lever",
                "tune", "text", "direction"} <= set(v)
        assert v["deals"] == 4 and v["stopped"] == "fixed" and v["looks"] == 1
        assert v["band"] == list(CheckOptions().band(d))
    for c in data["checks"]:
        assert set(c) - {"contradicted"} == {"id", "title", "status", "detail", "items"}
        assert c["status"] in ("ok", "warn", "fail", "skipped")
    assert [c["id"] for c in data["checks"]] == ["spec", "mission_patterns", "movement_patterns",
                                                 "missions_from_starts", "points"]
    mc = data["mission_costs"]
    assert mc["arrangements"] == 2 and mc["arrangements_possible"] == 6 and mc["sampled"] is True
    for m in mc["missions"].values():
        for key in ("with_abilities", "no_abilities"):
            assert set(m[key]) == {"solved", "unsolvable", "unknown", "matched_at_start", "min",
                                   "median", "max", "mean", "histogram"}
    for w in data["winnability"].values():
        assert set(w) == {"deals", "solved", "unsolvable", "unknown", "decided", "win_rate",
                          "wilson95", "bounds", "unknown_by_limit", "decided_by_search", "decided_by_seer",
                          "decided_by_expert",
                          "lost_missions_done_mean", "nodes_total", "lost_seeds", "unknown_seeds",
                          "wilson95_all", "lost_proof_nodes",
                          "wilson95_unknowns_lost", "wilson95_unknowns_won",
                          "unknown_missions_done_max", "unknown_missions_done_mean", "unknown_tried"}
        assert w["solved"] + w["unsolvable"] + w["unknown"] == w["deals"] == 4
        assert w["bounds"] == [w["solved"] / 4, (w["solved"] + w["unknown"]) / 4]
    cards = data["cards"]
    assert {cid: c["title"] for cid, c in cards.items()} == {f"k{i}": f"Task {i}" for i in range(1, 5)}
    for c in cards.values():
        assert list(c["blocked"]) == ["normal", "impossible"]
        # nothing can move: a won deal is won at the start, with no play at all
        assert (c["plays"], c["bonus_plays"], c["base"], c["bonus"]) == (0, 0, 0, 1)
    lost = {d: sum(r["status"] == "unsolvable" and r["difficulty"] == d for r in data["deals"])
            for d in ("normal", "impossible")}
    assert {d: sum(c["blocked"][d] for c in cards.values()) for d in lost} == lost
    assert {d: w["unsolvable"] for d, w in data["winnability"].items()} == lost
    for m in data["modules"].values():
        assert set(m) == {"name", "ability", "uses", "triggered_via_gripper", "wins_using",
                          "wins_using_share"}
    assert len(data["deals"]) == 8 and "seconds" not in data["deals"][0]
    assert set(data["timing"]) >= {"seconds_total", "executor", "workers", "expert_seconds"}
    assert data["options"]["players"] == ["thoughtful", "expert"]
    ex = data["expert"]
    assert set(ex) == {"description", "node_limit", "winnability", "foresight", "cards", "deals"}
    for w in ex["winnability"].values():
        assert set(w) == {"deals", "won", "lost", "win_rate", "wilson95", "lost_by",
                          "lost_missions_done_mean", "thoughtful_win_rate", "gap_points",
                          "wins_thoughtful_unknown", "wins_thoughtful_unsolvable", "nodes_total",
                          "finished", "budget_share", "win_rate_finished", "wilson95_finished"}
        assert w["won"] + w["lost"] == w["deals"] == 4 and sum(w["lost_by"].values()) == w["lost"]
        assert w["finished"] == w["deals"] - w["lost_by"]["budget"]
    for c in ex["cards"].values():
        assert set(c) == {"title", "failed", "failed_total", "failed_share", "plays", "bonus_plays",
                          "bonus_share"}
    assert len(ex["deals"]) == 8 and "seconds" not in ex["deals"][0]
    assert {r["status"] for r in ex["deals"]} <= {"won", "lost"}
    # four deals a difficulty are too few to read the gap: the sentence says so, with counts
    assert ex["foresight"].startswith("Too few decided deals to read what foresight is worth")
    json.dumps(data)  # plain JSON values only


def test_executors_give_identical_results(specs: dict[str, Path]) -> None:
    spec = load_spec(specs["row"])
    o = opts(deals=10, starts=3)
    serial = run_check(spec, o, SerialExecutor()).to_json(timing=False)
    with LocalPoolExecutor(1) as one:
        pool1 = run_check(spec, o, one).to_json(timing=False)
    with LocalPoolExecutor(2, max_chunk=2) as two:
        pool2 = run_check(spec, o, two).to_json(timing=False)
    assert serial == pool1 == pool2
    assert run_check(spec, o).to_json(timing=False) == serial  # run twice: same figures


@pytest.mark.parametrize("workers, processes", [(2, False), (1, True)])
def test_dask_executor_matches_local_pool(specs: dict[str, Path], workers: int, processes: bool) -> None:
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from rove.executors import DaskExecutor

    spec = load_spec(specs["row"])
    o = opts(deals=10, starts=3)
    serial = run_check(spec, o).to_json(timing=False)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes,
                      dashboard_address=None) as cluster, \
            Client(cluster) as client:
        with DaskExecutor(client=client) as ex:
            got = run_check(spec, o, ex).to_json(timing=False)
        with DaskExecutor(address=cluster.scheduler_address) as ex:
            got2 = run_check(spec, o, ex).to_json(timing=False)
    assert got == serial == got2


# --------------------------------------------------------------------------- CLI and PDF


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_cli_json_and_tables(specs: dict[str, Path]) -> None:
    args = [specs["row"], "--deals", "6", "--difficulty", "normal,hard", "--seed", "5",
            "--starts", "2", "--jobs", "1", "--node-limit", "5000"]
    code, out, _ = invoke(*args, "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data["winnability"]) == ["normal", "hard"] and data["options"]["seed"] == 5
    code2, out2, _ = invoke(*args, "--json")
    a, b = json.loads(out2), data
    a.pop("timing"), b.pop("timing")
    assert a == b
    code, out, _ = invoke(*args)
    assert code == 0
    for text in ("Static checks", "Winnability", "Wilson 95%", "Cards", "Modules", "node count",
                 "Thoughtful (draw order known) and expert", "Cards for the expert",
                 "foresight is worth"):
        assert text in out


def test_cli_one_player(specs: dict[str, Path]) -> None:
    """--player picks who plays; the thoughtful figures are the same with or without the
    expert beside them, and an expert-only run has no thoughtful winnability."""
    args = [specs["row"], "--deals", "6", "--difficulty", "normal", "--starts", "0", "--jobs", "1",
            "--json"]
    both = json.loads(invoke(*args)[1])
    alone = json.loads(invoke(*args, "--player", "thoughtful")[1])
    assert "expert" not in alone and alone["options"]["players"] == ["thoughtful"]
    # the same verdicts; with the expert beside it, the deals it won are its witness and
    # are never searched
    assert [(r["index"], r["status"]) for r in alone["deals"]] == [(r["index"], r["status"]) for r in both["deals"]]
    for key in ("solved", "unsolvable", "unknown", "win_rate"):
        assert alone["winnability"]["normal"][key] == both["winnability"]["normal"][key]
    assert {r["witness"] for r in both["deals"] if r["status"] == "solved"} == {"expert"}
    assert all(r["steps"] == [] and r["nodes"] == 0 for r in both["deals"] if r["witness"] == "expert")
    code, out, _ = invoke(*args, "--player", "expert")
    expert_only = json.loads(out)
    assert code == 0 and expert_only["winnability"] == {} and expert_only["deals"] == []
    assert expert_only["expert"]["winnability"] == both["expert"]["winnability"] | {
        "normal": {**both["expert"]["winnability"]["normal"], "thoughtful_win_rate": None,
                   "gap_points": None, "wins_thoughtful_unknown": 0}}
    # beside the thoughtful player, each expert win is a deal its solvers never ran on
    expert_normal = both["expert"]["winnability"]["normal"]
    assert expert_normal["wins_thoughtful_unknown"] == expert_normal["won"]
    # nothing can move: the expert wins exactly the deals won at the start, as the solver
    assert both["expert"]["winnability"]["normal"]["won"] == both["winnability"]["normal"]["solved"]
    code, out, _ = invoke(specs["row"], "--deals", "2", "--starts", "0", "--jobs", "1", "--player", "expert")
    assert code == 0 and "Winnability (win rate" not in out and "expert" in out
    code, _, err = invoke(specs["row"], "--player", "gambler")
    assert code == 2 and "player" in err


def test_tables_keep_intervals_whole_in_80_columns(specs: dict[str, Path]) -> None:
    """With a one-node limit the row deals won at reveal are decided and the rest are
    unknown, so every column of the winnability table is filled; no figure may be cut
    to '...' on an 80-column terminal, and the unknowns are explained."""
    from rich.console import Console

    from rove.check import print_report

    rep = run_check(load_spec(specs["row"]), opts(deals=12, node_limit=1, starts=0))
    w = rep.to_json()["winnability"]["impossible"]
    assert (w["solved"], w["unsolvable"], w["unknown"]) == (7, 0, 5)
    console = Console(width=80, record=True)
    print_report(rep, console)
    text = console.export_text()
    row = next(line for line in text.splitlines() if line.split()[:1] == ["impossible"])
    assert row.split()[-3:] == ["100.0%", "64.6-100.0%", "58.3-100.0%"] and "\u2026" not in text
    assert "10 deal(s) unknown" in text


def test_cli_bad_input(specs: dict[str, Path], tmp_path: Path) -> None:
    code, out, err = invoke(specs["bad"], "--deals", "1")
    assert code == 2 and "bb" in err and out == ""
    code, _, err = invoke(specs["row"], "--difficulty", "easy")
    assert code == 2 and "difficulty" in err
    code, _, err = invoke(specs["row"], "--executor", "dask")
    assert code == 2 and "--scheduler" in err
    code, _, err = invoke(tmp_path / "missing.yaml")
    assert code == 2


def test_pdf_report_is_deterministic(specs: dict[str, Path], tmp_path: Path) -> None:
    pypdf = pytest.importorskip("pypdf")
    from rove.pdf.report import render_report_pdf

    rep = run_check(load_spec(specs["row"]), opts(deals=8, starts=6))
    one, two = render_report_pdf(rep), render_report_pdf(rep)
    assert one == two and one.startswith(b"%PDF")
    text = "".join(p.extract_text() for p in pypdf.PdfReader(__import__("io").BytesIO(one)).pages)
    for words in ("rove check: Row", "Static checks", "Winnability per difficulty",
                  "Mission costs", "Cards", "Modules", "Expert player", "Cards for the expert",
                  "foresight is worth"):
        assert words in text
    out = tmp_path / "r.pdf"
    code, _, _ = invoke(specs["never"], "--deals", "3", "--jobs", "1", "--report", out, "--json")
    assert code == 0 and out.read_bytes().startswith(b"%PDF")


def test_win_rate_chart_draws_the_bounds_band() -> None:
    """The pale band spans the bounds over all deals (here 25-100%, from 3 unknowns of 4)
    behind the bar; with no band given, nothing of that colour is drawn."""
    from reportlab.graphics.shapes import Rect

    from rove.pdf.report import BAND, bar_chart

    def bands(**extra: object) -> list[Rect]:
        d = bar_chart(["normal"], [{"name": "win rate", "values": [1.0], **extra}], height=120,
                      y_max=1.0, percent=True)
        return [s for s in d.contents if isinstance(s, Rect) and s.fillColor == BAND]

    (band,) = bands(band_low=[0.25], band_high=[1.0])
    plot_h = 120 - 6.0 - 16.0  # the chart's height less its top and bottom margins
    assert band.y == pytest.approx(16.0 + 0.25 * plot_h) and band.height == pytest.approx(0.75 * plot_h)
    assert bands() == [] and bands(band_low=[1.0], band_high=[1.0]) == []


@pytest.mark.parametrize("python", [False, True], ids=["core", "python"])
def test_a_time_limit_never_changes_what_is_searched(monkeypatch: pytest.MonkeyPatch, python: bool) -> None:
    """The portfolio splits its work by nodes only: with a time limit that is not
    reached and without one, the same deals take the same nodes and give the same
    figures.  (When the greedy dive had a quarter of the wall time, deal 0 of this run
    took 7,725 nodes once and 8,077 the next on the Python path with a 20 s limit,
    10,572 without one.)  The time limit is far above what the run needs (the node limit
    keeps it short), so a slow or loaded machine cannot reach it."""
    if python:
        monkeypatch.setenv("ROVE_CORE", "0")
    spec = load_spec("classic")
    runs = []
    for time_limit in (None, 600.0):
        o = CheckOptions(deals=1 if python else 8, difficulties=("normal",), seed=3, starts=0,
                         node_limit=20_000 if python else DEFAULT_SEARCH_NODE_LIMIT,
                         time_limit=time_limit, players=("thoughtful",), seer_node_limit=0)
        rep = run_check(spec, o, SerialExecutor()).to_json(timing=False)
        rep["options"].pop("time_limit", None)
        assert all(d["status"] == "solved" for d in rep["deals"])
        runs.append(rep)
    assert runs[0] == runs[1]
    assert runs[0]["deals"][0]["nodes"] > 2_000  # past the greedy dive's share: both searches ran


def test_the_commands_defaults_are_the_options_defaults() -> None:
    """`rove check` with no options runs ``CheckOptions()``: the command's literals (kept
    out of its module so that ``rove --help`` starts fast) cannot drift from the figures
    the docs measure."""
    import typer.main

    cmd = typer.main.get_command(app).commands["check"]  # type: ignore[attr-defined]
    given = {p.name: p.default for p in cmd.params}
    want = CheckOptions()
    assert given["deals"] == want.deals and given["seed"] == want.seed
    assert given["node_limit"] == want.node_limit
    assert given["seer_node_limit"] == want.seer_node_limit
    assert given["expert_node_limit"] == want.expert_node_limit
    assert given["mission_node_limit"] == want.mission_node_limit
    assert given["starts"] == want.starts and given["time_limit"] == want.time_limit
    assert tuple(given["player"].split(",")) == want.players
    assert tuple(given["difficulty"].split(",")) == want.difficulties
    # the sequential run's figures, and the bands (none given: CheckOptions' defaults)
    assert given["deals"] is None and want.sequential
    assert given["max_deals"] == want.max_deals and given["thoughtful_deals"] == want.thoughtful_deals
    assert given["band"] is None and CheckOptions(bands=parse_band([])) == want
    # and the help that spells a default out spells the options' figure
    helps = {p.name: getattr(p, "help", "") or "" for p in cmd.params}
    assert f"batches of {want.batch} " in helps["deals"]
    from rove.check.options import DEFAULT_THOUGHTFUL_DEALS

    assert f"else {DEFAULT_THOUGHTFUL_DEALS})" in helps["thoughtful_deals"]
    assert f"above {want.node_limit:,} " in helps["node_limit"]
    assert f"above {want.seer_node_limit:,} " in helps["seer_node_limit"]
    # the expert's budget is one figure everywhere: the check's, the tune's, the expert's own
    from rove.solve.expert import GAME_NODE_LIMIT

    tune = {p.name: p.default for p in typer.main.get_command(app).commands["tune"].params}  # type: ignore[attr-defined]
    assert tune["expert_node_limit"] == want.expert_node_limit == GAME_NODE_LIMIT
