"""The book as readers use it: graded hints, variety, clear titles, formats.

Hints are checked against the solvers (the halfway position lies on an optimal plan; a
plan that is not optimal is caught); the variety rule on books of the bundled deck and two
generated decks; a deck that cannot give a kind says so; page sizes, the binding gutter
and the cover's title are read back from the PDFs.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from rove.actions import Action
from rove.book.build import (
    MISSION_PER_GRADE,
    MISSION_REPEATS_MIN,
    MISSION_SHARE,
    book_order,
    generate_book,
    grade_cap,
    posed_missions,
    render_book,
    shortfalls,
)
from rove.book.hints import check_hints, hints_for
from rove.book.puzzles import Puzzle, Settings, deal_puzzle, mission_puzzle
from rove.cli import app
from rove.engine import Deck, IllegalAction, apply, state_cells, state_from_position
from rove.errors import SolverBug
from rove.position import Current
from rove.replay import states_along
from rove.solve.astar import solve_mission
from rove.solve.nodes import Budget
from rove.solve.result import plan_cost
from rove.spec import BUNDLED_DIR, Spec, load_spec

runner = CliRunner()
DECKS = Path(__file__).resolve().parent.parent / "bench" / "decks"


@pytest.fixture(scope="module")
def small_book(classic: Spec) -> list[Puzzle]:
    """Eight puzzles of every kind from the classic deck."""
    return generate_book(classic, 8, {"mission": 4, "hand": 2, "deal": 1, "campaign": 1}, 4)


# --------------------------------------------------------------------------- hints


def test_hints_are_read_off_an_optimal_plan(small_book: list[Puzzle]) -> None:
    """Hint 1 names the module of the first action, hint 2 is that action, hint 3 is the
    position after half the actions, from which A* proves the rest of the plan optimal."""
    kinds = set()
    for p in small_book:
        legs = p.legs if p.kind == "campaign" else ((p.position, p.plan),)
        h = hints_for(p.kind, legs)
        first = legs[0][1][0]
        assert h.first[0] == first
        assert h.module == (first.module if first.act != "play" else None)
        if p.kind == "campaign":
            assert h.first == tuple(plan[0] for _, plan in legs)
            continue
        kinds.add(p.kind)
        pos, plan = legs[0]
        deck = Deck(pos.spec, pos.rules)
        half = max(1, len(plan) // 2)
        s = states_along(deck, state_from_position(deck, pos), plan[:half])[-1]
        assert (h.cells, h.spent) == (state_cells(deck, s),
                                     frozenset(c for j, c in enumerate(deck.codes) if s.spent >> j & 1))
        if p.kind != "deal" and half < len(plan):
            rest, _ = solve_mission(deck, s, Budget(float("inf"), 500_000))
            assert rest is not None and plan_cost(rest) == plan_cost(plan[half:]), p.title
    assert {"mission", "hand", "deal"} <= kinds


def _detour(deck: Deck, pos, plan: tuple[Action, ...]) -> tuple[Action, ...] | None:
    """The plan with a move there and back inserted where the longer plan's first half
    ends (legal with two more points), or None when no module can step out and back."""
    half = max(1, (len(plan) + 2) // 2)  # the longer plan's halfway point
    s = states_along(deck, state_from_position(deck, pos), plan[:half])[-1]
    for code in deck.codes:
        for there, back in (("E", "W"), ("W", "E"), ("N", "S"), ("S", "N"), ("NE", "SW"), ("SW", "NE")):
            try:
                apply(deck, apply(deck, s, Action.move(code, there, 1)), Action.move(code, back, 1))
            except IllegalAction:
                continue
            return (*plan[:half], Action.move(code, there, 1), Action.move(code, back, 1), *plan[half:])
    return None


def test_a_hint_off_the_optimal_plan_is_caught(classic: Spec) -> None:
    """check_hints is no rubber stamp: a plan with a detour after its halfway point (legal
    with a budget two points larger) is reported as a SolverBug."""
    for i in range(30):
        p = mission_puzzle(classic, f"detour:{i}", Settings())
        if p is None or len(p.plan) < 3:
            continue
        pos = replace(p.position, current=Current(None, p.features.points + 2))
        deck = Deck(pos.spec, pos.rules)
        longer = _detour(deck, pos, p.plan)
        if longer is None:
            continue
        check_hints("mission", ((pos, p.plan),))  # the optimal plan passes
        with pytest.raises(SolverBug, match="hint 3"):
            check_hints("mission", ((pos, longer),))
        return
    raise AssertionError("no candidate with a detour in 30")


# --------------------------------------------------------------------------- variety


def _stub(mission: str, stars: int, kind: str = "mission", score: float = 0.0) -> Puzzle:
    from rove.book.grade import Features
    from rove.position import Position

    pos = Position(spec=None, layout="B", mission=mission)  # type: ignore[arg-type]
    return Puzzle(kind, pos, (), Features(), score, stars, (mission, score), f"{mission}:{score}")


def _mission(p: Puzzle) -> str:
    (m,) = posed_missions(p)
    return m


def test_book_order_keeps_equal_missions_apart() -> None:
    """Within a grade no two neighbours share a mission when an order exists (the greedy
    takes the mission left most often first), and the grades still ramp."""
    ps = [_stub(m, 3, score=i) for i, m in enumerate("AAABBC")] + [_stub("A", 4), _stub("D", 4)]
    out = book_order(ps)
    ms = [_mission(p) for p in out]
    assert [p.stars for p in out] == sorted(p.stars for p in out)
    assert all(a != b for a, b in zip(ms, ms[1:])), ms
    # across a grade boundary: the earlier grade is rearranged
    across = book_order([_stub("B", 1, score=1), _stub("A", 1, score=2), _stub("A", 2)])
    assert [_mission(p) for p in across] == ["A", "B", "A"]
    # the kinds alternate where they can
    mixed = book_order([_stub("A", 2, "mission", 1), _stub("B", 2, "mission", 2),
                        _stub("C", 2, "hand", 3), _stub("D", 2, "hand", 4)])
    assert [p.kind for p in mixed] == ["mission", "hand", "mission", "hand"]


#: smaller proofs for the generated decks, whose missions are dearer (the rule is the same)
QUICK = Settings(mission_nodes=10_000, check_nodes=20_000, solution_nodes=40_000)


@pytest.mark.parametrize("deck, count, mix", [("standard", 12, {"mission": 3, "hand": 1}),
                                              ("g11", 7, {"mission": 1}), ("g35", 7, {"mission": 1})])
def test_no_mission_too_often_nor_twice_in_a_row(deck: str, count: int, mix: dict[str, int]) -> None:
    """On the bundled deck and two generated ones (bench/decks)."""
    spec = load_spec(deck if deck == "standard" else DECKS / f"{deck}.yaml")
    ps = generate_book(spec, count, mix, 2, Settings() if deck == "standard" else QUICK)
    assert len(ps) == count
    assert_variety(ps, count)


def named_missions(p: Puzzle) -> set[str]:
    """Every mission card a puzzle's positions name (a campaign: each leg's), read off the
    positions themselves, as a reader of the export counts them."""
    return {pos.mission for pos in [p.position, *(leg for leg, _ in p.legs)] if pos.mission}


def assert_variety(ps: list[Puzzle], count: int, neighbours: bool = True) -> None:
    """No mission named by more than max(2, 15% of the puzzles) of them, whatever their
    kind, nor by more than ``grade_cap`` puzzles of one grade, nor (unless ``neighbours``
    is False) by two neighbours."""
    cap = max(MISSION_REPEATS_MIN, int(MISSION_SHARE * count))
    assert cap == max(2, int(0.15 * count))
    per = Counter(m for p in ps for m in named_missions(p))
    over = {m: n for m, n in per.items() if n > cap}
    assert not over, f"over the cap of {cap}: {over}; " + ", ".join(
        f"{p.kind}:{'/'.join(sorted(named_missions(p)))}" for p in ps)
    graded = Counter((m, p.stars) for p in ps for m in named_missions(p))
    per_grade = max(MISSION_PER_GRADE, round(cap * 2 / 5))  # grade_cap: 2 up to 40 puzzles
    assert per_grade == grade_cap(count) and (count > 40 or per_grade == 2)
    assert max(graded.values(), default=0) <= per_grade, graded
    clashes = [(a.kind, b.kind) for a, b in zip(ps, ps[1:]) if named_missions(a) & named_missions(b)]
    assert not (neighbours and clashes), clashes


def test_the_small_book_keeps_the_variety_rule(small_book: list[Puzzle]) -> None:
    assert {p.kind for p in small_book} == {"mission", "hand", "deal", "campaign"}
    assert_variety(small_book, len(small_book), neighbours=False)  # see the slow test below


def _fake_kinds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instant stand-ins for the four puzzle kinds, their missions drawn as the real
    kinds draw theirs: a campaign's on the deck's first 3 or 4 cards whatever its seed, a
    deal's first mission and a Mission in N or hand puzzle's at random, the gentle first
    cards far more often (a random mission is usually a cheap one)."""
    import random

    from rove.book import build
    from rove.book.grade import Features
    from rove.position import Position

    cards = [f"c{i:02d}" for i in range(1, 13)]
    weights = [4, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1]

    def pos(mission: str) -> Position:
        return Position(spec=None, layout="B", mission=mission)  # type: ignore[arg-type]

    def made(kind: str, label: str, legs: tuple = ()) -> Puzzle:
        rng = random.Random(f"{kind}:{label}")
        position = legs[0][0] if legs else pos(rng.choices(cards, weights)[0])
        return Puzzle(kind, position, (), Features(solutions=1), rng.random(), rng.randint(1, 5),
                      (kind, label), label, difficulty="normal" if kind == "deal" else None, legs=legs)

    def campaign(spec: Spec, label: str, settings: Settings) -> Puzzle:
        k = random.Random(label).choice((3, 4))
        return made("campaign", label, tuple((pos(c), ()) for c in cards[:k]))

    monkeypatch.setattr(build, "mission_puzzle", lambda spec, label, settings: made("mission", label))
    monkeypatch.setattr(build, "hand_puzzle", lambda spec, label, settings: made("hand", label))
    monkeypatch.setattr(build, "deal_puzzle", lambda spec, label, *a, **k: made("deal", label))
    monkeypatch.setattr(build, "campaign_puzzle", campaign)


