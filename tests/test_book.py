"""`rove book`: verified puzzle books.

One small book (4 puzzles: Mission in N, hand puzzle, verified deal) and a one-campaign book
are made once through the command line with ``--export-dir``; the tests re-prove what it claims from the
exported files alone (every optimum re-solved, every solution replayed), read the PDF back
with pypdf (pages, text, cross-references), and make the book a second time in a fresh
process to compare bytes.  Grades are checked for monotonicity in every feature.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import fields, replace
from functools import cache
from pathlib import Path

import pytest
import yaml
from helpers import kendall_tau_b, spearman, without_bonus
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.actions import Action, load_plan
from rove.book import analyse
from rove.book.build import measured, parse_mix, spec_copy, split_count, star_quotas
from rove.book.grade import (
    EASIER_WHEN_LARGER,
    HARDER_WHEN_LARGER,
    MAX_STARS_UNCOUNTED,
    Features,
    score,
    stars,
)
from rove.book.puzzles import CHAIN_MIN_ABILITIES, Settings, _nudge, count_solutions, mission_puzzle
from rove.cli import app
from rove.engine import Deck, state_from_position
from rove.grid import connected
from rove.position import Current, load_position, parse_position
from rove.replay import replay
from rove.solve.astar import solve_mission
from rove.solve.nodes import Budget, Limit
from rove.solve.search import solve
from rove.spec import BUNDLED_DIR, bundled_names, load_spec

ARGS = ["--spec", "classic", "--count", "4", "--mix", "mission:50,hand:25,deal:25", "--seed", "5"]
NOTATION = ["play c02+", "B E2", "L swap B C", "M shift S NE", "B place G 2,-1", "C to 3,1",
            "S draw", "G via L swap B C"]
runner = CliRunner()
#: nodes for re-proving a book's optimum (node-bounded: a slow machine cannot turn a pass
#: into unknown); the book's own proofs take at most Settings().mission_nodes
PROOF_NODES = 1_000_000


def build_book(root: Path, args: list[str]) -> Path:
    """``rove book ARGS`` into ``root``: book.pdf and the export folder ex/."""
    result = runner.invoke(app, ["book", *args, "-o", str(root / "book.pdf"),
                                 "--export-dir", str(root / "ex")])
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_book(tmp_path_factory.mktemp("book"), ARGS)


def puzzles(root: Path) -> list[tuple[str, Path, Path]]:
    out = []
    for y in sorted((root / "ex").glob("*.yaml")):
        name = y.name[:-len(".yaml")]
        out.append((name, y, root / "ex" / f"{name}.plan.json"))
    return out


@cache
def pdf_text(path: str) -> list[str]:
    return [p.extract_text() for p in PdfReader(path).pages]


# --------------------------------------------------------------------------- exports


def test_export_files(made: Path) -> None:
    names = [n for n, _, _ in puzzles(made)]
    assert len(names) == 4
    assert [int(n[:2]) for n in names] == [1, 2, 3, 4]
    assert {n[3:] for n in names} == {"mission", "hand", "deal"}
    for _, _y, plan in puzzles(made):
        assert plan.exists()
        assert json.loads(plan.read_text())  # a JSON list of actions
    result = runner.invoke(app, ["validate", *(str(y) for _, y, _ in puzzles(made))])
    assert result.exit_code == 0, result.output
    assert result.output.count(": ok (position") == 4


def test_layouts_are_rebased(made: Path) -> None:
    for _, y, _ in puzzles(made):
        cells = load_position(y).cells.values()
        assert min(x for x, _ in cells) == 0 and min(yy for _, yy in cells) == 0


def test_every_solution_replays(made: Path) -> None:
    for name, y, plan in puzzles(made):
        pos = load_position(y)
        r = replay(pos, load_plan(plan))
        assert r.legal and r.goal_reached, name
        if name.endswith("deal"):
            assert r.final.status == "won" and r.missions_completed == pos.spec.missions_to_win
    # and through the command line, as a reader would
    name, y, plan = puzzles(made)[0]
    result = runner.invoke(app, ["replay", str(y), str(plan), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["goal_reached"] is True


def test_every_puzzle_resolves_to_its_stated_optimum(made: Path) -> None:
    for name, y, plan_file in puzzles(made):
        if name.endswith("deal"):
            continue  # a deal states winnability (the replay above), not an optimum
        pos = load_position(y)
        plan = load_plan(plan_file)
        points = sum(a.act == "move" for a in plan)
        cards = sum(a.act == "play" for a in plan)
        r = solve(pos, max_nodes=PROOF_NODES)
        assert r.status == "solved" and r.optimal, name
        assert (r.points, r.cards) == (points, cards), name
        if name.endswith("mission"):
            n = pos.current.points
            assert pos.current.card is None and points == n  # the bare budget is the optimum
            title = y.read_text().splitlines()[1]
            assert f"Mission in {n}" in title
            # and one point fewer is proven impossible
            assert solve(replace(pos, current=Current(None, n - 1)), max_nodes=PROOF_NODES).status == "unsolvable"


def test_hand_puzzles_need_the_right_opening(made: Path) -> None:
    hands = [(y, p) for n, y, p in puzzles(made) if n.endswith("hand")]
    assert hands
    for y, plan_file in hands:
        pos = load_position(y)
        assert pos.current is None and len(pos.hand) >= 2 and not pos.draw
        deck = Deck(pos.spec, pos.rules)
        s = state_from_position(deck, pos)
        plan = load_plan(plan_file)
        best = (sum(a.act == "move" for a in plan), sum(a.act == "play" for a in plan))
        assert best[1] >= 2
        plays, wrong = analyse.opening_plays(deck, s, best, 100_000)
        assert wrong >= 1 and plays > wrong
        # base points only: no solution (a bonus is needed)
        got, _ = solve_mission(without_bonus(deck), s, Budget.of(None, PROOF_NODES))  # 63 nodes
        assert got is None


# --------------------------------------------------------------------------- the PDF


def test_pdf_pages_and_text(made: Path) -> None:
    """Title, contents (a line a puzzle), rules, grading, the worked example, a page a
    puzzle, the three levels of hints, the solutions; every cross-reference points at the
    right page and back."""
    pages = pdf_text(str(made / "book.pdf"))
    reader = PdfReader(str(made / "book.pdf"))
    w, h = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (round(w), round(h)) == (420, 595)  # A5
    assert "Verified Puzzles" in pages[0] and "Contents" in pages[0]
    assert "CONTENTS" in pages[1]
    assert "Rules reminder" in pages[2]
    for code in NOTATION:
        assert code in pages[2], code
    assert "How the puzzles are graded" in pages[3] and "Technical note" in pages[3]
    assert "How to solve one" in pages[4] and "The solution." in pages[4]
    first_hints = next(i for i, t in enumerate(pages) if t.startswith("HINTS"))
    assert first_hints == 9  # right after the four puzzles
    hints = "\n".join(t for t in pages if t.startswith("HINTS"))
    assert "Hint 1: where to start" in hints and "Hint 2: the first action" in hints
    assert "Hint 3: halfway" in hints
    # one page per puzzle, then the hints, then the solutions
    for i in range(1, 5):
        page = pages[4 + i]
        assert page.startswith(f"PUZZLE {i}") or f"PUZZLE {i}" in page
        assert re.search(rf"\b{i}\.\s+[^\n]+\s+p\. {5 + i}\b", pages[1])  # listed in the contents
        sol = int(re.search(r"[Ss]olution p\. (\d+)", page).group(1))
        assert sol > first_hints + 1 and f"{i}. " in pages[sol - 1]
        assert f"Puzzle {i}, p. {5 + i}" in pages[sol - 1]  # and back again
        hint = int(re.search(r"Hints pp?\. (\d+)", page).group(1))
        assert hint == first_hints + 1 and f"{i}. " in pages[hint - 1]
        assert re.search(rf"{i}\. (Mission in \d+ (move|point)|Hand puzzle|Verified deal)", page)
        assert "solved" in page  # the box to tick
    assert any("SOLUTIONS" in t for t in pages[first_hints:])
    for n, page in enumerate(pages[1:], 2):  # page numbers
        assert page.rstrip().endswith(str(n))
    text = "\n".join(pages)
    assert "Stack the deck" in text and "Draw pile, top first" in text
    assert "Plan:" in text and "Measured:" in text


def test_pdf_is_byte_identical_across_runs(made: Path, tmp_path: Path) -> None:
    """A second run in a fresh process (another hash seed) gives the same bytes."""
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = tmp_path / "again.pdf"
    proc = subprocess.run([sys.executable, "-m", "rove.cli", "book", *ARGS, "-o", str(out),
                           "--export-dir", str(tmp_path / "ex")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (made / "book.pdf").read_bytes()
    files = sorted(f.relative_to(made / "ex") for f in (made / "ex").rglob("*") if f.is_file())
    assert files == sorted(f.relative_to(tmp_path / "ex") for f in (tmp_path / "ex").rglob("*")
                           if f.is_file())
    for f in files:
        assert (tmp_path / "ex" / f).read_bytes() == (made / "ex" / f).read_bytes()


def test_letter_paper(made: Path) -> None:
    """The exported puzzles, printed on Letter."""
    from rove.book.build import render_book
    from rove.book.puzzles import Puzzle

    ps = []
    for name, y, plan_file in puzzles(made):
        pos = replace(load_position(y), spec_ref="classic")
        kind = name[3:]
        feats = Features(points=sum(a.act == "move" for a in load_plan(plan_file)), hand_size=len(pos.hand))
        ps.append(Puzzle(kind, pos, tuple(load_plan(plan_file)), feats, 0.0, 3, (name,), name,
                         difficulty="normal" if kind == "deal" else None))
    data = render_book(pos.spec, ps, 5, "letter")
    reader = PdfReader(io.BytesIO(data))
    w, h = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (round(w), round(h)) == (612, 792)
    assert len(reader.pages) >= 4 + len(ps) + 1


# --------------------------------------------------------------------------- campaigns


@pytest.fixture(scope="module")
def campaign_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("campaign")
    result = runner.invoke(app, ["book", "--spec", "classic", "--count", "1", "--mix", "campaign:1", "--seed", "2",
                                 "-o", str(root / "book.pdf"), "--export-dir", str(root / "ex")])
    assert result.exit_code == 0, result.output
    return root


def test_campaign_legs_chain_and_each_budget_is_the_optimum(campaign_book: Path) -> None:
    ex = campaign_book / "ex"
    assert (ex / "specs" / "01-campaign.yaml").exists()
    assert runner.invoke(app, ["validate", str(ex / "specs" / "01-campaign.yaml")]).exit_code == 0
    # every YAML file at the top is a position with its plan beside it
    # (docs/FORMATS.md, "rove book --export-dir")
    assert all(y.with_name(y.stem + ".plan.json").exists() for y in ex.glob("*.yaml"))
    legs = sorted(ex.glob("01-campaign-*.yaml"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    assert 3 <= len(legs) <= 4
    end_cells = None
    for y in legs:
        pos = load_position(y)
        assert pos.spent == frozenset(pos.spec.codes) and not pos.hand
        if end_cells is not None:  # this mission starts where the last one's line ended
            xs = [x for x, _ in end_cells.values()]
            ys = [v for _, v in end_cells.values()]
            assert pos.cells == {c: (x - min(xs), v - min(ys)) for c, (x, v) in end_cells.items()}
        budget = pos.current.points
        r = solve(pos, max_nodes=PROOF_NODES)
        assert r.status == "solved" and r.points == budget, y.name
        tight = replace(pos, current=Current(None, budget - 1))
        assert solve(tight, max_nodes=PROOF_NODES).status == "unsolvable", y.name
        rep = replay(pos, load_plan(y.with_name(y.stem + ".plan.json")))
        assert rep.legal and rep.goal_reached and rep.points_spent == budget
        final = rep.final
        end_cells = {c: final_cell for c, final_cell in zip(pos.spec.codes, _cells(final))}


def _cells(state) -> list[tuple[int, int]]:
    from rove.engine import unpack

    return [unpack(c) for c in state.cells]


def test_campaign_book_is_byte_identical_across_runs(campaign_book: Path, tmp_path: Path) -> None:
    """The generator's CP-SAT runs are seeded and single-threaded: a fresh process gives the
    same campaign, PDF and exports."""
    env = dict(os.environ, PYTHONHASHSEED="777")
    out = tmp_path / "again.pdf"
    proc = subprocess.run([sys.executable, "-m", "rove.cli", "book", "--spec", "classic", "--count", "1", "--mix",
                           "campaign:1", "--seed", "2", "-o", str(out), "--export-dir",
                           str(tmp_path / "ex")], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == (campaign_book / "book.pdf").read_bytes()
    for f in (campaign_book / "ex").rglob("*.*"):
        assert (tmp_path / "ex" / f.relative_to(campaign_book / "ex")).read_bytes() == f.read_bytes()


def test_campaign_pages(campaign_book: Path) -> None:
    text = pdf_text(str(campaign_book / "book.pdf"))
    page = next(t for t in text if "1. Campaign of" in t and "MISSION 1" in t)
    assert "budget" in page and "Solution p." in page
    sol = "\n".join(text[text.index(page) + 1:])  # the solutions follow the puzzle page
    assert "Mission 1," in sol and "Measured:" in sol and "trap" in sol


# --------------------------------------------------------------------------- every kind in one book

MIXED = ["--spec", "classic", "--count", "5", "--mix", "mission:2,hand:1,deal:1,campaign:1", "--seed", "2"]
#: a Python value printed where a number or a word belongs
PYTHON_WORDS = re.compile(r"\b(False|True|None|nan)\b")


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A book with every kind of puzzle (Mission in N, hand puzzle, verified deal, campaign)."""
    return build_book(tmp_path_factory.mktemp("mixed"), MIXED)


