"""The `rove validate` and `rove deal` commands end to end (docs/FORMATS.md, "Commands")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLASSIC, rove_script
from typer.testing import CliRunner

from rove.cli import app
from rove.position import load_position, parse_position

PROBLEM_LINE = re.compile(r"^.+:\d+: \S.*$")

BAD_SPEC = """\
format: rove-spec/1
name: Bad
missions_to_win: 1
colour: red
modules:
  - {id: brain, code: B, name: Brain, ability: teleport, arrows: [{kind: standard, dirs: [N]}]}
cards:
  - id: c01
    mission: {title: One, pattern: "#"}
    movement: {points: 1, bonus: 2, pattern: "#"}
"""

TINY_SPEC = """\
format: rove-spec/1
name: Tiny
missions_to_win: 1
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: standard, dirs: [diagonal]}]}
  - {id: coil, code: C, name: Coil, ability: coil, arrows: [{kind: jump, dirs: [all]}]}
cards:
  - {id: k1, mission: {title: A, pattern: "B #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
  - {id: k2, mission: {title: B, pattern: "L #"}, movement: {points: 1, bonus: 2, pattern: "# #"}}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------- validate


def test_validate_the_bundled_spec(runner: CliRunner) -> None:
    result = runner.invoke(app, ["validate", str(CLASSIC)])
    assert result.exit_code == 0, result.output
    assert result.stdout == (f"{CLASSIC}: ok (spec 'Classic deck': 6 modules, 12 cards, "
                             "7 missions to win)\n")
    assert result.stderr == ""


def test_validate_a_bundled_spec_by_name(runner: CliRunner, tmp_path: Path, monkeypatch) -> None:
    """`rove validate standard` reads the bundled spec, as `rove check standard` does."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["validate", "standard"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "standard: ok (spec 'Standard deck': 6 modules, 12 cards, 7 missions to win)\n"
    result = runner.invoke(app, ["validate", "nonesuch"])
    assert result.exit_code == 2
    assert result.stderr == "nonesuch: no such file; give the path of a spec or position (YAML)\n"


def test_validate_a_dealt_position(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "deal.yaml"
    assert runner.invoke(app, ["deal", "--seed", "3", "-o", str(out)]).exit_code == 0
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{out}: ok (position, goal game, spec 'Standard deck')\n"


def test_validate_a_bad_spec(runner: CliRunner, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", BAD_SPEC)
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines == [f"{bad}:4: unknown key 'colour' in spec; allowed keys: cards, description, format, "
                     "include, missions_to_win, modules, name",
                     f"{bad}:6: unknown ability 'teleport'; use one of: brain, coil, gripper, laser, "
                     "motor, sensor"]
    assert "Traceback" not in result.output


def test_validate_several_files_reports_each(runner: CliRunner, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", BAD_SPEC)
    pos = write(tmp_path / "pos.yaml", "format: rove-position/1\nspec: classic\nlayout: B\nmission: c01\n")
    result = runner.invoke(app, ["validate", str(CLASSIC), str(bad), str(pos)])
    assert result.exit_code == 2
    assert result.stdout.startswith(f"{CLASSIC}: ok")
    errors = result.stderr.splitlines()
    assert all(PROBLEM_LINE.match(line) for line in errors), errors
    assert [line.split(":")[0] for line in errors] == [str(bad), str(bad), str(pos)]
    assert "layout lacks module(s)" in errors[2]


def test_validate_a_missing_file(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'nope.yaml'}: no such file; give the path of a spec or position (YAML)\n"
    result = runner.invoke(app, ["validate", str(tmp_path)])
    assert result.exit_code == 2 and "is a folder" in result.stderr


def test_validate_a_position_reads_its_spec_relative_to_its_folder(runner: CliRunner, tmp_path: Path,
                                                                   monkeypatch) -> None:
    write(tmp_path / "decks" / "tiny.yaml", TINY_SPEC)
    pos = write(tmp_path / "games" / "p.yaml", "format: rove-position/1\nspec: ../decks/tiny.yaml\n"
                                               "layout: B L C\nmission: k1\nhand: [k2]\n")
    monkeypatch.chdir(tmp_path / "decks")
    result = runner.invoke(app, ["validate", str(pos)])
    assert result.exit_code == 0, result.output
    assert "ok (position, goal game, spec 'Tiny')" in result.stdout


# --------------------------------------------------------------------------- deal


def test_deal_to_stdout_is_a_valid_position_and_repeatable(runner: CliRunner) -> None:
    first = runner.invoke(app, ["deal", "--seed", "11"])
    second = runner.invoke(app, ["deal", "--seed", "11"])
    other = runner.invoke(app, ["deal", "--seed", "12"])
    assert first.exit_code == second.exit_code == other.exit_code == 0
    assert first.stdout == second.stdout
    assert first.stdout != other.stdout
    assert first.stdout.startswith("format: rove-position/1\nspec: standard\ngoal: game\n")
    pos = parse_position(first.stdout, "<stdout>")
    assert len(pos.hand) == 5 and len(pos.draw) == 6 and len(pos.cells) == 6


@pytest.mark.parametrize(("difficulty", "size"), [("normal", 5), ("hard", 4), ("impossible", 3)])
def test_deal_difficulty(runner: CliRunner, difficulty: str, size: int) -> None:
    result = runner.invoke(app, ["deal", "--seed", "5", "--difficulty", difficulty])
    assert result.exit_code == 0, result.output
    pos = parse_position(result.stdout, "<stdout>")
    assert len(pos.hand) == size and len(pos.draw) == 11 - size


def test_deal_bad_difficulty(runner: CliRunner) -> None:
    result = runner.invoke(app, ["deal", "--seed", "5", "--difficulty", "easy"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "easy" in result.stderr


def test_deal_needs_a_seed(runner: CliRunner) -> None:
    result = runner.invoke(app, ["deal"])
    assert result.exit_code == 2 and "--seed" in result.stderr


def test_deal_to_a_file(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "new" / "deal.yaml"
    result = runner.invoke(app, ["deal", "--seed", "11", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert f"wrote {out}" in result.stderr
    assert out.read_text() == runner.invoke(app, ["deal", "--seed", "11"]).stdout
    pos = load_position(out)
    assert pos.spec_ref == "standard"
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    assert [p.name for p in out.parent.iterdir()] == ["deal.yaml"]  # no temporary file left


def test_deal_writes_the_spec_path_relative_to_the_output(runner: CliRunner, tmp_path: Path,
                                                          monkeypatch) -> None:
    write(tmp_path / "decks" / "tiny.yaml", TINY_SPEC)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["deal", "--seed", "2", "--spec", "decks/tiny.yaml",
                                 "-o", "other/dir/x.yaml"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "other" / "dir" / "x.yaml"
    assert "spec: ../../decks/tiny.yaml\n" in out.read_text()
    monkeypatch.chdir(tmp_path / "other")
    pos = load_position(out)
    assert pos.spec.name == "Tiny" and sorted(pos.cells) == ["B", "C", "L"]
    assert runner.invoke(app, ["validate", str(out)]).exit_code == 0
    # to stdout, the path is relative to the current directory
    monkeypatch.chdir(tmp_path)
    shown = runner.invoke(app, ["deal", "--seed", "2", "--spec", str(tmp_path / "decks" / "tiny.yaml")])
    assert "spec: decks/tiny.yaml\n" in shown.stdout


def test_deal_bundled_spec_by_name_stays_a_name(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "a" / "b.yaml"
    assert runner.invoke(app, ["deal", "--seed", "1", "--spec", "standard", "-o", str(out)]).exit_code == 0
    assert "\nspec: standard\n" in out.read_text()


def test_deal_with_a_bad_spec_writes_nothing(runner: CliRunner, tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", BAD_SPEC)
    out = tmp_path / "out" / "x.yaml"
    result = runner.invoke(app, ["deal", "--seed", "1", "--spec", str(bad), "-o", str(out)])
    assert result.exit_code == 2
    assert all(PROBLEM_LINE.match(line) for line in result.stderr.splitlines())
    assert not out.exists()
    result = runner.invoke(app, ["deal", "--seed", "1", "--spec", "nosuchdeck"])
    assert result.exit_code == 2 and "no bundled spec" in result.stderr and result.stdout == ""


def test_deal_with_a_spec_path_that_needs_quoting(runner: CliRunner, tmp_path: Path, monkeypatch) -> None:
    write(tmp_path / "decks" / "deck #2.yaml", TINY_SPEC)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["deal", "--seed", "2", "--spec", "decks/deck #2.yaml", "-o", "out/x.yaml"])
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["validate", "out/x.yaml"]).exit_code == 0


# --------------------------------------------------------------------------- help


def test_help_lists_the_commands(runner: CliRunner) -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in ("validate", "deal"):
        assert re.search(rf"\b{command}\b", result.stdout), command
    for command in ("validate", "deal"):
        sub = runner.invoke(app, [command, "--help"])
        assert sub.exit_code == 0 and "Usage" in sub.stdout
    assert "--difficulty" in runner.invoke(app, ["deal", "--help"]).stdout


# --------------------------------------------------------------------------- real processes


def test_console_script_exit_codes_and_no_traceback(tmp_path: Path) -> None:
    rove = rove_script()
    bad = write(tmp_path / "bad.yaml", BAD_SPEC)
    proc = subprocess.run([rove, "validate", str(bad)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{bad}:") for line in lines)
    assert all(PROBLEM_LINE.match(line) for line in lines)

    not_yaml = write(tmp_path / "broken.yaml", "format: rove-spec/1\nname: [x\n")
    proc = subprocess.run([rove, "validate", str(not_yaml), str(tmp_path / "missing.yaml")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{not_yaml}:") and "YAML syntax" in proc.stderr
    assert f"{tmp_path / 'missing.yaml'}: no such file" in proc.stderr

    proc = subprocess.run([rove, "validate", str(CLASSIC)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""

    # the same seed gives the same bytes in another process (no hash randomisation leaks in)
    proc = subprocess.run([rove, "deal", "--seed", "11"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout == CliRunner().invoke(app, ["deal", "--seed", "11"]).stdout


def test_cli_does_not_import_heavy_libraries() -> None:
    """Nor pydantic, which Typer 0.29 and later bring into every command that takes an
    argument (pyproject.toml keeps Typer below it)."""
    code = (
        "import sys\n"
        "import rove.cli\n"
        "from typer.testing import CliRunner\n"
        "r = CliRunner()\n"
        "assert r.invoke(rove.cli.app, ['validate', sys.argv[1]]).exit_code == 0\n"
        "assert r.invoke(rove.cli.app, ['deal', '--seed', '1']).exit_code == 0\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('ortools', 'reportlab', 'pydantic'))\n"
        "print(','.join(heavy))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(CLASSIC)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


@pytest.mark.parametrize("args", [["--help"], ["validate", str(CLASSIC)], ["validate", "--no-such-option"]])
def test_help_and_validate_load_no_rich(args: list[str]) -> None:
    """``rove --help`` needs the command line only: not PyYAML, the spec model or the
    engine; and neither it nor ``rove validate`` (nor a usage error) needs Rich, its
    Markdown parser or Pygments, which Typer's Rich help format imported for most of the
    start-up (bench/startup.py measures what that saves)."""
    code = (
        "import sys\n"
        "import rove.cli\n"
        f"sys.argv = ['rove', *{args!r}]\n"
        "try:\n"
        "    rove.cli.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('ortools', 'reportlab', 'rich', 'markdown_it', 'pygments')\n"
        "if sys.argv[1] == '--help':\n"
        "    heavy += ('yaml', 'rove.spec', 'rove.position', 'rove.engine')\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy)\n"
        "print('loaded: ' + ','.join(loaded), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "Usage" in proc.stdout + proc.stderr or ": ok" in proc.stdout, proc.stderr
    assert proc.stderr.splitlines()[-1] == "loaded: ", proc.stderr


def test_commands_annotations_are_objects() -> None:
    """Typer reads every command's parameters at every start; a string annotation (``from
    __future__ import annotations``) it evaluates twice a parameter, about 40 ms of each
    start, so rove.cli keeps its annotations as objects."""
    from rove.cli import generate_app

    commands = [c.callback for t in (app, generate_app) for c in t.registered_commands]
    assert len(commands) >= 10
    stringly = [f"{f.__name__}.{name}" for f in commands if f is not None
                for name, a in f.__annotations__.items() if isinstance(a, str)]
    assert not stringly
