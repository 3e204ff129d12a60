"""`rove check` throughput: deals per minute for each difficulty and player, with the
share decided and the win rate.

    python bench/check.py [--spec classic] [--deals 8] [--jobs 2] [--node-limit 20000]
                          [--time-limit 120] [--seed 0] [--player thoughtful]
                          [--expert-node-limit 300000] [--json]

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
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check import CheckOptions, run_check  # noqa: E402
from rove.executors import make_executor  # noqa: E402
from rove.generators.deals import DIFFICULTIES  # noqa: E402
from rove.spec import load_spec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="classic")
    ap.add_argument("--deals", type=int, default=8, help="deals per difficulty")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--node-limit", type=int, default=20_000)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--difficulty", default=",".join(DIFFICULTIES))
    ap.add_argument("--player", default="thoughtful", help="thoughtful, expert or both, comma-separated")
    ap.add_argument("--expert-node-limit", type=int, default=2_000_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

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
