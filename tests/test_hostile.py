"""Hostile cases, third round (issue "Reliability, third round"): each table below is a
kept list of cases a probe found failing, run by the default suite.

* ``SIGNALS_DURING_ANALYSIS``: ``rove play`` stopped while its coach thinks inside the
  compiled core, started as a terminal starts it (SIGINT at its default) and as a
  non-interactive shell starts a background job (SIGINT ignored);
* ``FOREIGN_REQUESTS``: requests another site's page (or a rebound DNS name) can make;
* ``FIFO_COMMANDS``: commands given a named pipe nobody writes;
* ``FLOAT_OPTIONS``: every float option of every command, given a number that is not
  finite (found by walking the Click app, so a new option cannot slip by);
* ``FOLDER_OUTPUTS``: every folder output, its files' writes failing as on a full disk;

and single cases: a long deck name on the cards, ``--force`` on a folder of other files,
``rove play``'s ``--port`` and ``--host``, ``rove solve``'s default budgets, two runs
writing one ``--report``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from conftest import rove_script
from starlette.testclient import TestClient
from test_play import LAST_MISSION
from typer.testing import CliRunner

from rove.cli import app


def _sigint(mode: str) -> Callable[[], None]:
    """For a child process: SIGINT at its default (a terminal) or ignored (a background
    job of a shell without job control); SIGTERM and SIGHUP at their defaults either way,
    as a shell starts a program, even when the suite itself runs under ``nohup`` (whose
    ignored SIGHUP a child inherits, and rove rightly keeps)."""
    handler = signal.SIG_DFL if mode == "terminal" else signal.SIG_IGN

    def setup() -> None:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, handler)
    return setup


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json",
                                                                   "Origin": url.split("/api/")[0]})
    with urllib.request.urlopen(req, timeout=30) as res:
        got: dict[str, Any] = json.load(res)
        return got


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=30) as res:
        got: dict[str, Any] = json.load(res)
        return got


# --------------------------------------------------------------------------- signals during analysis

SIGNALS_DURING_ANALYSIS = [
    pytest.param(sig, code, mode, id=f"{name}-{mode}")
    for name, sig, code in (("SIGINT", signal.SIGINT, 130), ("SIGTERM", signal.SIGTERM, 143),
                            ("SIGHUP", signal.SIGHUP, 129))
    for mode in ("terminal", "background")
]


@pytest.mark.parametrize("sig, code, mode", SIGNALS_DURING_ANALYSIS)
def test_a_signal_while_the_coach_thinks_in_the_core_exits_cleanly(sig: int, code: int, mode: str) -> None:
    """The think-ahead verdict of a deal runs in the compiled core when the signal comes,
    an expert question queued behind it: the exit is the signal's, not SIGABRT (134,
    "FATAL: exception not rethrown", as when the worker was left inside the core while
    the interpreter finalized)."""
    proc = subprocess.Popen([rove_script(), "play", "--deal", "1", "--no-browser"], stderr=subprocess.PIPE,
                            text=True, preexec_fn=_sigint(mode))
    try:
        assert proc.stderr is not None
        m = re.search(r"(http://127\.0\.0\.1:\d+)/", proc.stderr.readline())
        assert m
        base = m.group(1)
        assert _post(base + "/api/coach", {"ask": "expert"})["status"] == "queued"
        deadline = time.monotonic() + 30
        while True:  # the verdict (job 1) has been thinking a while: it is inside a search
            first = _get(base + "/api/coach/1")
            if first["status"] == "running" and first["seconds"] >= 0.3:
                break
            assert first["status"] in ("queued", "running") and time.monotonic() < deadline, first
            time.sleep(0.05)
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == code
        err = proc.stderr.read()
        assert "FATAL" not in err and "Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --------------------------------------------------------------------------- the web server

#: The last mission of a deal, one move played and one to undo (any position would do).
POSITION = LAST_MISSION
OWN = "http://127.0.0.1"
JS = {"content-type": "application/json"}

#: (method, path, headers, body): each may come from another site's page, and each is
#: refused with 403 before it changes anything.
FOREIGN_REQUESTS = [
    pytest.param("POST", "/api/undo", {"origin": "http://evil.example"}, b"", id="undo-empty-foreign"),
    pytest.param("POST", "/api/redo", {"content-type": "text/plain"}, b"", id="redo-empty-text"),
    pytest.param("POST", "/api/undo", {}, b"", id="undo-no-content-type"),
    pytest.param("POST", "/api/action", {"content-type": "text/plain"}, b'{"action": "play c06+"}',
                 id="action-text-plain"),
    pytest.param("POST", "/api/action", {"content-type": "application/x-www-form-urlencoded"},
                 b"action=play+c06%2B", id="action-form"),
    pytest.param("POST", "/api/action", {**JS, "origin": "http://evil.example"}, b'{"action": "play c06+"}',
                 id="action-json-foreign"),
    pytest.param("POST", "/api/action", {**JS, "origin": "null"}, b'{"action": "play c06+"}', id="action-null-origin"),
    pytest.param("POST", "/api/action", {**JS, "origin": "http://127.0.0.1:1"}, b'{"action": "play c06+"}',
                 id="action-other-port"),
    pytest.param("POST", "/api/action", {**JS, "referer": "http://evil.example/page"}, b'{"action": "play c06+"}',
                 id="action-foreign-referer"),
    pytest.param("POST", "/api/goto", {**JS, "origin": "https://127.0.0.1"}, b'{"step": 0}', id="goto-https"),
    pytest.param("POST", "/api/coach", {"origin": "http://evil.example"}, b'{"ask": "verdict"}', id="coach-foreign"),
    pytest.param("PUT", "/api/undo", {"origin": "http://evil.example"}, b"", id="put-foreign"),
    pytest.param("DELETE", "/api/state", {}, b"", id="delete"),
]


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[TestClient, Any]]:
    from rove.play.coach import Coach
    from rove.play.run import PlayOptions, started_from
    from rove.play.server import create_app
    from rove.play.session import Session

    path = tmp_path / "last.yaml"
    path.write_text(POSITION, encoding="utf-8")
    session = Session(started_from(PlayOptions(position=path)))
    coach = Coach(session, 1000, 1000, autostart=False)
    client = TestClient(create_app(session, coach), base_url=OWN, raise_server_exceptions=False)
    assert client.post("/api/action", json={"action": "play c06+"}, headers={"origin": OWN}).status_code == 200
    assert client.post("/api/undo", json={}, headers={"origin": OWN, "referer": OWN + "/"}).status_code == 200
    yield client, session
    coach.close()


@pytest.mark.parametrize("method, path, headers, body", FOREIGN_REQUESTS)
def test_a_request_another_site_can_make_is_refused(game: tuple[TestClient, Any], method: str, path: str,
                                                    headers: dict[str, str], body: bytes) -> None:
    client, session = game
    before = (session.version, session.cursor)
    r = client.request(method, path, headers=headers, content=body)
    assert r.status_code == 403, r.text
    assert "error" in r.json()
    assert (session.version, session.cursor) == before and session.cursor == 0


def test_the_own_page_and_programs_without_an_origin_may_change_the_game(game: tuple[TestClient, Any]) -> None:
    client, session = game
    assert client.post("/api/redo", json={}, headers={"origin": OWN}).status_code == 200  # the page
    assert client.post("/api/undo", content=b"", headers=JS).status_code == 200  # curl, a script
    assert client.post("/api/redo", json={}, headers={"referer": OWN + "/"}).status_code == 200
    assert session.cursor == 1
    # a name rebound to 127.0.0.1 is not one the app answers (DNS rebinding)
    r = client.post("/api/undo", json={}, headers={"host": "evil.example", "origin": "http://evil.example"})
    assert r.status_code == 400 and session.cursor == 1
    assert client.get("/api/state", headers={"host": "evil.example"}).status_code == 400


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, float]]:
    """The app on uvicorn on 127.0.0.1 (a thread of this process), with a request
    timeout of one second: (port, timeout)."""
    from rove.play.coach import Coach
    from rove.play.run import PlayOptions, bind, started_from
    from rove.play.server import create_app, make_server
    from rove.play.session import Session

    path = tmp_path / "last.yaml"
    path.write_text(POSITION, encoding="utf-8")
    session = Session(started_from(PlayOptions(position=path)))
    coach = Coach(session, 1000, 1000, autostart=False)
    server = make_server(create_app(session, coach), request_timeout=1.0)
    sock = bind("127.0.0.1", 0)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert _wait(lambda: server.started, 30)
    try:
        yield sock.getsockname()[1], 1.0
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
        coach.close()


def _wait(condition: Callable[[], Any], guard: float) -> bool:
    deadline = time.monotonic() + guard
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.parametrize("start", [
    pytest.param(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", id="slow-head"),
    pytest.param(b"POST /api/undo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 64\r\n\r\n{", id="slow-body"),
])
def test_slow_clients_are_cut_off_and_the_game_stays_served(served: tuple[int, float], start: bytes) -> None:
    """A bounded slowloris on 127.0.0.1: four connections sending a byte every 0.2 s are
    closed by the server within its request timeout (plus a margin), while a normal
    request is answered meanwhile; before, they stayed open as long as bytes came."""
    port, timeout = served
    clients = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(4)]
    began = time.monotonic()
    closed: dict[int, float] = {}
    try:
        for c in clients:
            c.sendall(start)
            c.setblocking(False)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as res:
            assert res.status == 200
        while len(closed) < len(clients) and time.monotonic() - began < timeout + 3:
            time.sleep(0.2)
            for i, c in enumerate(clients):
                if i in closed:
                    continue
                try:
                    c.send(b"a")
                    if c.recv(4096) == b"":
                        closed[i] = time.monotonic() - began
                except BlockingIOError:
                    pass
                except OSError:  # reset or broken pipe: closed by the server
                    closed[i] = time.monotonic() - began
    finally:
        for c in clients:
            c.close()
    assert len(closed) == len(clients), f"still open after {timeout + 3} s: {len(clients) - len(closed)}"
    assert all(timeout * 0.9 <= t <= timeout + 2 for t in closed.values()), closed


# --------------------------------------------------------------------------- non-finite numbers

runner = CliRunner()


def _float_options() -> list[tuple[tuple[str, ...], str]]:
    """(command path, option) for every float option of every command of the app."""
    found: list[tuple[tuple[str, ...], str]] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
            return
        for p in command.params:
            if any(t.__name__ == "FloatParamType" for t in type(p.type).__mro__):
                found.append((path, p.opts[0]))

    walk(typer.main.get_command(app), ())
    return found


FLOAT_OPTIONS = _float_options()
#: Arguments a command needs before its options are looked at (a value Click accepts).
ARGUMENTS = {("solve",): ["{deal}"], ("check",): ["classic"],
             ("tune",): ["classic", "--target", "normal=0.5", "-o", "{deal}.tuned.yaml"]}


@pytest.fixture(scope="module")
def dealt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("deal") / "deal.yaml"
    assert runner.invoke(app, ["deal", "--seed", "1", "-o", str(path)]).exit_code == 0
    return path


def test_the_float_options_are_found() -> None:
    """The walk finds what the issue named (so the test below cannot pass on nothing)."""
    assert {(("solve",), "--time-limit"), (("check",), "--time-limit"), (("book",), "--time-limit"),
            (("generate", "missions"), "--time-limit"), (("cards",), "--bleed")} <= set(FLOAT_OPTIONS)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "1e999"])
@pytest.mark.parametrize("path, option", [pytest.param(p, o, id=" ".join((*p, o))) for p, o in FLOAT_OPTIONS])
def test_every_float_option_refuses_a_number_that_is_not_finite(dealt: Path, path: tuple[str, ...], option: str,
                                                                value: str) -> None:
    args = [a.format(deal=dealt) for a in ARGUMENTS.get(path, [])]
    r = runner.invoke(app, [*path, *args, option, value])
    assert r.exit_code == 2, r.output
    assert option in r.output and ("finite" in r.output or "range" in r.output), r.output
    assert "Traceback" not in r.output


@pytest.mark.parametrize("engine", ["search", "cpsat"])
def test_solve_with_a_nan_time_limit_says_so(dealt: Path, engine: str) -> None:
    """`solve` exited 3 without a word (the search) and 0 (CP-SAT) on --time-limit nan."""
    r = runner.invoke(app, ["solve", str(dealt), "--engine", engine, "--time-limit", "nan"])
    assert r.exit_code == 2 and "solve: --time-limit nan: give a finite number" in r.output, r.output


def test_tune_refuses_a_rate_that_is_not_finite(tmp_path: Path) -> None:
    for rate in ("nan", "inf"):
        r = runner.invoke(app, ["tune", "classic", "--target", f"normal={rate}", "-o", str(tmp_path / "t.yaml")])
        assert r.exit_code == 2 and "is not DIFFICULTY=RATE" in r.output, r.output


# --------------------------------------------------------------------------- named pipes nobody writes

FIFO_COMMANDS = [
    pytest.param(["validate", "{fifo}"], id="validate"),
    pytest.param(["solve", "{fifo}"], id="solve"),
    pytest.param(["replay", "{deal}", "{fifo}"], id="replay-plan"),
    pytest.param(["cards", "{fifo}", "-o", "{out}"], id="cards-spec"),
]


@pytest.mark.parametrize("args", FIFO_COMMANDS)
def test_a_named_pipe_nobody_writes_is_refused_after_a_bounded_wait(tmp_path: Path, dealt: Path,
                                                                    monkeypatch: pytest.MonkeyPatch,
                                                                    args: list[str]) -> None:
    """It blocked for ever in the open; now the writer is waited for PIPE_WAIT seconds."""
    import rove.yamlio

    monkeypatch.setattr(rove.yamlio, "PIPE_WAIT", 0.3)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    began = time.monotonic()
    r = runner.invoke(app, [a.format(fifo=fifo, deal=dealt, out=tmp_path / "c.pdf") for a in args])
    assert r.exit_code == 2, r.output
    assert f"{fifo}: is a named pipe (FIFO) that nobody opened for writing within 0.3 seconds" in r.output
    assert time.monotonic() - began < 30
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


# --------------------------------------------------------------------------- signals during check

@pytest.mark.parametrize("sig, code, words", [(signal.SIGTERM, 143, "stopped by SIGTERM"),
                                              (signal.SIGHUP, 129, "stopped by SIGHUP"),
                                              (signal.SIGINT, 130, "interrupted (Ctrl-C)")])
def test_a_stopped_check_names_the_signal_that_came_once(tmp_path: Path, sig: int, code: int, words: str) -> None:
    """It said "check: interrupted (Ctrl-C)" and then "rove: stopped by SIGTERM"."""
    import sys

    from test_hardening import _LAUNCH_WITH_READY_LINE

    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH_WITH_READY_LINE, "check", "check", "standard",
                             "--deals", "100000", "--jobs", "1", "--starts", "0", "--player", "thoughtful",
                             "--report", str(tmp_path / "r.pdf")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_sigint("terminal"))
    try:
        assert proc.stderr is not None
        seen = b""
        while not seen.endswith(b"ready\n"):
            byte = os.read(proc.stderr.fileno(), 1)
            assert byte, "ended before it was ready"
            seen += byte
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    lines = [line for line in err.splitlines() if "Ctrl-C" in line or "stopped by" in line]
    assert lines == [f"check: {words} before any deal was finished; no figures"], err
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- a long deck name

def _chars_outside(pdf: bytes) -> list[tuple[int, str]]:
    """(page, character) for every character of ``pdf`` whose box is not inside its page."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    found = []
    for number, page in enumerate(doc, start=1):
        w, h = page.get_size()
        text = page.get_textpage()
        for i in range(text.count_chars()):
            left, bottom, right, top = text.get_charbox(i)
            if left < -0.5 or bottom < -0.5 or right > w + 0.5 or top > h + 0.5:
                found.append((number, text.get_text_range(i, 1)))
    return found


