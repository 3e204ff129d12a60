"""Seeded random positions for benchmarks, tests and puzzle generation."""

from __future__ import annotations

import random
from dataclasses import replace

from .deal import deal
from .engine import PLAYING, Deck, State, position_from_state, state_from_position, successors
from .position import Current, Position, normalized_cells
from .spec import Spec


def random_play(deck: Deck, s: State, rng: random.Random, steps: int) -> State:
    """Up to ``steps`` uniformly random legal actions that keep the game going."""
    for _ in range(steps):
        options = [(a, s2) for a, s2 in successors(deck, s) if s2.status == PLAYING]
        if not options:
            break
        s = rng.choice(options)[1]
    return s


def random_mission_puzzle(spec: Spec, seed: int, max_budget: int = 8, max_steps: int = 12,
                          keep_hand: bool = False) -> Position:
    """A mission puzzle: a random deal advanced by random legal play, then the current
    mission as the goal with a bare budget of 0..``max_budget`` points.  The layout is
    re-based to (0, 0) so the position file and its plans share coordinates."""
    rng = random.Random(f"rove-puzzle:{seed}")
    pos = deal(spec, seed)
    deck = Deck(spec, pos.rules)
    s = random_play(deck, state_from_position(deck, pos), rng, rng.randint(0, max_steps))
    p = position_from_state(deck, s, pos)
    p = p.with_cells(normalized_cells(p.cells))
    return replace(p, goal="mission", current=Current(None, rng.randint(0, max_budget)),
                   hand=p.hand if keep_hand else (), discard=p.discard if keep_hand else p.discard)
