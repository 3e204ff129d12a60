"""``rove play``: the session (undo, redo, what the page sees), the coach's answers, and
the HTTP API through Starlette's test client: every bad request is a 4xx with a
message, never a 500.  The browser test is tests/test_play_browser.py."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from conftest import rove_script
from starlette.testclient import TestClient
from typer.testing import CliRunner

from rove.actions import Action, load_plan
from rove.cli import app
from rove.engine import Deck, state_cells, state_from_position
from rove.play.coach import CANCELLED, DONE, QUEUED, Coach
from rove.play.run import PlayOptions, started_from
from rove.play.server import MAX_BODY, create_app
from rove.play.session import Session
from rove.position import load_position, normalized_cells, parse_position
from rove.replay import replay
from rove.solve.astar import solve_mission
from rove.solve.nodes import Budget

#: A puzzle as a book export writes one (a position with a title): every ability spent,
#: so the optimum (3 points) is a bonus play and three moves.
PUZZLE = """\
format: rove-position/1
title: "Puzzle 5: bonus first"
spec: classic
goal: mission
layout: |
  M L S
  C B G
spent: [B, C, G, L, M, S]
missions_done: 0
mission: c12
hand: [c08, c10, c06, c05]
draw: [c04, c01, c11, c07, c02, c03, c09]
discard: []
current: null
rules: {}
"""
PUZZLE_PLAN = ["play c06+", "C N2", "L NW2", "M E1"]

#: The last mission of a deal: won with c06's bonus, lost (proven in a few nodes) when
#: c06 is played for its base points.
LAST_MISSION = """\
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
LOSING_MOVE = "play c06-"


@pytest.fixture
def puzzle_file(tmp_path: Path) -> Path:
    path = tmp_path / "puzzle-05.yaml"
    path.write_text(PUZZLE, encoding="utf-8")
    return path


@pytest.fixture
def last_mission_file(tmp_path: Path) -> Path:
    path = tmp_path / "last.yaml"
    path.write_text(LAST_MISSION, encoding="utf-8")
    return path


def make_file(folder: Path, text: str, name: str = "position.yaml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def make(path: Path, open_deck: bool = False, autostart: bool = True, nodes: int = 200_000,
         seer_nodes: int = 300_000, think_ahead: bool = False) -> tuple[TestClient, Session, Coach]:
    session = Session(started_from(PlayOptions(position=path, open_deck=open_deck)))
    coach = Coach(session, nodes, 50_000, autostart=autostart, seer_nodes=seer_nodes, think_ahead=think_ahead)
    client = TestClient(create_app(session, coach), base_url="http://127.0.0.1",
                        raise_server_exceptions=False)
    return client, session, coach


def asked(client: TestClient, coach: Coach, ask: str, level: int = 1) -> dict[str, Any]:
    """Ask the coach through the API and wait for the worker's answer."""
    r = client.post("/api/coach", json={"ask": ask, "level": level})
    assert r.status_code == 202, r.text
    job = coach.get(r.json()["job"])
    assert job is not None and coach.wait(job, timeout=120), "the coach did not answer"
    got = client.get(f"/api/coach/{job.id}").json()
    assert got["status"] == DONE, got
    result: dict[str, Any] = got["result"]
    return result


def post(client: TestClient, notation: str) -> dict[str, Any]:
    r = client.post("/api/action", json={"action": notation})
    assert r.status_code == 200, r.text
    view: dict[str, Any] = r.json()
    return view


# --------------------------------------------------------------------------- the session