def _page_texts(pdf: bytes) -> list[str]:
    import pypdfium2 as pdfium

    return [page.get_textpage().get_text_range() for page in pdfium.PdfDocument(pdf)]


@pytest.mark.parametrize("preset", ["home-a4", "tts"])
def test_a_long_deck_name_stays_on_the_cards(tmp_path: Path, preset: str) -> None:
    """A deck's name has no length limit (docs/LIMITS.md): the stamp on every face and the
    tts deck's hidden card cut it with an ellipsis, as the book's cover does, through the
    same helper (the hidden card drew 2,400 characters of a 6,000-character name off the
    card, 37 times; the stamp took 17 s to cut a name of 3,000)."""
    from conftest import classic_data

    from rove.pdf.printing import render_print, resolve_job
    from rove.spec import load_spec

    data = classic_data()
    data["name"] = "Long deck name " * 400
    path = tmp_path / "long.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")
    files = render_print(load_spec(path), resolve_job(preset, stamp=True))
    pdfs = [pdf for pdf in (files.pdf, files.faces_pdf) if pdf is not None]
    for pdf in pdfs:
        assert _chars_outside(pdf) == []
    faces = _page_texts(files.faces_pdf)
    assert all("Long deck name Long" in t and "…" in t for t in faces), faces[0]
    if preset == "tts":  # the hidden card: ROVE and the name's start on two lines
        assert re.search(r"ROVE\s+Long deck name.*\s+.*name.*…", faces[-1]), faces[-1]


