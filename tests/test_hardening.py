"""Hostile input, faults and Ctrl-C (docs/LIMITS.md), end to end through the CLI.

House rules: bad input gets a clear message naming the file (and line) and the fix, exit
code 2, no traceback, nothing destroyed, nothing half-written; Ctrl-C stops with 130.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLASSIC, rove_script
from typer.testing import CliRunner

from rove.cli import app
from rove.executors import default_jobs


def refused(result, *words: str) -> None:
    """Exit 2, no traceback, and every word in the message."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    for w in words:
        assert w in result.stderr, (w, result.stderr)


def leftovers(folder: Path) -> list[str]:
    """Temporary files or folders an output left behind."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if ".tmp" in p.name)


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    s = tmp_path / "s.yaml"
    shutil.copy(CLASSIC, s)
    return s


@pytest.fixture
def position(tmp_path: Path, runner: CliRunner) -> Path:
    pos = tmp_path / "pos.yaml"
    assert runner.invoke(app, ["deal", "--seed", "1", "-o", str(pos)]).exit_code == 0
    return pos


# --------------------------------------------------------------------------- output paths


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("device", ["/dev/full", "/dev/null"])
def test_deal_refuses_to_replace_a_device(runner: CliRunner, device: str) -> None:
    before = os.stat(device)
    result = runner.invoke(app, ["deal", "--seed", "1", "-o", device])
    refused(result, device, "character device", "regular files")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_outputs_refuse_a_fifo_and_a_folder(runner: CliRunner, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(runner.invoke(app, ["deal", "--seed", "1", "-o", str(fifo)]), "pipe", "give a file name")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    folder = tmp_path / "d"
    folder.mkdir()
    refused(runner.invoke(app, ["deal", "--seed", "1", "-o", str(folder)]), str(folder), "folder")
    refused(runner.invoke(app, ["cards", "-o", str(folder)]), str(folder), "folder")
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("args", [
    ["cards", "{s}", "-o", "{s}"],
    ["deal", "--seed", "1", "--spec", "{s}", "-o", "{s}"],
    ["book", "--spec", "{s}", "-o", "{s}"],
    ["check", "{s}", "--report", "{s}"],
    ["generate", "missions", "--spec", "{s}", "-o", "{s}"],
    ["cards", "{s}", "-o", "{link}"],  # the same file under another name
    ["deal", "--seed", "1", "--spec", "{s}", "-o", "{hard}"],
])
def test_an_output_that_is_an_input_is_refused_before_anything_is_written(
        runner: CliRunner, tmp_path: Path, spec_copy: Path, args: list[str]) -> None:
    (tmp_path / "link.yaml").symlink_to(spec_copy)
    os.link(spec_copy, tmp_path / "hard.yaml")
    before = spec_copy.read_bytes()
    args = [a.format(s=spec_copy, link=tmp_path / "link.yaml", hard=tmp_path / "hard.yaml") for a in args]
    result = runner.invoke(app, args)
    refused(result, "input file", "give another file name")
    assert spec_copy.read_bytes() == before and (tmp_path / "link.yaml").is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.yaml", "link.yaml", "s.yaml"]


def test_book_pdf_and_export_dir_on_the_same_path(runner: CliRunner, tmp_path: Path) -> None:
    x = tmp_path / "x.pdf"
    refused(runner.invoke(app, ["book", "-o", str(x), "--export-dir", str(x)]), "same path")
    assert not x.exists()


def test_png_dir_naming_a_file_is_refused_before_the_pdf(runner: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("keep me")
    out = tmp_path / "c.pdf"
    refused(runner.invoke(app, ["cards", "-o", str(out), "--png-dir", str(f)]), "--png-dir", "not a folder")
    assert not out.exists() and f.read_text() == "keep me"


def test_an_output_under_a_file_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("keep me")
    refused(runner.invoke(app, ["deal", "--seed", "1", "-o", str(f / "x" / "p.yaml")]),
            "is a file, not a folder")
    refused(runner.invoke(app, ["book", "-o", str(tmp_path / "b.pdf"), "--export-dir", str(f / "ex")]),
            "is a file, not a folder")
    assert f.read_text() == "keep me" and not (tmp_path / "b.pdf").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_folder_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        refused(runner.invoke(app, ["deal", "--seed", "1", "-o", str(ro / "p.yaml")]), "permission denied")
    finally:
        ro.chmod(0o700)


def test_a_symlink_to_a_file_is_followed_and_kept(runner: CliRunner, tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    assert runner.invoke(app, ["deal", "--seed", "1", "-o", str(link)]).exit_code == 0
    assert link.is_symlink() and real.read_text().startswith("format: rove-position/1")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    from rove import outputs
    from rove.errors import InputError

    out = tmp_path / "o.txt"
    out.write_text("old")

    def full(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "write", full)
    with pytest.raises(InputError, match="No space left on device"):
        outputs.write_output(out, "new")
    monkeypatch.undo()
    assert out.read_text() == "old" and leftovers(tmp_path) == []


@pytest.fixture
def ctrl_c_reaches_python() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt in this process, as in a terminal, even when the
    tests were started with SIGINT ignored (a shell does that to a job it puts in the
    background, and Python then keeps ignoring it)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _sigint_default() -> None:
    """For a child process: SIGINT back to its default before the program starts, so
    that Python installs its KeyboardInterrupt handler whatever the tests inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# ``rove`` itself, with a hook that writes one line, "ready", to stderr once the work is