def test_pdf_text_holds_no_python_values(mixed: Path, made: Path, campaign_book: Path) -> None:
    """No Python value leaks into the text: a verified deal once said "the game solver examined False positions"."""
    text = "\n".join(pdf_text(str(mixed / "book.pdf")))
    for title in ("Mission in", "Hand puzzle", "Verified deal", "Campaign of"):
        assert title in text, title  # every kind is in the book
    assert "Measured:" in text
    for book in (mixed, made, campaign_book):
        for n, page in enumerate(pdf_text(str(book / "book.pdf")), 1):
            found = PYTHON_WORDS.findall(page)
            assert not found, (book.name, n, found, page)


def test_measured_leaves_out_what_is_not_a_number(mixed: Path) -> None:
    """A flag, None or nan where a count belongs is left out of the solutions' words."""
    from rove.book.puzzles import Puzzle

    pos = load_position(mixed / "ex" / "02-deal.yaml")
    plan = tuple(load_plan(mixed / "ex" / "02-deal.plan.json"))
    for kind in ("mission", "hand", "deal", "campaign"):
        bad = Features(points=None, cards=False, abilities=True, first_moves=None,  # type: ignore[arg-type]
                       branching=float("nan"), greedy=None, nodes=False, hand_size=None,  # type: ignore[arg-type]
                       wrong_plays=None, plays=True, traps=None)  # type: ignore[arg-type]
        legs = ((pos, plan),) if kind == "campaign" else ()
        for score_ in (float("nan"), 3.0):
            p = Puzzle(kind, pos, plan, bad, score_, 3, (kind,), kind, legs=legs)
            words = "; ".join(measured(p))
            assert not PYTHON_WORDS.search(words), (kind, words)
        good = measured(replace(p, features=Features(points=3, cards=1, abilities=1, nodes=1234,
                                                     hand_size=4, branching=9)))
        assert any("1234" in w for w in good) or kind == "campaign", (kind, good)