def test_a_long_deck_name_stays_on_the_check_report(tmp_path: Path) -> None:
    """The report's footer printed the whole name on every page (2,878 characters of a
    3,000-character name off each page); it and the title are cut with an ellipsis."""
    from conftest import classic_data

    data = classic_data()
    data["name"] = "Long deck name " * 400
    spec = tmp_path / "long.yaml"
    spec.write_text(json.dumps(data), encoding="utf-8")
    r = runner.invoke(app, ["check", str(spec), "--deals", "1", "--starts", "0", "--jobs", "1", "--report",
                            str(tmp_path / "r.pdf")])
    assert r.exit_code in (0, 3), r.output
    pdf = (tmp_path / "r.pdf").read_bytes()
    assert _chars_outside(pdf) == []
    texts = _page_texts(pdf)
    assert all(re.search(r"rove check - Long deck name.*…", t) for t in texts), texts[-1][-300:]


# --------------------------------------------------------------------------- a full disk under a folder output

FOLDER_OUTPUTS = [
    pytest.param(["cards", "-o", "c.pdf", "--png-dir", "png"], "png", id="cards-png-dir"),
    pytest.param(["cards", "--preset", "tts", "-o", "tts"], "tts", id="cards-tts"),
    pytest.param(["book", "--spec", "classic", "--count", "1", "-o", "b.pdf", "--export-dir", "ex"], "ex",
                 id="book-export-dir"),
]


