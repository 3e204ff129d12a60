"""The seer (``rove.solve.seer``): a win-finder, never a prover.

Its discrepancy search takes the ranking's first choice everywhere before it departs from
it, once, then twice; its wins on a real deal replay through the engine; it is
deterministic and bounded by its nodes; and where it runs (after the exact search stopped
at its node limit, in ``rove solve`` and ``rove check``) its win decides the deal, while
finding none leaves the deal unknown and never touches a proven loss."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from rich.console import Console
from typer.testing import CliRunner

from rove.check import CheckOptions, print_report, run_check
from rove.cli import app
from rove.engine import LOST, PLAYING, WON, Deck, apply, state_from_position
from rove.generators.deals import deal
from rove.pdf.report import render_report_pdf
from rove.replay import verify_plan
from rove.solve.core import available as core_available
from rove.solve.ladder import Rung, climb
from rove.solve.search import solve
from rove.solve.seer import OutOfNodes, discrepancy_search, seek
from rove.spec import load_spec

runner = CliRunner()

# a deal of the standard deck the exact search leaves at a small node limit, and the
# seer wins on its ranking's first line (about 200,000 of its nodes, a second or two)
SEEN_SEED = 217866477917780


class Node(NamedTuple):
    """A stand-in state: the discrepancy search reads only ``status`` (and hashes it)."""

    name: str
    status: str = PLAYING


def tree(edges: dict[str, list[Node]], visits: list[str] | None = None) -> Any:
    """``children`` over a fixed tree: a node's completions, best first, each named by
    the node it reaches; ``visits`` records the states expanded, in order."""
    def children(s: Node) -> list[tuple[list[str], Node]]:
        if visits is not None:
            visits.append(s.name)
        return [([e.name], e) for e in edges.get(s.name, [])]
    return children


def test_the_ranking_first_then_one_departure_then_two() -> None:
    """Pass 0 follows the first choices to a dead end, pass 1 tries every line with one
    departure from the ranking, pass 2 those with two.  A subtree searched to its end
    without a win is not entered again, so a's line is expanded once."""
    one = {"root": [Node("a"), Node("b")], "a": [Node("a1", LOST)], "b": [Node("won", WON)]}
    visits: list[str] = []
    assert discrepancy_search(Node("root"), tree(one, visits)) == (["b", "won"], 1)  # type: ignore[arg-type]
    assert visits == ["root", "a", "root", "b"]  # the ranking's own line first
    two = {**one, "b": [Node("b1"), Node("x"), Node("b2")], "b1": [Node("b1x", LOST)],
           "x": [Node("x1", LOST)], "b2": [Node("won", WON)]}
    visits = []
    assert discrepancy_search(Node("root"), tree(two, visits)) == (["b", "b2", "won"], 2)  # type: ignore[arg-type]
    assert visits.count("a") == 1 and visits.count("b1") == 1 and visits.index("x") > visits.index("b1")


def test_it_ends_when_every_line_was_tried_and_when_told_to_stop() -> None:
    """A tree with no win ends once a pass cut nothing (no answer is a loss claim: it is
    only the end of the tree); ``OutOfNodes`` from the children stops it at once."""
    edges = {"root": [Node("a"), Node("b")], "a": [Node("a1", LOST)], "b": [Node("b1", LOST)]}
    assert discrepancy_search(Node("root"), tree(edges)) == (None, 1)  # type: ignore[arg-type]

    def spent(s: Node) -> list[tuple[list[str], Node]]:
        raise OutOfNodes
    with pytest.raises(OutOfNodes):
        discrepancy_search(Node("root"), spent)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def seen_deal() -> Any:
    spec = load_spec("standard")
    pos = deal(spec, SEEN_SEED, "normal")
    return pos, Deck(spec, pos.rules)


def starts_in_play(spec: Any, seeds: int) -> Iterator[tuple[Deck, Any]]:
    """The deck and start of each of the first ``seeds`` impossible deals still in play."""
    for seed in range(seeds):
        pos = deal(spec, seed, "impossible")
        d = Deck(spec, pos.rules)
        start = state_from_position(d, pos)
        if start.status == PLAYING:
            yield d, start


def budgets_seen(monkeypatch: pytest.MonkeyPatch, field: str) -> list[Any]:
    """The seer's budget's ``field`` each time it ranks a decision (filled as it runs)."""
    import rove.solve.seer as seer

    seen: list[Any] = []
    real = seer.candidates

    def counted(deck: Deck, s: Any, budget: Any) -> Any:
        seen.append(getattr(budget, field))
        return real(deck, s, budget)

    monkeypatch.setattr(seer, "candidates", counted)
    return seen


