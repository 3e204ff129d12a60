"""Hand-made rules cases: each ruling of docs/RULES.md with its exact expected result.

Every case goes through ``apply`` (validation) *and* through ``legal_actions`` /
``successors`` with ``include_noops=True`` (generation): a legal action must be
generated with exactly the state ``apply`` gives, an illegal one must not be
generated at all.

Positions are built by conftest's ``Lab`` from small specs: the six reference modules
by default, and cards whose mission and movement patterns never match unless a test
wants them to (``NEVER``: all six modules stacked in one column).
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

import pytest
from conftest import STD, STD6, STD_MODULES, Lab, card, mod
from helpers import parse_grid

from rove.actions import Action
from rove.engine import (
    GOAL,
    LOST,
    PLAYING,
    WON,
    Deck,
    Game,
    IllegalAction,
    State,
    apply,
    is_stuck,
    legal_actions,
    matched_cells,
    sensor_draws_left,
    successors,
    unpack,
)
from rove.spec import ANY, EMPTY, Pattern, Spec, iter_patterns

# --------------------------------------------------------------------------- helpers


def grid(text: str, origin: tuple[int, int] = (0, 0)) -> dict[str, tuple[int, int]]:
    """Module cells of a grid text whose top-left character is ``origin``."""
    ox, oy = origin
    return {v: (x + ox, y + oy) for (x, y), v in parse_grid(text).items()}


def cells(deck: Deck, s: State) -> dict[str, tuple[int, int]]:
    return {c: unpack(s.cells[i]) for i, c in enumerate(deck.codes)}


def with_cells(base: str, **moved: tuple[int, int]) -> dict[str, tuple[int, int]]:
    out = grid(base)
    out.update(moved)
    return out


def ids(deck: Deck, seq: tuple[int, ...]) -> list[str]:
    return [deck.card_ids[c] for c in seq]


def canon(deck: Deck, s: State, a: Action) -> Action:
    """The form generation uses: a play's bonus resolved, a swap in module order."""
    if a.act == "play" and a.bonus is None and a.card in deck.card_index:
        return replace(a, bonus=deck.move_pat[deck.card_index[a.card]].matches(s.cells))
    if a.swap is not None and all(m in deck.index for m in a.swap):
        return replace(a, swap=tuple(sorted(a.swap, key=deck.index.__getitem__)))
    return a


def ok(deck: Deck, s: State, text: str) -> State:
    """Apply a legal action; generation must offer it with the very same result."""
    a = Action.parse(text)
    after = apply(deck, s, a)
    want = canon(deck, s, a)
    generated = [st for g, st in successors(deck, s, include_noops=True) if canon(deck, s, g) == want]
    assert generated, f"{text!r} is legal by apply but not generated"
    assert after in generated, f"{text!r}: apply and generation disagree on the result"
    return after


def bad(deck: Deck, s: State, text: str, reason: str) -> None:
    """An illegal action: apply says why, generation does not offer it."""
    a = Action.parse(text)
    with pytest.raises(IllegalAction, match=re.escape(reason)):
        apply(deck, s, a)
    offered = [canon(deck, s, g) for g in legal_actions(deck, s, include_noops=True)]
    assert canon(deck, s, a) not in offered, f"{text!r} is illegal but generated"


# --------------------------------------------------------------------------- arrows