# under way, so that a test interrupts it then and not after a guess of how long start-up
# takes: "check" when the first deal starts, "cpsat" from inside CP-SAT's first search
# (its first log line: the search is running, so stopping it is possible).
_LAUNCH_WITH_READY_LINE = """
import sys

hook, sys.argv = sys.argv[1], ["rove", *sys.argv[2:]]
said = []


def ready(*_):
    if not said:
        said.append(True)
        print("ready", file=sys.stderr, flush=True)


if hook in ("check", "expert"):  # the first deal a thoughtful (or expert) task plays
    import rove.check.run as where

    name = "_deal_task" if hook == "check" else "_expert_task"
    inner = getattr(where, name)

    def hooked(*args, **kw):
        ready()
        return inner(*args, **kw)

    setattr(where, name, hooked)
elif hook == "cpsat":  # once CP-SAT logs: its search is under way
    import rove.solve.cpsat as where

    inner = where.solve_interruptibly

    def hooked(solver, model):
        solver.parameters.log_search_progress = True
        solver.parameters.log_to_stdout = False
        solver.log_callback = ready
        return inner(solver, model)

    where.solve_interruptibly = hooked
else:  # "cpsat-start": a Ctrl-C of its own inside Thread.start, once CP-SAT's thread runs
    import os
    import signal
    import threading
    import time

    real_start = threading.Thread.start

    def start(self):
        real_start(self)
        if self.name == "cp-sat":
            ready()
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)
            for _ in range(10000):  # bytecodes, at which a pending handler runs, still in here
                pass

    threading.Thread.start = start

from rove.cli import main

main()
"""


def _ctrl_c_when_ready(hook: str, args: list[str], timeout: float,
                       ) -> tuple[subprocess.Popen[str], str, str]:
    """Run ``rove ARGS`` as a terminal runs a job (its own process group, Ctrl-C
    deliverable), send the group a SIGINT once it says "ready" (``_LAUNCH_WITH_READY_LINE``,
    ``hook`` "check", "expert", "cpsat" or "cpsat-start"), and wait for the end: (process, stdout, stderr without
    the ready line)."""
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH_WITH_READY_LINE, hook, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_sigint_default)
    assert proc.stderr is not None
    seen = b""  # read unbuffered, so that communicate() below gets every later byte
    while not seen.endswith(b"ready\n"):
        byte = os.read(proc.stderr.fileno(), 1)
        if not byte:
            out, err = proc.communicate(timeout=timeout)
            raise AssertionError(f"ended (exit {proc.returncode}) before it was ready: {seen.decode()}{err}")
        seen += byte
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=timeout)
    return proc, out, seen.decode().removesuffix("ready\n") + err


def test_ctrl_c_is_held_off_while_outputs_go_into_place(tmp_path: Path, ctrl_c_reaches_python: None) -> None:
    from rove.outputs import Outputs

    with pytest.raises(KeyboardInterrupt):
        with Outputs() as out:
            out.file(tmp_path / "a.txt", "a")
            (out.folder(tmp_path / "ex") / "b.txt").write_text("b")
            real_replace = os.replace

            def replace_then_ctrl_c(src: object, dst: object) -> None:
                real_replace(src, dst)  # type: ignore[arg-type]
                os.kill(os.getpid(), signal.SIGINT)  # in the middle of the renames

            os.replace = replace_then_ctrl_c  # type: ignore[assignment]
            try:
                out.commit()
            finally:
                os.replace = real_replace
    # every output went into place before the interrupt was let through
    assert (tmp_path / "a.txt").read_text() == "a" and (tmp_path / "ex" / "b.txt").read_text() == "b"
    assert leftovers(tmp_path) == []


# --------------------------------------------------------------------------- book export folder


