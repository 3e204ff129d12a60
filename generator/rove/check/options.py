"""What a check run depends on: its options, the deal seeds and the start arrangements."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

from ..defaults import (
    CHECK_BATCH,
    CHECK_MAX_DEALS,
    CHECK_MISSION_NODES,
    CHECK_SEER_NODES,
    CHECK_STARTS,
    CHECK_THOUGHTFUL_DEALS,
    CHECK_TIME_LIMIT,
    EXPERT_GAME_NODES,
    QUICK_SEARCH_NODES,
)
from ..generators.deals import DIFFICULTIES
from ..solve.ladder import SEARCH, SEER, Rung
from ..spec import Spec

BARE_BUDGET = 99  # points of the bare budget for mission costs from the starts: never binding
MAX_STARTS = 720  # arrangements tried when starts is None (all of them for 6 modules)
#: The defaults are sized for a verdict within about five minutes on two cores
#: (docs/internals/check.md, "How long a check takes"): deals in batches of 20 a
#: difficulty until the expert's interval settles the verdict against the band or is at
#: most 10 points wide (at most 420), the thoughtful player on the first 30, 60 start
#: arrangements, and the thoughtful player's cheap rungs only.  Each figure grows on
#: request (--deals fixes the count, --max-deals raises the cap, --starts for the costs,
#: --node-limit and --seer-node-limit for the dear rungs); the figures of a run depend on
#: its options only, never on the machine.  The figures themselves live in
#: ``rove.defaults``, which the CLI reads too.
DEFAULT_DEALS: int | None = None  # None: deals until the verdict is clear (sequential)
DEFAULT_BATCH = CHECK_BATCH
DEFAULT_MAX_DEALS = CHECK_MAX_DEALS
DEFAULT_THOUGHTFUL_DEALS = CHECK_THOUGHTFUL_DEALS
DEFAULT_STARTS = CHECK_STARTS
DEFAULT_MISSION_NODE_LIMIT = CHECK_MISSION_NODES
DEFAULT_TIME_LIMIT = CHECK_TIME_LIMIT
DEFAULT_EXPERT_NODE_LIMIT = EXPERT_GAME_NODES
#: the thoughtful player's cheap rungs, tried on every deal the expert did not win before
#: any dear search: a seer (finds the wins: on the standard deck, g35 and o35, 13 of the
#: 15 deals of the default check that a 500,000-node seer left, each within 2,300,000
#: nodes and 4 to 18 s; on bench/decks/t35.yaml 5 of the 6 deals a 3,000,000-node seer
#: ran out on, each within 4,600,000 nodes and 19 to 28 s) and a short exact search
#: (proves the easy losses, ``solve.ladder.QUICK_SEARCH_NODES``)
QUICK_SEER_NODES = CHECK_SEER_NODES
#: by default only the cheap rungs run: on the decks measured the dear ones (a 2,000,000
#: node search, the seer with 8 million) took a minute or more a deal and decided few
#: (bench/decks/t35.yaml: none of 6 deals by the search).  The exact search's nodes a
#: deal (``--node-limit``), not to be confused with the expert's budget a game.
DEFAULT_SEARCH_NODE_LIMIT = QUICK_SEARCH_NODES
DEFAULT_SEER_NODE_LIMIT = QUICK_SEER_NODES
#: the seer's middle rung, before the exact search's full --node-limit
MID_SEER_NODES = 8_000_000
#: the target band of the expert's win rate per difficulty (``--band``), 20 points wide:
#: see docs/reference/check.md, "The verdict", for why these
DEFAULT_BANDS: tuple[tuple[str, float, float], ...] = (
    ("normal", 0.45, 0.65), ("hard", 0.35, 0.55), ("impossible", 0.25, 0.45))
PLAYERS = ("thoughtful", "expert")


@dataclass(frozen=True)
class CheckOptions:
    """Everything the figures depend on (workers and executors do not belong here)."""

    #: deals a difficulty: a fixed count, or None to play batches of ``batch`` deals
    #: until the expert's interval settles the verdict (``rove.check.verdict``)
    deals: int | None = DEFAULT_DEALS
    difficulties: tuple[str, ...] = DIFFICULTIES
    seed: int = 0
    node_limit: int = DEFAULT_SEARCH_NODE_LIMIT
    time_limit: float | None = DEFAULT_TIME_LIMIT
    mission_node_limit: int = DEFAULT_MISSION_NODE_LIMIT
    #: start arrangements for the mission costs: a seeded sample of that many, None = all
    #: (a seeded sample of MAX_STARTS when there are more), 0 = skip the cost solves
    starts: int | None = DEFAULT_STARTS
    #: who plays the deals: "thoughtful" (the exact solver, the draw order known) and/or
    #: "expert" (rove.solve.expert: a fixed player that sees what a person at the table sees)
    players: tuple[str, ...] = PLAYERS
    expert_node_limit: int = DEFAULT_EXPERT_NODE_LIMIT
    #: nodes of the seer (rove.solve.seer) on each deal the thoughtful search leaves at
    #: its limit: a win it finds is the thoughtful player's (0: no seer)
    seer_node_limit: int = DEFAULT_SEER_NODE_LIMIT
    #: the target band of the expert's win rate, (difficulty, low, high) for each
    #: difficulty (one not listed takes its default band)
    bands: tuple[tuple[str, float, float], ...] = DEFAULT_BANDS
    #: with ``deals`` None: deals a batch, and the most deals a difficulty plays
    batch: int = DEFAULT_BATCH
    max_deals: int = DEFAULT_MAX_DEALS
    #: deals a difficulty the thoughtful player plays (the first ones); None: all of a
    #: fixed ``deals``, or DEFAULT_THOUGHTFUL_DEALS of a sequential run
    thoughtful_deals: int | None = None

    def __post_init__(self) -> None:
        bad = [d for d in self.difficulties if d not in DIFFICULTIES]
        if bad or not self.difficulties:
            raise ValueError(f"difficulty must be one or more of {', '.join(DIFFICULTIES)}")
        if len(set(self.difficulties)) != len(self.difficulties):
            raise ValueError("a difficulty is listed twice")
        if self.deals is not None and self.deals < 0:
            raise ValueError("deals must be 0 or more")
        if self.node_limit < 1 or self.mission_node_limit < 1:
            raise ValueError("node limits must be at least 1")
        if self.starts is not None and self.starts < 0:
            raise ValueError("starts must be 0 or more")
        if not self.players or any(p not in PLAYERS for p in self.players):
            raise ValueError(f"player must be one or more of {', '.join(PLAYERS)}")
        if len(set(self.players)) != len(self.players):
            raise ValueError("a player is listed twice")
        if self.expert_node_limit < 1:
            raise ValueError("node limits must be at least 1")
        if self.seer_node_limit < 0:
            raise ValueError("the seer's node limit must be 0 or more")
        if self.batch < 1 or self.max_deals < 1:
            raise ValueError("the batch and --max-deals must be at least 1")
        if self.thoughtful_deals is not None and self.thoughtful_deals < 0:
            raise ValueError("--thoughtful-deals must be 0 or more")
        for d, lo, hi in self.bands:
            if d not in DIFFICULTIES:
                raise ValueError(f"a band's difficulty must be one of {', '.join(DIFFICULTIES)}, not {d!r}")
            if not 0 <= lo < hi <= 1:
                raise ValueError(f"the band {d}={lo:g}-{hi:g} must be two win rates, low below high, "
                                 "between 0 and 1 (e.g. normal=0.45-0.65)")
        if len({d for d, _, _ in self.bands}) != len(self.bands):
            raise ValueError("a difficulty has two bands")

    @property
    def sequential(self) -> bool:
        """Whether the deals run until the verdict is clear (no fixed ``deals``)."""
        return self.deals is None

    @property
    def first_deals(self) -> int:
        """Deals a difficulty plays before the first look (all of them when fixed)."""
        return min(self.batch, self.max_deals) if self.deals is None else self.deals

    @property
    def looks(self) -> int:
        """How many times the stopping rule may look at a difficulty's interval: the 95%
        error is split over them (``rove.check.verdict``); one for a fixed count."""
        return 1 if self.deals is not None else -(-self.max_deals // self.batch)

    @property
    def thoughtful_limit(self) -> int | None:
        """The thoughtful player's deals a difficulty (the first ones), None: all."""
        if self.thoughtful_deals is not None:
            return self.thoughtful_deals
        return None if self.deals is not None else DEFAULT_THOUGHTFUL_DEALS

    def band(self, difficulty: str) -> tuple[float, float]:
        """The target band of a difficulty's expert win rate."""
        given = {d: (lo, hi) for d, lo, hi in self.bands}
        if difficulty in given:
            return given[difficulty]
        return next((lo, hi) for d, lo, hi in DEFAULT_BANDS if d == difficulty)

    def ladder(self) -> tuple[tuple[Rung, ...], tuple[Rung, ...]]:
        """The thoughtful player's rungs (``rove.solve.ladder``), in two phases: the cheap
        ones, run on every deal the expert did not win, and the dear ones, run only on the
        deals the cheap ones leave.  Each rung is bounded by the node limits given (a seer
        of 0 nodes is no seer), and a rung no larger than an earlier one of the same
        solver is left out: it could only repeat that one's work."""
        seer = self.seer_node_limit
        # the seer first: on the decks measured it decided every deal the cheap rungs
        # decided (standard: 23 of 32 deals the expert had not won, the short search none)
        wanted = [(SEER, min(QUICK_SEER_NODES, seer)), (SEARCH, min(QUICK_SEARCH_NODES, self.node_limit)),
                  (SEER, min(MID_SEER_NODES, seer)), (SEARCH, self.node_limit), (SEER, seer)]
        rungs: list[Rung] = []
        phase: list[int] = []
        for i, (solver, nodes) in enumerate(wanted):
            if nodes > max((r.nodes for r in rungs if r.solver == solver), default=0):
                rungs.append(Rung(solver, nodes))
                phase.append(0 if i < 2 else 1)
        return (tuple(r for r, p in zip(rungs, phase) if p == 0),
                tuple(r for r, p in zip(rungs, phase) if p == 1))

    def to_json(self) -> dict[str, Any]:
        return {"deals": self.deals, "difficulties": list(self.difficulties), "seed": self.seed,
                "node_limit": self.node_limit, "mission_node_limit": self.mission_node_limit,
                "time_limit": self.time_limit, "starts": self.starts, "players": list(self.players),
                "expert_node_limit": self.expert_node_limit, "seer_node_limit": self.seer_node_limit,
                "ladder": [[r.to_json() for r in phase] for phase in self.ladder()],
                "bands": {d: list(self.band(d)) for d in self.difficulties},
                "sequential": self.sequential, "batch": self.batch, "max_deals": self.max_deals,
                "looks": self.looks, "thoughtful_deals": self.thoughtful_limit}


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal ``index`` of a check run with ``seed`` (48 bits, stable)."""
    digest = hashlib.sha256(f"rove-check:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def start_arrangements(spec: Spec, starts: int | None, seed: int) -> list[tuple[str, ...]]:
    """Module orders dealt row-major into rows of 3 (as ``deal`` does): all of them, in the
    order of ``itertools.permutations`` of the spec's codes, or a seeded sample."""
    codes = spec.codes
    total = math.factorial(len(codes))
    want = min(total, MAX_STARTS) if starts is None else min(total, starts)
    if want == total:
        return list(itertools.permutations(codes))
    rng = random.Random(f"rove-check-starts:{seed}")
    if total <= 50_000:
        return sorted(rng.sample(list(itertools.permutations(codes)), want))
    got: set[tuple[str, ...]] = set()
    while len(got) < want:
        order = list(codes)
        rng.shuffle(order)
        got.add(tuple(order))
    return sorted(got)


def parse_band(values: list[str]) -> tuple[tuple[str, float, float], ...]:
    """``--band normal=0.45-0.65`` (shares, or percentages such as 45-65%) as the bands
    of :class:`CheckOptions`: the ones given, and the defaults for the others."""
    given: dict[str, tuple[float, float]] = {}
    for v in values:
        d, sep, span = v.partition("=")
        lo, dash, hi = span.rstrip("%").partition("-")
        pct = span.endswith("%")
        try:
            low, high = float(lo) / (100 if pct else 1), float(hi) / (100 if pct else 1)
        except ValueError:
            dash = ""
        if not sep or not dash:
            raise ValueError(f"--band {v!r} is not DIFFICULTY=LOW-HIGH; write e.g. --band normal=0.45-0.65")
        given[d.strip()] = (low, high)
    out = [(d, *given.pop(d, (lo, hi))) for d, lo, hi in DEFAULT_BANDS]
    out += [(d, lo, hi) for d, (lo, hi) in given.items()]  # unknown names: refused by CheckOptions
    return tuple(out)
