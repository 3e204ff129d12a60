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
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import rove_script
from test_play import LAST_MISSION, LOSING_MOVE, PUZZLE, PUZZLE_PLAN

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


def serve(path: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([rove_script(), "play", str(path), "--no-browser"], stderr=subprocess.PIPE, text=True)
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
        card = notation.split()[1].rstrip("+-")
        d.find_element(By.CSS_SELECTOR, f'#hand [data-card="{card}"]').click()  # type: ignore[attr-defined]
    else:
        d.find_element(By.CSS_SELECTOR, f'[data-module="{notation.split()[0]}"]').click()  # type: ignore[attr-defined]
    d.find_element(By.CSS_SELECTOR, f'[data-action="{notation}"]').click()  # type: ignore[attr-defined]


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
