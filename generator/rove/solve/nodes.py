"""What the exact searches share: limits, canonical keys and the successors worth trying.

A* (:mod:`.astar`), the whole-deal search (:mod:`.winnable`) and the plain baseline
(:mod:`.baseline`) expand nodes the same way; the pieces live here so that no search
imports another.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..engine import STRIDE, Deck, State, sensor_draws_left, successors, unpack

Key = tuple[Any, ...]
"""A state's canonical key (:func:`canonical_key`): what the searches' tables are keyed by."""


class Limit(Exception):
    """Raised inside a search when its time or node limit is reached."""


@dataclass
class Budget:
    """Time and node limits shared by the parts of one solve."""

    deadline: float
    max_nodes: int
    nodes: int = 0

    @classmethod
    def of(cls, time_limit: float | None, max_nodes: int | None) -> Budget:
        """None means no limit; 0 means none at all (the answer is ``unknown`` at once).

        No time at all is also no node at all, so that answer never depends on how soon
        the clock is read."""
        if time_limit == 0:
            max_nodes = 0
        return cls(time.monotonic() + time_limit if time_limit is not None else float("inf"),
                   max_nodes if max_nodes is not None else 1 << 62)

    def tick(self) -> None:
        # one node costs about a millisecond; the clock is read every 16
        self.nodes += 1
        if self.nodes >= self.max_nodes or (self.nodes & 15 == 0 and time.monotonic() > self.deadline):
            raise Limit
        if self.nodes == 1 and time.monotonic() > self.deadline:
            raise Limit


def canonical_key(s: State, keep_piles: bool) -> Key:
    """State up to translation; hand as a set; piles only when a draw can still matter."""
    shift = translation(s)
    cells = tuple(c - shift for c in s.cells)
    hand = tuple(sorted(s.hand))
    if keep_piles:
        return (cells, s.spent, hand, s.card, s.points, s.draw, s.discard, s.mission, s.done)
    return (cells, s.spent, hand, s.points, s.mission, s.done)


def translation(s: State) -> int:
    """The packed offset of a state's bounding-box corner (what canonical keys remove)."""
    xs = [unpack(c) for c in s.cells]
    return min(x for x, _ in xs) + min(y for _, y in xs) * STRIDE


def dominated_base_play(deck: Deck, s: State, a: Action) -> bool:
    """Whether ``a`` plays a card for its base points while its bonus is there.

    The bonus play does all the base play does, with more points; the one difference is
    that a card played for base runs out, and so reaches the discard pile, sooner.  That
    matters only if Sensor draws can empty both piles and take it back into the hand
    before the bonus line would have discarded it (no card joins the piles meanwhile),
    so while the piles hold fewer cards than the Sensor draws left, the base play is
    not dominated."""
    return (a.act == "play" and a.bonus is False and a.card is not None
            and deck.move_pat[deck.card_index[a.card]].matches(s.cells)
            and len(s.draw) + len(s.discard) >= sensor_draws_left(deck, s.spent))


def useful_successors(deck: Deck, s: State) -> list[tuple[Action, State]]:
    """The engine's successors without dominated base plays (:func:`dominated_base_play`)."""
    return [(a, s2) for a, s2 in successors(deck, s) if not dominated_base_play(deck, s, a)]