def test_export_is_self_contained(mixed: Path, tmp_path: Path) -> None:
    """Every position names a copy of its spec inside the export (never a bundled name),
    the copy of the book's spec is its file byte for byte, and every puzzle solves and
    replays through the command line from a copy of the folder anywhere else."""
    import shutil

    ex = tmp_path / "elsewhere" / "ex"
    shutil.copytree(mixed / "ex", ex)
    campaign = next(p.name for p in ex.glob("*-campaign-1.yaml")).replace("-1.yaml", ".yaml")
    assert sorted(p.name for p in (ex / "specs").iterdir()) == sorted([campaign, "classic.yaml"])
    assert (ex / "specs" / "classic.yaml").read_bytes() == (BUNDLED_DIR / "classic.yaml").read_bytes()
    assert load_spec(ex / "specs" / "classic.yaml") == load_spec("classic")
    result = runner.invoke(app, ["validate", *(str(p) for p in sorted((ex / "specs").iterdir()))])
    assert result.exit_code == 0 and result.output.count(": ok") == 2, result.output
    positions = sorted(ex.glob("*.yaml"))
    assert {p.stem.split("-")[1] for p in positions} == {"mission", "hand", "deal", "campaign"}
    for y in positions:
        ref = yaml.safe_load(y.read_text())["spec"]
        assert ref not in bundled_names() and ref.startswith("specs/") and (ex / ref).is_file(), (y.name, ref)
        assert ref == (f"specs/{campaign}" if "campaign" in y.name else "specs/classic.yaml")
        plan = y.with_name(y.stem + ".plan.json")
        result = runner.invoke(app, ["solve", str(y), "--json"])
        assert result.exit_code == 0, (y.name, result.output)
        solved = json.loads(result.stdout)
        assert solved["status"] == "solved", y.name
        if "deal" not in y.name:  # a mission's optimum is the book's solution's cost
            assert solved["points"] == sum(a.act == "move" for a in load_plan(plan)), y.name
        result = runner.invoke(app, ["replay", str(y), str(plan), "--json"])
        assert result.exit_code == 0, (y.name, result.output)
        assert json.loads(result.stdout)["goal_reached"] is True, y.name