def test_the_seers_win_replays_and_is_the_same_every_time(seen_deal: Any) -> None:
    pos, deck = seen_deal
    start = state_from_position(deck, pos)
    first = seek(deck, start, 2_000_000)
    assert first.plan is not None and first.nodes <= 2_000_000
    assert first.deepest == deck.missions_to_win - 1  # its last decision: the last mission
    verify_plan(pos, list(first.plan), deck)  # raises unless legal and won
    assert seek(deck, start, 2_000_000) == first
    short = seek(deck, start, 5_000)
    assert short.plan is None and short.nodes <= 5_000 and short.discrepancies == -1


def test_the_narrow_tree_first_and_the_wide_one_only_once_it_is_tried_whole(
        seen_deal: Any, specs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The probes get ``PROBE_WIDTHS[0]`` nodes until the narrow tree wins or is tried whole;
    only then the wide tree's.  A deal the narrow tree wins never sees a wide probe; on a
    lost deal both trees are tried whole (the result says a pass cut nothing), the wide
    one after every narrow decision; and a seer given one width is the wide seer alone."""
    import rove.solve.seer as seer

    widths = budgets_seen(monkeypatch, "probe_nodes")
    narrow, wide = seer.PROBE_WIDTHS
    assert narrow < wide
    pos, deck = seen_deal
    won = seek(deck, state_from_position(deck, pos), 2_000_000)
    assert won.plan is not None and set(widths) == {narrow} and won.decisions == len(widths)
    for lost_deck, start in starts_in_play(load_spec(specs["row"]), 12):
        widths.clear()
        r = seek(lost_deck, start, 2_000_000)
        assert r.plan is None and r.discrepancies >= 0  # every line of both trees tried
        assert r.exhausted  # within its caps: a larger budget would find nothing new
        assert widths and widths == sorted(widths) and set(widths) == {narrow, wide}
        assert r.decisions == len(widths)
        widths.clear()
        alone = seek(lost_deck, start, 2_000_000, probe_widths=(wide,))
        assert alone.plan is None and set(widths) == {wide}
        v = climb(lost_deck, start, [Rung("seer", 2_000_000), Rung("seer", 4_000_000)])
        assert v.status == "unknown" and len(v.steps) == 1 and v.steps[0].exhausted  # not walked twice
        break
    else:
        pytest.fail("no row deal in play at its start among 12 seeds")


def test_solve_runs_the_seer_only_past_the_exact_searchs_limit(seen_deal: Any) -> None:
    """Past its node limit the exact search is unknown; with the seer's nodes the deal is
    solved (not proven cheapest), the seer named as the witness, both searches' nodes
    counted.  A deal the exact search decides never reaches the seer."""
    pos, _ = seen_deal
    alone = solve(pos, max_nodes=2_000)
    assert alone.status == "unknown" and "seer" not in alone.stats
    seen = solve(pos, max_nodes=2_000, seer_nodes=2_000_000)
    assert (seen.status, seen.optimal, seen.stats["witness"]) == ("solved", False, "seer")
    assert seen.nodes == alone.nodes + seen.stats["seer"]["nodes"]
    assert seen.plan is not None and seen.points is not None
    missed = solve(pos, max_nodes=2_000, seer_nodes=5_000)
    assert missed.status == "unknown" and missed.stats["seer"]["nodes"] <= 5_000
    classic = deal(load_spec("classic"), 1, "normal")
    direct = solve(classic, max_nodes=200_000, seer_nodes=2_000_000)
    assert direct.status == "solved" and direct.stats["witness"] == "search" and "seer" not in direct.stats


def test_a_proven_loss_stays_lost_with_the_seer(specs: dict[str, Path]) -> None:
    """The row deck's deals that are not won at reveal are lost: the exact search proves
    it, and the seer, which runs only on a search stopped at its limit, changes nothing."""
    spec = load_spec(specs["row"])
    for seed in range(12):
        pos = deal(spec, seed, "impossible")
        r = solve(pos, max_nodes=20_000, seer_nodes=2_000_000)
        if r.status == "unsolvable":
            assert "seer" not in r.stats
            break
    else:
        pytest.fail("no lost row deal among 12 seeds")


def test_check_counts_the_seers_wins(tmp_path: Path) -> None:
    """On a deck won by a few short steps, a one-node search decides nothing: the seer
    (the ladder's next rung) wins every deal the thoughtful player plays alone, each is
    solved with the seer as witness, and the report counts them; with the expert beside
    it, the expert's wins come first and no rung runs; with no seer nodes and no expert
    the deals stay unknown."""
    from conftest import tiny_spec_text

    path = tmp_path / "step.yaml"
    path.write_text(tiny_spec_text("Step", ["B\nC"] * 8, 1, arrows="{kind: short, dirs: [N, E, S, W]}",
                                   base=1, bonus=2), encoding="utf-8")
    spec = load_spec(str(path))
    opts = dict(deals=6, difficulties=("normal", "impossible"), seed=3, node_limit=1,
                mission_node_limit=5_000, time_limit=60.0, starts=0, seer_node_limit=6_000_000)
    rep = run_check(spec, CheckOptions(**opts, players=("thoughtful",)))  # type: ignore[arg-type]
    data = rep.to_json()
    assert data["options"]["seer_node_limit"] == 6_000_000
    assert data["options"]["ladder"] == [[{"solver": "seer", "nodes": 5_000_000}, {"solver": "search", "nodes": 1}],
                                         [{"solver": "seer", "nodes": 6_000_000}]]
    for r in data["deals"]:
        assert (r["status"], r["witness"], r["limit"]) == ("solved", "seer", None)
        assert [(s["solver"], s["outcome"]) for s in r["steps"]] == [("seer", "won")]
        assert r["nodes"] == 0 and r["seer_nodes"] == r["steps"][0]["nodes"] > 0
    for w in data["winnability"].values():
        assert (w["solved"], w["unknown"], w["decided_by_seer"], w["decided_by_expert"]) == (6, 0, 6, 0)
    console = Console(width=100, record=True)
    print_report(rep, console)
    shown = " ".join(console.export_text().split())
    assert "node limit 1 (seer 6000000); rungs seer 5M, search 1 | seer 6M" in shown
    assert "Decided in order of cost: 12 by the seer" in shown and "no loss proven" in shown
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(render_report_pdf(rep))
    text = " ".join(" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc)))
    assert "12 by the seer" in text and "no loss proven" in text
    both = run_check(spec, CheckOptions(**opts)).to_json()  # type: ignore[arg-type]
    assert {(r["witness"], r["seer_nodes"]) for r in both["deals"]} == {("expert", None)}
    no_seer = {**opts, "seer_node_limit": 0}
    without = run_check(spec, CheckOptions(**no_seer, players=("thoughtful",))).to_json()  # type: ignore[arg-type]
    assert {(r["status"], r["limit"]) for r in without["deals"]} == {("unknown", "nodes")}


def test_cli_solve_says_the_seer_found_it(seen_deal: Any, tmp_path: Path) -> None:
    pos_path = tmp_path / "deal.yaml"
    assert runner.invoke(app, ["deal", "--seed", str(SEEN_SEED), "-o", str(pos_path)]).exit_code == 0
    r = runner.invoke(app, ["solve", str(pos_path), "--node-limit", "2000"])
    assert r.exit_code == 0 and "found by the seer" in r.stdout
    r = runner.invoke(app, ["solve", str(pos_path), "--node-limit", "2000", "--seer-node-limit", "0", "--json"])
    assert r.exit_code == 3 and json.loads(r.stdout)["status"] == "unknown"


def test_a_tree_tried_whole_at_a_cap_that_stopped_a_search_is_walked_again_at_a_wider_cap(
        seen_deal: Any, specs: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every line of the trees was tried while a decision's own search stopped at its
    cap, the seer walks them again with the cap ``WIDEN`` times larger (a decision it could
    not rank may be the one that wins), up to ``MAX_SEARCH_NODES``; it calls itself
    exhausted (a larger budget would find nothing new) only when no search was cut short
    by its budget.  ``widen=1`` is the one cap alone."""
    import rove.solve.seer as seer

    assert seer.search_caps(100, 4) == [100 * 4 ** i for i in range(8)
                                         if 100 * 4 ** i <= seer.MAX_SEARCH_NODES]
    assert seer.search_caps(100, 1) == [100] and seer.search_caps(seer.MAX_SEARCH_NODES, 4) == [
        seer.MAX_SEARCH_NODES]
    caps = budgets_seen(monkeypatch, "max_search")
    # without the tables, which would answer the capped searches where no ability is left
    # (the next test): the widening is for the searches they cannot help
    monkeypatch.setenv("ROVE_TABLES", "0")
    for d, start in starts_in_play(load_spec(specs["ell"]), 20):
        caps.clear()
        one = seek(d, start, 2_000_000, search_nodes=1, widen=1)
        if one.plan is not None or set(caps) != {1}:
            continue
        # its cap, not its budget, stopped the searches: a larger budget walks the same tree
        assert one.exhausted and one.discrepancies >= 0
        caps.clear()
        wide = seek(d, start, 2_000_000, search_nodes=1, widen=4)
        assert caps == sorted(caps) and len(set(caps)) > 1 and caps[0] == 1
        assert wide.nodes > one.nodes and wide.decisions > one.decisions
        if wide.plan is None:
            assert wide.exhausted == (wide.discrepancies >= 0)
        break
    else:
        pytest.fail("no ell deal among 20 seeds leaves its first search at a one-node cap")
    # a seer whose budget, not its cap, stopped a search is not exhausted either
    pos, deck = seen_deal
    assert not seek(deck, state_from_position(deck, pos), 5_000).exhausted


# A state from the seer's walk of bench/decks/t35.yaml's deal 83479554477409 at normal
# (its third mission, the expert's view): every ability spent but the Sensor's, a full
# hand.  A* without a table needs 142,442 nodes for its 8 points (its bound says 3).
ONLY_THE_SENSOR_LEFT = """\
format: rove-position/1
spec: {spec}
goal: mission
layout: |
  C
  L
  . M
  . . S
  . . . B
  . . . G
spent: [B, C, G, L, M]
missions_done: 2
completed: [c05, c07]
mission: c06
hand: [c03, c02, c08, c12, c01]
draw: [c04]
discard: []
current: null
"""


@pytest.mark.skipif(not core_available(), reason="the distance tables are the compiled core's")
def test_a_capped_search_with_no_ability_left_to_move_a_module_is_answered_by_its_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``PlayerBudget``'s ``table_after``: a main search that runs past it where only a
    Sensor's ability is left is searched again with the distance table of its mission and
    spent set, and finds a plan as cheap as A* without a cap; the next search of that pair
    uses the table at once.  The seer sets it to its cap, the expert (no cap) to a node
    count.  Without it, in a probe and under ``ROVE_TABLES=0`` the plain search stops at
    the cap."""
    from rove.position import parse_position
    from rove.solve.astar import solve_mission_state
    from rove.solve.core import tables_off
    from rove.solve.expert import PlayerBudget
    from rove.solve.nodes import Budget
    from rove.solve.result import plan_cost

    spec = Path(__file__).resolve().parents[1] / "bench" / "decks" / "t35.yaml"
    p = parse_position(ONLY_THE_SENSOR_LEFT.format(spec=spec), "<t35 deal>", None)
    deck = Deck(p.spec, p.rules)
    s = state_from_position(deck, p)
    with tables_off():
        plain = solve_mission_state(deck, s, Budget(float("inf"), 1_000_000))
    assert plain.plan is not None and plain.nodes > 100_000
    cap = 20_000
    assert PlayerBudget(10**7, 500, max_search=cap).search(deck, s) == (None, True)  # no table_after
    seer_budget = PlayerBudget(10**7, 500, max_search=cap, table_after=cap)
    assert seer_budget.search(deck, s, probe=True) == (None, True)  # a probe: 500 nodes, no table
    plan, capped = seer_budget.search(deck, s)
    assert not capped and plan is not None and plan_cost(plan) == plan_cost(plain.plan)
    assert verify_plan(p, plan).goal_reached
    assert seer_budget.tabled == {(s.mission, s.spent)}
    assert cap < seer_budget.used - 500 < cap + 2_000  # the capped search, then a few hundred
    nxt = apply(deck, s, plan[0])  # the first play: the same mission and spent set
    used = seer_budget.used
    again, _ = seer_budget.search(deck, nxt)
    assert again is not None and seer_budget.used - used < 2_000  # the table at once
    # the expert's budget has no cap: its long searches switch at ``table_after``
    expert_budget = PlayerBudget(10**7, 500, table_after=cap)
    plan, capped = expert_budget.search(deck, s)
    assert not capped and plan is not None and plan_cost(plan) == plan_cost(plain.plan)
    assert cap < expert_budget.used < cap + 2_000
    plain_budget = PlayerBudget(10**7, 500)
    assert plain_budget.search(deck, s)[0] is not None and plain_budget.used == plain.nodes
    monkeypatch.setenv("ROVE_TABLES", "0")
    off = PlayerBudget(10**7, 500, max_search=cap, table_after=cap)
    assert off.search(deck, s) == (None, True) and off.tabled == set()


def test_only_a_seer_with_a_large_budget_switches_tables_on(seen_deal: Any, monkeypatch: pytest.MonkeyPatch,
                                                            ) -> None:
    """The tables for capped searches come with budgets from ``TABLES_MIN_NODES`` on; the
    coach's first answers (300,000 nodes) must come within seconds, which a build is not."""
    import rove.solve.seer as seer

    seen = budgets_seen(monkeypatch, "table_after")
    pos, deck = seen_deal
    start = state_from_position(deck, pos)
    seek(deck, start, seer.TABLES_MIN_NODES - 1)
    assert seen and set(seen) == {None}
    seen.clear()
    seek(deck, start, seer.TABLES_MIN_NODES)
    assert seen and set(seen) == {seer.DEFAULT_SEARCH_NODES}
