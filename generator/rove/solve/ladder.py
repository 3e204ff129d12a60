"""Deciding a whole deal in order of cost: a ladder of bounded solvers, cheapest first.

A deal's verdict can come from two solvers of very different price:

* the exact whole-deal search (:mod:`.winnable`), the only one that can prove a loss;
  on decks worth playing its order (cheapest completion first) meets deals whose win
  lies millions of nodes away, so on most won deals it is the dearer of the two;
* the seer (:mod:`.seer`), the expert's judgement with the draw order known: it never
  proves a loss, but it finds most wins within a few hundred thousand nodes.

Measured on the standard deck's first ten normal deals (seed 0): the search decided
none of them within 200,000 nodes and six within 2,000,000 (2 to 37 s each), while the
seer won eight within 500,000 (2 to 14 s) and the other two within 2,000,000.  So the
order that pays is a short look for a win first, then the dear searches only for the
deals that are left.  A :class:`Rung` names one solver and its node budget; :func:`climb`
runs the rungs in order and stops at the first that decides.  Every budget is a node
count, so the verdict, the rung that gave it and every node figure are the same on any
machine; every plan is replayed through the rules engine before it is believed.

A later search rung starts again from scratch rather than resuming the earlier one: the
rungs grow by about ten times, so the repeated work is a tenth at most, and a rung stays
a pure function of its deal and budget (the same verdict whichever rungs ran before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action
from ..defaults import QUICK_SEARCH_NODES as _QUICK_SEARCH_NODES
from ..engine import WON, Deck, State
from ..errors import SolverBug
from ..replay import run_plan
from .nodes import Budget, Limit

SEARCH, SEER = "search", "seer"
QUICK_SEARCH_NODES = _QUICK_SEARCH_NODES
"""The cheap exact rung, after the seer: a search this short proves the easy losses in a
second; the dear ones come only for what it leaves (``rove check``'s second phase, the
coach's "keep thinking").  On the standard deck's first ten ``rove play`` deals, the
positions the seer left took 9 to 22 s when the coach's first verdict searched for
1,000,000 nodes, and none of them was decided (``python bench/coach.py``)."""
SOLVERS = (SEARCH, SEER)

WON_, LOST_, UNKNOWN_, TIME_ = "won", "lost", "unknown", "time"


@dataclass(frozen=True)
class Rung:
    """One step of the ladder: a solver (``"search"`` or ``"seer"``) and its nodes."""

    solver: str
    nodes: int

    def __post_init__(self) -> None:
        if self.solver not in SOLVERS:
            raise ValueError(f"a rung's solver is one of {', '.join(SOLVERS)}, not {self.solver!r}")
        if self.nodes < 1:
            raise ValueError("a rung needs at least one node")

    def to_json(self) -> dict[str, Any]:
        return {"solver": self.solver, "nodes": self.nodes}


@dataclass(frozen=True)
class Step:
    """What one rung did: its outcome (``won``, ``lost``, ``unknown`` at its nodes, or
    ``time`` when the safety-net time limit stopped a search) and the nodes it spent;
    ``deepest`` is the most missions completed on a line it reached (-1: none)."""

    rung: Rung
    outcome: str
    nodes: int
    deepest: int
    #: a seer's step that tried every line of its trees, each search within its own cap
    #: (:attr:`rove.solve.seer.SeerResult.exhausted`): a larger seer finds nothing new
    exhausted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"solver": self.rung.solver, "budget": self.rung.nodes, "outcome": self.outcome,
                "nodes": self.nodes, "deepest": self.deepest}


@dataclass(frozen=True)
class Verdict:
    """A deal's verdict from the ladder: ``solved`` (``plan`` wins; replayed), ``unsolvable``
    (proven by the exact search) or ``unknown`` (every rung ran out).  ``witness`` names the
    solver that decided it; ``blocker`` is the mission the deepest failed line stopped at,
    for a proven loss; ``line`` the state after each step of a winning plan, as the engine
    replayed it (the coach keeps them: each is won by the rest of the plan)."""

    status: str
    plan: tuple[Action, ...] | None
    witness: str | None
    steps: tuple[Step, ...]
    blocker: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    line: tuple[State, ...] = ()

    @property
    def nodes(self) -> int:
        return sum(s.nodes for s in self.steps)

    @property
    def deepest(self) -> int:
        """The most missions completed on any line a rung reached (-1: none known)."""
        return max((s.deepest for s in self.steps), default=-1)


def climb(deck: Deck, start: State, rungs: Sequence[Rung],
          progress: Callable[[int], None] | None = None, time_limit: float | None = None,
          check: Callable[[], None] | None = None) -> Verdict:
    """Run ``rungs`` in order from ``start`` until one decides the deal.

    ``progress(missions done)`` is passed to the exact search and ``check()`` to the seer
    (called before each of its decisions) and before each rung: either may raise to stop
    the climb, as the coach's stale jobs do.  ``time_limit`` is a safety net for each exact
    search only; a search it stops ends the climb (``time``), since what the later rungs
    would then decide would depend on the machine's speed."""
    steps: list[Step] = []
    blocker: str | None = None
    for rung in rungs:
        if check is not None:
            check()
        if rung.solver == SEER and any(s.exhausted for s in steps):
            continue
        if rung.solver == SEARCH:
            step, plan, stats = _search(deck, start, rung, progress, time_limit)
            if step.outcome == LOST_ and isinstance(stats.get("deepest_mission"), str):
                blocker = stats["deepest_mission"]
        else:
            step, plan = _seer(deck, start, rung, check)
        steps.append(step)
        if step.outcome == WON_:
            assert plan is not None
            line = _replay(deck, start, plan, rung.solver)
            return Verdict("solved", tuple(plan), rung.solver, tuple(steps), line=line)
        if step.outcome == LOST_:
            return Verdict("unsolvable", None, SEARCH, tuple(steps), blocker)
        if step.outcome == TIME_:
            break
    return Verdict("unknown", None, None, tuple(steps))


def _search(deck: Deck, start: State, rung: Rung, progress: Callable[[int], None] | None,
            time_limit: float | None) -> tuple[Step, list[Action] | None, dict[str, Any]]:
    from .winnable import solve_game

    budget = Budget.of(time_limit, rung.nodes)
    stats: dict[str, Any] = {}
    try:
        plan, _ = solve_game(deck, start, budget, progress=progress, stats=stats)
    except Limit:
        outcome = UNKNOWN_ if budget.nodes >= rung.nodes else TIME_
        return Step(rung, outcome, budget.nodes, _done(stats)), None, stats
    outcome = LOST_ if plan is None else WON_
    deepest = deck.spec.missions_to_win if plan is not None else _done(stats)
    return Step(rung, outcome, budget.nodes, deepest), plan, stats


def _done(stats: dict[str, Any]) -> int:
    d = stats.get("deepest_done")
    return d if isinstance(d, int) and d >= 0 else -1


def _seer(deck: Deck, start: State, rung: Rung, check: Callable[[], None] | None,
          ) -> tuple[Step, list[Action] | None]:
    from .seer import seek

    found = seek(deck, start, rung.nodes, check=check)
    if found.plan is None:
        return Step(rung, UNKNOWN_, found.nodes, found.deepest, found.exhausted), None
    return Step(rung, WON_, found.nodes, deck.spec.missions_to_win), list(found.plan)


def _replay(deck: Deck, start: State, plan: Sequence[Action], solver: str) -> tuple[State, ...]:
    """The engine referees: a win that does not replay to a won game is a solver bug.
    Returns the state after each step."""
    states, bad = run_plan(deck, start, plan)
    end = states[-1] if states else start
    if bad is not None or end.status != WON:
        raise SolverBug(f"the {solver}'s winning plan does not replay: "
                        + (f"step {bad[0]}: {bad[1]}" if bad else f"it ends {end.status}"))
    return tuple(states)
