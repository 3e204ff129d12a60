"""`rove solve` end to end (docs/FORMATS.md, "rove solve --json"): the JSON object, exit codes 0/1/2/3,
bad input without a traceback, the human-readable plan, and --optimal on a game."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import TRIO_SPEC
from typer.testing import CliRunner

from rove.actions import Action
from rove.cli import app
from rove.rules import OPTIONS

# Four modules that each move one cell N/E/S/W; see tests/test_search.py for the
# same puzzles with their optimum proved by hand.
QUAD_SPEC = """\
format: rove-spec/1
name: Quad
missions_to_win: 2
modules:
  - {id: a, code: A, name: A, ability: coil,   arrows: [{kind: short, dirs: [orthogonal]}]}
  - {id: b, code: B, name: B, ability: sensor, arrows: [{kind: short, dirs: [orthogonal]}]}
  - {id: c, code: C, name: C, ability: laser,  arrows: [{kind: short, dirs: [orthogonal]}]}
  - {id: d, code: D, name: D, ability: motor,  arrows: [{kind: short, dirs: [orthogonal]}]}
cards:
  - {id: row4, mission: {title: Row, pattern: "# # # #"}, movement: {points: 1, bonus: 2, pattern: "#\\n#\\n#\\n#"}}
  - {id: k3,   mission: {title: x, pattern: "#\\n#\\n#\\n#"}, movement: {points: 1, bonus: 2, pattern: "# # #"}}
  - {id: p4,   mission: {title: x, pattern: "#\\n#\\n#\\n#"}, movement: {points: 4, bonus: 5, pattern: "#\\n#\\n#\\n#"}}
"""

# Square to a row of four: 4 points at least (two modules change row, two end outside
# the square's columns).  Budget 2 plus k3's bonus 2 (a row of three after two moves).
BONUS_PUZZLE = """\
format: rove-position/1
spec: quad.yaml
goal: mission
layout: |
  A B
  C D
spent: [A, B, C, D]
mission: row4
hand: [k3]
current: {card: null, points: 2}
"""

# Budget 3 < 4 and nothing else: proven unsolvable.
SHORT_PUZZLE = """\
format: rove-position/1
spec: quad.yaml
goal: mission
layout: |
  A B
  C D
spent: [A, B, C, D]
mission: row4
current: {card: null, points: 3}
"""

# The mission already matches: solved with the empty plan.
MATCHED_PUZZLE = """\
format: rove-position/1
spec: quad.yaml
goal: mission
layout: |
  A B C D
spent: [A, B, C, D]
mission: row4
"""

# Standard spec: a puzzle that needs thousands of nodes.
HARD_PUZZLE = """\
format: rove-position/1
spec: classic
goal: mission
layout: |
  . . . C
  . . S
  M L B
  G
spent: [B, C, G, L, M]
mission: c08
hand: []
draw: [c09, c05, c02, c04, c12, c01]
discard: []
current: {card: null, points: 5}
"""

# A whole (tiny) game; with Brain and Laser spent the first win found spends more
# points than the cheapest one (2).
TRIO_GAME = """\
format: rove-position/1
spec: trio.yaml
goal: game
layout: |
  B M L