def test_book_writes_the_pdf_and_the_export_folder(runner: CliRunner, tmp_path: Path, fake_book) -> None:
    ex = tmp_path / "ex"
    ex.mkdir()
    (ex / "mine.txt").write_text("keep")
    result = runner.invoke(app, ["book", "--spec", "classic",
                                 "--count", "1", "-o", str(ex / "book.pdf"), "--export-dir", str(ex)])
    assert result.exit_code == 0, result.output
    assert (ex / "book.pdf").read_bytes() == b"%PDF-fake" and (ex / "mine.txt").read_text() == "keep"
    assert all((ex / name).read_text() == text for name, text in fake_book.items())
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("existing", [False, True])
def test_ctrl_c_while_exporting_leaves_no_partial_book(runner: CliRunner, tmp_path: Path, fake_book,
                                                       monkeypatch, existing: bool) -> None:
    ex = tmp_path / "ex"
    if existing:
        ex.mkdir()
        (ex / "mine.txt").write_text("keep")
    calls = []
    real_write_text = Path.write_text

    def write_text(self: Path, *a, **k):  # Ctrl-C after the first exported file
        calls.append(self)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real_write_text(self, *a, **k)

    monkeypatch.setattr(Path, "write_text", write_text)
    result = runner.invoke(app, ["book", "--spec", "classic",
                                 "--count", "1", "-o", str(tmp_path / "b.pdf"), "--export-dir", str(ex)])
    monkeypatch.undo()
    assert result.exit_code == 130, result.output
    assert "interrupted" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "b.pdf").exists() and leftovers(tmp_path) == []
    if existing:
        assert sorted(p.name for p in ex.iterdir()) == ["mine.txt"]
    else:
        assert not ex.exists()


