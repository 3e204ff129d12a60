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

    python bench/play.py --page-deals 3,7,12 [--moves 3] [--spec standard]

measures the coach as a player meets it on the page instead: for each deal, ``rove play
--deal N`` (thinking ahead, as it runs) in a headless Chromium at 1280x800; at the start
and after each of the first ``--moves`` moves (the expert's, as bench/coach.py plays
them, clicked on the board the instant the page shows the position before), a click on
"Still winnable?" and then on "Hint", each timed in the page from the click to the
answer shown (the coach box's text, not its progress).  It prints each position's two
times and the verdict, their medians and how many came within 2 s, and the server's
processor time (user+sys) per deal.
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
from typing import Any

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


def start(*what: object) -> tuple[subprocess.Popen[str], str, float]:
    """The server of ``rove play WHAT``, its address, and when it was started (time.monotonic)."""
    t0 = time.monotonic()
    proc = subprocess.Popen([*rove_command(), "play", *map(str, what), "--no-browser"],
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


def chromium(width: int = 1280, height: int = 800) -> Any:
    """Debian's headless Chromium through its own chromedriver (nothing is downloaded)."""
    import os

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (browser and driver_path):
        raise SystemExit("bench/play.py: this needs chromium and chromedriver (`make browser`)")
    os.environ["SE_OFFLINE"] = "true"
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    d.set_script_timeout(600)
    return d


#: Clicks a coach button and answers, in milliseconds, when the coach box shows the
#: answer (its class says done or failed): timed in the page, from the click.
CLICK_TO_ANSWER = """
const [id, done] = arguments;
const box = document.getElementById("coach");
box.className = "coach";
const t0 = performance.now();
const seen = () => {
  if (!/\\b(done|failed)\\b/.test(box.className)) return;
  obs.disconnect();
  done([performance.now() - t0, box.textContent]);
};
const obs = new MutationObserver(seen);
obs.observe(box, {attributes: true, childList: true, characterData: true, subtree: true});
document.getElementById(id).click();
"""

#: Makes one action as a player clicks it (a card or module, then its play, cell or
#: button) and answers when the page shows the plan one step longer.
CLICK_ACTION = """
const [first, notation, done] = arguments;
const steps = () => document.querySelectorAll("#plan li:not(.undone)").length;
const before = steps();
document.querySelector(first).dispatchEvent(new Event("click"));
document.querySelector(`[data-action="${notation}"]`).dispatchEvent(new Event("click"));
const wait = () => (steps() > before ? done(true) : setTimeout(wait, 2));
wait();
"""


def cpu_seconds(pid: int) -> float:
    """A process's user+sys time so far (Linux /proc), or NaN elsewhere."""
    import os

    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def expert_moves(spec: str, seed: int, moves: int) -> list[str]:
    """The expert's first ``moves`` actions on the deal (bench/coach.py's line)."""
    from rove.solve.expert import decide, expert_budget

    session = Session(started_from(PlayOptions(spec=spec, deal_seed=seed)))
    out = []
    for _ in range(moves):
        _, state, _ = session.snapshot()
        plan, _, _ = decide(session.deck, state, expert_budget(PlayOptions.expert_nodes))
        if not plan:
            break
        session.play(plan[0])
        out.append(plan[0].notation())
    return out


def page_deals(seeds: list[int], moves: int, spec: str) -> None:
    """The coach's first verdict and hint as the page shows them (see the docstring)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = chromium()
    rows: list[tuple[int, int, float, float, str]] = []
    try:
        for seed in seeds:
            line = expert_moves(spec, seed, moves)
            proc, url, t0 = start("--deal", seed, "--spec", spec)
            try:
                driver.get(url)
                WebDriverWait(driver, 60, poll_frequency=0.01).until(
                    lambda d: d.find_elements(By.CSS_SELECTOR, "[data-module]"))
                for step in range(len(line) + 1):
                    if step:
                        n = line[step - 1]
                        first = (f'#hand [data-card="{n.split()[1].rstrip("+-")}"]' if n.startswith("play ")
                                 else f'[data-module="{n.split()[0]}"]')
                        driver.execute_async_script(CLICK_ACTION, first, n)
                    verdict_ms, text = driver.execute_async_script(CLICK_TO_ANSWER, "ask-verdict")
                    hint_ms, _ = driver.execute_async_script(CLICK_TO_ANSWER, "ask-hint")
                    rows.append((seed, step, verdict_ms, hint_ms, text))
                    print(f"deal {seed:2} after {step} moves: verdict {verdict_ms:7.0f} ms, hint {hint_ms:5.0f} ms"
                          f"  {text[:60]}", flush=True)
            finally:
                cpu = cpu_seconds(proc.pid)
                proc.send_signal(signal.SIGINT)  # the coach is idle: every question was answered
                proc.wait()
            print(f"deal {seed:2}: server {cpu:.2f} s of processor time (user+sys) in "
                  f"{time.monotonic() - t0:.1f} s", flush=True)
    finally:
        driver.quit()
    verdicts, hints = [r[2] for r in rows], [r[3] for r in rows]
    print(f"{len(rows)} positions: verdict median {statistics.median(verdicts):.0f} ms "
          f"(slowest {max(verdicts):.0f}), {sum(v <= 2000 for v in verdicts)} within 2 s; "
          f"hint median {statistics.median(hints):.0f} ms (slowest {max(hints):.0f}), "
          f"{sum(h <= 2000 for h in hints)} within 2 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("positions", nargs="*", type=Path)
    ap.add_argument("--moves", type=int, default=None,
                    help="move/undo pairs timed (default 40); with --page-deals, moves per deal (default 3)")
    ap.add_argument("--browser", action="store_true")
    ap.add_argument("--page-deals", help="comma-separated deal seeds: time the coach on the page (see above)")
    ap.add_argument("--spec", default="standard", help="with --page-deals: the deck")
    args = ap.parse_args()
    if args.page_deals:
        page_deals([int(x) for x in args.page_deals.split(",")], 3 if args.moves is None else args.moves, args.spec)
        return
    if args.moves is None:
        args.moves = 40
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
