"""What a solver answers: the same shape for every engine (docs/FORMATS.md, "rove solve --json")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple

from ..actions import Action
from ..position import Goal

if TYPE_CHECKING:
    from ..engine import State

Status = Literal["solved", "unsolvable", "unknown"]
"""A solver's answer: a plan the engine replayed, a proof that none exists, or a limit hit."""
SOLVED: Final[Status] = "solved"
UNSOLVABLE: Final[Status] = "unsolvable"
UNKNOWN: Final[Status] = "unknown"
Engine = Literal["search", "cpsat"]
"""Which solver answered."""


class MissionPlan(NamedTuple):
    """A mission search's answer: the cheapest plan (None: proven impossible) and the
    nodes it expanded."""

    plan: list[Action] | None
    nodes: int


class MissionSolution(NamedTuple):
    """A mission search's answer with the state its plan reaches (None with no plan)."""

    plan: list[Action] | None
    state: State | None
    nodes: int


class GamePlan(NamedTuple):
    """A whole-deal search's answer: a winning plan (None: proven unwinnable) and whether
    it is proven the cheapest in points (only an ``optimal`` search proves that)."""

    plan: list[Action] | None
    optimal: bool


@dataclass(frozen=True)
class SolveResult:
    """``solved`` with a plan the engine replayed, ``unsolvable`` (proven) or ``unknown``
    (a limit was hit; nothing is claimed)."""

    status: Status
    engine: Engine
    goal: Goal
    optimal: bool
    plan: tuple[Action, ...] | None
    points: int | None
    cards: int | None
    seconds: float
    rules: dict[str, Any]
    nodes: int = 0
    abilities: int | None = None
    reason: str = ""
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "engine": self.engine,
            "goal": self.goal,
            "optimal": self.optimal,
            "points": self.points,
            "cards": self.cards,
            "plan": [a.to_json() for a in self.plan] if self.plan is not None else None,
            "seconds": round(self.seconds, 3),
            "rules": self.rules,
            "abilities": self.abilities,
            "nodes": self.nodes,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.stats:
            out["stats"] = self.stats
        return out

    @property
    def exit_code(self) -> int:
        return {SOLVED: 0, UNSOLVABLE: 1, UNKNOWN: 3}[self.status]


def plan_cost(plan: tuple[Action, ...] | list[Action]) -> tuple[int, int, int]:
    """(points, cards, abilities): the order in which plans are compared."""
    return (sum(a.act == "move" for a in plan), sum(a.act == "play" for a in plan),
            sum(a.act == "ability" for a in plan))
