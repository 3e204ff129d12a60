"""`rove tune`'s search, run against a synthetic expert: how many games it plays and how
close its results land, over hundreds of tunes in seconds.

    python bench/tune_sim.py [--runs 200] [--start 0.2,0.35,0.45,0.65] [--rho 0.85]
                             [--target 0.5] [--deck bench/decks/t35.yaml]
                             [--save-baseline]

A real tune of a hard deck takes half an hour, so its protocol (which steps it tries, on
how many deals, when it stops) cannot be compared on enough tunes to tell a better one
from a luckier one.  This runs :func:`rove.check.tune.tune` itself, unchanged, with its
evaluator swapped for a model of the expert: deck variant ``v`` wins deal ``i`` when
``Phi(rho * Z_i + sqrt(1 - rho^2) * Z_iv) < r(v)``, with ``Z`` standard normal draws
fixed by ``(run, i)`` and ``(run, i, v)``, and ``r(v)`` the logistic of the start's
log-odds plus, for every card, its points' change times a weight drawn in 0.03-0.12
and its bonus's change times one in 0.02-0.08 (per run, seeded).  So a deal hard for one
deck is hard for its neighbours (common deals pair the games, more as ``--rho`` nears
1), a step's effect grows with the share of the deck it moves, and each run's deck has
cards of different worth.  The numbers are a guess at a real deck's, not a measurement:
the script compares protocols, it does not predict a deck's games.

For each start rate (the designer's deck's true win rate) it tunes ``--runs`` decks to
``--target`` with every option at its default and prints the games played (median,
mean, largest), how many reached the target, how far the result's *true* rate lies from
the target, and the chance that the result's expert, checked on 100 other deals, has
the target inside that check's Wilson 95% interval, and the chance that 300 other
deals (bench/tune.py's 3 x 100) put the rate within 5 points of the target (both
computed exactly from the true rate).  Everything is seeded: the same figures on any machine.  With
``bench/baseline-tune-sim.json`` present the mean games are also printed as a ratio to
it (above 1: fewer games now); ``--save-baseline`` writes this run there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import statistics
import sys
from pathlib import Path
from statistics import NormalDist
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

import rove.check.tune as tune_module  # noqa: E402
from rove.check.variants import Rate, Variant  # noqa: E402
from rove.spec import Spec, load_spec  # noqa: E402

BASELINE = ROOT / "bench" / "baseline-tune-sim.json"
NORMAL = NormalDist()


def _z(*key: object) -> float:
    """A standard normal draw fixed by ``key`` (stable across runs and machines)."""
    h = hashlib.sha256(repr(key).encode()).digest()
    return NORMAL.inv_cdf((int.from_bytes(h[:7], "big") + 0.5) / 2**56)


class Model:
    """One synthetic deck: its start rate and what each card's numbers are worth."""

    def __init__(self, spec: Spec, run: int, start: float, rho: float) -> None:
        rng = random.Random(f"tune-sim:{run}")
        self.run, self.rho = run, rho
        self.logit = math.log(start / (1 - start))
        self.points = [rng.uniform(0.03, 0.12) for _ in spec.cards]
        self.bonus = [rng.uniform(0.02, 0.08) for _ in spec.cards]

    def rate(self, v: Variant) -> float:
        s = self.logit + sum(dp * wp + db * wb
                             for (dp, db, _), wp, wb in zip(v, self.points, self.bonus))
        return 1 / (1 + math.exp(-s))

    def won(self, v: Variant, deal: int) -> bool:
        x = self.rho * _z(self.run, deal) + math.sqrt(1 - self.rho ** 2) * _z(self.run, deal, v)
        return NORMAL.cdf(x) < self.rate(v)


class ModelEvaluator:
    """Stands in for :class:`rove.check.variants.Evaluator`: the same interface and
    cache (a game played once is not played again), the model's games."""

    model: Model

    def __init__(self, *args: Any) -> None:
        self.games = 0
        self._won: dict[tuple[Variant, str, int], bool] = {}

    def __enter__(self) -> ModelEvaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def evaluate(self, variants: Any, difficulties: Any, deals: int, progress: Any = None,
                 first: int = 0) -> dict[Variant, dict[str, Rate]]:
        out: dict[Variant, dict[str, Rate]] = {}
        for v in dict.fromkeys(variants):
            out[v] = {}
            for d in difficulties:
                won = 0
                for i in range(first, first + deals):
                    key = (v, d, i)
                    if key not in self._won:
                        self.games += 1
                        self._won[key] = self.model.won(v, i)
                    won += self._won[key]
                out[v][d] = Rate(won, deals, 0)
        return out


