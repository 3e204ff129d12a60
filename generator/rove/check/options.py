"""What a check run depends on: its options, the deal seeds and the start arrangements."""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from dataclasses import dataclass
from typing import Any

from ..generators.deals import DIFFICULTIES
from ..solve.ladder import QUICK_SEARCH_NODES
from ..spec import Spec

BARE_BUDGET = 99  # points of the bare budget for mission costs from the starts: never binding
MAX_STARTS = 720  # arrangements tried when starts is None (all of them for 6 modules)
#: The defaults are sized for a first look at a deck worth playing within about five
#: minutes on two cores (docs/internals/check.md, "How long a check takes"): 20 deals a
#: difficulty, 60 start arrangements, and the thoughtful player's cheap rungs only.  Each
#: figure grows on request (--deals for the intervals, --starts for the costs,
#: --node-limit and --seer-node-limit for the dear rungs); the figures of a run depend on
#: its options only, never on the machine.
DEFAULT_DEALS = 20
DEFAULT_STARTS = 60
DEFAULT_MISSION_NODE_LIMIT = 200_000
DEFAULT_TIME_LIMIT = 600.0
DEFAULT_EXPERT_NODE_LIMIT = 2_000_000
#: the thoughtful player's cheap rungs, tried on every deal the expert did not win before
#: any dear search: a seer (finds the wins: on the standard deck, g35 and o35, 13 of the
#: 15 deals of the default check that a 500,000-node seer left, each within 2,300,000
#: nodes and 4 to 18 s; on bench/decks/t35.yaml 5 of the 6 deals a 3,000,000-node seer
#: ran out on, each within 4,600,000 nodes and 19 to 28 s) and a short exact search
#: (proves the easy losses, ``solve.ladder.QUICK_SEARCH_NODES``)
QUICK_SEER_NODES = 5_000_000
#: by default only the cheap rungs run: on the decks measured the dear ones (a 2,000,000
#: node search, the seer with 8 million) took a minute or more a deal and decided few
#: (bench/decks/t35.yaml: none of 6 deals by the search)
DEFAULT_NODE_LIMIT = QUICK_SEARCH_NODES
DEFAULT_SEER_NODE_LIMIT = QUICK_SEER_NODES
#: the seer's middle rung, before the exact search's full --node-limit
MID_SEER_NODES = 8_000_000
PLAYERS = ("thoughtful", "expert")


@dataclass(frozen=True)
class CheckOptions:
    """Everything the figures depend on (workers and executors do not belong here)."""

    deals: int = DEFAULT_DEALS
    difficulties: tuple[str, ...] = DIFFICULTIES
    seed: int = 0
    node_limit: int = DEFAULT_NODE_LIMIT
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

    def __post_init__(self) -> None:
        bad = [d for d in self.difficulties if d not in DIFFICULTIES]
        if bad or not self.difficulties:
            raise ValueError(f"difficulty must be one or more of {', '.join(DIFFICULTIES)}")
        if len(set(self.difficulties)) != len(self.difficulties):
            raise ValueError("a difficulty is listed twice")
        if self.deals < 0:
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

    def ladder(self) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]:
        """The thoughtful player's rungs (``rove.solve.ladder``) as (solver, nodes), in two
        phases: the cheap ones, run on every deal the expert did not win, and the dear ones,
        run only on the deals the cheap ones leave.  Each rung is bounded by the node limits
        given (a seer of 0 nodes is no seer), and a rung no larger than an earlier one of
        the same solver is left out: it could only repeat that one's work."""
        seer = self.seer_node_limit
        # the seer first: on the decks measured it decided every deal the cheap rungs
        # decided (standard: 23 of 32 deals the expert had not won, the short search none)
        wanted = [("seer", min(QUICK_SEER_NODES, seer)), ("search", min(QUICK_SEARCH_NODES, self.node_limit)),
                  ("seer", min(MID_SEER_NODES, seer)), ("search", self.node_limit), ("seer", seer)]
        rungs: list[tuple[str, int]] = []
        phase: list[int] = []
        for i, (solver, nodes) in enumerate(wanted):
            if nodes > max((n for s, n in rungs if s == solver), default=0):
                rungs.append((solver, nodes))
                phase.append(0 if i < 2 else 1)
        return (tuple(r for r, p in zip(rungs, phase) if p == 0),
                tuple(r for r, p in zip(rungs, phase) if p == 1))

    def to_json(self) -> dict[str, Any]:
        return {"deals": self.deals, "difficulties": list(self.difficulties), "seed": self.seed,
                "node_limit": self.node_limit, "mission_node_limit": self.mission_node_limit,
                "time_limit": self.time_limit, "starts": self.starts, "players": list(self.players),
                "expert_node_limit": self.expert_node_limit, "seer_node_limit": self.seer_node_limit,
                "ladder": [[{"solver": s, "nodes": n} for s, n in phase] for phase in self.ladder()]}


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