@pytest.mark.parametrize("args, folder", FOLDER_OUTPUTS)
def test_a_full_disk_under_a_folder_output_names_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           fake_book: dict[str, str], args: list[str],
                                                           folder: str) -> None:
    """Every file written into a staged folder fails as on a full disk (a write error
    carries no file name): it was reported as "cannot write to standard output"."""
    from test_hardening import leftovers

    real_bytes, real_text = Path.write_bytes, Path.write_text

    def full(real: Callable[..., int]) -> Callable[..., int]:
        def write(self: Path, *a: Any, **k: Any) -> int:
            if any(".tmp" in p.name for p in self.parents):
                raise OSError(28, "No space left on device")
            return real(self, *a, **k)
        return write

    monkeypatch.setattr(Path, "write_bytes", full(real_bytes))
    monkeypatch.setattr(Path, "write_text", full(real_text))
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert r.stderr.strip().splitlines()[-1] == (f"{folder}: cannot write into this folder: No space left on "
                                                 "device; nothing was written"), r.output
    assert "standard output" not in r.output and "Traceback" not in r.output
    assert list(tmp_path.iterdir()) == [] and leftovers(tmp_path) == []


# --------------------------------------------------------------------------- --force on a folder of other files

@pytest.mark.parametrize("where", [".", "sub"])
def test_force_refuses_any_export_dir_holding_files_no_export_wrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     fake_book: dict[str, str], where: str) -> None:
    """`--export-dir . --force` wrote into the working folder and exited 0, while a folder
    holding an earlier export and the same files was refused: both are refused now, with
    nothing written, and without --force the export still goes beside them."""
    folder = tmp_path / where
    folder.mkdir(exist_ok=True)
    (folder / "notes.txt").write_text("mine")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    r = runner.invoke(app, ["book", "--spec", "classic", "--count", "1", "-o", "b.pdf", "--export-dir", where,
                            "--force"])
    assert r.exit_code == 2, r.output
    assert r.stderr.strip() == (f"{where}: --export-dir holds files no rove export wrote (notes.txt); --force "
                                "replaces only an export's own files: leave --force out to write the export "
                                "beside them, or give another folder (nothing was written)"), r.output
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    r = runner.invoke(app, ["book", "--spec", "classic", "--count", "1", "-o", "b.pdf", "--export-dir", where])
    assert r.exit_code == 0, r.output
    assert (folder / "notes.txt").read_text() == "mine" and (folder / "01-mission.yaml").exists()
    # an empty folder has nothing to lose: --force writes into it
    empty = tmp_path / "empty"
    empty.mkdir()
    assert runner.invoke(app, ["book", "--spec", "classic", "--count", "1", "-o", "e.pdf", "--export-dir",
                               "empty", "--force"]).exit_code == 0


