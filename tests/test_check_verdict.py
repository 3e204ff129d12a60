"""`rove check`'s verdict: the band, the sequential stopping rule and its interval, advice
that agrees with the verdict, the partial report of an interrupted run and the estimate
of the time left.  The decks are the tiny ones of ``conftest.specs``: every game is
decided in a few hundred nodes."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rove.check import CheckInterrupted, CheckOptions, parse_band, print_report, run_check
from rove.check import run as check_run
from rove.check.advice import advice
from rove.check.stats import clopper_pearson, wilson
from rove.check.tally import Tally
from rove.check.tasks import ExpertTask, SpecRef, StartsTask
from rove.check.verdict import NARROW, contradicted, interval, look_alpha, position, stop_reason, z_for
from rove.cli import app
from rove.executors import LocalPoolExecutor, SerialExecutor
from rove.spec import load_spec

runner = CliRunner()


def seq(**kw: Any) -> CheckOptions:
    base: dict[str, Any] = dict(difficulties=("normal", "impossible"), seed=3, node_limit=20_000,
                                mission_node_limit=5_000, time_limit=60.0, starts=0, batch=5, max_deals=30)
    base.update(kw)
    return CheckOptions(**base)


# --------------------------------------------------------------------------- the stopping rule


def _miss_chance(p: float, o: CheckOptions, band: tuple[float, float],
                 bounds: Callable[[int, int], tuple[float, float]]) -> float:
    """The exact chance that a sequential run's reported interval misses the true rate
    ``p``: the runs still going, by wins so far, carried batch by batch (a binomial
    walk), each stopping where the rule stops it."""
    going, n, missed = {0: 1.0}, 0, 0.0
    while going:
        b = min(o.batch, o.max_deals - n)
        pmf = [math.comb(b, k) * p ** k * (1 - p) ** (b - k) for k in range(b + 1)]
        after: dict[int, float] = {}
        for w, chance in going.items():
            for k, q in enumerate(pmf):
                after[w + k] = after.get(w + k, 0.0) + chance * q
        n += b
        going = {}
        for w, chance in after.items():
            lo, hi = bounds(w, n)
            if position(lo, hi, band) is not None or hi - lo <= NARROW or n >= o.max_deals:
                missed += chance * (not lo <= p <= hi)
            else:
                going[w] = chance
    return missed


def test_the_interval_stays_valid_under_the_stopping_rule() -> None:
    """With the defaults (batches of 20 to at most 420), the exact chance that the
    interval where a run stops misses the true rate is at most 5% at rates on and about
    the band's edges and inside it; a plain 95% interval looked at after every batch
    misses four times as often on an edge (what repeated looks do to an ordinary
    interval)."""
    o = CheckOptions()
    assert (o.batch, o.max_deals, o.looks) == (20, 420, 21)
    assert abs(z_for(1) - 1.96) < 1e-3 and abs(z_for(21) - 2.005) < 1e-3
    assert abs(z_for(21, last=False) - 3.662) < 1e-3
    band = o.band("normal")
    shared = functools.lru_cache(maxsize=None)(lambda w, n: interval(w, n, o))
    for p in (0.44, 0.45, 0.46, 0.5, 0.55, 0.64, 0.65, 0.66):
        assert _miss_chance(p, o, band, shared) <= 0.05, p
    assert _miss_chance(0.45, o, band, wilson) > 0.15


def test_the_cap_narrows_to_ten_points_at_any_rate() -> None:
    """The default cap is the fewest deals (in whole batches) at which the last look's
    interval is at most 10 points wide whatever the expert won, so a run with every
    default ends settled or within 10 points; one batch fewer would not."""
    o = CheckOptions()
    widest = max(interval(w, o.max_deals, o)[1] - interval(w, o.max_deals, o)[0]
                 for w in range(o.max_deals + 1))
    assert widest <= NARROW
    fewer, alpha = o.max_deals - o.batch, look_alpha(o.looks)
    assert max(clopper_pearson(w, fewer, alpha)[1] - clopper_pearson(w, fewer, alpha)[0]
               for w in range(fewer + 1)) > NARROW
    assert stop_reason(189, o.max_deals, o, "normal") == "narrow"  # 45%: over the edge
    assert stop_reason(210, o.max_deals, o, "normal") == "settled"  # 50%: inside


def test_stop_reasons() -> None:
    o = CheckOptions(batch=20, max_deals=200, bands=parse_band(["normal=0.45-0.65"]))
    assert stop_reason(20, 20, o, "normal") == "settled"  # 20 of 20: above the band
    assert stop_reason(0, 20, o, "normal") == "settled"  # none: below it
    assert stop_reason(10, 20, o, "normal") is None  # half: not clear yet
    assert stop_reason(100, 200, o, "normal") == "max_deals"


def test_bands_parse_and_refuse_nonsense() -> None:
    assert dict((d, (lo, hi)) for d, lo, hi in parse_band(["hard=30-50%"]))["hard"] == (0.3, 0.5)
    assert CheckOptions(bands=parse_band(["normal=0.5-0.7"])).band("normal") == (0.5, 0.7)
    for bad in (["normal"], ["normal=0.5"], ["normal=a-b"]):
        with pytest.raises(ValueError, match="DIFFICULTY=LOW-HIGH"):
            parse_band(bad)
    with pytest.raises(ValueError, match="low below high"):
        CheckOptions(bands=parse_band(["normal=0.7-0.5"]))
    with pytest.raises(ValueError, match="difficulty"):
        CheckOptions(bands=parse_band(["easy=0.1-0.2"]))


def test_deals_until_the_verdict_is_clear(specs: dict[str, Path]) -> None:
    """The easy deck (every game won) settles too easy at the first look whose interval
    lies above the band (6 looks, each before the last at 99.9%: 20 of 20 clear 65% where 15
    of 15 do not, 10 of 10 clear 45%); the
    hard one settles too hard; the row deck (half won) plays on to its cap.  Batches
    are whole."""
    easy = run_check(load_spec(specs["always"]), seq()).to_json()["verdict"]
    assert {d: (v["verdict"], v["deals"], v["stopped"]) for d, v in easy.items()} == {
        "normal": ("too easy", 20, "settled"), "impossible": ("too easy", 10, "settled")}
    hard = run_check(load_spec(specs["never"]), seq(max_deals=20)).to_json()
    v = hard["verdict"]
    assert v["normal"]["verdict"] == "too hard" and v["normal"]["settled"]
    assert v["impossible"]["deals"] > v["normal"]["deals"] or v["impossible"]["stopped"] == "max_deals"
    assert len(hard["expert"]["deals"]) == v["normal"]["deals"] + v["impossible"]["deals"]
    assert all(x["deals"] % 5 == 0 for x in v.values())
    assert "rove tune" in v["normal"]["tune"] and "--target normal=0.55" in v["normal"]["tune"]
    row = run_check(load_spec(specs["row"]), seq(max_deals=15)).to_json()["verdict"]
    assert all(x["stopped"] in ("max_deals", "settled", "narrow") for x in row.values())
    # the thoughtful player plays the first deals only (30 by default; here 15 at most)
    assert {r["index"] for r in hard["deals"]} <= set(range(30))


def test_the_stopping_point_is_the_same_with_any_workers(specs: dict[str, Path]) -> None:
    """Batches are decided in order, never by which worker finished first: the same
    JSON with one process, a pool of two and a Dask cluster."""
    spec = load_spec(specs["row"])
    o = seq(max_deals=25, bands=parse_band(["normal=0.2-0.3", "impossible=0.7-0.8"]))
    serial = json.dumps(run_check(spec, o, SerialExecutor()).to_json(timing=False))
    with LocalPoolExecutor(2, max_chunk=2) as two:
        pool = json.dumps(run_check(spec, o, two).to_json(timing=False))
    assert serial == pool
    if pytest.importorskip("distributed"):
        from distributed import Client, LocalCluster

        from rove.executors import DaskExecutor

        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                          dashboard_address=None) as cluster, Client(cluster) as client, \
                DaskExecutor(client=client) as ex:
            dask = json.dumps(run_check(spec, o, ex).to_json(timing=False))
        assert dask == serial


# --------------------------------------------------------------------------- advice agrees


def _directions(data: dict[str, Any]) -> set[str | None]:
    return {a.get("direction") for a in data["advice"]}


def test_advice_agrees_with_the_verdict(specs: dict[str, Path], tmp_path: Path) -> None:
    """An easy deck is only told to get harder, a hard one only easier; and the same
    hard deck's figures, read as if it were too easy, lose every line that makes it
    easier (walls, cheaper missions)."""
    from conftest import tiny_spec_text

    rich = tmp_path / "rich.yaml"
    rich.write_text(tiny_spec_text("Rich", ["#"] * 8, 2, base=2, bonus=3), encoding="utf-8")
    easy = run_check(load_spec(str(rich)), seq()).to_json()
    assert {v["verdict"] for v in easy["verdict"].values()} == {"too easy"}
    assert easy["advice"] and _directions(easy) == {"harder"}
    assert not any("cheaper" in a["text"] or "more points" in a["text"] for a in easy["advice"])
    hard = run_check(load_spec(specs["never"]), seq(max_deals=10)).to_json()
    assert {v["direction"] for v in hard["verdict"].values()} == {"easier"}
    assert hard["advice"] and _directions(hard) == {"easier"}
    flipped = {**hard, "verdict": {d: {**v, "direction": "harder"} for d, v in hard["verdict"].items()}}
    assert "easier" not in {a.get("direction") for a in advice(flipped)}
    in_band = {**hard, "verdict": {d: {**v, "direction": None} for d, v in hard["verdict"].items()}}
    assert {a.get("direction") for a in advice(in_band)} <= {None}


def test_dear_missions_fall_back_when_abilities_make_them_free() -> None:
    """With every mission free with abilities (a median of 0), the dear-mission reading
    uses the costs with every module spent."""
    def entry(wa: float, na: float) -> dict[str, Any]:
        return {"with_abilities": {"mean": wa}, "no_abilities": {"mean": na}}

    missions = {"k1": entry(0, 2), "k2": entry(0, 2), "k3": entry(0, 2), "k4": entry(0, 8)}
    data = {"mission_costs": {"missions": missions, "overall": {"no_abilities": {"median": None}}},
            "cards": {}, "expert": None}
    lines = advice(data)
    assert [(a["kind"], a["card"]) for a in lines] == [("dear", "k4")]
    assert "every module spent" in lines[0]["text"]


def test_a_points_warning_the_games_contradict_is_dropped() -> None:
    check = {"id": "points", "title": "t", "status": "warn", "detail": "deck points: base 0", "items": []}
    won = [{"status": "won"}] * 56 + [{"status": "lost"}] * 4
    lost = [{"status": "won"}] * 2 + [{"status": "lost"}] * 58
    dropped = contradicted(check, won)
    assert dropped["status"] == "ok" and "won 56 of 60" in dropped["detail"] and dropped["contradicted"]
    kept = contradicted(check, lost)
    assert kept["status"] == "warn" and "an estimate" in kept["detail"]
    assert contradicted({**check, "id": "spec"}, won) == {**check, "id": "spec"}


def test_cli_prints_the_verdict_first(specs: dict[str, Path], tmp_path: Path) -> None:
    r = runner.invoke(app, ["check", str(specs["never"]), "--max-deals", "10", "--starts", "0",
                            "--jobs", "1", "--band", "normal=0.3-0.5", "--difficulty", "normal",
                            "--report", str(tmp_path / "r.pdf")])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Verdict"))
    assert at < next(i for i, line in enumerate(lines) if line.startswith("Static checks"))
    assert "too hard" in lines[at + 1] and "30-50%" in r.stdout and "rove tune" in r.stdout
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(str(tmp_path / "r.pdf"))[0].get_textpage().get_text_range()
    assert "Verdict" in page and "too hard" in page and "rove tune" in page


# --------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_counts_the_experts_wins_and_says_not_played(specs: dict[str, Path], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the thoughtful player's first deal runs: the deals the expert won count
    as won in the partial table, the others are "not played", and nothing says a limit
    was reached."""
    from conftest import tiny_spec_text

    path = tmp_path / "step.yaml"
    path.write_text(tiny_spec_text("Half", ["B\nC"] * 4 + ["#"] * 4, 1, arrows="{kind: short, dirs: [E]}",
                                   base=1, bonus=2), encoding="utf-8")

    def stop(*args: Any) -> dict[str, Any]:
        raise KeyboardInterrupt

    monkeypatch.setattr(check_run, "_deal_task", stop)
    with pytest.raises(CheckInterrupted) as got:
        run_check(load_spec(str(path)), CheckOptions(deals=10, difficulties=("normal",), starts=0))
    report = got.value.report
    assert report is not None
    data = report.to_json()
    w = data["winnability"]["normal"]
    won = data["expert"]["winnability"]["normal"]["won"]
    assert 0 < won < 10 and w["solved"] == won and w["unknown"] == 10 - won
    assert w["unknown_by_limit"] == {"nodes": 0, "time": 0, "interrupted": 0, "not_played": 10 - won}
    from rich.console import Console

    console = Console(width=100, record=True)
    print_report(report, console)
    text = console.export_text()
    assert "limit reached" not in text and f"{10 - won} deal(s) not played" in text


