"""Card specs (docs/FORMATS.md, "Card specs"): loading, grid text, includes, every validation error,
the pattern feasibility check, dump/load round trips and the JSON Schemas in specs/."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CLASSIC, classic_data, line_of, replace_once
from helpers import parse_grid

from rove import grid
from rove.errors import InputError, Problem
from rove.grid import GridTextError, format_grid, grid_rows, parse_dirs
from rove.spec import (
    ABILITIES,
    ARROW_KINDS,
    BUNDLED_DIR,
    Pattern,
    Spec,
    dump_spec,
    load_spec,
    min_connectors,
    parse_spec,
    pattern_problems,
)

REPO = Path(__file__).resolve().parents[1]
SPEC_SCHEMA = REPO / "specs" / "rove-spec.schema.json"
POSITION_SCHEMA = REPO / "specs" / "rove-position.schema.json"

# A small but complete spec: six modules (one with its own spent side), three cards.
TINY = """\
format: rove-spec/1
name: Tiny deck
missions_to_win: 2
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: standard, dirs: [diagonal]}]}
  - {id: sensor, code: S, name: Sensor, ability: sensor, arrows: [{kind: standard, dirs: [N, E, S, W]}]}
  - {id: coil, code: C, name: Coil, ability: coil, arrows: [{kind: jump, dirs: [all]}]}
  - {id: gripper, code: G, name: Gripper, ability: gripper, arrows: [{kind: short, dirs: [all]}]}
  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}],
     spent_arrows: [{kind: short, dirs: [N]}]}
cards:
  - id: c01
    mission:
      title: First
      pattern: |
        B #
    movement:
      points: 1
      bonus: 3
      pattern: |
        # #
  - id: c02
    mission:
      title: Second
      pattern: |
        # L
        . #
    movement:
      points: 2
      bonus: 4
      pattern: |
        #
        #
  - id: c03
    mission: {title: Third, pattern: "S . #"}
    movement: {points: 0, bonus: 9, pattern: "M _ #"}