# --------------------------------------------------------------------------- rove play's --port and --host

def test_play_on_a_port_in_use_or_an_unusable_host_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """A port another program listens on, a host that does not resolve, and an empty host
    (which the socket layer takes for every interface: it served there, with a warning
    naming "" and the address http://:PORT/) are refused, exit 2, before serving."""
    from rove.play import run

    real_bind = run.bind

    def bind(host: str, port: int) -> socket.socket:
        assert host.strip(), "an empty --host reached the socket (it would serve every interface)"
        return real_bind(host, port)

    monkeypatch.setattr(run, "bind", bind)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        r = runner.invoke(app, ["play", "--deal", "1", "--no-browser", "--port", str(port)])
        assert r.exit_code == 2, r.output
        assert f"--port: cannot serve on 127.0.0.1 port {port}: Address already in use" in r.stderr
    finally:
        taken.close()
    for host, words in (("", "--host: is empty; give an interface's address or name"),
                        (" ", "--host: is empty"), ("nosuch.invalid", "--host: cannot serve on nosuch.invalid")):
        r = runner.invoke(app, ["play", "--deal", "1", "--no-browser", "--host", host])
        assert r.exit_code == 2 and words in r.stderr, (host, r.output)
        assert "Traceback" not in r.output and "serving on" not in r.output


