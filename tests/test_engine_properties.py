"""Property tests of the rules engine over random play (hypothesis drives the seeds).

Games start from random deals of the classic deck and of a variant deck (a seventh
module, spent sides with other arrows, three missions to win), under random rule
options; puzzles start from random mid-game layouts with a bare budget.  Each step
picks a random legal action (completing a mission when it can, half of the time).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import classic_data, flow_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rove.actions import Action
from rove.engine import (
    PLAYING,
    WON,
    Deck,
    Game,
    IllegalAction,
    State,
    apply,
    legal_actions,
    position_from_state,
    state_from_position,
    successors,
    unpack,
    valid,
)
from rove.generators.deals import deal
from rove.grid import DIRECTIONS, connected
from rove.position import Current, Position, dump_position, parse_position
from rove.replay import replay
from rove.rules import HAND_LIMIT, Rules
from rove.spec import load_spec


def sized(n: int) -> settings:
    """Deterministic (derandomized) runs sized to keep this file to ~15 s on one core."""
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


DIRS = [d.name for d in DIRECTIONS]
KINDS = ["standard", "variant", "flow"]

rules_st = st.builds(Rules, auto_complete_on_reveal=st.booleans(),
                     recycle=st.sampled_from(["on_demand", "when_empty"]),
                     gripper_target=st.sampled_from(["active_or_spent", "active_only"]))


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, Path]]:
    """name -> (spec_ref as a position writes it, folder it is relative to)."""
    root = tmp_path_factory.mktemp("specs")
    data = classic_data()
    data["name"] = "variant"
    data["missions_to_win"] = 3
    for m in data["modules"]:
        if m["code"] == "L":
            m["spent_arrows"] = [{"kind": "short", "dirs": ["orthogonal"]}]
        if m["code"] == "S":
            m["spent_arrows"] = [{"kind": "jump", "dirs": ["all"]}, {"kind": "push", "dirs": ["N"]}]
        if m["code"] == "M":
            m["arrows"].append({"kind": "standard", "dirs": ["E"]})
    data["modules"].append({"id": "hand", "code": "H", "name": "Hand", "ability": "gripper",
                            "arrows": [{"kind": "push", "dirs": ["diagonal"]}]})
    (root / "variant.yaml").write_text(json.dumps(data), encoding="utf-8")
    (root / "flow.yaml").write_text(json.dumps(flow_data()), encoding="utf-8")
    return {"standard": ("standard", root), "variant": ("variant.yaml", root),
            "flow": ("flow.yaml", root)}


# --------------------------------------------------------------------------- invariants


def check_state(deck: Deck, s: State, full_deck: bool) -> None:
    """What every state must satisfy."""
    assert valid(s.cells)
    xy = [unpack(c) for c in s.cells]
    assert len(set(xy)) == deck.n and connected(xy)
    assert s.points >= 0 and 0 <= len(s.hand) <= HAND_LIMIT
    assert s.card == -1 or s.points >= 1, "a card with no points left is on the discard pile"
    held = [*s.hand, *s.draw, *s.discard, *s.completed]
    held += [c for c in (s.mission, s.card) if c >= 0]
    counts = Counter(held)
    assert all(v == 1 for v in counts.values()), f"a card is in two places: {counts}"
    if full_deck:
        assert set(counts) == set(range(len(deck.card_ids)))
    if s.status == PLAYING:
        assert s.mission >= 0 and s.done < deck.missions_to_win
    else:
        assert s.mission == -1
    if s.status == WON:
        assert s.done == deck.missions_to_win


def check_two_paths(deck: Deck, s: State) -> list[tuple[Action, State]]:
    """Every generated action applies to exactly the state generation gave."""
    succ = list(successors(deck, s, include_noops=True))
    for a, after in succ:
        assert apply(deck, s, a) == after, f"{a}: apply and successors disagree"
    plain = [a for a, _ in successors(deck, s)]
    assert set(plain) <= {a for a, _ in succ}
    assert plain == legal_actions(deck, s)
    return succ


def normalised(cells: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    xy = [unpack(c) for c in cells]
    x0, y0 = min(x for x, _ in xy), min(y for _, y in xy)
    return tuple((x - x0, y - y0) for x, y in xy)


def check_position_round_trip(deck: Deck, s: State, template: Position, base: Path) -> None:
    if s.mission < 0:
        with pytest.raises(ValueError, match="the game is over"):
            position_from_state(deck, s, template)
        return
    pos = position_from_state(deck, s, template)
    text = dump_position(pos)
    back = parse_position(text, "<round trip>", base)
    assert dump_position(back) == text
    s2 = state_from_position(deck, back)
    # the dump re-bases the layout to (0, 0): compare up to translation
    assert normalised(s2.cells) == normalised(s.cells)
    assert replace(s2, cells=s.cells) == s


def pick(rng: random.Random, deck: Deck, s: State,
         succ: list[tuple[Action, State]]) -> tuple[Action, State]:
    completing = [x for x in succ if x[1].done > s.done]
    if completing and rng.random() < 0.8:
        return rng.choice(completing)
    if s.points and rng.random() < 0.8:
        moves = [x for x in succ if x[0].act == "move"]
        if moves:
            return rng.choice(moves)
    if rng.random() < 0.7:
        useful = [x for x in succ if x[0] in set(legal_actions(deck, s))]
        if useful:
            return rng.choice(useful)
    return rng.choice(succ)


def play_out(pos: Position, deck: Deck, base: Path, seed: int, steps: int,
             full_deck: bool) -> None:
    rng = random.Random(seed)
    game = Game(deck, state_from_position(deck, pos), pos)
    states = [game.state]
    check_state(deck, game.state, full_deck)
    check_position_round_trip(deck, game.state, pos, base)
    for step in range(steps):
        s = game.state
        succ = check_two_paths(deck, s)
        if not succ:
            assert s.status != PLAYING or game.is_lost()
            break
        a, after = pick(rng, deck, s, succ)
        game.push(a)
        assert game.state == after
        # pop restores the exact previous state; push again
        assert game.pop() == a and game.state == s
        game.push(a)
        check_state(deck, game.state, full_deck)
        assert game.state.points >= 0
        if step % 6 == 5 or game.state.status != PLAYING:
            check_position_round_trip(deck, game.state, pos, base)
        states.append(game.state)
    # the recorded plan replays to the same states
    r = replay(pos, game.plan, deck)
    assert r.legal and r.start == states[0] and list(r.states) == states[1:]
    assert r.final == game.state
    assert r.points_spent == sum(1 for a in game.plan if a.act == "move")
    # pop everything: back through every state to the start
    for expected in reversed(states[:-1]):
        game.pop()
        assert game.state == expected
    assert game.plan == []


# --------------------------------------------------------------------------- properties


@sized(40)
@given(seed=st.integers(0, 10**9), kind=st.sampled_from(KINDS),
       difficulty=st.sampled_from(["normal", "hard", "impossible"]), rules=rules_st,
       steps=st.integers(0, 45))
def test_random_play_from_deals(specs: dict[str, tuple[str, Path]], seed: int, kind: str,
                                difficulty: str, rules: Rules, steps: int) -> None:
    ref, base = specs[kind]
    spec = load_spec(ref, base)
    pos = deal(spec, seed, difficulty, spec_ref=ref, rules=rules)
    play_out(pos, Deck(spec, rules), base, seed, steps, full_deck=True)


def random_table(specs: dict[str, tuple[str, Path]], seed: int, kind: str,
                 rules: Rules) -> tuple[Position, Deck, Path, random.Random]:
    """A mid-game table: a deal advanced by random legal play."""
    ref, base = specs[kind]
    spec = load_spec(ref, base)
    deck = Deck(spec, rules)
    pos = deal(spec, seed, spec_ref=ref, rules=rules)
    rng = random.Random(seed ^ 0x5EED)
    s = state_from_position(deck, pos)
    for _ in range(rng.randrange(0, 30)):
        succ = [x for x in successors(deck, s) if x[1].status == PLAYING]
        if not succ:
            break
        s = rng.choice(succ)[1]
    return position_from_state(deck, s, pos), deck, base, rng


@sized(50)
@given(seed=st.integers(0, 10**9), kind=st.sampled_from(KINDS),
       rules=rules_st, budget=st.integers(0, 6), steps=st.integers(1, 25))
def test_random_play_in_mission_puzzles(specs: dict[str, tuple[str, Path]], seed: int,
                                        kind: str, rules: Rules, budget: int,
                                        steps: int) -> None:
    table, deck, base, rng = random_table(specs, seed, kind, rules)
    hand = tuple(c for c in table.hand if rng.random() < 0.5)
    puzzle = replace(table, goal="mission", current=Current(None, budget) if budget else None,
                     hand=hand, draw=(), discard=(), missions_done=0, completed=())
    text = dump_position(puzzle)
    # a puzzle may omit draw and discard
    text = "\n".join(line for line in text.splitlines() if not line.startswith(("draw:", "discard:")))
    puzzle = parse_position(text, "<puzzle>", base)
    assert puzzle.draw == () and puzzle.discard == ()
    play_out(puzzle, deck, base, seed, steps, full_deck=False)


def candidate(rng: random.Random, deck: Deck, s: State) -> Action:
    """A random action that may or may not be legal."""
    codes = deck.codes
    xy = [unpack(c) for c in s.cells]
    x0, x1 = min(x for x, _ in xy) - 2, max(x for x, _ in xy) + 2
    y0, y1 = min(y for _, y in xy) - 2, max(y for _, y in xy) + 2

    def cell() -> tuple[int, int]:
        return (rng.randint(x0, x1), rng.randint(y0, y1))

    r = rng.random()
    if r < 0.15:
        return Action.play(rng.choice(deck.card_ids), rng.choice([True, False, None]))
    if r < 0.55:
        return Action.move(rng.choice(codes), rng.choice(DIRS), rng.choice([1, 1, 2, 2, 3, 4]))
    module = rng.choice(codes)
    via = rng.choice(codes) if rng.random() < 0.3 else None
    # mostly the argument form of the ability that resolves, sometimes any form
    ability = deck.modules[deck.index[via or module]].ability
    forms = {"laser": 0, "motor": 1, "brain": 2, "coil": 3, "sensor": 4, "gripper": 4}
    form = forms[ability] if rng.random() < 0.7 else rng.randrange(5)
    if form == 0:
        return Action.ability(module, via=via, swap=(rng.choice(codes), rng.choice(codes)))
    if form == 1:
        return Action.ability(module, via=via, target=rng.choice(codes), dir=rng.choice(DIRS))
    if form == 2:
        return Action.ability(module, via=via, target=rng.choice(codes), to=cell())
    if form == 3:
        return Action.ability(module, via=via, to=cell())
    return Action.ability(module, via=via)


def canon(deck: Deck, s: State, a: Action) -> Action:
    """The form generation uses: a play's bonus resolved, a swap in module order."""
    if a.act == "play" and a.bonus is None and a.card in deck.card_index:
        return replace(a, bonus=deck.move_pat[deck.card_index[a.card]].matches(s.cells))
    if a.swap is not None:
        return replace(a, swap=tuple(sorted(a.swap, key=deck.index.__getitem__)))
    return a


