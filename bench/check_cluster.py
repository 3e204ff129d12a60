"""`rove check` on a Dask cluster against the local process pool: the same figures byte
for byte, and each one's throughput in deals a second.

    python bench/check_cluster.py [--spec standard] [--deals 10] [--difficulty normal,impossible]
                                  [--starts 0] [--workers 2] [--seed 0]

One run checks the deck twice through ``rove.check.run_check``, the function behind
``rove check``: once on a local pool of ``--workers`` processes (``--executor local
--jobs N``), once on a Dask ``LocalCluster`` of ``--workers`` single-threaded worker
processes started here, through the same ``DaskExecutor`` that ``rove check --executor
dask --scheduler ADDRESS`` uses on a real cluster.  It prints each run's wall time,
deals a second (every deal of every difficulty; the static part included) and worker
seconds a deal (the tasks' own time, which is what a cluster's cores are paid for), then
whether the two reports' JSON without its ``timing`` section (the only part that
depends on the machine) is the same byte for byte; it exits 1 if it is not.  The
cluster's start is not timed; its scheduler's round trips are.
"""

from __future__ import annotations

import argparse
import json
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
from rove.executors import DaskExecutor, LocalPoolExecutor  # noqa: E402
from rove.spec import load_spec  # noqa: E402


def timed(spec: Any, options: CheckOptions, executor: Any) -> tuple[str, float, float]:
    """(the report's JSON without timing, wall seconds, the tasks' seconds) of one check."""
    t0 = time.monotonic()
    report = run_check(spec, options, executor)
    wall = time.monotonic() - t0
    t = report.timing
    task_seconds = (t.get("starts_seconds", 0.0) + sum(t.get("deal_seconds", {}).values())
                    + sum(t.get("expert_seconds", {}).values()))
    return json.dumps(report.to_json(timing=False), sort_keys=True), wall, task_seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="standard")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--difficulty", default="normal,impossible")
    ap.add_argument("--starts", type=int, default=0, help="start arrangements for the static part")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        sys.exit("needs Dask distributed: pip install 'rove[dask]'")
    spec = load_spec(args.spec)
    options = CheckOptions(deals=args.deals, difficulties=tuple(args.difficulty.split(",")),
                           seed=args.seed, starts=args.starts)
    deals = args.deals * len(options.difficulties)
    runs: dict[str, tuple[str, float, float]] = {}
    with LocalPoolExecutor(args.workers) as pool:
        runs["local pool"] = timed(spec, options, pool)
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        runs["dask LocalCluster"] = timed(spec, options, DaskExecutor(client=client))
    print(f"{args.spec}: {deals} deals ({args.deals} a difficulty, {args.difficulty}), "
          f"starts {args.starts}, {args.workers} workers")
    for name, (_, wall, tasks) in runs.items():
        print(f"  {name:18} wall {wall:6.1f} s  {deals / wall:6.2f} deals/s  "
              f"worker time {tasks / deals:.2f} s a deal")
    (a, wall_a, _), (b, wall_b, _) = runs.values()
    print(f"  dask / local wall: {wall_b / wall_a:.2f}x")
    same = a == b
    print(f"  same JSON (without timing) byte for byte: {'yes' if same else 'NO'} ({len(a):,} bytes)")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
