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
from ..rules import HAND_LIMIT

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


def mission_key(deck: Deck, s: State) -> Key:
    """The key of a state in a search for one mission's cheapest plan (A*): the piles
    only as far as the rest of the mission can tell them apart.

    Within a mission the only draws are the Sensor's, from the top of the draw pile;
    while that pile holds at least as many cards as the Sensor draws left, none of them
    reaches the discard pile, so its order and the current card (which only ever goes
    there) change nothing a plan can do or cost until the mission is complete: the key
    keeps the draw pile and leaves them out.  With fewer cards there it keeps both piles
    (:func:`canonical_key`), and with no draw left neither."""
    draws = sensor_draws_left(deck, s.spent)
    if draws > len(s.draw):
        return canonical_key(s, True)
    key = canonical_key(s, False)
    return (*key, s.draw) if draws else key


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


def wasted_play(deck: Deck, s: State, fresh: bool) -> bool:
    """Whether a card played in ``s`` wastes the current one, in a search for the
    cheapest plan of one mission (A*, costs (points, cards, abilities)).

    ``fresh`` says the path to ``s`` played the current card and since then used only
    abilities that drew nothing (:func:`still_fresh`).  Playing another card ``d`` now
    throws the current card ``c`` away unused: the same path without ``c``'s play (its
    abilities work without it, as none drew) then ``d`` is one card cheaper and keeps
    ``c`` in the hand, and every plan that goes on from the wasteful line goes on from
    that one too, action for action, to the same layouts at the same points.  The one
    thing a larger hand can refuse is a Sensor draw at the hand limit: the better line
    holds one card more, so each of the Sensor draws left must find the wasteful line's
    hand at least two below the limit, which holds while the hand after ``d``'s play
    plus those draws stays below the limit.  The piles differ only by ``c``, which the
    wasteful line has in the discard pile, so every draw either takes the same card or
    takes ``c`` back (the better line then draws the next card, or nothing, and is again
    one card ahead).  Across a completion (a draw up to the limit) the argument fails,
    so the whole-deal searches do not use it."""
    return fresh and len(s.hand) + sensor_draws_left(deck, s.spent) <= HAND_LIMIT


def cards_needed(points: int, s: State) -> int:
    """The cards a plan from ``s`` still plays, at least, when it spends ``points`` more
    points (the estimate's), in a search for the cheapest plan of one mission: one when
    those are more than the current card has left, as only a card's play brings points.

    A* orders plans by points, then cards: without this bound a search whose start holds
    no points expanded every state the abilities reach at the cheapest number of points
    with no card played yet, though none of them completes the mission without a play
    (two thirds of what :func:`played_for_a_move` leaves of a first mission's search
    with every ability unspent, on bench/decks/t35.yaml).  Admissible on the points'
    tie, where it counts: a plan that spends exactly ``points`` more plays a card when
    the current one holds fewer."""
    return int(points > s.points)


def played_for_a_move(estimate: tuple[int, int], fresh: bool) -> tuple[int, int]:
    """The estimate ``(points, abilities)`` of a state reached on a ``fresh`` path (see
    :func:`still_fresh`), in a search for the cheapest plan of one mission: at least one
    point.

    A card's play changes neither the layout nor what an ability can do, so a plan that
    completes the mission with no move after a play is beaten by the same plan without
    that play: one card fewer, the same points, the same abilities (a Sensor draw that
    the larger hand refuses changes no layout either, and is left out too).  So no
    optimal plan goes on from a fresh path without a move, and counting that move keeps
    A* optimal.  With the plain estimate of 0, A* expanded, ahead of every one-point
    plan, each state that plays and abilities reach while it looked for a completion
    without a point: nearly half the nodes of a first mission's search with every
    ability unspent (on bench/decks/t35.yaml).  The raised estimate is only admissible
    along optimal plans, which is all A* with re-opening needs."""
    points, abilities = estimate
    return (1, 0) if fresh and points == 0 else (points, abilities)


def still_fresh(a: Action, s: State, s2: State, fresh: bool) -> bool:
    """Whether the path through ``a`` (``s`` to ``s2``) is fresh (see :func:`wasted_play`):
    a play makes it so, an ability that drew nothing keeps it, anything else ends it."""
    if a.act == "play":
        return True
    return fresh and a.act == "ability" and s2.hand == s.hand
