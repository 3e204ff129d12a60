"""Per-card sensitivity (``rove check --sensitivity``): how far the expert's win rate
moves when one card's base points, or its bonus, is one lower or one higher.

Every variant plays the check's own deals (the same seeds at the same difficulties:
common random numbers, :mod:`.variants`), so the difference from the deck as it is is
measured deal by deal: ``x_i`` is +1 where only the variant won deal ``i``, -1 where only
the deck as it is won it, else 0.  The difference is the mean of ``x_i`` over every deal
and difficulty checked, and its 95% interval the normal one on the paired differences
(``mean +- 1.96 sd / sqrt(n)``); pairing is what makes a handful of deals informative,
since the deals both decks win or both lose add no noise.  Points raised to the bonus
take the bonus up with them, and a bonus lowered to the points takes them down (a bonus
must stay above the points); a variant the spec still forbids (points below 0, a bonus
above 9) is left out (None).

The deck as it is needs no new games: its results are the check's expert games.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from ..spec import Spec
from .options import CheckOptions
from .report import Z95, CheckReport
from .variants import Evaluator, GamesFn, Variant, step, zero

#: the four variants of a card: (JSON key, points delta, bonus delta)
STEPS = (("points_minus", -1, 0), ("points_plus", 1, 0), ("bonus_minus", 0, -1), ("bonus_plus", 0, 1))


def _paired(base: list[bool], other: list[bool]) -> tuple[float, float, float]:
    """The mean paired difference (other minus base) and its 95% interval."""
    xs = [int(o) - int(b) for b, o in zip(base, other)]
    if not xs:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(xs)
    sd = statistics.pstdev(xs) if len(xs) > 1 else 0.0
    half = Z95 * sd / math.sqrt(len(xs))
    return mean, mean - half, mean + half


def sensitivity(spec: Spec, options: CheckOptions, report: CheckReport | None = None,
                executor: Any = None, progress: GamesFn | None = None) -> dict[str, Any]:
    """The sensitivity section: per card, each variant's win rate, difference and interval
    (see the module's docstring).  ``report``: the check's report, whose expert games are
    the deck as it is (played again when it has none)."""
    diffs = options.difficulties
    # a sequential check plays its sensitivity on the first batch (a fixed count for all)
    n = options.first_deals
    base = zero(spec)
    variants: dict[tuple[int, str], Variant] = {}
    for i, _ in enumerate(spec.cards):
        for key, dp, db in STEPS:
            v = step(spec, base, i, dp, db)
            if v is not None:
                variants[(i, key)] = v
    with Evaluator(spec, options.seed, executor, options.expert_node_limit) as ev:
        if report is not None and report.expert is not None:
            ev.prime(base, report.expert["deals"])
        ev.evaluate([base, *variants.values()], diffs, n, progress)
        base_out = [w for d in diffs for w in ev.outcomes(base, d, n)]
        base_rate = sum(base_out) / len(base_out) if base_out else None
        cards: dict[str, Any] = {}
        for i, c in enumerate(spec.cards):
            row: dict[str, Any] = {"title": c.mission.title, "base": c.movement.points,
                                   "bonus": c.movement.bonus}
            swing = 0.0
            for key, _, _ in STEPS:
                var = variants.get((i, key))
                if var is None:
                    row[key] = None
                    continue
                out = [w for d in diffs for w in ev.outcomes(var, d, n)]
                mean, lo, hi = _paired(base_out, out)
                row[key] = {"win_rate": round(sum(out) / len(out), 4) if out else None,
                            "diff": round(mean, 4), "ci95": [round(lo, 4), round(hi, 4)]}
                swing = max(swing, abs(mean))
            row["swing"] = round(swing, 4)
            cards[c.id] = row
    return {
        "method": ("each card's base points and bonus one lower and one higher, played by the "
                   "expert on the check's own deals (every difficulty pooled); diff: variant "
                   "minus the deck as it is, paired deal by deal, with a 95% interval"),
        "deals": n * len(diffs), "win_rate": None if base_rate is None else round(base_rate, 4),
        "cards": cards,
    }
