"""Start-up cost: how long the ``rove`` command takes before and around its real work.

    python bench/startup.py [--runs 21] [--cold] [--json FILE]

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

Each command runs ``--runs`` times through ``subprocess`` with the installed console
script, the commands taking turns (so a load that comes and goes falls on all of them);
times are ``time.perf_counter`` around the whole run.  Medians resist a loaded machine
better than means, and the fastest run shows what an idle one would give.

*Bytecode.*  The package is installed editable (``generator/`` is on the path), so pip
compiles none of its modules; with ``PYTHONDONTWRITEBYTECODE`` set, as in many CI and
container environments, Python never writes them either and compiles every module of
rove at every start.  ``make setup`` compiles them (``compileall``).  The bench says
how many of rove's modules have current bytecode, and ``--cold`` times the commands as
if none had: on a copy of the package without its ``__pycache__`` folders (put first on
``PYTHONPATH``; the rest of the environment keeps its bytecode), with
``PYTHONDONTWRITEBYTECODE=1``.  Only the standard library and rove are used.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import rove

BIN = Path(sys.executable).parent
ROVE = str(BIN / "rove")
PACKAGE = Path(rove.__file__).resolve().parent
#: the start-up targets, seconds of wall time on an idle machine
TARGETS = {"rove --help": 0.2, "rove validate standard": 0.2, "rove solve (1 node)": 0.3}

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


def timed_once(args: list[str], env: dict[str, str] | None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, of the child) of one run of a command
    that must exit 0.  On a loaded machine the CPU time is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def bytecode_state(package: Path) -> tuple[int, int]:
    """(modules of the package whose bytecode is written and current, modules)."""
    sources = sorted(package.rglob("*.py"))
    current = 0
    for src in sources:
        pyc = Path(importlib.util.cache_from_source(str(src)))
        # a timestamp-checked pyc holds the source's mtime and size at bytes 8..16
        if pyc.is_file():
            head = pyc.read_bytes()[:16]
            st = src.stat()
            if (int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
                    and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF):
                current += 1
    return current, len(sources)


def cold_copy(tmp: Path) -> dict[str, str]:
    """A copy of the package without bytecode, and the environment that runs it: the copy
    first on the path, no bytecode written (the bundled decks are package data: they come
    along)."""
    root = tmp / "cold"
    shutil.copytree(PACKAGE, root / "generator" / "rove", ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "generator"), *filter(None, [env.get("PYTHONPATH")])])
    return env


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=21, help="runs of each command (default 21)")
    ap.add_argument("--cold", action="store_true",
                    help="time rove as if none of its own modules had bytecode (see above)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    current, modules = bytecode_state(PACKAGE)
    try:
        load = f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
    except OSError:  # pragma: no cover - no load average on this system
        load = f"{os.cpu_count()} cores"
    print(f"rove at {PACKAGE}: {current} of {modules} modules with current bytecode"
          f"{'; timed without any (--cold)' if args.cold else ''}; {load}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        puzzle = Path(tmp) / "puzzle.yaml"
        puzzle.write_text(PUZZLE, encoding="utf-8")
        env = cold_copy(Path(tmp)) if args.cold else None
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "rove --help": [ROVE, "--help"],
            "rove validate standard": [ROVE, "validate", "standard"],
            "rove solve (1 node)": [ROVE, "solve", str(puzzle)],
        }
        for cmd in commands.values():  # once each, untimed: the files' pages into the cache
            timed_once(cmd, env)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):  # the commands take turns
            for name, cmd in commands.items():
                runs[name].append(timed_once(cmd, env))
        results: dict[str, dict[str, float]] = {}
        for name, got in runs.items():
            walls, cpus = [w for w, _ in got], [c for _, c in got]
            r = results[name] = {"median": statistics.median(walls), "fastest": min(walls),
                                 "cpu_median": statistics.median(cpus)}
            target = TARGETS.get(name)
            verdict = "" if target is None else \
                f"   target {target} s: {'met' if r['median'] < target else 'NOT MET'}"
            print(f"{name:<24} median {r['median']:.3f} s   fastest {r['fastest']:.3f} s   "
                  f"cpu median {r['cpu_median']:.3f} s{verdict}", flush=True)
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
