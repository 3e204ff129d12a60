"""Do the stars mean something?  Stars against the effort of a player that models a person.

    python bench/grading.py [--spec classic] [--count 200] [--seed grading] [--kinds mission]
                            [--effort-nodes 100000] [--jobs 2] [--json FILE]

A seeded batch of ``--count`` puzzles is generated exactly as ``rove book`` makes them
(``rove.book.puzzles``, every optimum proven by A*), each graded 1-5 stars by
``rove.book.grade``.  Each puzzle is then given to the *lookahead player*
(``rove.book.analyse.lookahead_effort``): it knows the budget, thinks ahead 1 action,
then 2, then 3, ..., tries the actions that look closest to the mission first, drops a
line when the points left cannot cover the cells still missing, and stops at its first
solution.  Its effort is the number of actions it looked at (censored at
``--effort-nodes``).  The effort is not one of the features the stars are built from.

Printed: the rank correlation of stars and effort (Spearman's rho and Kendall's tau-b,
ties handled), of the score and effort, the median effort per star grade, and the same
for each feature on its own.  Everything is deterministic: the same seed, the same
numbers.  The stars are graded with ``solutions`` counted for every puzzle (the book
counts them only when a puzzle would get 3 stars or more).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.book import analyse  # noqa: E402
from rove.book.grade import score, stars  # noqa: E402
from rove.book.puzzles import KINDS, Settings  # noqa: E402
from rove.engine import Deck, state_from_position  # noqa: E402
from rove.solve.nodes import Limit  # noqa: E402
from rove.spec import load_spec  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
from helpers import kendall_tau_b, spearman  # noqa: E402


def measure(job: tuple[str, str, str, int]) -> dict | None:
    """One candidate: its features, stars and the lookahead player's effort (or None
    when the seed label gives no puzzle)."""
    spec_name, kind, label, effort_nodes = job
    spec = load_spec(spec_name)
    settings = Settings()
    p = KINDS[kind](spec, label, settings)
    if p is None:
        return None
    deck = Deck(spec)
    s = state_from_position(deck, p.position)
    f = p.features
    best = (f.points, f.cards, f.abilities)
    if f.solutions <= 0:
        try:
            got = analyse.optimal_solutions(deck, s, best, settings.solution_nodes)
            f = replace(f, solutions=got.classes or 0)
        except Limit:
            pass
    effort = analyse.lookahead_effort(deck, s, best, effort_nodes)
    return {"label": label, "kind": kind, "title": p.title, "features": asdict(f),
            "score": round(score(kind, f), 4), "stars": stars(kind, f), "effort": effort,
            "key": repr(p.key)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="classic")
    ap.add_argument("--count", type=int, default=200, help="puzzles per kind")
    ap.add_argument("--seed", default="grading", help="seed label prefix")
    ap.add_argument("--kinds", default="mission", help="comma-separated: mission, hand")
    ap.add_argument("--effort-nodes", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", help="also write every puzzle's measurements here")
    args = ap.parse_args()

    t0 = time.monotonic()
    rows: list[dict] = []
    with ProcessPoolExecutor(args.jobs) as ex:
        for kind in args.kinds.split(","):
            got: list[dict] = []
            keys: set[str] = set()
            i = 0
            while len(got) < args.count:
                batch = [(args.spec, kind, f"{args.seed}:{j}", args.effort_nodes)
                         for j in range(i, i + 4 * args.jobs)]
                i += len(batch)
                for row in ex.map(measure, batch):
                    if row is not None and row["key"] not in keys and len(got) < args.count:
                        keys.add(row["key"])
                        got.append(row)
            rows += got
    wall = time.monotonic() - t0

    print(f"{len(rows)} puzzles ({args.kinds}), seed {args.seed!r}, spec {args.spec}, "
          f"lookahead player censored at {args.effort_nodes} actions; {wall:.0f} s")
    for kind in args.kinds.split(","):
        sub = [r for r in rows if r["kind"] == kind]
        report(kind, sub, args.effort_nodes)
    if len(args.kinds.split(",")) > 1:
        report("all kinds", rows, args.effort_nodes)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")


def report(name: str, rows: list[dict], cap: int) -> None:
    effort = [r["effort"] for r in rows]
    st = [r["stars"] for r in rows]
    print(f"\n{name}: {len(rows)} puzzles, {sum(e >= cap for e in effort)} censored")
    print(f"  stars vs effort: Spearman rho {spearman(st, effort):+.3f}, "
          f"Kendall tau-b {kendall_tau_b(st, effort):+.3f}")
    sc = [r["score"] for r in rows]
    print(f"  score vs effort: Spearman rho {spearman(sc, effort):+.3f}, "
          f"Kendall tau-b {kendall_tau_b(sc, effort):+.3f}")
    print("  stars  puzzles  median effort  (quartiles)")
    for n in range(1, 6):
        e = sorted(r["effort"] for r in rows if r["stars"] == n)
        if not e:
            print(f"  {n}      0")
            continue
        q = statistics.quantiles(e, n=4) if len(e) > 1 else [e[0]] * 3
        print(f"  {n}  {len(e):8d}  {statistics.median(e):13.0f}  ({q[0]:.0f} .. {q[2]:.0f})")
    feats = sorted(rows[0]["features"]) if rows else []
    parts = []
    for fname in feats:
        xs = [r["features"][fname] for r in rows]
        if len(set(xs)) > 1:
            parts.append(f"{fname} {spearman(xs, effort):+.2f}")
    print("  each feature alone (Spearman rho with effort): " + ", ".join(parts))


if __name__ == "__main__":
    main()
