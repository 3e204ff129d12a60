"""CP-SAT model against the exact search engine on the same mission puzzles.

    python bench/cpsat.py [--puzzles 50] [--time-limit 60] [--modes hint,model]
                          [--max-budget N] [--keep-hand] [--json FILE]
                          [--bare 100] [--spec classic|variant|FILE] [--workers 1]
                          [--generate 3] [--gen-costs 2,5] [--gen-count 7]
                          [--book 45] [--baseline REV] [--deterministic-time D]

``--bare N`` instead takes N bare-budget mission puzzles:
``bare_budget_puzzle(spec, seed, spent=2 + seed % 5, budget=--bare-budget)`` for seeds
0..N-1 (a deal advanced by random legal play, then modules spent at random until two to six
are, a mission the layout does not match yet, 8 points and no cards).  ``--spec variant``
plays them on a deck rove has never been tuned on: the classic deck with every module's
arrows changed (written to a temporary folder, see ``VARIANT``).  ``--workers 1`` is the
one-core figure.

``--book N`` takes the N Mission in N puzzles of ``bench/solve.py --book`` (the book's
generator on the bundled deck, seed labels ``bench:i``; no test uses them).
``--baseline REV`` also runs the CP-SAT engine as it was at git revision ``REV`` (its
``cpsat.py`` and ``cpsat_model.py`` loaded beside the current ones), puzzle by puzzle
right after the current one, so both meet the same load; engine ``base`` in the tables.
``--deterministic-time D`` gives both CP-SAT engines that budget of CP-SAT's deterministic
time (a count of its work, the same on any machine; the search hint then gets a node
budget) and adds the medians of the work they did to the comparison: on a loaded machine
the wall-clock limit cuts both engines short at the same seconds, the work does not lie.

Otherwise the instances are those of ``bench/solve.py``: ``random_mission_puzzle(classic, seed)``
for seeds 0..puzzles-1 (goal: mission); ``--max-budget`` and ``--keep-hand`` pass on to
``random_mission_puzzle`` for a harder family (a hand of cards to play).  Each puzzle is solved,
one after the other (both engines get the two cores to themselves), by

* ``search``: A* (``rove.solve.search.solve``);
* ``cpsat``  (mode ``hint``, the default engine): the model with the search engine's plan
  as hint and as a bound on the points; its time includes that search;
* ``model`` (mode ``model``): the model alone, no hint, horizon from the card and
  ability counts only: how far the formulation gets by itself.

For every engine: the split solved / unsolvable / unknown, proven optima, median and
maximum seconds; against search: the median of per-puzzle ratios (engine seconds /
search seconds) and the ratio of the medians.  It then lists where CP-SAT was faster
(by what it had to prove: infeasibility, or optimality) and where search was, and every
disagreement on a decided puzzle (status, points, cards, abilities), which is a bug.

Then the mission generator (``rove generate missions`` on the classic deck) for seeds
``0..generate-1``: proven missions per minute, synthesis rounds per mission and where the
time goes (CP-SAT synthesis, search checks, CP-SAT proofs).  ``--puzzles 0`` runs only that.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

DECIDED = ("solved", "unsolvable")
console = Console(width=None if sys.stdout.isatty() else 132)


#: the "never seen" deck of ``--spec variant``: the classic deck with new, fewer arrows per
#: module, so that bare budgets of 8 points often fall short (10 of the first 150 puzzles
#: are impossible; the hardest needs about 20,000 nodes of the exact search)
VARIANT = {
    "B": [{"kind": "short", "dirs": ["orthogonal"]}],
    "L": [{"kind": "short", "dirs": ["diagonal"]}],
    "S": [{"kind": "standard", "dirs": ["N", "S"]}],
    "C": [{"kind": "jump", "dirs": ["diagonal"]}],
    "G": [{"kind": "short", "dirs": ["E", "W"]}],
    "M": [{"kind": "push", "dirs": ["N", "S"]}],
}

def load_bench_spec(name: str) -> Any:
    """``classic``, ``variant`` (``VARIANT`` written to a temporary folder) or a spec file."""
    import tempfile

    import yaml

    from rove.spec import load_spec

    if name != "variant":
        return load_spec(name)
    data = yaml.safe_load((ROOT / "specs" / "classic.yaml").read_text(encoding="utf-8"))
    data["name"] = "bench variant"
    for m in data["modules"]:
        m["arrows"] = VARIANT[m["code"]]
        m.pop("spent_arrows", None)
    folder = Path(tempfile.mkdtemp(prefix="rove-bench-"))
    (folder / "variant.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_spec(folder / "variant.yaml")


BASELINE: dict[str, Any] = {}
"""``solve_cpsat`` of the ``--baseline`` revision, once loaded."""


def load_baseline(rev: str) -> Any:
    """The CP-SAT engine of git revision ``rev``: its two modules loaded under new names
    in ``rove.solve`` (so that their relative imports find today's engine and search)."""
    import importlib.util
    import subprocess

    def source(name: str) -> str:
        return subprocess.run(["git", "show", f"{rev}:generator/rove/solve/{name}.py"], cwd=ROOT,
                              check=True, capture_output=True, text=True).stdout

    for name, text in (("cpsat_model", source("cpsat_model")),
                       ("cpsat", source("cpsat").replace(".cpsat_model import", "._base_cpsat_model import"))):
        full = ".".join(("rove", "solve", f"_base_{name}"))  # a module made here, not a file
        spec = importlib.util.spec_from_loader(full, loader=None)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        module.__package__ = "rove.solve"
        sys.modules[full] = module
        exec(compile(text, f"{rev}:{name}.py", "exec"), module.__dict__)  # noqa: S102 - our own file
    BASELINE["solve"] = sys.modules[".".join(("rove", "solve", "_base_cpsat"))].solve_cpsat
    return BASELINE["solve"]


def run(engine: str, pos: Any, limit: float, workers: int | None = None,
        dtime: float | None = None) -> dict[str, Any]:
    """One solve; a raised error (a plan the rules engine rejects) is recorded, not hidden.
    ``dtime``: the CP-SAT engines' deterministic-time budget (None: none)."""
    from rove.solve.cpsat import solve_cpsat
    from rove.solve.search import solve as solve_search

    t0 = time.perf_counter()
    try:
        if engine == "search":
            r = solve_search(pos, time_limit=limit)
        elif engine == "base":
            r = BASELINE["solve"](pos, time_limit=limit, hint=True, workers=workers,
                                  deterministic_time=dtime)
        else:
            r = solve_cpsat(pos, time_limit=limit, hint=engine == "cpsat", workers=workers,
                            deterministic_time=dtime)
    except Exception as exc:  # noqa: BLE001 - a solver bug is a result here
        return {"engine": engine, "status": "error", "seconds": time.perf_counter() - t0,
                "error": f"{type(exc).__name__}: {exc}", "cost": None, "optimal": False}
    rec = {"engine": engine, "status": r.status, "seconds": time.perf_counter() - t0,
           "cost": [r.points, r.cards, r.abilities] if r.status == "solved" else None,
           "optimal": r.optimal if r.status == "solved" else r.status == "unsolvable"}
    for key in ("horizon", "hint_seconds", "cpsat_seconds", "cpsat_dtime", "status", "model"):
        if key in r.stats:
            rec["cpsat_" + key if not key.startswith("cpsat") else key] = r.stats[key]
    return rec


def summary(recs: list[dict[str, Any]]) -> dict[str, Any]:
    secs = [r["seconds"] for r in recs]
    return {
        "n": len(recs),
        **{s: sum(r["status"] == s for r in recs) for s in (*DECIDED, "unknown", "error")},
        "proven": sum(bool(r["optimal"]) for r in recs),
        "median_s": statistics.median(secs),
        "max_s": max(secs),
    }


def ratios(engine: list[dict[str, Any]], search: list[dict[str, Any]]) -> dict[str, Any]:
    """engine seconds / search seconds on the puzzles both decided."""
    pairs = [(e["seconds"], s["seconds"]) for e, s in zip(engine, search)
             if e["status"] in DECIDED and s["status"] in DECIDED]
    if not pairs:
        return {"puzzles": 0, "median_of_ratios": None, "ratio_of_medians": None}
    return {"puzzles": len(pairs),
            "median_of_ratios": statistics.median(e / max(s, 1e-6) for e, s in pairs),
            "ratio_of_medians": (statistics.median(e for e, _ in pairs)
                                 / max(statistics.median(s for _, s in pairs), 1e-6))}


def answer(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["status"], *(r["cost"] or (None, None, None)))


def against_base(now: list[dict[str, Any]], base: list[dict[str, Any]], rev: str) -> dict[str, Any]:
    """The engine against the ``--baseline`` revision's on the same puzzles: medians, the
    median of per-puzzle ratios (base seconds / now seconds), proofs, and whether the two
    give the same answer wherever both proved one."""
    pairs = list(zip(now, base))
    same = sum(answer(a) == answer(b) for a, b in pairs if a["optimal"] and b["optimal"])
    both = sum(bool(a["optimal"] and b["optimal"]) for a, b in pairs)
    out = {"median_s": statistics.median(a["seconds"] for a in now),
           "base_median_s": statistics.median(b["seconds"] for b in base),
           "median_of_ratios": statistics.median(b["seconds"] / max(a["seconds"], 1e-6) for a, b in pairs),
           "proven": sum(bool(a["optimal"]) for a in now), "base_proven": sum(bool(b["optimal"]) for b in base),
           "both_proven": both, "same_answers": same}
    work = [(a.get("cpsat_dtime", 0.0), b.get("cpsat_dtime", 0.0)) for a, b in pairs]
    out["median_dtime"] = statistics.median(a for a, _ in work)
    out["base_median_dtime"] = statistics.median(b for _, b in work)
    console.print(f"cpsat against {rev}: median {out['base_median_s']:.2f} s -> {out['median_s']:.2f} s "
                  f"({out['base_median_s'] / max(out['median_s'], 1e-6):.2f}x; median of per-puzzle ratios "
                  f"{out['median_of_ratios']:.2f}x); proven {out['base_proven']} -> {out['proven']} of "
                  f"{len(pairs)}; same answers on {same} of the {both} both proved", highlight=False)
    console.print(f"CP-SAT work (deterministic time) against {rev}: median {out['base_median_dtime']:.2f} -> "
                  f"{out['median_dtime']:.2f} ({out['base_median_dtime'] / max(out['median_dtime'], 1e-6):.2f}x)",
                  highlight=False)
    return out


def bench_generate(seeds: int, count: int, lo: int, hi: int) -> dict[str, Any]:
    """Proven missions per minute of the CEGAR generator on the classic deck."""
    from rove.generators.missions import GenerationFailed, Settings, generate_missions
    from rove.spec import load_spec

    spec = load_spec("classic")
    table = Table(title=f"rove generate missions --count {count} --min-cost {lo} --max-cost {hi}")
    for col in ("seed", "missions", "costs", "rounds", "synth s", "search s", "proof s", "total s",
                "missions/min"):
        table.add_column(col, justify="right")
    recs = []
    for seed in range(seeds):
        t0 = time.perf_counter()
        try:
            c = generate_missions(spec, Settings(count=count, min_cost=lo, max_cost=hi, seed=seed))
            n, costs, st = len(c.missions), " ".join(str(m.cost) for m in c.missions), c.stats
        except GenerationFailed as exc:
            n, costs, st = 0, f"failed: {exc}", {}
        dt = time.perf_counter() - t0
        recs.append({"seed": seed, "missions": n, "seconds": dt, **st})
        table.add_row(str(seed), str(n), costs, str(st.get("rounds", "-")),
                      f"{st.get('synth_seconds', 0):.1f}", f"{st.get('search_seconds', 0):.1f}",
                      f"{st.get('proof_seconds', 0):.1f}", f"{dt:.1f}", f"{60 * n / dt:.1f}")
    total_n = sum(r["missions"] for r in recs)
    total_s = sum(r["seconds"] for r in recs)
    console.print(table)
    console.print(f"generator: {total_n} proven missions in {total_s:.0f} s = "
                  f"{60 * total_n / total_s:.1f} missions/min", highlight=False)
    return {"records": recs, "missions_per_minute": 60 * total_n / total_s}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--puzzles", type=int, default=50)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--modes", default="hint,model",
                    help="CP-SAT modes to run: hint (the engine as shipped), model (no hint)")
    ap.add_argument("--max-budget", type=int, default=None,
                    help="random_mission_puzzle's max_budget (default: its own)")
    ap.add_argument("--keep-hand", action="store_true",
                    help="keep the dealt hand (puzzles with cards to play)")
    ap.add_argument("--json", type=Path, default=None, help="save every record and the summary")
    ap.add_argument("--bare", type=int, default=0,
                    help="this many bare-budget puzzles instead of --puzzles")
    ap.add_argument("--bare-budget", type=int, default=8, help="points of the bare-budget puzzles")
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--spec", default="classic", help="classic, variant (new arrows) or a spec file")
    ap.add_argument("--workers", type=int, default=None, help="CP-SAT workers (default: the engine's)")
    ap.add_argument("--generate", type=int, default=3, help="generator seeds to time (0: none)")
    ap.add_argument("--gen-costs", default="2,5", help="generator --min-cost,--max-cost")
    ap.add_argument("--gen-count", type=int, default=7, help="generator --count")
    ap.add_argument("--book", type=int, default=0,
                    help="this many of bench/solve.py's book puzzles instead of --puzzles")
    ap.add_argument("--baseline", default=None,
                    help="git revision whose CP-SAT engine also runs (engine 'base', with the hint)")
    ap.add_argument("--deterministic-time", type=float, default=None,
                    help="CP-SAT's deterministic-time budget per solve (reproducible work)")
    args = ap.parse_args(argv)

    sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
    from helpers import bare_budget_puzzle, random_mission_puzzle

    spec = load_bench_spec(args.spec)
    book: list[Any] = []
    if args.book:
        sys.path.insert(0, str(ROOT / "bench"))
        from solve import book_puzzles

        args.puzzles = args.book
        t_book = time.perf_counter()
        book = book_puzzles(args.first + args.book)[args.first:]
        console.print(f"made {args.book} book puzzles in {time.perf_counter() - t_book:.0f} s",
                      highlight=False)
    if args.bare:
        args.puzzles = args.bare
    if args.puzzles == 0:  # the generator only
        if args.generate:
            bench_generate(args.generate, args.gen_count, *map(int, args.gen_costs.split(",")))
        return 0
    engines = ["search"] + [{"hint": "cpsat", "model": "model"}[m] for m in args.modes.split(",") if m]
    if args.baseline:
        load_baseline(args.baseline)
        engines.append("base")
    recs: dict[str, list[dict[str, Any]]] = {e: [] for e in engines}
    t_all = time.perf_counter()
    seeds = range(args.first, args.first + args.puzzles)
    for seed in seeds:
        if book:
            pos = book[seed - args.first][1]
        elif args.bare:
            pos = bare_budget_puzzle(spec, seed, 2 + seed % 5, budget=args.bare_budget)
        else:
            kw: dict[str, Any] = {"keep_hand": args.keep_hand}
            if args.max_budget is not None:
                kw["max_budget"] = args.max_budget
            pos = random_mission_puzzle(spec, seed, **kw)
        line = [f"{seed:3d}"]
        for e in engines:
            r = run(e, pos, args.time_limit, args.workers if e != "search" else None,
                    args.deterministic_time)
            r["seed"] = seed
            recs[e].append(r)
            cost = "" if r["cost"] is None else "/".join(map(str, r["cost"]))
            line.append(f"{e} {r['status'][:5]} {cost:7s} {r['seconds']:7.2f}s")
        console.print("  ".join(line), highlight=False)

    extra = "".join([f", max_budget={args.max_budget}" if args.max_budget is not None else "",
                     ", keep_hand" if args.keep_hand else ""])
    span = f"{seeds.start}..{seeds.stop - 1}"
    family = (f"bare_budget_puzzle({args.spec}, {span}, spent 2 + seed % 5, budget {args.bare_budget})"
              if args.bare else f"book Mission in N, puzzles {span}" if book
              else f"random_mission_puzzle({args.spec}, {span}{extra})")
    workers = "" if args.workers is None else f", {args.workers} worker(s)"
    table = Table(title=f"CP-SAT vs search: {family}, limit {args.time_limit:g} s{workers}")
    for col in ("engine", "solved", "unsolvable", "unknown", "errors", "proven", "median s",
                "max s", "ratio: median of", "ratio of medians"):
        table.add_column(col, justify="left" if col == "engine" else "right")
    out: dict[str, Any] = {"puzzles": args.puzzles, "bare": args.bare, "spec": args.spec,
                           "first": args.first, "workers": args.workers, "time_limit": args.time_limit,
                           "max_budget": args.max_budget, "keep_hand": args.keep_hand,
                           "python": platform.python_version(), "engines": {}}
    for e in engines:
        s = summary(recs[e])
        rr = ratios(recs[e], recs["search"]) if e != "search" else {}
        out["engines"][e] = {**s, **{f"vs_search_{k}": v for k, v in rr.items()}}
        table.add_row(e, str(s["solved"]), str(s["unsolvable"]), str(s["unknown"]), str(s["error"]),
                      str(s["proven"]), f"{s['median_s']:.3f}", f"{s['max_s']:.2f}",
                      "-" if not rr.get("median_of_ratios") else f"{rr['median_of_ratios']:.1f}x",
                      "-" if not rr.get("ratio_of_medians") else f"{rr['ratio_of_medians']:.1f}x")
    console.print(table)
    for e in engines:
        d = out["engines"][e]
        decided = d["unsolvable"] + sum(1 for r in recs[e] if r["status"] == "solved" and r["optimal"])
        d["decided"] = decided
        console.print(f"[b]{e}[/b] decided (proven optimum or proven unsolvable): {decided} of "
                      f"{d['n']} = {100 * decided / d['n']:.1f}%, {d['unsolvable']} proven impossible",
                      highlight=False)

    search = recs["search"]
    for e in engines[1:]:
        faster = {"infeasibility": [], "optimality": []}
        slower = 0
        disagree = []
        for r, s in zip(recs[e], search):
            # a claim is a proven answer: unsolvable, or solved and proven optimal
            if r["optimal"] and s["optimal"] and answer(r) != answer(s):
                disagree.append((r["seed"], answer(s), answer(r)))
            if r["status"] not in DECIDED or not r["optimal"]:
                continue
            if s["status"] not in DECIDED or r["seconds"] < s["seconds"]:
                kind = "infeasibility" if r["status"] == "unsolvable" else "optimality"
                faster[kind].append(f"{r['seed']} ({r['seconds']:.2f}s vs {s['seconds']:.2f}s"
                                    + ("" if s["status"] in DECIDED else f", search {s['status']}") + ")")
            else:
                slower += 1
        console.print(f"[b]{e}[/b] faster than search proving infeasibility: "
                      f"{', '.join(faster['infeasibility']) or 'never'}", highlight=False)
        console.print(f"[b]{e}[/b] faster than search proving optimality: "
                      f"{', '.join(faster['optimality']) or 'never'}", highlight=False)
        console.print(f"[b]{e}[/b] slower than search (both proven): {slower} puzzles", highlight=False)
        console.print(f"[b]{e}[/b] disagreements with search: "
                      f"{disagree if disagree else 'none'}", highlight=False)
        errors = [(r["seed"], r["error"]) for r in recs[e] if r["status"] == "error"]
        if errors:
            console.print(f"[b red]{e} errors[/b red]: {errors}", highlight=False)
        out["engines"][e]["faster"] = faster
        out["engines"][e]["disagreements"] = disagree
    if "base" in recs and "cpsat" in recs:
        out["against_base"] = against_base(recs["cpsat"], recs["base"], args.baseline)
    if args.generate and not args.book:
        out["generate"] = bench_generate(args.generate, args.gen_count,
                                         *map(int, args.gen_costs.split(",")))
    console.print(f"total {time.perf_counter() - t_all:.0f} s", highlight=False)
    if args.json:
        args.json.write_text(json.dumps({"summary": out, "records": recs}, indent=1), encoding="utf-8")
    bad = any(out["engines"][e].get("disagreements") for e in engines[1:]) or \
        any(r["status"] == "error" for e in engines for r in recs[e])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
