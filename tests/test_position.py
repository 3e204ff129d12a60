"""Positions (docs/FORMATS.md, "Positions") and fresh deals: loading, every validation error,
dump/load round trips, and deals set up as docs/RULES.md says."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import line_of, replace_once

from rove.errors import InputError, Problem
from rove.generators.deals import DIFFICULTIES, deal
from rove.position import Current, Position, dump_position, load_position, parse_position
from rove.rules import HAND_SIZES, OPTIONS, Rules
from rove.spec import load_spec

# The example of docs/FORMATS.md, "Positions".
POS = """\
format: rove-position/1
spec: classic
goal: game
layout: |
  B C G
  L M S
spent: []
missions_done: 0
mission: c01
hand: [c02, c03, c04, c05, c06]
draw: [c07, c08, c09, c10, c11, c12]
discard: []
current: null
rules: {}
"""

# A seven-module, four-card spec for custom-spec cases.
SEVEN = """\
format: rove-spec/1
name: Seven
missions_to_win: 2
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: standard, dirs: [diagonal]}]}
  - {id: sensor, code: S, name: Sensor, ability: sensor, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: coil, code: C, name: Coil, ability: coil, arrows: [{kind: jump, dirs: [all]}]}
  - {id: gripper, code: G, name: Gripper, ability: gripper, arrows: [{kind: short, dirs: [all]}]}
  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}]}
  - {id: extra, code: X, name: Extra, ability: motor, arrows: [{kind: short, dirs: [N]}]}
