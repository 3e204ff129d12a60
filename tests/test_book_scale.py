"""`rove book` at scale: the same book on any executor and worker count, big books that
fill (the variety rule scales with the count), the export's ``index.json``, the progress
display's time left, and Ctrl-C on a book whose candidates run in worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from unittest.mock import ANY

import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.book import build
from rove.book.build import BookOptions, MadeBook, grade_cap, make_book, mission_cap
from rove.book.puzzles import Settings
from rove.book.terminal import time_left
from rove.cli import app
from rove.executors import LocalPoolExecutor, SerialExecutor
from rove.spec import Spec

QUICK = Settings(mission_nodes=10_000, check_nodes=20_000, solution_nodes=40_000, time_limit=None)
OPTIONS = BookOptions(count=6, mix="mission:4,hand:1,deal:1", seed=3, settings=QUICK, export=True)
runner = CliRunner()


@pytest.fixture(scope="module")
def serial_book(classic: Spec) -> MadeBook:
    return make_book(classic, OPTIONS, SerialExecutor())


def same(a: MadeBook, b: MadeBook) -> bool:
    return a.pdf == b.pdf and a.files == b.files and a.puzzles == b.puzzles


# --------------------------------------------------------------------------- executors


def test_the_book_is_the_same_in_a_pool_of_two(classic: Spec, serial_book: MadeBook) -> None:
    assert len(serial_book.puzzles) == 6
    with LocalPoolExecutor(2) as two:
        assert same(make_book(classic, OPTIONS, two), serial_book)


def test_the_book_is_the_same_for_any_lookahead(classic: Spec, serial_book: MadeBook,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Candidates and deals sent 7 ahead, and every kind's first ones at the start, as
    for a pool of workers (here lazy jobs in this process, each computed when taken, so
    a deal is proven against the book as it is then, not as it was when sent): the
    selection takes them in seed order and decides as one by one."""
    monkeypatch.setattr(build, "lookahead", lambda executor: 7)
    assert same(make_book(classic, OPTIONS, SerialExecutor()), serial_book)


def test_this_process_computes_only_the_candidates_the_selection_takes(
        classic: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """--jobs 1 sends tasks ahead as lazy jobs: every candidate and deal made is one the
    selection tried, none is made twice."""
    from test_book_craft import _fake_kinds

    _fake_kinds(monkeypatch)
    made: list[tuple[str, str]] = []

    def counting(kind: str, inner: Callable[..., object]) -> Callable[..., object]:
        def counted(spec: Spec, label: str, *a: object, **k: object) -> object:
            made.append((kind, label))
            return inner(spec, label, *a, **k)
        return counted

    for kind in ("mission", "hand", "campaign", "deal"):
        monkeypatch.setattr(build, f"{kind}_puzzle", counting(kind, getattr(build, f"{kind}_puzzle")))
    tallies: dict[str, build.KindTally] = {}
    build.generate_book(classic, 30, build.parse_mix(build.DEFAULT_MIX), 1, tallies=tallies)
    assert len(made) == len(set(made)) == sum(t.tried for t in tallies.values()) > 30


def test_the_book_is_the_same_on_a_dask_cluster(classic: Spec, serial_book: MadeBook) -> None:
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from rove.executors import DaskExecutor

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        with DaskExecutor(client=client) as ex:
            assert same(make_book(classic, OPTIONS, ex), serial_book)


def test_jobs_on_the_command_line(tmp_path: Path) -> None:
    """--jobs 2 and --jobs 1 write the same bytes; more jobs than cores and a dask
    executor without a scheduler are refused (exit 2, nothing written)."""
    args = ["book", "--spec", "classic", "--count", "3", "--mix", "mission:2,deal:1", "--seed", "2"]
    for jobs in ("1", "2"):
        result = runner.invoke(app, [*args, "--jobs", jobs, "-o", str(tmp_path / f"{jobs}.pdf")])
        assert result.exit_code == 0, result.output
    assert (tmp_path / "1.pdf").read_bytes() == (tmp_path / "2.pdf").read_bytes()
    for extra, message in ((["--jobs", "10000"], "more than the"),
                           (["--executor", "dask"], "--scheduler"),
                           (["--count", "1001"], "--count is 1001; give 1 to 1000")):
        result = runner.invoke(app, [*args, *extra, "-o", str(tmp_path / "no.pdf")])
        assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "no.pdf").exists()
    assert BookOptions(count=1000).problems() == []


