"""The guide's pictures, made by rove itself at every ``make docs``: nothing here is drawn by hand.

    python docs/tools/pictures.py [--out docs/assets/generated] [--only NAME ...]

writes, into a git-ignored folder the pages point at:

* ``card-front-back.png``: a mission card and a module card, both sides, from the PNG
  previews ``rove cards standard --png-dir`` writes;
* ``card-sheet.png``: the first home-print sheet of ``rove cards standard``, rendered
  from its PDF with pypdfium2;
* ``book-pages.png``: a puzzle page and the solutions page of a small book
  (``rove book --spec classic --count 4 --seed 1``), rendered from the PDF;
* ``check-report.png``: the first page of a ``rove check --report`` PDF (a short run on
  the classic deck), with its win-rate chart;
* ``play.png``: ``rove play --deal 7`` in a headless Chromium (the distribution's, as
  ``make browser`` installs it, driven by Selenium), after a card is played and with a
  module selected, so its legal moves show;
* ``play-deal-*.png``, ``play-puzzle-*.png``, ``play-finished-*.png``: a deal with the
  coach's hint, a book's puzzle with a hint on the board, and that puzzle solved, each
  at 1280x800 (a laptop) and 390x844 (a phone).

Every command runs with node budgets and fixed seeds, so the pictures show the same
figures on every machine.  A picture that cannot be made (no browser) stops the build:
the guide never ships without one.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "assets" / "generated"
ROVE = str(Path(sys.executable).parent / "rove")


def rove(*args: str, cwd: Path) -> None:
    proc = subprocess.run([ROVE, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"})
    if proc.returncode != 0:
        raise SystemExit(f"pictures: `rove {' '.join(args)}` failed (exit {proc.returncode}):\n"
                         f"{proc.stdout}{proc.stderr}")


def render(pdf: Path, index: int, width: int) -> object:
    """One PDF page as a Pillow image, ``width`` pixels wide."""
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf))
    page = doc[index]
    image = page.render(scale=width / page.get_width()).to_pil()
    doc.close()
    return image


def page_texts(pdf: Path) -> list[str]:
    import pypdfium2

    doc = pypdfium2.PdfDocument(str(pdf))
    texts = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    doc.close()
    return texts


def side_by_side(images: list[object], gap: int = 24, background: str = "white") -> object:
    from PIL import Image

    width = sum(im.width for im in images) + gap * (len(images) + 1)  # type: ignore[attr-defined]
    height = max(im.height for im in images) + 2 * gap  # type: ignore[attr-defined]
    canvas = Image.new("RGB", (width, height), background)
    x = gap
    for im in images:
        canvas.paste(im, (x, gap))  # type: ignore[arg-type]
        x += im.width + gap  # type: ignore[attr-defined]
    return canvas


def framed(image: object, border: int = 1) -> object:
    """A page with a thin grey frame, so a white page shows against a white site."""
    from PIL import ImageOps

    return ImageOps.expand(image, border=border, fill="#9e9e9e")  # type: ignore[arg-type]


def trimmed(image: object, footer: float = 0.92, margin: int = 24) -> object:
    """A page cut to what is drawn on it above its footer (a report page is half empty)."""
    from PIL import ImageChops, ImageOps

    gray = ImageOps.grayscale(image)  # type: ignore[arg-type]
    top = gray.crop((0, 0, gray.width, int(gray.height * footer)))
    box = ImageChops.invert(top).point(lambda v: 255 if v > 16 else 0).getbbox()
    if box is None:
        return image
    left, upper, right, lower = box
    return image.crop((max(0, left - margin), max(0, upper - margin),  # type: ignore[attr-defined]
                       min(gray.width, right + margin), min(gray.height, lower + margin)))


def cards(work: Path, out: Path) -> None:
    from PIL import Image

    rove("cards", "standard", "-o", "cards.pdf", "--png-dir", "png", cwd=work)
    faces = [Image.open(work / "png" / f"{name}.png").convert("RGB") for name in
             ("card-c01-mission", "card-c01-movement", "module-brain-active", "module-brain-spent")]
    side_by_side(faces).save(out / "card-front-back.png")  # type: ignore[attr-defined]
    render(work / "cards.pdf", 0, 900).save(out / "card-sheet.png")  # type: ignore[attr-defined]


def book(work: Path, out: Path) -> None:
    rove("book", "--spec", "classic", "--count", "4", "--seed", "1", "-o", "book.pdf", cwd=work)
    texts = page_texts(work / "book.pdf")
    puzzle = next(i for i, t in enumerate(texts) if t.startswith("PUZZLE") and "Mission in" in t)
    solutions = next(i for i, t in enumerate(texts) if t.startswith("SOLUTIONS"))
    pages = [framed(render(work / "book.pdf", i, 560)) for i in (puzzle, solutions)]
    side_by_side(pages).save(out / "book-pages.png")  # type: ignore[attr-defined]


def check(work: Path, out: Path) -> None:
    rove("check", "classic", "--deals", "4", "--starts", "0", "--difficulty", "normal,impossible",
         "--report", "report.pdf", cwd=work)
    framed(trimmed(render(work / "report.pdf", 0, 900))).save(out / "check-report.png")  # type: ignore[attr-defined]


class Page:
    """``rove play ARGS`` served and shown in a headless Chromium (the distribution's, as
    ``make browser`` installs it, driven by Selenium; nothing is downloaded)."""

    SIZES = ((1280, 800), (390, 844))
    """A laptop's screen and a phone's, in CSS pixels: the pictures show the first screen."""

    def __init__(self, work: Path, *args: str) -> None:
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        driver_path = shutil.which("chromedriver")
        if not (chromium and driver_path):
            raise SystemExit("pictures: rove play's screenshots need chromium and chromedriver; "
                             "`make browser` installs them (apt-get install chromium chromium-driver)")
        os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or driver
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.ui import WebDriverWait

        self.server = subprocess.Popen([ROVE, "play", *args, "--no-browser"], cwd=work,
                                       stderr=subprocess.PIPE, text=True)
        assert self.server.stderr is not None
        line = self.server.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if not found:
            self.close()
            raise SystemExit(f"pictures: rove play did not print its address: {line!r}")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                    "--disable-gpu", "--no-first-run", "--hide-scrollbars"):
            opts.add_argument(arg)
        self.browser = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
        self.wait = WebDriverWait(self.browser, 60, poll_frequency=0.05)
        self.browser.get(found.group(1))
        self.until("[data-module]")

    def until(self, css: str, text: str = "") -> None:
        """Wait for an element (holding ``text``)."""
        from selenium.webdriver.common.by import By

        self.wait.until(lambda d: any(text in e.text for e in d.find_elements(By.CSS_SELECTOR, css)))

    def click(self, css: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions

        found = self.wait.until(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, css)))
        self.browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", found)
        found.click()

    def act(self, notation: str) -> None:
        """One action as a player clicks it: a card or module, then its play, cell or button."""
        first = (f'#hand [data-card="{notation.split()[1].rstrip("+-")}"]' if notation.startswith("play ")
                 else f'[data-module="{notation.split()[0]}"]')
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        steps = len(self.browser.execute_script("return document.querySelectorAll('#plan li:not(.undone)')"))
        self.browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)  # a hint may have selected it
        self.click(first)
        self.click(f'[data-action="{notation}"]')
        self.wait.until(lambda d: len(d.execute_script(
            "return document.querySelectorAll('#plan li:not(.undone)')")) > steps)

    def answer(self, button: str) -> None:
        """Ask the coach and wait for its answer (not its progress)."""
        self.click(f"#{button}")
        self.wait.until(lambda d: re.search(r"\b(done|failed)\b",
                                            d.execute_script("return document.getElementById('coach').className")))

    def shots(self, out: Path, name: str) -> None:
        """``NAME-1280x800.png`` and ``NAME-390x844.png``: the first screen at each size."""
        for width, height in self.SIZES:
            self.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})
            self.browser.execute_script("window.scrollTo(0, 0)")
            self.browser.save_screenshot(str(out / f"{name}-{width}x{height}.png"))
        self.browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def close(self) -> None:
        if getattr(self, "browser", None) is not None:
            self.browser.quit()
        self.server.send_signal(signal.SIGINT)  # the coach is idle: every question was answered
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()


def play(work: Path, out: Path) -> None:
    """``play.png``: ``rove play --deal 7`` after card c01 is played for its bonus, with
    Brain selected (its moves ringed); ``play-deal-*``: the same deal with the coach's
    hint; ``play-puzzle-*``: the first mission puzzle of a small book (``rove book --spec
    classic --count 4 --seed 1 --export-dir``) (the one with the longest solution) with a level-2 hint on the board;
    ``play-finished-*``: that puzzle solved by its book solution, with the coach's verdict.
    Each of those three at 1280x800 and 390x844."""
    page = Page(work, "--deal", "7")
    try:
        page.act("play c01+")  # a card for points, with its bonus: its pattern B S matches
        page.click('[data-module="B"]')  # Brain selected: its moves are ringed cells on the grid
        page.until("svg [data-action]")
        page.browser.save_screenshot(str(out / "play.png"))
        page.click('[data-module="B"]')
        page.answer("ask-hint")
        page.shots(out, "play-deal")
    finally:
        page.close()
    rove("book", "--spec", "classic", "--count", "4", "--seed", "1", "-o", "book.pdf", "--export-dir", "book",
         cwd=work)
    from rove.actions import load_plan

    solutions = {p: [a.notation() for a in load_plan(p.with_name(p.stem + ".plan.json"))]
                 for p in sorted((work / "book").glob("*-mission.yaml"))}
    puzzle = max(solutions, key=lambda p: len(solutions[p]))  # the longest: the most to show
    solution = solutions[puzzle]
    page = Page(work, str(puzzle.relative_to(work)))
    try:
        page.answer("ask-hint")
        page.answer("ask-hint")  # level 2: the move itself, ringed on the board
        page.shots(out, "play-puzzle")
        for step in solution:
            page.act(step)
        page.answer("ask-verdict")
        page.shots(out, "play-finished")
    finally:
        page.close()


PICTURES: dict[str, Callable[[Path, Path], None]] = {"cards": cards, "book": book, "check": check, "play": play}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--only", nargs="*", choices=sorted(PICTURES), default=sorted(PICTURES))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        with tempfile.TemporaryDirectory(prefix=f"rove-pictures-{name}-") as work:
            PICTURES[name](Path(work), args.out)
            print(f"pictures: {name}")


if __name__ == "__main__":
    main()
