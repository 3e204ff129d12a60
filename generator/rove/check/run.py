"""Running a check: the worker functions (each task of ``rove.check.tasks`` names a spec
file and gives a small dict of plain values) and the run that plans them, maps them over
an executor in batches and gathers their results by task index."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import SolverBug
from ..generators.deals import deal, start_layout
from ..solve.ladder import Rung
from ..spec import Spec, load_spec
from .options import BARE_BUDGET, CheckOptions, deal_seed, start_arrangements
from .report import CheckReport, aggregate
from .tally import ProgressFn, Tally
from .tasks import (
    LONG_TASKS,
    DealTask,
    ExpertTask,
    SpecRef,
    StartsTask,
    TableTask,
    Task,
    VerifyTask,
)
from .verdict import contradicted, stop_reason, verdict_section

_SPECS: dict[tuple[str, str], Spec] = {}


def spec_fingerprint(spec: Spec) -> str:
    """A short hash of the spec's content (its canonical YAML)."""
    from ..spec import dump_spec

    return hashlib.sha256(dump_spec(spec, schema=None).encode()).hexdigest()[:16]


def _spec(path: str, fingerprint: str) -> Spec:
    """The spec a task names, loaded once per worker process; the fingerprint makes sure a
    long-lived worker never uses a stale copy of a file that was edited since."""
    spec = _SPECS.get((path, fingerprint))
    if spec is None:
        spec = load_spec(path)
        if spec_fingerprint(spec) != fingerprint:
            raise RuntimeError(f"the spec file {path} differs from the one the check started "
                               "with (edited meanwhile, or not the same file on this worker)")
        _SPECS[(path, fingerprint)] = spec
    return spec


def run_task(task: Task) -> dict[str, Any]:
    """Run one task in whatever process it lands in (pure: same task, same result,
    apart from ``seconds``)."""
    ref = task.spec
    if isinstance(task, DealTask):
        return _deal_task(ref.path, ref.fingerprint, task.index, task.seed, task.difficulty, task.rungs,
                          task.time_limit)
    if isinstance(task, StartsTask):
        return _starts_task(ref.path, ref.fingerprint, task.index, task.arrangement, task.node_limit,
                            task.time_limit, task.tables)
    if isinstance(task, ExpertTask):
        return _expert_task(ref.path, ref.fingerprint, task.index, task.seed, task.difficulty, task.node_limit)
    if isinstance(task, VerifyTask):
        return _verify_task(ref.path, ref.fingerprint, task.index, task.seed, task.difficulty,
                            task.node_limit, task.time_limit)
    return _table_task(ref.path, ref.fingerprint, task.card, list(task.arrangements), task.node_limit,
                       task.time_limit)


def _limit_hit(status: str, nodes: int, node_limit: int) -> str | None:
    if status != "unknown":
        return None
    return "nodes" if nodes >= node_limit else "time"


def _deal_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
               rungs: tuple[Rung, ...], time_limit: float | None) -> dict[str, Any]:
    """One deal climbed by the thoughtful player (``rove.solve.ladder``): the given rungs
    in order, until one decides it.  Every win is replayed by the engine
    before it is believed; only the exact search can prove a loss."""
    from ..engine import deck_for, state_from_position
    from ..solve.ladder import climb
    from ..solve.result import plan_cost

    t0, c0 = time.monotonic(), time.process_time()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = deck_for(spec, pos.rules)
    v = climb(deck, state_from_position(deck, pos), list(rungs), time_limit=time_limit)
    out: dict[str, Any] = {
        "index": index, "seed": seed, "difficulty": difficulty, "status": v.status,
        "witness": v.witness, "steps": [s.to_json() for s in v.steps],
        "deepest": v.deepest if v.deepest >= 0 else None,
        "blocker": v.blocker, "blocker_source": "solver" if v.blocker is not None else None,
        "points": None, "cards": None, "abilities": None,
        "plays": {}, "bonus_plays": {}, "ability_uses": {},
    }
    if v.plan is not None:
        out["points"], out["cards"], out["abilities"] = plan_cost(v.plan)
        out["plays"], out["bonus_plays"], out["ability_uses"] = _plan_counts(v.plan)
    out["seconds"] = time.monotonic() - t0
    out["cpu_seconds"] = time.process_time() - c0
    return _with_step_totals(out)


