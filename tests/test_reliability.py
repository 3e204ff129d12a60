"""Reliability, second round (docs/LIMITS.md, "What is guaranteed"): no user file
destroyed, no output lost silently, concurrent runs never mixed, every signal ending
cleanly, bounded work on huge valid input, no traceback on valid or nearly valid input,
pipes read once, messages at the right line, work bounded and kept.

Each test names a class of failure and tries it on every command it applies to.  Tests
that send a signal or race two runs wait for a READY line the command prints at a known
point (a hook run in its process), never for a fixed time; a timeout only stops a hung
test.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import CLASSIC, classic_data, rove_script
from test_hardening import leftovers, refused
from typer.testing import CliRunner

from rove.cli import app
from rove.executors import default_jobs
from rove.outputs import MANIFEST

# --------------------------------------------------------------------------- no user file destroyed


@pytest.fixture
def nested(tmp_path: Path) -> tuple[Path, Path, Path]:
    """top.yaml includes mid/mid.yaml, which includes ../leaf.yaml: (top, mid, leaf)."""
    data = classic_data()
    cards = data.pop("cards")
    modules = data.pop("modules")
    (tmp_path / "mid").mkdir()
    top, mid, leaf = tmp_path / "top.yaml", tmp_path / "mid" / "mid.yaml", tmp_path / "leaf.yaml"
    leaf.write_text(yaml.safe_dump({"format": data["format"], "modules": modules}), encoding="utf-8")
    mid.write_text(yaml.safe_dump({"format": data["format"], "include": "../leaf.yaml",
                                   "cards": cards[:3]}), encoding="utf-8")
    top.write_text(yaml.safe_dump({"format": data["format"], "name": "Top", "include": ["mid/mid.yaml"],
                                   "cards": cards[3:]}), encoding="utf-8")
    return top, mid, leaf


@pytest.mark.parametrize("target", ["mid", "leaf"])
@pytest.mark.parametrize("args", [
    ["cards", "{top}", "-o", "{out}"],
    ["cards", "{top}", "-o", "{out}", "--png-dir", "{tmp}/png"],
    ["deal", "--seed", "1", "--spec", "{top}", "-o", "{out}"],
    ["check", "{top}", "--report", "{out}"],
    ["book", "--spec", "{top}", "-o", "{out}"],
    ["generate", "missions", "--spec", "{top}", "-o", "{out}"],
])
def test_an_output_naming_an_included_spec_is_refused(runner: CliRunner, tmp_path: Path, nested,
                                                      args: list[str], target: str) -> None:
    top, mid, leaf = nested
    out = mid if target == "mid" else leaf
    before = {p: p.read_bytes() for p in nested}
    result = runner.invoke(app, [a.format(top=top, out=out, tmp=tmp_path) for a in args])
    refused(result, "input file", "give another file name")
    assert {p: p.read_bytes() for p in nested} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaf.yaml", "mid", "top.yaml"]


def test_an_included_spec_in_an_export_dir_is_never_replaced(runner: CliRunner, tmp_path: Path,
                                                             nested, fake_book) -> None:
    top, mid, _ = nested
    ex = tmp_path / "mid"  # the folder of the included spec
    (ex / MANIFEST).write_text("mid.yaml\n")  # as if an export had written it: still refused
    before = mid.read_bytes()
    refused(runner.invoke(app, ["book", "--spec", str(top), "-o", str(tmp_path / "b.pdf"),
                                "--export-dir", str(ex), "--force"]), "input file")
    assert mid.read_bytes() == before and not (tmp_path / "b.pdf").exists()


@pytest.mark.parametrize("args", [
    ["deal", "--seed", "1", "-o", "{d}/"], ["deal", "--seed", "1", "-o", "{d}/."],
    ["cards", "-o", "{d}/"], ["book", "-o", "{d}/"], ["check", "standard", "--report", "{d}/"],
    ["generate", "missions", "-o", "{d}/"],
])
def test_a_file_option_ending_in_a_slash_names_a_folder(runner: CliRunner, tmp_path: Path,
                                                        args: list[str]) -> None:
    result = runner.invoke(app, [a.format(d=tmp_path / "new") for a in args])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.replace("│", " ").split())  # the message as one line, unboxed
    assert "names a folder, not a file" in text and "Traceback" not in text
    assert list(tmp_path.iterdir()) == []


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _book(runner: CliRunner, ex: Path, *more: str):
    return runner.invoke(app, ["book", "--spec", "classic",
                               "--count", "1", "-o", str(ex / "book.pdf"), "--export-dir", str(ex),
                               *more])


def test_an_export_lists_what_it_wrote(runner: CliRunner, tmp_path: Path, fake_book) -> None:
    ex = tmp_path / "ex"
    ex.mkdir()
    (ex / "notes.txt").write_text("mine")  # an export may go into a folder holding other files
    assert _book(runner, ex).exit_code == 0
    listed = (ex / MANIFEST).read_text().splitlines()
    assert listed[0].startswith("#")
    assert listed[1:] == sorted([*fake_book, "book.pdf"])  # the PDF too: the export wrote it
    assert (ex / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("foreign", ["notes.txt", "photo.jpg", "specs/other.yaml", "empty/", ".hidden",
                                     "a-link"])
def test_force_refuses_an_export_dir_holding_anything_else(runner: CliRunner, tmp_path: Path, fake_book,
                                                           foreign: str) -> None:
    ex = tmp_path / "ex"
    assert _book(runner, ex).exit_code == 0
    if foreign.endswith("/"):
        (ex / foreign).mkdir()
    elif foreign == "a-link":
        (ex / foreign).symlink_to(tmp_path)  # a link to a folder counts as an entry, never followed
    else:
        (ex / foreign).write_text("keep me")
    before = _tree(ex)
    result = _book(runner, ex, "--force")
    refused(result, "did not write", foreign.rstrip("/"), "--force replaces only")
    assert _tree(ex) == before and (ex / foreign.rstrip("/")).exists()


def test_force_replaces_an_export_that_holds_only_its_own_files(runner: CliRunner, tmp_path: Path,
                                                                fake_book, monkeypatch) -> None:
    ex = tmp_path / "ex"
    assert _book(runner, ex).exit_code == 0
    refused(_book(runner, ex), "already holds files of an earlier export", "--force")  # not without it
    fake_book.pop("01-mission.plan.json")
    fake_book["02-hand.yaml"] = "h\n"
    result = _book(runner, ex, "--force")
    assert result.exit_code == 0, result.output
    assert sorted(_tree(ex)) == sorted([MANIFEST, "book.pdf", *fake_book])  # the old plan went
    assert leftovers(tmp_path) == []


def test_force_refuses_export_files_no_export_recorded(runner: CliRunner, tmp_path: Path, fake_book) -> None:
    """Files that look like an export but no manifest lists (an older rove, or the user's
    own): --force cannot know they are rove's, so it refuses rather than delete them."""
    ex = tmp_path / "ex"
    ex.mkdir()
    (ex / "deck.yaml").write_text("mine")
    refused(_book(runner, ex, "--force"), "no rove export recorded", "deck.yaml")
    assert _tree(ex) == {"deck.yaml": b"mine"}