class TestStandardArrow:
    def test_any_distance_passing_over_modules(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "B E3")) == with_cells(STD6, B=(3, 0))
        assert cells(deck, ok(deck, s, "B S2")) == with_cells(STD6, B=(0, 2))

    def test_long_distance(self, lab: Lab) -> None:
        deck, s = lab.game("B L S C G M", current=(None, 1))
        assert cells(deck, ok(deck, s, "B E6")) == with_cells("B L S C G M", B=(6, 0))

    def test_landing_on_a_module_is_illegal(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        bad(deck, s, "B E1", "lands on L's cell")
        bad(deck, s, "B E2", "lands on S's cell")
        bad(deck, s, "B S1", "lands on C's cell")
        bad(deck, s, "L SE1", "lands on M's cell")

    def test_diagonal_standard(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "L NE1")) == with_cells(STD6, L=(2, -1))
        bad(deck, s, "L NE2", "would split the group")

    def test_direction_without_arrow(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        bad(deck, s, "B NE1", "B has no arrow pointing NE on its active side (it moves N E S W)")
        bad(deck, s, "L N1", "L has no arrow pointing N")

    def test_split_is_illegal(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        bad(deck, s, "B E4", "B E4 would split the group")
        bad(deck, s, "B W2", "would split the group")
        bad(deck, s, "B N2", "would split the group")

    def test_corner_contact_keeps_the_group_whole(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        # B at (0,-1) touches only L at (1,0), corner to corner
        assert cells(deck, ok(deck, s, "B N1")) == with_cells(STD6, B=(0, -1))
        assert cells(deck, ok(deck, s, "B W1")) == with_cells(STD6, B=(-1, 0))

    def test_move_costs_one_point(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        s2 = ok(deck, s, "B E3")
        assert (s2.points, s2.card) == (2, -1)


class TestShortArrow:
    def test_exactly_one_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "G S1")) == with_cells(STD6, G=(1, 2))
        assert cells(deck, ok(deck, s, "G SE1")) == with_cells(STD6, G=(2, 2))
        bad(deck, s, "G S2", "a short arrow moves exactly 1 cell")
        bad(deck, s, "G N1", "lands on L's cell")


JUMP = """\
C . . .
B L S G
M"""  # C(0,0) / B(0,1) L(1,1) S(2,1) G(3,1) / M(0,2)


class TestJumpArrow:
    def test_jump_over_one_module(self, lab: Lab) -> None:
        deck, s = lab.game(JUMP, current=(None, 3))
        assert cells(deck, ok(deck, s, "C SE2")) == with_cells(JUMP, C=(2, 2))

    def test_jump_over_several_modules(self, lab: Lab) -> None:
        deck, s = lab.game(JUMP, current=(None, 3))
        assert cells(deck, ok(deck, s, "C S3")) == with_cells(JUMP, C=(0, 3))

    def test_jump_with_nothing_to_pass_is_illegal(self, lab: Lab) -> None:
        deck, s = lab.game(JUMP, current=(None, 3))
        # (2,0) would touch L, S and G: only the empty cell between forbids it
        bad(deck, s, "C E2", "a jump must pass over at least one module")
        bad(deck, s, "C E5", "a jump must pass over at least one module")

    def test_jump_needs_two_cells(self, lab: Lab) -> None:
        deck, s = lab.game(JUMP, current=(None, 3))
        bad(deck, s, "C E1", "a jump moves at least 2 cells")
        bad(deck, s, "C S1", "lands on B's cell")

    def test_jump_landing_rules(self, lab: Lab) -> None:
        deck, s = lab.game(JUMP, current=(None, 3))
        bad(deck, s, "C S2", "lands on M's cell")
        bad(deck, s, "C SE3", "would split the group")


def push_row(k: int) -> tuple[str, dict[str, tuple[int, int]]]:
    """Seven modules: M then a chain of k in row 0, the rest in row 1; and the cells
    after ``M E1``."""
    others = ["B", "L", "S", "C", "G", "X"]
    row0, row1 = others[:k], others[k:]
    layout = " ".join(["M", *row0]) + "\n" + " ".join([".", *row1])
    after = {"M": (1, 0)}
    after.update({c: (j + 2, 0) for j, c in enumerate(row0)})
    after.update({c: (j + 1, 1) for j, c in enumerate(row1)})
    return layout, after


class TestPushArrow:
    def test_push_into_empty_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "M S1")) == with_cells(STD6, M=(2, 2))
        assert cells(deck, ok(deck, s, "M E1")) == with_cells(STD6, M=(3, 1))

    def test_push_chain_of_two(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "M W1")) == with_cells(STD6, M=(1, 1), G=(0, 1), C=(-1, 1))

    def test_push_chain_of_one(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        assert cells(deck, ok(deck, s, "M N1")) == with_cells(STD6, M=(2, 0), S=(2, -1))

    @pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
    def test_push_chain_of_k(self, lab: Lab, k: int) -> None:
        spec = lab.spec(STD_MODULES + [mod("X", "extra", "sensor", ("standard", ["N"]))])
        layout, after = push_row(k)
        deck, s = lab.game(layout, spec=spec, current=(None, 1))
        assert cells(deck, ok(deck, s, "M E1")) == after

    def test_push_exactly_one_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        bad(deck, s, "M W2", "a push arrow moves exactly 1 cell")
        bad(deck, s, "M S2", "a push arrow moves exactly 1 cell")
        bad(deck, s, "M NE1", "M has no arrow pointing NE")

    def test_push_that_splits(self, lab: Lab) -> None:
        deck, s = lab.game("C M\n. . B L S G", current=(None, 3))
        bad(deck, s, "M E1", "M E1 would split the group")
        deck, s = lab.game("G\n. M B L S C", current=(None, 3))
        bad(deck, s, "M E1", "would split the group")


MULTI = "M B . S\nC G L"  # M(0,0) B(1,0) S(3,0) / C(0,1) G(1,1) L(2,1)


class TestArrowSides:
    def test_several_arrow_kinds_on_one_module(self, lab: Lab) -> None:
        mods = [*(STD[c] for c in "BLSCG"),
                mod("M", "motor", "motor", ("short", ["E"]), ("standard", ["E"]),
                     ("push", ["E"]), ("jump", ["E"]))]
        deck, s = lab.game(MULTI, spec=lab.spec(mods), current=(None, 3))
        # only the push arrow allows E1 onto B: it pushes
        assert cells(deck, ok(deck, s, "M E1")) == with_cells(MULTI, M=(1, 0), B=(2, 0))
        # standard and jump both allow E2 over B: the same result
        assert cells(deck, ok(deck, s, "M E2")) == with_cells(MULTI, M=(2, 0))
        assert cells(deck, ok(deck, s, "M E4")) == with_cells(MULTI, M=(4, 0))
        bad(deck, s, "M E3", "lands on S's cell")
        bad(deck, s, "M S1", "M has no arrow pointing S")

    def test_spent_side_arrows(self, lab: Lab) -> None:
        mods = [STD["B"], mod("L", "laser", "laser", ("standard", ["diagonal"]),
                               spent=[("standard", ["orthogonal"])]),
                *(STD[c] for c in "SCGM")]
        spec = lab.spec(mods)
        deck, s = lab.game(STD6, spec=spec, current=(None, 3), spent=("L",))
        assert cells(deck, ok(deck, s, "L N1")) == with_cells(STD6, L=(1, -1))
        bad(deck, s, "L NE1", "L has no arrow pointing NE on its spent side (it moves N E S W)")
        bad(deck, s, "L S1", "lands on G's cell")
        deck, s = lab.game(STD6, spec=spec, current=(None, 3))
        bad(deck, s, "L N1", "L has no arrow pointing N on its active side")
        assert cells(deck, ok(deck, s, "L NE1")) == with_cells(STD6, L=(2, -1))

    def test_spent_side_defaults_to_the_active_side(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3), spent=("L",))
        assert cells(deck, ok(deck, s, "L NE1")) == with_cells(STD6, L=(2, -1))

    def test_a_flip_that_changes_arrows_is_not_a_noop(self, lab: Lab) -> None:
        mods = [*(STD[c] for c in "BL"),
                mod("S", "sensor", "sensor", ("standard", ["orthogonal"]),
                     spent=[("jump", ["all"])]), *(STD[c] for c in "CGM")]
        hand = ("n1", "n2", "n3", "n4", "n5")
        deck, s = lab.game(STD6, spec=lab.spec(mods), hand=hand, draw=("n6",))
        s2 = ok(deck, s, "S draw")  # hand full: only the flip
        assert ids(deck, s2.hand) == list(hand) and s2.is_spent(deck.index["S"])
        assert Action.parse("S draw") in legal_actions(deck, s)  # kept without no-ops
        deck, s = lab.game(STD6, hand=hand, draw=("n6",))
        assert Action.parse("S draw") not in legal_actions(deck, s)
        assert Action.parse("S draw") in legal_actions(deck, s, include_noops=True)

    def test_malformed_moves(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 3))
        for a in (Action.move("B", "E", 0), Action.move("B", "E", -1), Action.move("B", "X", 1)):
            with pytest.raises(IllegalAction, match="distance of at least 1"):
                apply(deck, s, a)
        with pytest.raises(IllegalAction, match="'X' is not a direction"):
            apply(deck, s, Action.ability("M", target="B", dir="X"))
        bad(deck, s, "Z N1", "there is no module 'Z'; modules are B L S C G M")

    def test_no_points_no_move(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "B N1", "B N1: no movement points; play a card first")
        deck, s = lab.game(STD6, current=(None, 0))
        bad(deck, s, "B N1", "no movement points")
        assert not any(a.act == "move" for a in legal_actions(deck, s, include_noops=True))


