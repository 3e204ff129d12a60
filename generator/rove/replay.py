"""Replaying a plan through the rules engine: the proof every solver result must pass."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .actions import Action
from .engine import (
    GOAL,
    WON,
    Deck,
    IllegalAction,
    State,
    apply,
    deck_for,
    state_cells,
    state_from_position,
    state_json,
)
from .errors import PlanRejected
from .position import Position, layout_text


@dataclass(frozen=True)
class Replay:
    """What happened when a plan was replayed from a position."""

    deck: Deck
    start: State
    actions: tuple[Action, ...]
    states: tuple[State, ...]  # the state after each applied action
    first_illegal: tuple[int, str] | None
    missions_before: int

    @property
    def legal(self) -> bool:
        return self.first_illegal is None

    @property
    def final(self) -> State:
        return self.states[-1] if self.states else self.start

    @property
    def goal_reached(self) -> bool:
        return self.final.status in (WON, GOAL)

    @property
    def points_spent(self) -> int:
        return sum(1 for a in self.actions[:len(self.states)] if a.act == "move")

    @property
    def cards_played(self) -> int:
        return sum(1 for a in self.actions[:len(self.states)] if a.act == "play")

    @property
    def abilities_used(self) -> int:
        return sum(1 for a in self.actions[:len(self.states)] if a.act == "ability")

    @property
    def missions_completed(self) -> int:
        return self.final.done - self.missions_before

    def to_json(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "steps_applied": len(self.states),
            "first_illegal": (None if self.first_illegal is None else
                              {"index": self.first_illegal[0], "reason": self.first_illegal[1]}),
            "goal_reached": self.goal_reached,
            "points_spent": self.points_spent,
            "cards_played": self.cards_played,
            "missions_completed": self.missions_completed,
            "final": state_json(self.deck, self.final),
        }


def run_plan(deck: Deck, start: State, plan: Iterable[Action],
             ) -> tuple[list[State], tuple[int, str] | None]:
    """The one replay loop: the state after each step of ``plan`` from ``start``, up to the
    first illegal step, and that step as (index, reason), or None when every step is legal.
    A step after the game ends is illegal (``apply`` says so)."""
    states: list[State] = []
    s = start
    for i, a in enumerate(plan):
        try:
            s = apply(deck, s, a)
        except IllegalAction as exc:
            return states, (i, str(exc))
        states.append(s)
    return states, None


def states_along(deck: Deck, start: State, plan: Iterable[Action]) -> list[State]:
    """``start`` and the state after each step of a plan known to be legal (raises
    IllegalAction at a step that is not)."""
    states, bad = run_plan(deck, start, plan)
    if bad is not None:
        raise IllegalAction(f"step {bad[0]}: {bad[1]}")
    return [start, *states]


def replay(pos: Position, plan: list[Action] | tuple[Action, ...], deck: Deck | None = None) -> Replay:
    """Apply the plan step by step; stop at the first illegal step."""
    deck = deck or deck_for(pos.spec, pos.rules)
    start = state_from_position(deck, pos)
    states, bad = run_plan(deck, start, plan)
    return Replay(deck, start, tuple(plan), tuple(states), bad, pos.missions_done)


def verify_plan(pos: Position, plan: list[Action], deck: Deck | None = None) -> Replay:
    """Replay a solver's plan and insist that it is legal and reaches the goal; raises
    PlanRejected (a SolverBug) when it does not."""
    r = replay(pos, plan, deck)
    if r.first_illegal is not None:
        i, why = r.first_illegal
        raise PlanRejected(f"solver bug: step {i} ({plan[i]}) is illegal: {why}", i, why, r.final.status)
    if not r.goal_reached:
        raise PlanRejected(f"solver bug: the plan is legal but ends with status {r.final.status}",
                           None, "", r.final.status)
    return r


def describe_state(deck: Deck, s: State) -> str:
    """A few lines for people: the layout grid, points, mission, hand."""
    grid = layout_text(state_cells(deck, s))
    spent = [deck.codes[i] for i in range(deck.n) if s.spent >> i & 1]
    ids = deck.card_ids
    cur = (f"{ids[s.card]} with {s.points} point(s)" if s.card >= 0 else
           f"bare budget of {s.points}" if s.points else "none")
    mission = (f"{ids[s.mission]} ({deck.spec.card(ids[s.mission]).mission.title})"
               if s.mission >= 0 else s.status)
    lines = [*("    " + row for row in grid.rstrip("\n").split("\n")),
             f"    current: {cur}; mission: {mission}; done: {s.done}",
             f"    hand: {' '.join(ids[c] for c in s.hand) or '-'}"
             + (f"; spent: {' '.join(spent)}" if spent else "")]
    return "\n".join(lines)
