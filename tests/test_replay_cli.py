"""`rove replay POSITION PLAN [--json]` end to end (docs/FORMATS.md, "rove replay --json")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rove.actions import Action, dumps_plan
from rove.cli import app
from rove.engine import GOAL, Deck, IllegalAction, state_from_position
from rove.errors import PlanRejected, SolverBug
from rove.position import load_position
from rove.replay import replay, run_plan, states_along, verify_plan

# Wake Up (c01) is "B / # / #": B with two modules below it.  Playing c02 (1 point)
# and moving Gripper SW puts G under C and completes the mission.
POSITION = """\
format: rove-position/1
spec: classic
goal: mission
layout: |
  B L S
  C G M
mission: c01
hand: [c02, c05]
current: null
"""
GOOD = ["play c02", "G SW1"]
FINAL_CELLS = {"B": [0, 0], "L": [1, 0], "S": [2, 0], "C": [0, 1], "G": [0, 2], "M": [2, 1]}
KEYS = ["legal", "steps_applied", "first_illegal", "goal_reached", "points_spent",
        "cards_played", "missions_completed", "final"]
FINAL_KEYS = ["cells", "spent", "mission", "hand", "draw", "discard", "completed", "current"]

runner = CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "pos.yaml").write_text(POSITION, encoding="utf-8")
    (tmp_path / "good.txt").write_text("# notation\n" + "\n".join(GOOD) + "\n", encoding="utf-8")
    (tmp_path / "good.json").write_text(dumps_plan([Action.parse(t) for t in GOOD]),
                                        encoding="utf-8")
    (tmp_path / "illegal.txt").write_text("play c02\nG N1\nG SW1\n", encoding="utf-8")
    return tmp_path


def run(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["replay", *map(str, args)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("plan", ["good.txt", "good.json"])
def test_legal_plan(files: Path, plan: str) -> None:
    code, out, _ = run(files / "pos.yaml", files / plan)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "start (missions done 0):"
    assert "step 0: play c02" in lines and "step 1: G SW1" in lines
    after = lines[lines.index("step 1: G SW1") + 1:]
    assert after[:3] == ["    B L S", "    C . M", "    G"]  # the layout grid after the step
    assert "mission: goal; done: 1" in out
    assert lines[-1] == ("all 2 steps legal; goal reached; 1 point spent, 1 card played, "
                         "1 mission completed")


def test_legal_plan_json(files: Path) -> None:
    code, out, _ = run(files / "pos.yaml", files / "good.json", "--json")
    assert code == 0
    data = json.loads(out)
    assert list(data) == KEYS and list(data["final"]) == FINAL_KEYS
    assert data == {
        "legal": True, "steps_applied": 2, "first_illegal": None, "goal_reached": True,
        "points_spent": 1, "cards_played": 1, "missions_completed": 1,
        "final": {"cells": FINAL_CELLS, "spent": [], "mission": None, "hand": ["c05"],
                  "draw": [], "discard": ["c02"], "completed": ["c01"], "current": None},
    }


def test_legal_plan_that_does_not_reach_the_goal(files: Path) -> None:
    (files / "short.txt").write_text("play c05\nL swap B M\n", encoding="utf-8")
    code, out, _ = run(files / "pos.yaml", files / "short.txt", "--json")
    data = json.loads(out)
    assert code == 0 and data["legal"] and not data["goal_reached"]
    assert data["final"]["current"] == {"card": "c05", "points": 2}
    assert data["final"]["spent"] == ["L"] and data["final"]["mission"] == "c01"
    assert data["final"]["cells"]["B"] == [2, 1] and data["final"]["cells"]["M"] == [0, 0]


def test_illegal_step(files: Path) -> None:
    code, out, _ = run(files / "pos.yaml", files / "illegal.txt")
    assert code == 1
    assert "step 1: G N1: illegal: G N1 lands on L's cell" in out
    assert "step 2" not in out  # replay stops at the first illegal step


def test_illegal_step_json(files: Path) -> None:
    code, out, _ = run(files / "pos.yaml", files / "illegal.txt", "--json")
    assert code == 1
    data = json.loads(out)
    assert list(data) == KEYS
    assert data["legal"] is False and data["steps_applied"] == 1
    assert data["first_illegal"] == {"index": 1, "reason": "G N1 lands on L's cell"}
    assert data["goal_reached"] is False and data["points_spent"] == 0
    assert data["cards_played"] == 1 and data["missions_completed"] == 0
    # final is the table before the illegal step
    assert data["final"]["current"] == {"card": "c02", "points": 1}
    assert data["final"]["cells"]["G"] == [1, 1] and data["final"]["hand"] == ["c05"]


@pytest.mark.parametrize("plan, reason", [
    ("play c03\n", "step 0: play c03: illegal: card c03 is not in the hand"),
    ("G SW1\n", "step 0: G SW1: illegal: G SW1: no movement points; play a card first"),
    ("play c02+\n", "does not match c02's movement pattern"),
    ("play c02\nG SW1\nB N1\n", "step 2: B N1: illegal: the goal is already reached"),
])
def test_illegal_reasons(files: Path, plan: str, reason: str) -> None:
    (files / "p.txt").write_text(plan, encoding="utf-8")
    code, out, _ = run(files / "pos.yaml", files / "p.txt")
    assert code == 1 and reason in out


@pytest.mark.parametrize("name, content, message", [
    ("syntax.json", '[\n  {"act": "play", "card": "c02"},\n  {"act": \n]\n', "syntax.json:4: JSON syntax"),
    ("act.json", '[\n  {"act": "play", "card": "c02"},\n  {"act": "fly"}\n]\n',
     "act.json:3: action 1: 'act' is 'fly'"),
    ("words.txt", "play c02\nG sideways\n", "words.txt:2: 'G sideways': not an action"),
    ("object.json", '{"plan": "G SW1"}', "object.json:1: a plan is a JSON list"),
])
def test_bad_plan_file(files: Path, name: str, content: str, message: str) -> None:
    (files / name).write_text(content, encoding="utf-8")
    code, out, err = run(files / "pos.yaml", files / name)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_missing_files_and_bad_position(files: Path) -> None:
    code, _, err = run(files / "pos.yaml", files / "nope.json")
    assert code == 2 and "nope.json: no such file" in err
    code, _, err = run(files / "nope.yaml", files / "good.txt")
    assert code == 2 and "nope.yaml: no such file" in err
    (files / "bad.yaml").write_text(POSITION.replace("C G M", "C G M M"), encoding="utf-8")
    code, _, err = run(files / "bad.yaml", files / "good.txt")
    assert code == 2 and "bad.yaml:4: layout has module M twice" in err
    assert "Traceback" not in err


def test_library_replay_matches_the_command(files: Path) -> None:
    pos = load_position(files / "pos.yaml")
    plan = [Action.parse(t) for t in GOOD]
    r = verify_plan(pos, plan)
    assert r.to_json() == json.loads(run(files / "pos.yaml", files / "good.json", "--json")[1])
    assert replay(pos, []).to_json()["steps_applied"] == 0


def test_a_rejected_plan_is_a_typed_error(files: Path) -> None:
    """verify_plan raises PlanRejected, a SolverBug (and so an AssertionError), that says
    which step failed and why, or how a legal plan ended."""
    pos = load_position(files / "pos.yaml")
    plan = [Action.parse(t) for t in GOOD]
    with pytest.raises(PlanRejected, match="step 1 \\(G N1\\) is illegal") as illegal:
        verify_plan(pos, [plan[0], Action.parse("G N1")])
    assert (illegal.value.index, illegal.value.status) == (1, "playing")
    assert "lands on L's cell" in illegal.value.reason
    with pytest.raises(PlanRejected, match="ends with status playing") as short:
        verify_plan(pos, plan[:1])
    assert (short.value.index, short.value.status) == (None, "playing")
    assert isinstance(short.value, SolverBug) and isinstance(short.value, AssertionError)


def test_the_one_replay_loop(files: Path) -> None:
    """run_plan stops at the first illegal step (a step after the goal is one);
    states_along insists on a legal plan; replay is run_plan from the position."""
    pos = load_position(files / "pos.yaml")
    deck = Deck(pos.spec, pos.rules)
    start = state_from_position(deck, pos)
    plan = [Action.parse(t) for t in GOOD]
    states, bad = run_plan(deck, start, plan)
    assert bad is None and len(states) == 2 and states[-1].status == GOAL
    assert list(replay(pos, plan, deck).states) == states
    assert states_along(deck, start, plan) == [start, *states]
    states, bad = run_plan(deck, start, [*plan, plan[1]])
    assert len(states) == 2 and bad == (2, "the goal is already reached")
    with pytest.raises(IllegalAction, match="step 2: the goal is already reached"):
        states_along(deck, start, [*plan, plan[1]])


def test_real_subprocess(files: Path) -> None:
    rove = Path(sys.executable).with_name("rove")
    proc = subprocess.run([str(rove), "replay", "pos.yaml", "good.json", "--json"], cwd=files,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["final"]["cells"] == FINAL_CELLS
    proc = subprocess.run([str(rove), "replay", "pos.yaml", "illegal.txt"], cwd=files,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "lands on L's cell" in proc.stdout
    (files / "broken.json").write_text("[{]", encoding="utf-8")
    proc = subprocess.run([str(rove), "replay", "pos.yaml", "broken.json"], cwd=files,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("broken.json:1: JSON syntax") and "Traceback" not in proc.stderr
