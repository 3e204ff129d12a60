"""The console examples of README.md and docs/FORMATS.md, run and compared with what the
documents say they print, so that the documents cannot drift from the commands.

Every ``$ command`` line of a ``console`` block is listed in ``EXAMPLES`` with what to do
with it: run it (cheap and deterministic), run it only in the slow suite (``pytest -m
slow``: the book and the mission generator take a minute or more), or leave it out with
the reason.  A command in a document that is not listed fails the suite, so a new example
is never silently unchecked.

Each block runs in a fresh folder holding a copy of the repository's ``specs/`` and, for a
block about ``puzzle.yaml``, the YAML block the README shows just before it.  Commands run
in a shell (so ``>`` redirects) with the installed ``rove`` first on the PATH; what they
print to stdout and stderr together is compared line by line, with the seconds a solve
took (which no document can know) masked on both sides and ``ls`` listings compared as
sets of names (their columns depend on the terminal).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = (ROOT / "README.md", ROOT / "docs" / "FORMATS.md")

RUN, SLOW = "run", "slow"

#: every documented command: RUN, SLOW, or the reason it is not run
EXAMPLES: dict[str, str] = {
    "rove validate specs/standard.yaml": RUN,
    "rove validate bad.yaml": "the README shows the messages, not the file that causes them",
    "rove deal --seed 7": RUN,
    "rove solve puzzle.yaml": RUN,
    "rove solve puzzle.yaml --json > plan.json": RUN,
    "rove replay puzzle.yaml plan.json --json": RUN,
    "rove book --count 6 --seed 1 -o book.pdf --export-dir book/": SLOW,
    "ls book/ book/specs/": SLOW,
    ".venv/bin/python bench/grading.py --count 200 --seed grading":
        "a benchmark: its figures are a measurement of the grader, not a promise of the command",
    "rove generate missions --count 7 --min-cost 2 --max-cost 5 --seed 2 -o output/new-missions.yaml": SLOW,
    "rove check standard --deals 10 --starts 0 --node-limit 50000":
        "the README abridges its tables ('...') and it ends with the seconds the run took",
    "rove cards standard -o output/cards.pdf": RUN,
    "rove cards standard --preset drivethrucards": RUN,
    "rove play book/02-mission.yaml         # a puzzle, a deal, a book export's puzzle":
        "starts a web server and waits for Ctrl-C (tests/test_play_browser.py drives it)",
    "rove play --deal 7 --difficulty hard   # or a fresh deal (--spec S)":
        "starts a web server and waits for Ctrl-C (tests/test_play_browser.py drives it)",
}

_SECONDS = re.compile(r"\b\d+\.\d+ s\b")


@dataclass(frozen=True)
class Step:
    command: str
    expected: str


@dataclass(frozen=True)
class Block:
    """One console block: where it is, its commands with their output, and the YAML block
    just before it (the file a command names, such as ``puzzle.yaml``)."""

    where: str
    steps: tuple[Step, ...]
    yaml_before: str | None


def console_blocks(doc: Path) -> list[Block]:
    """The ``console`` blocks of a Markdown document."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    last_yaml: str | None = None
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence in ("```console", "```yaml"):
            start = i + 1
            i += 1
            while not lines[i].startswith("```"):
                i += 1
            body = lines[start:i]
            if fence == "```yaml":
                last_yaml = "\n".join(body) + "\n"
            else:
                steps: list[Step] = []
                for line in body:
                    if line.startswith("$ "):
                        steps.append(Step(line[2:], ""))
                    elif steps:
                        steps[-1] = Step(steps[-1].command, steps[-1].expected + line + "\n")
                blocks.append(Block(f"{doc.name}:{start}", tuple(steps), last_yaml))
        i += 1
    return blocks


BLOCKS = [b for doc in DOCS for b in console_blocks(doc)]


def test_every_documented_command_is_listed() -> None:
    """A new example must say whether it runs (and an example that went away leaves the list)."""
    documented = {s.command for b in BLOCKS for s in b.steps}
    assert documented - EXAMPLES.keys() == set(), "add these commands to EXAMPLES"
    assert EXAMPLES.keys() - documented == set(), "these EXAMPLES are no longer in the documents"


def _normal(text: str, command: str) -> list[str] | str:
    text = _SECONDS.sub("<seconds> s", text)
    if command.startswith("ls "):
        return sorted(text.split())
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _run_block(block: Block, folder: Path, kinds: tuple[str, ...]) -> None:
    """Run the block's steps of these kinds, in order, in one folder (a session)."""
    shutil.copytree(ROOT / "specs", folder / "specs")
    (folder / "output").mkdir()
    if block.yaml_before is not None and any("puzzle.yaml" in s.command for s in block.steps):
        (folder / "puzzle.yaml").write_text(block.yaml_before, encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "80", "NO_COLOR": "1"}
    for step in block.steps:
        if EXAMPLES[step.command] not in kinds:
            continue
        proc = subprocess.run(["bash", "-c", step.command], cwd=folder, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)
        assert _normal(proc.stdout, step.command) == _normal(step.expected, step.command), (
            f"{block.where}: `{step.command}` printed\n{proc.stdout}")


def _blocks(kind: str) -> list[Block]:
    """The blocks with a step of this kind."""
    return [b for b in BLOCKS if any(EXAMPLES.get(s.command) == kind for s in b.steps)]


@pytest.mark.parametrize("block", _blocks(RUN), ids=lambda b: b.where)
def test_cheap_examples_print_what_the_documents_say(block: Block, tmp_path: Path) -> None:
    if any(EXAMPLES.get(s.command) == SLOW for s in block.steps):
        pytest.skip("a block with a slow step runs whole in the slow suite")
    _run_block(block, tmp_path, (RUN,))


@pytest.mark.slow
@pytest.mark.parametrize("block", _blocks(SLOW), ids=lambda b: b.where)
def test_slow_examples_print_what_the_documents_say(block: Block, tmp_path: Path) -> None:
    _run_block(block, tmp_path, (RUN, SLOW))