def test_the_page_sees_what_a_player_sees(puzzle_file: Path) -> None:
    client, _, _ = make(puzzle_file)
    v = client.get("/api/state").json()
    assert v["title"] == "Puzzle 5: bonus first" and v["goal"] == "mission" and v["status"] == "playing"
    assert v["cells"]["M"] == [0, 0] and v["cells"]["G"] == [2, 1]
    assert sorted(v["spent"]) == ["B", "C", "G", "L", "M", "S"]
    assert [h["id"] for h in v["hand"]] == ["c08", "c10", "c06", "c05"]
    # the draw pile: its size and its top card (mission side up), not its order
    assert v["draw"] == {"count": 7, "top": "c04"}
    assert "c01" not in json.dumps({k: v[k] for k in ("draw", "hand", "discard", "legal")})
    # the legal actions are the engine's: plays of the hand, no move without points
    assert {a["n"] for a in v["legal"]} == {"play c08-", "play c10-", "play c06+", "play c06-", "play c05-"}
    assert v["palette"]["ink"].startswith("#") and v["modules"]["B"]["text"]


def test_open_shows_the_draw_order(puzzle_file: Path) -> None:
    client, _, _ = make(puzzle_file, open_deck=True)
    assert client.get("/api/state").json()["draw"]["cards"] == ["c04", "c01", "c11", "c07", "c02", "c03", "c09"]


def test_the_optimal_plan_completes_the_puzzle_and_exports_replay(puzzle_file: Path, tmp_path: Path) -> None:
    client, session, _ = make(puzzle_file)
    pos = load_position(puzzle_file)
    deck = Deck(pos.spec, pos.rules)
    plan, _ = solve_mission(deck, state_from_position(deck, pos), Budget(float("inf"), 100_000))
    assert plan is not None and [a.notation() for a in plan] == PUZZLE_PLAN
    v = post(client, PUZZLE_PLAN[0])
    assert v["current"] == {"card": "c06", "points": 3}
    # mid-way, the exported position is the table now, and `rove solve` can read it
    moves = {a["n"]: a for a in v["legal"]}
    assert moves["C N2"]["cells"]["C"] == [0, -1] and moves["C N2"]["moved"] == ["C"]
    post(client, "C N2")
    mid = client.get("/api/export/position")
    assert mid.status_code == 200 and "attachment" in mid.headers["content-disposition"]
    again = state_from_position(deck, parse_position(mid.text, "mid.yaml"))
    now = session.state  # the export writes the layout from its corner: the same up to translation
    assert normalized_cells(state_cells(deck, again)) == normalized_cells(state_cells(deck, now))
    assert again == replace(now, cells=again.cells)
    for n in PUZZLE_PLAN[2:]:
        v = post(client, n)
    assert v["status"] == "goal" and v["plan"] == PUZZLE_PLAN and v["points_spent"] == 3
    assert v["legal"] == []
    # the plan export replays from the start position to the goal
    (tmp_path / "plan.json").write_text(client.get("/api/export/plan").text, encoding="utf-8")
    r = replay(pos, load_plan(tmp_path / "plan.json"))
    assert r.legal and r.goal_reached and r.points_spent == 3
    # once the goal is reached there is no position now: the start is exported, which
    # `rove replay` reads with the plan to play the finished game through
    over = client.get("/api/export/position")
    assert over.status_code == 200 and 'filename="rove-position-start.yaml"' in over.headers["content-disposition"]
    (tmp_path / "start.yaml").write_text(over.text, encoding="utf-8")
    r = replay(load_position(tmp_path / "start.yaml"), load_plan(tmp_path / "plan.json"))
    assert r.legal and r.goal_reached and r.points_spent == 3


def test_an_exported_position_names_a_copied_spec_by_its_absolute_path(tmp_path: Path) -> None:
    """A book export names its spec relative to the puzzle (specs/classic.yaml); the
    browser may save an export anywhere, so the export names that file absolutely."""
    from conftest import CLASSIC

    book = tmp_path / "book"
    (book / "specs").mkdir(parents=True)
    (book / "specs" / "classic.yaml").write_bytes(CLASSIC.read_bytes())
    (book / "05.yaml").write_text(PUZZLE.replace("spec: classic", "spec: specs/classic.yaml"), encoding="utf-8")
    client, _, _ = make(book / "05.yaml")
    post(client, "play c06+")
    text = client.get("/api/export/position").text
    assert f"spec: {(book / 'specs' / 'classic.yaml').resolve()}" in text
    assert 'title: "Puzzle 5: bonus first (after step 1)"' in text
    elsewhere = tmp_path / "downloads"
    elsewhere.mkdir()
    (elsewhere / "saved.yaml").write_text(text, encoding="utf-8")
    assert load_position(elsewhere / "saved.yaml").current is not None
    # a bundled spec stays a name
    client, _, _ = make(make_file(tmp_path, PUZZLE))
    assert "spec: classic\n" in client.get("/api/export/position").text


