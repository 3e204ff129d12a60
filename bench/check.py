"""`rove check` throughput: deals per minute for each difficulty, with the share decided.

    python bench/check.py [--spec standard] [--deals 8] [--jobs 2] [--node-limit 20000]
                          [--time-limit 120] [--seed 0] [--json]

Each difficulty is run on its own (static checks skipped) through the same local
process pool ``rove check`` uses, so the figure is wall-clock deals per minute on
``--jobs`` cores.  The share decided is (solved + unsolvable) / deals: with a node
limit, a faster solver decides more deals in the same budget *and* more per minute.
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
from rove.deal import DIFFICULTIES  # noqa: E402
from rove.executors import make_executor  # noqa: E402
from rove.spec import load_spec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="standard")
    ap.add_argument("--deals", type=int, default=8, help="deals per difficulty")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--node-limit", type=int, default=20_000)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--difficulty", default=",".join(DIFFICULTIES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    spec = load_spec(args.spec)
    rows = []
    for diff in args.difficulty.split(","):
        opts = CheckOptions(deals=args.deals, difficulties=(diff,), seed=args.seed,
                            node_limit=args.node_limit, time_limit=args.time_limit, starts=0)
        t0 = time.monotonic()
        with make_executor("local", args.jobs) as ex:
            rep = run_check(spec, opts, executor=ex)
        wall = time.monotonic() - t0
        w = rep.winnability[diff]
        rows.append({
            "difficulty": diff, "deals": w["deals"], "seconds": round(wall, 2),
            "deals_per_minute": round(60 * w["deals"] / wall, 2) if wall else None,
            "decided_share": round(w["decided"] / w["deals"], 3) if w["deals"] else None,
            "solved": w["solved"], "unsolvable": w["unsolvable"], "unknown": w["unknown"],
            "nodes_per_second": round(w["nodes_total"] / wall) if wall else None,
        })
    meta = {"spec": spec.name, "jobs": args.jobs, "node_limit": args.node_limit,
            "time_limit": args.time_limit, "seed": args.seed, "python": platform.python_version()}
    if args.json:
        print(json.dumps({"meta": meta, "rows": rows}, indent=2))
        return
    print(f"rove check throughput: {spec.name}, {args.jobs} job(s), node limit {args.node_limit}, "
          f"time limit {args.time_limit:g} s, seed {args.seed}")
    print(f"{'difficulty':<11}{'deals':>6}{'seconds':>9}{'deals/min':>11}{'decided':>9}"
          f"{'solved':>8}{'unsolv.':>8}{'unknown':>8}{'nodes/s':>9}")
    for r in rows:
        print(f"{r['difficulty']:<11}{r['deals']:>6}{r['seconds']:>9.1f}{r['deals_per_minute']:>11.1f}"
              f"{100 * r['decided_share']:>8.0f}%{r['solved']:>8}{r['unsolvable']:>8}"
              f"{r['unknown']:>8}{r['nodes_per_second']:>9}")


if __name__ == "__main__":
    main()