"""


# --------------------------------------------------------------------------- helpers

MIN_CONN_BUG = (
    "BUG spec.min_connectors: gap_bound (Chebyshev distance - 1 from the grown group to the farthest "
    "pattern cell) is not a lower bound when other pattern cells lie in between and join for free, "
    "so the search prunes the optimum: {(0,0),(2,0),(4,0)} gives 3 instead of 2, "
    "{(0,0),(2,0),(4,0),(5,0)} gives 4 instead of 2")


def variant(old: str, new: str, text: str = TINY) -> str:
    """TINY with one exact, unique piece replaced."""
    return replace_once(text, old, new)


def write(tmp_path: Path, text: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(InputError) as info:
        load_spec(path)
    return info.value.problems


def text_problems(text: str) -> list[Problem]:
    """The problems of a spec text (read in memory, as the file ``spec.yaml``)."""
    with pytest.raises(InputError) as info:
        parse_spec(text, "spec.yaml")
    return info.value.problems


def one_problem(text: str) -> Problem:
    probs = text_problems(text)
    assert len(probs) == 1, [str(p) for p in probs]
    assert probs[0].path == "spec.yaml"
    return probs[0]


# --------------------------------------------------------------------------- the bundled decks


@pytest.mark.parametrize("ref, name", [("standard", "Standard deck"), ("classic", "Classic deck")])
def test_bundled_decks_load_and_pass(ref: str, name: str) -> None:
    spec = load_spec(ref)
    assert spec.name == name
    assert spec.missions_to_win == 7
    assert [m.code for m in spec.modules] == ["B", "L", "S", "C", "G", "M"]
    assert sorted(m.ability for m in spec.modules) == sorted(ABILITIES)
    assert [c.id for c in spec.cards] == [f"c{i:02d}" for i in range(1, 13)]
    for card in spec.cards:
        assert 0 <= card.movement.points < card.movement.bonus <= 9
        # standard game: a mission names exactly one module
        assert len(card.mission.pattern.named) == 1, card.id
        for pat in (card.mission.pattern, card.movement.pattern):
            assert pattern_problems(pat, set(spec.codes), len(spec.modules)) == []
    # the bundled arrows of docs/RULES.md
    dirs = {m.code: ({a.kind for a in m.arrows}, {d.name for a in m.arrows for d in a.dirs})
            for m in spec.modules}
    assert dirs == {
        "B": ({"standard"}, {"N", "E", "S", "W"}),
        "S": ({"standard"}, {"N", "E", "S", "W"}),
        "L": ({"standard"}, {"NE", "SE", "SW", "NW"}),
        "C": ({"jump"}, {d.name for d in grid.DIRECTIONS}),
        "G": ({"short"}, {d.name for d in grid.DIRECTIONS}),
        "M": ({"push"}, {"N", "E", "S", "W"}),
    }
    assert all(m.spent_same and m.spent_arrows == m.arrows for m in spec.modules)


def test_the_standard_deck_is_the_classic_one_as_its_header_says(classic: Spec) -> None:
    """specs/standard.yaml says how it was made from the classic deck: the same modules and
    movement sides, every bonus of 4 or more one lower, new missions (generated, so none is
    a classic one).  Held here so that the file and its header cannot drift apart."""
    standard = load_spec("standard")
    assert standard.modules == classic.modules and standard.missions_to_win == classic.missions_to_win
    for new, old in zip(standard.cards, classic.cards, strict=True):
        assert new.id == old.id
        assert new.movement.pattern == old.movement.pattern and new.movement.points == old.movement.points
        assert new.movement.bonus == (old.movement.bonus - 1 if old.movement.bonus >= 4 else old.movement.bonus)
        assert new.mission.pattern != old.mission.pattern
    text = (BUNDLED_DIR / "standard.yaml").read_text(encoding="utf-8")
    assert text.startswith("# yaml-language-server: $schema=rove-spec.schema.json\n")
    for card in standard.cards:
        assert f"{card.id} {card.mission.title}:" in text, card.id  # the header lists every mission


def test_bundled_name_and_path_give_the_same_spec(classic: Spec) -> None:
    assert classic == load_spec(BUNDLED_DIR / "classic.yaml")
    assert parse_spec(CLASSIC.read_text(encoding="utf-8"), "classic.yaml", BUNDLED_DIR) == classic


def test_parse_spec_reads_text_as_load_spec_reads_a_file(tmp_path: Path) -> None:
    """In memory: the same spec, the given name standing for the file in problems,
    includes read relative to ``base_dir``."""
    assert parse_spec(TINY) == load_spec(write(tmp_path, TINY))
    [p] = text_problems(variant("missions_to_win: 2", "missions_to_win: 0"))
    assert str(p).startswith("spec.yaml:3: missions_to_win is 0")
    write(tmp_path, MODULES_FILE, "shared/modules.yaml")
    deck = DECK_FILE.replace("INCLUDE", "shared/modules.yaml")
    assert parse_spec(deck, "deck.yaml", tmp_path) == load_spec(write(tmp_path, deck, "deck.yaml"))
    assert (BUNDLED_DIR / "classic.yaml").read_text().startswith(
        "# yaml-language-server: $schema=rove-spec.schema.json\n")


def test_unknown_bundled_name_lists_the_bundled_specs() -> None:
    with pytest.raises(InputError) as info:
        load_spec("no_such_deck")
    [p] = info.value.problems
    assert "no bundled spec" in p.message and "standard" in p.message


def test_tiny_spec_loads() -> None:
    spec = parse_spec(TINY)
    assert spec.name == "Tiny deck" and spec.missions_to_win == 2
    assert spec.codes == ("B", "L", "S", "C", "G", "M")
    motor = spec.module("M")
    assert not motor.spent_same
    assert [(a.kind, [d.name for d in a.dirs]) for a in motor.arrows_for(spent=True)] == [("short", ["N"])]
    assert [(a.kind, [d.name for d in a.dirs]) for a in motor.arrows_for(spent=False)] == [
        ("push", ["N", "E", "S", "W"])]
    c02 = spec.card("c02")
    assert dict(c02.mission.pattern.cells) == {(0, 0): "#", (1, 0): "L", (1, 1): "#"}
    assert c02.mission.pattern.named == {"L": (1, 0)}
    c03 = spec.card("c03")
    assert (c03.movement.points, c03.movement.bonus) == (0, 9)
    assert c03.movement.pattern.empty == ((1, 0),)
    assert c03.movement.pattern.occupied == ((0, 0), (2, 0))
    assert c03.movement.pattern.size == 2


def test_missions_to_win_defaults_to_7() -> None:
    text = variant("missions_to_win: 2\n", "")
    # with only 3 cards the default 7 is too many: the deck check says so
    [p] = text_problems(text)
    assert "missions_to_win is 7" in p.message and "only 3 cards" in p.message


# --------------------------------------------------------------------------- round trip


def test_dump_spec_round_trip_standard(classic: Spec) -> None:
    spec = classic
    text = dump_spec(spec)
    assert text.startswith("# yaml-language-server: $schema=rove-spec.schema.json\n")
    again = parse_spec(text)
    assert again == spec
    assert dump_spec(again) == text  # byte-stable


def test_dump_spec_round_trip_keeps_spent_arrows_underscores_and_offsets(tmp_path: Path) -> None:
    text = variant('pattern: "S . #"', 'pattern: ". . .\\n. S .\\n_ . #"')
    spec = parse_spec(text)
    # the pattern keeps its own coordinates: the top-left character is (0, 0)
    assert dict(spec.card("c03").mission.pattern.cells) == {(1, 1): "S", (0, 2): "_", (2, 2): "#"}
    dumped = dump_spec(spec, schema=None)
    assert not dumped.startswith("#")
    again = load_spec(write(tmp_path, dumped, "again.yaml"))
    assert again == spec
    assert again.module("M").spent_arrows != again.module("M").arrows


def test_dump_spec_round_trip_quotes_ids_that_look_like_numbers_or_booleans(tmp_path: Path) -> None:
    text = variant("id: c01", 'id: "01"')
    text = variant("id: brain,", 'id: "on",', text)
    spec = parse_spec(text)
    assert spec.cards[0].id == "01" and spec.modules[0].id == "on"
    assert load_spec(write(tmp_path, dump_spec(spec), "again.yaml")) == spec


# --------------------------------------------------------------------------- grid text


def test_grid_spaced_and_compact_forms_agree() -> None:
    assert grid_rows("# B #") == [["#", "B", "#"]]
    assert grid_rows("#B#") == [["#", "B", "#"]]
    assert parse_grid("# B #\n. _ .") == parse_grid("#B#\n._.") == {(0, 0): "#", (1, 0): "B", (2, 0): "#",
                                                                    (1, 1): "_"}


def test_grid_short_rows_are_padded_with_dots() -> None:
    assert grid_rows("#\n# # #\nB") == [["#", ".", "."], ["#", "#", "#"], ["B", ".", "."]]
    assert grid_rows("B C G\nL M") == [["B", "C", "G"], ["L", "M", "."]]


def test_grid_blank_first_and_last_lines_are_ignored() -> None:
    assert grid_rows("\n\n# B\n. #\n\n  \n") == [["#", "B"], [".", "#"]]
    # the first cell of the first (non-blank) line is (0, 0)
    assert parse_grid("\n  \nB .\n. C\n") == {(0, 0): "B", (1, 1): "C"}
    # a trailing space on a row is not a cell
    assert grid_rows("# B   \n#") == [["#", "B"], ["#", "."]]


def test_grid_blank_middle_line_is_an_empty_row() -> None:
    assert parse_grid("B\n\nC") == {(0, 0): "B", (0, 2): "C"}


@pytest.mark.parametrize(("text", "row", "words"), [
    (" # B", 0, "starts with a space"),
    ("# B\n . #", 1, "starts with a space"),
    ("#  B", 0, "single spaces"),
    ("# B#", 0, "single spaces"),
    ("# B\n##  #", 1, "single spaces"),
])
def test_grid_bad_rows(text: str, row: int, words: str) -> None:
    with pytest.raises(GridTextError) as info:
        grid_rows(text)
    assert info.value.row == row
    assert words in str(info.value)
    assert f"row {row + 1}" in str(info.value)


def test_format_grid() -> None:
    cells = {(0, 0): "B", (2, 0): "C", (1, 1): "L"}
    assert format_grid(cells) == "B . C\n. L\n"
    assert parse_grid(format_grid(cells)) == cells
    # bounding box by default, a given origin keeps coordinates
    assert format_grid({(3, 5): "B", (4, 5): "C"}) == "B C\n"
    assert format_grid({(1, 1): "B"}, origin=(0, 0)) == ".\n. B\n"
    assert parse_grid(format_grid({(1, 1): "B"}, origin=(0, 0))) == {(1, 1): "B"}
    assert format_grid({}) == ""


def test_direction_names_and_shorthands() -> None:
    names = [d.name for d in grid.DIRECTIONS]
    assert names == ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    assert [(d.dx, d.dy) for d in grid.DIRECTIONS] == [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1),
                                                       (-1, 1), (-1, 0), (-1, -1)]
    assert [d.name for d in parse_dirs(["orthogonal"])] == ["N", "E", "S", "W"]
    assert [d.name for d in parse_dirs(["diagonal"])] == ["NE", "SE", "SW", "NW"]
    assert [d.name for d in parse_dirs(["all"])] == names
    # deduplicated, canonical (clockwise from N) order whatever the input order
    assert [d.name for d in parse_dirs(["W", "N", "orthogonal", "NE"])] == ["N", "NE", "E", "S", "W"]
    assert [d.name for d in parse_dirs(["diagonal", "orthogonal"])] == names
    with pytest.raises(KeyError):
        parse_dirs(["N", "north"])
    with pytest.raises(KeyError):
        parse_dirs(["n"])  # names are case-sensitive


def test_dirs_in_a_spec_take_shorthands_and_a_single_name() -> None:
    text = variant("dirs: [N, E, S, W]", "dirs: SE")
    text = variant("kind: jump, dirs: [all]", "kind: jump, dirs: [diagonal, N]", text)
    spec = parse_spec(text)
    assert [d.name for d in spec.module("S").arrows[0].dirs] == ["SE"]
    assert [d.name for d in spec.module("C").arrows[0].dirs] == ["N", "NE", "SE", "SW", "NW"]
    assert [d.name for d in spec.module("B").arrows[0].dirs] == ["N", "E", "S", "W"]


def test_pattern_block_with_padding_and_compact_rows() -> None:
    text = variant("      pattern: |\n        # L\n        . #\n",
                   "      pattern: |\n\n        #L\n        . . #\n\n")
    spec = parse_spec(text)
    assert dict(spec.card("c02").mission.pattern.cells) == {(0, 0): "#", (1, 0): "L", (2, 1): "#"}


def test_bad_pattern_row_is_reported_at_the_pattern() -> None:
    text = variant('pattern: "S . #"', 'pattern: "S . #\\n #"')
    p = one_problem(text)
    assert p.line == line_of(text, "title: Third")
    assert p.message.startswith("card c03 mission pattern: row 2")
    assert "starts with a space" in p.message


# --------------------------------------------------------------------------- include


MODULES_FILE = """\
format: rove-spec/1
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: standard, dirs: [diagonal]}]}
"""
MORE_MODULES_FILE = """\
format: rove-spec/1
modules:
  - {id: coil, code: C, name: Coil, ability: coil, arrows: [{kind: jump, dirs: [all]}]}
