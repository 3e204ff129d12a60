"""The documents cannot drift from the program: README.md and every page of the guide
(docs/**/*.md) are read, their console examples run, and the command reference is checked
against the command line itself.  docs/internals/docs.md explains the conventions for
writers; in short:

* Every ``$ command`` line of a ``console`` block is listed in ``EXAMPLES`` with what to
  do with it: run it (cheap and deterministic), run it only in the slow suite (``pytest
  -m slow``), or leave it out with the reason.  A command in a document that is not
  listed fails the suite, and so does a listed one no document shows any more.
* A page is one session, as a reader following it would have: its steps run in order, in
  one fresh empty folder outside the checkout, with the ``rove`` a user installs (the
  wheel of ``make dist`` in a fresh venv, tests/installed.py), so every example works
  from any folder.  A fenced block with a title (```` ```yaml title="puzzle.yaml" ````)
  is written to that file when the page reaches it.  A page with a slow step runs whole
  in the slow suite.
* What a command prints (stdout and stderr together, trailing blanks dropped) must match
  what the document shows, but for the volatile parts: a time in seconds (``0.03 s``)
  matches any time; ``...`` inside a line matches any text there; a line holding only
  ``...`` matches any number of lines, none included; an ``ls`` listing is compared as a
  set of names (its columns depend on the terminal).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from installed import Installed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "tools"))

import reference  # noqa: E402  (docs/tools/reference.py: the command reference's tables)

DOCS = (ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "tools" not in p.parts))

RUN, SLOW = "run", "slow"
SERVER = "starts a web server and waits for Ctrl-C (tests/test_play_browser.py drives it)"
LONG = "takes minutes: it is what the page tells the reader to run, not an example of its output"

#: every documented command: RUN, SLOW, or the reason it is not run
EXAMPLES: dict[str, str] = {
    # getting started
    "rove validate standard": RUN,
    "rove new my-deck.yaml --from standard": RUN,
    "rove validate my-deck.yaml": RUN,
    "rove deal --seed 7": RUN,
    "rove solve puzzle.yaml": RUN,
    "rove solve puzzle.yaml --json > plan.json": RUN,
    "rove replay puzzle.yaml plan.json --json": RUN,
    "rove replay puzzle.yaml wrong.txt": RUN,
    "rove deal --seed 7 --spec classic -o deal.yaml": RUN,
    "rove solve deal.yaml": RUN,
    # a puzzle book
    "rove book --spec classic --count 4 -o book.pdf": RUN,
    "rove book --spec classic --count 4 -o book.pdf --export-dir book/": RUN,
    "ls book/ book/specs/": RUN,
    "cat book/02-mission.yaml": RUN,
    "rove solve book/02-mission.yaml": RUN,
    "rove replay book/02-mission.yaml book/02-mission.plan.json": RUN,
    "rove play book/02-mission.yaml": SERVER,
    # cards
    "rove cards standard -o cards.pdf": RUN,
    "rove cards standard --preset drivethrucards": RUN,
    "rove cards standard --layout gutterfold -o cards-fold.pdf": RUN,
    "rove cards --calibration -o calibration.pdf": RUN,
    "rove cards standard --back-offset 1.5,-0.5 -o cards.pdf": RUN,
    "rove cards standard --preset thegamecrafter -o tgc/": RUN,
    "rove cards standard --preset tts -o tts/": RUN,
    "rove cards standard --list-presets": RUN,
    # designing a deck
    "rove validate bad.yaml": RUN,
    "rove new my-deck.yaml --from classic": RUN,
    "rove check classic --deals 10 --starts 0 --player thoughtful --jobs 1": RUN,
    "rove check my-deck.yaml --deals 20 --starts 0 --player thoughtful --jobs 1": RUN,
    "rove check my-deck.yaml --deals 3 --starts 0 --difficulty normal --player expert --jobs 1": RUN,
    "rove check my-deck.yaml --deals 0 --starts 20 --jobs 1": RUN,
    "rove generate missions --spec classic --count 3 --min-cost 2 --max-cost 3 --seed 2 -o new-missions.yaml": RUN,
    "rove tune my-deck.yaml --target normal=0.55 -o my-deck-tuned.yaml": LONG,
    "rove tune my-deck.yaml --target normal=0.55 --target impossible=0.30 -o my-deck-tuned.yaml": LONG,
    "rove generate missions --count 7 --min-cost 2 --max-cost 5 --seed 2 -o output/new-missions.yaml": SLOW,
    "rove book --count 6 --seed 1 -o book.pdf --export-dir book/": SLOW,
    # playing
    "rove play --deal 7": SERVER,
    "rove play --deal 7 --difficulty hard   # or a fresh deal (--spec S)": SERVER,
    # measured figures in the internals: each is the command that reproduces a measurement
    ".venv/bin/python bench/grading.py --count 200 --seed grading":
        "a benchmark: its figures are a measurement of the grader, not a promise of the command",
}

_SECONDS = re.compile(r"\b\d+\.\d+ s\b")


@dataclass(frozen=True)
class Step:
    where: str
    command: str
    expected: str


@dataclass(frozen=True)
class File:
    where: str
    name: str
    text: str


@dataclass(frozen=True)
class Page:
    """One document: its titled files and console steps, in the order a reader meets them."""

    where: str
    items: tuple[Step | File, ...]

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(i for i in self.items if isinstance(i, Step))


_FENCE = re.compile(r"^(\s*)```(\S*)(.*)$")
_TITLE = re.compile(r'title="([^"]+)"')


def read_page(doc: Path) -> Page:
    """The ``console`` blocks and titled blocks of a Markdown document."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    name = str(doc.relative_to(ROOT))
    items: list[Step | File] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent, lang, info = fence.groups()
        start = i + 1
        i += 1
        while not lines[i].strip().startswith("```"):
            i += 1
        body = [line[len(indent):] for line in lines[start:i]]
        i += 1
        title = _TITLE.search(info)
        if title:
            items.append(File(f"{name}:{start}", title.group(1), "\n".join(body) + "\n"))
        elif lang == "console":
            steps: list[Step] = []
            for n, line in enumerate(body):
                if line.startswith("$ "):
                    steps.append(Step(f"{name}:{start + n + 1}", line[2:], ""))
                elif steps:
                    steps[-1] = Step(steps[-1].where, steps[-1].command, steps[-1].expected + line + "\n")
            items.extend(steps)
    return Page(name, tuple(items))