def check_passes(rate: float, target: float, deals: int = 100) -> float:
    """The chance that ``deals`` games of a deck winning ``rate`` have ``target`` inside
    their Wilson 95% interval."""
    return sum(math.comb(deals, k) * rate ** k * (1 - rate) ** (deals - k)
               for k in range(deals + 1)
               if Rate(k, deals, 0).wilson95[0] <= target <= Rate(k, deals, 0).wilson95[1])


def lands_within(rate: float, target: float, deals: int = 300, points: float = 0.05) -> float:
    """The chance that ``deals`` games of a deck winning ``rate`` (3 x 100 other deals, as
    bench/tune.py checks a real deck) have a rate within ``points`` of ``target``."""
    return sum(math.comb(deals, k) * rate ** k * (1 - rate) ** (deals - k)
               for k in range(deals + 1) if abs(k / deals - target) <= points + 1e-9)


def simulate(spec: Spec, start: float, runs: int, rho: float, target: float) -> dict[str, float]:
    games, off, passes, lands, reached = [], [], [], [], 0
    options = tune_module.TuneOptions(targets=(("normal", target),))
    for run in range(runs):
        ModelEvaluator.model = Model(spec, run, start, rho)
        st = tune_module.tune(spec, options)
        true = ModelEvaluator.model.rate(st.best)
        games.append(st.games)
        off.append(abs(true - target))
        passes.append(check_passes(true, target))
        lands.append(lands_within(true, target))
        reached += st.reached
    return {"games_median": statistics.median(games), "games_mean": statistics.mean(games),
            "games_max": max(games), "reached": reached / runs,
            "off_mean": statistics.mean(off), "check_passes": statistics.mean(passes),
            "lands_within_5": statistics.mean(lands)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--start", default="0.2,0.35,0.45,0.65",
                    help="the designer's deck's true win rates, comma-separated")
    ap.add_argument("--rho", type=float, default=0.85, help="how alike two decks' deals are")
    ap.add_argument("--target", type=float, default=0.5)
    ap.add_argument("--deck", default="bench/decks/t35.yaml", help="the deck whose cards are varied")
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--save-baseline", action="store_true", help="write this run as the baseline")
    args = ap.parse_args()
    spec = load_spec(ROOT / args.deck)
    tune_module.Evaluator = ModelEvaluator  # type: ignore[attr-defined,assignment]  # the model plays
    baseline: dict[str, Any] = {}
    if args.baseline.exists() and not args.save_baseline:
        baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
    print(f"{args.runs} tunes a start rate to {100 * args.target:.0f}%, rho {args.rho}, "
          f"deck {args.deck} ({len(spec.cards)} cards)")
    print(f"{'start':>6} {'games: median':>14} {'mean':>6} {'max':>6} {'reached':>8} "
          f"{'|true-target|':>14} {'100-deal check':>15} {'300 within 5':>13} {'mean vs baseline':>17}")
    out = {}
    for start in (float(s) for s in args.start.split(",")):
        got = simulate(spec, start, args.runs, args.rho, args.target)
        key = f"{start}:{args.rho}:{args.runs}:{args.target}"
        out[key] = got
        ratio = ""
        if key in baseline:
            ratio = f"{baseline[key]['games_mean'] / got['games_mean']:.2f}x"
        print(f"{100 * start:>5.0f}% {got['games_median']:>14.0f} {got['games_mean']:>6.0f} "
              f"{got['games_max']:>6.0f} {100 * got['reached']:>7.0f}% "
              f"{100 * got['off_mean']:>11.1f} pt {100 * got['check_passes']:>14.1f}% "
              f"{100 * got['lands_within_5']:>12.1f}% {ratio:>17}")
    if args.save_baseline:
        args.baseline.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"saved to {args.baseline}")


if __name__ == "__main__":
    main()