@pytest.mark.parametrize("count", [8, 16, 30, 60])
def test_no_kind_bypasses_the_variety_rule(count: int, classic: Spec, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over many seeds of the default mix, with instant stand-ins for the kinds: the rule
    holds for every kind (deals and campaigns were not counted, and every campaign poses
    the deck's first cards), and the same seed gives the same book.
    The real kinds on real decks: the small book above, and the slow test below."""
    from rove.book.build import DEFAULT_MIX, parse_mix

    _fake_kinds(monkeypatch)
    mix = parse_mix(DEFAULT_MIX)
    for seed in range(8):
        ps = generate_book(classic, count, mix, seed)
        assert {p.kind for p in ps} >= {"mission", "deal", "campaign"}
        assert len(ps) == count or shortfalls(count, mix, ps), "a short book says so"
        assert_variety(ps, count, neighbours=False)  # the stand-ins' grades are random
        assert [p.source for p in ps] == [p.source for p in generate_book(classic, count, mix, seed)]


@pytest.mark.slow
@pytest.mark.parametrize("deck, count, seed", [("standard", 16, 4), ("classic", 16, 1), ("classic", 16, 4),
                                               ("classic", 24, 3)])
def test_real_books_of_every_kind_keep_the_variety_rule(deck: str, count: int, seed: int) -> None:
    """The default mix on the real kinds; (standard, 16, 4) is issue #41's book, which
    posed c01 in 5 of its 16 puzzles (two campaigns, a deal, two Mission in N).  Not the
    neighbours: a grade may pose a mission twice (MISSION_PER_GRADE), and a grade of two
    puzzles that does cannot keep them apart (classic, 16, 4 has one)."""
    from rove.book.build import DEFAULT_MIX, parse_mix

    ps = generate_book(load_spec(deck), count, parse_mix(DEFAULT_MIX), seed)
    assert len(ps) == count
    assert_variety(ps, count, neighbours=False)


def test_a_kind_the_deck_cannot_supply_is_reported(tmp_path: Path) -> None:
    """A deck of two cards has no hand to give (a hand needs two cards besides the
    mission): the book says what was asked, what was made and why, and fills the place."""
    spec = load_spec("classic")
    text = (BUNDLED_DIR / "classic.yaml").read_text(encoding="utf-8")
    cut = text.index("  - id: c03")
    (tmp_path / "two.yaml").write_text(text[:cut].replace("missions_to_win: 7", "missions_to_win: 2"),
                                       encoding="utf-8")
    assert len(spec.cards) == 12
    result = runner.invoke(app, ["book", "--spec", str(tmp_path / "two.yaml"), "--count", "3",
                                 "--mix", "mission:2,hand:1", "-o", str(tmp_path / "b.pdf")])
    assert result.exit_code == 0, result.output
    assert "asked for 1 hand puzzle, made 0" in result.output
    # which limit binds: every candidate of the budget tried, none a puzzle
    assert "the candidate budget of 20 (10 a puzzle asked) was spent (20 kept no puzzle" in result.output
    assert "the binding limit is the generator's reach" in result.output
    assert "Mission in N puzzles took the free places" in result.output


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize("paper, size", [("a4", (595, 842)), ("6x9", (432, 648)), ("letter", (612, 792))])
def test_page_sizes_and_the_binding_gutter(small_book: list[Puzzle], classic: Spec, paper: str,
                                           size: tuple[int, int]) -> None:
    """Every page has the paper's size, and the text block sits further from the spine:
    the running head starts further right on odd (right-hand) pages than on even ones."""
    data = render_book(classic, small_book, 4, paper, "Robot Rescue", "Twelve little puzzles")
    reader = PdfReader(io.BytesIO(data))
    for page in reader.pages:
        w, h = (float(v) for v in page.mediabox.upper_right)
        assert (round(w), round(h)) == size
    lefts: dict[int, list[float]] = {0: [], 1: []}
    for n, page in enumerate(reader.pages, 1):
        xs: list[float] = []
        page.extract_text(visitor_text=lambda t, cm, tm, fd, fs, xs=xs: xs.append(cm[4] + tm[4])
                          if t.strip() else None)
        if xs:
            lefts[n % 2].append(min(xs))
    odd, even = min(lefts[1][1:]), min(lefts[0])  # (the cover's band starts at the edge)
    assert odd - even > 0.02 * size[0]
    cover = reader.pages[0].extract_text()
    assert "Robot Rescue" in cover and "Twelve little puzzles" in cover
    assert reader.metadata is not None and reader.metadata.title == "Robot Rescue: Twelve little puzzles"


def test_a_long_title_is_shrunk_to_the_cover(small_book: list[Puzzle], classic: Spec) -> None:
    """A long title stays on the page: shrunk, then cut with an ellipsis."""
    title = "The Extraordinarily Long Expedition of the Damaged Robot"
    data = render_book(classic, small_book, 4, "a5", title, "x")
    page = PdfReader(io.BytesIO(data)).pages[0]
    w = float(page.mediabox.upper_right[0])
    spans: list[tuple[float, str]] = []
    page.extract_text(visitor_text=lambda t, cm, tm, fd, fs: spans.append((fs, t)) if t.strip() else None)
    assert any(title[:20] in t for _, t in spans)
    from rove.pdf.fonts import FONT_BOLD, text_width

    for fs, t in spans:
        if title[:20] in t:
            assert text_width(t, FONT_BOLD, fs) < w


def test_two_puzzles_a_page(small_book: list[Puzzle], classic: Spec) -> None:
    """With two a page, neighbouring small Mission in N share a page; the contents, the
    hints and the solutions point at that page, and the book is shorter by one page a pair."""
    import re

    one = PdfReader(io.BytesIO(render_book(classic, small_book, 4))).pages
    two = PdfReader(io.BytesIO(render_book(classic, small_book, 4, per_page=2))).pages
    texts = [p.extract_text() for p in two]
    pairs = [(i + 1, t) for i, t in enumerate(texts) if t.startswith("PUZZLES ")]
    assert pairs and len(one) - len(two) == len(pairs)
    for page_no, text in pairs:
        a, b = map(int, re.match(r"PUZZLES (\d+) AND (\d+)", text).groups())  # type: ignore[union-attr]
        assert b == a + 1 and f"{a}. Mission in" in text and f"{b}. Mission in" in text
        assert text.count("solved") == 2
        rest = "\n".join(texts[page_no:])
        assert f"Puzzle {a}, p. {page_no}" in rest and f"Puzzle {b}, p. {page_no}" in rest
        assert re.search(rf"\b{a}\.\s+[^\n]+\s+p\. {page_no}\b", texts[1])  # the contents


def test_a_deal_the_solver_leaves_undecided_is_proven_by_the_experts_win(classic: Spec) -> None:
    """A verified deal needs a winning line, not the solver's: when the game solver stops
    at its budget, the expert player's winning game (replayed through the engine) proves the
    deal, and the book says which of the two did."""
    by_solver = deal_puzzle(classic, "witness", Settings(), "normal")
    assert by_solver is not None and by_solver.notes[0].startswith("Proven winnable by the game solver")
    by_expert = deal_puzzle(classic, "witness", Settings(deal_nodes=1), "normal")
    assert by_expert is not None and by_expert.notes[0].startswith("Proven winnable by the expert player")
    assert by_expert.position == by_solver.position  # the same deal, another proof
    last = states_along(Deck(classic), state_from_position(Deck(classic), by_expert.position),
                        list(by_expert.plan))[-1]
    assert last.status == "won"
    # the expert's game is node-bounded too: with no nodes for it, nothing is proven
    assert deal_puzzle(classic, "witness", Settings(deal_nodes=1, deal_expert_nodes=1), "normal") is None


def test_a_long_puzzle_title_keeps_clear_of_its_stars(small_book: list[Puzzle], classic: Spec,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A title as long as a deck with spent sides that move otherwise gives ("Mission in
    12 points (14 actions)") is shrunk so that it ends left of the star rating beside it:
    read back, the title's right end and the stars' left edge (their drawn paths)."""
    import pypdfium2 as pdfium

    from rove.book import build
    from rove.pdf.fonts import FONT_BOLD, text_width

    monkeypatch.setattr(build, "puzzle_title", lambda p: "Mission in 12 points (14 actions)")
    data = render_book(classic, small_book[:1], 4, "a5")
    reader = PdfReader(io.BytesIO(data))
    n = next(i for i, page in enumerate(reader.pages) if "1. Mission in 12 points" in page.extract_text())
    spans: list[tuple[float, float, float, str]] = []
    reader.pages[n].extract_text(visitor_text=lambda t, cm, tm, fd, fs: spans.append(
        (cm[4] + tm[4], cm[5] + tm[5], fs * cm[0], t)) if t.startswith("1. Mission") else None)
    x, y, size, text = spans[0]
    assert size < 17  # shrunk from its usual size
    right = x + text_width(text.strip(), FONT_BOLD, size)
    page = pdfium.PdfDocument(data)[n]
    stars = [obj.get_bounds() for obj in page.get_objects() if obj.type == pdfium.raw.FPDF_PAGEOBJ_PATH]
    beside = [left for left, bottom, _, top in stars if bottom <= y + size and top >= y]  # on its line
    assert len(beside) >= 5 and right < min(beside)