def test_spec_copy_is_the_file_or_a_whole_dump(tmp_path: Path) -> None:
    text, verbatim = spec_copy(load_spec("classic"))
    assert verbatim and text.encode("utf-8") == (BUNDLED_DIR / "classic.yaml").read_bytes()
    # a spec with an include does not stand alone: the copy is a dump of the whole spec
    data = yaml.safe_load((BUNDLED_DIR / "classic.yaml").read_text())
    (tmp_path / "mods.yaml").write_text(yaml.safe_dump({"format": data["format"],
                                                        "modules": data["modules"]}))
    top = tmp_path / "my deck.yaml"
    top.write_text(yaml.safe_dump({"format": data["format"], "name": data["name"],
                                   "missions_to_win": data["missions_to_win"],
                                   "include": "mods.yaml", "cards": data["cards"]}))
    spec = load_spec(top)
    text, verbatim = spec_copy(spec)
    assert not verbatim and "include" not in yaml.safe_load(text)
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "copy.yaml").write_text(text)
    assert load_spec(tmp_path / "alone" / "copy.yaml") == spec
    # and through the command line: the export names specs/my-deck.yaml, which solves alone
    ex = tmp_path / "ex"
    result = runner.invoke(app, ["book", "--spec", str(top), "--count", "1", "--mix", "mission:1",
                                 "--seed", "3", "-o", str(tmp_path / "b.pdf"), "--export-dir", str(ex)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (ex / "specs").iterdir()) == ["my-deck.yaml"]
    (tmp_path / "mods.yaml").unlink()  # the export needs nothing outside it
    assert yaml.safe_load((ex / "01-mission.yaml").read_text())["spec"] == "specs/my-deck.yaml"
    assert runner.invoke(app, ["solve", str(ex / "01-mission.yaml")]).exit_code == 0
    assert runner.invoke(app, ["replay", str(ex / "01-mission.yaml"),
                               str(ex / "01-mission.plan.json")]).exit_code == 0


# --------------------------------------------------------------------------- the export folder

QUICK = ["book", "--spec", "classic", "--count", "1", "--mix", "mission:1", "--seed", "3"]


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_earlier_export_is_refused_without_force(tmp_path: Path) -> None:
    ex = tmp_path / "ex"
    first = runner.invoke(app, [*QUICK, "-o", str(tmp_path / "a.pdf"), "--export-dir", str(ex)])
    assert first.exit_code == 0, first.output
    before = _tree(ex)
    again = runner.invoke(app, ["book", "--spec", "classic", "--count", "30", "-o", str(tmp_path / "b.pdf"),
                                "--export-dir", str(ex)])
    assert again.exit_code == 2, again.output
    assert "already holds files of an earlier export (01-mission.plan.json" in again.stderr
    assert "--force" in again.stderr and "Traceback" not in again.output
    assert not (tmp_path / "b.pdf").exists() and _tree(ex) == before
    # an empty folder, or one with only other files, takes an export as before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    result = runner.invoke(app, [*QUICK, "-o", str(other / "book.pdf"), "--export-dir", str(other)])
    assert result.exit_code == 0, result.output
    assert (other / "notes.txt").read_text() == "keep" and (other / "book.pdf").exists()


def test_force_replaces_an_earlier_export_whole(tmp_path: Path) -> None:
    ex = tmp_path / "ex"
    first = runner.invoke(app, ["book", "--spec", "classic", "--count", "2", "--mix", "mission:1,hand:1", "--seed", "3",
                                "-o", str(ex / "book.pdf"), "--export-dir", str(ex)])
    assert first.exit_code == 0, first.output
    assert "02-hand.yaml" in _tree(ex) or "01-hand.yaml" in _tree(ex)
    result = runner.invoke(app, [*QUICK, "-o", str(ex / "book.pdf"), "--export-dir", str(ex), "--force"])
    assert result.exit_code == 0, result.output
    assert sorted(_tree(ex)) == [".rove-export", "01-mission.plan.json", "01-mission.yaml", "book.pdf",
                                 "index.json", "specs/classic.yaml"]
    fresh = tmp_path / "fresh"
    result = runner.invoke(app, [*QUICK, "-o", str(fresh / "book.pdf"), "--export-dir", str(fresh)])
    assert result.exit_code == 0, result.output
    assert _tree(ex) == _tree(fresh)  # the same bytes as a first export
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ex", "fresh"]  # nothing staged is left


def test_force_never_removes_the_input_spec(tmp_path: Path) -> None:
    ex = tmp_path / "ex"
    ex.mkdir()
    spec = ex / "deck.yaml"
    spec.write_bytes((BUNDLED_DIR / "classic.yaml").read_bytes())
    result = runner.invoke(app, [*QUICK, "--spec", str(spec), "-o", str(tmp_path / "b.pdf"),
                                 "--export-dir", str(ex), "--force"])
    assert result.exit_code == 2, result.output
    assert "input file" in result.stderr and spec.exists() and not (tmp_path / "b.pdf").exists()


@pytest.mark.parametrize("existing", [False, True])
def test_pdf_and_export_dir_on_one_path_are_refused(tmp_path: Path, existing: bool) -> None:
    x = tmp_path / "x"
    if existing:
        x.mkdir()
    result = runner.invoke(app, [*QUICK, "-o", str(x), "--export-dir", str(x)])
    assert result.exit_code == 2, result.output
    assert "same path" in result.stderr or "not a folder" in result.stderr or "names a folder" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == (["x"] if existing else [])
    if existing:
        assert not any(x.iterdir())


def test_pdf_over_a_file_of_the_export_is_refused(tmp_path: Path) -> None:
    ex = tmp_path / "ex"
    for name in ("01-mission.yaml", "specs/classic.yaml"):
        result = runner.invoke(app, [*QUICK, "-o", str(ex / name), "--export-dir", str(ex)])
        assert result.exit_code == 2, result.output
        assert "a file of the export" in result.stderr
        assert not ex.exists()


# --------------------------------------------------------------------------- grades


def _random_features(rng: random.Random) -> Features:
    plays = rng.randint(0, 6)
    return Features(points=rng.randint(0, 9), cards=rng.randint(0, 4), abilities=rng.randint(0, 4),
                    first_moves=rng.randint(1, 3), branching=rng.randint(1, 200),
                    greedy=rng.randint(0, 2), bonus_needed=rng.random() < 0.5,
                    wrong_plays=rng.randint(0, plays), plays=plays, nodes=rng.randint(0, 5000),
                    hand_size=rng.randint(3, 5), traps=rng.randint(0, 3),
                    actions=rng.randint(0, 12), solutions=rng.randint(1, 30))


@pytest.mark.parametrize("kind", ["mission", "hand"])
def test_uncounted_solutions_keep_a_puzzle_below_3_stars(kind: str) -> None:
    rng = random.Random(kind)
    for _ in range(200):
        f = _random_features(rng)
        assert stars(kind, replace(f, solutions=0)) <= MAX_STARS_UNCOUNTED
        assert stars(kind, replace(f, solutions=0)) <= stars(kind, f)


def test_rank_correlations() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties: average ranks (Spearman), tau-b's tie correction (Kendall)
    assert spearman([1, 1, 2], [1, 2, 3]) == pytest.approx(0.8660254, abs=1e-6)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 6 ** 0.5)
    assert spearman([1, 1, 1], [1, 2, 3]) == 0.0 and kendall_tau_b([5, 5], [1, 2]) == 0.0


