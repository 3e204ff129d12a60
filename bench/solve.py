"""Exact search solver speed: mission puzzles (A* against the plain baseline) and whole deals.

    python bench/solve.py [--puzzles 50] [--deals 50] [--time-limit 60]
                          [--baseline-limit 10] [--jobs 1] [--json FILE] [--compare FILE]
    python bench/solve.py --book 45 [--repeats 5] [--json FILE] [--compare FILE]

The instances are fixed by their seeds: ``random_mission_puzzle(classic, seed)`` for
seeds 0..puzzles-1 (goal: mission) and fresh ``normal`` deals ``deal(classic, seed)``
for seeds 0..deals-1 (goal: game).  For each set it prints the median and maximum
seconds, nodes per second, the share decided (solved or proven unsolvable) within
10 s and within 60 s, and the split solved / unsolvable / unknown.

The same puzzles are solved in the same run by the plain uniform-cost baseline
(``method='bfs'``) under its own, usually shorter, time limit; the speed-up is given
as the median of per-puzzle ratios (baseline seconds / A* seconds) and as the ratio
of the medians.  A baseline timeout counts as exactly its limit, so every ratio that
involves one is a lower bound (shown with >=).  Where both decide, their answers
(status, points, cards, abilities) must agree; disagreements are listed.

``--json FILE`` saves every instance and the summary; ``--compare FILE`` prints this
run's ratios against such a saved run (above 1: this run is faster).

``--book N`` instead times A* in one process on N puzzles shaped like the book's Mission
in N (``book_puzzles``: ``rove.book.puzzles.mission_puzzle`` on the bundled deck with
the seed labels ``bench:0``, ``bench:1``, ... kept until N are made; no test uses these
labels, so the puzzles are unseen by the suites).  Each is solved once to warm the deck,
then ``--repeats`` times; its time is the median of those.  It prints the median and
maximum seconds, the median nodes, the node rate over all of them and the worst puzzle's
microseconds a node; ``--compare`` takes a run saved with ``--book`` and the same N.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

DECIDED = ("solved", "unsolvable")
KINDS = {  # (kind, method) -> label
    ("puzzle", "astar"): "puzzles, A*",
    ("puzzle", "bfs"): "puzzles, baseline",
    ("deal", "astar"): "deals, game search",
    ("book", "astar"): "book's Mission in N, A* in process",
}

console = Console(width=None if sys.stdout.isatty() else 132)


# --------------------------------------------------------------------------- running


@functools.lru_cache(maxsize=4)
def _spec(ref: str):  # noqa: ANN202 - rove.spec.Spec, imported lazily in workers
    from rove.spec import load_spec

    return load_spec(ref)


def instance(kind: str, seed: int, spec_ref: str):  # noqa: ANN201 - a Position
    from rove.generators.deals import deal
    sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
    from helpers import random_mission_puzzle

    spec = _spec(spec_ref)
    if kind == "puzzle":
        return random_mission_puzzle(spec, seed)
    return deal(spec, seed, "normal", spec_ref=spec_ref)


def run_one(task: tuple[str, int, str, float, str]) -> dict[str, Any]:
    """Solve one instance; runs in a worker process when --jobs > 1."""
    kind, seed, method, limit, spec_ref = task
    from rove.solve.search import solve

    pos = instance(kind, seed, spec_ref)
    rec: dict[str, Any] = {"kind": kind, "seed": seed, "method": method, "limit": limit}
    t0 = time.perf_counter()
    try:
        r = solve(pos, time_limit=limit, method=method)
    except Exception as exc:  # a solver bug (for instance a plan that does not replay)
        rec.update(status="error", seconds=time.perf_counter() - t0, nodes=0,
                   points=None, cards=None, abilities=None, error=f"{type(exc).__name__}: {exc}")
        return rec
    rec.update(status=r.status, seconds=time.perf_counter() - t0, nodes=r.nodes, points=r.points,
               cards=r.cards, abilities=r.abilities)
    return rec


BOOK_LABEL = "bench:{}"


def book_puzzles(count: int, spec_ref: str = "standard") -> list[Any]:
    """``count`` Mission in N puzzles of the book's generator (seed labels ``bench:i``),
    made without the core's distance tables as the book makes them."""
    from rove.book.puzzles import Settings, mission_puzzle
    from rove.solve import core

    spec = _spec(spec_ref)
    out = []
    i = 0
    with core.tables_off():
        while len(out) < count:
            p = mission_puzzle(spec, BOOK_LABEL.format(i), Settings(spec_ref=spec_ref))
            if p is not None:
                out.append((i, p.position))
            i += 1
    return out