# --------------------------------------------------------------------------- rove solve's default budgets

def test_solve_budgets_are_the_defaults_and_a_huge_time_limit_lifts_none(dealt: Path) -> None:
    """`rove solve DEAL --time-limit 1e308` ran past a minute at 645 MB: what bounds it is
    the node limit, whose default lives with the other budgets in rove.defaults (and
    docs/LIMITS.md says its memory); the time limit lifts none of it."""
    from rove import defaults

    command = typer.main.get_command(app).commands["solve"]  # type: ignore[attr-defined]
    given = {p.name: p.default for p in command.params}
    assert (given["node_limit"], given["seer_node_limit"]) == (defaults.SOLVE_NODES, defaults.SEER_NODES)
    limits = Path(__file__).parents[1] / "docs" / "LIMITS.md"
    assert "`defaults.SOLVE_NODES`" in limits.read_text(encoding="utf-8")
    for seer in (0, 500):
        r = runner.invoke(app, ["solve", str(dealt), "--time-limit", "1e308", "--node-limit", "300",
                                "--seer-node-limit", str(seer), "--json"])
        assert r.exit_code == 3, r.output
        got = json.loads(r.stdout)
        assert got["status"] == "unknown" and got["plan"] is None and got["nodes"] <= 300 + seer + 1, got


# --------------------------------------------------------------------------- two runs, one --report

def test_two_runs_writing_one_report_leave_the_last_whole(tmp_path: Path) -> None:
    """Run A has its report staged and waits; run B writes the same --report whole; A then
    puts its own in place: both exit 0, and the file is A's report, byte for byte (the
    last to finish wins whole, never a mix), with no temporary file left."""
    from test_hardening import leftovers
    from test_reliability import held_at_commit

    check = ["check", "classic", "--deals", "2", "--starts", "0", "--jobs", "1"]
    alone = subprocess.run([rove_script(), *check, "--seed", "1", "--report", "a-alone.pdf"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr
    with held_at_commit([*check, "--seed", "1", "--report", "r.pdf"], tmp_path) as release_a:
        b = subprocess.run([rove_script(), *check, "--seed", "2", "--report", "r.pdf"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
        assert b.returncode == 0, b.stderr
        of_b = (tmp_path / "r.pdf").read_bytes()
        code, rest = release_a()
        assert code == 0, rest
    report = (tmp_path / "r.pdf").read_bytes()
    assert report == (tmp_path / "a-alone.pdf").read_bytes() and report != of_b
    assert leftovers(tmp_path) == []
