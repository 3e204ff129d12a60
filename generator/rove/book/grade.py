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
from dataclasses import dataclass

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
    actions: int = 0
    solutions: int = 0


#: Features where a larger value means a harder puzzle, and where it means an easier one.
HARDER_WHEN_LARGER = ("points", "cards", "abilities", "branching", "greedy", "bonus_needed",
                      "wrong_plays", "nodes", "traps", "actions")
EASIER_WHEN_LARGER = ("first_moves", "plays", "hand_size", "solutions")

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

#: Mission in N: fitted to the lookahead player (see the module text and bench/grading.py)
MISSION_WEIGHTS = {
    "points": 0.5,        # per movement point of the optimum
    "actions": 1.0,       # per action of the optimal plan (moves and abilities)
    "abilities": 0.5,     # per ability the optimal plan uses
    "branching": 1.0,     # times log2 of the actions available at the start
    "greedy": 0.5,        # per greedy outcome step (optimal 0, overspends 1, fails 2)
    "nodes": 1.5,         # times log10 of the positions A* examined
    "first": 1.0,         # times 1 / (optimal first moves): 1 when the first move is unique
    "unique": 0.5,        # the optimal solution is unique (up to independent reorderings)
}

CAMPAIGN_WEIGHTS = {"points": 0.5, "traps": 1.5, "greedy": 1.25, "unique": 1.0, "branching": 0.1}

#: Score cut points for 2, 3, 4 and 5 stars, per kind (calibrated, see the module text).
THRESHOLDS: dict[str, tuple[float, ...]] = {
    "mission": (12.75, 14.5, 16.25, 18.0),
    "hand": (11.75, 12.5, 12.85, 13.5),
    "deal": (3.75, 5.0, 6.25, 7.5),
    "campaign": (6.5, 7.5, 8.6, 9.8),
}
CALIBRATION = ("Mission in N: the weights were fitted (least squares, then rounded, all "
               "non-negative) to log10 of the lookahead player's effort on 150 candidates of "
               "the bundled deck (seed label 'calib'), and the cuts put at the quintiles of "
               "their scores (12.84, 14.53, 16.16, 17.89), rounded; bench/grading.py checks "
               "them on another seed.  Hand puzzles: cuts near the quintiles of 18 kept "
               "candidates.  Deal cuts separate the three starting hands and split each by "
               "solver effort.  Campaign cuts sit near the quintiles of 24 candidates.")


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
    if kind == "mission":
        m = MISSION_WEIGHTS
        return (m["points"] * min(max(f.points, 0), 12) + m["actions"] * min(max(f.actions, 0), 16)
                + m["abilities"] * min(max(f.abilities, 0), 8)
                + m["branching"] * math.log2(max(f.branching, 1))
                + m["greedy"] * min(max(f.greedy, 0), 2)
                + m["nodes"] * math.log10(1 + max(f.nodes, 0))
                + m["first"] / min(max(f.first_moves, 1), FIRST_MOVES_CAP)
                + m["unique"] * (f.solutions == 1))
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


#: A Mission in N or hand puzzle whose optimal solutions were not counted gets at most
#: this many stars.
MAX_STARS_UNCOUNTED = 2


def stars(kind: str, f: Features) -> int:
    """1 to 5 stars: the score cut at the kind's thresholds.  A Mission in N or hand
    puzzle whose optimal solutions were not counted (``solutions`` 0) is capped at
    MAX_STARS_UNCOUNTED: from 3 stars up the page says whether the solution is unique."""
    got = 1 + bisect_right(THRESHOLDS[kind], score(kind, f))
    if kind in ("mission", "hand") and f.solutions <= 0:
        got = min(got, MAX_STARS_UNCOUNTED)
    return got


def _n(x: float) -> str:
    return f"{x:g}"


def _cuts(kind: str) -> str:
    t = [_n(x) for x in THRESHOLDS[kind]]
    return ", ".join(t[:-1]) + " and " + t[-1]