cards:
  - {id: k1, mission: {title: A, pattern: "B #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k2, mission: {title: B, pattern: "X #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k3, mission: {title: C, pattern: "C #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k4, mission: {title: D, pattern: "G #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
"""


def variant(old: str, new: str, text: str = POS) -> str:
    """POS with one exact, unique piece replaced."""
    return replace_once(text, old, new)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, text: str) -> tuple[Path, list[Problem]]:
    path = write(tmp_path / "pos.yaml", text)
    with pytest.raises(InputError) as info:
        load_position(path)
    return path, info.value.problems


def one_problem(tmp_path: Path, text: str) -> Problem:
    path, probs = problems_of(tmp_path, text)
    assert len(probs) == 1, [str(p) for p in probs]
    assert probs[0].path == str(path)
    return probs[0]


# --------------------------------------------------------------------------- loading


def test_contract_example_loads(tmp_path: Path, classic) -> None:
    pos = load_position(write(tmp_path / "pos.yaml", POS))
    assert pos.spec == classic and pos.spec_ref == "classic"
    assert pos.goal == "game" and pos.mission == "c01"
    assert pos.cells == {"B": (0, 0), "C": (1, 0), "G": (2, 0), "L": (0, 1), "M": (1, 1), "S": (2, 1)}
    assert pos.hand == ("c02", "c03", "c04", "c05", "c06")
    assert pos.draw == ("c07", "c08", "c09", "c10", "c11", "c12")
    assert pos.discard == () and pos.spent == frozenset() and pos.current is None
    assert pos.missions_done == 0 and pos.completed == ()
    assert pos.rules == Rules()
    assert parse_position(POS, "x.yaml") == pos


def test_layout_keeps_the_written_coordinates(tmp_path: Path) -> None:
    text = variant("  B C G\n  L M S\n", "  . . B C\n  . G L\n  M S\n")
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.cells == {"B": (2, 0), "C": (3, 0), "G": (1, 1), "L": (2, 1), "M": (0, 2), "S": (1, 2)}


def test_dump_rebases_the_layout_to_its_bounding_box(tmp_path: Path) -> None:
    # documented in dump_position: a layout not starting at (0, 0) is re-based
    text = variant("  B C G\n  L M S\n", "  . . .\n  . B C G\n  . L M S\n")
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.cells["B"] == (1, 1)
    again = parse_position(dump_position(pos))
    assert again.cells["B"] == (0, 0)
    assert again == pos.with_cells({k: (x - 1, y - 1) for k, (x, y) in pos.cells.items()})


def test_spent_and_current_and_discard(tmp_path: Path) -> None:
    text = variant("spent: []", "spent: [S, L]")
    text = variant("discard: []", "discard: [c06]", text)
    text = variant("hand: [c02, c03, c04, c05, c06]", "hand: [c02, c03]", text)
    text = variant("current: null", "current: {card: c04, points: 1}", text)
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.spent == {"L", "S"}
    assert pos.current == Current("c04", 1)
    assert pos.discard == ("c06",) and pos.hand == ("c02", "c03")


def test_bare_budget_loads(tmp_path: Path) -> None:
    text = variant("current: null", "current: {card: null, points: 4}")
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.current == Current(None, 4)
    assert "current: {card: null, points: 4}\n" in dump_position(pos)
    assert parse_position(dump_position(pos)) == pos
    # a bare budget of 0 is allowed too (only a named card needs points left)
    zero = variant("current: null", "current: {points: 0}")
    assert load_position(write(tmp_path / "zero.yaml", zero)).current == Current(None, 0)


def test_puzzle_may_omit_draw_and_discard(tmp_path: Path) -> None:
    text = "format: rove-position/1\nspec: classic\ngoal: mission\nlayout: |\n  B C G\n  L M S\n" \
           "mission: c07\nhand: [c01, c02]\n"
    pos = load_position(write(tmp_path / "puzzle.yaml", text))
    assert pos.goal == "mission" and pos.draw == () and pos.discard == ()
    assert pos.hand == ("c01", "c02") and pos.current is None and pos.rules == Rules()


def test_extension_keys_completed_title_comment(tmp_path: Path) -> None:
    text = variant("missions_done: 0", "missions_done: 2\ncompleted: [c11, c12]")
    text = variant("draw: [c07, c08, c09, c10, c11, c12]", "draw: [c07, c08, c09, c10]", text)
    text = variant("format: rove-position/1", "format: rove-position/1\ntitle: A puzzle\ncomment: hi", text)
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.completed == ("c11", "c12") and pos.missions_done == 2
    dumped = dump_position(pos, title="A puzzle")
    assert dumped.startswith('format: rove-position/1\ntitle: "A puzzle"\n')
    assert "completed: [c11, c12]\n" in dumped
    assert parse_position(dumped) == pos


def test_rules_options(tmp_path: Path) -> None:
    text = variant("rules: {}", "rules:\n  recycle: when_empty\n  auto_complete_on_reveal: false")
    pos = load_position(write(tmp_path / "pos.yaml", text))
    assert pos.rules == Rules(auto_complete_on_reveal=False, recycle="when_empty")
    assert load_position(write(tmp_path / "p2.yaml", variant("rules: {}", "rules:"))).rules == Rules()


def test_spec_path_is_relative_to_the_position_files_folder(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path / "decks" / "seven.yaml", SEVEN)
    text = variant("spec: classic", "spec: ../decks/seven.yaml")
    text = variant("  B C G\n  L M S\n", "  B C G X\n  L M S\n", text)
    text = variant("mission: c01\nhand: [c02, c03, c04, c05, c06]\ndraw: [c07, c08, c09, c10, c11, c12]",
                   "mission: k1\nhand: [k2, k3]\ndraw: [k4]", text)
    path = write(tmp_path / "positions" / "p.yaml", text)
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    pos = load_position(path)
    assert pos.spec.name == "Seven" and pos.spec_ref == "../decks/seven.yaml"
    assert pos.cells["X"] == (3, 0)
    # parse_position takes the folder explicitly
    assert parse_position(text, "p.yaml", tmp_path / "positions") == pos
    with pytest.raises(InputError):
        parse_position(text, "p.yaml")  # relative to the current directory: not there


def test_problems_of_the_positions_spec_name_the_spec_file(tmp_path: Path) -> None:
    spec_text = SEVEN.replace("ability: coil", "ability: kettle")
    spec_path = write(tmp_path / "seven.yaml", spec_text)
    text = variant("spec: classic", "spec: seven.yaml")
    path, probs = problems_of(tmp_path, text)
    assert [(p.path, p.line) for p in probs] == [(str(path), line_of(text, "seven.yaml")),
                                                 (str(spec_path), line_of(spec_text, "kettle"))]
    assert "unknown ability 'kettle'" in probs[1].message


# --------------------------------------------------------------------------- validation errors


def test_unknown_key(tmp_path: Path) -> None:
    text = variant("goal: game", "goal: game\ncolour: red")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "colour")
    assert p.message.startswith("unknown key 'colour' in position; allowed keys: comment, completed, current")
    assert str(p) == f"{tmp_path / 'pos.yaml'}:{p.line}: {p.message}"


@pytest.mark.parametrize("fmt", ["rove-position/2", "rove-spec/1", "null"])
def test_wrong_format(tmp_path: Path, fmt: str) -> None:
    text = variant("format: rove-position/1", f"format: {fmt}")
    p = one_problem(tmp_path, text)
    assert p.line == 1
    assert p.message.startswith("format is ") and "write 'format: rove-position/1' at the top" in p.message


def test_missing_format(tmp_path: Path) -> None:
    p = one_problem(tmp_path, variant("format: rove-position/1\n", ""))
    assert p.message.startswith("format is None")


@pytest.mark.parametrize(("old", "key"), [
    ("spec: classic\n", "spec"),
    ("layout: |\n  B C G\n  L M S\n", "layout"),
    ("mission: c01\n", "mission"),
])
def test_missing_required_key(tmp_path: Path, old: str, key: str) -> None:
    p = one_problem(tmp_path, variant(old, ""))
    assert p.line == 1
    assert p.message == f"position is missing '{key}'; add it"


def test_missing_spec_layout_and_mission_at_once(tmp_path: Path) -> None:
    text = "format: rove-position/1\ngoal: game\n"
    _, probs = problems_of(tmp_path, text)
    assert [p.message for p in probs] == [f"position is missing '{k}'; add it" for k in ("spec", "layout", "mission")]


def test_unknown_spec(tmp_path: Path) -> None:
    _, probs = problems_of(tmp_path, variant("spec: classic", "spec: nosuch"))
    assert len(probs) == 2
    assert "spec 'nosuch' cannot be used" in probs[0].message
    assert "no bundled spec or file of that name" in probs[1].message
    assert "nosuch" in str(probs[1])


def test_unknown_spec_names_the_position_file_and_line(tmp_path: Path) -> None:
    text = variant("spec: classic", "spec: nosuch")
    path, probs = problems_of(tmp_path, text)
    assert (str(path), line_of(text, "nosuch")) in [(p.path, p.line) for p in probs]


def test_missing_spec_file(tmp_path: Path) -> None:
    _, probs = problems_of(tmp_path, variant("spec: classic", "spec: decks/missing.yaml"))
    assert len(probs) == 2
    assert probs[1].path == str(tmp_path / "decks" / "missing.yaml")
    assert "no such file" in probs[1].message


def test_spec_must_be_text(tmp_path: Path) -> None:
    text = variant("spec: classic", "spec: [classic]")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "spec:")
    assert p.message == "spec must be a bundled name or a path"


def test_bad_goal(tmp_path: Path) -> None:
    text = variant("goal: game", "goal: win")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "goal")
    assert p.message == "goal is 'win'; use game or mission"


@pytest.mark.parametrize(("layout", "words"), [
    ("  B X G\n  L M S\n", "layout has 'X' in row 1, which is not a module code; use B L S C G M or '.'"),
    ("  B C G\n  L # S\n", "layout has '#' in row 2, which is not a module code"),
    ("  B C G\n  L M B\n", "layout has module B twice; each module is in one place"),
    ("  B C G\n  L M\n", "layout lacks module(s) S; every module of the spec is on the table exactly once"),
    ("  B C\n  L\n", "layout lacks module(s) S G M;"),
    ("  B C G\n  . . .\n  L M S\n", "layout is not one group"),
    ("  B C . G\n  L M . S\n", "layout is not one group"),
])
def test_bad_layout(tmp_path: Path, layout: str, words: str) -> None:
    text = variant("  B C G\n  L M S\n", layout)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "layout:")
    assert p.message.startswith(words)


def test_layout_touching_only_at_corners_is_one_group(tmp_path: Path) -> None:
    text = variant("  B C G\n  L M S\n", "  B . C\n  . G .\n  L . M\n  . S\n")
    assert load_position(write(tmp_path / "pos.yaml", text)).cells["S"] == (1, 3)


@pytest.mark.parametrize("layout", ['"B  C G L M S"', "[B, C]", '" B C G"'])
def test_layout_bad_text(tmp_path: Path, layout: str) -> None:
    text = variant("layout: |\n  B C G\n  L M S\n", f"layout: {layout}\n")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "layout:")
    assert p.message.startswith("layout")


@pytest.mark.parametrize(("spent", "words"), [
    ("[Q]", "spent names unknown module(s) Q; use codes from B L S C G M"),
    ("[L, Q, Z]", "spent names unknown module(s) Q Z"),
    ("[L, S, L]", "spent lists a module twice; list each once"),
    ("L", "spent must be a list of module codes like [L, S]"),
    ("[1]", "spent must be a list of module codes"),
])
def test_bad_spent(tmp_path: Path, spent: str, words: str) -> None:
    text = variant("spent: []", f"spent: {spent}")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "spent")
    assert p.message.startswith(words)


@pytest.mark.parametrize(("value", "shown"), [("7", "7"), ("-1", "-1"), ("true", "True"), ("1.0", "1.0"),
                                              ("two", "'two'")])
def test_missions_done_out_of_range(tmp_path: Path, value: str, shown: str) -> None:
    text = variant("missions_done: 0", f"missions_done: {value}")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "missions_done")
    assert p.message == f"missions_done is {shown}; give a whole number from 0 to 6"


def test_missions_done_at_its_limit(tmp_path: Path) -> None:
    pos = load_position(write(tmp_path / "pos.yaml", variant("missions_done: 0", "missions_done: 6")))
    assert pos.missions_done == 6


@pytest.mark.parametrize(("old", "new", "key"), [
    ("mission: c01", "mission: c99", "mission"),
    ("hand: [c02, c03, c04, c05, c06]", "hand: [c02, c03, x4, c05, c06]", "hand"),
    ("draw: [c07, c08, c09, c10, c11, c12]", "draw: [c07, c08, c09, c10, c11, c12, c13]", "draw"),
    ("discard: []", "discard: [C01]", "discard"),
    ("current: null", "current: {card: c77, points: 2}", "current"),
])
def test_unknown_card_id(tmp_path: Path, old: str, new: str, key: str) -> None:
    text = variant(old, new)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, f"{key}:")
    assert f"{key} names card '" in p.message and "which 'Classic deck' does not have" in p.message


def test_completed_unknown_card_and_too_many(tmp_path: Path) -> None:
    text = variant("missions_done: 0", "missions_done: 1\ncompleted: [zz]")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "completed")
    assert p.message == "completed names card 'zz', which 'Classic deck' does not have"
    text = variant("missions_done: 0", "missions_done: 1\ncompleted: [c11, c12]")
    text = variant("draw: [c07, c08, c09, c10, c11, c12]", "draw: [c07, c08, c09, c10]", text)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "completed")
    assert p.message == "completed lists 2 cards but missions_done is 1"


@pytest.mark.parametrize(("old", "new", "key", "first", "second"), [
    ("discard: []", "discard: [c02]", "discard", "hand", "discard"),
    ("hand: [c02,", "hand: [c01,", "hand", "mission", "hand"),
    ("draw: [c07,", "draw: [c06, c07,", "draw", "hand", "draw"),
    ("draw: [c07, c08,", "draw: [c07, c07, c08,", "draw", "draw", "draw"),
    ("current: null", "current: {card: c12, points: 2}", "current", "draw", "current"),
])
def test_card_in_two_places(tmp_path: Path, old: str, new: str, key: str, first: str, second: str) -> None:
    text = variant(old, new)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, f"{key}:")
    assert " is in " + first + " and in " + second + "; a card is in one place at a time" in p.message


def test_hand_over_5(tmp_path: Path) -> None:
    text = variant("hand: [c02, c03, c04, c05, c06]", "hand: [c02, c03, c04, c05, c06, c07]")
    text = variant("draw: [c07, ", "draw: [", text)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "hand")
    assert p.message == "hand holds 6 cards; the hand limit is 5"


@pytest.mark.parametrize("value", ["c02", "[c02, 3]", "{a: 1}"])
def test_card_lists_must_be_lists_of_ids(tmp_path: Path, value: str) -> None:
    text = variant("discard: []", f"discard: {value}")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "discard")
    assert p.message == "discard must be a list of card ids like [c02, c03]"


def test_mission_must_be_a_card_id(tmp_path: Path) -> None:
    text = variant("mission: c01", "mission: [c01]")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "mission:")
    assert p.message == "mission must be a card id like c01"


@pytest.mark.parametrize(("current", "words"), [
    ("{card: c06, points: 0}", "a current card with 0 points is already discarded"),
    ("{card: c06, points: -2}", "current points is -2; give a whole number >= 0"),
    ("{card: null, points: -1}", "current points is -1; give a whole number >= 0"),
    ("{card: c06, points: 1.5}", "current points is 1.5; give a whole number >= 0"),
    ("{card: c06, points: true}", "current points is True; give a whole number >= 0"),
    ("{card: c06}", "current must be null or {card: ID or null, points: N}"),
    ("{card: c06, points: 2, bonus: true}", "current must be null or {card: ID or null, points: N}"),
    ("4", "current must be null or {card: ID or null, points: N}"),
    ("[c06, 2]", "current must be null or {card: ID or null, points: N}"),
    ("{card: 6, points: 2}", "current card must be a card id or null (a bare budget)"),
])
def test_bad_current(tmp_path: Path, current: str, words: str) -> None:
    text = variant("hand: [c02, c03, c04, c05, c06]", "hand: [c02, c03, c04, c05]")
    text = variant("current: null", f"current: {current}", text)
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "current")
    assert p.message.startswith(words)


@pytest.mark.parametrize(("rules", "words"), [
    ("{speed: fast}", "unknown rule option 'speed'; options are: auto_complete_on_reveal, recycle, gripper_target"),
    ("{recycle: sometimes}", "rule option recycle cannot be 'sometimes'; use on_demand | when_empty"),
    ("{gripper_target: any}", "rule option gripper_target cannot be 'any'; use active_or_spent | active_only"),
    ("{auto_complete_on_reveal: 0}", "rule option auto_complete_on_reveal cannot be 0; use true | false"),
    ("{auto_complete_on_reveal: 'false'}", "rule option auto_complete_on_reveal cannot be 'false'; use true | false"),
    ("{recycle: true}", "rule option recycle cannot be True"),
    ("[recycle]", "rules must be a mapping of option: value"),
])
def test_bad_rules(tmp_path: Path, rules: str, words: str) -> None:
    text = variant("rules: {}", f"rules: {rules}")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "rules")
    assert p.message.startswith(words)


def test_bad_rule_option_names_its_own_line(tmp_path: Path) -> None:
    text = variant("rules: {}", "rules:\n  recycle: when_empty\n  gripper_target: nearest")
    p = one_problem(tmp_path, text)
    assert p.line == line_of(text, "nearest")


def test_yaml_problems(tmp_path: Path) -> None:
    p = one_problem(tmp_path, variant("missions_done: 0", "missions_done: 0\nmission: c02"))
    assert p.line == 10 and "duplicate key 'mission'" in p.message
    p = one_problem(tmp_path, variant("spent: []", "spent: [L"))
    assert p.message.startswith("YAML syntax:") and p.line is not None
    p = one_problem(tmp_path, "- just\n- a list\n")
    assert (p.line, p.message) == (1, "a position must be a YAML mapping (format, spec, layout, ...)")


def test_all_problems_of_a_position_at_once(tmp_path: Path) -> None:
    text = variant("spent: []", "spent: [Q]")
    text = variant("missions_done: 0", "missions_done: 9", text)
    text = variant("rules: {}", "rules: {speed: fast}", text)
    text = variant("mission: c01", "mission: c99", text)
    _, probs = problems_of(tmp_path, text)
    assert [p.line for p in probs] == [line_of(text, k) for k in ("spent", "missions_done", "mission:", "rules")]


def test_missing_position_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_position(tmp_path / "nope.yaml")
    [p] = info.value.problems
    assert p.path == str(tmp_path / "nope.yaml") and "no such file" in p.message


# --------------------------------------------------------------------------- deals and round trips


def test_deal_dump_load_round_trip_is_equal_and_byte_stable(tmp_path: Path, classic) -> None:
    for difficulty in DIFFICULTIES:
        for seed in (0, 1, 12345):
            pos = deal(classic, seed, difficulty)
            text = dump_position(pos)
            path = write(tmp_path / f"{difficulty}-{seed}.yaml", text)
            again = load_position(path)
            assert again == pos
            assert again.spec_ref == "classic"
            assert dump_position(again) == text
            assert dump_position(parse_position(text)) == text


def test_dump_layout(classic) -> None:
    pos = load_position_text(POS)
    assert dump_position(pos) == POS


def load_position_text(text: str) -> Position:
    return parse_position(text, "pos.yaml")


def test_same_seed_same_deal_and_different_seeds_differ(classic) -> None:
    assert deal(classic, 42) == deal(classic, 42)
    assert dump_position(deal(classic, 42)) == dump_position(deal(classic, 42))
    texts = {dump_position(deal(classic, seed)) for seed in range(20)}
    assert len(texts) >= 15
    layouts = {deal(classic, seed).layout for seed in range(20)}
    missions = {deal(classic, seed).mission for seed in range(20)}
    assert len(layouts) >= 10 and len(missions) >= 5


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_deals_follow_the_setup_rules(classic, difficulty: str) -> None:
    size = {"normal": 5, "hard": 4, "impossible": 3}[difficulty]
    assert HAND_SIZES[difficulty] == size
    ids = sorted(c.id for c in classic.cards)
    for seed in range(10):
        pos = deal(classic, seed, difficulty)
        # modules dealt active side up into 2 rows x 3 columns
        assert sorted(pos.cells) == sorted(classic.codes)
        assert set(pos.cells.values()) == {(x, y) for x in range(3) for y in range(2)}
        assert pos.spent == frozenset()
        # every card once: the top card the mission, the next cards the hand, the rest the draw
        everything = [pos.mission, *pos.hand, *pos.draw]
        assert sorted(everything) == ids
        assert len(pos.hand) == size and len(pos.draw) == 12 - 1 - size
        assert pos.discard == () and pos.completed == () and pos.current is None
        assert pos.missions_done == 0 and pos.goal == "game" and pos.rules == Rules()


def test_difficulties_share_the_shuffle(classic) -> None:
    # the same seed shuffles the same way; only the split between hand and draw differs
    for seed in range(5):
        normal, hard, impossible = (deal(classic, seed, d) for d in ("normal", "hard", "impossible"))
        assert normal.layout == hard.layout == impossible.layout
        assert normal.mission == hard.mission == impossible.mission
        assert normal.hand + normal.draw == hard.hand + hard.draw == impossible.hand + impossible.draw


def test_deal_rejects_an_unknown_difficulty(classic) -> None:
    with pytest.raises(ValueError, match="difficulty must be one of normal, hard, impossible"):
        deal(classic, 1, "easy")


def test_deal_of_a_custom_spec_wraps_modules_at_three_a_row(tmp_path: Path) -> None:
    spec_path = write(tmp_path / "seven.yaml", SEVEN)
    spec = load_spec(spec_path)
    pos = deal(spec, 3, spec_ref="seven.yaml")
    assert set(pos.cells.values()) == {(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 2)}
    assert sorted([pos.mission, *pos.hand, *pos.draw]) == ["k1", "k2", "k3", "k4"]
    assert len(pos.hand) == 3 and pos.draw == ()  # not enough cards for a full hand
    again = load_position(write(tmp_path / "deal.yaml", dump_position(pos)))
    assert again == pos


def test_a_deal_names_the_deck_it_was_dealt_from(tmp_path: Path, classic) -> None:
    """A bundled deck by its name, any other by its file: written out and read back, the
    deal is dealt from the same deck (it once named the default deck whatever it came from)."""
    from conftest import CLASSIC

    assert deal(classic, 1).spec_ref == "classic"
    assert deal(load_spec("standard"), 1).spec_ref == "standard"
    mine = tmp_path / "mine.yaml"
    mine.write_bytes(CLASSIC.read_bytes())
    pos = deal(load_spec(mine), 1)
    assert pos.spec_ref == str(mine) and load_position(write(tmp_path / "d.yaml", dump_position(pos))) == pos
    assert deal(classic, 1, spec_ref="elsewhere.yaml").spec_ref == "elsewhere.yaml"


@pytest.mark.parametrize("rules", [
    Rules(auto_complete_on_reveal=False),
    Rules(recycle="when_empty"),
    Rules(gripper_target="active_only"),
    Rules(auto_complete_on_reveal=False, recycle="when_empty", gripper_target="active_only"),
])
def test_non_default_rules_round_trip(classic, rules: Rules) -> None:
    pos = deal(classic, 7, rules=rules)
    text = dump_position(pos)
    assert "rules: {}" not in text
    again = parse_position(text)
    assert again.rules == rules and again == pos
    assert dump_position(again) == text


def test_rules_values_and_defaults() -> None:
    assert Rules().to_dict() == {k: v[0] for k, v in OPTIONS.items()}
    assert Rules().non_default() == {}
    with pytest.raises(ValueError, match="rule option recycle cannot be 'never'"):
        Rules(recycle="never")
    with pytest.raises(ValueError):
        Rules(auto_complete_on_reveal=1)  # type: ignore[arg-type]


def test_mid_game_round_trip(classic) -> None:
    pos = replace(deal(classic, 9), spent=frozenset({"L", "S"}), missions_done=2,
                  completed=("c01", "c02"), current=Current(None, 3), goal="mission")
    ids = [c for c in (pos.mission, *pos.hand, *pos.draw) if c not in ("c01", "c02")]
    pos = replace(pos, mission=ids[0], hand=tuple(ids[1:4]), draw=tuple(ids[4:8]), discard=tuple(ids[8:]))
    text = dump_position(pos)
    again = parse_position(text)
    assert again == pos and dump_position(again) == text


def test_dump_position_quotes_card_ids_that_look_like_numbers(tmp_path: Path) -> None:
    text = SEVEN
    for k in ("k1", "k2", "k3", "k4"):
        text = text.replace(f"id: {k},", f'id: "0{k[1]}",')
    spec = load_spec(write(tmp_path / "digits.yaml", text))
    assert [c.id for c in spec.cards] == ["01", "02", "03", "04"]
    pos = deal(spec, 1, spec_ref="digits.yaml")
    assert load_position(write(tmp_path / "pos.yaml", dump_position(pos))) == pos
