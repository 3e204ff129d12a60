"""`rove check`'s static part, the with-abilities mission costs, both ways: one A* solve
per (start, mission) pair, and one zero-point walk per start with A* for what it leaves.

    python bench/static.py [--spec bench/decks/g35.yaml] [--starts 30] [--repeat 3]
                           [--mission-node-limit 200000] [--json]

Runs in this process on one core, the starts of ``rove check --starts N`` in order, each
way ``--repeat`` times; prints each way's median seconds, its nodes, and the ratio of
the medians.  The two ways must give the same figures (status, points, abilities and
actions of every pair), else it stops with an error: the walk is exact or it is wrong.
The no-abilities column is not timed (the distance tables give it either way).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check import run as check_run  # noqa: E402
from rove.check.options import start_arrangements  # noqa: E402
from rove.spec import Spec, load_spec  # noqa: E402

FIGURES = ("status", "points", "abilities", "actions")


def by_astar(spec: Spec, arrangement: tuple[str, ...], node_limit: int) -> list[dict[str, Any]]:
    """The old way: one A* solve per mission."""
    return [check_run._solved_cost(check_run._start_position(spec, arrangement, card.id, frozenset()),
                                   node_limit, None) for card in spec.cards]


def by_walk(spec: Spec, arrangement: tuple[str, ...], node_limit: int) -> list[dict[str, Any]]:
    """The new way: one walk per start, A* for the missions it leaves."""
    return check_run._with_abilities_costs(spec, arrangement, node_limit, None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(ROOT / "bench" / "decks" / "g35.yaml"))
    ap.add_argument("--starts", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mission-node-limit", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    spec = load_spec(args.spec)
    arrangements = start_arrangements(spec, args.starts, args.seed)
    ways = {"astar": by_astar, "walk": by_walk}
    seconds: dict[str, list[float]] = {w: [] for w in ways}
    nodes: dict[str, int] = {}
    figures: dict[str, list[tuple[Any, ...]]] = {}
    for _ in range(args.repeat):
        for name, way in ways.items():
            t0 = time.perf_counter()
            rows = [row for arr in arrangements for row in way(spec, arr, args.mission_node_limit)]
            seconds[name].append(time.perf_counter() - t0)
            nodes[name] = sum(r["nodes"] for r in rows)
            figures[name] = [tuple(r[k] for k in FIGURES) for r in rows]
    if figures["astar"] != figures["walk"]:
        bad = sum(a != b for a, b in zip(figures["astar"], figures["walk"]))
        sys.exit(f"bench/static.py: the walk's figures differ from A*'s on {bad} pair(s)")
    median = {w: statistics.median(s) for w, s in seconds.items()}
    out = {
        "spec": spec.name, "starts": len(arrangements), "pairs": len(figures["walk"]),
        "repeat": args.repeat, "mission_node_limit": args.mission_node_limit,
        **{f"{w}_seconds_median": round(m, 3) for w, m in median.items()},
        **{f"{w}_nodes": n for w, n in nodes.items()},
        "ratio": round(median["astar"] / median["walk"], 2) if median["walk"] else None,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{out['spec']}: {out['starts']} starts, {out['pairs']} (start, mission) pairs, "
          f"median of {args.repeat}, one core")
    for w in ways:
        print(f"  {w:6} {median[w]:8.2f} s  {nodes[w]:>10,} nodes")
    print(f"  A* / walk: {out['ratio']}x (same figures on every pair)")


if __name__ == "__main__":
    main()