PAGES = [read_page(doc) for doc in DOCS]


def _lines(text: str) -> list[str]:
    text = _SECONDS.sub("<seconds> s", text)
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def matches(expected: str, actual: str) -> bool:
    """Whether a command's output matches what a document shows, masks applied (see the
    module's docstring)."""
    parts = []
    for line in _lines(expected):
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split("...")) + r"\n")
    return re.fullmatch("".join(parts), "".join(f"{line}\n" for line in _lines(actual)), re.DOTALL) is not None


def _same(step: Step, actual: str) -> bool:
    if step.command.startswith("ls "):
        return sorted(_SECONDS.sub("", actual).split()) == sorted(step.expected.split())
    return matches(step.expected, actual)


def run_page(page: Page, folder: Path, kinds: tuple[str, ...], installed: Installed) -> None:
    """Run the page's steps of these kinds, in order, in one empty folder outside the
    checkout (a reader's session), with the installed command."""
    assert not folder.resolve().is_relative_to(ROOT)
    env = installed.env(COLUMNS="80")
    for item in page.items:
        if isinstance(item, File):
            (folder / item.name).write_text(item.text, encoding="utf-8")
            continue
        if EXAMPLES[item.command] not in kinds:
            continue
        proc = subprocess.run(["bash", "-c", item.command], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        assert _same(item, proc.stdout), (
            f"{item.where}: `{item.command}` printed\n{proc.stdout}\nwhere the document shows\n{item.expected}")


def _pages(kind: str) -> list[Page]:
    """The pages that run in the fast suite (kind RUN: no slow step) or the slow one."""
    def has(page: Page, k: str) -> bool:
        return any(EXAMPLES.get(s.command) == k for s in page.steps)
    if kind == SLOW:
        return [p for p in PAGES if has(p, SLOW)]
    return [p for p in PAGES if has(p, RUN) and not has(p, SLOW)]


def test_every_documented_command_is_listed() -> None:
    """A new example must say whether it runs (and an example that went away leaves the list)."""
    documented = {s.command for p in PAGES for s in p.steps}
    assert documented - EXAMPLES.keys() == set(), "add these commands to EXAMPLES"
    assert EXAMPLES.keys() - documented == set(), "these EXAMPLES are no longer in the documents"


def test_the_masks_hide_only_what_they_say() -> None:
    """The volatile-part conventions: times, ``...`` in a line, ``...`` alone on a line."""
    assert matches("solved (search, 0.00 s, 8 nodes)\n", "solved (search, 12.34 s, 8 nodes)\n")
    assert not matches("solved (search, 0.00 s, 8 nodes)\n", "solved (search, 0.00 s, 9 nodes)\n")
    assert matches("wrote ... files\n", "wrote 36 files\n")
    assert not matches("wrote ... files\n", "wrote 36 PNG previews\n")
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n") and matches("a\n...\nd\n", "a\nd\n")
    assert not matches("a\n...\nd\n", "a\nb\nc\n")
    assert not matches("a\nb\n", "a\nb\nc\n"), "an unshown line at the end is a difference"
    assert matches("table   \n", "table\n"), "trailing blanks (Rich pads its lines) do not count"


@pytest.mark.parametrize("page", _pages(RUN), ids=lambda p: p.where)
def test_cheap_examples_print_what_the_documents_say(page: Page, tmp_path: Path, installed: Installed) -> None:
    run_page(page, tmp_path, (RUN,), installed)


@pytest.mark.slow
@pytest.mark.parametrize("page", _pages(SLOW), ids=lambda p: p.where)
def test_slow_examples_print_what_the_documents_say(page: Page, tmp_path: Path, installed: Installed) -> None:
    run_page(page, tmp_path, (RUN, SLOW), installed)


# ---------------------------------------------------------------- the command reference

def _nav() -> str:
    return (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_command_has_a_reference_page_in_the_guide() -> None:
    """Each command of the Typer app has docs/reference/NAME.md with its options marker, in
    the site's navigation; no marker names a command that does not exist."""
    commands = reference.commands()
    assert {"validate", "deal", "solve", "replay", "check", "tune", "book", "cards", "play",
            "generate missions"} <= commands.keys()
    for name in commands:
        page = reference.REFERENCE / reference.page_name(name)
        assert page.exists(), f"rove {name} has no reference page {page.relative_to(ROOT)}"
        assert f"<!-- rove-options: rove {name} -->" in page.read_text(encoding="utf-8"), page
        assert f"reference/{reference.page_name(name)}" in _nav(), f"{page.name} is not in mkdocs.yml's nav"
    for page in reference.REFERENCE.glob("*.md"):
        for marked in reference.MARKER.findall(page.read_text(encoding="utf-8")):
            assert marked in commands, f"{page.name} names `rove {marked}`, which is no command"


def _help_options(name: str) -> set[str]:
    """The option spellings `rove NAME --help` prints: the leading words of each line of its
    Options panel (``--output -o <str> Where to write...`` gives ``--output`` and ``-o``)."""
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1", "TERM": "dumb"}
    rove = Path(sys.executable).parent / "rove"
    out = subprocess.run([str(rove), *name.split(), "--help"], env=env, capture_output=True, text=True,
                         check=True).stdout
    found: set[str] = set()
    in_options = False
    for line in out.splitlines():
        if "─ Options " in line or line.strip() == "Options:":  # Rich's panel or Click's plain list
            in_options = True
        elif line.startswith("╰") or (in_options and line and not line.startswith(" ")):
            in_options = False
        elif in_options:
            for word in line.strip("│ ").replace(",", " ").replace(" / ", " ").split():
                if word == "*":
                    continue
                if not re.fullmatch(r"--?[a-z][a-z-]*", word):
                    break
                found.add(word)
    return found


@pytest.mark.parametrize("name", sorted(reference.commands()))
def test_each_option_table_names_what_help_prints(name: str) -> None:
    """The generated table lists exactly the options `rove NAME --help` shows."""
    table = reference.options_table(name)
    in_table = set(re.findall(r"`(--?[a-z][a-z-]*)`", table))
    in_help = _help_options(name)
    assert in_help, f"`rove {name} --help` printed no option"
    assert in_table == in_help, f"table only: {in_table - in_help}; --help only: {in_help - in_table}"


def test_the_reference_is_the_same_every_build_and_leaves_no_marker() -> None:
    for page in sorted(reference.REFERENCE.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        once, twice = reference.expand(text), reference.expand(text)
        assert once == twice
        assert "rove-options" not in once, page.name


# ---------------------------------------------------------------- the README's links

def _slug(heading: str) -> str:
    """A heading's anchor as the site makes it (Python-Markdown's toc)."""
    text = re.sub(r"[^\w\s-]", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def test_the_readmes_links_lead_somewhere() -> None:
    """The README is not a page of the site (the site's build checks its own links), so its
    links into docs/ are checked here: every file exists, every anchor is a heading there."""
    links = re.findall(r"\]\(([^)#\s]+)(?:#([^)\s]+))?\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    local = [(path, anchor) for path, anchor in links if "://" not in path]
    assert len(local) > 20, "the README links into the guide"
    for path, anchor in local:
        target = ROOT / path
        assert target.exists(), f"README.md links to {path}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), re.MULTILINE)
            assert anchor in {_slug(h) for h in headings}, f"README.md links to {path}#{anchor}: no such heading"


# ---------------------------------------------------------------- the guide's build

def test_a_missing_picture_becomes_a_note_and_a_present_one_stays(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import hooks

    monkeypatch.setattr(hooks, "GENERATED", tmp_path)
    (tmp_path / "here.png").write_bytes(b"png")
    page = "a\n![Here](../assets/generated/here.png)\n![Gone away](assets/generated/gone.png)\nb\n"
    out = hooks.missing_pictures(page)
    assert "![Here](../assets/generated/here.png)" in out
    assert "gone.png" not in out and '!!! note "Picture not built: Gone away"' in out and "make docs" in out


def build_tracked_site(folder: Path) -> Path:
    """The guide built strictly from the tracked files alone, as on a fresh clone (no
    generated pictures: only `make docs` makes them, with a browser); its site folder."""
    listed = subprocess.run(["git", "ls-files", "-z", "docs", "mkdocs.yml"], cwd=ROOT, capture_output=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes((ROOT / name).read_bytes())
    assert not (folder / "docs" / "assets" / "generated").exists()
    mkdocs = Path(sys.executable).parent / "mkdocs"
    proc = subprocess.run([str(mkdocs), "build", "--strict", "--quiet", "-f", str(folder / "mkdocs.yml"),
                           "-d", str(folder / "site")], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return folder / "site"


def test_the_tracked_files_alone_build_the_guide_strictly(tmp_path: Path) -> None:
    index = (build_tracked_site(tmp_path) / "index.html").read_text(encoding="utf-8")
    assert "Picture not built" in index and "assets/generated/" not in index
