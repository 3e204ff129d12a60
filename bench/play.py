"""``rove play``'s speed: start-up, a move's round trip, and the coach's hints.

    python bench/play.py [POSITION ...] [--moves 40] [--browser]

* start-up: from starting ``rove play --no-browser`` to the page's HTML answered (the
  process imports rove, reads the position, binds and serves); with ``--browser``, and
  Debian's chromium and chromedriver installed, to the board drawn in a headless
  Chromium started beforehand (the first paint);
* round trip: a move and its undo posted over HTTP to the running server, each
  answered with the whole new view (legal actions included); the median and the
  slowest of ``--moves`` pairs;
* hints: for each POSITION (a book export's puzzles, say), the level-3 hint from the
  start (the coach's exact search, compiled core) and the nodes it took.

Without POSITIONs a fresh deal of the bundled deck (seed 1) is played.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.play.coach import Coach, Job  # noqa: E402
from rove.play.run import PlayOptions, started_from  # noqa: E402
from rove.play.session import Session  # noqa: E402


def rove_command() -> list[str]:
    script = Path(sys.executable).parent / "rove"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rove.cli"]


def start(position: Path) -> tuple[subprocess.Popen[str], str, float]:
    """The server, its address, and when it was started (time.monotonic)."""
    t0 = time.monotonic()
    proc = subprocess.Popen([*rove_command(), "play", str(position), "--no-browser"],
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    m = re.search(r"(http://\S+/)", proc.stderr.readline())
    if not m:
        proc.kill()
        raise SystemExit("rove play did not start")
    return proc, m.group(1), t0


def post(url: str, body: dict[str, object]) -> dict[str, object]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        data: dict[str, object] = json.load(res)
        return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("positions", nargs="*", type=Path)
    ap.add_argument("--moves", type=int, default=40)
    ap.add_argument("--browser", action="store_true")
    args = ap.parse_args()
    positions: list[Path] = args.positions
    if not positions:
        tmp = Path(tempfile.mkdtemp(prefix="rove-bench-play-"))
        out = subprocess.run([*rove_command(), "deal", "--seed", "1"], capture_output=True, text=True, check=True)
        (tmp / "deal.yaml").write_text(out.stdout, encoding="utf-8")
        positions = [tmp / "deal.yaml"]

    driver = None
    if args.browser and shutil.which("chromium") and shutil.which("chromedriver"):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        opts = webdriver.ChromeOptions()
        opts.binary_location = str(shutil.which("chromium"))
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
            opts.add_argument(a)
        driver = webdriver.Chrome(service=Service(executable_path=str(shutil.which("chromedriver"))), options=opts)

    proc, url, t0 = start(positions[0])
    try:
        while True:
            try:
                with urllib.request.urlopen(url) as res:
                    res.read()
                break
            except OSError:
                time.sleep(0.005)
        print(f"start-up to the page answered: {time.monotonic() - t0:.2f} s")
        if driver is not None:
            from selenium.webdriver.common.by import By
            from selenium.webdriver.support.ui import WebDriverWait

            proc.send_signal(signal.SIGINT)
            proc.wait()
            proc, url, t0 = start(positions[0])
            while True:
                try:
                    driver.get(url)
                    drawn = WebDriverWait(driver, 30, poll_frequency=0.01)
                    drawn.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-module]"))
                    break
                except Exception:
                    time.sleep(0.005)
            print(f"start-up to the board drawn in Chromium: {time.monotonic() - t0:.2f} s")
        with urllib.request.urlopen(url + "api/state") as res:
            view = json.load(res)
        first = view["legal"][0]["n"]
        times = []
        for _ in range(args.moves):
            for path, body in (("api/action", {"action": first}), ("api/undo", {})):
                t = time.perf_counter()
                post(url + path, body)
                times.append(time.perf_counter() - t)
        print(f"round trip ({len(view['legal'])} legal actions, {len(times)} requests): median "
              f"{statistics.median(times) * 1000:.1f} ms, slowest {max(times) * 1000:.1f} ms")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait()
        if driver is not None:
            driver.quit()

    for path in positions:
        session = Session(started_from(PlayOptions(position=path)))
        coach = Coach(session, autostart=False)
        job = Job(0, "hint", 3, session.version, session.start, 0)
        t = time.perf_counter()
        got = coach.answer(job)
        print(f"{path.name}: hint from the start {(time.perf_counter() - t) * 1000:.0f} ms, "
              f"{got.get('nodes', 0):,} nodes: {got['text'][:70]}")


if __name__ == "__main__":
    main()
