"""Time and memory of ``rove book`` at 1 and 2 jobs, where the time goes, and how the
puzzles spread over missions, grades and kinds.

    python bench/book.py [--sizes 30,100,365] [--jobs 1,2] [--repeat 1] [--spec standard] [--seed 1]
    python bench/book.py --sizes 24 --jobs 1,2 --repeat 3   # the --jobs 2 speed-up on a 24-puzzle book
    python bench/book.py --index DIR                        # the spread of an export (rove book --export-dir DIR)

Every (size, jobs) book is made in a fresh interpreter of its own session (through
``rove.book.build.make_book``, as ``rove book --export-dir`` makes it), watched from here
through ``/proc``: the wall time, the CPU time (user + sys) of the process and its
workers, and the peak resident size of the largest process, of all of them together, and
of the main process alone (the one that selects the puzzles and lays out the book).
At 2 jobs and more, ``busy`` is the share of the run the workers spent in tasks (every
task a worker runs is timed there), which shows how well the tasks keep the workers fed
whatever else the machine runs.  Inside, the phases are timed in the main process as the selection goes through them:
each kind in the order the book takes them (campaigns, hand puzzles, verified deals,
Mission in N: generating and proving the candidates, and counting their solutions), the
worked example, and the layout (the PDF, with the reader's-deck check and the hints
re-proved) and export.  At 2 jobs a phase's time is the wall time the selection spent
in it, waiting for its tasks included (later kinds' first tasks run during earlier
kinds, so a later kind may take less than its share of the work).  Prints one row per
book (with ``--repeat``, the run of median wall time of each), the speed-up of 2 jobs
over 1 in wall and the CPU they spent, whether every job count wrote the same bytes (it
must), and the spread of the last book made: puzzles per kind and grade, how often each
mission is posed against the variety rule's caps, and whether the stars ramp.
Only the standard library, PyYAML and rove are used.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the book made in the child: phases timed by wrapping the functions the book calls
CHILD = """\
import hashlib, json, sys, time
from rove.book import build
from rove.executors import make_executor
from rove.spec import load_spec

size, jobs, seed, spec_name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
phases = {}
# every task a worker runs goes through book.timed_task (this file, on the workers' path)
sys.path.insert(0, sys.argv[5])
import concurrent.futures, book as bench
pool_submit = concurrent.futures.ProcessPoolExecutor.submit
concurrent.futures.ProcessPoolExecutor.submit = (
    lambda self, fn, *a, **k: pool_submit(self, bench.timed_task, fn, *a, **k))

def timed(name, fn):
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            key = name(*a) if callable(name) else name
            phases[key] = phases.get(key, 0.0) + time.perf_counter() - t
    return wrapper

build._Fill.run = timed(lambda fill: fill.kind, build._Fill.run)
build._deals = timed("deal", build._deals)
build.example_puzzle = timed("example", build.example_puzzle)
build.render_book = timed("layout", build.render_book)
build.export_files = timed("export", build.export_files)
spec = load_spec(spec_name)
t0 = time.perf_counter()
with make_executor("local", jobs) as ex:
    made = build.make_book(spec, build.BookOptions(count=size, seed=seed, export=True), ex)
wall = time.perf_counter() - t0
busy = bench.busy_share(jobs, wall) if jobs > 1 else None
digest = hashlib.sha256(made.pdf + json.dumps(made.files, sort_keys=True).encode()).hexdigest()
rows = [[p.kind, p.stars, sorted(build.posed_missions(p))] for p in made.puzzles]
print(json.dumps({"wall": wall, "busy": busy, "phases": phases, "puzzles": len(made.puzzles), "sha": digest[:16],
                  "rows": rows, "short": made.short}))
