"""Plan steps (docs/FORMATS.md, "Plans"): JSON and notation, both ways, and plan files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rove.actions import Action, dumps_plan, load_plan, plan_to_json
from rove.errors import InputError

#: every action form: notation <-> plan JSON object
FORMS: list[tuple[str, dict[str, Any]]] = [
    ("play c02+", {"act": "play", "card": "c02", "bonus": True}),
    ("play c02-", {"act": "play", "card": "c02", "bonus": False}),
    ("play c02", {"act": "play", "card": "c02"}),
    ("B E2", {"act": "move", "module": "B", "dir": "E", "dist": 2}),
    ("L NW11", {"act": "move", "module": "L", "dir": "NW", "dist": 11}),
    ("L swap B C", {"act": "ability", "module": "L", "swap": ["B", "C"]}),
    ("M shift S NE", {"act": "ability", "module": "M", "target": "S", "dir": "NE"}),
    ("B place G 2,-1", {"act": "ability", "module": "B", "target": "G", "to": [2, -1]}),
    ("C to 3,1", {"act": "ability", "module": "C", "to": [3, 1]}),
    ("S draw", {"act": "ability", "module": "S"}),
    ("G via L swap B C", {"act": "ability", "module": "G", "via": "L", "swap": ["B", "C"]}),
    ("G via S draw", {"act": "ability", "module": "G", "via": "S"}),
    ("G via B place G 0,1", {"act": "ability", "module": "G", "via": "B", "target": "G",
                             "to": [0, 1]}),
    ("G via C to -1,2", {"act": "ability", "module": "G", "via": "C", "to": [-1, 2]}),
    ("G via M shift L NW", {"act": "ability", "module": "G", "via": "M", "target": "L",
                            "dir": "NW"}),
]


@pytest.mark.parametrize("text, obj", FORMS, ids=[t for t, _ in FORMS])
class TestForms:
    def test_notation_round_trip(self, text: str, obj: dict[str, Any]) -> None:
        a = Action.parse(text)
        assert a.notation() == text and str(a) == text
        assert Action.parse(a.notation()) == a

    def test_json_round_trip(self, text: str, obj: dict[str, Any]) -> None:
        a = Action.from_json(obj)
        assert a.to_json() == obj
        assert Action.from_json(json.loads(json.dumps(a.to_json()))) == a

    def test_notation_and_json_agree(self, text: str, obj: dict[str, Any]) -> None:
        assert Action.parse(text) == Action.from_json(obj)
        assert Action.parse(text).to_json() == obj
        assert Action.from_json(obj).notation() == text

    def test_extra_whitespace_in_notation(self, text: str, obj: dict[str, Any]) -> None:
        assert Action.parse("  " + text.replace(" ", "   ") + "\t") == Action.from_json(obj)


def test_constructors_match_parsing() -> None:
    assert Action.play("c02", True) == Action.parse("play c02+")
    assert Action.move("B", "E", 2) == Action.parse("B E2")
    assert Action.ability("G", via="L", swap=("B", "C")) == Action.parse("G via L swap B C")
    assert Action.ability("B", target="G", to=(2, -1)) == Action.parse("B place G 2,-1")
    assert Action.parse("B E2").is_ability is False and Action.parse("S draw").is_ability


def test_key_order_does_not_matter() -> None:
    a = Action.from_json({"dist": 2, "dir": "E", "module": "B", "act": "move"})
    assert a == Action.parse("B E2")


@pytest.mark.parametrize("obj, message", [
    ([1, 2], "an action must be a JSON object"),
    ("B E2", "an action must be a JSON object"),
    ({"module": "B"}, "'act' is None; use play, move or ability"),
    ({"act": "jump"}, "'act' is 'jump'; use play, move or ability"),
    ({"act": "play", "card": "c02", "points": 3}, "unknown key(s) points in a play action"),
    ({"act": "move", "module": "B", "dir": "E", "dist": 1, "to": [1, 1]},
     "unknown key(s) to in a move action"),
    ({"act": "play"}, "a play action needs 'card'"),
    ({"act": "play", "card": 2}, "a play action needs 'card'"),
    ({"act": "play", "card": "c02", "bonus": "yes"}, "'bonus' must be true, false or absent"),
    ({"act": "play", "card": "c02", "bonus": 1}, "'bonus' must be true, false or absent"),
    ({"act": "move", "dir": "E", "dist": 1}, "a move action needs 'module'"),
    ({"act": "move", "module": "B", "dir": "east", "dist": 1}, "'dir' is 'east'; use one of N NE"),
    ({"act": "move", "module": "B", "dist": 1}, "'dir' is None"),
    ({"act": "move", "module": "B", "dir": "E", "dist": 0}, "'dist' is 0; give a whole number"),
    ({"act": "move", "module": "B", "dir": "E", "dist": "2"}, "'dist' is '2'"),
    ({"act": "move", "module": "B", "dir": "E", "dist": True}, "'dist' is True"),
    ({"act": "move", "module": "B", "dir": "E", "dist": 1.5}, "'dist' is 1.5"),
    ({"act": "move", "module": "B", "dir": "E"}, "'dist' is None"),
    ({"act": "ability"}, "an ability action needs 'module'"),
    ({"act": "ability", "module": "L", "swap": ["B"]}, "'swap' must be a list of two module codes"),
    ({"act": "ability", "module": "L", "swap": "B C"}, "'swap' must be a list of two module codes"),
    ({"act": "ability", "module": "C", "to": [1]}, "'to' must be a cell [x, y]"),
    ({"act": "ability", "module": "C", "to": [1, "2"]}, "'to' must be a cell [x, y]"),
    ({"act": "ability", "module": "C", "to": [True, 2]}, "'to' must be a cell [x, y]"),
    ({"act": "ability", "module": "M", "target": "S", "dir": "up"}, "'dir' is 'up'"),
    ({"act": "ability", "module": "G", "via": 3}, "'via' must be a module code"),
    ({"act": "ability", "module": "M", "target": ["S"], "dir": "N"}, "'target' must be a module code"),
])
def test_bad_json_objects(obj: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Action.from_json(obj)
    assert message in str(info.value)


FORMS_HINT = "forms: 'B E2', 'L swap B C'"


@pytest.mark.parametrize("text, message", [
    ("", "empty action"),
    ("   ", "empty action"),
    ("jump B E2", "an action starts with 'play' or a module code"),
    ("b E2", "an action starts with 'play' or a module code"),
    ("BL E2", "an action starts with 'play' or a module code"),
    ("play", "write 'play CARD', 'play CARD+' (bonus) or 'play CARD-'"),
    ("play c02*", "write 'play CARD'"),
    ("play c02 c03", "write 'play CARD'"),
    ("B E0", FORMS_HINT),
    ("B E-1", FORMS_HINT),
    ("B EAST2", FORMS_HINT),
    ("B E", FORMS_HINT),
    ("B", FORMS_HINT),
    ("L swap B", FORMS_HINT),
    ("L swap B C D", FORMS_HINT),
    ("M shift S UP", FORMS_HINT),
    ("B place G 2;1", FORMS_HINT),
    ("B place G", FORMS_HINT),
    ("C to 3", FORMS_HINT),
    ("C to 3,1,2", FORMS_HINT),
    ("S draw 2", FORMS_HINT),
    ("S fly", FORMS_HINT),
    ("G via", "write 'G via X <ability arguments>'"),
    ("G via L", "write 'G via X <ability arguments>'"),
    ("G via L swap B", FORMS_HINT),
])
def test_bad_notation(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Action.parse(text)
    assert message in str(info.value)


def test_incomplete_ability_has_no_notation() -> None:
    with pytest.raises(ValueError, match="has no notation"):
        Action.from_json({"act": "ability", "module": "M", "target": "S"}).notation()


# --------------------------------------------------------------------------- plan files

PLAN = [Action.parse(t) for t, _ in FORMS]


def test_dumps_plan_is_one_action_a_line(tmp_path: Path) -> None:
    text = dumps_plan(PLAN)
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(PLAN) + 2
    assert json.loads(text) == plan_to_json(PLAN) == [obj for _, obj in FORMS]
    assert dumps_plan([]) == "[]\n"


def test_load_plan_json_list(tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(dumps_plan(PLAN), encoding="utf-8")
    assert load_plan(path) == PLAN
    path.write_text(json.dumps(plan_to_json(PLAN)), encoding="utf-8")  # one line
    assert load_plan(path) == PLAN
    path.write_text("[]", encoding="utf-8")
    assert load_plan(path) == []


def test_load_plan_solve_output(tmp_path: Path) -> None:
    path = tmp_path / "solved.json"
    out = {"status": "solved", "engine": "search", "goal": "mission", "optimal": True,
           "points": 5, "cards": 2, "plan": plan_to_json(PLAN), "seconds": 0.1, "rules": {}}
    path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    assert load_plan(path) == PLAN


def test_load_plan_notation_with_comments(tmp_path: Path) -> None:
    path = tmp_path / "plan.txt"
    body = "\n".join(f"{t}   # step {i}" if i % 2 else t for i, (t, _) in enumerate(FORMS))
    path.write_text("# a plan in notation\n\n" + body + "\n\n# the end\n", encoding="utf-8")
    assert load_plan(path) == PLAN


@pytest.mark.parametrize("content, line, message", [
    ("play c01\nB E2\nB sideways\n", 3, "'B sideways': not an action"),
    ("# comment\n\nplay c01+\nplay\n", 4, "write 'play CARD'"),
    ('[\n  {"act": "play", "card": "c01"},\n  {"act": "move", "module": "B"\n]\n', 4,
     "JSON syntax"),
    ('[\n  {"act": "play", "card": "c01"},\n  {"act": "move", "module": "B", "dir": "Q", '
     '"dist": 1}\n]\n', 3, "action 1: 'dir' is 'Q'"),
    ('{"status": "solved",\n "plan": [\n  {"act": "play", "card": "c01"},\n'
     '  {"act": "fly"}\n ]}\n', 4, "action 1: 'act' is 'fly'"),
    ('{"status": "unsolvable", "plan": null}\n', 1, "a plan is a JSON list of action objects"),
    ('"B E2"\n', None, None),  # a JSON string is read as notation and fails there
])
def test_bad_plan_files(tmp_path: Path, content: str, line: int | None,
                        message: str | None) -> None:
    path = tmp_path / "bad.plan"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_plan(path)
    (problem,) = info.value.problems
    assert problem.path == str(path)
    if line is not None:
        assert problem.line == line and str(problem).startswith(f"{path}:{line}: ")
    if message is not None:
        assert message in problem.message


def test_missing_plan_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_plan(tmp_path / "nope.json")