"""
DECK_FILE = """\
format: rove-spec/1
name: Included deck
missions_to_win: 1
include: INCLUDE
cards:
  - id: k1
    mission: {title: One, pattern: "B #"}
    movement: {points: 1, bonus: 2, pattern: "# L"}
"""


def test_include_a_modules_file(tmp_path: Path) -> None:
    write(tmp_path, MODULES_FILE, "shared/modules.yaml")
    deck = write(tmp_path, DECK_FILE.replace("INCLUDE", "shared/modules.yaml"), "decks/deck.yaml")
    # the include is relative to the deck's folder, not to the current directory
    write(tmp_path, MODULES_FILE, "decks/shared/modules.yaml")
    spec = load_spec(deck)
    assert spec.name == "Included deck"
    assert spec.codes == ("B", "L")
    assert [c.id for c in spec.cards] == ["k1"]


def test_include_paths_are_relative_to_each_including_file(tmp_path: Path) -> None:
    # deck -> lib/modules.yaml -> more.yaml, which lives in lib/ beside modules.yaml
    write(tmp_path, MODULES_FILE + "include: more.yaml\n", "lib/modules.yaml")
    write(tmp_path, MORE_MODULES_FILE, "lib/more.yaml")
    deck = write(tmp_path, DECK_FILE.replace("INCLUDE", "[lib/modules.yaml]"), "deck.yaml")
    spec = load_spec(deck)
    assert set(spec.codes) == {"B", "L", "C"}


def test_include_a_list_of_files(tmp_path: Path) -> None:
    write(tmp_path, MODULES_FILE, "a.yaml")
    write(tmp_path, MORE_MODULES_FILE, "b.yaml")
    deck = write(tmp_path, DECK_FILE.replace("include: INCLUDE", "include:\n  - a.yaml\n  - b.yaml"))
    assert load_spec(deck).codes == ("B", "L", "C")


def test_include_cycle_is_an_error(tmp_path: Path) -> None:
    a_text = "format: rove-spec/1\nname: A\ninclude: [b.yaml]\n"
    b_text = "format: rove-spec/1\ninclude: a.yaml\n"
    a = write(tmp_path, a_text, "a.yaml")
    b = write(tmp_path, b_text, "b.yaml")
    probs = problems_of(a)
    cycles = [p for p in probs if "cycle" in p.message]
    assert len(cycles) == 1
    assert cycles[0].path == str(b)
    assert cycles[0].line == line_of(b_text, "include: a.yaml")
    assert "include of a.yaml makes a cycle" in cycles[0].message


def test_include_of_itself_is_a_cycle() -> None:
    text = TINY + "include: spec.yaml\n"
    p = one_problem(text)
    assert p.line == line_of(text, "include: spec.yaml")
    assert "makes a cycle" in p.message


def test_missing_include_file(tmp_path: Path) -> None:
    write(tmp_path, MODULES_FILE, "modules.yaml")
    text = DECK_FILE.replace("include: INCLUDE", "include:\n  - modules.yaml\n  - nope/missing.yaml")
    [p] = problems_of(write(tmp_path, text))
    assert p.line == line_of(text, "nope/missing.yaml")
    assert "included file" in p.message and "does not exist" in p.message
    assert "missing.yaml" in p.message


def test_problems_in_an_included_file_name_that_file(tmp_path: Path) -> None:
    inc_text = MODULES_FILE.replace("ability: laser", "ability: lazer")
    inc = write(tmp_path, inc_text, "modules.yaml")
    deck = write(tmp_path, DECK_FILE.replace("INCLUDE", "modules.yaml"))
    probs = problems_of(deck)
    bad = [p for p in probs if "lazer" in p.message]
    assert len(bad) == 1
    assert bad[0].path == str(inc) and bad[0].line == line_of(inc_text, "lazer")


def test_include_entry_that_is_not_a_path() -> None:
    text = TINY + "include: [3]\n"
    p = one_problem(text)
    assert p.line == line_of(text, "include: [3]")
    assert "include entry 3 is not a path" in p.message


# --------------------------------------------------------------------------- validation errors


def test_problem_prints_as_path_line_message() -> None:
    text = variant("name: Tiny deck", "name: Tiny deck\ncolour: red")
    p = one_problem(text)
    assert str(p) == f"spec.yaml:3: {p.message}"
    assert str(Problem("f.yaml", None, "m")) == "f.yaml: m"


@pytest.mark.parametrize(("old", "new", "needle", "words"), [
    ("name: Tiny deck", "name: Tiny deck\ncolour: red", "colour", "unknown key 'colour' in spec"),
    ("name: Brain,", "name: Brain, colour: red,", "colour", "unknown key 'colour' in module"),
    ("{kind: jump, dirs: [all]}", "{kind: jump, dirs: [all], length: 2}", "length",
     "unknown key 'length' in arrow"),
    ("  - id: c02\n", "  - id: c02\n    colour: red\n", "colour", "unknown key 'colour' in card"),
    ("title: First", "title: First\n      colour: red", "colour", "unknown key 'colour' in mission"),
    ("points: 1", "points: 1\n      colour: red", "colour", "unknown key 'colour' in movement"),
])
def test_unknown_key(old: str, new: str, needle: str, words: str) -> None:
    text = variant(old, new)
    p = one_problem(text)
    assert p.line == line_of(text, needle)
    assert words in p.message and "allowed keys:" in p.message


@pytest.mark.parametrize(("old", "needle", "below", "words"), [
    ("name: Tiny deck\n", "format:", 0, "missing or non-text 'name'"),
    (" name: Coil,", "id: coil", 0, "module is missing 'name'"),
    (", arrows: [{kind: push, dirs: [orthogonal]}]", "id: motor", 0, "module is missing 'arrows'"),
    ("{kind: short, dirs: [all]}", "id: gripper", 0, "arrow is missing 'kind'"),
    # a block mapping starts at its first key: the line below 'mission:'
    ("      title: First\n", "id: c01", 2, "mission is missing 'title'"),
    ("      bonus: 3\n", "points: 1", 0, "movement is missing 'bonus'"),
])
def test_missing_key(old: str, needle: str, below: int, words: str) -> None:
    new = "{dirs: [all]}" if old.startswith("{kind") else ""
    text = variant(old, new)
    p = one_problem(text)
    assert p.line == line_of(text, needle) + below
    assert p.message.startswith(words)


def test_missing_mission_side() -> None:
    text = variant("    mission: {title: Third, pattern: \"S . #\"}\n", "")
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message == "card is missing 'mission'; add it"


def test_missing_modules_and_cards() -> None:
    text = "format: rove-spec/1\nname: Empty\n"
    probs = text_problems(text)
    assert [(p.line, p.message.split(";")[0]) for p in probs] == [(1, "missing 'modules'"),
                                                                  (1, "missing 'cards'")]


def test_wrong_format() -> None:
    text = variant("format: rove-spec/1", "format: rove-spec/2")
    p = one_problem(text)
    assert p.line == 1
    assert "format is 'rove-spec/2'" in p.message and "rove-spec/1" in p.message


def test_duplicate_module_id() -> None:
    text = variant("id: coil, code: C", "id: brain, code: C")
    p = one_problem(text)
    assert p.line == line_of(text, "code: C")
    assert p.message.startswith("module id 'brain' is used twice (also at line 5)")


def test_duplicate_module_code() -> None:
    text = variant("id: coil, code: C", "id: coil, code: B")
    p = one_problem(text)
    assert p.line == line_of(text, "id: coil")
    assert p.message.startswith("module code 'B' is used twice (also at line 5)")


def test_bad_module_code_and_id() -> None:
    text = variant("id: coil, code: C", "id: Coil, code: CC")
    probs = text_problems(text)
    assert [(p.line, p.message.split(" must ")[0]) for p in probs] == [
        (line_of(text, "Coil,"), "module id 'Coil'"), (line_of(text, "Coil,"), "module code 'CC'")]


def test_duplicate_card_id() -> None:
    text = variant("  - id: c02", "  - id: c01")
    probs = text_problems(text)
    assert len(probs) == 1
    [p] = probs
    second = [i + 1 for i, line in enumerate(text.split("\n")) if line == "  - id: c01"]
    assert p.line == second[1]
    assert p.message.startswith(f"card id 'c01' is used twice (also at line {second[0]})")


def test_bad_direction() -> None:
    text = variant("dirs: [N, E, S, W]", "dirs: [N, UP]")
    p = one_problem(text)
    assert p.line == line_of(text, "UP")
    assert p.message.startswith("unknown direction 'UP'")
    assert "orthogonal, diagonal or all" in p.message


def test_empty_dirs() -> None:
    text = variant("dirs: [N, E, S, W]", "dirs: []")
    p = one_problem(text)
    assert "dirs must be a non-empty list" in p.message


def test_bad_arrow_kind() -> None:
    text = variant("kind: jump", "kind: hop")
    p = one_problem(text)
    assert p.line == line_of(text, "hop")
    assert p.message == "unknown arrow kind 'hop'; use one of: standard, short, jump, push"


def test_arrows_must_be_a_non_empty_list() -> None:
    text = variant("arrows: [{kind: short, dirs: [all]}]", "arrows: []")
    p = one_problem(text)
    assert p.line == line_of(text, "id: gripper")
    assert "arrows must be a non-empty list" in p.message


def test_bad_spent_arrows() -> None:
    text = variant("spent_arrows: [{kind: short, dirs: [N]}]", "spent_arrows: [{kind: fly, dirs: [N]}]")
    p = one_problem(text)
    assert p.line == line_of(text, "fly")
    assert "unknown arrow kind 'fly'" in p.message


def test_unknown_ability() -> None:
    text = variant("ability: coil", "ability: teleport")
    p = one_problem(text)
    assert p.line == line_of(text, "teleport")
    assert p.message == ("unknown ability 'teleport'; use one of: "
                         "brain, coil, gripper, laser, motor, sensor")


def test_pattern_naming_an_unknown_code() -> None:
    text = variant('pattern: "S . #"', 'pattern: "X . #"')
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message.startswith("card c03 mission pattern names module 'X', which the spec does not have")
    assert "B C G L M S" in p.message


@pytest.mark.parametrize("pattern", ['""', '"_ ."', '". .\\n. ."', '"_"'])
def test_empty_pattern(pattern: str) -> None:
    text = variant('pattern: "M _ #"', f"pattern: {pattern}")
    p = one_problem(text)
    assert p.line == line_of(text, "bonus: 9")
    assert p.message.startswith("card c03 movement pattern is empty")


def test_pattern_must_be_text() -> None:
    text = variant('pattern: "M _ #"', "pattern: [M, _]")
    p = one_problem(text)
    assert "card c03 movement pattern must be grid text" in p.message


@pytest.mark.parametrize("bad", ["?", "b", "*"])
def test_bad_pattern_character(bad: str) -> None:
    text = variant('pattern: "S . #"', f'pattern: "S . #\\n# {bad}"')
    p = one_problem(text)
    assert p.line == line_of(text, "title: Third")
    assert p.message.startswith(f"card c03 mission pattern has the character {bad!r} in row 2")


@pytest.mark.parametrize(("points", "bonus"), [(3, 3), (4, 3), (0, 0), (7, 7)])
def test_bonus_not_above_base(points: int, bonus: int) -> None:
    text = variant("points: 1\n      bonus: 3", f"points: {points}\n      bonus: {bonus}")
    p = one_problem(text)
    assert p.line == line_of(text, f"bonus: {bonus}")
    assert p.message == f"bonus {bonus} is not above the base points {points}; raise the bonus"


@pytest.mark.parametrize(("key", "value", "shown"), [
    ("points", "-1", "-1"), ("points", "10", "10"), ("bonus", "10", "10"), ("bonus", "-3", "-3"),
    ("points", "1.5", "1.5"), ("bonus", "3.0", "3.0"), ("points", "true", "True"), ("bonus", "false", "False"),
    ("points", '"1"', "'1'"), ("points", "null", "None"),
])
def test_points_out_of_range_or_not_whole_numbers(key: str, value: str, shown: str) -> None:
    old = "points: 1" if key == "points" else "bonus: 3"
    text = variant(old, f"{key}: {value}")
    p = one_problem(text)
    assert p.line == line_of(text, f"{key}: {value}")
    assert p.message == f"movement {key} is {shown}; give a whole number from 0 to 9"


def test_points_at_the_limits_are_fine() -> None:
    spec = parse_spec(variant("points: 1\n      bonus: 3", "points: 0\n      bonus: 9"))
    assert (spec.card("c01").movement.points, spec.card("c01").movement.bonus) == (0, 9)


def test_module_named_twice_in_one_pattern() -> None:
    text = variant('pattern: "S . #"', 'pattern: "S # S"')
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message.startswith("card c03 mission pattern names module S 2 times")


def test_pattern_needs_more_modules_than_the_spec_has() -> None:
    text = variant('pattern: "M _ #"', 'pattern: "M # #\\n# # #\\n#"')
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message == "card c03 movement pattern needs 7 modules but the spec has 6; remove cells"


def test_pattern_cells_that_the_leftover_modules_cannot_join() -> None:
    # B and # are 6 apart: 5 connectors needed, only 4 modules left over
    text = variant('pattern: "S . #"', 'pattern: "B . . . . . #"')
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message.startswith("card c03 mission pattern cannot be matched")
    assert "4 module(s) left over" in p.message


@pytest.mark.parametrize("pattern", ['"# . #"', '"B . . . . #"', '"# . . #\\n. . . .\\n# . . #"',
                                     '"# _ #"', '"# . #\\n_ _ _"'])
def test_patterns_that_leftover_modules_can_join(pattern: str) -> None:
    spec = parse_spec(variant('pattern: "S . #"', f"pattern: {pattern}"))
    assert spec.card("c03").mission.pattern.size >= 2


def test_pattern_whose_cells_chain_through_each_other_is_accepted() -> None:
    spec = parse_spec(variant('pattern: "S . #"', 'pattern: "# . # . # #"'))
    assert spec.card("c03").mission.pattern.size == 4


def test_empty_cells_blocking_the_only_short_connection(tmp_path: Path) -> None:
    # '#' at (0,1) and (2,1) with every cell of the 3x3 box around them '_': the way round
    # needs 5 connectors, and a 6-module spec has only 4 left over
    blocked = '"_ _ _\\n# _ #\\n_ _ _"'
    text = variant('pattern: "S . #"', f"pattern: {blocked}")
    p = one_problem(text)
    assert p.line == line_of(text, "id: c03")
    assert p.message.startswith("card c03 mission pattern cannot be matched")
    # without the '_' cells the same two cells need one connector
    load_spec(write(tmp_path, variant('pattern: "S . #"', 'pattern: ". . .\\n# . #"'), "ok.yaml"))


def test_missions_to_win_above_the_card_count() -> None:
    text = variant("missions_to_win: 2", "missions_to_win: 4")
    p = one_problem(text)
    assert p.message == "missions_to_win is 4 but the deck has only 3 cards; lower it or add cards"
    assert p.line is not None


def test_missions_to_win_above_the_card_count_names_its_line() -> None:
    text = variant("missions_to_win: 2", "missions_to_win: 4")
    p = one_problem(text)
    assert p.line == line_of(text, "missions_to_win")


@pytest.mark.parametrize("value", ["0", "-2", "seven", "true", "2.5"])
def test_missions_to_win_must_be_a_whole_number_of_at_least_1(value: str) -> None:
    text = variant("missions_to_win: 2", f"missions_to_win: {value}")
    p = one_problem(text)
    assert p.line == line_of(text, "missions_to_win")
    assert p.message.startswith("missions_to_win is ") and "whole number of at least 1" in p.message


def test_yaml_syntax_error_names_its_line() -> None:
    text = variant("name: Tiny deck", "name: Tiny deck\n  extra: [1")
    p = one_problem(text)
    assert p.line == line_of(text, "extra")
    assert p.message.startswith("YAML syntax:") and "fix the YAML at this line" in p.message


def test_yaml_tab_indentation_names_its_line() -> None:
    text = variant("missions_to_win: 2", "missions_to_win: 2\n\tdescription: x")
    p = one_problem(text)
    assert p.line == 4
    assert p.message.startswith("YAML syntax:")


def test_duplicate_yaml_key() -> None:
    text = variant("missions_to_win: 2", "missions_to_win: 2\nname: Again")
    p = one_problem(text)
    assert p.line == line_of(text, "Again")
    assert "duplicate key 'name'" in p.message


def test_duplicate_yaml_key_in_a_nested_mapping() -> None:
    text = variant("points: 2\n", "points: 2\n      points: 3\n")
    p = one_problem(text)
    assert p.line == line_of(text, "points: 3")
    assert "duplicate key 'points'" in p.message


@pytest.mark.parametrize("text", ["- a\n- b\n", "just text\n", "", "42\n"])
def test_not_a_mapping(text: str) -> None:
    p = one_problem(text)
    assert p.line == 1
    assert p.message.startswith("a spec must be a YAML mapping")


def test_modules_and_cards_must_be_lists() -> None:
    text = "format: rove-spec/1\nname: X\nmodules: {a: 1}\ncards: 3\n"
    probs = text_problems(text)
    assert [(p.line, p.message) for p in probs] == [(3, "'modules' must be a list"), (4, "'cards' must be a list")]


def test_missing_spec_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_spec(tmp_path / "nope.yaml")
    [p] = info.value.problems
    assert p.path == str(tmp_path / "nope.yaml") and p.line is None
    assert "no such file" in p.message


def test_all_errors_of_a_file_are_reported_at_once() -> None:
    text = variant("name: Tiny deck", "name: Tiny deck\ncolour: red")
    text = variant("dirs: [N, E, S, W]", "dirs: [N, UP]", text)
    text = variant("points: 2\n      bonus: 4", "points: 4\n      bonus: 4", text)
    probs = text_problems(text)
    assert [(p.line, p.message.split(";")[0]) for p in probs] == [
        (line_of(text, "colour"), "unknown key 'colour' in spec"),
        (line_of(text, "UP"), "unknown direction 'UP'"),
        (line_of(text, "bonus: 4"), "bonus 4 is not above the base points 4"),
    ]


def test_all_deck_level_errors_are_reported_at_once() -> None:
    text = variant("id: coil, code: C", "id: coil, code: B")
    text = variant("  - id: c02", "  - id: c01", text)
    text = variant('pattern: "S . #"', 'pattern: "X . #"', text)
    probs = text_problems(text)
    assert len(probs) == 3
    assert [p.message.split(" ")[1] for p in probs] == ["code", "id", "c03"]


def test_item_and_deck_level_errors_are_reported_together() -> None:
    text = variant("name: Tiny deck", "name: Tiny deck\ncolour: red")
    text = variant("  - id: c02", "  - id: c01", text)
    text = variant("missions_to_win: 2", "missions_to_win: 5", text)
    probs = text_problems(text)
    assert len(probs) == 3


# --------------------------------------------------------------------------- feasibility


@pytest.mark.parametrize(("cells", "forbidden", "answer"), [
    ({(0, 0)}, set(), 0),
    ({(0, 0), (1, 1)}, set(), 0),
    ({(0, 0), (2, 0)}, set(), 1),
    ({(0, 0), (2, 2)}, set(), 1),
    ({(0, 0), (3, 0)}, set(), 2),
    ({(0, 0), (3, 1)}, set(), 2),
    ({(0, 0), (6, 0)}, set(), 5),
    pytest.param({(0, 0), (2, 0), (4, 0)}, set(), 2),
    pytest.param({(0, 0), (2, 0), (4, 0), (5, 0)}, set(), 2),
    ({(0, 0), (4, 0), (2, 0)}, {(1, 0), (1, 1), (1, -1)}, 4),   # 3 round the wall + (3, 0)
    ({(0, 0), (4, 0), (2, 3)}, set(), 3),   # a shared connector at (2, 2)
    ({(0, 0), (2, 0), (0, 2), (2, 2)}, set(), 1),   # (1, 1) joins all four
    ({(0, 0), (2, 0)}, {(1, 0)}, 1),
    ({(0, 0), (2, 0)}, {(1, -1), (1, 0), (1, 1)}, 3),
    ({(0, 1), (2, 1)}, {(x, y) for x in range(3) for y in range(3)} - {(0, 1), (2, 1)}, 5),
])
def test_min_connectors(cells: set, forbidden: set, answer: int) -> None:
    assert min_connectors(cells, forbidden) == answer


def test_min_connectors_gives_up_beyond_its_limit() -> None:
    assert min_connectors({(0, 0), (9, 0)}, set()) == 8
    assert min_connectors({(0, 0), (10, 0)}, set()) is None
    assert min_connectors({(0, 0), (4, 0)}, set(), limit=2) is None
    assert min_connectors({(0, 0), (4, 0)}, set(), limit=3) == 3


def test_pattern_problems_directly() -> None:
    codes = {"B", "L", "S", "C", "G", "M"}
    spread = Pattern.from_cells({(0, 0): "B", (6, 0): "#"})
    assert len(pattern_problems(spread, codes, 6)) == 1
    assert pattern_problems(spread, codes, 7) == []   # a 7th module can be the 5th connector
    assert pattern_problems(Pattern.from_cells({(0, 0): "#", (2, 0): "#"}), codes, 3) == []
    assert len(pattern_problems(Pattern.from_cells({(0, 0): "#", (2, 0): "#"}), codes, 2)) == 1
    assert pattern_problems(Pattern.from_cells({(0, 0): "Q"}), codes, 6)[0].startswith("names module 'Q'")


# --------------------------------------------------------------------------- JSON Schemas


_KEYWORDS = {"$schema", "$id", "$ref", "$defs", "title", "description", "default", "type", "const",
             "enum", "properties", "required", "additionalProperties", "items", "minItems",
             "maxItems", "uniqueItems", "minimum", "maximum", "pattern", "oneOf", "anyOf"}


def _is_type(value: Any, name: str) -> bool:
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "null": value is None,
    }[name]


def _same(a: Any, b: Any) -> bool:
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def schema_errors(value: Any, schema: dict, root: dict, where: str = "$") -> list[str]:
    """A small validator for the JSON Schema keywords the rove schemas use (no jsonschema here)."""
    unknown = set(schema) - _KEYWORDS
    assert not unknown, f"{where}: keywords this test does not check: {unknown}"
    errs: list[str] = []
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        errs += schema_errors(value, target, root, where)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            return [*errs, f"{where}: {value!r} is not {'/'.join(types)}"]
    if "const" in schema and not _same(value, schema["const"]):
        errs.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        errs.append(f"{where}: {value!r} not in {schema['enum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errs += [f"{where}: missing {k}" for k in schema.get("required", []) if k not in value]
        for k, v in value.items():
            if k in props:
                errs += schema_errors(v, props[k], root, f"{where}.{k}")
            elif schema.get("additionalProperties") is False:
                errs.append(f"{where}: unknown key {k}")
    if isinstance(value, list):
        for i, v in enumerate(value):
            if "items" in schema:
                errs += schema_errors(v, schema["items"], root, f"{where}[{i}]")
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", len(value)):
            errs.append(f"{where}: {len(value)} items")
        if schema.get("uniqueItems") and len({json.dumps(v) for v in value}) != len(value):
            errs.append(f"{where}: items repeat")
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        errs.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if _is_type(value, "number"):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            errs.append(f"{where}: {value} out of range")
    if "oneOf" in schema:
        ok = [s for s in schema["oneOf"] if not schema_errors(value, s, root, where)]
        if len(ok) != 1:
            errs.append(f"{where}: {value!r} matches {len(ok)} of oneOf")
    if "anyOf" in schema and not any(not schema_errors(value, s, root, where) for s in schema["anyOf"]):
        errs.append(f"{where}: {value!r} matches nothing in anyOf")
    return errs


def _subschemas(schema: Any, where: str = "$"):
    """Every (path, schema object) in a schema document."""
    if isinstance(schema, dict):
        if "type" in schema or "properties" in schema or "$ref" in schema or "oneOf" in schema \
                or "const" in schema or "enum" in schema:
            yield where, schema
        for key, sub in schema.items():
            if key in ("properties", "$defs"):
                for name, s in sub.items():
                    yield from _subschemas(s, f"{where}.{key}.{name}")
            elif key in ("items",):
                yield from _subschemas(sub, f"{where}.{key}")
            elif key in ("oneOf", "anyOf"):
                for i, s in enumerate(sub):
                    yield from _subschemas(s, f"{where}.{key}[{i}]")


@pytest.fixture(scope="module")
def spec_schema() -> dict:
    return json.loads(SPEC_SCHEMA.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def position_schema() -> dict:
    return json.loads(POSITION_SCHEMA.read_text(encoding="utf-8"))


def test_schemas_are_json_with_a_draft_and_help_everywhere(spec_schema: dict, position_schema: dict) -> None:
    for schema in (spec_schema, position_schema):
        assert schema["$schema"] in ("https://json-schema.org/draft/2020-12/schema",
                                     "http://json-schema.org/draft-07/schema#")
        for where, sub in _subschemas(schema):
            for name, prop in sub.get("properties", {}).items():
                assert prop.get("description"), f"{where}.{name} has no description"
            if sub.get("type") == "object" or "properties" in sub:
                assert sub.get("additionalProperties") is False, f"{where} allows unknown keys"


def test_spec_schema_enums_match_the_code(spec_schema: dict) -> None:
    defs = spec_schema["$defs"]
    assert tuple(defs["module"]["properties"]["ability"]["enum"]) == ABILITIES
    assert tuple(defs["arrow"]["properties"]["kind"]["enum"]) == ARROW_KINDS
    assert defs["direction"]["enum"] == [d.name for d in grid.DIRECTIONS] + list(grid.SHORTHANDS)
    assert spec_schema["properties"]["format"]["const"] == "rove-spec/1"
    movement = defs["card"]["properties"]["movement"]["properties"]
    for key in ("points", "bonus"):
        assert (movement[key]["minimum"], movement[key]["maximum"]) == (0, 9)


def _allowed_keys() -> dict[str, set[str]]:
    """What the loader accepts at each level, read from its own 'unknown key' messages."""
    text = variant("name: Tiny deck", "name: Tiny deck\nzz0: 1")
    text = variant("name: Brain,", "name: Brain, zz1: 1,", text)
    text = variant("{kind: jump, dirs: [all]}", "{kind: jump, dirs: [all], zz2: 1}", text)
    text = variant("  - id: c02\n", "  - id: c02\n    zz3: 1\n", text)
    text = variant("title: First", "title: First\n      zz4: 1", text)
    text = variant("points: 1", "points: 1\n      zz5: 1", text)
    out = {}
    for p in text_problems(text):
        m = re.fullmatch(r"unknown key 'zz\d' in (\w+); allowed keys: (.*)", p.message)
        assert m, p.message
        out[m.group(1)] = set(m.group(2).split(", "))
    return out


def test_spec_schema_keys_match_the_loader(spec_schema: dict) -> None:
    allowed = _allowed_keys()
    defs = spec_schema["$defs"]
    card = defs["card"]["properties"]
    assert allowed == {
        "spec": set(spec_schema["properties"]),
        "module": set(defs["module"]["properties"]),
        "arrow": set(defs["arrow"]["properties"]),
        "card": set(defs["card"]["properties"]),
        "mission": set(card["mission"]["properties"]),
        "movement": set(card["movement"]["properties"]),
    }


def test_spec_schema_accepts_the_bundled_deck_and_dumps(spec_schema: dict, classic: Spec) -> None:
    bundled = classic_data()
    assert schema_errors(bundled, spec_schema, spec_schema) == []
    assert schema_errors(yaml.safe_load(dump_spec(classic)), spec_schema, spec_schema) == []
    assert schema_errors(yaml.safe_load(TINY), spec_schema, spec_schema) == []
    assert schema_errors(yaml.safe_load(MODULES_FILE + "include: [a.yaml, b.yaml]\n"),
                         spec_schema, spec_schema) == []


@pytest.mark.parametrize(("old", "new"), [
    ("name: Tiny deck", "name: Tiny deck\ncolour: red"),
    ("dirs: [N, E, S, W]", "dirs: [N, UP]"),
    ("kind: jump", "kind: hop"),
    ("ability: coil", "ability: teleport"),
    ("points: 1", "points: 10"),
    ("points: 1", "points: true"),
    ("bonus: 3", "bonus: 2.5"),
    ('pattern: "S . #"', 'pattern: "S ? #"'),
    ("format: rove-spec/1", "format: rove-spec/2"),
    ("code: C", "code: CC"),
    ("spent_arrows: [{kind: short, dirs: [N]}]", "spent_arrows: other"),
    ("      title: First\n", ""),
])
def test_spec_schema_rejects_what_the_loader_rejects(spec_schema: dict, old: str, new: str) -> None:
    data = yaml.safe_load(variant(old, new))
    assert schema_errors(data, spec_schema, spec_schema) != []


def test_position_schema_matches_the_code(tmp_path: Path, position_schema: dict) -> None:
    from rove.position import GOALS, POSITION_FORMAT, parse_position
    from rove.rules import HAND_LIMIT, OPTIONS

    props = position_schema["properties"]
    assert props["format"]["const"] == POSITION_FORMAT
    assert tuple(props["goal"]["enum"]) == GOALS
    assert props["hand"]["maxItems"] == HAND_LIMIT
    rules = props["rules"]["properties"]
    assert set(rules) == set(OPTIONS)
    for name, values in OPTIONS.items():
        assert tuple(rules[name]["enum"]) == values
        assert rules[name]["default"] == values[0]
    current = props["current"]["oneOf"][1]["properties"]
    assert set(current) == {"card", "points"}
    text = "format: rove-position/1\nspec: classic\nlayout: B\nmission: c01\nzz: 1\n"
    with pytest.raises(InputError) as info:
        parse_position(text, "p.yaml", tmp_path)
    [p] = [p for p in info.value.problems if "zz" in p.message]
    allowed = set(p.message.split("allowed keys: ")[1].split(", "))
    assert allowed == set(props)


def test_position_schema_accepts_deals_and_rejects_bad_positions(position_schema: dict, classic: Spec) -> None:
    from rove.generators.deals import deal
    from rove.position import dump_position
    from rove.rules import Rules

    spec = classic
    for seed in range(3):
        text = dump_position(deal(spec, seed, "hard", rules=Rules(recycle="when_empty")), title="T")
        data = yaml.safe_load(text)
        assert schema_errors(data, position_schema, position_schema) == []
    puzzle = {"format": "rove-position/1", "spec": "classic", "goal": "mission", "layout": "B C G\nL M S\n",
              "mission": "c01", "hand": ["c02"], "current": {"card": None, "points": 4}, "completed": [],
              "comment": "x"}
    assert schema_errors(puzzle, position_schema, position_schema) == []
    for key, bad in [("goal", "win"), ("rules", {"recycle": "sometimes"}), ("rules", {"speed": 1}),
                     ("current", {"card": "c03"}), ("current", {"card": "c03", "points": -1}),
                     ("hand", ["c02", "c03", "c04", "c05", "c06", "c07"]), ("spent", ["L", "L"]),
                     ("missions_done", -1), ("format", "rove-position/2"), ("colour", "red"),
                     ("rules", {"auto_complete_on_reveal": 0})]:
        assert schema_errors({**puzzle, key: bad}, position_schema, position_schema) != [], (key, bad)
    for key in ("spec", "layout", "mission", "format"):
        assert schema_errors({k: v for k, v in puzzle.items() if k != key},
                             position_schema, position_schema) != [], key


# --------------------------------------------------------------------------- titles and names


@pytest.mark.parametrize(("value", "words"), [
    ("{a: 1}", "is {'a': 1}, a mapping, not text"),
    ("[a, b]", "is ['a', 'b'], a list, not text"),
    ("42", "is 42, a number, not text"),
    ("2.5", "is 2.5, a number, not text"),
    ("yes", "is True, a yes/no value, not text"),
    ("2001-01-01", "a date, not text"),
    ("", "is empty"),
    ("null", "is empty"),
    ('"   "', "is empty"),
])
def test_mission_title_must_be_text(value: str, words: str) -> None:
    text = variant("title: Second", f"title: {value}")
    p = one_problem(text)
    assert p.line == line_of(text, "id: c02") + 2
    assert p.message.startswith("card c02 mission title ") and words in p.message, p.message
    assert "title: Wake Up" in p.message  # the fix


@pytest.mark.parametrize(("value", "words"), [
    ("{first: 1}", "module laser name is {'first': 1}, a mapping, not text"),
    ("1984", "module laser name is 1984, a number"),
    ('""', "module laser name is empty"),
])
def test_module_name_must_be_text(value: str, words: str) -> None:
    text = variant("name: Laser,", f"name: {value},")
    p = one_problem(text)
    assert p.line == line_of(text, "id: laser")
    assert words in p.message and "name: Brain" in p.message, p.message


def test_spec_name_must_be_text() -> None:
    text = variant("name: Tiny deck", "name: [Tiny, deck]")
    p = one_problem(text)
    assert p.line == 2 and "spec name is ['Tiny', 'deck'], a list, not text" in p.message
    p = one_problem(variant("name: Tiny deck", "name: 漢字"))
    assert p.line == 2 and "spec name '漢字' has characters the card font cannot draw" in p.message


@pytest.mark.parametrize(("title", "shown"), [
    ("漢字の旅", "'漢' (U+6F22), '字' (U+5B57), 'の' (U+306E), '旅' (U+65C5)"),
    ("رحلة", "'ر' (U+0631)"),
    ("Rocket 🚀", "'🚀' (U+1F680)"),
    ("Ωmega Привет", "'П' (U+041F)"),  # Ω is in the font, Cyrillic is not
    ("Zero\u200bwidth", "'\\u200b' (U+200B)"),
])
def test_title_characters_the_font_cannot_draw(title: str, shown: str) -> None:
    text = variant("title: Second", f'title: "{title}"')
    p = one_problem(text)
    assert p.line == line_of(text, "title: \"")
    assert f"card c02 mission title {title!r} has characters the card font cannot draw: {shown}" \
        in p.message, p.message
    assert "Latin" in p.message  # the fix


@pytest.mark.parametrize("title", ['"Tab\\there"', '"Two\\nlines"', '"Bell\\a"'])
def test_title_control_characters(title: str) -> None:
    p = one_problem(variant("title: Second", f"title: {title}"))
    assert "cannot draw: '\\" in p.message and "write it on one line" in p.message, p.message


def test_titles_in_the_fonts_extended_latin_load() -> None:
    text = variant("title: Second", 'title: "Café Œuvre – «Ñu» “Łukasz” İstanbul €5 ½ π ≤ ∞…"')
    text = variant("name: Laser,", 'name: "Läser™",', text)
    spec = parse_spec(text)
    assert spec.card("c02").mission.title.startswith("Café Œuvre")
    assert spec.module("L").name == "Läser™"


def test_too_long_title_gives_the_length_that_fits() -> None:
    long = "The Very Long Expedition Across the Northern Ice Field and Back Home Again to the Base"
    text = variant("title: Second", f"title: {long}")
    p = one_problem(text)
    assert p.line == line_of(text, "title: The Very")
    assert "is too long for the card: the title box is 156 pt wide and holds two lines at the " \
           "smallest size, 8 pt; shorten it to about" in p.message, p.message
    most = int(re.search(r"about (\d+) characters", p.message).group(1))  # type: ignore[union-attr]
    assert 40 < most < len(long) and f"it has {len(long)}" in p.message
    # the length it gives does fit
    parse_spec(variant("title: Second", f"title: {long[:most].rstrip()}"))


def test_titles_that_fit_after_shrinking_or_wrapping_load() -> None:
    for title in ("Cross the Crevasse and Climb", "The Long and Winding Road Across the Northern Dunes",
                  "Supercalifragilisticexpialidocious"):
        parse_spec(variant("title: Second", f"title: {title}"))


def test_a_word_too_long_for_one_line_is_refused() -> None:
    p = one_problem(variant("title: Second", "title: Supercalifragilisticexpialidociousness"))
    assert "too long for the card" in p.message


def test_too_long_module_name() -> None:
    text = variant("name: Laser,", "name: Laser Cannon Mark Two,")
    p = one_problem(text)
    assert p.line == line_of(text, "id: laser")
    assert "module laser name 'Laser Cannon Mark Two' is too long for the card: the name has 95 pt " \
           "beside the SPENT tag, on one line at the smallest size, 9 pt; shorten it to about" in p.message
    most = int(re.search(r"about (\d+) characters", p.message).group(1))  # type: ignore[union-attr]
    parse_spec(variant("name: Laser,", f'name: "{"Laser Cannon Mark Two"[:most]}",'))


def test_a_huge_title_is_refused_with_a_short_message() -> None:
    p = one_problem(variant("title: Second", "title: " + "word " * 400_000))
    assert "too long for the card" in p.message and "it has 1,999,999" in p.message  # YAML drops the last space
    assert len(str(p)) < 700


def test_every_title_problem_of_a_file_is_reported() -> None:
    text = variant("title: First", "title: {a: 1}")
    text = variant("title: Second", "title: 漢", text)
    text = variant("title: Third", "title: null", text)
    text = variant("name: Sensor,", "name: ['x'],", text)
    lines = sorted(p.line for p in text_problems(text))  # type: ignore[type-var]
    assert lines == sorted([line_of(text, "title: {a: 1}"), line_of(text, "title: 漢"),
                            line_of(text, "title: null"), line_of(text, "id: sensor")])


# --------------------------------------------------------------------------- every problem, in order

TWO_PROBLEMS = """\
format: rove-spec/1
name: two
missions_to_win: 1
modules:
  - {id: a, code: A, name: A, ability: sensor, arrows: [{kind: short, dirs: [all]}]}
  - {id: l, code: L, name: L, ability: laser, arrows: [{kind: short, dirs: [all]}]}