def test_png_dir_refuses_to_replace_previews_without_force(runner: CliRunner, tmp_path: Path) -> None:
    png = tmp_path / "png"
    png.mkdir()
    (png / "module-brain-active.png").write_bytes(b"my own drawing")
    (png / "notes.txt").write_text("keep")
    result = runner.invoke(app, ["cards", "-o", str(tmp_path / "c.pdf"), "--png-dir", str(png)])
    refused(result, "already holds 1 preview", "module-brain-active.png", "--force")
    assert (png / "module-brain-active.png").read_bytes() == b"my own drawing"
    assert not (tmp_path / "c.pdf").exists()
    result = runner.invoke(app, ["cards", "-o", str(tmp_path / "c.pdf"), "--png-dir", str(png), "--force"])
    assert result.exit_code == 0, result.output
    assert (png / "module-brain-active.png").read_bytes().startswith(b"\x89PNG")
    assert (png / "notes.txt").read_text() == "keep" and leftovers(tmp_path) == []


def test_the_bundled_spec_lists_itself_as_its_only_source() -> None:
    from rove.spec import load_spec

    assert load_spec("classic").sources == (CLASSIC,)
    assert os.path.samefile(load_spec(CLASSIC).sources[0], CLASSIC)


# --------------------------------------------------------------------------- no traceback on nearly valid input

TWO_MODULES = """\
format: rove-spec/1
name: Two
missions_to_win: 1
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}]}
cards:
  - {id: c1, mission: {title: T, pattern: 'B M'}, movement: {points: 1, bonus: 2, pattern: '#'}}
"""


@pytest.mark.parametrize("layout", ['""', '" "', '"."', "|\n  .\n"])
def test_an_empty_layout_is_refused_by_every_command(runner: CliRunner, tmp_path: Path, layout: str) -> None:
    pos = tmp_path / "pos.yaml"
    assert runner.invoke(app, ["deal", "--seed", "1", "-o", str(pos)]).exit_code == 0
    text = pos.read_text()
    start = text.index("layout: |")
    end = text.index("\n", text.index("\n", text.index("\n", start) + 1) + 1)  # the two rows
    pos.write_text(text[:start] + "layout: " + layout + text[end:])
    plan = tmp_path / "plan.txt"
    plan.write_text("B draw\n")
    for args in (["validate", str(pos)], ["solve", str(pos)], ["replay", str(pos), str(plan)]):
        refused(runner.invoke(app, args), "layout lacks module(s) B L S C G M")


