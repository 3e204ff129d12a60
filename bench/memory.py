"""Memory of a long mission search: the peak resident size of one A* solve run to its
node limit, in a fresh interpreter each time.

    python bench/memory.py [--nodes 1,50000,200000]

The puzzle is a mission of ``bench/decks/f35.yaml`` posed midway through a deal (Brain,
Laser and Coil spent, four cards in hand): its optimum lies far beyond 200,000 nodes, so
every run stops at its limit and keeps what an expert's or seer's long search keeps.
Prints, per node limit, the status, the seconds, the peak resident size and the
kilobytes per node above the one-node run's peak (the interpreter, rove and the core's
tables), which is what the search itself holds.  Only the standard library and rove are
used.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PUZZLE = f"""\
format: rove-position/1
spec: {ROOT / "bench" / "decks" / "f35.yaml"}
goal: mission
layout: |
  G C M
  B L S
spent: [B, L, C]
mission: c04
hand: [c09, c08, c05, c03]
draw: [c07, c11, c02, c12, c01, c06]
discard: [c10]
current: null
"""

#: run in a fresh interpreter: one solve, then the process's own peak resident size
CHILD = """\
import json, resource, sys, time
from pathlib import Path
from rove.position import load_position
from rove.solve.search import solve
pos = load_position(Path(sys.argv[1]))
t = time.perf_counter()
r = solve(pos, max_nodes=int(sys.argv[2]))
print(json.dumps({"status": r.status, "nodes": r.nodes, "seconds": time.perf_counter() - t,
                  "peak_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", default="1,50000,200000",
                    help="node limits, comma-separated; the first is the baseline (default 1,50000,200000)")
    args = ap.parse_args()
    limits = [int(x) for x in args.nodes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        puzzle = Path(tmp) / "puzzle.yaml"
        puzzle.write_text(PUZZLE, encoding="utf-8")
        base = None
        for limit in limits:
            proc = subprocess.run([sys.executable, "-c", CHILD, str(puzzle), str(limit)],
                                  check=True, capture_output=True, text=True)
            r = json.loads(proc.stdout)
            base = r["peak_kb"] if base is None else base
            per = (r["peak_kb"] - base) / r["nodes"] if r["nodes"] and r["peak_kb"] > base else 0.0
            print(f"limit {limit:>9,}  {r['status']:<10} {r['nodes']:>9,} nodes  {r['seconds']:7.2f} s  "
                  f"peak {r['peak_kb'] / 1024:8.1f} MB  {per:6.2f} KB a node above the first", flush=True)


if __name__ == "__main__":
    main()