spent: [B, L]
mission: t3
hand: [t4, t2, t1]
"""

REQUIRED = {"status": str, "engine": str, "goal": str, "optimal": bool, "points": (int, type(None)),
            "cards": (int, type(None)), "plan": (list, type(None)), "seconds": (int, float),
            "rules": dict}


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for name, text in (("quad.yaml", QUAD_SPEC), ("trio.yaml", TRIO_SPEC),
                       ("bonus.yaml", BONUS_PUZZLE), ("short.yaml", SHORT_PUZZLE),
                       ("matched.yaml", MATCHED_PUZZLE), ("hard.yaml", HARD_PUZZLE),
                       ("game.yaml", TRIO_GAME)):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def solve_json(runner: CliRunner, *args: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["solve", *args, "--json"])
    assert "Traceback" not in result.output
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout  # one JSON object, nothing else on stdout
    data = json.loads(lines[0])
    check_contract(data)
    return result.exit_code, data


def check_contract(data: dict[str, Any]) -> None:
    """The keys of docs/FORMATS.md ("rove solve --json") with their types (extra keys are extensions)."""
    for key, typ in REQUIRED.items():
        assert key in data, f"missing {key!r} in {data}"
        assert isinstance(data[key], typ), (key, data[key])
    assert data["status"] in ("solved", "unsolvable", "unknown")
    assert data["engine"] == "search"
    assert data["goal"] in ("mission", "game")
    assert data["seconds"] >= 0
    assert set(data["rules"]) == set(OPTIONS)
    assert all(data["rules"][k] in OPTIONS[k] for k in OPTIONS)
    if data["status"] == "solved":
        assert isinstance(data["plan"], list) and isinstance(data["points"], int)
        assert isinstance(data["cards"], int)
        for step in data["plan"]:
            assert step["act"] in ("play", "move", "ability")
            Action.from_json(step)  # every step is a valid plan object
        moves = sum(s["act"] == "move" for s in data["plan"])
        plays = sum(s["act"] == "play" for s in data["plan"])
        assert (data["points"], data["cards"]) == (moves, plays)
    else:
        assert data["plan"] is None and data["points"] is None and data["cards"] is None
        assert data["optimal"] is False


def test_solved_json_and_exit_0(runner: CliRunner, files: Path) -> None:
    code, data = solve_json(runner, str(files / "bonus.yaml"))
    assert code == 0
    assert data["status"] == "solved" and data["goal"] == "mission" and data["optimal"] is True
    assert (data["points"], data["cards"]) == (4, 1)
    assert data["plan"][2] == {"act": "play", "card": "k3", "bonus": True}
    assert data["rules"] == {"auto_complete_on_reveal": True, "recycle": "on_demand",
                             "gripper_target": "active_or_spent"}


def test_solved_plan_replays_through_rove_replay(runner: CliRunner, files: Path) -> None:
    code, data = solve_json(runner, str(files / "bonus.yaml"))
    assert code == 0
    plan = files / "plan.json"
    plan.write_text(json.dumps(data["plan"]), encoding="utf-8")
    result = runner.invoke(app, ["replay", str(files / "bonus.yaml"), str(plan), "--json"])
    assert result.exit_code == 0, result.output
    rep = json.loads(result.stdout)
    assert rep["legal"] is True and rep["goal_reached"] is True
    assert (rep["points_spent"], rep["cards_played"], rep["missions_completed"]) == (4, 1, 1)


def test_rules_options_are_reported(runner: CliRunner, files: Path) -> None:
    text = BONUS_PUZZLE + "rules: {recycle: when_empty}\n"
    (files / "variant.yaml").write_text(text, encoding="utf-8")
    code, data = solve_json(runner, str(files / "variant.yaml"))
    assert code == 0
    assert data["rules"]["recycle"] == "when_empty"


def test_already_matched_is_the_empty_plan(runner: CliRunner, files: Path) -> None:
    code, data = solve_json(runner, str(files / "matched.yaml"))
    assert code == 0
    assert data["status"] == "solved" and data["plan"] == [] and data["points"] == 0


def test_unsolvable_exit_1(runner: CliRunner, files: Path) -> None:
    code, data = solve_json(runner, str(files / "short.yaml"))
    assert code == 1
    assert data["status"] == "unsolvable"


def test_time_limit_gives_unknown_exit_3(runner: CliRunner, files: Path) -> None:
    # --time-limit 0 is no time (and no node) at all: unknown on any machine
    code, data = solve_json(runner, str(files / "hard.yaml"), "--time-limit", "0")
    assert code == 3
    assert data["status"] == "unknown" and data["optimal"] is False


def test_human_output_shows_the_plan_in_notation(runner: CliRunner, files: Path) -> None:
    _, data = solve_json(runner, str(files / "bonus.yaml"))
    result = runner.invoke(app, ["solve", str(files / "bonus.yaml")])
    assert result.exit_code == 0
    out = result.stdout
    assert out.startswith("solved")
    steps = [str(Action.from_json(s)) for s in data["plan"]]
    assert "play k3+" in steps
    lines = out.splitlines()
    found = [line for line in lines if line.startswith("step ")]
    assert found == [f"step {i}: {s}" for i, s in enumerate(steps)]
    assert "4 point" in out and "1 card" in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


def test_human_output_for_unsolvable_and_unknown(runner: CliRunner, files: Path) -> None:
    result = runner.invoke(app, ["solve", str(files / "short.yaml")])
    assert result.exit_code == 1 and result.stdout.startswith("unsolvable")
    assert "step " not in result.stdout
    result = runner.invoke(app, ["solve", str(files / "hard.yaml"), "--time-limit", "0"])
    assert result.exit_code == 3 and result.stdout.startswith("unknown")


BAD_POSITIONS = {
    "yaml syntax": "format: rove-position/1\nspec: classic\nlayout: [unclosed\n",
    "unknown module": ("format: rove-position/1\nspec: classic\ngoal: mission\nlayout: |\n  B L S\n  C G X\n"
                       "mission: c01\n"),
    "missing spec file": "format: rove-position/1\nspec: nowhere.yaml\nlayout: |\n  A\nmission: c01\n",
    "bad goal": ("format: rove-position/1\nspec: classic\ngoal: everything\nlayout: |\n  B L S\n  C G M\n"
                 "mission: c01\n"),
    "card twice": ("format: rove-position/1\nspec: classic\ngoal: mission\nlayout: |\n  B L S\n  C G M\n"
                   "mission: c01\nhand: [c01]\n"),
}


@pytest.mark.parametrize("name", sorted(BAD_POSITIONS))
def test_bad_position_exit_2_without_traceback(runner: CliRunner, files: Path, name: str) -> None:
    bad = files / "bad.yaml"
    bad.write_text(BAD_POSITIONS[name], encoding="utf-8")
    for extra in ([], ["--json"]):
        result = runner.invoke(app, ["solve", str(bad), *extra])
        assert result.exit_code == 2, (name, result.output)
        assert result.stdout == ""
        assert result.stderr.startswith(f"{bad}"), result.stderr
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)


def test_missing_position_file_exit_2(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["solve", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "nope.yaml" in result.stderr and "Traceback" not in result.output


def test_game_optimal_is_no_worse(runner: CliRunner, files: Path) -> None:
    code, plain = solve_json(runner, str(files / "game.yaml"))
    assert code == 0 and plain["goal"] == "game" and plain["optimal"] is False
    code, best = solve_json(runner, str(files / "game.yaml"), "--optimal")
    assert code == 0 and best["optimal"] is True
    assert best["points"] <= plain["points"]
    assert best["points"] == 2  # the cheapest win (see tests/test_search.py)


def test_console_script_exit_codes(files: Path) -> None:
    script = Path(sys.executable).parent / "rove"
    exe = str(script) if script.exists() else shutil.which("rove")
    assert exe, "the rove console script is not installed"
    cases = [("bonus.yaml", [], 0), ("short.yaml", [], 1), ("hard.yaml", ["--time-limit", "0"], 3)]
    for name, extra, want in cases:
        proc = subprocess.run([exe, "solve", str(files / name), "--json", *extra],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == want, (name, proc.stdout, proc.stderr)
        assert json.loads(proc.stdout)["status"] == {0: "solved", 1: "unsolvable", 3: "unknown"}[want]
    (files / "bad.yaml").write_text(BAD_POSITIONS["unknown module"], encoding="utf-8")
    proc = subprocess.run([exe, "solve", str(files / "bad.yaml")], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr and proc.stderr.startswith(str(files / "bad.yaml"))


def test_time_limit_zero_is_unknown_at_once(tmp_path: Path) -> None:
    """--time-limit 0 means no time at all, not 'no limit'."""
    from rove.position import parse_position
    from rove.solve.search import solve

    text = """\
format: rove-position/1
spec: classic
goal: mission
layout: |
  B C G
  L M S
spent: [B, C, G, L, M, S]
mission: c12
current: {card: null, points: 8}
"""
    r = solve(parse_position(text, str(tmp_path / "p.yaml"), tmp_path), time_limit=0)
    assert r.status == "unknown" and r.exit_code == 3 and r.plan is None