cards:
  - id: c1
    mission:
      title: T
      pattern: |
        L
        L
    movement:
      points: 3
      bonus: 2
      pattern: |
        #
  - id: c2
    mission: {title: U, pattern: "A"}
    movement: {points: 10, bonus: 2, pattern: "#"}
"""


def test_a_card_with_two_problems_gets_two_lines_in_line_order() -> None:
    # c1's bonus is below its points (found while the card is read) and its mission
    # pattern names L twice (found by the deck's checks, which used to skip a card
    # rejected for its numbers); c2's points are out of range (line 21)
    probs = text_problems(TWO_PROBLEMS)
    assert [(p.line, p.message.split(";")[0]) for p in probs] == [
        (8, "card c1 mission pattern names module L 2 times"),
        (16, "bonus 2 is not above the base points 3"),
        (21, "movement points is 10"),
    ]


def test_problems_are_sorted_by_line_whatever_check_found_them() -> None:
    # a deck check (the pattern, line 8) found after a card's own check (line 21)
    text = TWO_PROBLEMS.replace("      points: 3\n      bonus: 2", "      points: 1\n      bonus: 2")
    probs = text_problems(text)
    assert [p.line for p in probs] == [8, 21]


def test_yaml_syntax_error_after_a_line_end_points_at_the_line_before() -> None:
    # the parser stops at line 4's '- b', but line 3 left its value out of place
    text = "format: rove-spec/1\nname: x\nmodules:\n  - a\n b: 2\ncards: []\n"
    p = one_problem(text)
    assert p.line == 4 and "(the parser stopped at the start of line 5)" in p.message
    # an unclosed bracket: the line that opened it, not the next key's
    p = one_problem("format: rove-spec/1\nname: x\nmodules: [a, b\ncards: []\n")
    assert p.line == 3 and "bracket opened at this line is not closed" in p.message
    # a scanner's fault is the character where it stopped: that line stays
    p = one_problem("format: rove-spec/1\nname: x: y\ncards: 1\n")
    assert p.line == 2