def _with_step_totals(r: dict[str, Any]) -> dict[str, Any]:
    """A deal row's node figures from its ladder steps: ``nodes`` the exact searches',
    ``seer_nodes`` the seer's (None when it did not run), and ``limit`` what stopped an
    unknown deal (``nodes``, or ``time`` when the safety net stopped a search)."""
    steps = r["steps"]
    r["nodes"] = sum(s["nodes"] for s in steps if s["solver"] == "search")
    seer = [s["nodes"] for s in steps if s["solver"] == "seer"]
    r["seer_nodes"] = sum(seer) if seer else None
    r["limit"] = None
    if r["status"] == "unknown":
        r["limit"] = "time" if any(s["outcome"] == "time" for s in steps) else "nodes"
    return r


def _merged(first: dict[str, Any], then: dict[str, Any]) -> dict[str, Any]:
    """A deal's row after a later phase of the ladder: the later rungs' verdict and plan,
    every step of both, and the deepest line of either."""
    out = dict(then)
    out["steps"] = first["steps"] + then["steps"]
    depths = [d for d in (first["deepest"], then["deepest"]) if d is not None]
    out["deepest"] = max(depths) if depths else None
    out["seconds"] = first.get("seconds", 0.0) + then.get("seconds", 0.0)
    out["cpu_seconds"] = first.get("cpu_seconds", 0.0) + then.get("cpu_seconds", 0.0)
    return _with_step_totals(out)


def _verify_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
                 node_limit: int, time_limit: float | None) -> dict[str, Any]:
    """One lost deal proved again by another search: the core's reference algorithm (the
    one the pure-Python search runs), without the distance tables nor the lost tables'
    dominance cuts, so that a wrong cut in either shows as a disagreement.  Slower, so a
    re-proof that reaches its node limit is ``unknown`` (not a disagreement); a win it
    finds is replayed through the engine before it is believed."""
    from ..engine import deck_for, state_from_position
    from ..replay import verify_plan
    from ..solve import core
    from ..solve.nodes import Budget, Limit
    from ..solve.winnable import solve_game_python

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = deck_for(spec, pos.rules)
    start = state_from_position(deck, pos)
    budget = Budget.of(time_limit, node_limit)
    status = "unknown"
    try:
        if core.available(deck):
            plan, _ = core.solve_game(deck, start, budget, False, None, {}, reference=True)
        else:  # the Python search has no tables nor dominance cuts to switch off
            plan = solve_game_python(deck, start, budget).plan
    except Limit:
        pass
    else:
        if plan is not None:
            verify_plan(pos, plan, deck)
        status = "unsolvable" if plan is None else "solved"
    return {"index": index, "seed": seed, "difficulty": difficulty, "status": status,
            "nodes": budget.nodes, "seconds": time.monotonic() - t0}


def _plan_counts(plan: Sequence[Any]) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Movement plays, bonus plays (per card) and ability uses (per module, ``G>L`` for a
    use through Gripper) in a plan."""
    plays: dict[str, int] = {}
    bonus: dict[str, int] = {}
    uses: dict[str, int] = {}
    for a in plan:
        if a.act == "play":
            plays[a.card] = plays.get(a.card, 0) + 1
            if a.bonus:
                bonus[a.card] = bonus.get(a.card, 0) + 1
        elif a.act == "ability":
            key = a.module if a.via is None else f"{a.module}>{a.via}"
            uses[key] = uses.get(key, 0) + 1
    return dict(sorted(plays.items())), dict(sorted(bonus.items())), dict(sorted(uses.items()))


def _expert_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
                 node_limit: int) -> dict[str, Any]:
    """One deal played by the expert (``rove.solve.expert``); a win is replayed through the
    engine (that replay is a proof the deal is winnable)."""
    from ..engine import deck_for, state_from_position
    from ..replay import states_along, verify_plan
    from ..solve.expert import play

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = deck_for(spec, pos.rules)
    r = play(deck, state_from_position(deck, pos), node_limit=node_limit)
    if r.status == "won":
        verify_plan(pos, list(r.plan), deck)
    else:  # the plan is legal up to where the expert stopped
        states_along(deck, state_from_position(deck, pos), r.plan)
    plays, bonus, uses = _plan_counts(r.plan)
    # the expert's plays all say bonus or base, so the bonus counts are exact
    return {
        "index": index, "seed": seed, "difficulty": difficulty, "status": r.status,
        "reason": r.reason, "missions_done": r.done,
        "failed_mission": None if r.failed_mission is None else deck.card_ids[r.failed_mission],
        "nodes": r.nodes, "actions": len(r.plan), "decisions": r.decisions, "replans": r.replans,
        "points": sum(a.act == "move" for a in r.plan), "cards": sum(plays.values()),
        "abilities": sum(uses.values()),
        "plays": plays, "bonus_plays": bonus, "ability_uses": uses,
        "seconds": time.monotonic() - t0,
    }


def _start_position(spec: Spec, arrangement: tuple[str, ...], card: str, spent: frozenset[str]) -> Any:
    """A mission puzzle from a start arrangement: bare budget, empty hand, goal mission."""
    from ..position import Current, Position

    return Position(spec=spec, layout=Position.layout_of(start_layout(arrangement)), mission=card,
                    goal="mission", current=Current(None, BARE_BUDGET), spent=spent)


def _solved_cost(pos: Any, node_limit: int, time_limit: float | None) -> dict[str, Any]:
    """A start's mission cost by an A* solve."""
    from ..solve.search import solve

    return _cost_row(solve(pos, time_limit=time_limit, max_nodes=node_limit), node_limit)


