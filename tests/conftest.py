"""What the test files share: the classic spec, small spec builders and the lab that
turns them into positions, the command-line helpers.

* ``classic``: the bundled classic deck, loaded once per session (``CLASSIC`` is its file,
  ``classic_data()`` a fresh copy of its YAML data to vary).  Most tests play it rather
  than the default ``standard`` deck: every deal of it is won and its searches are short,
  so what a test asserts was worked out on it and stays quick; the tests that are about
  the default deck name ``standard``.
* Builders of small specs as data: ``mod`` (a module), ``card``, ``STD`` (the six
  reference modules by code), ``NEVER`` (a pattern no test layout matches), ``active``;
  ``Lab`` writes them to a folder (positions name their spec by file) and builds
  positions, decks and states; ``rove.spec.parse_spec`` reads a spec without a file.
* ``runner`` (Typer's CliRunner) and ``rove_script()`` (the venv's console script);
  ``installed``, the wheel ``make dist`` builds installed in a fresh venv (tests/installed.py);
  ``fake_book``, ``rove book`` with instant fakes for tests of its outputs.

Slow tests are marked ``@pytest.mark.slow``; pyproject.toml deselects them unless the
run asks for them: ``pytest -m slow``.

The compiled search core (``rove._core``) is required: a run without it stops at once
unless it asks for the pure-Python path with ``ROVE_CORE=0``, because the searches would
otherwise fall back to Python silently and the differential tests would skip, so a
broken build could pass.  The session's first line says which path runs.

(Import these names with ``from conftest import ...``: pytest puts this folder on the path.)
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from installed import Installed, installed_rove
from typer.testing import CliRunner

from rove.engine import Deck, State, state_from_position
from rove.position import Position, parse_position
from rove.spec import BUNDLED_DIR, Spec, load_spec

CLASSIC = BUNDLED_DIR / "classic.yaml"
"""The classic deck's file."""


# --------------------------------------------------------------------------- the compiled core

_CORE_PATH = pytest.StashKey[str]()


def core_path() -> str:
    """Which search path this run tests, in words; a pytest.UsageError (the session
    stops) when the compiled core is missing and the run did not ask for Python."""
    if os.environ.get("ROVE_CORE", "1") == "0":
        return "pure Python (ROVE_CORE=0)"
    try:
        compiled = importlib.import_module("rove._core")
    except ImportError as exc:
        raise pytest.UsageError(
            f"the compiled search core rove._core is missing ({exc}); build it with `make setup`, "
            "or run the pure-Python path on purpose with ROVE_CORE=0") from None
    return f"compiled core ({Path(compiled.__file__ or '?').name})"


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_CORE_PATH] = core_path()


def pytest_sessionstart(session: pytest.Session) -> None:
    """One line at the top of every run, even under -q (which hides report headers); an
    xdist worker has no terminal of its own, so only the main process writes it."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not hasattr(session.config, "workerinput"):
        reporter.write_line(f"rove search path: {session.config.stash[_CORE_PATH]}")


@pytest.fixture(scope="session")
def classic() -> Spec:
    """The classic deck (a Spec is immutable, so one load serves every test)."""
    return load_spec("classic")


def classic_data() -> dict[str, Any]:
    """A fresh copy of the classic deck's YAML data, to vary."""
    data: dict[str, Any] = yaml.safe_load(CLASSIC.read_text(encoding="utf-8"))
    return data