def test_undo_redo_and_goto(puzzle_file: Path) -> None:
    client, session, _ = make(puzzle_file)
    start = session.state
    for n in PUZZLE_PLAN[:3]:
        post(client, n)
    v = client.post("/api/undo", json={}).json()
    assert v["cursor"] == 2 and v["plan"] == PUZZLE_PLAN[:2] and v["redo"] == PUZZLE_PLAN[2:3]
    v = client.post("/api/redo", json={}).json()
    assert v["plan"] == PUZZLE_PLAN[:3] and v["can_redo"] is False
    assert client.post("/api/redo", json={}).status_code == 409
    v = client.post("/api/goto", json={"step": 0}).json()
    assert v["cursor"] == 0 and session.state == start and v["redo"] == PUZZLE_PLAN[:3]
    assert client.post("/api/undo", json={}).json()["error"].startswith("nothing to undo")
    client.post("/api/goto", json={"step": 1})
    # a new move after an undo drops the undone ones
    v = post(client, "B N2")
    assert v["plan"] == ["play c06+", "B N2"] and v["redo"] == []


# --------------------------------------------------------------------------- bad requests


def test_every_bad_request_is_a_4xx_with_a_message(puzzle_file: Path) -> None:
    client, _, _ = make(puzzle_file)
    js = {"content-type": "application/json"}
    cases: list[tuple[str, str, dict[str, Any], int, str]] = [
        ("POST", "/api/action", {"content": b"{", "headers": js}, 400, "not valid JSON"),
        ("POST", "/api/action", {"content": b"[1, 2]", "headers": js}, 400, "JSON object"),
        ("POST", "/api/action", {"content": b"[" * 5000 + b"]" * 5000, "headers": js}, 400, "JSON"),
        ("POST", "/api/action", {"content": b'{"action": "B E2"}', "headers": {"content-type": "text/plain"}},
         403, "application/json"),
        ("POST", "/api/action", {"json": {}}, 400, "give the move"),
        ("POST", "/api/action", {"json": {"action": "jump around"}}, 400, "starts with 'play' or a module"),
        ("POST", "/api/action", {"json": {"action": "B fly"}}, 400, "not an action"),
        ("POST", "/api/action", {"json": {"action": 42}}, 400, "notation"),
        ("POST", "/api/action", {"json": {"action": {"act": "fly"}}}, 400, "use play, move or ability"),
        ("POST", "/api/action", {"json": {"action": {"act": "ability", "module": "B", "target": "C"}}}, 400,
         "has no notation"),
        ("POST", "/api/action", {"json": {"action": {"act": "ability", "module": "B", "target": "C",
                                                     "to": [5, 5]}}}, 422, "illegal: B is spent"),
        ("POST", "/api/action", {"json": {"action": "B E2"}}, 422, "no movement points"),
        ("POST", "/api/action", {"json": {"action": "Z E2"}}, 422, "there is no module"),
        ("POST", "/api/action", {"json": {"action": "play c01"}}, 422, "not in the hand"),
        ("POST", "/api/action", {"json": {"action": "play c08+"}}, 422, "does not match"),
        ("POST", "/api/action", {"json": {"action": "x" * (MAX_BODY + 10)}}, 413, "larger than"),
        ("POST", "/api/goto", {"json": {"step": "one"}}, 400, "give the step"),
        ("POST", "/api/goto", {"json": {"step": 99}}, 409, "not in this game"),
        ("POST", "/api/undo", {"json": {}}, 409, "nothing to undo"),
        ("POST", "/api/coach", {"json": {"ask": "mate in 3"}}, 400, "use one of"),
        ("POST", "/api/coach", {"json": {"ask": "hint", "level": 7}}, 400, "level"),
        ("POST", "/api/coach", {"json": {"ask": "hint", "level": True}}, 400, "level"),
        ("POST", "/api/coach", {"json": {"ask": "expert"}}, 400, "the expert plays deals"),
        ("GET", "/api/coach/12345", {}, 404, "no analysis"),
        ("GET", "/api/coach/99999999999999999999", {}, 404, "no analysis"),
        ("GET", "/api/coach/abc", {}, 404, "no analysis"),
        ("GET", "/api/nothing", {}, 404, "Not Found"),
        ("GET", "/static/../../etc/passwd", {}, 404, "Not Found"),
        ("GET", "/api/action", {}, 405, "Method Not Allowed"),
        ("DELETE", "/api/state", {"headers": js}, 405, "Method Not Allowed"),
    ]
    for method, url, kwargs, status, words in cases:
        r = client.request(method, url, **kwargs)
        assert r.status_code == status, (url, kwargs, r.status_code, r.text)
        assert words in r.json()["error"], (url, r.json())
    # a request for another host name (DNS rebinding) is refused before any route
    assert client.get("/api/state", headers={"host": "evil.example"}).status_code == 400
    # and nothing changed
    assert client.get("/api/state").json()["cursor"] == 0