# --------------------------------------------------------------------------- abilities


class TestBrain:
    def test_places_another_module_next_to_brain(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "B place M -1,0")
        assert cells(deck, s2) == with_cells(STD6, M=(-1, 0))
        assert s2.is_spent(deck.index["B"]) and s2.points == 0
        assert cells(deck, ok(deck, s, "B place M 1,-1")) == with_cells(STD6, M=(1, -1))

    def test_target_cell_must_be_empty_and_next_to_brain(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "B place M 1,0", "1,0 is not an empty cell next to B")
        bad(deck, s, "B place M 3,0", "3,0 is not an empty cell next to B")
        bad(deck, s, "B place M 0,0", "0,0 is not an empty cell next to B")

    def test_own_cell_counts_as_empty_put_back_is_legal(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "B place L 1,0")
        assert cells(deck, s2) == grid(STD6) and s2.is_spent(deck.index["B"])
        assert Action.parse("B place L 1,0") not in legal_actions(deck, s)  # a no-op

    def test_target_may_use_a_cell_it_frees(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "B place L 1,-1")) == with_cells(STD6, L=(1, -1))

    def test_brain_cannot_place_itself(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "B place B -1,0", "B cannot place itself")

    def test_result_must_be_valid(self, lab: Lab) -> None:
        deck, s = lab.game("B L S C G M")
        bad(deck, s, "B place L 0,1", "the result would split the group")

    def test_unknown_module(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "B place Z -1,0", "there is no module 'Z'")


class TestCoil:
    def test_to_any_empty_cell_with_a_valid_result(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "C to 3,1")) == with_cells(STD6, C=(3, 1))
        assert cells(deck, ok(deck, s, "C to -1,-1")) == with_cells(STD6, C=(-1, -1))
        assert cells(deck, ok(deck, s, "C to 1,2")) == with_cells(STD6, C=(1, 2))

    def test_not_its_own_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "C to 0,1", "C must go to a cell other than its own")

    def test_not_an_occupied_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "C to 1,1", "1,1 is G's cell")

    def test_not_a_splitting_cell(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "C to 5,5", "the result would split the group")
        bad(deck, s, "C to -1,2", "the result would split the group")


class TestLaser:
    def test_swaps_any_two(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "L swap B M")) == with_cells(STD6, B=(2, 1), M=(0, 0))
        assert cells(deck, ok(deck, s, "L swap M B")) == with_cells(STD6, B=(2, 1), M=(0, 0))

    def test_laser_may_be_one_of_them(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "L swap L S")) == with_cells(STD6, L=(2, 0), S=(1, 0))

    def test_two_distinct_modules(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "L swap B B", "a swap needs two different modules")
        bad(deck, s, "L swap B Z", "there is no module 'Z'")


class TestMotor:
    def test_shifts_any_module_in_eight_directions(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "M shift S E")) == with_cells(STD6, S=(3, 0))
        assert cells(deck, ok(deck, s, "M shift B NE")) == with_cells(STD6, B=(1, -1))
        assert cells(deck, ok(deck, s, "M shift B N")) == with_cells(STD6, B=(0, -1))

    def test_motor_may_shift_itself(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "M shift M E")) == with_cells(STD6, M=(3, 1))
        assert cells(deck, ok(deck, s, "M shift M SW")) == with_cells(STD6, M=(1, 2))

    def test_no_pushing(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "M shift B E", "shift B E lands on L's cell")
        bad(deck, s, "M shift M W", "shift M W lands on G's cell")

    def test_result_must_be_valid(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "M shift B NW", "the result would split the group")
        bad(deck, s, "M shift M SE", "the result would split the group")


