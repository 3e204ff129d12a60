"""Where the expert's games of a tune spend their time, search by search.

    python bench/tune_games.py [--deck bench/decks/t35.yaml] [--deals 10]
                               [--direction 1] [--candidates 0,3,6,1]
                               [--table-after 500000] [--difficulty normal]

The first round of ``rove tune`` on a deck far from its target plays the whole deck,
half of it and a quarter one step up (``--direction 1``) or down, as its candidates
(:func:`rove.check.tune.candidates`).  This plays the chosen ``--candidates`` of that
list on the first ``--deals`` seeded deals of the tune (seed 0), one after the other in
this one process, as a tune's worker plays its share of them, and times every mission
search the expert makes by what it is: a decision's own search or a probe (another
candidate, a look-ahead), from a state where an ability can still move a module or from
one where only moves can (every unspent module a Sensor: "inert"), and whether the
search ran with a distance table (a table's build is counted in the first search that
asks for it).  CPU is this process's time, so the split holds whatever else the machine
runs.  ``--table-after`` replaces the expert's ``EXPERT_TABLE_AFTER`` for the run (its
games then differ: the wins are printed to show it).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.options import deal_seed  # noqa: E402
from rove.check.tune import TuneOptions, candidates  # noqa: E402
from rove.check.variants import apply_variant, zero  # noqa: E402
from rove.engine import Deck, State, state_from_position  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.solve import expert  # noqa: E402
from rove.spec import load_spec  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deck", default="bench/decks/t35.yaml")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--direction", type=int, choices=(1, -1), default=1)
    ap.add_argument("--candidates", default="0,3,6,1", help="indices into the first round's far candidates")
    ap.add_argument("--table-after", type=int, default=expert.EXPERT_TABLE_AFTER)
    ap.add_argument("--difficulty", default="normal")
    args = ap.parse_args()
    spec = load_spec(args.deck)
    pool = candidates(spec, zero(spec), args.direction, TuneOptions(targets=((args.difficulty, 0.5),)), True)
    expert.EXPERT_TABLE_AFTER = args.table_after
    split: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    searched = expert._bounded_search

    def timed(deck: Deck, s: State, cap: int, tables: Callable[[], AbstractContextManager[None]],
              ) -> tuple[tuple[list[Any] | None, bool], int]:
        t0 = time.process_time()
        got, nodes = searched(deck, s, cap, tables)
        kind = ("probe" if cap <= expert.DEFAULT_PROBE_NODES else "main",
                "inert" if expert.layout_inert(deck, s.spent) else "abilities",
                "table" if tables.__name__ == "tables_eager" else "no table")
        row = split[kind]
        row[0] += 1
        row[1] += nodes
        row[2] += time.process_time() - t0
        return got, nodes

    expert._bounded_search = timed
    games = won = 0
    t0 = time.process_time()
    for k in (int(x) for x in args.candidates.split(",")):
        variant = apply_variant(spec, pool[k])
        for i in range(args.deals):
            pos = deal(variant, deal_seed(0, i), args.difficulty)
            d = Deck(variant, pos.rules)
            r = expert.play(d, state_from_position(d, pos))
            games += 1
            won += r.status == "won"
    cpu = time.process_time() - t0
    print(f"{args.deck}: {games} games of candidates {args.candidates}, {won} won, {cpu:.1f} s CPU "
          f"({cpu / games:.2f} s a game), EXPERT_TABLE_AFTER {args.table_after:,}")
    print(f"  {'search':<9}{'state':<11}{'table':<10}{'searches':>9}{'nodes':>12}{'CPU s':>8}{'share':>7}")
    for (what, state, table), (n, nodes, sec) in sorted(split.items(), key=lambda kv: -kv[1][2]):
        print(f"  {what:<9}{state:<11}{table:<10}{int(n):>9}{int(nodes):>12,}{sec:>8.1f}{100 * sec / cpu:>6.0f}%")


if __name__ == "__main__":
    main()
