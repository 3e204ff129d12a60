"""The seer alone: wins, CPU time and nodes a deck, for its trees against the wide one alone.

    python bench/seer.py [--decks standard] [--deals 30] [--difficulty normal,impossible]
                         [--nodes 300000] [--jobs 2] [--seed 0]

Each deal of ``rove check`` (the same seeds) is given to the seer from its start, once
with the product's probe widths (``rove.solve.seer.PROBE_WIDTHS``: a narrow tree, then a
wide one) and once with the wide one alone (the expert's 2,000-node probes, the seer
before the narrow tree), in a pool of ``--jobs`` processes.  It prints, per deck and way,
the wins, the CPU seconds (the deals' own process time, so other load does not count),
their median and 90th percentile a deal, the nodes, and the ratios of the two ways.  A
win is a plan the engine replays to a won game; finding none proves nothing, so the
figure to read is wins for the CPU spent.  ``--nodes 300000`` is the coach's first
budget for a verdict, ``3000000`` the check's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.options import deal_seed  # noqa: E402
from rove.engine import Deck, state_from_position  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.replay import verify_plan  # noqa: E402
from rove.solve.expert import DEFAULT_PROBE_NODES  # noqa: E402
from rove.solve.seer import PROBE_WIDTHS, seek  # noqa: E402
from rove.spec import load_spec  # noqa: E402

WAYS = {"trees": PROBE_WIDTHS, "wide": (DEFAULT_PROBE_NODES,)}

Task = tuple[str, int, str, int, tuple[int, ...]]


def one(task: Task) -> tuple[bool, int, float]:
    """(won, nodes, CPU seconds) of the seer on one deal (``task``: spec, deal seed,
    difficulty, node limit, probe widths); a win is replayed through the engine."""
    spec_ref, seed, difficulty, nodes, widths = task
    pos = deal(load_spec(spec_ref), seed, difficulty)
    deck = Deck(pos.spec, pos.rules)
    t = time.process_time()
    r = seek(deck, state_from_position(deck, pos), nodes, probe_widths=widths)
    cpu = time.process_time() - t
    if r.plan is not None:
        verify_plan(pos, list(r.plan), deck)  # raises unless legal and won
    return r.plan is not None, r.nodes, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", default="standard")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--difficulty", default="normal,impossible")
    ap.add_argument("--nodes", type=int, default=300_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with Pool(args.jobs) as pool:
        for spec_ref in args.decks.split(","):
            totals: dict[str, tuple[int, float]] = {}
            for way, widths in WAYS.items():
                tasks = [(spec_ref, deal_seed(args.seed, i), d, args.nodes, widths)
                         for d in args.difficulty.split(",") for i in range(args.deals)]
                rows = pool.map(one, tasks, chunksize=1)
                cpus = sorted(r[2] for r in rows)
                wins, cpu = sum(r[0] for r in rows), sum(cpus)
                totals[way] = (wins, cpu)
                print(f"{spec_ref} {way} {'/'.join(map(str, widths))}: won {wins} of {len(rows)}, "
                      f"CPU {cpu:.1f} s (median {statistics.median(cpus):.2f} s, "
                      f"90th percentile {cpus[int(0.9 * (len(cpus) - 1))]:.2f} s a deal), "
                      f"nodes {sum(r[1] for r in rows):,}")
            (tw, tc), (ww, wc) = totals["trees"], totals["wide"]
            print(f"{spec_ref}: trees against wide alone: wins {tw} vs {ww}, "
                  f"CPU x{wc / tc if tc else float('nan'):.2f} less")


if __name__ == "__main__":
    main()