def test_mix_error_names_the_default_mix(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(app, ["book", "--mix", "dragons:100", "-o", str(tmp_path / "b.pdf")])
    refused(result, "dragons", "mission:55,hand:20,deal:15,campaign:10")
    assert "{DEFAULT_MIX}" not in result.output


# --------------------------------------------------------------------------- stdout


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["validate", "standard"], ["deal", "--seed", "1"]])
def test_stdout_on_a_full_disk(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([rove_script(), *args], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr


def test_stdout_closed_by_its_reader() -> None:
    proc = subprocess.Popen([rove_script(), "validate", "standard"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `rove validate standard | head -0` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err


# --------------------------------------------------------------------------- YAML and JSON input

BOMB = "".join(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10))


@pytest.mark.parametrize("field, kind", [("format", "spec"), ("include", "spec"), ("goal", "position")])
def test_an_alias_bomb_is_refused_at_once(runner: CliRunner, tmp_path: Path, field: str, kind: str) -> None:
    head = "format: rove-position/1\nspec: classic\n" if kind == "position" else ""
    text = head + "a0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + BOMB + f"{field}: *a9\n"
    assert len(text.encode()) < 600
    f = tmp_path / "bomb.yaml"
    f.write_text(text)
    result = runner.invoke(app, ["validate", str(f)])
    refused(result, f"{f}:", "1,000 alias uses")  # the loader's limit, not the expansion, ended it


def test_aliases_within_the_limits_still_work(runner: CliRunner, tmp_path: Path) -> None:
    text = CLASSIC.read_text()
    ortho = "arrows: [{kind: standard, dirs: [orthogonal]}]"
    assert text.count(ortho) >= 2
    text = text.replace(ortho, "arrows: &ortho [{kind: standard, dirs: [orthogonal]}]", 1)
    text = text.replace(ortho, "arrows: *ortho")
    f = tmp_path / "s.yaml"
    f.write_text(text)
    result = runner.invoke(app, ["validate", str(f)])
    assert result.exit_code == 0, result.output


def test_a_long_value_is_cut_in_the_message(runner: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("format: &big [" + ", ".join(["xxxxxxxxxx"] * 5000) + "]\nname: [*big, *big, *big]\n"
                 "description: " + "y" * 100_000 + "\nmissions_to_win: " + "z" * 100_000 + "\n")
    result = runner.invoke(app, ["validate", str(f)])
    refused(result, f"{f}:1: format is ['xxxxxxxxxx'")
    assert max(len(line) for line in result.stderr.splitlines()) < 800


def test_a_value_yaml_cannot_build_is_an_error_at_its_line(runner: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("format: rove-spec/1\nmissions_to_win: " + "9" * 5000 + "\nname: 2001-13-45\n")
    refused(runner.invoke(app, ["validate", str(f)]), f"{f}:2:", "cannot be read")
    f.write_text("format: rove-spec/1\nname: 2001-13-45\n")
    refused(runner.invoke(app, ["validate", str(f)]), f"{f}:2:", "month must be in 1..12")


def test_a_value_that_contains_itself_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text("format: &a [1, *a]\n")
    refused(runner.invoke(app, ["validate", str(f)]), f"{f}:1:", "cannot contain itself")


@pytest.mark.parametrize("style", ["flow", "block"])
def test_deep_yaml_is_refused(runner: CliRunner, tmp_path: Path, style: str) -> None:
    f = tmp_path / "deep.yaml"
    if style == "flow":
        f.write_text("format: " + "[" * 1000 + "]" * 1000 + "\n")
    else:
        f.write_text("".join(" " * i + "- \n" for i in range(70)).replace("- \n", "-\n"))
    assert f.stat().st_size < 5000
    refused(runner.invoke(app, ["validate", str(f)]), str(f), "nested more than 64 levels")


def test_deep_json_plan_is_refused(runner: CliRunner, tmp_path: Path, position: Path) -> None:
    for depth in (1000, 65):
        plan = tmp_path / "deep.json"
        plan.write_text("[" * depth + "]" * depth)
        refused(runner.invoke(app, ["replay", str(position), str(plan)]), f"{plan}:1:", "64 levels")


def test_a_json_plan_with_a_byte_order_mark(runner: CliRunner, tmp_path: Path, position: Path) -> None:
    plan = tmp_path / "bom.json"
    plan.write_bytes(b"\xef\xbb\xbf" + b'[{"act": "move", "module": "B", "dir": "N", "dist": 9}]')
    result = runner.invoke(app, ["replay", str(position), str(plan)])
    assert result.exit_code == 1 and "illegal" in result.stdout, result.output  # parsed as JSON


def test_a_huge_plan_is_refused_before_it_is_read(runner: CliRunner, tmp_path: Path, position: Path) -> None:
    plan = tmp_path / "huge.json"
    with open(plan, "wb") as f:
        f.truncate(70 * 1024 * 1024)  # sparse: no disk used
    # the size the message gives comes from the file's metadata: nothing was read
    refused(runner.invoke(app, ["replay", str(position), str(plan)]), str(plan), "70 MB", "5 MB limit")


def test_a_big_spec_and_a_device_are_refused(runner: CliRunner, tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * (5 * 1024 * 1024) + "\n")
    refused(runner.invoke(app, ["validate", str(big)]), str(big), "5 MB limit")
    if Path("/dev/zero").exists():
        # refused by its file type: reading it would never end
        refused(runner.invoke(app, ["validate", "/dev/zero"]), "/dev/zero", "character device")
        refused(runner.invoke(app, ["deal", "--seed", "1", "--spec", "/dev/zero"]), "/dev/zero")


def test_a_symlink_loop_is_a_clean_message(runner: CliRunner, tmp_path: Path) -> None:
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    top = tmp_path / "top.yaml"
    top.write_text(CLASSIC.read_text() + "include: loop.yaml\n")
    refused(runner.invoke(app, ["validate", str(top)]), f"{top}:", "loop of symbolic links")
    refused(runner.invoke(app, ["validate", str(loop)]), str(loop), "symbolic links")
    refused(runner.invoke(app, ["deal", "--seed", "1", "--spec", str(loop), "-o", str(loop)]), str(loop))


def test_too_many_includes(runner: CliRunner, tmp_path: Path) -> None:
    for i in range(101):  # a file may be included once: 101 different ones
        (tmp_path / f"empty{i}.yaml").write_text("format: rove-spec/1\n")
    top = tmp_path / "top.yaml"
    top.write_text(CLASSIC.read_text() + "include: [" + ", ".join(f"empty{i}.yaml" for i in range(101)) + "]\n")
    refused(runner.invoke(app, ["validate", str(top)]), f"{top}:", "more than 100 includes")


# --------------------------------------------------------------------------- limits


def test_budget_limit(runner: CliRunner, tmp_path: Path, position: Path) -> None:
    text = position.read_text()
    for points, ok in ((1000, True), (1001, False), (10 ** 30, False)):
        f = tmp_path / f"p{ok}.yaml"
        f.write_text(text.replace("current: null", f"current: {{card: null, points: {points}}}")
                     if "current: null" in text else text + f"current: {{card: null, points: {points}}}\n")
        result = runner.invoke(app, ["validate", str(f)])
        if ok:
            assert result.exit_code == 0, result.output
        else:
            refused(result, f"{f}:", "<= 1000")


def test_option_limits(runner: CliRunner, tmp_path: Path) -> None:
    refused(runner.invoke(app, ["check", "standard", "--deals", "100001"]), "--deals")
    refused(runner.invoke(app, ["check", "standard", "--jobs", str(default_jobs() + 1)]), "--jobs", "core")
    refused(runner.invoke(app, ["book", "--spec", "classic",
                                "--count", "1001", "-o", str(tmp_path / "b.pdf")]), "--count")
    refused(runner.invoke(app, ["generate", "missions", "--count", "25"]), "--count")
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- Ctrl-C


def test_ctrl_c_in_a_command_exits_130(runner: CliRunner, monkeypatch) -> None:
    import rove.generators.deals

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(rove.generators.deals, "deal", interrupted)
    result = runner.invoke(app, ["deal", "--seed", "1"])
    assert result.exit_code == 130 and "interrupted" in result.stderr
    assert "Traceback" not in result.output


def test_ctrl_c_on_a_running_check(tmp_path: Path) -> None:
    """A real SIGINT to the process group (what the terminal sends) mid-run."""
    proc, _, err = _ctrl_c_when_ready("check", ["check", "standard", "--deals", "100000", "--jobs", "1",
                                     "--starts", "0", "--player", "thoughtful",
                                     "--report", str(tmp_path / "r.pdf")], timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "before any deal was finished; no figures" in err
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_prints_the_figures_so_far(tmp_path: Path) -> None:
    """A SIGINT once the expert's games are done and the thoughtful player's first search
    runs: the figures of the finished work are printed, marked partial (the deal not yet
    decided counts as unknown), the run exits 130 and writes no report.  (Deal 0 of the
    standard deck at hard is won by the expert, deal 1 lost, so deal 1 is searched.)"""
    proc, out, err = _ctrl_c_when_ready("check", ["check", "standard", "--deals", "2", "--difficulty", "hard",
                                                  "--jobs", "1", "--starts", "0",
                                                  "--report", str(tmp_path / "r.pdf")], timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "the figures above are partial" in err
    shown = " ".join(out.split())
    assert "PARTIAL: interrupted; the figures cover 2 expert game(s) and 2 thoughtful deal(s) of the 2 planned" in shown
    assert "1 by the expert's own win" in shown
    # the deal cut off was not played to any limit: never "limit reached"
    assert "limit reached" not in shown and "1 deal(s) not played" in shown
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("when", ["cpsat", "cpsat-start"])
def test_ctrl_c_stops_a_cp_sat_solve(tmp_path: Path, when: str) -> None:
    """A SIGINT while CP-SAT works on a puzzle it needs about a minute for, or one inside
    ``Thread.start`` as its thread begins (then a second from the test): the search is
    stopped and the command exits 130 cleanly.  (CP-SAT runs in a worker thread that the
    main thread waits for.  The process aborts at exit with 'terminate called without an
    active exception' if it ends while that thread runs: after an interrupted
    Thread.join, which can mark a live thread stopped, after a KeyboardInterrupt raised
    from inside Thread.start, or after a stop asked before the solve has begun, which
    CP-SAT drops.)"""
    from test_search import HARD  # a puzzle CP-SAT needs about a minute for

    path = tmp_path / "puzzle.yaml"
    path.write_text(HARD, encoding="utf-8")
    proc, out, err = _ctrl_c_when_ready(when, ["solve", str(path), "--engine", "cpsat"], timeout=300)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "terminate called" not in err and "interrupted" in err
    assert "solved" not in out


def test_spec_card_count_and_plan_length_limits(tmp_path: Path) -> None:
    from rove.actions import MAX_PLAN_ACTIONS, load_plan
    from rove.errors import InputError
    from rove.spec import MAX_CARDS, load_spec

    card = "  - {id: k%d, mission: {title: T, pattern: '#'}, movement: {points: 1, bonus: 2, pattern: '#'}}"
    text = ("format: rove-spec/1\nname: Big\nmodules:\n"
            "  - {id: a, code: A, name: A, ability: sensor, arrows: [{kind: short, dirs: [E]}]}\ncards:\n"
            + "\n".join(card % i for i in range(MAX_CARDS + 1)) + "\n")
    (tmp_path / "big.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="MAX_CARDS"):
        load_spec(tmp_path / "big.yaml")
    plan = tmp_path / "long.json"
    plan.write_text("[" + ",".join(['{"act": "ability", "module": "S"}'] * (MAX_PLAN_ACTIONS + 1)) + "]")
    with pytest.raises(InputError, match="MAX_PLAN_ACTIONS"):
        load_plan(plan)
    notation = tmp_path / "long.txt"
    notation.write_text("S draw\n" * (MAX_PLAN_ACTIONS + 1))
    with pytest.raises(InputError, match="MAX_PLAN_ACTIONS"):
        load_plan(notation)
