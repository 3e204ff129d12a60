"""Where do the difficulties come apart?  A screening sweep over candidate decks.

    python bench/sweep_decks.py [--deals 60] [--jobs 1] [--seed 0] [--only NAME,...]
                                [--write DIR] [--json]

Every candidate keeps the six reference modules and changes one or more of the levers a
designer has: the twelve mission patterns (the classic deck's, or a set made by ``rove
generate missions --count 12 --min-cost A --max-cost B --seed S``, each cost proven),
every card's base points and bonus moved by the same step (each clamped to a legal
card: 0 <= points < bonus <= 9), and the missions needed to win.  The expert plays each
candidate on the same seeded deals at normal, hard and impossible (the deals of ``rove
check --seed``, so ``rove check DECK --player expert --deals N --starts 0`` gives the
same figures), and the script prints one row per candidate: the expert's win rate per
difficulty, normal minus impossible, and the games lost at the node budget.

The screening is cheap and node-bounded, hence deterministic; it finds the region where
the levels separate, and the deck chosen there is then measured over 400 deals.
``--write DIR`` saves every candidate's spec, so the one chosen can be checked further.
docs/internals/tuning.md ("The sweep") holds the rows measured so far; the candidates not there
(``--only`` picks the ones to run) were left for lack of time, and those on missions
costing 3-5 cost several seconds an expert game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.variants import Evaluator, zero  # noqa: E402
from rove.executors import make_executor  # noqa: E402
from rove.generators.missions import Settings, generate_missions  # noqa: E402
from rove.spec import Card, Spec, dump_spec, load_spec  # noqa: E402

DIFFS = ("normal", "hard", "impossible")


@dataclass(frozen=True)
class Candidate:
    """One deck of the sweep: where its missions come from and how its numbers move."""

    name: str
    missions: tuple[int, int, int] | None = None  # (min cost, max cost, seed); None: the classic deck's
    points: int = 0  # added to every card's base points
    bonus: int = 0  # added to every card's bonus (to those with at least ``bonus_from``)
    bonus_from: int = 0
    to_win: int | None = None  # missions needed to win (None: the deck's own)

    def how(self) -> str:
        parts = ["classic missions" if self.missions is None else
                 "missions cost {}-{} seed {}".format(*self.missions)]
        if self.points or self.bonus:
            parts.append(f"points {self.points:+d} bonus {self.bonus:+d}"
                         + (f" (bonuses of {self.bonus_from} or more)" if self.bonus_from else ""))
        if self.to_win is not None:
            parts.append(f"{self.to_win} missions to win")
        return ", ".join(parts)


CANDIDATES = (
    Candidate("std"),
    Candidate("std-p3", points=-3, bonus=-2),
    Candidate("g13", (1, 3, 0)),
    Candidate("g13-p1", (1, 3, 0), points=-1, bonus=-1),
    Candidate("g23", (2, 3, 0)),
    Candidate("g23-p1", (2, 3, 0), points=-1, bonus=-1),
    Candidate("g24", (2, 4, 0)),
    Candidate("g24-p1", (2, 4, 0), points=-1, bonus=-1),
    Candidate("g23-p2", (2, 3, 0), points=-2, bonus=-2),
    Candidate("g24-p2", (2, 4, 0), points=-2, bonus=-2),
    Candidate("g24-b1", (2, 4, 0), bonus=-1),
    Candidate("g24-b1h", (2, 4, 0), bonus=-1, bonus_from=4),
    Candidate("g24-b2", (2, 4, 0), bonus=-2),
    Candidate("g35", (3, 5, 1)),
    Candidate("g35-p1", (3, 5, 1), points=-1, bonus=-1),
)


def shifted(spec: Spec, dp: int, db: int, bonus_from: int = 0) -> Spec:
    """Every card's points moved by ``dp`` and bonus by ``db`` (only the bonuses of at
    least ``bonus_from``), clamped to a legal card."""
    cards: list[Card] = []
    for c in spec.cards:
        p = min(8, max(0, c.movement.points + dp))
        b = min(9, max(p + 1, c.movement.bonus + (db if c.movement.bonus >= bonus_from else 0)))
        cards.append(replace(c, movement=replace(c.movement, points=p, bonus=b)))
    return replace(spec, cards=tuple(cards), path=None)


def build(c: Candidate, missions: dict[tuple[int, int, int], Spec]) -> Spec:
    base = load_spec("classic")
    if c.missions is not None:
        if c.missions not in missions:
            lo, hi, seed = c.missions
            missions[c.missions] = generate_missions(
                base, Settings(count=len(base.cards), min_cost=lo, max_cost=hi, seed=seed)).spec
        base = missions[c.missions]
    spec = shifted(base, c.points, c.bonus, c.bonus_from)
    if c.to_win is not None:
        spec = replace(spec, missions_to_win=c.to_win)
    return replace(spec, name=c.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=60, help="deals per difficulty")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated candidate names")
    ap.add_argument("--write", type=Path, help="folder to write every candidate's spec to")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    only = {s for s in args.only.split(",") if s}
    chosen = [c for c in CANDIDATES if not only or c.name in only]
    executor = make_executor("local", jobs=args.jobs)
    missions: dict[tuple[int, int, int], Spec] = {}
    rows = []
    if not args.json:
        print(f"expert win rate over {args.deals} seeded deals per difficulty (seed {args.seed})")
        print(f"{'deck':<10} {'normal':>7} {'hard':>7} {'imposs.':>7} {'n-i':>6} {'budget':>6} "
              f"{'min':>5}  how made")
    for c in chosen:
        spec = build(c, missions)
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            (args.write / f"{c.name}.yaml").write_text(
                f"# sweep candidate {c.name}: {c.how()}\n" + dump_spec(spec, schema=None), encoding="utf-8")
        t0 = time.perf_counter()
        with Evaluator(spec, args.seed, executor) as ev:
            rates = ev.evaluate([zero(spec)], DIFFS, args.deals)[zero(spec)]
        minutes = (time.perf_counter() - t0) / 60
        row = {"deck": c.name, "how": c.how(), "deals": args.deals, "minutes": round(minutes, 2),
               **{d: rates[d].to_json() for d in DIFFS}}
        rows.append(row)
        if not args.json:
            r = [100 * rates[d].rate for d in DIFFS]
            budget = sum(rates[d].budget for d in DIFFS)
            print(f"{c.name:<10} {r[0]:>6.1f}% {r[1]:>6.1f}% {r[2]:>6.1f}% {r[0] - r[2]:>+6.1f} "
                  f"{budget:>6} {minutes:>5.1f}  {c.how()}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
