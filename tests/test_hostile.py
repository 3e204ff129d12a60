"""Hostile cases, third round (issue "Reliability, third round"): each table below is a
kept list of cases a probe found failing, run by the default suite.

* ``SIGNALS_DURING_ANALYSIS``: ``rove play`` stopped while its coach thinks inside the
  compiled core, started as a terminal starts it (SIGINT at its default) and as a
  non-interactive shell starts a background job (SIGINT ignored);
* ``FOREIGN_REQUESTS``: requests another site's page (or a rebound DNS name) can make;
* ``FIFO_COMMANDS``: commands given a named pipe nobody writes;
* ``FLOAT_OPTIONS``: every float option of every command, given a number that is not
  finite (found by walking the Click app, so a new option cannot slip by).
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import rove_script
from starlette.testclient import TestClient


def _sigint(mode: str) -> Callable[[], None]:
    """For a child process: SIGINT at its default (a terminal) or ignored (a background
    job of a shell without job control)."""
    handler = signal.SIG_DFL if mode == "terminal" else signal.SIG_IGN
    return lambda: signal.signal(signal.SIGINT, handler)


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
POSITION = """\
format: rove-position/1
spec: classic
goal: game
layout: |
  C G S
  M B L
spent: [B, C, G, L, M, S]
missions_done: 6
mission: c08
hand: [c06, c10]
draw: []
discard: []
current: null
rules: {}
"""
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