def run_book(count: int, repeats: int, spec_ref: str) -> list[dict[str, Any]]:
    """Every book puzzle solved in this process: a warm-up solve, then the median of
    ``repeats`` (seconds, as ``solve`` is called; nodes)."""
    from rove.solve.search import solve

    t0 = time.perf_counter()
    puzzles = book_puzzles(count, spec_ref)
    console.print(f"made {count} puzzles in {time.perf_counter() - t0:.1f} s", highlight=False)
    recs = []
    for label, pos in puzzles:
        r = solve(pos)
        secs = []
        for _ in range(repeats):
            t = time.perf_counter()
            r = solve(pos)
            secs.append(time.perf_counter() - t)
        recs.append({"kind": "book", "method": "astar", "seed": label, "limit": None,
                     "status": r.status, "seconds": statistics.median(secs), "nodes": r.nodes,
                     "points": r.points, "cards": r.cards, "abilities": r.abilities})
    return recs


def print_book(recs: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [r["seconds"] for r in recs]
    nodes = [r["nodes"] for r in recs]
    worst = max(recs, key=lambda r: r["nodes"])
    out = {"n": len(recs), "median_s": statistics.median(secs), "max_s": max(secs),
           "median_nodes": statistics.median(nodes), "nodes_per_s": sum(nodes) / sum(secs),
           "worst_nodes": worst["nodes"], "worst_us_per_node": 1e6 * worst["seconds"] / worst["nodes"],
           "fastest_s": min(secs), "solved": sum(r["status"] == "solved" for r in recs)}
    table = Table(title="A* in process on the book's Mission in N puzzles")
    for col in ("n", "solved", "median ms", "fastest ms", "max ms", "median nodes", "nodes/s",
                "worst: nodes", "us a node"):
        table.add_column(col, justify="right")
    table.add_row(str(out["n"]), str(out["solved"]), f"{1000 * out['median_s']:.2f}",
                  f"{1000 * out['fastest_s']:.3f}", f"{1000 * out['max_s']:.1f}",
                  f"{out['median_nodes']:g}", f"{out['nodes_per_s']:,.0f}", f"{out['worst_nodes']:,}",
                  f"{out['worst_us_per_node']:.1f}")
    console.print(table)
    return out


def run_all(tasks: list[tuple[str, int, str, float, str]], jobs: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("solving", total=len(tasks))

        def done(rec: dict[str, Any]) -> None:
            out.append(rec)
            progress.update(bar, advance=1, description=f"{rec['kind']} {rec['seed']} "
                                                        f"{rec['method']}: {rec['status']}")

        if jobs <= 1:
            for t in tasks:
                done(run_one(t))
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                for fut in as_completed([pool.submit(run_one, t) for t in tasks]):
                    done(fut.result())
    out.sort(key=lambda r: (r["kind"], r["method"], r["seed"]))
    return out


# --------------------------------------------------------------------------- figures


def summary(recs: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(recs)
    secs = [r["seconds"] for r in recs]
    count = {s: sum(r["status"] == s for r in recs) for s in (*DECIDED, "unknown", "error")}
    total_s = sum(secs)
    return {
        "n": n,
        "limit": recs[0]["limit"] if recs else None,
        "median_s": statistics.median(secs) if secs else None,
        "max_s": max(secs) if secs else None,
        "nodes_per_s": sum(r["nodes"] for r in recs) / total_s if total_s else None,
        "decided_10s": sum(r["status"] in DECIDED and r["seconds"] <= 10 for r in recs) / n if n else None,
        "decided_60s": sum(r["status"] in DECIDED and r["seconds"] <= 60 for r in recs) / n if n else None,
        **count,
    }


def speedup(astar: list[dict[str, Any]], bfs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-puzzle ratios baseline / A* on the puzzles A* decided; baseline timeouts
    count as their limit (then the ratio is a lower bound)."""
    by_seed = {r["seed"]: r for r in bfs}
    ratios: list[float] = []
    censored = 0
    a_secs: list[float] = []
    b_secs: list[float] = []
    disagree: list[tuple[int, Any, Any]] = []
    for a in astar:
        b = by_seed.get(a["seed"])
        if b is None or a["status"] not in DECIDED:
            continue
        b_s = b["seconds"] if b["status"] in DECIDED else max(b["seconds"], b["limit"])
        if b["status"] not in DECIDED:
            censored += 1
        elif (a["status"], a["points"], a["cards"], a["abilities"]) != \
                (b["status"], b["points"], b["cards"], b["abilities"]):
            disagree.append((a["seed"], (a["status"], a["points"], a["cards"], a["abilities"]),
                             (b["status"], b["points"], b["cards"], b["abilities"])))
        ratios.append(b_s / max(a["seconds"], 1e-6))
        a_secs.append(a["seconds"])
        b_secs.append(b_s)
    return {
        "puzzles": len(ratios),
        "baseline_timeouts": censored,
        "median_of_ratios": statistics.median(ratios) if ratios else None,
        "ratio_of_medians": (statistics.median(b_secs) / max(statistics.median(a_secs), 1e-6)
                             if ratios else None),
        "lower_bound": censored > 0,
        "disagreements": disagree,
    }


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def num(x: float | None, fmt: str = "{:.2f}") -> str:
    return "-" if x is None else fmt.format(x)


def print_summaries(groups: dict[tuple[str, str], list[dict[str, Any]]]) -> dict[str, Any]:
    table = Table(title="exact search solver")
    for col in ("set", "limit s", "n", "solved", "unsolvable", "unknown", "median s", "max s",
                "nodes/s", "decided <=10s", "decided <=60s"):
        table.add_column(col, justify="left" if col == "set" else "right")
    out = {}
    for key, label in KINDS.items():
        recs = groups.get(key)
        if not recs:
            continue
        s = out[f"{key[0]}/{key[1]}"] = summary(recs)
        unknown = str(s["unknown"]) + (f" (+{s['error']} errors)" if s["error"] else "")
        table.add_row(label, num(s["limit"], "{:g}"), str(s["n"]), str(s["solved"]),
                      str(s["unsolvable"]), unknown, num(s["median_s"], "{:.3f}"),
                      num(s["max_s"], "{:.2f}"), num(s["nodes_per_s"], "{:,.0f}"),
                      pct(s["decided_10s"]), pct(s["decided_60s"]))
    console.print(table)
    limits = {s["limit"] for s in out.values()}
    if any(lim is not None and lim < 60 for lim in limits):
        console.print("(with a time limit under 60 s, 'decided <=60 s' is 'decided within the limit')")
    return out


def print_speedup(sp: dict[str, Any], baseline_limit: float) -> None:
    ge = ">=" if sp["lower_bound"] else ""
    table = Table(title="A* against the plain uniform-cost baseline (same puzzles, same run)")
    table.add_column("puzzles A* decided", justify="right")
    table.add_column("baseline timeouts", justify="right")
    table.add_column("median of per-puzzle ratios", justify="right")
    table.add_column("ratio of medians", justify="right")
    table.add_row(str(sp["puzzles"]), f"{sp['baseline_timeouts']} (counted as {baseline_limit:g} s)",
                  ge + num(sp["median_of_ratios"], "{:.1f}x"),
                  ge + num(sp["ratio_of_medians"], "{:.1f}x"))
    console.print(table)
    if sp["lower_bound"]:
        console.print(f"(the baseline timed out on {sp['baseline_timeouts']} puzzle(s); those count "
                      f"as {baseline_limit:g} s, so the ratios are lower bounds)")
    if sp["disagreements"]:
        console.print(f"[bold red]A* and the baseline disagree on {len(sp['disagreements'])} "
                      "puzzle(s) (seed, A* status/points/cards/abilities, baseline):[/]")
        for d in sp["disagreements"]:
            console.print(f"  {d}")
    else:
        console.print("A* and the baseline agree on every puzzle both decided.")


def print_errors(recs: Iterable[dict[str, Any]]) -> None:
    for r in recs:
        if r["status"] == "error":
            console.print(f"[bold red]error[/] {r['kind']} seed {r['seed']} ({r['method']}): {r['error']}")


def compare(now: dict[str, Any], then: dict[str, Any]) -> None:
    """Ratios of a saved run to this one per set (above 1: this run is faster)."""
    table = Table(title=f"against {then['meta'].get('file', 'the saved run')} "
                        f"({then['meta'].get('date', '?')}, commit {then['meta'].get('commit', '?')[:10]})")
    for col in ("set", "common", "median s then", "median s now", "median ratio then/now",
                "decided then", "decided now", "answers changed"):
        table.add_column(col, justify="left" if col == "set" else "right")
    old = {(r["kind"], r["method"], r["seed"]): r for r in then["records"]}
    for key, label in KINDS.items():
        mine = [r for r in now["records"] if (r["kind"], r["method"]) == key]
        pairs = [(old[(r["kind"], r["method"], r["seed"])], r) for r in mine
                 if (r["kind"], r["method"], r["seed"]) in old]
        if not pairs:
            continue
        both = [(a, b) for a, b in pairs if a["status"] in DECIDED and b["status"] in DECIDED]
        ratios = [a["seconds"] / max(b["seconds"], 1e-6) for a, b in both]
        # a mission's optimum is exact: status and cost must not change; a game's
        # first win may differ in cost, its status must not
        changed = [a["seed"] for a, b in both if (a["status"] != b["status"] or (
            key[0] in ("puzzle", "book") and (a["points"], a["cards"], a["abilities"]) !=
            (b["points"], b["cards"], b["abilities"])))]
        table.add_row(label, str(len(pairs)),
                      num(statistics.median(a["seconds"] for a, _ in pairs), "{:.4f}"),
                      num(statistics.median(b["seconds"] for _, b in pairs), "{:.4f}"),
                      num(statistics.median(ratios) if ratios else None, "{:.2f}x"),
                      str(sum(a["status"] in DECIDED for a, _ in pairs)),
                      str(sum(b["status"] in DECIDED for _, b in pairs)),
                      ", ".join(map(str, changed)) or "none")
    console.print(table)
    if then["meta"].get("time_limit") != now["meta"].get("time_limit"):
        console.print(f"(time limits differ: then {then['meta'].get('time_limit')} s, "
                      f"now {now['meta'].get('time_limit')} s)")


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10)
        dirty = subprocess.run(["git", "status", "--porcelain", "generator"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--puzzles", type=int, default=50, help="mission puzzles, seeds 0..N-1 (default 50)")
    ap.add_argument("--deals", type=int, default=50, help="fresh normal deals, seeds 0..M-1 (default 50)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance (default 60)")
    ap.add_argument("--baseline-limit", type=float, default=10.0,
                    help="seconds per puzzle for the plain baseline (default 10; 0 skips it)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; timings "
                                                        "are fairer with 1)")
    ap.add_argument("--spec", default="classic", help="bundled spec name or path (default classic)")
    ap.add_argument("--json", type=Path, dest="json_out", help="save every instance and the summary here")
    ap.add_argument("--compare", type=Path, help="a file saved with --json to compare against")
    ap.add_argument("--book", type=int, default=0,
                    help="time A* in process on this many of the book's Mission in N puzzles instead")
    ap.add_argument("--repeats", type=int, default=5, help="--book: timed solves a puzzle (default 5)")
    args = ap.parse_args(argv)
    if args.time_limit <= 0 or args.baseline_limit < 0:
        ap.error("time limits must be positive (--baseline-limit 0 skips the baseline)")
    then = None
    if args.compare:
        try:
            then = json.loads(args.compare.read_text(encoding="utf-8"))
            then["meta"]["file"] = str(args.compare)
        except (OSError, ValueError, KeyError) as exc:
            ap.error(f"cannot read {args.compare}: {exc}")

    if args.book:
        return main_book(args, then)
    tasks = [("puzzle", s, "astar", args.time_limit, args.spec) for s in range(args.puzzles)]
    if args.baseline_limit > 0:
        tasks += [("puzzle", s, "bfs", args.baseline_limit, args.spec) for s in range(args.puzzles)]
    tasks += [("deal", s, "astar", args.time_limit, args.spec) for s in range(args.deals)]

    console.print(f"solver bench: spec {args.spec}; {args.puzzles} puzzles (A* limit "
                  f"{args.time_limit:g} s, baseline {args.baseline_limit:g} s), {args.deals} normal deals "
                  f"(limit {args.time_limit:g} s); {args.jobs} job(s); python "
                  f"{platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpu(s)")
    t0 = time.perf_counter()
    recs = run_all(tasks, args.jobs)
    wall = time.perf_counter() - t0
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in recs:
        groups.setdefault((r["kind"], r["method"]), []).append(r)

    summaries = print_summaries(groups)
    sp = None
    if groups.get(("puzzle", "astar")) and groups.get(("puzzle", "bfs")):
        sp = speedup(groups[("puzzle", "astar")], groups[("puzzle", "bfs")])
        print_speedup(sp, args.baseline_limit)
    print_errors(recs)
    console.print(f"wall time {wall:.1f} s")

    result = {
        "meta": {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "commit": git_commit(),
                 "python": platform.python_version(), "machine": platform.machine(),
                 "spec": args.spec, "puzzles": args.puzzles, "deals": args.deals,
                 "time_limit": args.time_limit, "baseline_limit": args.baseline_limit,
                 "jobs": args.jobs, "wall_s": round(wall, 2)},
        "summary": summaries,
        "speedup": sp,
        "records": [{**r, "seconds": round(r["seconds"], 4)} for r in recs],
    }
    _compare_and_save(result, then, args)
    return 1 if any(r["status"] == "error" for r in recs) or (sp and sp["disagreements"]) else 0


def _compare_and_save(result: dict[str, Any], then: dict[str, Any] | None, args: argparse.Namespace) -> None:
    """Both modes' last step: the figures against a saved run, then saved if asked."""
    if then is not None:
        compare(result, then)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        console.print(f"wrote {args.json_out}")


def main_book(args: argparse.Namespace, then: dict[str, Any] | None) -> int:
    spec = "standard" if args.spec == "classic" else args.spec  # the book's deck by default
    console.print(f"solver bench: {args.book} of the book's Mission in N puzzles on {spec}, "
                  f"{args.repeats} timed solve(s) each; python {platform.python_version()} on "
                  f"{platform.machine()}, {os.cpu_count()} cpu(s), load {os.getloadavg()[0]:.1f}")
    recs = run_book(args.book, args.repeats, spec)
    summary = print_book(recs)
    result = {"meta": {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                       "commit": git_commit(), "python": platform.python_version(),
                       "spec": spec, "book": args.book, "repeats": args.repeats, "time_limit": None},
              "summary": {"book/astar": summary},
              "records": [{**r, "seconds": round(r["seconds"], 6)} for r in recs]}
    _compare_and_save(result, then, args)
    return 0 if summary["solved"] == len(recs) else 1


if __name__ == "__main__":
    sys.exit(main())
