"""The interval maths of the check: Wilson score and Clopper-Pearson intervals for a win rate."""

from __future__ import annotations

import functools
import math

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default).

    ``n == 0`` gives the uninformative (0, 1)."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} must be between 0 and n={n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def wilson_union(wins: int, unknown: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The 95% interval of the win rate over all ``n`` deals when ``unknown`` of them are
    undecided: the union of the Wilson intervals with the unknowns counted as losses and
    as wins (the Solvitaire study's way), from the low end of the first to the high end
    of the second.  It holds whatever the unknowns turn out to be, and with no unknown
    it is the plain Wilson interval over all deals."""
    return (wilson(wins, n, z)[0], wilson(wins + unknown, n, z)[1])


@functools.lru_cache(maxsize=1 << 16)
def clopper_pearson(successes: int, n: int, alpha: float) -> tuple[float, float]:
    """The Clopper-Pearson interval of a binomial proportion at level ``1 - alpha``.

    Unlike Wilson's, whose coverage swings a little above and below its nominal level
    with the true rate, this one covers the true rate with probability at least
    ``1 - alpha`` at every rate and every ``n``: the sequential check adds up its looks'
    errors (a union bound), which is sound only when each look's error really is at most
    its share.  ``n == 0`` gives (0, 1).  Remembered: the time-left estimate asks the
    same looks again at every progress step, and each costs about 2 ms."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} must be between 0 and n={n}")
    lo = 0.0 if successes == 0 else _beta_quantile(alpha / 2, successes, n - successes + 1)
    hi = 1.0 if successes == n else _beta_quantile(1 - alpha / 2, successes + 1, n - successes)
    return (lo, hi)


def _beta_quantile(q: float, a: float, b: float) -> float:
    """The ``q`` quantile of the Beta(a, b) distribution, by bisection on its CDF (which
    rises with x): 60 halvings leave it exact to double precision."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if _beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b): the Beta(a, b) CDF at x, from
    its continued fraction (on the side of x where it converges fast)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return h
