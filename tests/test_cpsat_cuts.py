"""Each tightening of the CP-SAT engine checked with and without it on puzzles whose
answer is known (worked out by hand, or the exact search's), so a cut that loses a plan
fails here.

* the horizon's ability count leaves out Sensors when no card is within reach
  (``rove.solve.cpsat._useful_flips``), and a bare budget needs no play and no take;
* the mission driver's iterative deepening takes the search's plan only as a solution
  hint: with a wrong hint (a plan for another puzzle, or one far from optimal) the
  answer is the same.

Budgets are deterministic (CP-SAT's deterministic time, one worker; search nodes).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import STD6, Lab, active, mod
from helpers import bare_budget_puzzle
from test_cpsat import puzzle

from rove.actions import Action
from rove.engine import Deck, state_from_position
from rove.grid import DIRECTION_BY_NAME
from rove.solve import cpsat as engine
from rove.solve.result import SOLVED, UNSOLVABLE, SolveResult
from rove.solve.search import solve as solve_search
from rove.spec import Spec

BUDGET = 60.0
SEARCH_NODES = 500_000


def cpsat(pos: Any, **kw: Any) -> SolveResult:
    return engine.solve_cpsat(pos, deterministic_time=BUDGET, workers=1, hint=False, **kw)


def answer(r: SolveResult) -> tuple[Any, ...]:
    return (r.status, r.points, r.cards, r.abilities)


def all_flips(deck: Deck, s: Any, cardless: bool) -> int:
    """The horizon's ability count without the cut: every active module."""
    return sum(1 for i in range(deck.n) if not s.spent >> i & 1)


class TestCardlessSensor:
    def test_bounds(self, lab: Lab) -> None:
        # bare budget, Sensor and Laser active: nothing to draw or play, one useful flip
        pos = puzzle(lab, STD6, "B S", current=(None, 3), spent=active("L", "S"))
        deck = Deck(pos.spec, pos.rules)
        b = engine.mission_bounds(deck, state_from_position(deck, pos))
        assert (b.moves, b.plays, b.abilities, b.takes) == (3, 0, 1, 0)

    def test_sensor_counts_with_a_card_to_draw(self, lab: Lab) -> None:
        pos = puzzle(lab, STD6, "B S", current=(None, 3), draw=["x1"], spent=active("L", "S"))
        deck = Deck(pos.spec, pos.rules)
        b = engine.mission_bounds(deck, state_from_position(deck, pos))
        assert b.abilities == 2 and b.plays == 1

    def test_sensor_counts_when_its_flip_changes_arrows(self, lab: Lab) -> None:
        # S's spent side moves E: flip it, then S E2 over L makes "B . . S" (G keeps B joined)
        mods = [mod("S", "sensor", "sensor", ("standard", ["N"]), spent=[("standard", ["E"])]),
                mod("L", "laser", "laser", ("standard", ["diagonal"])),
                mod("B", "brain", "brain", ("standard", ["N"])),
                mod("G", "gripper", "gripper", ("short", ["N"]))]
        pos = puzzle(lab, "B S L\n. G .", "B . . S", modules=mods, current=(None, 1),
                     spent=["L", "B", "G"])
        deck = Deck(pos.spec, pos.rules)
        assert engine.mission_bounds(deck, state_from_position(deck, pos)).abilities == 1
        r = cpsat(pos)
        assert r.status == SOLVED and r.optimal and (r.points, r.abilities) == (1, 1), r

    @pytest.mark.parametrize("seed", [2, 3, 6, 12, 16])
    def test_same_answer_with_and_without(self, classic: Spec, seed: int,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
        """Bare-budget puzzles with the Sensor active among others: the exact search, the
        model with the cut and the model without it give one answer."""
        pos = bare_budget_puzzle(classic, seed, 2 + seed % 3, budget=3)
        deck = Deck(pos.spec, pos.rules)
        start = state_from_position(deck, pos)
        s = deck.index["S"]
        assert not start.spent >> s & 1, "the puzzle must have the Sensor active"
        want = solve_search(pos, max_nodes=SEARCH_NODES)
        assert want.status in (SOLVED, UNSOLVABLE)
        cut = cpsat(pos)
        monkeypatch.setattr(engine, "_useful_flips", all_flips)
        loose = cpsat(pos)
        assert answer(cut) == answer(loose) == answer(want), (want, cut, loose)
        assert cut.stats["horizon"] < loose.stats["horizon"]


class TestHintIsOnlyAHint:
    def test_a_poor_hint_changes_nothing(self, classic: Spec,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
        """The search's plan seeds the models but bounds nothing: handed a plan with more
        points than the optimum the engine still proves the optimum."""
        pos = bare_budget_puzzle(classic, 3, 3, budget=3)
        want = solve_search(pos, max_nodes=SEARCH_NODES)
        assert want.status == SOLVED and want.plan is not None and want.points
        detour = [*want.plan]
        # a plan one point dearer: the same, with the first move undone and redone first
        first = next(a for a in detour if a.act == "move")
        assert first.dir is not None
        d = DIRECTION_BY_NAME[first.dir]
        back = next(n for n, o in DIRECTION_BY_NAME.items() if (o.dx, o.dy) == (-d.dx, -d.dy))
        poor = [first, Action.move(first.module or "", back, first.dist or 1), *detour]

        def fake(*_: Any, **__: Any) -> tuple[list[Any], bool]:
            return poor, False

        monkeypatch.setattr(engine, "_search_hint", fake)
        r = engine.solve_cpsat(pos, deterministic_time=BUDGET, workers=1, hint=True)
        assert answer(r) == answer(want) and r.optimal, (want, r)