def test_a_declared_huge_body_is_refused_before_reading(puzzle_file: Path) -> None:
    client, _, _ = make(puzzle_file)
    r = client.post("/api/action", content=b"{}", headers={"content-type": "application/json",
                                                            "content-length": str(10**12)})
    assert r.status_code == 413


# --------------------------------------------------------------------------- the coach


def test_puzzle_verdicts_and_hints(puzzle_file: Path) -> None:
    client, _, coach = make(puzzle_file)
    v = asked(client, coach, "verdict")
    assert v["verdict"] == "optimal" and v["optimum"] == 3 and v["spent"] == 0
    h1, h2, h3 = (asked(client, coach, "hint", level) for level in (1, 2, 3))
    assert h1["module"] == "C" and "action" not in h1 and h1["text"].startswith("play a card, then C")
    assert h2["action"] == "play c06+" and "plan" not in h2
    assert h3["plan"] == PUZZLE_PLAN
    # a move away from the optimal line: still solvable, in 5 points at best
    post(client, "play c06+")
    post(client, "B E2")
    v = asked(client, coach, "verdict")
    assert v["verdict"] == "behind" and v["optimum"] == 3 and v["spent"] == 1, v
    assert "in 5 points at best" in v["text"]
    client.post("/api/goto", json={"step": 0})
    for n in PUZZLE_PLAN:
        post(client, n)
    v = asked(client, coach, "verdict")
    assert v["verdict"] == "complete" and v["optimal"] is True and v["spent"] == 3


def test_deal_verdict_lost_after_a_losing_move_and_won_after_undo(last_mission_file: Path) -> None:
    client, _, coach = make(last_mission_file)
    first = asked(client, coach, "verdict")
    assert first["verdict"] == "won" and "still winnable" in first["text"]
    post(client, LOSING_MOVE)
    lost = asked(client, coach, "verdict")
    assert lost["verdict"] == "lost" and lost["nodes"] > 0 and "proven" in lost["text"]
    hint = asked(client, coach, "hint", 2)
    assert hint["verdict"] == "lost"
    client.post("/api/undo", json={})
    assert asked(client, coach, "verdict") == first  # answers are kept per state
    # the expert's move is one the engine lists as legal here
    expert = asked(client, coach, "expert")
    legal = {a["n"] for a in client.get("/api/state").json()["legal"]}
    assert expert["verdict"] == "move" and expert["action"] in legal
    assert Action.parse(expert["action"]).act == "play"