class TestSensor:
    def test_draws_below_five(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2", "n3"), draw=("n4", "n5"))
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == ["n2", "n3", "n4"] and ids(deck, s2.draw) == ["n5"]
        assert s2.is_spent(deck.index["S"]) and s2.cells == s.cells

    def test_nothing_at_five_but_still_flips(self, lab: Lab) -> None:
        hand = ("n2", "n3", "n4", "n5", "n6")
        deck, s = lab.game(STD6, hand=hand, draw=("n7",))
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == list(hand) and ids(deck, s2.draw) == ["n7"]
        assert s2.is_spent(deck.index["S"])
        assert Action.parse("S draw") not in legal_actions(deck, s)  # a no-op

    def test_recycles_when_the_draw_pile_is_empty(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), discard=("n4", "n5", "n6"))
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == ["n2", "n4"]
        assert ids(deck, s2.draw) == ["n5", "n6"] and s2.discard == ()

    def test_no_card_to_be_had(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",))
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == ["n2"] and s2.is_spent(deck.index["S"])

    def test_takes_no_arguments(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), draw=("n3",))
        with pytest.raises(IllegalAction, match="Sensor's ability takes no arguments"):
            apply(deck, s, Action.ability("S", to=(1, 1)))


class TestGripper:
    """STD6: G(1,1) touches every other module."""

    def test_via_brain_places_next_to_brain(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "G via B place M -1,0")
        assert cells(deck, s2) == with_cells(STD6, M=(-1, 0))
        assert s2.is_spent(deck.index["G"]) and not s2.is_spent(deck.index["B"])
        # (2,2) touches Gripper but not Brain
        bad(deck, s, "G via B place M 2,2", "2,2 is not an empty cell next to B")

    def test_via_brain_may_place_gripper_itself(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        assert cells(deck, ok(deck, s, "G via B place G -1,1")) == with_cells(STD6, G=(-1, 1))
        bad(deck, s, "G via B place B -1,0", "B cannot place itself")

    def test_via_coil_moves_coil(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "G via C to 3,1")
        assert cells(deck, s2) == with_cells(STD6, C=(3, 1))
        assert s2.is_spent(deck.index["G"]) and not s2.is_spent(deck.index["C"])
        bad(deck, s, "G via C to 1,1", "1,1 is G's cell")

    def test_via_laser(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "G via L swap B C")
        assert cells(deck, s2) == with_cells(STD6, B=(0, 1), C=(0, 0))
        assert s2.spent == 1 << deck.index["G"]

    def test_via_motor(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s2 = ok(deck, s, "G via M shift L NW")
        assert cells(deck, s2) == with_cells(STD6, L=(0, -1))
        assert s2.spent == 1 << deck.index["G"]

    def test_via_sensor(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), draw=("n3", "n4"))
        s2 = ok(deck, s, "G via S draw")
        assert ids(deck, s2.hand) == ["n2", "n3"] and ids(deck, s2.draw) == ["n4"]
        assert s2.spent == 1 << deck.index["G"]

    def test_target_must_be_adjacent(self, lab: Lab) -> None:
        deck, s = lab.game("G B L S C M")
        bad(deck, s, "G via L swap B C", "L is not next to G")
        assert cells(deck, ok(deck, s, "G via B place M 0,1")) == with_cells(
            "G B L S C M", M=(0, 1))

    def test_via_a_spent_module_by_default(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, spent=("L",))
        s2 = ok(deck, s, "G via L swap B C")
        assert s2.is_spent(deck.index["L"]) and s2.is_spent(deck.index["G"])
        bad(deck, s, "L swap B C", "L is spent; its ability was already used")

    def test_via_a_spent_module_with_active_only(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, spent=("L",), rules={"gripper_target": "active_only"})
        bad(deck, s, "G via L swap B C", "L is spent (rule gripper_target: active_only)")
        ok(deck, s, "G via M shift L NW")

    def test_not_itself(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "G via G draw", "G cannot trigger itself")

    def test_never_another_gripper(self, lab: Lab) -> None:
        spec = lab.spec(STD_MODULES + [mod("H", "hand", "gripper", ("short", ["all"]))])
        deck, s = lab.game("B L S\nC G M\n. H", spec=spec, hand=("n2",), draw=("n3",))
        bad(deck, s, "G via H draw", "a Gripper never triggers another Gripper")
        bad(deck, s, "H via G draw", "a Gripper never triggers another Gripper")
        s2 = ok(deck, s, "H via M shift H E")
        assert cells(deck, s2)["H"] == (2, 2) and s2.is_spent(deck.index["H"])

    def test_needs_via_and_only_gripper_has_via(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        bad(deck, s, "G draw", "G's ability needs 'via'")
        bad(deck, s, "L via S draw", "only Gripper uses 'via'")

    def test_spent_gripper(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, spent=("G",))
        bad(deck, s, "G via L swap B C", "G is spent")


class TestAbilitiesGeneral:
    @pytest.mark.parametrize("text", ["B place M -1,0", "L swap B M", "M shift S E", "C to 3,1",
                                      "G via L swap B C"])
    def test_spent_module_ability_is_illegal(self, lab: Lab, text: str) -> None:
        deck, s = lab.game(STD6, spent=(text[0],))
        bad(deck, s, text, f"{text[0]} is spent; its ability was already used")

    def test_sensor_spent(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, spent=("S",), hand=("n2",), draw=("n3",))
        bad(deck, s, "S draw", "S is spent")

    def test_abilities_need_no_points_nor_card(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), draw=("n3",))
        assert (s.card, s.points) == (-1, 0)
        for text in ["B place M -1,0", "L swap B M", "M shift S E", "C to 3,1", "S draw",
                     "G via L swap B C"]:
            s2 = ok(deck, s, text)
            assert (s2.card, s2.points) == (-1, 0)

    def test_ability_keeps_the_current_card(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=("n2", 2))
        s2 = ok(deck, s, "L swap B M")
        assert (deck.card_ids[s2.card], s2.points) == ("n2", 2)

    def test_only_the_acting_module_flips_and_never_back(self, lab: Lab) -> None:
        deck, s = lab.game(STD6)
        s = ok(deck, s, "L swap B M")
        s = ok(deck, s, "M shift S E")
        assert s.spent == (1 << deck.index["L"]) | (1 << deck.index["M"])
        bad(deck, s, "L swap B M", "L is spent")


# --------------------------------------------------------------------------- cards


BS = "B S L\nC G M"  # n1's movement pattern "B S" matches


class TestCardPlays:
    def test_bonus_when_matching(self, lab: Lab) -> None:
        deck, s = lab.game(BS, hand=("n1", "n2"))
        for text, pts in (("play n1+", 3), ("play n1", 3), ("play n1-", 1)):
            s2 = ok(deck, s, text)
            assert (deck.card_ids[s2.card], s2.points) == ("n1", pts)
            assert ids(deck, s2.hand) == ["n2"]

    def test_bonus_illegal_without_match(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n1", "n2"))
        bad(deck, s, "play n1+", "play n1+: the layout does not match n1's movement pattern")
        for text in ("play n1", "play n1-"):
            s2 = ok(deck, s, text)
            assert (deck.card_ids[s2.card], s2.points) == ("n1", 1)

    def test_generation_offers_bonus_exactly_when_matching(self, lab: Lab) -> None:
        deck, s = lab.game(BS, hand=("n1", "n2"))
        plays = {a.notation() for a in legal_actions(deck, s) if a.act == "play"}
        assert plays == {"play n1+", "play n1-", "play n2-"}

    def test_playing_discards_the_current_card(self, lab: Lab) -> None:
        deck, s = lab.game(BS, hand=("n1",), discard=("n5",), current=("n2", 2))
        s2 = ok(deck, s, "play n1")
        assert ids(deck, s2.discard) == ["n5", "n2"]
        assert (deck.card_ids[s2.card], s2.points) == ("n1", 3)  # the 2 unspent points are lost

    def test_playing_drops_a_bare_budget(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n1",), discard=("n5",), current=(None, 3))
        s2 = ok(deck, s, "play n1")
        assert ids(deck, s2.discard) == ["n5"]
        assert (deck.card_ids[s2.card], s2.points) == ("n1", 1)

    def test_card_must_be_in_hand(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n1",), draw=("n3",))
        bad(deck, s, "play n3", "card n3 is not in the hand")
        bad(deck, s, "play zz", "there is no card 'zz'")

    def test_discard_at_zero(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=("n2", 2), discard=("n5",))
        s1 = ok(deck, s, "B N1")
        assert (deck.card_ids[s1.card], s1.points) == ("n2", 1) and ids(deck, s1.discard) == ["n5"]
        s2 = ok(deck, s1, "B S1")
        assert (s2.card, s2.points) == (-1, 0) and ids(deck, s2.discard) == ["n5", "n2"]
        bad(deck, s2, "B N1", "no movement points")

    def test_bare_budget_runs_out_without_discard(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, current=(None, 1))
        s2 = ok(deck, s, "B N1")
        assert (s2.card, s2.points, s2.discard) == (-1, 0, ())

    def test_last_point_card_is_discarded_before_the_mission_check(self, lab: Lab) -> None:
        # B N1 completes Bgap with the last point of n2; the draw pile is empty, so the
        # reveal recycles the discard pile, which already holds n2.
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=("n2", 1), hand=("n3",))
        s2 = ok(deck, s, "B N1")
        assert s2.status == PLAYING and deck.card_ids[s2.mission] == "n2"
        assert ids(deck, s2.completed) == ["Bgap"] and s2.discard == () and s2.draw == ()


# --------------------------------------------------------------------------- patterns


def match(deck: Deck, card_id: str, layout: str) -> bool:
    c = grid(layout)
    return deck.mission_pat[deck.card_index[card_id]].matches(
        tuple(c[m][0] + c[m][1] * 1024 for m in deck.codes))


class TestPatterns:
    @pytest.mark.parametrize("layout, expected", [
        ("S G\nB M\nL C", True),          # S on its cell, any modules on the others
        ("B L C\n. S G\n. . M", True),    # translated
        ("G S\nM B\nC L", False),         # mirror image
        ("B S\nM G\nL C", False),         # rotated shapes do not count
        ("L G\nB M\nS C", False),         # another module on S's cell
    ])
    def test_named_and_any(self, lab: Lab, layout: str, expected: bool) -> None:
        deck = Deck(lab.position(STD6).spec)
        assert match(deck, "P1", layout) is expected

    @pytest.mark.parametrize("layout, expected", [
        ("S . G\nB L M\n. C", True),
        ("S C G\nB L M", False),          # the '_' cell holds a module
        ("B L M\nS . G\n. C", True),
    ])
    def test_must_be_empty(self, lab: Lab, layout: str, expected: bool) -> None:
        deck = Deck(lab.position(STD6).spec)
        assert match(deck, "P2", layout) is expected

    def test_completion_by_a_move(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, mission="Bgap", current=(None, 3))
        assert s.status == PLAYING
        s2 = ok(deck, s, "B N1")  # B(0,-1), the cell between free, C(0,1)
        assert s2.status == GOAL


# --------------------------------------------------------------------------- missions and flow


class TestCompletion:
    def test_procedure_discard_reveal_draw(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=("n2", 2),
                           hand=("n3", "n4", "n5", "n6"), draw=("n7", "n8", "n9"),
                           discard=("n1",))
        s2 = ok(deck, s, "B N1")
        assert s2.status == PLAYING and (s2.card, s2.points) == (-1, 0)
        assert ids(deck, s2.discard) == ["n1", "n2"]                 # 1. discard current
        assert deck.card_ids[s2.mission] == "n7"                     # 2. reveal the top
        assert ids(deck, s2.hand) == ["n3", "n4", "n5", "n6", "n8"]  # 3. draw 1
        assert ids(deck, s2.draw) == ["n9"]
        assert (s2.done, ids(deck, s2.completed)) == (1, ["Bgap"])

    def test_current_is_discarded_before_the_reveal(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=("n2", 2), hand=("n3",))
        s2 = ok(deck, s, "B N1")
        assert deck.card_ids[s2.mission] == "n2" and s2.status == PLAYING

    def test_no_draw_with_a_full_hand(self, lab: Lab) -> None:
        hand = ("n2", "n3", "n4", "n5", "n6")
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=(None, 2), hand=hand,
                           draw=("n7", "n8"))
        s2 = ok(deck, s, "B N1")
        assert ids(deck, s2.hand) == list(hand) and ids(deck, s2.draw) == ["n8"]

    def test_chained_completion_after_the_draw(self, lab: Lab) -> None:
        # Bany matches every layout: revealed, it completes in turn, but only after the
        # draw of the first completion (n8), so n9 is the next mission and nA stays put.
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=("n2", 2),
                           hand=("n3", "n4", "n5", "n6"), draw=("Bany", "n8", "n9", "n7"))
        s2 = ok(deck, s, "B N1")
        assert ids(deck, s2.completed) == ["Bgap", "Bany"] and s2.done == 2
        assert deck.card_ids[s2.mission] == "n9"
        assert ids(deck, s2.hand) == ["n3", "n4", "n5", "n6", "n8"]
        assert ids(deck, s2.draw) == ["n7"] and ids(deck, s2.discard) == ["n2"]

    def test_own_mission_completes_before_the_first_action(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bany", hand=("n2",), draw=("n7", "n8"))
        assert s.done == 1 and deck.card_ids[s.mission] == "n7"
        assert ids(deck, s.hand) == ["n2", "n8"] and ids(deck, s.completed) == ["Bany"]

    def test_own_mission_with_goal_mission_is_reached_at_once(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="mission", mission="Bany", hand=("n2",), draw=("n7",),
                           current=("n3", 2))
        assert s.status == GOAL and s.mission == -1
        assert ids(deck, s.hand) == ["n2"] and ids(deck, s.draw) == ["n7"]
        assert ids(deck, s.discard) == ["n3"]
        assert legal_actions(deck, s, include_noops=True) == []

    def test_no_auto_complete_on_reveal(self, lab: Lab) -> None:
        rules = {"auto_complete_on_reveal": False}
        deck, s = lab.game(STD6, goal="game", mission="Bany", hand=("n2",), draw=("n7", "n8"),
                           rules=rules)
        assert s.done == 0 and deck.card_ids[s.mission] == "Bany"
        # any kind of action that leaves it matching completes it: a card play ...
        s2 = ok(deck, s, "play n2")
        assert s2.done == 1 and deck.card_ids[s2.mission] == "n7"
        assert ids(deck, s2.discard) == ["n2"]  # the card just played is the current card
        # ... an ability ...
        s3 = ok(deck, s, "L swap B M")
        assert s3.done == 1 and deck.card_ids[s3.mission] == "n7"
        # ... even a no-op
        s4 = ok(deck, s, "B place L 1,0")
        assert s4.done == 1 and deck.card_ids[s4.mission] == "n7"

    def test_no_auto_complete_chain(self, lab: Lab) -> None:
        # a revealed mission that matches waits for the next action
        rules = {"auto_complete_on_reveal": False}
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=(None, 2),
                           hand=("n2",), draw=("Bany", "n8", "n9"), rules=rules)
        s2 = ok(deck, s, "B N1")
        assert s2.done == 1 and deck.card_ids[s2.mission] == "Bany"
        assert s2.points == 0  # the completion dropped the bare budget
        s3 = ok(deck, s2, "L swap B M")  # Bany still matches afterwards
        assert s3.done == 2 and deck.card_ids[s3.mission] == "n9"

    def test_no_auto_complete_a_pending_noop_is_not_pointless(self, lab: Lab) -> None:
        # the mission matches but waits; only a no-op Sensor use is left, and it completes
        rules = {"auto_complete_on_reveal": False}
        deck, s = lab.game(STD6, goal="mission", mission="Bany", spent=tuple("BLCGM"),
                           rules=rules)
        assert s.status == PLAYING
        assert not is_stuck(deck, s)
        assert Action.parse("S draw") in legal_actions(deck, s)
        assert ok(deck, s, "S draw").status == GOAL

    def test_goal_mission_stops_at_completion(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="mission", mission="Bgap", current=("n2", 2),
                           hand=("n3",), draw=("n7", "n8"))
        s2 = ok(deck, s, "B N1")
        assert s2.status == GOAL and s2.mission == -1
        assert ids(deck, s2.discard) == ["n2"] and (s2.card, s2.points) == (-1, 0)
        assert ids(deck, s2.hand) == ["n3"] and ids(deck, s2.draw) == ["n7", "n8"]
        assert (s2.done, ids(deck, s2.completed)) == (1, ["Bgap"])
        bad(deck, s2, "play n3", "the goal is already reached")
        bad(deck, s2, "L swap B M", "the goal is already reached")
        assert legal_actions(deck, s2, include_noops=True) == []

    def test_win_after_missions_to_win(self, lab: Lab) -> None:
        spec = lab.spec(missions_to_win=2)
        deck, s = lab.game(STD6, spec=spec, goal="game", mission="Bgap", done=1,
                           completed=("n5",), current=(None, 2), draw=("n7",))
        s2 = ok(deck, s, "B N1")
        assert s2.status == WON and s2.done == 2 and s2.mission == -1
        assert ids(deck, s2.draw) == ["n7"]
        game = Game(deck, s2)
        assert game.is_won() and game.is_goal_reached() and not game.is_lost()
        bad(deck, s2, "B S1", "the game is already won")

    def test_win_by_chained_completions(self, lab: Lab) -> None:
        spec = lab.spec(missions_to_win=2)
        deck, s = lab.game(STD6, spec=spec, goal="game", mission="Bgap", current=(None, 2),
                           draw=("Bany", "n7"))
        s2 = ok(deck, s, "B N1")
        assert s2.status == WON and ids(deck, s2.completed) == ["Bgap", "Bany"]

    def test_loss_when_no_mission_can_be_revealed(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=(None, 2), hand=("n2",))
        s2 = ok(deck, s, "B N1")
        assert s2.status == LOST and s2.mission == -1
        assert Game(deck, s2).is_lost()
        bad(deck, s2, "play n2", "the game is lost")


class TestRecycling:
    def test_on_demand_first_discarded_is_the_new_top(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=(None, 2), hand=("n2",),
                           discard=("n3", "n4", "n5"))
        s2 = ok(deck, s, "B N1")
        assert deck.card_ids[s2.mission] == "n3"
        assert ids(deck, s2.hand) == ["n2", "n4"]
        assert ids(deck, s2.draw) == ["n5"] and s2.discard == ()
        assert ids(deck, s2.completed) == ["Bgap"]

    def test_on_demand_waits_until_a_card_is_needed(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), draw=("n3",), discard=("n4", "n5"))
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == ["n2", "n3"]
        assert s2.draw == () and ids(deck, s2.discard) == ["n4", "n5"]

    def test_when_empty_turns_over_at_once(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, hand=("n2",), draw=("n3",), discard=("n4", "n5"),
                           current=("n6", 1), rules={"recycle": "when_empty"})
        s2 = ok(deck, s, "S draw")
        assert ids(deck, s2.hand) == ["n2", "n3"]
        assert ids(deck, s2.draw) == ["n4", "n5"] and s2.discard == ()
        # later discards start a new discard pile
        s3 = ok(deck, s2, "play n2")
        assert ids(deck, s3.draw) == ["n4", "n5"] and ids(deck, s3.discard) == ["n6"]

    def test_when_empty_with_empty_discard_recycles_on_demand_later(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bgap", hand=("n2",), draw=("n3",),
                           current=("n6", 1), rules={"recycle": "when_empty"})
        s2 = ok(deck, s, "S draw")
        assert s2.draw == () and s2.discard == ()
        s3 = ok(deck, s2, "play n2")  # n6 discarded; the draw pile stays empty
        assert s3.draw == () and ids(deck, s3.discard) == ["n6"]
        s4 = ok(deck, s3, "B N1")  # completes Bgap; the reveal recycles [n6]
        # the current card n2 went on the discard pile first: [n6, n2] turned over
        assert deck.card_ids[s4.mission] == "n6" and ids(deck, s4.hand) == ["n3", "n2"]
        assert s4.draw == () and s4.discard == ()

    def test_when_empty_during_completion(self, lab: Lab) -> None:
        # the reveal takes the last card; the discard pile (with the current card already
        # on it) becomes the draw pile at once, and the hand draws its top
        deck, s = lab.game(STD6, goal="game", mission="Bgap", current=("n2", 2), hand=("n3",),
                           draw=("n7",), discard=("n4",), rules={"recycle": "when_empty"})
        s2 = ok(deck, s, "B N1")
        assert deck.card_ids[s2.mission] == "n7"
        assert ids(deck, s2.hand) == ["n3", "n4"]
        assert ids(deck, s2.draw) == ["n2"] and s2.discard == ()

    def test_completed_missions_never_return(self, lab: Lab) -> None:
        spec = lab.spec(missions_to_win=3)
        deck, s = lab.game(STD6, spec=spec, goal="game", mission="Bgap", current=("n2", 1),
                           hand=("n3",), discard=("n4",))
        s2 = ok(deck, s, "B N1")  # completes Bgap; recycles [n4, n2]
        assert deck.card_ids[s2.mission] == "n4" and ids(deck, s2.hand) == ["n3", "n2"]
        every = [*s2.hand, *s2.draw, *s2.discard, s2.mission]
        assert deck.card_index["Bgap"] not in every and ids(deck, s2.completed) == ["Bgap"]