"""

PHASES = ("campaign", "hand", "deal", "mission", "example", "layout", "export")


def timed_task(fn, task):
    """``fn(task)`` in a worker, the seconds it took added to the worker's line in the
    folder ``ROVE_BENCH_TASKS`` names."""
    t = time.monotonic()
    try:
        return fn(task)
    finally:
        with open(os.path.join(os.environ["ROVE_BENCH_TASKS"], str(os.getpid())), "a") as f:
            f.write(f"{time.monotonic() - t}\n")


def busy_share(jobs: int, wall: float) -> float:
    """The share of the run the workers spent in tasks (1.0: none was ever idle)."""
    folder = Path(os.environ["ROVE_BENCH_TASKS"])
    return sum(float(x) for f in folder.iterdir() for x in f.read_text().split()) / (jobs * wall)


def _session_procs(sid: int) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) == sid:  # field 6 of stat: the session id
                out.append(int(name))
    return out


def _watch(pid: int) -> tuple[float, int, int, int]:
    """(cpu seconds, peak kB of the largest process, sum of the processes' peaks, peak kB
    of the leader, the process that selects and lays out the book) of the session
    ``pid`` leads, polled until its leader ends (a worker's last half second of CPU may
    be missed)."""
    tick = os.sysconf("SC_CLK_TCK")
    cpu: dict[int, float] = {}
    peak: dict[int, int] = {}
    while True:
        for p in _session_procs(pid):
            try:
                stat = Path(f"/proc/{p}/stat").read_text()
                status = Path(f"/proc/{p}/status").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            cpu[p] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    peak[p] = max(peak.get(p, 0), int(line.split()[1]))
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            break
        time.sleep(0.5)
    return sum(cpu.values()), max(peak.values(), default=0), sum(peak.values()), peak.get(pid, 0)


def run_one(size: int, jobs: int, seed: int, spec: str) -> dict:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryDirectory(prefix="rove-bench-") as tasks:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(size), str(jobs), str(seed), spec,
                                 str(Path(__file__).resolve().parent)],
                                stdout=out, start_new_session=True, env={**os.environ, "ROVE_BENCH_TASKS": tasks})
        cpu, peak, peaks, main = _watch(proc.pid)
        wall = time.perf_counter() - t
        proc.returncode = 0
        out.seek(0)
        text = out.read()
    row = json.loads(text.strip().splitlines()[-1])
    row.update(size=size, jobs=jobs, cpu=cpu, peak_kb=peak, peaks_kb=peaks, main_kb=main,
               wall_outside=wall)
    return row


def export_rows(folder: Path) -> list[list]:
    """(kind, stars, missions posed) of every puzzle of an export, in book order, from its
    ``index.json`` and the position files it names (a campaign's missions from all its
    files, ``NAME-1.yaml``, ``NAME-2.yaml``, ...), as ``posed_missions`` counts them."""
    import yaml

    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    rows = []
    for row in index["puzzles"]:
        files = [folder / row["file"]]
        if row["kind"] == "campaign":
            stem = row["file"][: -len("-1.yaml")]
            files = sorted(folder.glob(f"{stem}-*.yaml"), key=lambda f: int(f.stem.rsplit("-", 1)[1]))
        missions = {yaml.safe_load(f.read_text(encoding="utf-8")).get("mission") for f in files}
        rows.append([row["kind"], row["stars"], sorted(m for m in missions if m is not None)])
    return rows


def print_spread(rows: list[list]) -> None:
    """Puzzles per kind and star grade, each mission's count against the book's cap and
    the busiest (mission, grade) against the grade cap, neighbours posing one mission,
    and whether the stars ramp through the book."""
    from collections import Counter

    from rove.book.build import KIND_ORDER, grade_cap, mission_cap

    n = len(rows)
    kinds = Counter(k for k, _, _ in rows)
    print(f"{n} puzzles; kinds: " + ", ".join(f"{k} {kinds[k]}" for k in KIND_ORDER if kinds[k]))
    print(f"  {'stars':>5} " + " ".join(f"{k:>9}" for k in KIND_ORDER if kinds[k]) + f" {'all':>6}")
    for s in range(1, 6):
        print(f"  {s:>5} " + " ".join(f"{sum(r[0] == k and r[1] == s for r in rows):>9}"
                                      for k in KIND_ORDER if kinds[k])
              + f" {sum(r[1] == s for r in rows):>6}")
    posed = Counter(m for _, _, ms in rows for m in ms)
    graded = Counter((m, s) for _, s, ms in rows for m in ms)
    (m, s), most = max(graded.items(), key=lambda kv: (kv[1], kv[0])) if graded else (("-", 0), 0)
    print(f"  missions posed, by grade (book cap {mission_cap(n)}, grade cap {grade_cap(n)}; "
          f"the most in one grade: {most}, {m} at {s} stars)")
    print(f"  {'mission':>7} " + " ".join(f"{str(s) + '*':>5}" for s in range(1, 6)) + f" {'all':>6}")
    for mm in sorted(posed):
        print(f"  {mm:>7} " + " ".join(f"{graded[mm, s]:>5}" for s in range(1, 6)) + f" {posed[mm]:>6}")
    clashes = sum(bool(set(a[2]) & set(b[2])) for a, b in zip(rows, rows[1:]))
    ramps = all(a[1] <= b[1] for a, b in zip(rows, rows[1:]))
    print(f"  neighbours posing one mission: {clashes}; the stars ramp through the book: "
          f"{'yes' if ramps else 'NO'}")


def median_run(size: int, jobs: int, seed: int, spec: str, repeat: int) -> dict:
    """The run of median wall time of ``repeat`` runs (every run's wall in ``walls``)."""
    runs = sorted((run_one(size, jobs, seed, spec) for _ in range(repeat)), key=lambda r: r["wall"])
    row = runs[len(runs) // 2]
    row["walls"] = [r["wall"] for r in runs]
    row["same"] = len({r["sha"] for r in runs}) == 1
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="30,100,365", help="book sizes, comma-separated (default 30,100,365)")
    ap.add_argument("--jobs", default="1,2", help="job counts, comma-separated (default 1,2)")
    ap.add_argument("--spec", default="standard", help="deck (default the bundled standard deck)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each book; the median is shown (default 1)")
    ap.add_argument("--index", type=Path, metavar="DIR",
                    help="only print the spread of an export (rove book --export-dir DIR)")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    args = ap.parse_args()
    if args.index:
        print_spread(export_rows(args.index))
        return
    sizes = [int(x) for x in args.sizes.split(",")]
    jobs = [int(x) for x in args.jobs.split(",")]
    print(f"rove book on {args.spec}, seed {args.seed}; {os.cpu_count()} cores seen "
          "(figures from a shared machine are noisy)")
    head = (f"{'puzzles':>7} {'jobs':>4} {'made':>4} {'wall s':>8} {'cpu s':>8} {'busy':>5} {'peak MB':>8} "
            f"{'all MB':>7} {'main MB':>7}  " + " ".join(f"{p:>10}" for p in PHASES))
    print(head)
    rows = []
    for size in sizes:
        for j in jobs:
            r = median_run(size, j, args.seed, args.spec, max(1, args.repeat))
            rows.append(r)
            ph = " ".join(f"{r['phases'].get(p, 0.0):10.1f}" for p in PHASES)
            busy = "-" if r["busy"] is None else f"{100 * r['busy']:.0f}%"
            print(f"{size:>7} {j:>4} {r['puzzles']:>4} {r['wall']:8.1f} {r['cpu']:8.1f} {busy:>5} "
                  f"{r['peak_kb'] / 1024:8.0f} {r['peaks_kb'] / 1024:7.0f} {r['main_kb'] / 1024:7.0f}  {ph}",
                  flush=True)
            if args.json:
                print(json.dumps(r))
    for size in sizes:
        got = {r["jobs"]: r for r in rows if r["size"] == size}
        same = len({r["sha"] for r in got.values()}) == 1 and all(r["same"] for r in got.values())
        line = f"{size} puzzles: the same bytes at every job count: {'yes' if same else 'NO'}"
        if 1 in got and 2 in got:
            line += (f"; 2 jobs {got[1]['wall'] / got[2]['wall']:.2f}x as fast as 1 (wall), "
                     f"{got[2]['cpu'] / got[1]['cpu']:.2f}x the CPU")
        print(line)
        last = got[max(got)]
        for s in last["short"]:
            print(f"  short: {s}")
        print_spread(last["rows"])
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