def test_an_unknown_verdict_says_how_many_nodes_and_thinks_on(last_mission_file: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """With no seer, the first verdict's search is the quick one and unknown, saying how
    far it got; asking again climbs: the full ``nodes``, then four times that, and a hint
    then says no more."""
    import rove.play.coach as coach_module

    monkeypatch.setattr(coach_module, "QUICK_SEARCH_NODES", 1)
    client, _, coach = make(last_mission_file, nodes=2, seer_nodes=0)
    v = asked(client, coach, "verdict")
    assert v["verdict"] == "unknown" and "within 1 node" in v["text"] and v["solver"] is None
    assert v["more"] is True and "ask again to keep thinking" in v["text"]
    again = asked(client, coach, "verdict")
    assert again["verdict"] == "unknown" and "within 2 nodes" in again["text"]
    third = asked(client, coach, "verdict")
    assert third["verdict"] == "unknown" and "within 8 nodes" in third["text"]
    assert asked(client, coach, "hint")["verdict"] == "unknown"


def test_the_seer_answers_first_and_its_line_is_kept(last_mission_file: Path) -> None:
    """On a deal the seer wins, it answers (named), its first step is the hint, and after
    that step the next verdict comes from the line already found, with no search."""
    client, _, coach = make(last_mission_file)
    v = asked(client, coach, "verdict")
    assert v["verdict"] == "won" and v["solver"] == "seer" and "the seer" in v["text"]
    hint = asked(client, coach, "hint", 3)
    assert hint["solver"] == "seer"
    post(client, hint["plan"][0])
    nxt = asked(client, coach, "verdict")
    assert (nxt["verdict"], nxt["solver"], nxt["nodes"]) == ("won", "known line", 0)
    assert asked(client, coach, "hint", 3)["plan"] == hint["plan"][1:]


def test_think_ahead_starts_the_verdict_before_it_is_asked(last_mission_file: Path) -> None:
    """With think_ahead (``rove play``), a move starts the new position's verdict at once;
    the player's question joins that job rather than asking again."""
    client, _, coach = make(last_mission_file, think_ahead=True)
    coach.look_ahead()
    assert coach.idle(timeout=120)
    first = next(iter(coach.jobs.values()))
    assert first.background and first.result is not None and first.result["verdict"] == "won"
    post(client, LOSING_MOVE)
    assert coach.idle(timeout=120)
    jobs = list(coach.jobs.values())
    assert len(jobs) == 2 and jobs[1].background and jobs[1].result["verdict"] == "lost"
    v = asked(client, coach, "verdict")  # answered from what was found ahead: no new search
    assert v["verdict"] == "lost" and len(coach.jobs) == 3


def test_a_move_cancels_a_stale_analysis(puzzle_file: Path) -> None:
    client, _, coach = make(puzzle_file, autostart=False)
    r = client.post("/api/coach", json={"ask": "hint", "level": 3})
    job_id = r.json()["job"]
    assert client.get(f"/api/coach/{job_id}").json()["status"] == QUEUED
    post(client, "play c06+")
    assert client.get(f"/api/coach/{job_id}").json()["status"] == CANCELLED
    coach.start()
    fresh = asked(client, coach, "hint", 3)
    assert fresh["plan"] == PUZZLE_PLAN[1:]
    assert client.get(f"/api/coach/{job_id}").json()["status"] == CANCELLED


def test_a_move_stops_a_running_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On the pure-Python path the stale search stops at its next node: a verdict with a
    budget of 50M nodes (hours of work) ends as soon as a move is made."""
    monkeypatch.setenv("ROVE_CORE", "0")
    session = Session(started_from(PlayOptions(deal_seed=11, difficulty="impossible")))
    coach = Coach(session, 50_000_000, seer_nodes=0)
    session.play(Action.parse("play c01-"))
    job = coach.ask("verdict")
    while job.status == QUEUED:  # until the worker has taken it
        coach.idle(0.01)
    assert job.status == "running"
    session.undo()
    coach.changed()
    assert job.status == CANCELLED
    assert coach.idle(timeout=60), "the stale search did not stop"
    assert job.status == CANCELLED and job.result is None and job.state not in coach.answers


def test_a_move_stops_a_running_seer() -> None:
    """The seer stops before its next decision once its job is stale: a verdict whose
    seer has 50M nodes (many minutes) ends soon after a move."""
    session = Session(started_from(PlayOptions(deal_seed=11, difficulty="impossible")))
    coach = Coach(session, 50_000_000, seer_nodes=50_000_000)
    job = coach.ask("verdict")
    while job.status == QUEUED:
        coach.idle(0.01)
    session.play(Action.parse("play c01-"))
    coach.changed()
    assert job.status == CANCELLED
    assert coach.idle(timeout=60), "the stale seer did not stop"
    assert job.result is None and job.state not in coach.answers


# --------------------------------------------------------------------------- the command


def test_the_page_and_its_files_are_served(puzzle_file: Path) -> None:
    client, _, _ = make(puzzle_file)
    page = client.get("/")
    assert page.status_code == 200 and "/static/play.js" in page.text
    assert client.get("/static/play.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/play.css").status_code == 200


def test_command_line_bad_input_exits_2(puzzle_file: Path, tmp_path: Path, runner: CliRunner) -> None:
    r = runner.invoke(app, ["play"])
    assert r.exit_code == 2 and "--deal SEED" in r.output
    r = runner.invoke(app, ["play", str(puzzle_file), "--deal", "3"])
    assert r.exit_code == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(PUZZLE.replace("mission: c12", "mission: c99"), encoding="utf-8")
    r = runner.invoke(app, ["play", str(bad), "--no-browser"])
    assert r.exit_code == 2 and f"{bad}:" in r.output and "c99" in r.output


def test_a_port_in_use_is_bad_input(puzzle_file: Path, runner: CliRunner) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = runner.invoke(app, ["play", str(puzzle_file), "--no-browser", "--port", str(port)])
    assert r.exit_code == 2 and f"cannot serve on 127.0.0.1 port {port}" in r.output
    assert "give another --port" in r.output


def test_serves_on_loopback_and_ctrl_c_exits_130(puzzle_file: Path) -> None:
    proc = subprocess.Popen([rove_script(), "play", str(puzzle_file), "--no-browser"],
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        with urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/api/state") as res:
            assert json.load(res)["title"] == "Puzzle 5: bonus first"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
        assert "interrupted" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_page_draws_the_cards_own_arrows(puzzle_file: Path) -> None:
    """The arrows come from rove.pdf.glyphs through the SVG canvas: a jump's hop is a
    curve, a push's block a rectangle, a short arrow's tick a second line."""
    from rove.grid import DIRECTION_BY_NAME
    from rove.pdf.cards import MODULE_ACCENT, SPENT_INK
    from rove.play.svgcanvas import _hex, compass_svg
    from rove.spec import Arrow

    client, _, _ = make(puzzle_file)
    v = client.get("/api/state").json()
    assert v["palette"]["module_accent"] == _hex(MODULE_ACCENT)
    active, spent = v["modules"]["C"]["glyphs"]
    curve = re.compile(r'<path d="[^"]*C')  # a path with a Bezier segment: a jump's hop
    assert active.startswith('<g transform="scale(1,-1)">') and curve.search(active)  # Coil's jumps
    assert spent != active and f'"{_hex(SPENT_INK)}"' in spent  # the spent side in the spent ink
    east = (DIRECTION_BY_NAME["E"],)
    jump = compass_svg([Arrow("jump", east)], 0.2, 0.44, 0.021, MODULE_ACCENT)
    push = compass_svg([Arrow("push", east)], 0.2, 0.44, 0.021, MODULE_ACCENT)
    short = compass_svg([Arrow("short", east)], 0.2, 0.44, 0.021, MODULE_ACCENT)
    assert "<circle" in jump and curve.search(jump) and "<rect" not in jump
    assert "<rect" in push and "<circle" not in push
    assert short.count("<line") == 2 and "<rect" not in short


def test_the_command_line_does_not_load_the_web_stack() -> None:
    """`rove --help` stays fast: Starlette and uvicorn load only when `rove play` runs."""
    code = ("import sys, rove.cli; print(sorted(m for m in ('starlette', 'uvicorn', 'reportlab') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _interrupted_while_busy(args: list[str], move: str, ask: str, env: dict[str, str] | None = None) -> str:
    """``rove play ARGS``: play ``move``, ask the coach ``ask``, then Ctrl-C while it
    works; the exit must be 130.  What the server printed on stderr."""
    proc = subprocess.Popen([rove_script(), "play", *args, "--no-browser"], stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        assert proc.stderr is not None
        m = re.search(r"(http://127\.0\.0\.1:\d+/)", proc.stderr.readline())
        assert m
        for path, body in (("api/action", {"action": move}), ("api/coach", {"ask": ask})):
            req = urllib.request.Request(m.group(1) + path, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
            with urllib.request.urlopen(req) as res:
                assert res.status in (200, 202)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
        return proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_exits_130_while_the_coach_is_busy(tmp_path: Path) -> None:
    """A verdict running in the worker (the pure-Python search, which takes a while on
    this deal) does not keep Ctrl-C from stopping the server with 130."""
    stderr = _interrupted_while_busy(["--deal", "11", "--difficulty", "impossible", "--coach-nodes", "50000000"],
                                     "play c01-", "verdict", {**os.environ, "ROVE_CORE": "0"})
    assert "interrupted" in stderr


# --------------------------------------------------------------------------- a book's folder (rove play DIR)


def book_folder(folder: Path) -> Path:
    """A classic book's export (`rove book --export-dir`) with an index.json written by
    hand from its files, in the format docs/FORMATS.md gives ("Book index")."""
    out = folder / "book"
    subprocess.run([rove_script(), "book", "--spec", "classic", "--count", "4", "--seed", "1",
                    "-o", str(folder / "book.pdf"), "--export-dir", str(out)], check=True, capture_output=True)
    puzzles = []
    for path in sorted(out.glob("[0-9][0-9]-*.yaml")):
        number, kind = int(path.name[:2]), path.stem.split("-")[1]
        title = re.sub(r"^Puzzle \d+: ", "", load_position_title(path))
        plan = load_plan(path.with_name(path.stem + ".plan.json"))
        optimum = None if kind == "deal" else {"points": sum(a.act == "move" for a in plan),
                                              "cards": sum(a.act == "play" for a in plan),
                                              "abilities": sum(a.act == "ability" for a in plan)}
        puzzles.append({"number": number, "file": path.name, "solution": path.stem + ".plan.json",
                        "title": title, "kind": kind, "stars": 1 + number % 3, "optimum": optimum,
                        "hints": [f"puzzle {number}, hint {level}" for level in (1, 2, 3)]})
    index = {"format": "rove-book-index", "version": 1, "title": "A classic book", "spec": "specs/classic.yaml",
             "seed": 1, "puzzles": puzzles}
    (out / "index.json").write_text(json.dumps(index, indent=2), encoding="utf-8")
    return out


def load_position_title(path: Path) -> str:
    m = re.search(r'^title: "(.*)"$', path.read_text(encoding="utf-8"), re.MULTILINE)
    assert m, path
    return m.group(1)


def test_a_books_folder_lists_its_puzzles_and_plays_them(tmp_path: Path) -> None:
    from rove.play.book import load_index

    folder = book_folder(tmp_path)
    book = load_index(folder)
    session = Session(book.started(1))
    coach = Coach(session, 200_000, 50_000)
    client = TestClient(create_app(session, coach, book=book), base_url="http://127.0.0.1",
                        raise_server_exceptions=False)
    listing = client.get("/api/book").json()
    assert listing["key"] == "A classic book#1" and [p["number"] for p in listing["puzzles"]] == [1, 2, 3, 4]
    assert listing["puzzles"][1]["hints"] == ["puzzle 2, hint 1", "puzzle 2, hint 2", "puzzle 2, hint 3"]
    assert "file" not in listing["puzzles"][0]  # the page picks by number; it never names a file
    v = client.post("/api/book/open", json={"number": 2}).json()
    assert v["puzzle"] == 2 and v["title"].startswith("Puzzle 2: ") and v["goal"] == "mission"
    solution = [a.notation() for a in load_plan(folder / "02-mission.plan.json")]
    v = client.post("/api/line", json={"puzzle": 2, "plan": solution}).json()
    assert v["status"] == "goal" and v["plan"] == solution
    # another puzzle by the address's line; a bad number or line is a 4xx, the game unchanged
    assert client.post("/api/book/open", json={"number": 9}).status_code == 400
    assert client.post("/api/line", json={"puzzle": 2, "plan": ["B N9"]}).status_code == 422
    assert client.get("/api/state").json()["plan"] == solution
    assert client.post("/api/line", json={"puzzle": 4, "plan": []}).json()["puzzle"] == 4
    # without a book there is no list
    client, _, _ = make(make_file(tmp_path, PUZZLE))
    assert client.get("/api/book").status_code == 404


def test_a_shared_link_plays_its_position_only_on_its_deck(tmp_path: Path) -> None:
    client, session, _ = make(make_file(tmp_path, LAST_MISSION))
    v = client.post("/api/line", json={"position": PUZZLE, "plan": PUZZLE_PLAN[:2]}).json()
    assert v["title"] == "Puzzle 5: bonus first" and v["plan"] == PUZZLE_PLAN[:2]
    assert session.started.spec_ref == "classic"
    standard = PUZZLE.replace("spec: classic", "spec: standard")
    r = client.post("/api/line", json={"position": standard, "plan": []})
    assert r.status_code == 422 and "this server plays 'classic'" in r.json()["error"]
    assert client.get("/api/state").json()["plan"] == PUZZLE_PLAN[:2]


def test_a_folder_without_a_good_index_is_bad_input(tmp_path: Path, runner: CliRunner) -> None:
    r = runner.invoke(app, ["play", str(tmp_path), "--no-browser"])
    assert r.exit_code == 2 and "without index.json" in r.output and "rove book --export-dir" in r.output
    folder = book_folder(tmp_path)
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    index["puzzles"][1]["stars"] = 5
    index["puzzles"][2]["file"] = "../elsewhere.yaml"
    index["puzzles"][3]["hints"] = ["only one"]
    (folder / "index.json").write_text(json.dumps(index), encoding="utf-8")
    r = runner.invoke(app, ["play", str(folder), "--no-browser"])
    assert r.exit_code == 2 and f"{folder / 'index.json'}" in r.output, r.output
    assert "puzzles[1].stars is 5" in r.output and "without '..'" in r.output and "three strings" in r.output
    (folder / "index.json").write_text("{\n  \"format\": ", encoding="utf-8")
    r = runner.invoke(app, ["play", str(folder), "--no-browser"])
    assert r.exit_code == 2 and "not valid JSON" in r.output and "Traceback" not in r.output


def test_answers_go_out_without_waiting_for_an_ack() -> None:
    """The listening socket turns Nagle's algorithm off, and every accepted connection
    inherits it: with it on, each request on a browser's kept-alive connection waited
    some 40 ms for the delayed ACK (the headers and the body are two writes)."""
    import socket

    from rove.play.run import bind

    sock = bind("127.0.0.1", 0)
    try:
        with socket.create_connection(sock.getsockname()):
            conn, _ = sock.accept()
            with conn:
                assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        sock.close()


def test_ctrl_c_exits_130_while_the_compiled_core_searches() -> None:
    """Ctrl-C while the coach's thread is inside the compiled core (the think-ahead
    verdict and a hint of a deal): the worker is told to stop and waited for, so the
    process exits 130; exiting under it aborted ("FATAL: exception not rethrown", 134)."""
    assert "FATAL" not in _interrupted_while_busy(["--deal", "7"], "play c01+", "hint")