@pytest.mark.parametrize("kind", ["mission", "hand", "deal", "campaign"])
def test_grades_are_monotone(kind: str) -> None:
    rng = random.Random(kind)
    assert set(HARDER_WHEN_LARGER) | set(EASIER_WHEN_LARGER) == {f.name for f in fields(Features)}
    for _ in range(400):
        f = _random_features(rng)
        base_stars, base_score = stars(kind, f), score(kind, f)
        assert 1 <= base_stars <= 5
        for name in HARDER_WHEN_LARGER + EASIER_WHEN_LARGER:
            v = getattr(f, name)
            bigger = (True if name == "bonus_needed" else v + rng.randint(1, 50))
            if name == "wrong_plays":
                bigger = min(v + 1, f.plays)
            g = replace(f, **{name: bigger})
            if name in HARDER_WHEN_LARGER:
                assert stars(kind, g) >= base_stars and score(kind, g) >= base_score - 1e-9, name
            else:
                assert stars(kind, g) <= base_stars and score(kind, g) <= base_score + 1e-9, name


def test_mix_and_quotas() -> None:
    assert parse_mix("mission:60,hand:25,deal:15") == {"mission": 60, "hand": 25, "deal": 15}
    assert split_count(30, parse_mix("mission:60,hand:25,deal:15")) == {"mission": 18, "hand": 8, "deal": 4}
    assert sum(star_quotas(18).values()) == 18 and star_quotas(5) == {s: 1 for s in range(1, 6)}
    assert parse_mix("campaign:10,mission:5") == {"campaign": 10, "mission": 5}
    assert split_count(30, parse_mix("mission:55,hand:20,deal:15,campaign:10")) == {
        "mission": 17, "hand": 6, "deal": 4, "campaign": 3}
    for bad in ["", "mission", "mission:x", "bogus:3", "mission:-1", "mission:0",
                "mission:1,mission:2"]:
        with pytest.raises(ValueError):
            parse_mix(bad)