# --------------------------------------------------------------------------- time left


def test_time_left_waits_for_enough_work_and_lands_within_2x() -> None:
    """The serial order of a check (the expert's 30 games of 3 s, then 30 starts of 0.2 s):
    the first figure comes only once every kind still running has a few finished tasks,
    and it is within 2x of the time really left (the old estimate, after one game, gave
    the starts the games' mean: some six times too much)."""
    o = CheckOptions(deals=10, difficulties=("normal", "hard", "impossible"), players=("expert",))
    notes: list[str] = []
    tally = Tally(o, lambda g, d, n, note="": notes.append(note) if g == "time left" else None, 1)
    ref = SpecRef("x", "y")
    tasks: list[Any] = [ExpertTask(ref, i, i, d, 1) for d in o.difficulties for i in range(10)]
    tasks += [StartsTask(ref, i, ("A",), 1, None, False) for i in range(30)]
    secs = [3.0] * 30 + [0.2] * 30
    batch = tally.begin(tasks)
    first = None
    for k, (t, s) in enumerate(zip(tasks, secs)):
        res = {"status": "lost", "seconds": s}
        tally.task_done(batch, t, res)
        if first is None and notes[-1] != "estimating":
            first = (k, tally.eta_seconds())
    assert notes[0] == "estimating" and first is not None
    k, eta = first
    assert k >= 3 and eta is not None
    real = sum(secs[k + 1:])
    assert real / 2 <= eta <= 2 * real or real == 0


def test_unknowns_say_what_was_tried(specs: dict[str, Path]) -> None:
    """A deck no one wins, searched with too few nodes to prove it: the report says what
    each rung tried and the deck's points, and calls nothing lost it could not prove."""
    from rove.check.report import tried_sentence

    rep = run_check(load_spec(specs["never"]), CheckOptions(deals=4, difficulties=("normal",), starts=2,
                                                             node_limit=1, seer_node_limit=1))
    data = rep.to_json()
    w = data["winnability"]["normal"]
    assert w["unsolvable"] == 0 and w["unknown"] == 4
    assert w["unknown_tried"]["deals"] == 4 and w["unknown_tried"]["search_at_limit"] == 4
    said = tried_sentence(data["winnability"], data["points"])
    assert said is not None and "4 deal(s) stayed unknown" in said and "stopped at its 1 nodes on 4" in said
