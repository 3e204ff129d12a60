"""`rove book` on a designer's own deck: every puzzle holds for the cards the reader prints.

The deck here is the bundled one with a spent side for every module that moves otherwise
than its active side (other kinds, other directions), the shape of deck on which a swapped
deck shows: a book is made through the command line with every kind of puzzle and an
export, and everything is re-checked from the files against the deck the test wrote
itself, not against anything the book wrote.  The guard that stops a book whose puzzles
were posed on another deck is tested by swapping the deck under it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import classic_data
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.actions import load_plan
from rove.book import build
from rove.book.build import check_reader_deck, reader_spec
from rove.book.puzzles import Puzzle, Settings, mission_puzzle
from rove.cli import app
from rove.errors import SolverBug
from rove.generators.missions import movement_only
from rove.position import Current, load_position
from rove.replay import replay
from rove.solve.search import solve
from rove.spec import Spec, load_spec

runner = CliRunner()

#: a spent side for every module, each moving otherwise than the active one
SPENT_SIDES = {
    "brain": [{"kind": "short", "dirs": ["N", "S"]}],
    "laser": [{"kind": "short", "dirs": ["E", "W"]}],
    "sensor": [{"kind": "jump", "dirs": ["diagonal"]}],
    "coil": [{"kind": "standard", "dirs": ["E", "W"]}],
    "gripper": [{"kind": "push", "dirs": ["orthogonal"]}],
    "motor": [{"kind": "standard", "dirs": ["diagonal"]}],
}
ARGS = ["--count", "4", "--mix", "mission:1,hand:1,deal:1,campaign:1", "--seed", "3"]


def two_sided_data() -> dict[str, Any]:
    data = classic_data()
    data["name"] = "Two-sided deck"
    for m in data["modules"]:
        m["spent_arrows"] = SPENT_SIDES[m["id"]]
    return data


@pytest.fixture(scope="module")
def two_sided(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the deck's file, the book's folder: book.pdf and the export ex/)."""
    root = tmp_path_factory.mktemp("two-sided")
    deck = root / "two-sided.yaml"
    deck.write_text(yaml.safe_dump(two_sided_data(), sort_keys=False), encoding="utf-8")
    result = runner.invoke(app, ["book", "--spec", str(deck), *ARGS, "-o", str(root / "book.pdf"),
                                 "--export-dir", str(root / "ex")])
    assert result.exit_code == 0, result.output
    return deck, root


def _changed_cards(exported: Spec, source: Spec) -> set[str]:
    """The cards whose mission side the exported spec changes; everything else must be
    the source's (asserted)."""
    assert exported.modules == source.modules  # both sides' arrows, abilities, codes
    assert exported.missions_to_win == source.missions_to_win
    assert [c.id for c in exported.cards] == [c.id for c in source.cards]
    out = set()
    for got, want in zip(exported.cards, source.cards):
        assert got.movement == want.movement, got.id
        if got.mission != want.mission:
            out.add(got.id)
    return out


def test_every_kind_is_made_on_the_two_sided_deck(two_sided: tuple[Path, Path]) -> None:
    _, root = two_sided
    kinds = {y.stem.split("-")[1] for y in (root / "ex").glob("*.yaml")}
    assert kinds == {"mission", "hand", "deal", "campaign"}


def test_every_exported_spec_has_the_source_modules(two_sided: tuple[Path, Path]) -> None:
    deck, root = two_sided
    source = load_spec(deck)
    specs = sorted((root / "ex" / "specs").glob("*.yaml"))
    assert len(specs) >= 2  # the deck's copy and the campaign's deck
    for f in specs:
        changed = _changed_cards(load_spec(f), source)
        if "campaign" in f.name:
            # only the cards the header names carry new missions
            header = f.read_text(encoding="utf-8").split("format:")[0]
            named = set(re.findall(r"\bc\d\d\b", header))
            assert changed and changed <= named, (changed, named)
        else:
            assert not changed, f.name


def test_every_solution_replays_on_the_readers_deck(two_sided: tuple[Path, Path]) -> None:
    """Each exported position, re-pointed at a deck rebuilt here from the source file (with
    a campaign's missions on its cards, nothing else), replays to its goal; campaign
    budgets are the proven optimum on that deck."""
    deck, root = two_sided
    source = load_spec(deck)
    for y in sorted((root / "ex").glob("*.yaml")):
        pos = load_position(y)
        changed = _changed_cards(pos.spec, source)
        reader = replace(source, cards=tuple(pos.spec.card(c.id) if c.id in changed else c
                                             for c in source.cards))
        on_reader = replace(pos, spec=reader)
        r = replay(on_reader, load_plan(y.with_name(y.stem + ".plan.json")))
        assert r.legal and r.goal_reached, (y.name, r.first_illegal)
        if "campaign" in y.name:
            assert pos.spent == frozenset(source.codes)
            budget = pos.current.points if pos.current else 0
            got = solve(on_reader, time_limit=None)
            assert got.status == "solved" and got.points == budget, y.name
            tight = replace(on_reader, current=Current(None, budget - 1))
            assert budget == 0 or solve(tight, time_limit=None).status == "unsolvable", y.name


def test_some_solution_moves_a_spent_module_along_its_spent_side(two_sided: tuple[Path, Path]) -> None:
    """The deck's spent sides are really exercised: some printed move is illegal on the
    active side of its module (so a book swapping in active arrows could not pass)."""
    deck, root = two_sided
    source = load_spec(deck)
    active_only = movement_only(source)
    broken = 0
    for y in sorted((root / "ex").glob("*.yaml")):
        pos = load_position(y)
        r = replay(replace(pos, spec=replace(active_only, cards=pos.spec.cards)),
                   load_plan(y.with_name(y.stem + ".plan.json")))
        broken += not (r.legal and r.goal_reached)
    assert broken


