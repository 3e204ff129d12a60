"""The compiled core against the pure-Python path, side by side in one run.

    python bench/core.py [--positions 200] [--puzzles 45] [--budget 8]
                         [--python-nodes 20000] [--open 10] [--spec classic]
                         [--deal-spec standard] [--deal-missions 30] [--deal-nodes 150000]

Four figures:

* successor generation: states/s through ``rove.engine.successors`` (Python) and
  through the core's own generator (``rove._core.generate_all``, inside Rust, no
  conversion), on the same positions (deals advanced by random legal play), and the
  ratio;
* bare-budget mission puzzles (``bare_budget_puzzle`` of tests/helpers.py: random legal play
  from a deal, then modules spent until two to six are, a mission not yet matched,
  ``--budget`` points, no cards): seconds per solve in-process through
  ``rove.solve.search.solve`` (plan replayed through the engine included) with the
  core and with ``ROVE_CORE=0``; the Python path gets ``--python-nodes`` nodes, so its
  figures are lower bounds where it stops (marked >=).  Answers must agree where both
  decide;
* the same puzzles with no module spent (every ability open): the core's times;
* the first mission of ``--deal-missions`` deals of ``--deal-spec`` at normal (deal
  seeds 1000, 1001, ...), the expert's first and dearest kind of search: every ability
  unspent, dozens of successors a node, the distance tables off, each search stopped at
  ``--deal-nodes``.  Nodes a second through the core's A* (``core.solve_mission_steps``),
  and through the Python A* on the first three for ``--python-nodes`` nodes each, with
  the ratio.

Node counts are identical on both paths (the core mirrors the Python search), so the
ratio is the speed of a node.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.engine import Deck, State, state_from_position, successors  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.position import Position  # noqa: E402
from rove.solve import core  # noqa: E402
from rove.solve.astar import solve_mission_python  # noqa: E402
from rove.solve.nodes import Budget, Limit  # noqa: E402
from rove.solve.result import SolveResult  # noqa: E402
from rove.solve.search import solve  # noqa: E402
from rove.spec import load_spec  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
from helpers import bare_budget_puzzle, playing_states  # noqa: E402


def positions(spec_ref: str, count: int, seed: int) -> tuple[Deck, list[State]]:
    """``count`` playing states with a legal action (``playing_states`` of tests/helpers.py)."""
    spec = load_spec(spec_ref)
    return Deck(spec), playing_states(spec, count, seed)


def generation(spec_ref: str, count: int, seconds: float) -> None:
    deck, states = positions(spec_ref, count, 1)
    made = sum(1 for s in states for _ in successors(deck, s))
    t0 = time.perf_counter()
    rounds = 0
    while time.perf_counter() - t0 < seconds:
        for s in states:
            for _ in successors(deck, s):
                pass
        rounds += 1
    py_rate = rounds * len(states) / (time.perf_counter() - t0)
    tuples = [core.state_tuple(s) for s in states]
    handle = core.core_deck(deck)
    assert core._core is not None
    assert core._core.generate_all(handle, tuples, 1) == made, "the core makes the engine's successors"
    rounds = 1
    while True:
        t0 = time.perf_counter()
        core._core.generate_all(handle, tuples, rounds)
        elapsed = time.perf_counter() - t0
        if elapsed > seconds / 4:
            break
        rounds *= 4
    core_rate = rounds * len(states) / elapsed
    print(f"successor generation, {len(states)} positions of {spec_ref} "
          f"({made / len(states):.0f} successors each on average)")
    print(f"  python engine   {py_rate:>14,.0f} states/s")
    print(f"  compiled core   {core_rate:>14,.0f} states/s   x{core_rate / py_rate:,.0f}")


def timed_solve(p: Position, python: bool, max_nodes: int | None) -> SolveResult:
    old = os.environ.get("ROVE_CORE")
    if python:
        os.environ["ROVE_CORE"] = "0"
    try:
        return solve(p, max_nodes=max_nodes)
    finally:
        if old is None:
            os.environ.pop("ROVE_CORE", None)
        else:
            os.environ["ROVE_CORE"] = old


def summary(times: list[float], lower: bool = False) -> str:
    ge = ">=" if lower else "  "
    return (f"median {ge}{statistics.median(times) * 1000:9.1f} ms   "
            f"max {ge}{max(times) * 1000:9.1f} ms")


def puzzles(spec_ref: str, count: int, budget: int, python_nodes: int, open_count: int) -> None:
    spec = load_spec(spec_ref)
    print(f"\nbare-budget mission puzzles of {spec_ref}, budget {budget}, two to six modules spent")
    core_t: list[float] = []
    py_t: list[float] = []
    statuses: dict[str, int] = {}
    py_stopped = 0
    mismatches = []
    nodes = []
    for i in range(count):
        p = bare_budget_puzzle(spec, i, spent=2 + i % 5, budget=budget)
        a = timed_solve(p, python=False, max_nodes=None)
        core_t.append(a.seconds)
        nodes.append(a.nodes)
        statuses[a.status] = statuses.get(a.status, 0) + 1
        b = timed_solve(p, python=True, max_nodes=python_nodes)
        py_t.append(b.seconds)
        if b.status == "unknown":
            py_stopped += 1
        elif (a.status, a.points, a.cards, a.abilities) != (b.status, b.points, b.cards, b.abilities):
            mismatches.append(i)
    print(f"  answers (core): {statuses}; nodes median {statistics.median(nodes):,.0f}, max {max(nodes):,}")
    print(f"  compiled core   {summary(core_t)}")
    print(f"  python search   {summary(py_t, lower=py_stopped > 0)}   "
          f"({py_stopped} of {count} stopped at {python_nodes:,} nodes)")
    ratios = [b / a for a, b in zip(core_t, py_t) if a > 0]
    print(f"  per-puzzle speed-up: median x{statistics.median(ratios):,.0f}"
          f"{' (a lower bound where Python stopped)' if py_stopped else ''}")
    print(f"  disagreements where both decided: {mismatches or 'none'}")
    if open_count:
        print(f"\nthe first {open_count} of them with no module spent (every ability open), core only")
        open_t = []
        open_status: dict[str, int] = {}
        for i in range(open_count):
            p = bare_budget_puzzle(spec, i, spent=0, budget=budget)
            p = replace(p, spent=frozenset())
            r = timed_solve(p, python=False, max_nodes=None)
            open_t.append(r.seconds)
            open_status[r.status] = open_status.get(r.status, 0) + 1
        print(f"  compiled core   {summary(open_t)}   answers {open_status}")


def mission_rate(search: Callable[[State, Budget], object], starts: list[State],
                 max_nodes: int) -> tuple[int, float, dict[str, int]]:
    """Nodes, seconds and outcomes of ``search`` on each start, stopped at ``max_nodes``."""
    nodes = 0
    seconds = 0.0
    outcomes: dict[str, int] = {}
    for s in starts:
        budget = Budget(float("inf"), max_nodes)
        t0 = time.perf_counter()
        try:
            outcome = "unsolvable" if search(s, budget) is None else "solved"
        except Limit:
            outcome = "limit"
        seconds += time.perf_counter() - t0
        nodes += budget.nodes
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return nodes, seconds, outcomes


def deal_missions(spec_ref: str, count: int, max_nodes: int, python_nodes: int) -> None:
    spec = load_spec(spec_ref)
    deck = Deck(spec)
    starts = [state_from_position(deck, deal(spec, 1000 + i, "normal")) for i in range(count)]
    with core.tables_off():
        nodes, seconds, outcomes = mission_rate(
            lambda s, b: core.solve_mission_steps(deck, s, b, None), starts, max_nodes)
    py_nodes, py_seconds, _ = mission_rate(
        lambda s, b: solve_mission_python(deck, s, b).plan, starts[:3], python_nodes)
    core_rate = nodes / seconds
    py_rate = py_nodes / py_seconds
    print(f"\nfirst missions of {count} deals of {spec_ref} (normal), every ability unspent, tables off")
    print(f"  compiled core   {nodes:>12,} nodes in {seconds:6.2f} s = {core_rate:>9,.0f} nodes/s   "
          f"answers {outcomes}")
    print(f"  python search   {py_nodes:>12,} nodes in {py_seconds:6.2f} s = {py_rate:>9,.0f} nodes/s   "
          f"(first 3, at most {python_nodes:,} nodes each)   core x{core_rate / py_rate:,.0f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="classic", help="bundled spec name or path")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=3.0, help="timing budget per generation figure")
    ap.add_argument("--puzzles", type=int, default=45)
    ap.add_argument("--budget", type=int, default=8)
    ap.add_argument("--python-nodes", type=int, default=20_000, help="node limit of the Python path")
    ap.add_argument("--open", type=int, default=10, help="puzzles with every ability open (0: none)")
    ap.add_argument("--deal-spec", default="standard", help="the deck of the deals' first missions")
    ap.add_argument("--deal-missions", type=int, default=30, help="deals whose first mission is searched (0: none)")
    ap.add_argument("--deal-nodes", type=int, default=150_000, help="node limit of each first-mission search")
    args = ap.parse_args(argv)
    if not core.available():
        print("the compiled core is not built (pip install -e . builds it)", file=sys.stderr)
        return 2
    generation(args.spec, args.positions, args.seconds)
    if args.puzzles:
        puzzles(args.spec, args.puzzles, args.budget, args.python_nodes, args.open)
    if args.deal_missions:
        deal_missions(args.deal_spec, args.deal_missions, args.deal_nodes, args.python_nodes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