def flow_data() -> dict[str, Any]:
    """"flow": the classic deck with easy missions (a named module with a neighbour on one
    side) and ten to win, so that random play completes many of them and reaches
    recycling, wins and losses."""
    flow = classic_data()
    flow["name"], flow["missions_to_win"] = "flow", 10
    shapes = ["{} #", "# {}", "{}\n#", "#\n{}"]
    for i, c in enumerate(flow["cards"]):
        c["mission"]["pattern"] = shapes[(i + i // 6) % 4].format("BLSCGM"[i % 6])
        c["movement"] = {"points": 1 + i % 2, "bonus": 3, "pattern": "# #" if i % 3 else "#\n#"}
    return flow


# --------------------------------------------------------------------------- texts


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with one exact, unique piece replaced (so a typo in a test cannot pass silently)."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def line_of(text: str, needle: str) -> int:
    """1-based line of the only line containing ``needle``."""
    hits = [i + 1 for i, line in enumerate(text.split("\n")) if needle in line]
    assert len(hits) == 1, f"{needle!r} is on lines {hits}"
    return hits[0]


# TRIO: three modules, four cards, two missions to win (a whole deal in miniature).
TRIO_SPEC = """\
format: rove-spec/1
name: Trio
missions_to_win: 2
modules:
  - {id: brain, code: B, name: Brain, ability: brain, arrows: [{kind: standard, dirs: [orthogonal]}]}
  - {id: laser, code: L, name: Laser, ability: laser, arrows: [{kind: standard, dirs: [diagonal]}]}
  - {id: motor, code: M, name: Motor, ability: motor, arrows: [{kind: push, dirs: [orthogonal]}]}
cards:
  - {id: t1, mission: {title: Tower,  pattern: "B\\n#\\n#"},
     movement: {points: 1, bonus: 3, pattern: "# # #"}}
  - {id: t2, mission: {title: Step,   pattern: "L .\\n# #"},
     movement: {points: 2, bonus: 3, pattern: "#\\n#"}}
  - {id: t3, mission: {title: Hook,   pattern: "M #\\n. #"},
     movement: {points: 1, bonus: 2, pattern: "# .\\n. #"}}
  - {id: t4, mission: {title: Ladder, pattern: "# .\\n. #\\n. #"},
     movement: {points: 2, bonus: 4, pattern: "L M"}}
"""


# --------------------------------------------------------------------------- spec builders

Arrows = tuple[str, list[str]]


def mod(code: str, mid: str, ability: str, *arrows: Arrows, spent: list[Arrows] | None = None,
        ) -> dict[str, Any]:
    """A module entry: ``mod("B", "brain", "brain", ("standard", ["orthogonal"]))``;
    ``spent`` gives its spent side other arrows."""
    m: dict[str, Any] = {"id": mid, "code": code, "name": mid.title(), "ability": ability,
                         "arrows": [{"kind": k, "dirs": d} for k, d in arrows]}
    if spent is not None:
        m["spent_arrows"] = [{"kind": k, "dirs": d} for k, d in spent]
    return m


#: the six reference modules (as both bundled decks move them), by code
STD = {
    "B": mod("B", "brain", "brain", ("standard", ["orthogonal"])),
    "L": mod("L", "laser", "laser", ("standard", ["diagonal"])),
    "S": mod("S", "sensor", "sensor", ("standard", ["orthogonal"])),
    "C": mod("C", "coil", "coil", ("jump", ["all"])),
    "G": mod("G", "gripper", "gripper", ("short", ["all"])),
    "M": mod("M", "motor", "motor", ("push", ["orthogonal"])),
}
STD_MODULES = list(STD.values())
ALL = list(STD)
STD6 = "B L S\nC G M"  # B(0,0) L(1,0) S(2,0) / C(0,1) G(1,1) M(2,1)

#: a pattern no test layout matches: the six reference modules in one column
NEVER = "B\nL\nS\nC\nG\nM"


def card(cid: str, mission: str = NEVER, points: int = 2, bonus: int = 4,
         pattern: str = NEVER) -> dict[str, Any]:
    """A card entry; by default neither of its patterns matches a test layout."""
    return {"id": cid, "mission": {"title": cid, "pattern": mission},
            "movement": {"points": points, "bonus": bonus, "pattern": pattern}}


def active(*codes: str) -> list[str]:
    """The spent list that leaves exactly these reference modules active."""
    return [c for c in ALL if c not in codes]


#: n1..n9: plain cards (n1's movement pattern is "B S": B right next to S, west of it);
#: missions used by the flow tests:
#:   Bgap  "B / . / C": B two cells above C (the cell between is free)
#:   Bany  "B": matches every layout
#:   P1    "S # / . #"   P2  "S _ #"
LAB_CARDS = [
    card("n1", points=1, bonus=3, pattern="B S"),
    *(card(f"n{i}") for i in range(2, 10)),
    card("Bgap", mission="B\n.\nC"),
    card("Bany", mission="B"),
    card("P1", mission="S #\n. #"),
    card("P2", mission="S _ #"),
]


def spec_text(modules: list[dict[str, Any]] | None = None, cards: list[dict[str, Any]] | None = None,
              missions_to_win: int = 7, name: str = "lab") -> str:
    """A spec's text (JSON is YAML): the reference modules and LAB_CARDS unless given."""
    data = {"format": "rove-spec/1", "name": name, "missions_to_win": missions_to_win,
            "modules": modules or STD_MODULES, "cards": cards or LAB_CARDS}
    return json.dumps(data, indent=1)


class Lab:
    """Writes specs to a folder (a position names its spec by file) and builds positions,
    decks and states from them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.specs: dict[str, Path] = {}

    def spec(self, modules: list[dict[str, Any]] | None = None,
             cards: list[dict[str, Any]] | None = None, missions_to_win: int = 7) -> Path:
        """The file of this spec, written once."""
        text = spec_text(modules, cards, missions_to_win)
        if text not in self.specs:
            path = self.root / f"spec{len(self.specs)}.yaml"
            path.write_text(text, encoding="utf-8")
            self.specs[text] = path
        return self.specs[text]

    def position(self, layout: str, *, spec: Path | None = None,
                 modules: list[dict[str, Any]] | None = None, cards: list[dict[str, Any]] | None = None,
                 mission: str = "n9", goal: str = "mission", hand: tuple[str, ...] | list[str] = (),
                 draw: tuple[str, ...] | list[str] = (), discard: tuple[str, ...] | list[str] = (),
                 current: tuple[str | None, int] | None = None, spent: tuple[str, ...] | list[str] = (),
                 rules: dict[str, Any] | None = None, done: int = 0,
                 completed: tuple[str, ...] = ()) -> Position:
        """A position on ``spec`` (default: the spec of ``modules`` and ``cards``)."""
        data = {"format": "rove-position/1", "spec": str(spec or self.spec(modules, cards)),
                "goal": goal, "layout": layout, "spent": list(spent), "missions_done": done,
                "mission": mission, "hand": list(hand), "draw": list(draw),
                "discard": list(discard), "completed": list(completed),
                "current": (None if current is None else
                            {"card": current[0], "points": current[1]}),
                "rules": rules or {}}
        return parse_position(json.dumps(data), "<lab>", self.root)

    def game(self, layout: str, **kw: Any) -> tuple[Deck, State]:
        pos = self.position(layout, **kw)
        deck = Deck(pos.spec, pos.rules)
        return deck, state_from_position(deck, pos)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Lab:
    return Lab(tmp_path_factory.mktemp("lab"))


# --------------------------------------------------------------------------- command line


@pytest.fixture(scope="module")
def runner() -> CliRunner:
    return CliRunner()


def _installed_base(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The folder the run's workers share for the installed rove."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Installed:
    """rove as a user installs it (tests/installed.py): the wheel in a fresh venv with no
    Rust on its PATH, built once a run and shared by the xdist workers."""
    got = installed_rove(_installed_base(tmp_path_factory, worker_id))
    assert got is not None  # a waiting call always has it
    return got


@pytest.fixture(scope="session", autouse=True)
def _installed_early(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                     worker_id: str) -> Iterator[None]:
    """Start building the installed rove in the background at the run's first test when
    any test of the run needs it: the build (the wheel, a venv, pip, about 50 s) then
    runs beside the other tests instead of holding a worker, or both, at the first test
    that asks.  It starts only when no worker is building yet, and a failed build here
    is left for that test's own call to try again and report."""
    if not any("installed" in getattr(item, "fixturenames", ()) for item in request.session.items):
        yield
        return
    base = _installed_base(tmp_path_factory, worker_id)

    def build() -> None:
        try:
            installed_rove(base, wait=False)
        except Exception:  # the test that needs it builds again and says why
            pass

    thread = threading.Thread(target=build, name="installed-rove", daemon=True)
    thread.start()
    yield
    thread.join()


def rove_script() -> str:
    """The installed ``rove`` console script."""
    script = Path(sys.executable).parent / "rove"
    found = str(script) if script.exists() else shutil.which("rove")
    assert found, "the rove console script is not installed"
    return found


@pytest.fixture
def fake_book(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """``rove book`` with generation and rendering replaced by instant fakes, for tests of
    its outputs: returns the files its export writes (change them to change the export)."""
    from rove.book import build

    files = {"01-mission.yaml": "a\n", "01-mission.plan.json": "[]\n", "specs/02-campaign.yaml": "c\n"}
    monkeypatch.setattr(build, "generate_book", lambda *a, **k: ["puzzle"])
    monkeypatch.setattr(build, "render_book", lambda *a, **k: b"%PDF-fake")
    monkeypatch.setattr(build, "export_files", lambda *a, **k: dict(files))
    # what later versions of the book also compute (set here even where they do not exist yet)
    monkeypatch.setattr(build, "example_puzzle", lambda *a, **k: None, raising=False)
    monkeypatch.setattr(build, "shortfalls", lambda *a, **k: [], raising=False)
    return files


# Tiny three-module decks of the design check's tests (test_check, test_check_losses):
# each decides its deals in a few nodes, so whole checks run in seconds.
NEVER_MOVE = "#\n#\n#"  # three rows: never matched by a row of three that cannot leave it


def tiny_spec_text(name: str, missions: list[str], mtw: int, arrows: str = "{kind: short, dirs: [E]}",
              base: int = 0, bonus: int = 1, movement: str = NEVER_MOVE) -> str:
    out = ["format: rove-spec/1", f"name: {name}", f"missions_to_win: {mtw}", "modules:"]
    for code in "ABC":
        out += [f"  - id: m{code.lower()}", f"    code: {code}", f"    name: Mod {code}",
                "    ability: sensor", f"    arrows: [{arrows}]"]
    out.append("cards:")
    for i, mission in enumerate(missions, start=1):
        out += [f"  - id: k{i}", "    mission:", f"      title: Task {i}", "      pattern: |"]
        out += [f"        {row}" for row in mission.split("\n")]
        out += ["    movement:", f"      points: {base}", f"      bonus: {bonus}", "      pattern: |"]
        out += [f"        {row}" for row in movement.split("\n")]
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("specs")
    texts = {
        # every mission is matched by any layout: won before the first action
        "always": tiny_spec_text("Always", ["#"] * 8, 2),
        # three rows needed, only one row possible, no card gives a point: never won
        # (few cards: the solver proves a loss by trying every order of the card piles)
        "never": tiny_spec_text("Never", [NEVER_MOVE] * 4, 2),
        # nothing can move and one mission wins: a deal is won exactly when the start row
        # matches its first mission (probability 1/4 + 3/4 * 1/3 = 1/2 over random deals)
        "row": tiny_spec_text("Row", ["#", "A B", "B C", "C A"], 1),
        # C can step east once under B ("B / C"); every other mission is out of reach
        "ell": tiny_spec_text("Ell", ["B\nC"] + [NEVER_MOVE] * 6, 2, base=1, bonus=2),
    }
    paths = {}
    for name, text in texts.items():
        paths[name] = d / f"{name}.yaml"
        paths[name].write_text(text, encoding="utf-8")
    (d / "bad.yaml").write_text(texts["row"].replace("code: B", "code: bb"), encoding="utf-8")
    paths["bad"] = d / "bad.yaml"
    return paths