def test_the_book_shows_both_sides(two_sided: tuple[Path, Path]) -> None:
    _, root = two_sided
    pages = [p.extract_text() for p in PdfReader(str(root / "book.pdf")).pages]
    rules = next(t for t in pages if "Rules reminder" in t and "Notation" in t)
    assert "Two sides." in rules
    assert rules.count("spent: ") == 6  # every module's spent side, in words
    assert "spent: short N S" in rules and "spent: jump NE SE SW NW" in rules
    campaign = next(t for t in pages if "Campaign of" in t and "MISSION 1" in t)
    assert "Spent sides move:" in campaign
    solutions = "\n".join(pages[pages.index(campaign):])
    assert "(spent)" in solutions  # steps by a spent module are marked


def test_a_deck_whose_sides_move_alike_shows_one_side(tmp_path: Path) -> None:
    """The bundled deck: one compass a module, no spent-side strip or marks."""
    result = runner.invoke(app, ["book", "--count", "2", "--mix", "mission:1", "--seed", "1",
                                 "-o", str(tmp_path / "b.pdf")])
    assert result.exit_code == 0, result.output
    text = "\n".join(p.extract_text() for p in PdfReader(str(tmp_path / "b.pdf")).pages)
    assert "Two sides." not in text and "Spent sides move:" not in text and "(spent)" not in text


def test_the_cover_draws_the_decks_own_modules(tmp_path: Path) -> None:
    """A deck with a module W (no Sensor): the cover's layout shows every module of the
    deck (it was fixed to B L S / C G M, leaving a blank cell)."""
    data = classic_data()
    data["name"] = "W deck"
    for m in data["modules"]:
        if m["code"] == "S":
            m.update(code="W", id="wheel", name="Wheel")
    for c in data["cards"]:
        for side in ("mission", "movement"):
            c[side]["pattern"] = re.sub(r"\bS\b", "W", c[side]["pattern"])
    spec = tmp_path / "w.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = runner.invoke(app, ["book", "--spec", str(spec), "--count", "1", "--mix", "mission:1",
                                 "--seed", "1", "-o", str(tmp_path / "w.pdf")])
    assert result.exit_code == 0, result.output
    page = PdfReader(str(tmp_path / "w.pdf")).pages[0]
    letters: list[str] = []
    page.extract_text(visitor_text=lambda t, cm, tm, fd, fs: letters.append(t.strip()) if fs > 8 else None)
    assert {"B", "L", "W", "C", "G", "M"} <= set(letters)
    assert "S" not in letters


# --------------------------------------------------------------------------- the guard


@pytest.fixture(scope="module")
def a_mission_puzzle() -> tuple[Spec, Puzzle]:
    """A Mission in N on the two-sided deck with at least one spent module."""
    source = load_spec_data(two_sided_data())
    for i in range(40):
        p = mission_puzzle(source, f"guard:{i}", Settings())
        if p is not None and p.position.spent:
            return source, p
    raise AssertionError("no Mission in N with a spent module in 40 candidates")


def load_spec_data(data: dict[str, Any]) -> Spec:
    from rove.spec import parse_spec

    return parse_spec(yaml.safe_dump(data, sort_keys=False), "<two-sided>")


def test_the_guard_passes_puzzles_made_on_the_readers_deck(a_mission_puzzle: tuple[Spec, Puzzle]) -> None:
    source, p = a_mission_puzzle
    check_reader_deck(source, [p])  # no error
    assert reader_spec(source, p) is source  # a Mission in N changes nothing


def test_the_guard_stops_a_swapped_deck(a_mission_puzzle: tuple[Spec, Puzzle]) -> None:
    """The class of bug: a puzzle posed on a copy of the deck changed for a solver's
    convenience (here: spent sides replaced by active ones), even with a plan that happens
    to replay on it."""
    source, p = a_mission_puzzle
    swapped = replace(p, position=replace(p.position, spec=movement_only(source)))
    with pytest.raises(SolverBug, match="modules other than the deck's"):
        check_reader_deck(source, [swapped])


def test_the_guard_stops_a_plan_that_fails_on_the_readers_deck(a_mission_puzzle: tuple[Spec, Puzzle]) -> None:
    source, p = a_mission_puzzle
    bad = replace(p, plan=p.plan[:-1])  # legal, but short of the goal
    with pytest.raises(SolverBug, match="fails on the reader's deck"):
        check_reader_deck(source, [bad])


def test_a_swapped_deck_stops_the_book_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the command line: a puzzle kind that swaps the deck (the old campaign's
    bug, reproduced by a wrapper) makes `rove book` fail loudly with nothing written."""
    deck = tmp_path / "two-sided.yaml"
    deck.write_text(yaml.safe_dump(two_sided_data(), sort_keys=False), encoding="utf-8")
    real = build.mission_puzzle

    def swapping(spec: Spec, label: str, settings: Settings) -> Puzzle | None:
        p = real(spec, label, settings)
        if p is None:
            return None
        return replace(p, position=replace(p.position, spec=movement_only(spec)))

    monkeypatch.setattr(build, "mission_puzzle", swapping)
    # --jobs 1: the wrapper lives in this process (a worker would make the real puzzle)
    result = runner.invoke(app, ["book", "--spec", str(deck), "--count", "1", "--mix", "mission:1", "--jobs", "1",
                                 "-o", str(tmp_path / "b.pdf"), "--export-dir", str(tmp_path / "ex")])
    assert result.exit_code == 1
    assert "internal check failed" in result.output and "modules other than the deck's" in result.output
    assert not (tmp_path / "b.pdf").exists() and not (tmp_path / "ex").exists()
