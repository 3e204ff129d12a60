"""Difficulty grades: 1 to 5 stars from measured features.

A puzzle's *score* is a weighted sum of its features, each entering through a function
that never decreases as the feature gets harder; the stars are the score cut at fixed
thresholds.  So a grade is monotone in every feature it is built from: making one feature
harder (more points, more abilities, a greedy player doing worse, fewer optimal first
moves, ...) and keeping the others never lowers the stars.  ``tests/test_book.py`` checks
this.

The thresholds were calibrated on the bundled deck: a few hundred candidates of each kind
were measured and the cuts put near the quintiles of their scores (see ``CALIBRATION``),
then rounded.  ``GRADING_TEXT`` is the page of the book that explains all this.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, fields

from .analyse import FIRST_MOVES_CAP


@dataclass(frozen=True)
class Features:
    """What was measured.  ``points``, ``cards`` and ``abilities`` are those of the optimal
    plan (A* compares points, then cards, then abilities, so they are the fewest any optimal
    plan needs); ``first_moves`` counts optimal first moves up to equivalence (capped);
    ``branching`` the actions available at the start; ``greedy`` how the greedy player does
    (0 optimal, 1 overspends, 2 fails); ``bonus_needed`` whether the hand puzzle has no
    solution when every card pays only its base points; ``wrong_plays`` and ``plays`` the
    card plays at the start that make the mission impossible or dearer, of all available;
    ``nodes`` the nodes the solver expanded; ``hand_size`` a deal's starting hand (0 for
    other kinds); ``traps`` a campaign's missions after which some optimal finish leaves
    the next mission out of its budget."""

    points: int = 0
    cards: int = 0
    abilities: int = 0
    first_moves: int = 1
    branching: int = 1
    greedy: int = 0
    bonus_needed: bool = False
    wrong_plays: int = 0
    plays: int = 0
    nodes: int = 0
    hand_size: int = 0
    traps: int = 0


#: Features where a larger value means a harder puzzle, and where it means an easier one.
HARDER_WHEN_LARGER = ("points", "cards", "abilities", "branching", "greedy", "bonus_needed",
                      "wrong_plays", "nodes", "traps")
EASIER_WHEN_LARGER = ("first_moves", "plays", "hand_size")

WEIGHTS = {
    "points": 1.0,        # per movement point of the optimum (up to 8)
    "cards": 0.75,        # per card the solution plays
    "abilities": 1.0,     # per ability use the solution needs
    "unique": 1.5,        # times 1 / (optimal first moves): 1.5 when the first move is unique
    "branching": 0.25,    # times log2 of the actions available at the start
    "greedy": 1.25,       # per greedy outcome step (optimal 0, overspends 1, fails 2)
    "bonus": 1.0,         # a bonus is needed
    "wrong": 2.0,         # times the share of opening card plays that lose or cost more
    "nodes": 0.5,         # times log10 of the nodes the solver expanded
}

CAMPAIGN_WEIGHTS = {"points": 0.5, "traps": 1.5, "greedy": 1.25, "unique": 1.0, "branching": 0.1}

#: Score cut points for 2, 3, 4 and 5 stars, per kind (calibrated, see the module text).
THRESHOLDS: dict[str, tuple[float, ...]] = {
    "mission": (4.5, 6.0, 7.5, 9.0),
    "hand": (11.75, 12.5, 12.85, 13.5),
    "deal": (3.75, 5.0, 6.25, 7.5),
    "campaign": (6.5, 7.5, 8.6, 9.8),
}
CALIBRATION = ("Calibrated on the bundled deck: 120 Mission in N candidates (75 kept, 29 with "
               "a unique first move) and 60 hand candidates (18 kept) were measured; the cuts "
               "sit near the 20 % quantile of all kept Mission in N scores (1 to 2 stars), then "
               "near the 33/67 % quantiles of the unique ones (3 to 5 stars), and near the "
               "quintiles of the hand puzzle scores.  Deal cuts separate the three starting "
               "hands and split each by solver effort.  Campaign cuts sit near the quintiles "
               "of 24 candidates (scores 5.7 to 11.95).")


def score(kind: str, f: Features) -> float:
    """The weighted sum behind the stars (higher is harder)."""
    if kind == "deal":
        # a deal: the smaller the starting hand and the harder the solver worked, the harder
        return 1.5 * max(0, 5 - f.hand_size) + 1.0 * math.log10(1 + max(0, f.nodes)) \
            + 0.05 * max(0, f.points)
    if kind == "campaign":
        # a campaign: its total cost, the traps that punish a careless finish, how the
        # greedy player does over the whole run and whether the first move is unique
        w = CAMPAIGN_WEIGHTS
        return (w["points"] * min(max(f.points, 0), 16) + w["traps"] * min(max(f.traps, 0), 3)
                + w["greedy"] * min(max(f.greedy, 0), 2)
                + w["unique"] / min(max(f.first_moves, 1), FIRST_MOVES_CAP)
                + w["branching"] * math.log2(max(f.branching, 1)))
    w = WEIGHTS
    s = w["points"] * min(max(f.points, 0), 8)
    s += w["cards"] * min(max(f.cards, 0), 6)
    s += w["abilities"] * min(max(f.abilities, 0), 6)
    s += w["unique"] / min(max(f.first_moves, 1), FIRST_MOVES_CAP)
    s += w["branching"] * math.log2(max(f.branching, 1))
    s += w["greedy"] * min(max(f.greedy, 0), 2)
    s += w["bonus"] * (1 if f.bonus_needed else 0)
    if f.plays > 0:
        s += w["wrong"] * min(max(f.wrong_plays, 0), f.plays) / f.plays
    s += w["nodes"] * math.log10(1 + max(f.nodes, 0))
    return s


#: A Mission in N with several optimal first moves gets at most this many stars.
MAX_STARS_NOT_UNIQUE = 2


def stars(kind: str, f: Features) -> int:
    """1 to 5 stars: the score cut at the kind's thresholds.  A Mission in N whose optimal
    first move is not unique is capped at MAX_STARS_NOT_UNIQUE (chess-problem style: a
    hard problem has one key move)."""
    got = 1 + bisect_right(THRESHOLDS[kind], score(kind, f))
    if kind == "mission" and f.first_moves > 1:
        got = min(got, MAX_STARS_NOT_UNIQUE)
    return got


def feature_names() -> tuple[str, ...]:
    return tuple(fl.name for fl in fields(Features))


def _n(x: float) -> str:
    return f"{x:g}"


def _cuts(kind: str) -> str:
    t = [_n(x) for x in THRESHOLDS[kind]]
    return ", ".join(t[:-1]) + " and " + t[-1]


_W = WEIGHTS
GRADING_TEXT = [
    ("How the puzzles are graded",
     "Every puzzle was measured by the solvers, and its stars (1 to 5) come from those "
     "measurements alone. Each measurement adds to a score; the stars cut the score at fixed "
     "thresholds, calibrated on the scores of generated candidates. A harder measurement never "
     "lowers the stars (the test suite checks it)."),
    ("Mission in N and hand puzzles",
     f"+{_n(_W['points'])} for each movement point the best solution spends\n"
     f"+{_n(_W['cards'])} for each card it plays\n"
     f"+{_n(_W['abilities'])} for each ability it uses (as few as any optimal plan can)\n"
     f"+{_n(_W['unique'])} if only one first move is optimal, half that if two or more are\n"
     f"+{_n(_W['branching'])} × log2 of the number of actions available at the start\n"
     f"+{_n(_W['greedy'])} if a greedy player, who always takes the action that looks "
     f"closest to the mission, overspends; +{_n(2 * _W['greedy'])} if it gets stuck\n"
     f"+{_n(_W['bonus'])} if a bonus is needed (no solution with base points only)\n"
     f"+{_n(_W['wrong'])} × the share of opening card plays that make the mission "
     "impossible or dearer\n"
     f"+{_n(_W['nodes'])} × log10 of the positions the solver had to examine\n"
     f"Scores of {_cuts('mission')} earn 2, 3, 4 and 5 stars (Mission in N); "
     f"{_cuts('hand')} for hand puzzles."),
    ("Verified deals",
     "+1.5 for each card fewer than 5 in the starting hand (normal 5, hard 4, impossible 3)\n"
     "+1 × log10 of the positions the game solver examined before finding a win\n"
     "+0.05 per point of the winning line\n"
     f"Scores of {_cuts('deal')} earn 2, 3, 4 and 5 stars."),
    ("Campaigns",
     f"+{_n(CAMPAIGN_WEIGHTS['points'])} per movement point of the whole line; "
     f"+{_n(CAMPAIGN_WEIGHTS['traps'])} per trap (a mission after which some optimal finish "
     "leaves the next one out of its budget)\n"
     f"+{_n(CAMPAIGN_WEIGHTS['greedy'])} if the greedy player completes the first mission but "
     f"not all, +{_n(2 * CAMPAIGN_WEIGHTS['greedy'])} if it fails the first; "
     f"+{_n(CAMPAIGN_WEIGHTS['unique'])} for a unique first move (half that if not); "
     f"+{_n(CAMPAIGN_WEIGHTS['branching'])} × log2 of the actions at the start\n"
     f"Scores of {_cuts('campaign')} earn 2, 3, 4 and 5 stars."),
    ("Optimal first moves",
     "A first move is optimal when the mission can still be done in N points after it. Two "
     "first moves count as one when they lead to the same position (up to shifting the whole "
     "layout), or when the same actions played in another order also solve it. A Mission in "
     f"N of {MAX_STARS_NOT_UNIQUE + 1} stars or more has a unique first move in this sense."),
]