def _cost_row(r: Any, node_limit: int) -> dict[str, Any]:
    """A start's mission cost row from a solve's result."""
    return {"status": r.status, "points": r.points, "abilities": r.abilities,
            "actions": None if r.plan is None else len(r.plan), "nodes": r.nodes,
            "limit": _limit_hit(r.status, r.nodes, node_limit)}


def _with_abilities_costs(spec: Spec, arrangement: tuple[str, ...], node_limit: int,
                          time_limit: float | None) -> list[dict[str, Any]]:
    """Every mission's cost from a start with every ability available: one zero-point
    walk for all the missions (``rove.solve.closure``: at most ``node_limit`` nodes,
    like one A* solve), then an A* solve (at most ``node_limit`` nodes each) for every
    mission it did not settle (those that need a point, or all it left at its limit).
    The figures are the A* solves' either way: the walk's optima are exact.

    The walk's nodes are charged to the first mission's row (the deck's first card),
    added to whatever that row's own solve took, so that a start's rows still add up to
    the nodes spent on it; a row's ``limit`` is its own A* solve's."""
    from ..solve.closure import solve_zero_point

    positions = [_start_position(spec, arrangement, card.id, frozenset()) for card in spec.cards]
    walk = solve_zero_point(positions, node_limit, time_limit)
    rows = [_cost_row(r, node_limit) if r is not None else _solved_cost(pos, node_limit, time_limit)
            for pos, r in zip(positions, walk.results)]
    if rows:
        rows[0]["nodes"] += walk.nodes
    return rows


def _starts_task(spec_path: str, fingerprint: str, index: int, arrangement: tuple[str, ...],
                 node_limit: int, time_limit: float | None, tables: bool = False) -> dict[str, Any]:
    """Optimal cost (points) of every mission from one start arrangement: bare budget,
    empty hand, goal mission; once with every ability available, once with every
    module spent (no ability left: the cost a late mission may face).  The first come
    from one zero-point walk and A* (``_with_abilities_costs``).  With ``tables`` the
    second is left None here: a ``"table"`` task gives it for every start at once."""
    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    everything = frozenset(spec.codes)
    with_abilities = _with_abilities_costs(spec, arrangement, node_limit, time_limit)
    missions = [{"card": card.id,
                 "with_abilities": row,
                 "no_abilities": None if tables else _solved_cost(
                     _start_position(spec, arrangement, card.id, everything), node_limit, time_limit)}
                for card, row in zip(spec.cards, with_abilities)]
    return {"index": index, "arrangement": "".join(arrangement), "missions": missions,
            "seconds": time.monotonic() - t0}


#: a start's A* solve for a no-abilities cost may expand this many nodes before its mission
#: switches to the distance table (and so may all the mission's solves together, about
#: what a table's build costs: these solves run at roughly 100,000 nodes a second on
#: bench/decks/g35.yaml, a table builds in 3-4 s), so a mission whose starts A* settles
#: cheaply never builds one.  Node counts, not seconds: the same switch on any
#: machine, and the figures are the same either way (the table is exact).
TABLE_SWITCH_NODES = 20_000
TABLE_SWITCH_TOTAL = 400_000


