"""Start-up cost: how long the ``rove`` command takes before and around its real work.

    python bench/startup.py [--runs 21] [--json FILE]

Prints the median wall time, the fastest run and the median CPU time (user and system)
of:

* ``python -c pass``: the interpreter alone, the floor every command stands on;
* ``rove --help`` and ``rove validate standard``: the command line's own start-up (its
  imports); the target is under 0.2 s each;
* ``rove solve`` of a puzzle solved at its first node (Gripper triggers the spent Coil, on
  the classic deck); the target is under 0.3 s;
* in one process, the same solve through ``rove.solve.search.solve``: the first call (the
  deck compiled for the core, the core's tables made) and the median of the calls after
  it (what a solve costs beyond its search); the target is under 1 ms.

Each command runs ``--runs`` times, one after the other, through ``subprocess`` with the
installed console script; times are ``time.perf_counter`` around the whole run.  Medians
resist a loaded machine better than means, and the fastest run shows what an idle one
would give.  Only the standard library and rove are used.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
ROVE = str(BIN / "rove")

#: solved at its first node on the classic deck: Gripper, next to the spent Coil, triggers
#: it (the standard deck's c03 is another mission, which the same layout needs a search for)
PUZZLE = """\
format: rove-position/1
spec: classic
goal: mission
layout: |
  B C G
  L M S
spent: [C]
mission: c03
current: {card: null, points: 3}
"""

#: run in a fresh interpreter: the first solve and the median of the next ones, in seconds
IN_PROCESS = """\
import json, statistics, sys, time
from pathlib import Path
from rove.position import load_position
from rove.solve.search import solve
pos = load_position(Path(sys.argv[1]))
t = time.perf_counter()
first = solve(pos)
first_s = time.perf_counter() - t
assert first.status == "solved" and first.nodes == 1, first
times = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    solve(pos)
    times.append(time.perf_counter() - t)
print(json.dumps({"first": first_s, "median": statistics.median(times)}))
"""


def timed(args: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall seconds and CPU seconds (user + system, of the child) of ``runs`` runs of a
    command that must exit 0.  On a loaded machine the CPU time is the steadier figure."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21, help="runs of each command (default 21)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        puzzle = Path(tmp) / "puzzle.yaml"
        puzzle.write_text(PUZZLE, encoding="utf-8")
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "rove --help": [ROVE, "--help"],
            "rove validate standard": [ROVE, "validate", "standard"],
            "rove solve (1 node)": [ROVE, "solve", str(puzzle)],
        }
        results: dict[str, dict[str, float]] = {}
        for name, cmd in commands.items():
            walls, cpus = timed(cmd, args.runs)
            r = results[name] = {"median": statistics.median(walls), "fastest": min(walls),
                                 "cpu_median": statistics.median(cpus)}
            print(f"{name:<24} median {r['median']:.3f} s   fastest {r['fastest']:.3f} s   "
                  f"cpu median {r['cpu_median']:.3f} s", flush=True)
        proc = subprocess.run([sys.executable, "-c", IN_PROCESS, str(puzzle), str(max(args.runs, 200))],
                              check=True, capture_output=True, text=True)
        solve = json.loads(proc.stdout)
        results["solve() in process"] = solve
        print(f"{'solve() in process':<24} first {1000 * solve['first']:.2f} ms   "
              f"then median {1000 * solve['median']:.3f} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
