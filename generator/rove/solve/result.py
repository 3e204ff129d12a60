"""What a solver answers: the same shape for every engine (docs/FORMATS.md, "rove solve --json")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..actions import Action

SOLVED, UNSOLVABLE, UNKNOWN = "solved", "unsolvable", "unknown"


@dataclass(frozen=True)
class SolveResult:
    """``solved`` with a plan the engine replayed, ``unsolvable`` (proven) or ``unknown``
    (a limit was hit; nothing is claimed)."""

    status: str
    engine: str
    goal: str
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