def _table_task(spec_path: str, fingerprint: str, card: str, arrangements: list[tuple[str, ...]],
                node_limit: int, time_limit: float | None) -> dict[str, Any]:
    """One mission's cost with every module spent from every start arrangement.  A*
    first, while it is cheap; once a start's solve needs more than TABLE_SWITCH_NODES or
    the mission's solves more than TABLE_SWITCH_TOTAL, the core's distance table for
    the mission is built (once, here) and read for that start and every later one: on
    decks with long no-ability paths an A* solve a start took seconds, the table's
    build a few seconds for all.  A worker without a table (no core) solves each start
    with the full ``node_limit``."""
    from ..engine import deck_for

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    deck = deck_for(spec)  # the start positions play under the default rules
    everything = frozenset(spec.codes)
    rows: list[dict[str, Any]] = []
    spent_nodes = 0
    table = False
    for arrangement in arrangements:
        pos = _start_position(spec, arrangement, card, everything)
        row = None
        if not table and spent_nodes < TABLE_SWITCH_TOTAL:
            row = _solved_cost(pos, min(node_limit, TABLE_SWITCH_NODES), time_limit)
            spent_nodes += row["nodes"]
            if row["limit"] == "nodes" and node_limit > TABLE_SWITCH_NODES:
                row = None  # not settled cheaply: the table (or the full solve) decides
        if row is None:
            row = _table_cost(deck, pos)
            table = row is not None
        rows.append(row or _solved_cost(pos, node_limit, time_limit))
    return {"card": card, "rows": rows, "table": table, "seconds": time.monotonic() - t0}


def _tables_apply(spec: Spec) -> bool:
    """Whether the no-abilities costs come from distance tables: the core is built and
    on, the tables are not switched off (``ROVE_TABLES=0``), and the deck is small
    enough for them."""
    from ..engine import deck_for
    from ..solve import core

    return core.tables_possible(deck_for(spec)) and core.tables_after() != 0


def _table_cost(deck: Any, pos: Any) -> dict[str, Any] | None:
    """A start's mission cost with every module spent, read from the core's distance
    table, in the shape of an A* solve's row; None when there is no table to read (the
    core is not built or is switched off, ``ROVE_TABLES=0``, or the deck has more
    modules than tables hold), so the caller solves instead.

    Why it is the A* answer: with no ability left and an empty hand, the only actions are
    moves at one point each, so the optimal plan's points and actions are the fewest
    moves, which the table holds exactly (tests/test_tables.py holds it to A*); beyond
    the bare budget, or with no sequence of moves at all, A* finds no plan within the
    budget, i.e. ``unsolvable`` (a figure the table stores as a lower bound is above the
    budget too).  ``nodes`` is 0: a look-up expands no search node."""
    from ..engine import state_from_position
    from ..solve import core

    if not core.available(deck) or core.tables_after() == 0:
        return None
    try:
        d = core.table_distance(deck, state_from_position(deck, pos))
    except ValueError:  # more modules than a table holds
        return None
    if d is None or d > BARE_BUDGET:
        return {"status": "unsolvable", "points": None, "abilities": None, "actions": None,
                "nodes": 0, "limit": None}
    return {"status": "solved", "points": d, "abilities": 0, "actions": d, "nodes": 0, "limit": None}


