"""`rove tune` as a designer runs it, and whether its result holds on other deals.

    python bench/tune.py [--decks bench/decks/o35.yaml,bench/decks/g35.yaml,...]
                         [--target normal=0.5] [--check-deals 100] [--jobs 2]
                         [--max-rounds N] [--json]

For each deck in turn: ``rove tune DECK --target T -o TUNED --json --jobs J`` with every
other option at its default, timed from outside (wall clock); then the tuned deck's
expert on ``--check-deals`` deals it has never played, ``rove check TUNED --player expert
--deals N --seed 1 --difficulty D --starts 0 --json`` (seed 1: other deals than the
tune's seed 0).  It prints, per deck: the wall time, the games the tune played, whether
it reached the target, its rate on the block of deals it was judged on (``held_out``:
deals no choice of the search saw), and the rate on the other seeds with its Wilson 95%
interval and whether the target lies inside it, then the tune's own log (its start and
each round, with the rates of every deck it judged): where its games went.  Games and rates
are exact and the same on any machine; the wall time is this machine's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DECKS = ("bench/decks/o35.yaml", "bench/decks/g35.yaml", "bench/decks/t35.yaml")


def _rove() -> str:
    return str(Path(sys.executable).with_name("rove"))


def run_deck(deck: str, target: str, check_deals: int, jobs: int, work: Path,
             max_rounds: int | None = None) -> dict[str, Any]:
    """One tune and the check of its result on other seeds (``max_rounds``: the tune's
    own default when None)."""
    difficulty, rate = target.split("=")
    tuned = work / f"{Path(deck).stem}-tuned.yaml"
    cmd = [_rove(), "tune", deck, "--target", target, "-o", str(tuned), "--json", "--jobs", str(jobs)]
    cmd += [] if max_rounds is None else ["--max-rounds", str(max_rounds)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.monotonic() - t0
    if proc.returncode not in (0, 1):  # 1: not reached, the closest deck written
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    res = json.loads(proc.stdout)
    check = subprocess.run([_rove(), "check", str(tuned), "--player", "expert", "--deals", str(check_deals),
                            "--seed", "1", "--difficulty", difficulty, "--starts", "0", "--json",
                            "--jobs", str(jobs)],
                           capture_output=True, text=True, cwd=ROOT, check=False)
    if check.returncode not in (0, 1):
        raise SystemExit(f"rove check {tuned} exited {check.returncode}: {check.stderr[-2000:]}")
    other = json.loads(check.stdout)["expert"]["winnability"][difficulty]
    lo, hi = other["wilson95"]
    held = res["held_out"]
    return {
        "deck": deck, "target": target, "wall_seconds": round(wall, 1), "games": res["games"],
        "rounds": res["rounds"], "reached": res["reached"], "changes": len(res["changes"]),
        "rate": held["rates"][difficulty]["win_rate"], "deals": held["rates"][difficulty]["deals"],
        "held_out_first": held["first_deal"],
        "other_rate": other["win_rate"], "other_wilson95": [lo, hi], "other_deals": other["deals"],
        "target_inside_other": lo <= float(rate) <= hi,
        "log": res["log"],  # the tune's path: each round and the rates of each deck judged
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", default=",".join(DECKS), help="comma-separated specs (names or paths)")
    ap.add_argument("--target", default="normal=0.5", help="DIFFICULTY=RATE, one target")
    ap.add_argument("--check-deals", type=int, default=100, help="other deals the result is checked on")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-rounds", type=int, default=None, help="the tune's --max-rounds (default: its own)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rove-bench-tune-") as tmp:
        for deck in args.decks.split(","):
            row = run_deck(deck, args.target, args.check_deals, args.jobs, Path(tmp), args.max_rounds)
            rows.append(row)
            if not args.json:
                m, s = divmod(round(row["wall_seconds"]), 60)
                first, n = row["held_out_first"], row["deals"]
                lo, hi = row["other_wilson95"]
                print(f"{deck}: {int(m)} min {s:.0f} s, {row['games']} games, "
                      f"{row['rounds']} round(s), {'reached' if row['reached'] else 'not reached'}; "
                      f"{100 * row['rate']:.1f}% over deals {first}-{first + n - 1}; "
                      f"other seeds {100 * row['other_rate']:.1f}% "
                      f"({100 * lo:.1f}-{100 * hi:.1f}%, target "
                      f"{'inside' if row['target_inside_other'] else 'outside'})", flush=True)
                for line in row["log"]:
                    print(f"    {line}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
