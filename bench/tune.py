"""`rove tune` as a designer runs it, and whether its result holds on other deals.

    python bench/tune.py [--decks bench/decks/o35.yaml,bench/decks/g35.yaml,...]
                         [--target normal=0.5] [--check-deals 100] [--check-seeds 1,2,3]
                         [--within 0.05] [--jobs 2] [--max-rounds N] [--keep DIR] [--json]

For each deck in turn: ``rove tune DECK --target T -o TUNED --json --jobs J`` with every
other option at its default, timed from outside (wall clock; the JSON rows also
hold the CPU the system charged to the finished commands, which misses the pool's
workers); then the tuned deck's expert on ``--check-deals`` deals of each seed
of ``--check-seeds``, ``rove check TUNED --player expert --deals N --seed S --difficulty
D --starts 0 --json`` (seeds 1, 2, 3: other deals than the tune's seed 0 ever plays).
It prints, per deck as it finishes: the wall and CPU time, the games the tune played,
whether it reached the target, the cards it changed, its rate on the block of deals it
was judged on (``held_out``: deals no choice of the search saw), each seed's wins, their
mean and whether the mean lies within ``--within`` (5 points) of the target, then the
tune's own log (its start and each round, with the rates of every deck it judged): where
its games went.  At the end, the table of every deck.  Games and rates are exact and the
same on any machine; the times are this machine's.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DECKS = ("bench/decks/o35.yaml", "bench/decks/g35.yaml", "bench/decks/f35.yaml", "bench/decks/t35.yaml")


def _rove() -> str:
    return str(Path(sys.executable).with_name("rove"))


def _children_cpu() -> float:
    """User plus system CPU seconds of every finished child process so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_deck(deck: str, target: str, check_deals: int, jobs: int, work: Path,
             max_rounds: int | None = None, seeds: tuple[int, ...] = (1, 2, 3),
             within: float = 0.05) -> dict[str, Any]:
    """One tune and the check of its result on other seeds (``max_rounds``: the tune's
    own default when None)."""
    difficulty, rate = target.split("=")
    tuned = work / f"{Path(deck).stem}-tuned.yaml"
    cmd = [_rove(), "tune", deck, "--target", target, "-o", str(tuned), "--json", "--jobs", str(jobs)]
    cmd += [] if max_rounds is None else ["--max-rounds", str(max_rounds)]
    t0, c0 = time.monotonic(), _children_cpu()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall, cpu = time.monotonic() - t0, _children_cpu() - c0
    if proc.returncode not in (0, 1):  # 1: not reached, the closest deck written
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    res = json.loads(proc.stdout)
    (work / f"{Path(deck).stem}-tune.json").write_text(proc.stdout, encoding="utf-8")
    others = [_check(tuned, difficulty, check_deals, seed, jobs) for seed in seeds]
    won = sum(o["won"] for o in others)
    dealt = sum(o["deals"] for o in others)
    lo, hi = others[0]["wilson95"]
    held = res["held_out"]
    return {
        "deck": deck, "target": target, "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
        "games": res["games"], "rounds": res["rounds"], "reached": res["reached"],
        "stopped": res.get("stopped", ""),
        "cards_changed": res.get("cards_changed", len(res["changes"])), "changes": res["changes"],
        "rate": held["rates"][difficulty]["win_rate"], "deals": held["rates"][difficulty]["deals"],
        "held_out_first": held["first_deal"],
        "seeds": {seed: o["won"] for seed, o in zip(seeds, others)}, "check_deals": check_deals,
        "other_rate": won / dealt, "other_deals": dealt,
        # the first seed's interval, as the bench printed before
        "other_wilson95": [lo, hi], "target_inside_other": lo <= float(rate) <= hi,
        "within": abs(won / dealt - float(rate)) <= within + 1e-9,
        "log": res["log"],  # the tune's path: each round and the rates of each deck judged
    }


def _check(tuned: Path, difficulty: str, deals: int, seed: int, jobs: int) -> dict[str, Any]:
    """The tuned deck's expert on ``deals`` deals of ``seed``: its winnability entry."""
    cmd = [_rove(), "check", str(tuned), "--player", "expert", "--deals", str(deals), "--seed", str(seed),
           "--difficulty", difficulty, "--starts", "0", "--json", "--jobs", str(jobs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout)["expert"]["winnability"][difficulty]
    return out


def _minutes(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s} s"


def _row(row: dict[str, Any]) -> str:
    """One deck's line of the table (markdown)."""
    first, n = row["held_out_first"], row["deals"]
    seeds = ", ".join(f"{w}" for w in row["seeds"].values())
    return (f"| {Path(row['deck']).stem} | {row['games']:,} | {row['rounds']} | {row['cards_changed']} "
            f"| {100 * row['rate']:.1f}% on deals {first}-{first + n - 1} "
            f"| {seeds} of {row['check_deals']} | {100 * row['other_rate']:.1f}% "
            f"| {'yes' if row['within'] else 'no'} | {_minutes(row['wall_seconds'])} |")


HEAD = ("| deck | games | rounds | cards changed | judged | seeds {} | mean | within {:g} points "
        "| wall |\n|---|---|---|---|---|---|---|---|---|")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", default=",".join(DECKS), help="comma-separated specs (names or paths)")
    ap.add_argument("--target", default="normal=0.5", help="DIFFICULTY=RATE, one target")
    ap.add_argument("--check-deals", type=int, default=100, help="other deals the result is checked on")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-rounds", type=int, default=None, help="the tune's --max-rounds (default: its own)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    ap.add_argument("--check-seeds", default="1,2,3", help="comma-separated seeds of the other deals")
    ap.add_argument("--within", type=float, default=0.05, help="how near the target the mean must be")
    ap.add_argument("--keep", type=Path, default=None, help="write the tuned decks here (else a temporary folder)")
    args = ap.parse_args()
    seeds = tuple(int(x) for x in args.check_seeds.split(","))
    head = HEAD.format(", ".join(map(str, seeds)), 100 * args.within)
    rows = []
    with tempfile.TemporaryDirectory(prefix="rove-bench-tune-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for deck in args.decks.split(","):
            row = run_deck(deck, args.target, args.check_deals, args.jobs, work, args.max_rounds,
                           seeds, args.within)
            rows.append(row)
            if not args.json:
                print(head + "\n" + _row(row), flush=True)
                print(f"    {'reached' if row['reached'] else 'not reached: ' + row['stopped']}; "
                      f"changed {'; '.join(row['changes']) or 'nothing'}", flush=True)
                for line in row["log"]:
                    print(f"    {line}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("\n" + head)
        for row in rows:
            print(_row(row))


if __name__ == "__main__":
    main()
