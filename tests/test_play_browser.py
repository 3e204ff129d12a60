"""``rove play`` end to end: the real command serving the page, a real headless Chromium
(the distribution's, driven by Selenium through its own chromedriver; nothing is
downloaded) clicking through a puzzle and a deal.

The browser comes from ``make browser`` (which ``make test`` runs).  Without it the
tests fail under ``CI=true`` and are skipped, with the reason, elsewhere.  Screenshots
of the main states go to the system's temporary folder, never into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import rove_script
from test_play import LAST_MISSION, LOSING_MOVE, PUZZLE, PUZZLE_PLAN, book_folder, make_file

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
WAIT = 60  # seconds a page may take to show what it is waiting for: a guard, never a verdict
SHOTS = Path(tempfile.gettempdir()) / "rove-play-shots"


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    if not (CHROMIUM and CHROMEDRIVER):
        why = ("chromium and chromedriver are not installed; `make browser` installs them "
               "(apt-get install chromium chromium-driver)")
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or driver
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--disable-gpu", "--no-first-run"):
        opts.add_argument(arg)
    d = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        yield d
    finally:
        d.quit()


def serve(*args: object) -> tuple[subprocess.Popen[str], str]:
    """``rove play ARGS --no-browser`` and its address."""
    proc = subprocess.Popen([rove_script(), "play", *map(str, args), "--no-browser"], stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        proc.kill()
        raise AssertionError(f"rove play did not print its address: {line!r}")
    return proc, m.group(1)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def shot(d: object, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    d.save_screenshot(str(SHOTS / f"{name}.png"))  # type: ignore[attr-defined]


def click_action(d: object, notation: str) -> None:
    """Make one action as a player does: a card then its play button, or a module then
    its marked cell or ability button."""
    from selenium.webdriver.common.by import By

    if notation.startswith("play "):
        first = f'#hand [data-card="{notation.split()[1].rstrip("+-")}"]'
    else:
        first = f'[data-module="{notation.split()[0]}"]'
    for css in (first, f'[data-action="{notation}"]'):
        found = d.find_element(By.CSS_SELECTOR, css)  # type: ignore[attr-defined]
        # as a player scrolls it up: the bar of controls stays over the viewport's bottom
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", found)  # type: ignore[attr-defined]
        found.click()


def wait_text(d: object, css: str, pattern: str) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    found: list[str] = []

    def has(drv: object) -> bool:
        text = drv.find_element(By.CSS_SELECTOR, css).text  # type: ignore[attr-defined]
        found[:] = [text]
        return re.search(pattern, text, re.IGNORECASE | re.DOTALL) is not None

    try:
        WebDriverWait(d, WAIT, poll_frequency=0.05).until(has)
    except Exception:
        raise AssertionError(f"{css} never showed {pattern!r}; it shows {found[-1:]!r}") from None
    return found[-1]


def plan_length(d: object) -> int:
    from selenium.webdriver.common.by import By

    return len(d.find_elements(By.CSS_SELECTOR, "#plan li:not(.undone)")) - 1  # type: ignore[attr-defined]


def wait_plan(d: object, n: int) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, WAIT, poll_frequency=0.05).until(lambda drv: plan_length(drv) == n)


def test_a_book_puzzle_solved_by_clicking(driver: object, tmp_path: Path) -> None:
    path = tmp_path / "puzzle-05.yaml"
    path.write_text(PUZZLE, encoding="utf-8")
    proc, url = serve(path)
    try:
        d = driver
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 5")
        shot(d, "puzzle-start")
        for i, notation in enumerate(PUZZLE_PLAN, 1):
            click_action(d, notation)
            wait_plan(d, i)
            if i == 2:
                from selenium.webdriver.common.by import By
                from selenium.webdriver.common.keys import Keys

                d.find_element(By.CSS_SELECTOR, '[data-module="L"]').click()  # type: ignore[attr-defined]
                shot(d, "puzzle-moves-of-L")
                d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)  # type: ignore[attr-defined]
        wait_text(d, "#status", "mission complete")
        wait_text(d, "#plan", r"play c06\+.*C N2.*L NW2.*M E1")
        from selenium.webdriver.common.by import By

        d.find_element(By.ID, "ask-verdict").click()  # type: ignore[attr-defined]
        wait_text(d, "#coach", "mission complete in 3 points; that is the optimum")
        shot(d, "puzzle-complete")
    finally:
        stop(proc)


def test_a_losing_move_on_a_deal_the_coach_and_undo(driver: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    path = tmp_path / "last.yaml"
    path.write_text(LAST_MISSION, encoding="utf-8")
    proc, url = serve(path)
    try:
        d = driver
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#goal", "goal: game")
        click_action(d, LOSING_MOVE)
        wait_plan(d, 1)
        d.find_element(By.ID, "ask-verdict").click()  # type: ignore[attr-defined]
        wait_text(d, "#coach", r"^lost: no line wins from here \(proven")
        shot(d, "deal-lost")
        d.find_element(By.ID, "undo").click()  # type: ignore[attr-defined]
        wait_plan(d, 0)
        d.find_element(By.TAG_NAME, "body").send_keys("w")  # type: ignore[attr-defined]
        wait_text(d, "#coach", "still winnable")
        d.find_element(By.TAG_NAME, "body").send_keys("h")  # type: ignore[attr-defined]
        wait_text(d, "#coach", "is the module to use next")
        shot(d, "deal-undone-hint")
        # a hint at the next level names the move; the redo key brings the losing move back
        d.find_element(By.TAG_NAME, "body").send_keys("h")  # type: ignore[attr-defined]
        wait_text(d, "#coach", r"^next: play c06\+")
        hinted = d.find_element(By.CSS_SELECTOR, '#plays [data-action="play c06+"]')  # type: ignore[attr-defined]
        assert "hinted" in hinted.get_attribute("class")
        shot(d, "deal-hint-level-2")
        d.find_element(By.TAG_NAME, "body").send_keys("r")  # type: ignore[attr-defined]
        wait_plan(d, 1)
    finally:
        stop(proc)


# --------------------------------------------------------------------------- for players (issue 64)

#: A book's puzzle of the standard deck (puzzle 22 of `rove book --spec standard --count
#: 24`): long arrows, where Motor's drawing once took clicks meant for Sensor and Gripper.
LONG_ARROWS = """\
format: rove-position/1
title: "Puzzle 22: Mission in 8 moves"
spec: standard
goal: mission
layout: |
  B L G
  C . . S
  . . . . M
