"""Build time of the core's exact distance tables, one table at a time.

    python bench/tables.py [--spec bench/decks/g35.yaml] [--spent all] [--cards 0,1,...]

For each mission card of the deck (or those given), one table is built from scratch
(the layout index, then the backward search over every layout) and timed: processor
seconds of this thread (the build runs on one core, so this is the figure to hold to
the 5-second target whatever else the machine is doing) and wall seconds.  Printed
beside it: layouts, how many reach the pattern, the largest distance and the mean.
``--spent`` is ``all`` (every ability spent: the tables the searches use), ``none``, or
a bit mask of spent modules.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove import _core  # noqa: E402
from rove.engine import Deck  # noqa: E402
from rove.solve import core  # noqa: E402
from rove.spec import load_spec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(ROOT / "bench" / "decks" / "g35.yaml"))
    ap.add_argument("--spent", default="all", help="all, none, or a bit mask of spent modules")
    ap.add_argument("--cards", default="", help="mission cards by index, comma-separated (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    deck = Deck(load_spec(args.spec))
    spent = {"all": (1 << deck.n) - 1, "none": 0}.get(args.spent)
    spent = int(args.spent, 0) if spent is None else spent
    cards = [int(c) for c in args.cards.split(",")] if args.cards else range(len(deck.card_ids))
    compiled = core.core_deck(deck)
    rows = []
    for c in cards:
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        layouts, counts, unreachable = _core.build_table(compiled, c, spent)
        cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
        reach = sum(counts)
        mean = sum(d * k for d, k in enumerate(counts)) / reach if reach else 0.0
        rows.append({"card": deck.card_ids[c], "layouts": layouts, "reachable": reach,
                     "max": len(counts) - 1, "mean": round(mean, 2), "cpu_s": round(cpu, 2),
                     "wall_s": round(wall, 2)})
        if not args.json:
            r = rows[-1]
            print(f"{r['card']:>8}  {layouts:>9,} layouts  {reach:>9,} reach  max {r['max']:>2}  "
                  f"mean {r['mean']:>5}  {cpu:6.2f} s cpu  {wall:6.2f} s wall", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        cpus = [r["cpu_s"] for r in rows]
        print(f"{len(rows)} tables: {sum(cpus) / len(cpus):.2f} s cpu a table on average, "
              f"{max(cpus):.2f} s at most")


if __name__ == "__main__":
    main()