class TestHandAndStuck:
    def test_hand_limit_is_five(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", mission="Bany",
                           hand=("n1", "n2", "n3", "n4", "n5"), draw=("n6", "n7"))
        assert len(s.hand) == 5 and ids(deck, s.draw) == ["n7"]

    def test_stuck_no_points_no_cards_no_useful_ability(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", spent=tuple("BLSCGM"))
        assert is_stuck(deck, s) and Game(deck, s).is_lost()
        assert legal_actions(deck, s, include_noops=True) == []

    def test_sensor_with_nothing_to_draw_does_not_help(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", spent=tuple("BLCGM"))
        assert is_stuck(deck, s)
        assert legal_actions(deck, s) == []
        assert [a.notation() for a in legal_actions(deck, s, include_noops=True)] == ["S draw"]

    @pytest.mark.parametrize("kw", [
        {"spent": tuple("BLCGM"), "draw": ("n2",)},   # Sensor can draw
        {"spent": tuple("BLSCGM"), "current": (None, 1)},
        {"spent": tuple("BLSCGM"), "hand": ("n2",)},
        {"spent": tuple("BSCGM")},                    # Laser can swap
        {"spent": tuple("BLSCM")},                    # Gripper via a spent Laser
    ])
    def test_not_stuck(self, lab: Lab, kw: dict[str, Any]) -> None:
        deck, s = lab.game(STD6, goal="game", **kw)
        assert not is_stuck(deck, s) and not Game(deck, s).is_lost()

    def test_gripper_with_only_spent_neighbours_under_active_only(self, lab: Lab) -> None:
        deck, s = lab.game(STD6, goal="game", spent=tuple("BLSCM"),
                           rules={"gripper_target": "active_only"})
        assert is_stuck(deck, s)


class TestGame:
    def test_push_pop_copy(self, lab: Lab) -> None:
        pos = lab.position(STD6, goal="game", mission="Bgap", hand=("n1", "n2"),
                           draw=("n3", "n4"))
        game = Game.from_position(pos)
        start = game.state
        game.push(Action.parse("play n2"))
        after_play = game.state
        copy = game.copy()
        game.push(Action.parse("B N1"))
        assert game.state.done == 1 and copy.state == after_play
        assert [a.notation() for a in game.plan] == ["play n2", "B N1"]
        assert game.pop() == Action.parse("B N1") and game.state == after_play
        game.pop()
        assert game.state == start
        with pytest.raises(IllegalAction):
            game.push(Action.parse("B N1"))
        assert game.state == start and game.plan == []

    def test_to_position_keeps_coordinates(self, lab: Lab) -> None:
        pos = lab.position(STD6, goal="game", mission="n9", current=(None, 2))
        game = Game.from_position(pos)
        game.push(Action.parse("B N1"))
        assert game.cell_of("B") == (0, -1)
        assert game.to_position().cells["B"] == (0, -1)


# --------------------------------------------------------------------------- one home per rule


def _sensor_draws_by_play(deck: Deck, s: State) -> int:
    """The most cards a row of Sensor draws (a Sensor, or a Gripper triggering one) takes
    from ``s``: every order tried, the layout kept (no ability here moves a module)."""
    best = 0
    for a, s2 in successors(deck, s, include_noops=True):
        if a.act == "ability" and len(s2.hand) > len(s.hand):
            best = max(best, 1 + _sensor_draws_by_play(deck, s2))
    return best


class TestOneHome:
    """Each rule has one definition that every caller uses."""

    def test_the_sensor_draw_count_is_the_engines(self) -> None:
        from rove.solve import heuristic, nodes

        for module in (heuristic, nodes):
            assert module.sensor_draws_left is sensor_draws_left, module.__name__

    @pytest.mark.parametrize("target", ["active_or_spent", "active_only"])
    def test_the_sensor_draw_count_bounds_every_row_of_draws(self, lab: Lab, target: str) -> None:
        """Every spent set of the six reference modules (Gripper next to Sensor, an empty
        hand, a long draw pile): the count is exactly what play can draw, under either
        ``gripper_target`` (under ``active_only`` a Gripper draws only while the Sensor
        is active)."""
        deck, s = lab.game(STD6, goal="game", draw=("n1", "n2", "n3", "n4", "n5", "n6"),
                           rules={"gripper_target": target})
        counts = set()
        for spent in range(1 << deck.n):
            s2 = replace(s, spent=spent)
            count, drawn = sensor_draws_left(deck, spent), _sensor_draws_by_play(deck, s2)
            assert count == drawn, (spent, count, drawn)
            counts.add(count)
        assert counts == {0, 1, 2}

    def test_no_sensor_no_draws(self, lab: Lab) -> None:
        deck, _ = lab.game("B L\nC G M", modules=[m for m in STD_MODULES if m["code"] != "S"],
                           cards=[card(f"n{i}", mission="B\nL\nC\nG\nM", pattern="B\nL\nC\nG\nM")
                                  for i in range(1, 10)])
        assert [sensor_draws_left(deck, spent) for spent in range(1 << deck.n)] == [0] * (1 << deck.n)

    def test_pattern_matching_is_the_books(self, classic: Spec) -> None:
        """The book's pictures highlight ``matched_cells`` (the engine's own matching),
        which agrees with a plain reference match (the first match from the layout's
        cells in sorted order) on 600 random layouts of the classic deck and random
        patterns with named, anonymous and must-be-empty cells."""
        from rove.pdf import book

        assert book.matched_cells is matched_cells

        def reference(pattern: Pattern, cells: dict[str, tuple[int, int]]) -> frozenset[tuple[int, int]]:
            occ = {v: k for k, v in cells.items()}
            occupied = [(q, v) for q, v in pattern.cells if v != EMPTY]
            empties = [q for q, v in pattern.cells if v == EMPTY]
            (px, py), _ = occupied[0]
            for bx, by in ((x - px, y - py) for x, y in sorted(occ)):
                if (all((bx + qx, by + qy) in occ and (v == ANY or occ[(bx + qx, by + qy)] == v)
                        for (qx, qy), v in occupied)
                        and all((bx + qx, by + qy) not in occ for qx, qy in empties)):
                    return frozenset((bx + qx, by + qy) for (qx, qy), _ in occupied)
            return frozenset()

        rng = random.Random(17)
        patterns = [p for _, _, p in iter_patterns(classic)]
        for _ in range(60):
            cells = {(rng.randint(0, 2), rng.randint(0, 2)): rng.choice("#####_BLSCGM")
                     for _ in range(rng.randint(1, 4))}
            if any(v != "_" for v in cells.values()):
                patterns.append(Pattern.from_cells(cells))
        matched = 0
        for _ in range(600):
            layout = random_layout(rng, classic.codes)
            for p in patterns:
                got = matched_cells(p, layout)
                assert got == reference(p, layout), (p, layout)
                matched += bool(got)
        assert matched > 1000


def random_layout(rng: random.Random, codes: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """A random connected layout: each module next to one placed before it."""
    placed: dict[str, tuple[int, int]] = {}
    for code in codes:
        while True:
            x, y = rng.choice(list(placed.values())) if placed else (0, 0)
            cell = (x + rng.randint(-1, 1), y + rng.randint(-1, 1)) if placed else (0, 0)
            if cell not in placed.values():
                placed[code] = cell
                break
    return placed