_W = WEIGHTS
_M = MISSION_WEIGHTS
#: The grading page: first what makes a puzzle harder, in a reader's words, then the
#: technical note with every weight and cut (``TECHNICAL_FROM`` is where it starts).
GRADING_TEXT = [
    ("How the puzzles are graded",
     "Stars say how hard a puzzle is for a person, from one (gentle) to five (brutal). A "
     "puzzle gets harder when:\n"
     "+ its best solution is longer: more points to spend, more actions, more abilities to "
     "chain;\n"
     "+ the start offers many actions, and only one first move, or one whole solution, works;\n"
     "+ the obvious play fails: always moving what looks closest to the mission overspends or "
     "gets stuck;\n"
     "+ in a hand puzzle, the order of the cards matters: most openings fail, and only a bonus "
     "pays enough;\n"
     "+ in a deal or a campaign, the hand is small, the missions are dear, and finishing one "
     "mission carelessly leaves the next out of reach.\n"
     "The stars come from the solvers' measurements alone; the note below gives every figure."),
    ("Technical note",
     "Each measurement adds to a score, cut at fixed thresholds. A harder measurement never "
     "lowers the stars (the tests check it)."),
    ("Mission in N",
     f"+{_n(_M['points'])} per movement point, +{_n(_M['actions'])} per action and "
     f"+{_n(_M['abilities'])} per ability of the best solution\n"
     f"+{_n(_M['branching'])} × log2 of the actions available at the start; "
     f"+{_n(_M['nodes'])} × log10 of the positions the solver examined\n"
     f"+{_n(_M['greedy'])} if a greedy player (always the action that looks closest) "
     f"overspends, +{_n(2 * _M['greedy'])} if it gets stuck\n"
     f"+{_n(_M['first'])} for a unique optimal first move (half that if not); "
     f"+{_n(_M['unique'])} for a unique optimal solution\n"
     f"Scores of {_cuts('mission')} earn 2, 3, 4 and 5 stars. The weights were fitted to a "
     "model of a person, a lookahead player who thinks 1, 2, 3, ... actions ahead, closest-"
     "looking actions first, and drops a line when its points cannot cover the cells still "
     "missing: on 200 generated puzzles the stars order them by the positions it looks at "
     "(rove's bench/grading.py)."),
    ("Hand puzzles",
     f"+{_n(_W['points'])} per point, +{_n(_W['cards'])} per card; "
     f"+{_n(_W['unique'])} for a unique optimal first move (half if not); "
     f"+{_n(_W['branching'])} × log2 of the actions at the start; "
     f"+{_n(_W['greedy'])} or +{_n(2 * _W['greedy'])} if the greedy player overspends or "
     f"gets stuck; +{_n(_W['bonus'])} if a bonus is needed; +{_n(_W['wrong'])} × the share of "
     f"opening card plays that fail or cost more; +{_n(_W['nodes'])} × log10 of the positions "
     f"examined. {_cuts('hand')} earn 2 to 5 stars."),
    ("Deals and campaigns",
     "A deal: +1.5 per card fewer than 5 in the starting hand, +1 × log10 of the positions "
     f"the game solver examined, +0.05 per point of the win; {_cuts('deal')} earn 2 to 5 "
     f"stars. A campaign: +{_n(CAMPAIGN_WEIGHTS['points'])} per point, "
     f"+{_n(CAMPAIGN_WEIGHTS['traps'])} per trap (an optimal finish that leaves the next "
     f"mission out of its budget), +{_n(CAMPAIGN_WEIGHTS['greedy'])} per greedy failure step, "
     f"+{_n(CAMPAIGN_WEIGHTS['unique'])} for a unique first move; {_cuts('campaign')} earn 2 "
     "to 5 stars. Any win counts in a deal, any line within the budgets in a campaign."),
    ("Unique solutions",
     "Optimal: the fewest points, then cards, then abilities. Two neighbouring actions are "
     "independent when both orders are legal and lead to the very same position; two optimal "
     "solutions are the same when one becomes the other by swapping independent neighbours. "
     "From 3 stars up the solver has listed every optimal solution of a Mission in N or hand "
     "puzzle, and the page says whether it is unique in this sense or how many essentially "
     f"different ones there are; one it could not list gets {MAX_STARS_UNCOUNTED} stars at "
     "most."),
]
