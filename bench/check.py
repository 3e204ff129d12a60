"""`rove check` throughput: deals per minute for each difficulty and player, with the
share decided and the win rate; or, with ``--defaults``, the check a designer runs.

    python bench/check.py [--spec classic] [--deals 8] [--jobs 2] [--node-limit 20000]
                          [--time-limit 120] [--seed 0] [--player thoughtful]
                          [--expert-node-limit 300000] [--json]
    python bench/check.py --defaults [--decks standard,bench/decks/g35.yaml,...]
                          [--deals N] [--jobs 2] [--json]

``--defaults`` runs ``rove check DECK --json --jobs J`` as a designer would (every other
option at its default; ``--deals`` only when given) on each deck in turn, in a process of
its own, and prints its wall time, its CPU time (the command's and its workers' tasks'), where the
workers' time went (static checks, the expert's games, the thoughtful player's deals),
the thoughtful player's share decided and how (expert's win, seer, exact search), its
proven losses with their proofs' nodes, the nodes a deal took, and per difficulty the
deals the sequential run played, the width of the expert's interval and why it stopped.

Each difficulty and player is run on its own (static checks skipped) through the same
local process pool ``rove check`` uses, so the figure is wall-clock deals per minute on
``--jobs`` cores.  The share decided is (solved + unsolvable) / deals for the thoughtful
solver: with a node limit, a faster solver decides more deals in the same budget *and*
more per minute; the expert player (``--player expert``) decides every deal.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check import CheckOptions, run_check  # noqa: E402
from rove.executors import make_executor  # noqa: E402
from rove.generators.deals import DIFFICULTIES  # noqa: E402
from rove.spec import load_spec  # noqa: E402

DECKS = ("standard", "bench/decks/g35.yaml", "bench/decks/o35.yaml", "bench/decks/t35.yaml")


def run_defaults(deck: str, deals: int | None, jobs: int, save: Path | None = None) -> dict[str, Any]:
    """One ``rove check`` with its defaults, timed from outside: wall and CPU seconds (the
    command's and its worker processes', which end with it), and its report's summary
    (the whole report written into ``save``, a folder, when given)."""
    rove = str(Path(sys.executable).with_name("rove"))
    cmd = [rove, "check", deck, "--json", "--jobs", str(jobs)] + ([] if deals is None else ["--deals", str(deals)])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command's own process
    if proc.returncode not in (0, 1):  # 1: a failed static check, still a report
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    rep = json.loads(proc.stdout)
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
        (save / f"{Path(deck).stem}.json").write_text(proc.stdout, encoding="utf-8")
    main_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return summarise(deck, rep, wall, main_cpu)


def summarise(deck: str, rep: dict[str, Any], wall: float, main_cpu: float) -> dict[str, Any]:
    """The figures of one run.  Its CPU time is the command's own (``main_cpu``) plus its
    workers' task seconds: the pool's workers are the children of a fork server that
    the command does not wait for, so the operating system's count of children's CPU
    misses them; a worker runs one task at a time, so on a machine not shared its task
    seconds are its CPU seconds."""
    timing = rep["timing"]
    static = timing["starts_seconds"]
    expert = sum(timing.get("expert_seconds", {}).values())
    thoughtful = sum(timing["deal_seconds"].values())
    win = rep["winnability"]
    deals = rep["deals"]
    n = len(deals)
    decided = sum(w["decided"] for w in win.values())
    proofs = [p for w in win.values() for p in w.get("lost_proof_nodes", [])]
    nodes = sorted(r["nodes"] + (r["seer_nodes"] or 0) for r in deals)
    ex = rep.get("expert") or {}
    games = ex.get("deals", [])
    return {
        "deck": deck, "deals_per_difficulty": rep["options"]["deals"] or max(
            (v["deals"] for v in (rep.get("verdict") or {}).values()), default=0),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(main_cpu + static + expert + thoughtful, 1),
        "static_seconds": round(static, 1), "expert_seconds": round(expert, 1),
        "thoughtful_seconds": round(thoughtful, 1),
        "thoughtful_decided_share": round(decided / n, 3) if n else None,
        "decided_by": {k: sum(w.get(f"decided_by_{k}", 0) for w in win.values()) for k in ("expert", "seer", "search")},
        "proven_lost": len(proofs), "lost_proof_nodes_max": max(proofs, default=None),
        "nodes_per_deal_median": nodes[n // 2] if n else None,
        "expert_games": len(games), "expert_win_rate": {d: w["win_rate"] for d, w in ex.get("winnability", {}).items()},
        "thoughtful_win_rate": {d: w["win_rate"] for d, w in win.items()},
        # the verdict per difficulty: the deals the expert played, its interval's width
        # (valid under the stopping rule) and why the run stopped
        "verdict": {d: {"deals": v["deals"], "width_points": _width(v["interval"]), "verdict": v["verdict"],
                        "settled": v["settled"], "stopped": v["stopped"]}
                    for d, v in (rep.get("verdict") or {}).items()},
    }


def _width(ci: list[float] | None) -> float | None:
    return None if ci is None else round(100 * (ci[1] - ci[0]), 1)


def defaults(args: argparse.Namespace) -> None:
    rows = []
    for deck in args.decks.split(","):
        rows.append(run_defaults(deck, args.deals, args.jobs, args.save))
        print(f"{deck}: {json.dumps(rows[-1])}", file=sys.stderr, flush=True)  # as it goes
    if args.json:
        print(json.dumps({"jobs": args.jobs, "python": platform.python_version(), "rows": rows}, indent=2))
        return
    print(f"rove check with its defaults{'' if args.deals is None else f' (--deals {args.deals})'}, "
          f"--jobs {args.jobs}; seconds: wall, CPU, and the workers' static / expert / thoughtful")
    print(f"{'deck':<22}{'deals':>6}{'wall':>7}{'CPU':>7}{'static':>7}{'expert':>7}{'thought':>8}"
          f"{'decided':>8}{'exp/seer/srch':>14}{'lost':>5}{'proof max':>10}{'nodes/deal':>11}")
    for r in rows:
        by = r["decided_by"]
        share = "-" if r["thoughtful_decided_share"] is None else f"{100 * r['thoughtful_decided_share']:.0f}%"
        proof = "-" if r["lost_proof_nodes_max"] is None else f"{r['lost_proof_nodes_max']:,}"
        print(f"{Path(r['deck']).stem:<22}{r['deals_per_difficulty']:>6}{r['wall_seconds']:>7.0f}{r['cpu_seconds']:>7.0f}"
              f"{r['static_seconds']:>7.0f}{r['expert_seconds']:>7.0f}{r['thoughtful_seconds']:>8.0f}{share:>8}"
              f"{by['expert']:>6}/{by['seer']}/{by['search']:<5}{r['proven_lost']:>5}{proof:>10}"
              f"{r['nodes_per_deal_median'] or 0:>11,}")
        rates = ", ".join(f"{d} {_pct(r['expert_win_rate'].get(d))}/{_pct(r['thoughtful_win_rate'].get(d))}"
                          for d in r["thoughtful_win_rate"])
        print(f"{'':<22}win rates expert/thoughtful: {rates}")
        said = "; ".join(f"{d} {v['deals']} deals, {v['width_points']} points wide, {v['verdict']} ({v['stopped']})"
                         for d, v in r["verdict"].items())
        if said:
            print(f"{'':<22}verdict: {said}")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--defaults", action="store_true", help="run `rove check DECK` with its defaults on --decks")
    ap.add_argument("--decks", default=",".join(DECKS), help="with --defaults: decks, comma-separated")
    ap.add_argument("--save", type=Path, default=None, help="with --defaults: a folder for each check's JSON report")
    ap.add_argument("--spec", default="classic")
    ap.add_argument("--deals", type=int, default=None, help="deals per difficulty (8; with --defaults, rove's)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--node-limit", type=int, default=20_000)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--difficulty", default=",".join(DIFFICULTIES))
    ap.add_argument("--player", default="thoughtful", help="thoughtful, expert or both, comma-separated")
    ap.add_argument("--expert-node-limit", type=int, default=2_000_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.defaults:
        defaults(args)
        return
    args.deals = 8 if args.deals is None else args.deals

    spec = load_spec(args.spec)
    rows = []
    for player in args.player.split(","):
        for diff in args.difficulty.split(","):
            opts = CheckOptions(deals=args.deals, difficulties=(diff,), seed=args.seed,
                                node_limit=args.node_limit, time_limit=args.time_limit, starts=0,
                                players=(player,), expert_node_limit=args.expert_node_limit)
            t0 = time.monotonic()
            with make_executor("local", args.jobs) as ex:
                rep = run_check(spec, opts, executor=ex)
            wall = time.monotonic() - t0
            if player == "expert":
                e = rep.expert["winnability"][diff]  # type: ignore[index]
                won, lost, unknown, nodes = e["won"], e["lost"], 0, e["nodes_total"]
            else:
                w = rep.winnability[diff]
                won, lost, unknown, nodes = w["solved"], w["unsolvable"], w["unknown"], w["nodes_total"]
            n = won + lost + unknown
            rows.append({
                "player": player, "difficulty": diff, "deals": n, "seconds": round(wall, 2),
                "deals_per_minute": round(60 * n / wall, 2) if wall else None,
                "decided_share": round((won + lost) / n, 3) if n else None,
                "solved": won, "unsolvable": lost, "unknown": unknown,
                "win_rate": round(won / (won + lost), 3) if won + lost else None,
                "nodes_per_second": round(nodes / wall) if wall else None,
            })
    meta = {"spec": spec.name, "jobs": args.jobs, "node_limit": args.node_limit,
            "expert_node_limit": args.expert_node_limit,
            "time_limit": args.time_limit, "seed": args.seed, "python": platform.python_version()}
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows}, indent=2))
        return
    print(f"rove check throughput: {spec.name}, {args.jobs} job(s), node limit {args.node_limit}, "
          f"time limit {args.time_limit:g} s, seed {args.seed}")
    print(f"{'player':<11}{'difficulty':<11}{'deals':>6}{'seconds':>9}{'deals/min':>11}{'decided':>9}"
          f"{'won':>6}{'lost':>6}{'unknown':>8}{'win rate':>9}{'nodes/s':>9}")
    for r in rows:
        rate = "-" if r["win_rate"] is None else f"{100 * r['win_rate']:.1f}%"
        print(f"{r['player']:<11}{r['difficulty']:<11}{r['deals']:>6}{r['seconds']:>9.1f}"
              f"{r['deals_per_minute']:>11.1f}{100 * r['decided_share']:>8.0f}%{r['solved']:>6}"
              f"{r['unsolvable']:>6}{r['unknown']:>8}{rate:>9}{r['nodes_per_second']:>9}")


if __name__ == "__main__":
    main()