# --------------------------------------------------------------------------- big books


def test_the_variety_rule_scales_with_the_count() -> None:
    """Up to 40 puzzles the rule is as it was (2 a grade, so the default book keeps its
    bytes); above, the grade cap grows with the book's cap."""
    assert [grade_cap(n) for n in (8, 24, 30, 40)] == [2, 2, 2, 2]
    assert grade_cap(60) == 4 and mission_cap(365) == 54 and grade_cap(365) == 22


@pytest.mark.parametrize("count", [365, 1000])
def test_a_big_book_fills(count: int, classic: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """With instant stand-ins for the kinds (test_book_craft's) on a deck of 12
    missions: every puzzle asked for is made and the variety rule holds.  With 2 a grade
    the book stopped at 12 missions x 5 grades x 2 = 120."""
    from test_book_craft import _fake_kinds, assert_variety

    _fake_kinds(monkeypatch)
    ps = build.generate_book(classic, count, build.parse_mix(build.DEFAULT_MIX), 1)
    assert len(ps) == count
    assert_variety(ps, count, neighbours=False)
    assert [p.stars for p in ps] == sorted(p.stars for p in ps)  # the book ramps


def test_a_short_book_names_the_limit_that_binds() -> None:
    """The shortfall line says what became of the candidates and which limit binds."""
    t = build.KindTally("mission", asked=10, made=6, budget=80, tried=80, none=50, duplicate=2,
                        book_cap=20, grade_cap=5, spare=3)
    line = build.shortfalls(10, {"mission": 1}, [], {"mission": t})[-1]
    assert line.startswith("made 0 of the 10 puzzles asked for: Mission in N fell short: "
                           "the candidate budget of 80 (8 a puzzle asked) was spent")
    assert "50 kept no puzzle" in line and "20 would pose a mission more than 2 times in the book" in line
    assert line.endswith("the binding limit is the generator's reach")
    t.none = 1
    assert build.binding_limit(t, 10).endswith("the variety rule's book cap")
    t.tried = 40  # stopped before the budget: only the caps can have refused the spares
    assert build.binding_limit(t, 10).endswith("the binding limit is the variety rule's caps")


def _deal_stand_ins(monkeypatch: pytest.MonkeyPatch, lost: Callable[[int, int], bool]) -> None:
    """test_book_craft's instant kinds, the deal of slot ``s``, try ``a`` lost when
    ``lost(s, a)`` (labels are ``seed:s:a``)."""
    from test_book_craft import _fake_kinds

    _fake_kinds(monkeypatch)
    made = build.deal_puzzle

    def deal(spec: Spec, label: str, *a: object, **k: object) -> object:
        _, s, attempt = label.split(":")
        return None if lost(int(s), int(attempt)) else made(spec, label, *a, **k)

    monkeypatch.setattr(build, "deal_puzzle", deal)


def test_a_slot_without_a_deal_tries_on_within_the_books_budget(classic: Spec,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A slot whose six tries are all lost takes more from the book's deal budget (six a
    deal asked) once every slot has had its turn: a fixed six a slot left 2 of the 55
    deal slots of a book of 365 empty."""
    _deal_stand_ins(monkeypatch, lambda s, a: s == 1 and a < 9)
    tallies: dict[str, build.KindTally] = {}
    ps = build.generate_book(classic, 3, {"deal": 1}, 1, tallies=tallies)
    assert sorted(p.source for p in ps) == ["1:0:0", "1:1:9", "1:2:0"]
    assert (tallies["deal"].tried, tallies["deal"].none, tallies["deal"].budget) == (12, 9, 18)


def test_a_deck_without_deals_names_the_deal_limit(classic: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal of one slot lost: the book's whole deal budget goes to it and the line
    names the deal generator's reach (it blamed the variety rule, which refused none)."""
    _deal_stand_ins(monkeypatch, lambda s, a: s == 1)
    tallies: dict[str, build.KindTally] = {}
    ps = build.generate_book(classic, 3, {"deal": 1}, 1, tallies=tallies)
    assert [p.kind for p in ps].count("deal") == 2 and len(ps) == 3  # a Mission in N took the place
    line = build.shortfalls(3, {"deal": 1}, ps, tallies)[0]
    assert line == ("asked for 3 verified deals, made 2: the deal candidate budget of 18 (6 a deal asked) "
                    "was spent (16 were lost or undecided within the solvers' node budgets): the binding "
                    "limit is the deal generator's reach; Mission in N puzzles took the free places")


def test_a_deal_facing_a_full_mission_counts_as_refused(classic: Spec) -> None:
    """Not proven (instant): it comes back with the mission it faces and no deal."""
    full = frozenset(c.id for c in classic.cards)
    mission, got = build.make_deal((classic, "1:0:0", QUICK, "normal", full))
    assert mission in full and got is None
    assert build.make_deal((classic, "1:0:0", QUICK, "normal", frozenset())) == (mission, ANY)


def test_a_deal_proven_before_its_mission_filled_up_is_refused_as_one_by_one(
        classic: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal faces c01 and every other try is lost; two deals fill c01's cap.  Proven
    ahead (a lookahead of 7, here in this process), slot 3's first try faced a book with
    room for c01 and came back lost: it is still tallied as the one-by-one run tallies it,
    refused by the book cap (it was counted as lost, so the line blamed the deal
    generator's reach)."""
    from test_book_craft import _fake_kinds

    from rove.book.grade import Features
    from rove.position import Position

    _fake_kinds(monkeypatch)

    def deal(spec: Spec, label: str, settings: Settings, difficulty: str, mission_ok: object = None) -> object:
        _, s, a = map(int, label.split(":"))
        if callable(mission_ok) and not mission_ok("c01"):
            return None
        if (s + a) % 2:
            return None
        return build.Puzzle("deal", Position(spec=None, layout="B", mission="c01"),  # type: ignore[arg-type]
                            (), Features(solutions=1), 0.5, 3, ("deal", label), label, difficulty=difficulty)

    monkeypatch.setattr(build, "deal_puzzle", deal)

    def tally() -> build.KindTally:
        tallies: dict[str, build.KindTally] = {}
        build.generate_book(classic, 4, {"deal": 1}, 1, tallies=tallies)
        return tallies["deal"]

    one_by_one = tally()
    assert (one_by_one.made, one_by_one.tried, one_by_one.none, one_by_one.book_cap) == (2, 24, 1, 21)
    monkeypatch.setattr(build, "lookahead", lambda executor: 7)
    assert tally() == one_by_one


def test_a_kind_goes_on_when_the_variety_rule_refuses_its_spares(classic: Spec,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Five Mission in N, one a grade: the spare 1-star puzzle that could fill grade 2 poses
    mission A, at its cap of 2 by then, so the gaps found fewer spares than counted; the
    selection stopped after 5 of its 24 candidates and the book fell short (4 of 5)."""
    from test_book_craft import _fake_kinds

    from rove.book.grade import Features
    from rove.position import Position

    _fake_kinds(monkeypatch)
    #: label -> (stars, mission, score)
    table = {0: (1, "c01", 0.5), 1: (1, "c01", 0.4), 2: (3, "c01", 0.5), 3: (5, "c02", 0.9),
             4: (5, "c03", 0.1), 5: (4, "c04", 0.5)}

    def mission(spec: Spec, label: str, settings: Settings) -> object:
        stars, m, score = table.get(int(label.split(":")[1]), (2, "c05", 0.5))
        return build.Puzzle("mission", Position(spec=None, layout="B", mission=m),  # type: ignore[arg-type]
                            (), Features(solutions=1), score, stars, ("mission", label), label)

    monkeypatch.setattr(build, "mission_puzzle", mission)
    tallies: dict[str, build.KindTally] = {}
    ps = build.generate_book(classic, 5, {"mission": 1}, 1, tallies=tallies)
    assert len(ps) == 5 and build.shortfalls(5, {"mission": 1}, ps, tallies) == []
    assert sorted(p.source for p in ps) == ["1:0", "1:2", "1:3", "1:4", "1:5"]  # 1:5 was never tried
    assert tallies["mission"].tried == 6


def test_time_left_waits_for_enough_to_estimate() -> None:
    assert time_left(0, 365, 10.0) == "estimating"
    assert time_left(30, 365, 60.0) == "estimating"  # under a tenth of the book
    assert time_left(73, 365, 146.0) == "0:09:44"    # 2 s a puzzle, 292 to go
    assert time_left(2, 4, 10.0) == "estimating"      # under 3 puzzles
    assert time_left(3, 4, 30.0) == "0:00:10"
    assert time_left(365, 365, 1.0) == "0:00:00"


# --------------------------------------------------------------------------- index.json


def test_index_lists_the_export(serial_book: MadeBook, tmp_path: Path) -> None:
    files = serial_book.files
    data = json.loads(files["index.json"])
    assert list(data) == ["format", "version", "title", "spec", "seed", "puzzles"]
    assert (data["format"], data["version"], data["title"], data["seed"]) == ("rove-book-index", 1, "ROVE", 3)
    assert data["spec"] == "specs/classic.yaml" and data["spec"] in files
    assert [r["number"] for r in data["puzzles"]] == list(range(1, 7))
    text = "\n".join(p.extract_text() for p in PdfReader(__import__("io").BytesIO(serial_book.pdf)).pages)
    for row, p in zip(data["puzzles"], serial_book.puzzles):
        assert list(row) == ["number", "file", "solution", "title", "kind", "stars", "optimum", "hints"]
        assert row["file"] == f"{row['number']:02d}-{row['kind']}.yaml" and row["file"] in files
        assert row["solution"] == row["file"][:-5] + ".plan.json" and row["solution"] in files
        assert row["kind"] == p.kind and row["stars"] == p.stars and 1 <= row["stars"] <= 5
        assert row["title"] in text
        if p.kind == "deal":
            assert row["optimum"] is None
        else:
            assert row["optimum"] == {"points": p.features.points, "cards": p.features.cards,
                                      "abilities": p.features.abilities}
        assert len(row["hints"]) == 3
        for hint in row["hints"]:  # as printed (the PDF's text runs lines together)
            assert " ".join(hint.split()) in " ".join(text.split()), hint
    assert files["index.json"].endswith("\n") and files["index.json"] == build.book_index(
        serial_book.puzzles, serial_book.puzzles[0].position.spec, "ROVE", 3, "specs/classic.yaml")


def test_the_export_check_reads_the_index_back(serial_book: MadeBook, classic: Spec, tmp_path: Path) -> None:
    for rel, text in serial_book.files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    build.check_export(tmp_path, serial_book.puzzles, classic)
    data = json.loads((tmp_path / "index.json").read_text())
    data["puzzles"][0]["stars"] = data["puzzles"][0]["stars"] % 5 + 1
    (tmp_path / "index.json").write_text(json.dumps(data))
    with pytest.raises(build.ExportCheckFailed, match="row 1 is not puzzle 1"):
        build.check_export(tmp_path, serial_book.puzzles, classic)


# --------------------------------------------------------------------------- Ctrl-C

_LAUNCH = """
import sys
import rove.book.build as build

import rove.executors as executors

inner = executors.LocalPoolExecutor.submit
said = []


def hooked(self, fn, task, priority=0):
    if not said:
        said.append(True)
        print("ready", file=sys.stderr, flush=True)
    return inner(self, fn, task, priority)


executors.LocalPoolExecutor.submit = hooked
sys.argv = ["rove", *sys.argv[1:]]
from rove.cli import main

main()
"""


def test_ctrl_c_with_workers_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    """Ctrl-C while the pool proves candidates: exit 130, no PDF, no export, no worker left."""
    out, ex = tmp_path / "b.pdf", tmp_path / "ex"
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH, "book", "--spec", "standard", "--count", "40",
                             "--jobs", "2", "-o", str(out), "--export-dir", str(ex)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    seen = b""
    while not seen.endswith(b"ready\n"):
        byte = os.read(proc.stderr.fileno(), 1)
        assert byte, "the book ended before its workers started"
        seen += byte
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not out.exists() and not ex.exists()
    assert sorted(os.listdir(tmp_path)) == []
    for _ in range(100):  # the workers and the forkserver end as their pipes close
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a worker of the interrupted book is still running")