@sized(80)
@given(seed=st.integers(0, 10**9), kind=st.sampled_from(KINDS),
       rules=rules_st, points=st.integers(0, 3))
def test_apply_accepts_exactly_the_generated_actions(specs: dict[str, tuple[str, Path]],
                                                     seed: int, kind: str, rules: Rules,
                                                     points: int) -> None:
    table, deck, _, rng = random_table(specs, seed, kind, rules)
    s = state_from_position(deck, table)
    if points and s.card < 0:
        s = replace(s, points=points)
    succ = {canon(deck, s, a): after for a, after in successors(deck, s, include_noops=True)}
    for _ in range(200):
        a = candidate(rng, deck, s)
        try:
            after = apply(deck, s, a)
        except IllegalAction as exc:
            assert str(exc), "an illegal action says why"
            assert canon(deck, s, a) not in succ, f"{a} is generated but apply refuses: {exc}"
        else:
            assert canon(deck, s, a) in succ, f"{a} is legal by apply but not generated"
            assert succ[canon(deck, s, a)] == after


def test_fast_state_copies_keep_every_other_field() -> None:
    """``State.with_layout`` and the discard fast path build states field by field (for
    speed, instead of ``replace``); every field they do not change must come through,
    including one added to State later (each gets a value unlike its default here)."""
    from dataclasses import MISSING, fields

    from rove.engine import _discard_current

    values: dict[str, object] = {}
    for i, f in enumerate(fields(State)):
        default = () if f.default is MISSING else f.default
        values[f.name] = {tuple: (100 + i, 200 + i), int: 100 + i, str: f"value{i}"}[type(default)]
    s = State(**values)  # type: ignore[arg-type]
    assert s.with_layout((7, 8), 5, 4) == replace(s, cells=(7, 8), spent=5, points=4)
    assert _discard_current(s) == replace(s, card=-1, points=0, discard=s.discard + (s.card,))


def test_king_connectivity_is_one_rule_over_every_small_shape() -> None:
    """The engine's ``valid`` (packed cells) and the grid's ``connected`` (x, y cells) agree
    on every set of up to five cells of a square around the origin (negative cells
    included, where packing borrows from the row), and the connected sets are the fixed
    king polyplets, 1, 4, 20, 110 and 638 of them (OEIS A006770): the figures the Rust
    core's ``grid::valid`` is held to (tables.rs, ``shape_counts_are_the_fixed_polyplets``)."""
    from itertools import combinations

    from rove.engine import pack

    for n, want in zip(range(1, 6), (1, 4, 20, 110, 638), strict=True):
        board = [(x, y) for y in range(-2, n - 2) for x in range(-2, n - 2)]
        shapes = set()
        for cells in combinations(board, n):
            one = valid(tuple(pack(c) for c in cells))
            assert connected(cells) == one, cells
            if one:
                x0, y0 = min(x for x, _ in cells), min(y for _, y in cells)
                shapes.add(frozenset((x - x0, y - y0) for x, y in cells))
        assert len(shapes) == want, n
    assert not valid((pack((0, 0)), pack((0, 0)))) and connected([(0, 0), (0, 0)])