PUZZLE = """\
format: rove-position/1
spec: classic
goal: mission
layout: |
{layout}
spent: [B, C, G, L, M, S]
mission: {mission}
current: {{card: null, points: 2}}
"""


def _bare(layout: str, mission: str):
    pos = parse_position(PUZZLE.format(layout="\n".join("  " + r for r in layout.split("/")),
                                       mission=mission))
    deck = Deck(pos.spec, pos.rules)
    return pos, deck, state_from_position(deck, pos)


def test_first_moves_same_actions_in_another_order_count_once() -> None:
    # Dust Storm (M # / # #): B S2 and C SE2 in either order; both are optimal first
    # actions, but they are the same set of actions, so the first move is unique
    pos, deck, s = _bare("C B/S M L/. . . G", "c06")
    b, c = Action.parse("B S2"), Action.parse("C SE2")
    assert analyse.reaches_goal(deck, s, [b, c], 2) and analyse.reaches_goal(deck, s, [c, b], 2)
    assert solve(pos).points == 2
    assert analyse.optimal_first_moves(deck, s, 2, 100_000) == 1


def test_first_moves_counts_different_openings() -> None:
    pos, deck, s = _bare(". M . C/S B L/. G", "c01")
    assert solve(pos).points == 2
    assert analyse.optimal_first_moves(deck, s, 2, 100_000) == 2


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("args, message", [
    (["--mix", "bogus:3"], "unknown puzzle kind"),
    (["--paper", "a3"], "use a5, a4, letter, 6x9"),
    (["--title", "x" * 81], "at most 80 characters"),
    (["--count", "0"], ""),
    (["--spec", "no-such-deck"], "no bundled spec"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "b.pdf"
    result = runner.invoke(app, ["book", *args, "-o", str(out), "--export-dir", str(tmp_path / "ex")])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not out.exists() and not (tmp_path / "ex").exists()


# --------------------------------------------------------------------------- optimal solutions


def _all_plans(deck: Deck, s, best: tuple[int, int, int]) -> list[tuple[Action, ...]]:
    """Every plan of exactly the cost ``best`` that reaches the goal, by brute force over
    the engine (no bounds but the cost itself): the reference for optimal_solutions."""
    out: list[tuple[Action, ...]] = []

    def go(st, g, plan):
        for a, s2 in analyse.start_actions(deck, st):
            g2 = (g[0] + (a.act == "move"), g[1] + (a.act == "play"), g[2] + (a.act == "ability"))
            if any(x > y for x, y in zip(g2, best)):
                continue
            if s2.status in ("goal", "won"):
                if g2 == best:
                    out.append((*plan, a))
            elif s2.status == "playing":
                go(s2, g2, (*plan, a))

    go(s, (0, 0, 0), ())
    return out


def _classes(deck: Deck, s, plans: list[tuple[Action, ...]]) -> int:
    """Classes of plans under swaps of independent neighbours, straight from the definition:
    plans are joined when they differ by one swap of neighbours that are both legal in
    either order from the state before them and reach the same state."""
    from rove.engine import apply

    groups = {p: {p} for p in plans}
    for p in plans:
        st = s
        for j in range(len(p) - 1):
            q = (*p[:j], p[j + 1], p[j], *p[j + 2:])
            if q in groups and groups[q] is not groups[p]:
                try:
                    same = apply(deck, apply(deck, st, p[j]), p[j + 1]) == \
                        apply(deck, apply(deck, st, p[j + 1]), p[j])
                except Exception:
                    same = False
                if same:
                    merged = groups[p] | groups[q]
                    for r in merged:
                        groups[r] = merged
            st = apply(deck, st, p[j])
    return len({id(g) for g in groups.values()})


@pytest.mark.parametrize("layout, mission", [
    ("C B/S M L/. . . G", "c06"),
    (". M . C/S B L/. G", "c01"),
])
def test_optimal_solutions_match_brute_force(layout: str, mission: str) -> None:
    pos, deck, s = _bare(layout, mission)
    r = solve(pos)
    best = (r.points, r.cards, r.abilities)
    got = analyse.optimal_solutions(deck, s, best, 100_000)
    plans = _all_plans(deck, s, best)
    assert got.plans == len(plans) >= 1
    assert got.classes == _classes(deck, s, plans)
    assert got.unique is (got.classes == 1)
    if mission == "c06":
        # B S2 and C SE2 in either order are one solution, not two
        b, c = Action.parse("B S2"), Action.parse("C SE2")
        assert (b, c) in plans and (c, b) in plans
        assert _classes(deck, s, [(b, c), (c, b)]) == 1


def test_optimal_solutions_with_abilities_match_brute_force() -> None:
    # abilities open: the count is checked against brute force over the same cost
    text = PUZZLE.replace("spent: [B, C, G, L, M, S]", "spent: [B, G, M, S]").replace(
        "points: 2", "points: 1")
    pos = parse_position(text.format(layout="  C B\n  S M L\n  . . . G", mission="c06"))
    deck = Deck(pos.spec, pos.rules)
    s = state_from_position(deck, pos)
    r = solve(pos)
    assert r.status == "solved"
    best = (r.points, r.cards, r.abilities)
    got = analyse.optimal_solutions(deck, s, best, 200_000)
    plans = _all_plans(deck, s, best)
    assert got.plans == len(plans) and got.classes == _classes(deck, s, plans)


def test_optimal_solutions_limit_is_reported() -> None:
    _, deck, s = _bare(". M . C/S B L/. G", "c01")
    with pytest.raises(Limit):
        analyse.optimal_solutions(deck, s, (2, 0, 0), 1)


def test_lookahead_effort() -> None:
    _, deck, s = _bare("C B/S M L/. . . G", "c06")
    e = analyse.lookahead_effort(deck, s, (2, 0, 0), 100_000)
    assert 0 < e < 100_000
    assert analyse.lookahead_effort(deck, s, (2, 0, 0), 100_000) == e  # deterministic
    assert analyse.lookahead_effort(deck, s, (2, 0, 0), 3) == 3  # censored at the cap
    assert analyse.lookahead_effort(deck, s, (1, 0, 0), 100_000) == 100_000  # no plan in 1


def test_nudge_keeps_a_valid_layout() -> None:
    rng = random.Random(3)
    cells = {"B": (0, 0), "L": (1, 0), "S": (2, 0), "C": (0, 1), "G": (1, 1), "M": (2, 1)}
    for _ in range(50):
        new = _nudge(cells, rng)
        assert set(new) == set(cells) and len(set(new.values())) == len(cells)
        assert connected(new.values()) and min(x for x, _ in new.values()) == 0
        assert min(y for _, y in new.values()) == 0
        cells = new


def test_chain_and_deep_candidates_are_proven() -> None:
    """Mission in N candidates of every recipe: the budget is the proven optimum and the
    plan replays; a counted candidate's note says what was counted."""
    sp = load_spec("classic")
    seen_chain = False
    for i in range(12):
        p = mission_puzzle(sp, f"test:{i}", Settings())
        if p is None:
            continue
        deck = Deck(p.position.spec)
        r = solve(p.position)
        assert r.optimal and r.points == p.features.points == p.position.current.points
        assert analyse.reaches_goal(deck, state_from_position(deck, p.position), list(p.plan),
                                    p.features.points)
        if p.features.abilities >= CHAIN_MIN_ABILITIES and p.features.points >= 1:
            seen_chain = True
            assert any("Abilities and moves" in n for n in p.notes)
        q = count_solutions(p, Settings(solution_nodes=20_000))
        if q.features.solutions:
            assert any(("unique" in n) if q.features.solutions == 1 else
                       (f"{q.features.solutions} essentially different" in n) for n in q.notes)
    assert seen_chain