@pytest.mark.parametrize("field, value", [("id", "brain"), ("code", "B")])
def test_a_module_id_or_code_with_a_final_line_break_is_refused(runner: CliRunner, tmp_path: Path,
                                                                field: str, value: str) -> None:
    text = CLASSIC.read_text().replace(f"  - {field}: {value}\n" if field == "id" else f"    code: {value}\n",
                                        f"  - {field}: \"{value}\\n\"\n" if field == "id"
                                        else f"    code: \"{value}\\n\"\n", 1)
    assert text != CLASSIC.read_text()
    (tmp_path / "s.yaml").write_text(text)
    refused(runner.invoke(app, ["validate", str(tmp_path / "s.yaml")]), f"{value}\\n")


def test_a_card_id_with_a_final_line_break_is_refused(runner: CliRunner, tmp_path: Path) -> None:
    data = classic_data()
    data["cards"][0]["id"] = "c01\n"
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(data))
    refused(runner.invoke(app, ["validate", str(tmp_path / "s.yaml")]), "c01\\n")


def test_book_on_tiny_decks(runner: CliRunner, tmp_path: Path) -> None:
    """One module: no puzzle kind can use it (exit 1, said so); two modules and one card
    at --count 20: deals that are won before any move are no puzzles (they crashed the
    solution's drawing), the rest make a book."""
    one = tmp_path / "one.yaml"
    one.write_text(TWO_MODULES.replace(
        "  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}]}\n", "")
        .replace("'B M'", "'B'"))
    result = runner.invoke(app, ["book", "--spec", str(one), "--count", "2", "-o", str(tmp_path / "b.pdf")])
    assert result.exit_code == 1 and "no puzzle could be generated" in result.stderr, result.output
    two = tmp_path / "two.yaml"
    two.write_text(TWO_MODULES)
    result = runner.invoke(app, ["book", "--spec", str(two), "--count", "20", "-o", str(tmp_path / "b.pdf")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "b.pdf").read_bytes().startswith(b"%PDF")


# --------------------------------------------------------------------------- no output lost silently


def _run(args: list[str], *, file_limit: int | None = None, close_stdout: bool = False,
         env: dict[str, str] | None = None, stdout: Any = subprocess.PIPE, cwd: Path | None = None,
         ) -> subprocess.CompletedProcess[str]:
    """``rove ARGS`` in a process whose files may grow to ``file_limit`` bytes (a nearly full
    disk: a write past it is cut short, the next one fails) or whose stdout is closed."""

    def setup() -> None:
        if file_limit is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))
        if close_stdout:
            os.close(1)

    return subprocess.run([rove_script(), *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          preexec_fn=setup, env={**os.environ, **(env or {})}, timeout=120, cwd=cwd)


def _one_clean_line(err: str, *words: str) -> None:
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "Exception ignored" not in err
    for w in words:
        assert w in err, (w, err)


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_stdout_on_a_nearly_full_disk_is_an_error(tmp_path: Path, unbuffered: str) -> None:
    """The first 100 bytes fit, the rest does not: exit 2 and one line, never exit 0 with
    a cut output (unbuffered stdout used to drop what a short write did not take)."""
    with open(tmp_path / "out", "w") as out:
        proc = _run(["deal", "--seed", "1"], file_limit=100, stdout=out, env={"PYTHONUNBUFFERED": unbuffered})
    assert proc.returncode == 2, proc.stderr
    _one_clean_line(proc.stderr, "cannot write to standard output", "File too large")


def test_a_file_on_a_nearly_full_disk_is_an_error_and_the_old_one_is_kept(tmp_path: Path) -> None:
    old = tmp_path / "c.pdf"
    old.write_bytes(b"old")
    proc = _run(["cards", "-o", str(old)], file_limit=5000)
    assert proc.returncode == 2, proc.stderr
    _one_clean_line(proc.stderr, str(old), "File too large", "nothing was written")
    assert old.read_bytes() == b"old" and leftovers(tmp_path) == []


def test_a_closed_stdout_is_an_error_when_written(tmp_path: Path) -> None:
    proc = _run(["deal", "--seed", "1"], close_stdout=True, stdout=None)
    assert proc.returncode == 2, proc.stderr
    _one_clean_line(proc.stderr, "cannot write to standard output", "closed")
    # a command that writes only files is not hurt, and no file takes the closed descriptor
    proc = _run(["deal", "--seed", "1", "-o", str(tmp_path / "p.yaml")], close_stdout=True, stdout=None)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "p.yaml").read_text().startswith("format: rove-position/1")


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_stdout_that_cannot_show_a_character_gets_it_escaped(tmp_path: Path, encoding: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(CLASSIC.read_text().replace("name: Classic deck", 'name: "Euro € deck"'), encoding="utf-8")
    proc = _run(["validate", str(spec)], env={"PYTHONIOENCODING": encoding})
    assert proc.returncode == 0, proc.stderr
    assert "Euro" in proc.stdout and "Traceback" not in proc.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text(CLASSIC.read_text().replace("name: Classic deck", 'name: "漢 deck"'), encoding="utf-8")
    proc = _run(["validate", str(bad)], env={"PYTHONIOENCODING": encoding})
    assert proc.returncode == 2
    _one_clean_line(proc.stderr, "U+6F22")


# --------------------------------------------------------------------------- every signal ends cleanly

#: Runs ``rove ARGS`` (after ``WHERE``) with a hook that prints READY on stderr at a known
#: point of the run (the export's first staged file, the PNGs staged, the worker pool's
#: first result) and, for the first two, waits there, so that a test sends its signal at
#: that point without guessing a time.
HARNESS = r"""
import signal, sys, time
from pathlib import Path

# Ctrl-C and a closed terminal as a terminal delivers them, even where this test runs as
# a background job of a shell without job control (which starts it with SIGINT ignored)
# or under nohup (SIGHUP ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGHUP, signal.SIG_DFL)

def ready(wait):
    print("READY", file=sys.stderr, flush=True)
    if wait:
        # short sleeps, not one long blocking wait: a signal that lands just before the
        # wait blocks would only be handled when it ends (Python runs signal handlers
        # between bytecodes), which made about one run in six hang here; after a sleep
        # of 0.1 s at most the handler runs. The test fails long before the loop ends.
        for _ in range(3000):
            time.sleep(0.1)

where, args = sys.argv[1], sys.argv[2:]
if where == "export":
    real_write = Path.write_text
    def write_text(self, *a, **k):
        n = real_write(self, *a, **k)
        if ".tmp" in str(self.parent):
            ready(True)
        return n
    Path.write_text = write_text
elif where == "png":
    import rove.pdf.cards as cards
    real_pngs = cards.write_card_pngs
    def write_card_pngs(*a, **k):
        out = real_pngs(*a, **k)
        ready(True)
        return out
    cards.write_card_pngs = write_card_pngs
elif where == "commit":  # hold before putting outputs into place until a line comes on stdin
    import rove.outputs as outputs
    real_commit = outputs.Outputs.commit
    def commit(self):
        print("READY", file=sys.stderr, flush=True)
        sys.stdin.readline()
        return real_commit(self)
    outputs.Outputs.commit = commit
elif where == "pool":
    import rove.executors as executors
    real_map = executors.LocalPoolExecutor.map_unordered
    def map_unordered(self, fn, tasks, max_chunk=None):
        for i, item in enumerate(real_map(self, fn, tasks, max_chunk)):
            if i == 0:
                ready(False)
            yield item
    executors.LocalPoolExecutor.map_unordered = map_unordered
from rove.cli import main
sys.argv = ["rove", *args]
main()
"""


def _session(sid: int) -> list[str]:
    """The processes (pid and command) of session ``sid``, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, session, ...
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(f"{entry} {cmd[:120]}")
    return found


def _wait_for(condition: Any, guard: float = 60.0) -> bool:
    """Poll ``condition`` until it holds; ``guard`` seconds only stop a hung test."""
    deadline = time.monotonic() + guard
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _signal_at_ready(where: str, args: list[str], sig: int, cwd: Path) -> tuple[int, str, list[str]]:
    """Run the harness in a session of its own, send ``sig`` when it says READY: (exit code,
    stderr, processes of its session still alive once it has ended)."""
    proc = subprocess.Popen([sys.executable, "-c", HARNESS, where, *args], cwd=cwd, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stderr is not None
    err = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            err.append(line)
            if line.strip() == "READY":
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(240), "never ready: " + "".join(err)
        os.kill(proc.pid, sig)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(10)
    _wait_for(lambda: not _session(proc.pid))  # the pool's helpers end once the main process has
    return code, "".join(err), _session(proc.pid)


SIGNALS = [pytest.param(signal.SIGTERM, 143, id="SIGTERM"), pytest.param(signal.SIGHUP, 129, id="SIGHUP"),
           pytest.param(signal.SIGINT, 130, id="SIGINT")]


@pytest.mark.parametrize("sig, code", SIGNALS)
@pytest.mark.parametrize("where, args", [
    ("export", ["book", "--spec", "classic",
                "--count", "1", "--mix", "mission:1", "-o", "b.pdf", "--export-dir", "ex"]),
    ("png", ["cards", "-o", "c.pdf", "--png-dir", "png"]),
])
def test_a_signal_while_outputs_are_staged_leaves_nothing(tmp_path: Path, sig: int, code: int, where: str,
                                                          args: list[str]) -> None:
    got, err, alive = _signal_at_ready(where, args, sig, tmp_path)
    assert got == code, err
    assert "Traceback" not in err and "no output was left half-written" in err
    assert os.listdir(tmp_path) == [] and alive == []


@pytest.mark.skipif(default_jobs() < 2, reason="needs two cores for --jobs 2")
@pytest.mark.parametrize("sig, code", [SIGNALS[0], *(pytest.param(*p.values, id=p.id, marks=pytest.mark.slow)
                                                     for p in SIGNALS[1:])])
def test_a_signal_ends_check_and_its_worker_processes(tmp_path: Path, sig: int, code: int) -> None:
    """The workers, the forkserver and the resource tracker end with the main process: no
    process of the command's session is left (a `kill` used to leave four running)."""
    got, err, alive = _signal_at_ready("pool", ["check", "classic", "--deals", "5000", "--jobs", "2",
                                                "--starts", "0", "--report", "r.pdf"], sig, tmp_path)
    assert got == code, err
    assert "Traceback" not in err and alive == []
    assert os.listdir(tmp_path) == []


def test_an_interrupted_pool_ends_its_busy_workers(tmp_path: Path) -> None:
    """Leaving the pool on an exception ends the workers still running a task instead of
    waiting for it (here an hour's sleep): the process ends, and nothing of it is left."""
    code = ("import time\n"
            "from rove.executors import LocalPoolExecutor\n"
            "try:\n"
            "    with LocalPoolExecutor(2) as ex:\n"
            "        for _ in ex.map_unordered(time.sleep, [0, 3600, 3600]):\n"
            "            raise KeyboardInterrupt\n"
            "except KeyboardInterrupt:\n"
            "    print('ended')\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=120)  # a guard: without the fix it waits an hour
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert out == "ended\n"
    assert _wait_for(lambda: not _session(proc.pid)), _session(proc.pid)


@pytest.mark.parametrize("loop", [
    pytest.param("ex.map_unordered(time.sleep, [0.001] * 5000, max_chunk=1)", id="map_unordered"),
    pytest.param("Ahead(lambda i: ex.submit(time.sleep, 0.001, -i), 5000, 8)", id="stream"),
])
def test_a_signal_at_any_moment_of_the_pool_wait_ends_the_pool(tmp_path: Path, loop: str) -> None:
    """Ctrl-C lands wherever the main thread is while results come in, so it is sent at
    twenty moments of a pool of 5,000 short tasks; each time the pool must end, and no
    thread of it may print a traceback. (The pool's wait took every pending future's lock
    in a Python loop; an interrupt inside it left locks held and the shutdown then waited
    forever: this hung within its first three interrupts, and a `kill` of `rove check
    --jobs 2` hung in 6 runs of 15.)  Both ways of running tasks: ``map_unordered``
    (``rove check``) and a stream of ``submit``s (``rove book``), whose waits for the next
    result and sends of the next task interleave."""
    code = ("import os, signal, threading, time\n"
            "from rove.executors import Ahead, LocalPoolExecutor\n"
            "for n in range(20):\n"
            "    timer = threading.Timer(0.2 + 0.02 * n, os.kill, (os.getpid(), signal.SIGINT))\n"
            "    try:\n"
            "        with LocalPoolExecutor(2) as ex:\n"
            "            timer.start()\n"
            f"            for _ in {loop}:\n"
            "                pass\n"
            "        print('finished before the interrupt')\n"
            "    except KeyboardInterrupt:\n"
            "        print('ended')\n"
            "    timer.join()\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=120)  # a guard: a hung shutdown never ends
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert out == "ended\n" * 20 and "Traceback" not in err, err
    assert _wait_for(lambda: not _session(proc.pid)), _session(proc.pid)


@pytest.fixture
def default_handler(request: pytest.FixtureRequest) -> Iterator[int]:
    """The parameter's signal with its default handler for the test (whatever the test
    run was started with: nohup ignores SIGHUP), the old one put back after it."""
    sig: int = request.param
    old = signal.signal(sig, signal.SIG_DFL)
    try:
        yield sig
    finally:
        signal.signal(sig, old)


@pytest.mark.parametrize("default_handler", [signal.SIGTERM, signal.SIGHUP], indirect=True)
def test_sigterm_and_sighup_are_held_off_while_outputs_go_into_place(tmp_path: Path, default_handler: int) -> None:
    from rove.outputs import Outputs, Terminated, stop_signals_handled

    sig = default_handler
    with pytest.raises(Terminated) as caught, stop_signals_handled(), Outputs() as out:
        out.file(tmp_path / "a.txt", "a")
        (out.folder(tmp_path / "ex") / "b.txt").write_text("b")
        real_replace = os.replace

        def replace_then_signal(src: Any, dst: Any) -> None:
            real_replace(src, dst)
            os.kill(os.getpid(), sig)  # in the middle of the renames

        os.replace = replace_then_signal  # type: ignore[assignment]
        try:
            out.commit()
        finally:
            os.replace = real_replace
    assert caught.value.signum == sig
    assert (tmp_path / "a.txt").read_text() == "a" and (tmp_path / "ex" / "b.txt").read_text() == "b"
    assert leftovers(tmp_path) == [] and signal.getsignal(sig) is signal.SIG_DFL


@pytest.mark.parametrize("default_handler", [signal.SIGTERM, signal.SIGHUP], indirect=True)
def test_a_signal_started_ignored_stays_ignored(default_handler: int) -> None:
    """Under ``nohup`` (SIGHUP ignored) a rove command outlives its terminal: the block
    that makes SIGTERM and SIGHUP stop a command cleanly leaves an ignored one ignored."""
    from rove.outputs import stop_signals_handled

    sig = default_handler
    signal.signal(sig, signal.SIG_IGN)
    with stop_signals_handled():
        assert signal.getsignal(sig) == signal.SIG_IGN
        os.kill(os.getpid(), sig)  # nothing happens
    assert signal.getsignal(sig) == signal.SIG_IGN


# --------------------------------------------------------------------------- bounded on huge valid input


@pytest.mark.parametrize("option", ["--node-limit", "--mission-node-limit", "--expert-node-limit"])
def test_node_limit_options_have_an_upper_bound(runner: CliRunner, option: str) -> None:
    from rove.cli import MAX_NODES

    result = runner.invoke(app, ["check", "standard", option, str(10**20), "--deals", "1"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{MAX_NODES}" in result.output.replace("│", "").replace("\n", "").replace(" ", "")


def _wide_deck(folder: Path, n: int) -> Path:
    """The classic deck with ``n`` modules (A, B, ...; the six abilities in turn) and plain
    two-cell patterns."""
    import string

    data = classic_data()
    data["modules"] = [{**data["modules"][i % 6], "id": f"m{c.lower()}", "code": c, "name": f"Mod {c}"}
                       for i, c in enumerate(string.ascii_uppercase[:n])]
    for card in data["cards"]:
        card["mission"]["pattern"] = card["movement"]["pattern"] = "# #"
    path = folder / f"wide{n}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.slow
def test_generate_missions_on_26_modules_keeps_its_time_limit(tmp_path: Path) -> None:
    """The pattern model is polynomial in the modules (it was 2^(n-1) families: 3.8 GB and
    growing), its build checks the clock and CP-SAT stops at the run's deadline: a short
    limit ends the run with exit 3 (unknown), nothing written."""
    spec = _wide_deck(tmp_path, 26)
    proc = _run(["generate", "missions", "--spec", str(spec), "--time-limit", "5", "--count", "2",
                 "-o", str(tmp_path / "g.yaml")])
    assert proc.returncode == 3, proc.stderr
    assert "time limit reached" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "g.yaml").exists()


@pytest.mark.slow
def test_generate_missions_above_the_cut_limit_makes_connected_patterns(tmp_path: Path) -> None:
    """Past CUT_LIMIT modules the pattern's connectivity is a tree of depth labels: what it
    makes validates (a pattern in one piece) and its cost is proven."""
    from rove.solve.cpsat_model import CUT_LIMIT
    from rove.spec import load_spec

    spec = _wide_deck(tmp_path, CUT_LIMIT + 2)
    out = tmp_path / "g.yaml"
    proc = _run(["generate", "missions", "--spec", str(spec), "--count", "1", "--time-limit", "120",
                 "-o", str(out)])
    assert proc.returncode == 0, proc.stderr
    assert len(load_spec(out).modules) == CUT_LIMIT + 2


# --------------------------------------------------------------------------- pipes


def test_a_spec_on_stdin_or_a_process_substitution_is_read_once(tmp_path: Path) -> None:
    text = CLASSIC.read_text()
    proc = subprocess.run([rove_script(), "validate", "/dev/stdin"], input=text, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "ok (spec 'Classic deck'" in proc.stdout
    # `rove validate <(cat spec)`: a pipe named /dev/fd/N
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(w, text.encode()), os.close(w)), daemon=True)
    writer.start()
    try:
        proc = subprocess.run([rove_script(), "validate", f"/dev/fd/{r}"], pass_fds=(r,), capture_output=True,
                              text=True, timeout=60)
    finally:
        os.close(r)
    assert proc.returncode == 0, proc.stderr
    assert "ok (spec 'Classic deck'" in proc.stdout


def test_a_named_pipe_is_waited_for_as_cat_does(tmp_path: Path, runner: CliRunner) -> None:
    """The plan comes through a FIFO whose writer opens it after rove has: rove blocks for
    it (it used to read an empty plan and say "all 0 steps legal")."""
    pos = tmp_path / "pos.yaml"
    assert runner.invoke(app, ["deal", "--seed", "1", "-o", str(pos)]).exit_code == 0
    fifo = tmp_path / "plan"
    os.mkfifo(fifo)
    proc = subprocess.Popen([rove_script(), "replay", str(pos), str(fifo)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def write() -> None:
        with open(fifo, "w") as f:  # returns once rove has the pipe open for reading
            f.write("S draw\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if writer.is_alive():  # rove never opened it: let the writer go
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    assert "all 0 steps" not in out, out
    assert "step 0: S draw" in out, (out, err)


# --------------------------------------------------------------------------- messages point at the right place


@pytest.mark.parametrize("opened, kind", [('name: "never closed\n', "quoted scalar"),
                                          ("name: 'never closed\n", "quoted scalar"),
                                          ("name: [a, b\n", "flow sequence"),
                                          ("name: {a: b\n", "flow mapping")])
def test_an_unclosed_value_is_reported_where_it_starts(runner: CliRunner, tmp_path: Path, opened: str,
                                                       kind: str) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text("format: rove-spec/1\nmodules: []\ncards: []\n" + opened + "\n\n\n")
    refused(runner.invoke(app, ["validate", str(spec)]), f"{spec}:4: YAML syntax: the file ends", kind,
            "starts at this line")


@pytest.mark.parametrize("line", [1, 3])
def test_a_nul_byte_gets_its_line_and_one_line(runner: CliRunner, tmp_path: Path, line: int) -> None:
    lines = ["format: rove-spec/1", "name: deck", "modules: []"]
    lines[line - 1] += "\0"
    spec = tmp_path / "s.yaml"
    spec.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["validate", str(spec)])
    refused(result, f"{spec}:{line}: the character '\\x00' (U+0000) cannot be in a YAML file")
    assert len(result.stderr.splitlines()) == 1


def test_a_spec_included_twice_is_named_as_such(runner: CliRunner, tmp_path: Path, nested) -> None:
    top, mid, leaf = nested
    data = yaml.safe_load(top.read_text())
    # directly twice (under two names), and once directly and once through mid/mid.yaml
    for include, where, first in [(["mid/mid.yaml", "mid/../mid/mid.yaml"], top, "line 4"),
                                  (["leaf.yaml", "mid/mid.yaml"], mid, f"{top}:4")]:
        top.write_text(yaml.safe_dump({"format": data["format"], "name": "Top", "include": include,
                                       "cards": data["cards"]}, sort_keys=False))
        assert top.read_text().splitlines()[3] == f"- {include[0]}"
        result = runner.invoke(app, ["validate", str(top)])
        refused(result, f"{where}:", "is included a second time", f"(first at {first})", "remove one include")
        assert "used twice" not in result.stderr, result.stderr


# --------------------------------------------------------------------------- work is bounded and kept


def test_solve_has_a_default_node_budget(runner: CliRunner, tmp_path: Path) -> None:
    """A search that reaches its node budget is `unknown`, exit 3 (the default budget
    bounds time and memory: --optimal on a bundled deal ran 13 minutes and took 1.9 GB).
    The seer that then looks for a win has a default budget of its own."""
    from rove.cli import MAX_NODES, SEER_NODES, SOLVE_NODES

    assert 1 <= SOLVE_NODES <= MAX_NODES and 1 <= SEER_NODES <= MAX_NODES
    pos = tmp_path / "pos.yaml"
    assert runner.invoke(app, ["deal", "--spec", "classic", "--seed", "1", "-o", str(pos)]).exit_code == 0
    result = runner.invoke(app, ["solve", str(pos), "--node-limit", "10", "--seer-node-limit", "0", "--json"])
    assert result.exit_code == 3, result.output
    got = json.loads(result.stdout)
    assert got["status"] == "unknown" and got["nodes"] <= 11
    got = json.loads(runner.invoke(app, ["solve", str(pos), "--node-limit", "10", "--json"]).stdout)
    assert got["stats"]["witness"] == "seer" and got["nodes"] <= 10 + SEER_NODES
    # --optimal: the win found within the budget, said not to be proven the cheapest
    got = json.loads(runner.invoke(app, ["solve", str(pos), "--optimal", "--node-limit", "1000", "--json"]).stdout)
    assert got["status"] == "solved" and not got["optimal"] and "limit was reached" in got["reason"]
    result = runner.invoke(app, ["solve", str(pos), "--node-limit", str(MAX_NODES + 1)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_missions_proven_before_the_limit_are_kept(runner: CliRunner, tmp_path: Path, monkeypatch) -> None:
    """The run stops at mission 2 of 3 (a limit, made to happen there): mission 1, proven, is
    written with the source's other cards, exit 3, and the message says 1 of 3."""
    from rove.generators import missions

    real_run = missions._MissionSearch.run
    searches: list[int] = []  # one search object per mission

    def run(self, *a, **k):  # the second mission's search hits the time limit
        if id(self) not in searches:
            searches.append(id(self))
        if len(searches) > 1:
            raise missions.GenerationFailed("time limit reached while searching for a pattern", proven=False)
        return real_run(self, *a, **k)

    monkeypatch.setattr(missions._MissionSearch, "run", run)
    out = tmp_path / "g.yaml"
    result = runner.invoke(app, ["generate", "missions", "--count", "3", "-o", str(out)])
    assert result.exit_code == 3, result.output
    assert "the 1 of 3 missions proven before it are written to" in " ".join(result.stderr.split())
    from rove.spec import load_spec

    text = out.read_text()
    assert "# (only the first 1 of 3" in text
    spec = load_spec(out)
    assert len(spec.cards) == len(load_spec("classic").cards)



# --------------------------------------------------------------------------- concurrent runs never mix


@contextlib.contextmanager
def held_at_commit(args: list[str], cwd: Path) -> Iterator[Callable[[], tuple[int, str]]]:
    """``rove ARGS`` run through HARNESS and held just before it puts its outputs in place
    (its READY line), so that the block can run another command meanwhile; the block
    calls the function it is given to let the held run go on, and gets its exit code and
    the rest of its stderr.  A held run the block leaves behind is killed."""
    a = subprocess.Popen([sys.executable, "-c", HARNESS, "commit", *args], cwd=cwd, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert a.stdin is not None and a.stderr is not None
    stdin, stderr = a.stdin, a.stderr
    try:
        err = []
        for line in stderr:  # until the run is ready to put its outputs in place
            err.append(line)
            if line.strip() == "READY":
                break
        assert err and err[-1].strip() == "READY", "".join(err)

        def release() -> tuple[int, str]:
            stdin.write("go\n")
            stdin.close()
            rest = stderr.read()
            return a.wait(timeout=120), rest
        yield release
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()




@pytest.mark.parametrize("existing", [False, True])
def test_two_exports_into_one_folder_never_mix(tmp_path: Path, existing: bool) -> None:
    """Run A stages its export and waits; run B writes its own into the same folder; A then
    finds the folder taken and writes nothing: the folder holds B's export whole."""
    ex = tmp_path / "ex"
    if existing:
        ex.mkdir()  # an existing empty folder: both would move their files in
    args = ["book", "--spec", "classic", "--count", "1", "--mix", "mission:1", "--export-dir", "ex"]
    with held_at_commit([*args, "--seed", "3", "-o", "a.pdf"], tmp_path) as release_a:
        b = _run([*args, "--seed", "4", "-o", "b.pdf"], cwd=tmp_path)
        assert b.returncode == 0, b.stderr
        after_b = {name: data for name, data in _tree(ex).items() if ".tmp" not in name}  # not A's staging
        code, rest = release_a()
        assert code == 2, rest
    assert "another run" in rest and "nothing was written" in rest and "Traceback" not in rest
    assert _tree(ex) == after_b  # B's export, whole and alone
    listed = (ex / MANIFEST).read_text().splitlines()[1:]
    assert sorted(listed) == sorted(name for name in after_b if name != MANIFEST)
    assert not (tmp_path / "a.pdf").exists() and leftovers(tmp_path) == []


def test_a_book_from_a_spec_on_stdin_exports_it(tmp_path: Path) -> None:
    """The export ships the spec it read, not a second read of the pipe (which would be
    empty, or wait for ever on a named pipe)."""
    proc = subprocess.run([rove_script(), "book", "--spec", "/dev/stdin", "--count", "1", "--mix", "mission:1",
                           "-o", "b.pdf", "--export-dir", "ex"], input=CLASSIC.read_text(), capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    from rove.spec import load_spec

    assert load_spec(tmp_path / "ex" / "specs" / "stdin.yaml") == load_spec("classic")
