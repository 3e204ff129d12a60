"""Running a check: the worker tasks (small picklable tuples naming a spec file, each
giving a small dict of plain values) and the run that plans them, maps them over an
executor and gathers their results by task index."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import SolverBug
from ..generators.deals import deal, start_layout
from ..spec import Spec, load_spec
from .options import BARE_BUDGET, CheckOptions, deal_seed, start_arrangements
from .report import CheckReport, aggregate

ProgressFn = Callable[[str, int, int], None]

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


Task = tuple[Any, ...]
"""One unit of work for an executor: its kind ("table", "starts", "deal", "expert" or
"verify"), then the
arguments of the function that runs it (plain values, so that it pickles)."""


def run_task(task: Task) -> dict[str, Any]:
    """Run one task in whatever process it lands in (pure: same task, same result,
    apart from ``seconds``)."""
    kind = task[0]
    if kind == "deal":
        return _deal_task(*task[1:])
    if kind == "starts":
        return _starts_task(*task[1:])
    if kind == "expert":
        return _expert_task(*task[1:])
    if kind == "verify":
        return _verify_task(*task[1:])
    if kind == "table":
        return _table_task(*task[1:])
    raise ValueError(f"unknown task kind {kind!r}")


def _limit_hit(status: str, nodes: int, node_limit: int) -> str | None:
    if status != "unknown":
        return None
    return "nodes" if nodes >= node_limit else "time"


def _deal_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
               node_limit: int, time_limit: float | None, seer_node_limit: int = 0) -> dict[str, Any]:
    """One deal decided by the thoughtful player: the exact search, then on a deal it
    leaves at its node limit the seer (``rove.solve.seer``), whose win, replayed by the
    engine like every plan, decides it (``witness``)."""
    from ..solve.search import solve

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    r = solve(pos, time_limit=time_limit, max_nodes=node_limit, seer_nodes=seer_node_limit)
    seer = r.stats.get("seer")
    seer_nodes = seer["nodes"] if isinstance(seer, dict) else None  # None: the seer did not run
    search_nodes = r.nodes - (seer_nodes or 0)
    out: dict[str, Any] = {
        "index": index, "seed": seed, "difficulty": difficulty, "status": r.status,
        "nodes": search_nodes,
        "limit": "nodes" if seer_nodes is not None else _limit_hit(r.status, search_nodes, node_limit),
        "seer_nodes": seer_nodes,
        "witness": r.stats.get("witness"),
        "deepest": None, "blocker": None, "blocker_source": None,
        "points": r.points, "cards": r.cards, "abilities": r.abilities,
        "plays": {}, "bonus_plays": {}, "ability_uses": {},
    }
    if r.status == "solved":
        out["deepest"] = spec.missions_to_win
        out["plays"], out["bonus_plays"], out["ability_uses"] = _plan_counts(r.plan or ())
    else:
        stats = r.stats or {}
        d = stats.get("deepest_done")
        out["deepest"] = d if isinstance(d, int) and d >= 0 else None
        if r.status == "unsolvable" and isinstance(stats.get("deepest_mission"), str):
            out["blocker"], out["blocker_source"] = stats["deepest_mission"], "solver"
    out["seconds"] = time.monotonic() - t0
    return out


def _verify_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
                 node_limit: int, time_limit: float | None) -> dict[str, Any]:
    """One lost deal proved again by another search: the core's reference algorithm (the
    one the pure-Python search runs), without the distance tables nor the lost tables'
    dominance cuts, so that a wrong cut in either shows as a disagreement.  Slower, so a
    re-proof that reaches its node limit is ``unknown`` (not a disagreement); a win it
    finds is replayed through the engine before it is believed."""
    from ..engine import Deck, state_from_position
    from ..replay import verify_plan
    from ..solve import core
    from ..solve.nodes import Budget, Limit
    from ..solve.winnable import solve_game_python

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = Deck(spec, pos.rules)
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
    from ..engine import Deck, state_from_position
    from ..replay import states_along, verify_plan
    from ..solve.expert import play

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = Deck(spec, pos.rules)
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
    from ..engine import Deck

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    deck = Deck(spec)  # the start positions play under the default rules
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


#: the most modules the core's distance tables hold
TABLE_MODULES = 6


def _tables_apply(spec: Spec) -> bool:
    """Whether the no-abilities costs come from distance tables: the core is built and
    on, the tables are not switched off (``ROVE_TABLES=0``), and the deck is small
    enough for them."""
    from ..engine import Deck
    from ..solve import core

    return (2 <= len(spec.modules) <= TABLE_MODULES and core.available(Deck(spec))
            and core.tables_after() != 0)


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


def plan_tasks(spec: Spec, options: CheckOptions) -> tuple[list[Task], list[tuple[str, ...]]]:
    """The task list of a run: the start arrangements, with the no-abilities costs' tasks
    among them (one a mission, when the distance tables may give those costs), then the
    thoughtful deals by difficulty, then the expert's (the same deals).

    A task names the spec by absolute path (workers load it once, and check its
    fingerprint), so every worker must see the file at that path."""
    if spec.path is None:
        raise ValueError("run_check needs a spec loaded from a file (spec.path)")
    path = str(Path(spec.path).resolve())
    fp = spec_fingerprint(spec)
    arrangements = start_arrangements(spec, options.starts, options.seed)
    tables = bool(arrangements) and _tables_apply(spec)
    table_tasks: list[Task] = [("table", path, fp, card.id, arrangements, options.mission_node_limit,
                                options.time_limit) for card in spec.cards] if tables else []
    # the table tasks spread among the starts, so that every worker builds some tables
    step = max(1, len(arrangements) // max(1, len(table_tasks)))
    tasks: list[Task] = []
    for i, arr in enumerate(arrangements):
        if i % step == 0 and table_tasks:
            tasks.append(table_tasks.pop(0))
        tasks.append(("starts", path, fp, i, arr, options.mission_node_limit, options.time_limit, tables))
    tasks += table_tasks
    if "thoughtful" in options.players:
        for diff in options.difficulties:
            for i in range(options.deals):
                tasks.append(("deal", path, fp, i, deal_seed(options.seed, i), diff,
                              options.node_limit, options.time_limit, options.seer_node_limit))
    if "expert" in options.players:
        for diff in options.difficulties:
            for i in range(options.deals):
                tasks.append(("expert", path, fp, i, deal_seed(options.seed, i), diff,
                              options.expert_node_limit))
    return tasks, arrangements


def run_check(spec: Spec, options: CheckOptions = CheckOptions(), executor: Any = None,
              progress: ProgressFn | None = None, verify_losses: bool = False,
              verify_node_limit: int | None = None) -> CheckReport:
    """Run every check of a spec.  ``executor`` (``rove.executors``) runs the tasks;
    None runs them in this process.  ``progress(group, done, total)`` is called as tasks
    finish, group being ``"starts"``, a difficulty or ``"verify losses"``.

    ``verify_losses`` proves every lost deal again with the tables off (``_verify_task``,
    at most ``verify_node_limit`` nodes a deal, the deals' node limit by default).  A lost
    verdict that re-proof contradicts, or one on a deal the expert won (its win, replayed
    by the engine, proves the deal winnable), raises SolverBug naming the deals."""
    from ..executors import SerialExecutor

    t0 = time.monotonic()
    tasks, arrangements = plan_tasks(spec, options)
    ex = executor if executor is not None else SerialExecutor()
    results = _run_tasks(tasks, ex, progress)
    kinds = [t[0] for t in tasks]
    starts = _with_table_costs([r for r, k in zip(results, kinds) if k == "starts"],
                               [r for r, k in zip(results, kinds) if k == "table"])
    deals = [r for r, k in zip(results, kinds) if k == "deal"]
    experts = [r for r, k in zip(results, kinds) if k == "expert"]
    _apply_expert_wins(deals, experts, spec.missions_to_win)
    report = aggregate(spec, options, arrangements, starts, deals, experts)
    report.reproducibility["loss_verification"] = None
    verified: list[dict[str, Any]] = []
    if verify_losses:
        limit = options.node_limit if verify_node_limit is None else verify_node_limit
        lost = [t for t, r in zip(tasks, results) if t[0] == "deal" and r["status"] == "unsolvable"]
        verify = [("verify", *t[1:6], limit, options.time_limit) for t in lost]
        verified = _run_tasks(verify, ex, progress)
        report.reproducibility["loss_verification"] = _verification(verified, limit)
    report.timing = _timing(time.monotonic() - t0, ex, options,
                            [r for r, k in zip(results, kinds) if k in ("starts", "table")],
                            deals, experts)
    if verified:
        report.timing["verify_seconds"] = round(sum(r["seconds"] for r in verified), 3)
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


def _apply_expert_wins(deals: list[dict[str, Any]], experts: list[dict[str, Any]],
                       missions_to_win: int) -> None:
    """What the expert's wins prove about the thoughtful player's deals.  A deal the
    expert won is winnable: its plan was replayed by the engine (``_expert_task``), and a
    win needs no more proof than one legal plan.  So

    * the thoughtful solver reporting such a deal lost is a bug in a cut of that solver
      (SolverBug naming the deals);
    * a deal the thoughtful search left unknown (its node or time limit) becomes
      ``solved`` with the expert's plan figures and ``witness: "expert"``; the search's
      own nodes and limit stay, so the report still says how far the search got.

    Every deal keeps the ``witness`` its task gave it (``"search"`` when the exact search
    decided it, ``"seer"`` for the seer's win, None while unknown); an unsolvable deal's
    is ``"search"``."""
    won = {(r["difficulty"], r["index"]): r for r in experts if r["status"] == "won"}
    wrong = [r for r in deals if r["status"] == "unsolvable" and (r["difficulty"], r["index"]) in won]
    if wrong:
        raise SolverBug(f"the expert won {len(wrong)} deal(s) the thoughtful solver reported "
                        f"lost: {', '.join(_deal_name(r) for r in wrong)}")
    for r in deals:
        e = won.get((r["difficulty"], r["index"]))
        if r["status"] == "unknown" and e is not None:
            r.update(status="solved", witness="expert", deepest=missions_to_win,
                     **{k: e[k] for k in ("points", "cards", "abilities", "plays", "bonus_plays",
                                          "ability_uses")})
        elif r["status"] == "unsolvable":
            r["witness"] = "search"


def _verification(verified: list[dict[str, Any]], node_limit: int) -> dict[str, Any]:
    """What ``--verify-losses`` found; SolverBug on any lost deal proved winnable."""
    disagree = [r for r in verified if r["status"] == "solved"]
    if disagree:
        raise SolverBug(f"{len(disagree)} lost deal(s) won by the search with the tables off: "
                        f"{', '.join(_deal_name(r) for r in disagree)}")
    return {"node_limit": node_limit, "lost": len(verified),
            "confirmed": sum(r["status"] == "unsolvable" for r in verified),
            "unknown": sum(r["status"] == "unknown" for r in verified)}


def _run_tasks(tasks: list[Task], ex: Any, progress: ProgressFn | None) -> list[dict[str, Any]]:
    """The tasks' results in task order, whatever order they finish in; progress by group
    (``"tables"``, ``"starts"``, a difficulty, or a difficulty and ``" expert"``)."""
    groups = [t[0] if t[0] == "starts" else "tables" if t[0] == "table" else t[5] if t[0] == "deal" else
              "verify losses" if t[0] == "verify" else f"{t[5]} expert" for t in tasks]
    totals: dict[str, int] = {}
    for g in groups:
        totals[g] = totals.get(g, 0) + 1
    done_count = dict.fromkeys(totals, 0)
    if progress:
        for g, n in totals.items():
            progress(g, 0, n)
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    for i, res in ex.map_unordered(run_task, tasks):
        results[i] = res
        g = groups[i]
        done_count[g] += 1
        if progress:
            progress(g, done_count[g], totals[g])
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