spent: [B, C, G, L, M, S]
missions_done: 0
mission: c08
hand: []
draw: []
discard: []
current: {card: null, points: 8}
rules: {}
"""


def js(d: object, script: str, *args: object) -> Any:
    return d.execute_script(script, *args)  # type: ignore[attr-defined]


def viewport(d: object, width: int, height: int) -> None:
    """The page's viewport exactly (the headless window's size counts its frame)."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # type: ignore[attr-defined]
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})


@pytest.fixture
def desktop(driver: object) -> Iterator[object]:
    """The shared browser at 1280x800, put back to its own size afterwards."""
    viewport(driver, 1280, 800)
    try:
        yield driver
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]


def key(d: object, *keys: str) -> None:
    from selenium.webdriver.common.by import By

    d.find_element(By.TAG_NAME, "body").send_keys(*keys)  # type: ignore[attr-defined]


def click(d: object, css: str) -> None:
    from selenium.webdriver.common.by import By

    d.find_element(By.CSS_SELECTOR, css).click()  # type: ignore[attr-defined]


def answered(d: object) -> str:
    """Wait for the coach's answer (not its progress) and return it.  Servers are
    stopped only with the coach idle: Ctrl-C while the compiled search runs in the
    coach's thread can abort the process."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, WAIT, poll_frequency=0.05).until(
        lambda drv: re.search(r"\b(done|failed)\b", js(drv, "return document.getElementById('coach').className")))
    return coach_text(d)


def coach_text(d: object) -> str:
    return str(js(d, "return document.getElementById('coach').textContent"))


def test_no_answer_outlives_its_position(desktop: object, tmp_path: Path) -> None:
    """Issue 64.1: a hint asked after a move is gone once the move is undone, redone or
    the game restarted; the start's own hint is then the start's."""
    d = desktop
    proc, url = serve(make_file(tmp_path, PUZZLE))
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 5")
        js(d, """const real = window.fetch; window.posts = [];
                 window.fetch = (url, o) => {
                   if (o && o.method === "POST") posts.push([url, o.headers["Content-Type"]]);
                   return real(url, o);
                 };""")
        key(d, "h")
        start_hint = wait_text(d, "#coach", "is the module to use next|play a card")
        click_action(d, "play c06+")
        wait_plan(d, 1)
        assert coach_text(d) == ""
        key(d, "h", "h")
        after = wait_text(d, "#coach", r"^next: ")
        assert after != start_hint
        for what in ("u", "r", "restart"):
            if what == "restart":
                click(d, "#restart")
            else:
                key(d, what)
            wait_plan(d, 0 if what != "r" else 1)
            # no answer of the position before, now or once a late poll comes back
            for _ in range(3):
                assert after not in coach_text(d), what
                time.sleep(0.2)
        key(d, "h")
        assert wait_text(d, "#coach", "is the module to use next|play a card") == start_hint
        # every POST the page made (move, coach, undo, redo, restart) said it is JSON
        posts = js(d, "return posts")
        assert {u.rsplit("/", 1)[1] for u, _ in posts} >= {"action", "coach", "undo", "redo", "goto"}
        assert {t for _, t in posts} == {"application/json"}
    finally:
        stop(proc)


def in_view(d: object, ids: list[str]) -> dict[str, list[float]]:
    """The elements (by id) whose boxes are not wholly inside the viewport, scrolled to the top."""
    return dict(js(d, """window.scrollTo(0, 0);
        const out = {};
        for (const id of arguments[0]) {
          const r = document.getElementById(id).getBoundingClientRect();
          if (!(r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth))
            out[id] = [r.left, r.top, r.right, r.bottom];
        }
        return out;""", ids))


CONTROLS = ["undo", "redo", "restart", "ask-verdict", "ask-hint", "coach", "board"]


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_the_controls_stay_in_reach(driver: object, tmp_path: Path, size: tuple[int, int]) -> None:
    """Issue 64.2: on a phone and a laptop, the board, the coach and Undo/Redo/Restart
    are on the first screen without scrolling, on a puzzle and on a deal, and stay there
    when the page is scrolled to its end."""
    d = driver
    viewport(d, *size)
    try:
        for args, first in (((make_file(tmp_path, PUZZLE),), "play c06+"), (("--deal", 7), "play c01+")):
            proc, url = serve(*args)
            try:
                d.get(url)  # type: ignore[attr-defined]
                wait_text(d, "#goal", "goal:")
                click_action(d, first)
                wait_plan(d, 1)
                key(d, "h")
                answered(d)
                assert in_view(d, CONTROLS + (["ask-expert"] if args[0] == "--deal" else [])) == {}, (args, size)
                shot(d, f"reach-{args[0] if len(args) == 1 else 'deal'}-{size[0]}x{size[1]}")
                js(d, "window.scrollTo(0, document.body.scrollHeight)")
                assert js(d, """const r = document.getElementById('undo').getBoundingClientRect();
                                return r.top >= 0 && r.bottom <= innerHeight""")
            finally:
                stop(proc)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]


def test_restart_share_reload_and_keep_the_result(desktop: object, tmp_path: Path) -> None:
    """Issue 64.3: a Restart button; the game in the address, so a reload, a new server
    or another deck's server plays the same line; at the end, the start and the plan
    export, and `rove replay` plays them through to the goal."""
    from selenium.webdriver.common.keys import Keys

    d = desktop
    puzzle = make_file(tmp_path, PUZZLE)
    proc, url = serve(puzzle)
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 5")
        for i, n in enumerate(PUZZLE_PLAN[:2], 1):
            click_action(d, n)
            wait_plan(d, i)
        link = str(js(d, "return location.hash"))
        assert "line=play+c06%2B%7EC+N2" in link and "pos=" in link
        click(d, "#restart")
        wait_plan(d, 0)
        key(d, Keys.END)
        wait_plan(d, 2)
    finally:
        stop(proc)
    # a new server (the same puzzle, then another position of the deck): the address's game comes back
    for other in (puzzle, make_file(tmp_path, LAST_MISSION, "last.yaml")):
        proc, url = serve(other)
        try:
            d.get(url + link)  # type: ignore[attr-defined]
            wait_text(d, "#plan", r"play c06\+.*C N2")
            wait_text(d, "#title", "Puzzle 5")
            if other == puzzle:
                continue
            for i, n in enumerate(PUZZLE_PLAN[2:], 3):
                click_action(d, n)
                wait_plan(d, i)
            wait_text(d, "#status", "mission complete")
            wait_text(d, "#export-position", "Export start")
            got = js(d, """const f = async (u) => { const r = await fetch(u); return [r.status, await r.text()]; };
                           return Promise.all([f('/api/export/position'), f('/api/export/plan')]);""")
            assert [g[0] for g in got] == [200, 200]
            (tmp_path / "start.yaml").write_text(got[0][1], encoding="utf-8")
            (tmp_path / "plan.json").write_text(got[1][1], encoding="utf-8")
            done = subprocess.run([rove_script(), "replay", str(tmp_path / "start.yaml"), str(tmp_path / "plan.json")],
                                  capture_output=True, text=True)
            assert done.returncode == 0 and "goal reached; 3 points spent" in done.stdout, done.stdout
        finally:
            stop(proc)


def custom_deck(folder: Path) -> Path:
    """The classic deck with Sensor and Gripper coded U and R: letters that are command keys."""
    from conftest import CLASSIC

    text = CLASSIC.read_text(encoding="utf-8")
    text = re.sub(r"(?<![\w'])S(?![\w'])", "U", re.sub(r"(?<![\w'])G(?![\w'])", "R", text))
    (folder / "custom.yaml").write_text(text, encoding="utf-8")
    position = PUZZLE.replace("spec: classic", "spec: custom.yaml").replace("M L S", "M L U")
    return make_file(folder, position.replace("C B G", "C B R").replace("[B, C, G, L, M, S]", "[B, C, L, M, R, U]"))


def test_the_key_help_is_true(desktop: object, tmp_path: Path) -> None:
    """Issue 64.4: the help lists the keys that work here (no Expert on a puzzle), says
    that digits pick a card, and how to pick a module whose letter is a command."""
    from selenium.webdriver.common.keys import Keys

    d = desktop
    proc, url = serve(custom_deck(tmp_path))
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 5")
        keys = wait_text(d, "#keys", "Keys")
        assert "1-9 pick a hand card" in keys and "e expert" not in keys
        assert "Shift+R" in keys and "Shift+U" in keys
        key(d, "3")  # picks c06: its plays are shown, none is made
        wait_text(d, "#plays", "Play c06 for its bonus")
        assert plan_length(d) == 0
        key(d, "u")  # u is undo (nothing to undo), not module U
        assert "U " not in str(js(d, "return document.getElementById('selection').textContent"))
        key(d, Keys.SHIFT + "u")
        wait_text(d, "#selection", r"^U Sensor")
        key(d, Keys.SHIFT + "r")
        wait_text(d, "#selection", r"^R Gripper")
        key(d, "b")
        wait_text(d, "#selection", r"^B Brain")
    finally:
        stop(proc)
    proc, url = serve("--deal", 7)
    try:
        d.get(url)  # type: ignore[attr-defined]
        assert "e expert" in wait_text(d, "#keys", "Keys")
        key(d, "w")
        answered(d)
    finally:
        stop(proc)


def test_a_finished_puzzle_says_so(desktop: object, tmp_path: Path) -> None:
    """Issue 64.5: with the mission complete, no line tells the player to play a card."""
    d = desktop
    proc, url = serve(make_file(tmp_path, PUZZLE))
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 5")
        for i, n in enumerate(PUZZLE_PLAN, 1):
            click_action(d, n)
            wait_plan(d, i)
        click(d, '[data-module="B"]')
        wait_text(d, "#selection", "B Brain")
        wait_text(d, "#points", "mission is complete")
        page = str(js(d, "return document.body.innerText"))
        assert "play a card" not in page and "no ability use" not in page
        shot(d, "puzzle-finished-1280x800")
    finally:
        stop(proc)


def test_no_drawing_takes_another_modules_click(desktop: object, tmp_path: Path) -> None:
    """Issue 64.6: with each module selected, the centre of every module's square
    belongs to that module (elementFromPoint), never to another's arrows; and a click
    there selects it."""
    d = desktop
    proc, url = serve(make_file(tmp_path, LONG_ARROWS))
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#title", "Puzzle 22")
        codes = js(d, "return [...document.querySelectorAll('[data-module]')].map((g) => g.dataset.module)")
        assert sorted(codes) == ["B", "C", "G", "L", "M", "S"]
        wrong = js(d, """const wrong = [];
            const centre = (c) => {
              const r = document.querySelector(`[data-module="${c}"] rect`).getBoundingClientRect();
              return [r.x + r.width / 2, r.y + r.height / 2];
            };
            for (const m of arguments[0]) {
              document.querySelector(`[data-module="${m}"]`).dispatchEvent(new Event("click"));
              for (const c of arguments[0]) {
                document.querySelector(`[data-module="${c}"]`).scrollIntoView({block: "center"});
                const hit = document.elementFromPoint(...centre(c));
                const g = hit && hit.closest("[data-module]");
                if (!g || g.dataset.module !== c)
                  wrong.push(`${m} selected: ${c}'s centre is ${g ? g.dataset.module : hit}`);
              }
              document.querySelector(`[data-module="${m}"]`).dispatchEvent(new Event("click"));
            }
            return wrong;""", codes)
        assert wrong == []
        click(d, '[data-module="M"]')
        click(d, '[data-module="S"]')
        wait_text(d, "#selection", r"^S ")
    finally:
        stop(proc)


def test_a_books_puzzle_list(desktop: object, tmp_path: Path) -> None:
    """Issue 61.3: `rove play DIR` lists the book's puzzles (number, title, kind, stars);
    picking one plays it, the book's hints come one level at a time, and a solved
    puzzle is ticked, also after a reload."""
    import json

    d = desktop
    folder = book_folder(tmp_path)
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    proc, url = serve(folder)
    try:
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, "#book-title", r"A classic book \(seed 1\)")
        rows = wait_text(d, "#puzzles", "4")
        for p in index["puzzles"]:
            assert p["title"] in rows and p["kind"] in rows
        assert js(d, "return document.querySelector('[data-puzzle=\"3\"] .stars').textContent") == "★"
        shot(d, "book-list")
        click(d, '[data-puzzle="2"] button')
        wait_text(d, "#title", "^Puzzle 2: ")
        assert "puzzle=2" in str(js(d, "return location.hash"))
        click(d, "#book-hint")
        wait_text(d, "#book-hints", "^Book hint 1 of 3: puzzle 2, hint 1$")
        click(d, "#book-hint")
        wait_text(d, "#book-hints", "hint 1 .*Book hint 2 of 3: puzzle 2, hint 2$")
        solution = [step for step in json.loads((folder / "02-mission.plan.json").read_text(encoding="utf-8"))]
        from rove.actions import Action

        for i, step in enumerate(solution, 1):
            click_action(d, Action.from_json(step).notation())
            wait_plan(d, i)
        wait_text(d, "#status", "mission complete")
        click(d, "#to-book")
        wait_text(d, '[data-puzzle="2"]', "✓")
        assert js(d, "return location.hash") == ""
        d.get(url)  # type: ignore[attr-defined]
        wait_text(d, '[data-puzzle="2"]', "✓")
        assert "✓" not in str(js(d, "return document.querySelector('[data-puzzle=\"1\"]').textContent"))
    finally:
        stop(proc)