def static_tasks(spec: Spec, options: CheckOptions) -> tuple[list[Task], list[tuple[str, ...]]]:
    """The static part's tasks: the start arrangements, with the no-abilities costs' tasks
    among them (one a mission, when the distance tables may give those costs), spread so
    that every worker builds some tables."""
    ref = _spec_ref(spec)
    arrangements = start_arrangements(spec, options.starts, options.seed)
    tables = bool(arrangements) and _tables_apply(spec)
    table_tasks: list[Task] = [TableTask(ref, card.id, tuple(arrangements), options.mission_node_limit,
                                         options.time_limit) for card in spec.cards] if tables else []
    step = max(1, len(arrangements) // max(1, len(table_tasks)))
    tasks: list[Task] = []
    for i, arr in enumerate(arrangements):
        if i % step == 0 and table_tasks:
            tasks.append(table_tasks.pop(0))
        tasks.append(StartsTask(ref, i, arr, options.mission_node_limit, options.time_limit, tables))
    return tasks + table_tasks, arrangements


def expert_tasks(spec: Spec, options: CheckOptions, difficulty: str, first: int, stop: int) -> list[Task]:
    """The expert's games of deals ``first .. stop - 1`` at one difficulty."""
    ref = _spec_ref(spec)
    return [ExpertTask(ref, i, deal_seed(options.seed, i), difficulty, options.expert_node_limit)
            for i in range(first, stop)]


def plan_tasks(spec: Spec, options: CheckOptions) -> tuple[list[Task], list[tuple[str, ...]]]:
    """The first batch of a run: the expert's games of the first deals by difficulty, then
    the static part (:func:`static_tasks`).  The expert's games come first: they are the
    long tasks, and the short static ones then fill the workers' last gaps (longest
    first), rather than one long game running alone at the end.  The thoughtful player's
    deals come after, in order of cost (:func:`deal_tasks`): only the expert's wins are
    known to need no search.

    A task names the spec by absolute path (workers load it once, and check its
    fingerprint), so every worker must see the file at that path."""
    tasks, arrangements = static_tasks(spec, options)
    experts = [t for d in options.difficulties for t in expert_tasks(spec, options, d, 0, options.first_deals)
               ] if "expert" in options.players else []
    return experts + tasks, arrangements


def deal_tasks(spec: Spec, options: CheckOptions, deals: Sequence[tuple[str, int]], phase: int) -> list[Task]:
    """The thoughtful player's tasks for ``deals`` (difficulty, index) at one phase of its
    ladder (``CheckOptions.ladder``: 0 the cheap rungs, 1 the dear ones)."""
    ref = _spec_ref(spec)
    rungs = options.ladder()[phase]
    return [DealTask(ref, i, deal_seed(options.seed, i), d, rungs, options.time_limit)
            for d, i in deals] if rungs else []


def _spec_ref(spec: Spec) -> SpecRef:
    if spec.path is None:
        raise ValueError("run_check needs a spec loaded from a file (spec.path)")
    return SpecRef(str(Path(spec.path).resolve()), spec_fingerprint(spec))


class CheckInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a check: ``report`` holds the figures of the work that
    finished, marked partial (``report.partial``), so the caller can show them."""

    def __init__(self, report: CheckReport | None, signal: KeyboardInterrupt) -> None:
        super().__init__()
        self.report = report
        self.signal = signal


class _Run:
    """One check's work and what it has found so far: every result is recorded the
    moment it arrives (so that Ctrl-C can report it), and every decision (another batch
    of deals, the next rung) is taken on whole batches, in seed order."""

    def __init__(self, spec: Spec, options: CheckOptions, ex: Any, tally: Tally) -> None:
        self.spec, self.options, self.ex, self.tally = spec, options, ex, tally
        self.static: dict[int, tuple[Task, dict[str, Any]]] = {}
        self.n_static = 0
        self.experts: dict[tuple[str, int], dict[str, Any]] = {}
        #: deals each difficulty plays (the expert's, or the thoughtful player's alone)
        self.played = dict.fromkeys(options.difficulties, 0)
        self.stopped: dict[str, str] = {}
        #: the thoughtful player's rows by phase of its ladder, as they arrive
        self.phases: list[dict[tuple[str, int], dict[str, Any]]] = [{}, {}]
        self.phase_planned: list[set[tuple[str, int]]] = [set(), set()]

    def map(self, tasks: list[Task], phase: int = -1) -> None:
        """Run tasks, recording each result as it arrives."""
        def sink(i: int, task: Task, res: dict[str, Any]) -> None:
            if isinstance(task, ExpertTask):
                self.experts[(task.difficulty, task.index)] = res
            elif isinstance(task, DealTask):
                self.phases[phase][(task.difficulty, task.index)] = res
            else:
                self.static[i] = (task, res)

        _run_tasks(tasks, self.ex, self.tally, sink)

    def expert_rounds(self, static: list[Task]) -> None:
        """The static part with the expert's first batch, then a batch more of each
        difficulty whose verdict is not clear yet (a sequential run), until none is left."""
        o = self.options
        self.n_static = len(static)
        first: list[Task] = []
        for d in o.difficulties:
            self.played[d] = o.first_deals
            if "expert" in o.players:
                first += expert_tasks(self.spec, o, d, 0, o.first_deals)
        self.map(first + static)
        if "expert" not in o.players or not o.sequential:
            return
        while True:
            more: list[Task] = []
            for d in o.difficulties:
                if d in self.stopped:
                    continue
                n = self.played[d]
                won = sum(self.experts[(d, i)]["status"] == "won" for i in range(n))
                why = stop_reason(won, n, o, d)
                if why is not None:
                    self.stopped[d] = why
                    continue
                stop = min(o.max_deals, n + o.batch)
                more += expert_tasks(self.spec, o, d, n, stop)
                self.played[d] = stop
            if not more:
                return
            self.tally.more_deals(self.played)
            self.map(more)

    def thoughtful_deals(self, d: str) -> int:
        limit = self.options.thoughtful_limit
        return self.played[d] if limit is None else min(self.played[d], limit)

    def thoughtful(self) -> None:
        """The thoughtful player's deals: the expert's wins are won; the cheap rungs on
        every other deal, then the dear ones on the deals still undecided."""
        o = self.options
        wins = [self.experts[(d, i)] for d in o.difficulties for i in range(self.thoughtful_deals(d))
                if self.experts.get((d, i), {}).get("status") == "won"]
        self.tally.expert_wins(wins, {d: self.thoughtful_deals(d) for d in o.difficulties})
        for phase in (0, 1):
            rows = self.rows()
            todo = [(d, i) for d in o.difficulties for i in range(self.thoughtful_deals(d))
                    if rows.get((d, i), {}).get("status", "unknown") == "unknown"]
            self.tally.phase(phase)
            tasks = deal_tasks(self.spec, o, todo, phase)
            self.phase_planned[phase] = {(t.difficulty, t.index) for t in tasks if isinstance(t, DealTask)}
            self.map(tasks, phase)

    def rows(self, partial: bool = False) -> dict[tuple[str, int], dict[str, Any]]:
        """The thoughtful player's row of every deal it has a result for: the expert's win,
        or its rungs' results merged in order.  With ``partial``, a deal whose later rungs
        were planned but did not finish is marked ``interrupted``."""
        out: dict[tuple[str, int], dict[str, Any]] = {}
        o = self.options
        for d in o.difficulties if "thoughtful" in o.players else ():
            for i in range(self.thoughtful_deals(d)):
                e = self.experts.get((d, i))
                if e is not None and e["status"] == "won":
                    out[(d, i)] = _expert_win(e, self.spec.missions_to_win)
                    continue
                row = None
                for phase in (0, 1):
                    r = self.phases[phase].get((d, i))
                    if r is not None:
                        row = r if row is None else _merged(row, r)
                    elif partial and (d, i) in self.phase_planned[phase] and row is not None:
                        row = {**row, "limit": "interrupted"}
                if row is not None:
                    out[(d, i)] = row
        return out

    def ordered(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The thoughtful rows and the expert's games in deal order."""
        rows = self.rows()
        o = self.options
        thoughtful = [rows[(d, i)] for d in o.difficulties for i in range(self.thoughtful_deals(d))
                      if (d, i) in rows]
        experts = [self.experts[(d, i)] for d in o.difficulties for i in range(self.played[d])
                   if (d, i) in self.experts]
        return thoughtful, experts

    def static_rows(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """The starts' rows with their table costs, and every static task's row; None
        until all of the static part has finished."""
        if len(self.static) < self.n_static:
            return None
        done = [self.static[i] for i in sorted(self.static)]
        starts = [r for t, r in done if isinstance(t, StartsTask)]
        tables = [r for t, r in done if isinstance(t, TableTask)]
        return _with_table_costs(starts, tables), [r for _, r in done]


def run_check(spec: Spec, options: CheckOptions = CheckOptions(), executor: Any = None,
              progress: ProgressFn | None = None, verify_losses: bool = False,
              verify_node_limit: int | None = None, ref: str | None = None) -> CheckReport:
    """Run every check of a spec.  ``executor`` (``rove.executors``) runs the tasks;
    None runs them in this process.  ``progress(group, done, total, note)`` is called as
    tasks finish (:class:`Tally`).  ``ref``: how the designer named the deck (for the
    ``rove tune`` command the verdict gives; the spec's path by default).

    The work goes in order of cost.  First the static part and the expert's games, in
    batches until each difficulty's verdict is clear (``rove.check.verdict``; one batch
    of ``deals`` when that is fixed): a deal the expert wins is won (its plan, replayed
    by the engine, proves it) and needs no search.  Then the thoughtful player's cheap
    rungs on every other deal, then its dear rungs on the deals still undecided.  Each
    rung is bounded by nodes, and every decision is taken on whole batches, so every
    figure is the same on any machine and any number of workers.

    ``verify_losses`` proves every lost deal again with the tables off (``_verify_task``,
    at most ``verify_node_limit`` nodes a deal, the deals' node limit by default).  A lost
    verdict that re-proof contradicts raises SolverBug naming the deals.  Ctrl-C raises
    :class:`CheckInterrupted` with the figures so far."""
    from ..executors import SerialExecutor

    t0 = time.monotonic()
    static, arrangements = static_tasks(spec, options)
    ex = executor if executor is not None else SerialExecutor()
    tally = Tally(options, progress, getattr(ex, "workers", 1))
    run = _Run(spec, options, ex, tally)
    name = ref if ref is not None else str(spec.path)
    try:
        run.expert_rounds(static)
        if "thoughtful" in options.players:
            run.thoughtful()
    except KeyboardInterrupt as exc:
        raise CheckInterrupted(_partial(run, arrangements, t0, name), exc) from None
    ordered, experts = run.ordered()
    got = run.static_rows()
    assert got is not None
    starts, static_rows = got
    report = aggregate(spec, options, arrangements, starts, ordered, experts)
    judge(report, options, experts, name, run.stopped)
    report.reproducibility["loss_verification"] = None
    verified: list[dict[str, Any]] = []
    if verify_losses:
        limit = options.node_limit if verify_node_limit is None else verify_node_limit
        sref = _spec_ref(spec)
        verify: list[Task] = [VerifyTask(sref, r["index"], r["seed"], r["difficulty"], limit, options.time_limit)
                              for r in ordered if r["status"] == "unsolvable"]
        verified = _run_tasks(verify, ex, tally)
        report.reproducibility["loss_verification"] = _verification(verified, limit)
    report.timing = _timing(time.monotonic() - t0, ex, options, static_rows, ordered, experts)
    if verified:
        report.timing["verify_seconds"] = round(sum(r["seconds"] for r in verified), 3)
    return report


def judge(report: CheckReport, options: CheckOptions, experts: list[dict[str, Any]], ref: str,
          stopped: dict[str, str]) -> None:
    """The verdict on the expert's games (``rove.check.verdict``), the static checks the
    measured games contradict said so, and the advice read again to agree with both."""
    report.spec["ref"] = ref
    report.verdict = verdict_section(options, experts, ref, stopped, report.sensitivity)
    report.checks = [contradicted(c, experts) for c in report.checks]
    report.refresh_advice()


def _expert_win(e: dict[str, Any], missions_to_win: int) -> dict[str, Any]:
    """The thoughtful player's row for a deal the expert won: won, with the expert's plan
    figures and ``witness: "expert"``; no rung ran (the replayed win is the proof)."""
    return {"index": e["index"], "seed": e["seed"], "difficulty": e["difficulty"], "status": "solved",
            "witness": "expert", "steps": [], "nodes": 0, "seer_nodes": None, "limit": None,
            "deepest": missions_to_win, "blocker": None, "blocker_source": None,
            **{k: e[k] for k in ("points", "cards", "abilities", "plays", "bonus_plays", "ability_uses")},
            "seconds": 0.0, "cpu_seconds": 0.0}


def _not_played(e: dict[str, Any]) -> dict[str, Any]:
    """A thoughtful row for a deal an interrupted run had not reached: unknown, with
    ``limit: "not_played"`` (no search ran, so no limit was reached)."""
    return {"index": e["index"], "seed": e["seed"], "difficulty": e["difficulty"], "status": "unknown",
            "witness": None, "steps": [], "nodes": 0, "seer_nodes": None, "limit": "not_played",
            "deepest": None, "blocker": None, "blocker_source": None, "points": None, "cards": None,
            "abilities": None, "plays": {}, "bonus_plays": {}, "ability_uses": {},
            "seconds": 0.0, "cpu_seconds": 0.0}


def _partial(run: _Run, arrangements: list[tuple[str, ...]], t0: float, ref: str) -> CheckReport | None:
    """The report of an interrupted run: the deals and games that finished, every
    figure over those alone, the static part only if all of it finished; marked partial
    (``partial`` in the JSON) with what was left.  A deal the expert won counts as won
    for the thoughtful player too (the replayed win proves it), a deal it had not reached
    as ``not played``, one cut off in its dear rungs as ``interrupted``: never a limit
    reached.  None when nothing had finished."""
    o = run.options
    rows = run.rows(partial=True)
    experts = [run.experts[k] for k in sorted(run.experts, key=lambda k: (o.difficulties.index(k[0]), k[1]))]
    if not experts and not rows:
        return None
    got = run.static_rows()
    starts, static_rows = got if got is not None else ([], [])
    if got is None:
        arrangements = []
    if "thoughtful" not in o.players:
        ordered = []
    elif "expert" in o.players:
        # both players' figures over the deals the expert finished, so that the thoughtful
        # rate is never read over the expert's wins alone (which would inflate it)
        limit = o.thoughtful_limit
        ordered = [rows.get((e["difficulty"], e["index"])) or _not_played(e) for e in experts
                   if limit is None or e["index"] < limit]
    else:
        ordered = [rows[k] for k in sorted(rows, key=lambda k: (o.difficulties.index(k[0]), k[1]))]
    report = aggregate(run.spec, o, arrangements, starts, ordered, experts)
    judge(report, o, experts, ref, {d: run.stopped.get(d, "interrupted") for d in o.difficulties})
    report.partial = {"interrupted": True, "static_checks": bool(starts) or not run.n_static,
                      "thoughtful_deals": len(ordered), "expert_games": len(experts),
                      "deals_asked": sum(run.played.values())}
    report.timing = _timing(time.monotonic() - t0, run.ex, o, static_rows, ordered, experts)
    return report


def _with_table_costs(starts: list[dict[str, Any]], tables: list[dict[str, Any]],
                      ) -> list[dict[str, Any]]:
    """The starts' rows with the no-abilities costs the table tasks gave filled in (each
    table task lists its mission's costs in the order of the arrangements)."""
    by_card = {t["card"]: t["rows"] for t in tables}
    for i, s in enumerate(starts):
        for m in s["missions"]:
            if m["no_abilities"] is None:
                m["no_abilities"] = by_card[m["card"]][i]
    return starts


def _deal_name(r: dict[str, Any]) -> str:
    return f"seed {r['seed']} ({r['difficulty']})"


def _verification(verified: list[dict[str, Any]], node_limit: int) -> dict[str, Any]:
    """What ``--verify-losses`` found; SolverBug on any lost deal proved winnable."""
    disagree = [r for r in verified if r["status"] == "solved"]
    if disagree:
        raise SolverBug(f"{len(disagree)} lost deal(s) won by the search with the tables off: "
                        f"{', '.join(_deal_name(r) for r in disagree)}")
    return {"node_limit": node_limit, "lost": len(verified),
            "confirmed": sum(r["status"] == "unsolvable" for r in verified),
            "unknown": sum(r["status"] == "unknown" for r in verified)}


def _run_tasks(tasks: list[Task], ex: Any, tally: Tally,
               sink: Callable[[int, Task, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """The tasks' results in task order, whatever order they finish in; each result is
    told to ``tally`` (the progress display) and to ``sink`` (what a partial report on
    Ctrl-C reads) as it comes."""
    if not tasks:
        return []
    batch = tally.begin(tasks)
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    # a deal or an expert game takes seconds: one task a chunk, so that no worker waits
    # while another runs out a chunk of long games at the end of a batch
    long = any(isinstance(t, LONG_TASKS) for t in tasks)
    for i, res in ex.map_unordered(run_task, tasks, 1 if long else None):
        results[i] = res
        tally.task_done(batch, tasks[i], res)
        if sink is not None:
            sink(i, tasks[i], res)
    out = [r for r in results if r is not None]
    assert len(out) == len(tasks)
    return out


def _timing(seconds: float, ex: Any, options: CheckOptions, starts: list[dict[str, Any]],
            deals: list[dict[str, Any]], experts: list[dict[str, Any]]) -> dict[str, Any]:
    """Where the time went (kept apart from the figures: it varies from run to run)."""
    timing: dict[str, Any] = {
        "seconds_total": round(seconds, 3),
        "executor": getattr(ex, "name", type(ex).__name__),
        "workers": getattr(ex, "workers", 1),
        "starts_seconds": round(sum(r["seconds"] for r in starts), 3),
        "deal_seconds": {d: round(sum(r["seconds"] for r in deals if r["difficulty"] == d), 3)
                         for d in options.difficulties},
        "deal_seconds_max": round(max((r["seconds"] for r in deals), default=0.0), 3),
    }
    if experts:
        timing["expert_seconds"] = {
            d: round(sum(r["seconds"] for r in experts if r["difficulty"] == d), 3)
            for d in options.difficulties}
        timing["expert_seconds_max"] = round(max(r["seconds"] for r in experts), 3)
    return timing
