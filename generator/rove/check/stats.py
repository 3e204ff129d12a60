"""The interval maths of the check: Wilson score intervals for a win rate."""

from __future__ import annotations

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
