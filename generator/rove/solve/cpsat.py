"""The CP-SAT engine: ROVE positions solved by the OR-Tools model of ``cpsat_model``.

``solve(pos, time_limit, optimal)`` answers like the search engine (``SolveResult``,
engine ``cpsat``): ``solved`` with a plan replayed by the rules engine, ``unsolvable``
only when the model is infeasible over a horizon proven long enough, ``unknown``
otherwise (with the reason).  OR-Tools is imported here, never at ``import rove``.

Horizon (why INFEASIBLE is a proof)
===================================
For ``goal: mission`` a plan is moves, plays and ability uses, in any order:

* abilities: each use flips a distinct module, so at most the number of modules that
  are active at the start, less the Sensors when no card is within reach (their use
  would only flip them, a no-op the model drops, see ``_useful_flips``);
* plays: each play takes a card from the hand, and the hand only gains cards by Sensor
  draws (own or via Gripper, each a flip), so at most ``|hand| + D`` with ``D`` those
  draw-capable flips (0 with no card within reach: nothing to draw);
* moves: each costs a point; points come from the start's budget and from plays, so at
  most ``budget + sum of the bonus points of the cards that can be played`` (a card can
  be played again only by being discarded and drawn back, which the queue's slots bound).

The horizon is the sum of the three, and no-op steps (a suffix) make one model hold
every shorter plan.  The move bound is made small by iterative deepening on the move
budget ``p = 0, 1, ...``: the first feasible ``p`` is the optimal point count, and all
of them infeasible up to the sum proves the mission impossible.  The search engine's
plan, when asked for (``hint``), is an upper bound the model must beat: with ``U`` its
points, the model proves that no plan of at most ``U`` moves costs less than it (for
most plans in two proofs, budget ``U - 1`` infeasible first), and follows it to give its
own plan (``_move_budgets``, ``_confirm``).  Every claim is still the model's own proof,
so the engines stay independent; a plan that is not optimal is beaten, never believed.
For ``goal: game`` the same counts apply over the whole game, with takes also from
reveals and post-completion draws (one each per mission left).

Objective: ``points * W1 + cards * W2 + abilities`` with ``W2`` > any ability count and
``W1`` > any weighted card count, i.e. lexicographic (points, cards, abilities), the
order the search engine uses.  Parameters: ``num_workers=2`` (the machines this runs
on), ``max_time_in_seconds`` from the time limit, a fixed ``random_seed``.

Reproducible budgets
====================
A wall-clock limit stops the solver wherever it has got to on that machine under that
load, so the same call can answer ``unknown`` on a busy machine and prove the answer on an
idle one.  ``solve(..., deterministic_time=T)`` instead bounds the work: CP-SAT's
``max_deterministic_time`` (a weighted count of its operations, one unit meant to be
about a second) over all its calls for the position, and the search hint gets a node
budget (``hint_nodes``, default ``HINT_NODES``) instead of a share of the clock.  With it
the engine runs one worker unless ``workers`` says otherwise: one worker with a fixed
``random_seed`` follows one search path, so the verdict is the same on any machine; with
more workers CP-SAT's threads race and only a proof (OPTIMAL or INFEASIBLE) is
reproducible.  Without ``deterministic_time`` and ``workers`` nothing changes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Final, Protocol

from ..actions import Action
from ..engine import (
    GOAL,
    LOST,
    WON,
    Deck,
    IllegalAction,
    State,
    apply,
    deck_for,
    sensor_draws_left,
    state_from_position,
)
from ..errors import SolverBug
from ..outputs import interrupts_held
from ..position import Position
from ..replay import states_along, verify_plan
from .result import SOLVED, UNKNOWN, UNSOLVABLE, Engine, SolveResult, Status, plan_cost

ENGINE: Final[Engine] = "cpsat"


class _Answer(Protocol):
    """How the two halves of a solve report: a checked :class:`SolveResult` from a status,
    a plan (replayed before it is returned) and the rest (``solve_cpsat``'s ``result``)."""

    def __call__(self, status: Status, plan: list[Action] | None = None, is_optimal: bool = False,
                 reason: str = "", stats: dict[str, Any] | None = None) -> SolveResult: ...
SEED = 20240605
WORKERS = 2
SUBSOLVERS = ("no_lp", "objective_lb_search_no_lp")
#: share of the time limit the search hint may use, and its cap in seconds
HINT_SHARE, HINT_CAP = 0.25, 30.0
#: nodes the search hint may expand when the solve has a deterministic budget
HINT_NODES = 20_000
#: horizons above this are refused as too large to be useful
MAX_HORIZON = 60
#: deterministic time for the model to follow a plan it has proven optimal (all its
#: actions fixed: propagation, well under one unit)
CONFIRM_DTIME = 10.0


@dataclass(frozen=True)
class Bounds:
    """What the horizon is made of (see the module docstring)."""

    moves: int
    plays: int
    abilities: int
    takes: int
    universe: tuple[int, ...]

    @property
    def horizon(self) -> int:
        return self.moves + self.plays + self.abilities


def _useful_flips(deck: Deck, s: State, cardless: bool) -> int:
    """Active modules whose use can change something, an upper bound on the ability uses
    of an optimal plan.

    Every active module counts but a Sensor when no card is within reach (``cardless``):
    its draw then takes nothing, so its use only flips it, which changes nothing unless
    its spent side has other arrows or a revealed mission waits for any action
    (``auto_complete_on_reveal: false``).  The model drops such uses (as the search
    engine does), so they need no step of the horizon."""
    out = 0
    for i in range(deck.n):
        if s.spent >> i & 1:
            continue
        mod = deck.modules[i]
        if (cardless and mod.ability == "sensor" and not mod.flip_matters
                and deck.rules.auto_complete_on_reveal):
            continue
        out += 1
    return out


def mission_bounds(deck: Deck, s: State) -> Bounds:
    """Upper bounds on the moves, plays and abilities of any plan for the mission.

    With no card within reach (no hand, no current card, empty piles: a bare budget)
    nothing can be drawn or played, so plays and takes are 0, not one per draw flip."""
    takes = sensor_draws_left(deck, s.spent)
    known = s.draw + s.discard
    drawable = known[:takes]
    slots = max(0, takes - len(known))
    universe = set(s.hand) | set(drawable)
    if slots and s.card >= 0:
        universe.add(s.card)
    cardless = not universe
    if cardless:
        takes = 0
    top = max((deck.bonus[c] for c in universe), default=0)
    moves = s.points + sum(deck.bonus[c] for c in set(s.hand) | set(drawable)) + slots * top
    abilities = _useful_flips(deck, s, cardless)
    return Bounds(moves, len(s.hand) + takes, abilities, takes, tuple(sorted(universe)))


def _search_hint(pos: Position, seconds: float | None, nodes: int | None = None,
                 ) -> tuple[list[Action] | None, bool]:
    """A plan from the search engine within ``seconds`` and ``nodes`` (None: no such
    limit), or None if none, and whether the search proved the mission impossible."""
    from .search import solve as solve_search

    r = solve_search(pos, time_limit=seconds, max_nodes=nodes)
    if r.status == SOLVED and r.plan is not None:
        return list(r.plan), False
    return None, r.status == UNSOLVABLE


def _cut_at_goal(deck: Deck, start: State, plan: list[Action]) -> list[Action]:
    """The plan up to the first action after which the goal is reached.

    A model plan may pass through a matching layout before its last step; the rules end
    the mission there, and the prefix costs no more."""
    s = start
    for i, a in enumerate(plan):
        try:
            s = apply(deck, s, a)
        except IllegalAction as exc:
            raise SolverBug(f"cpsat model bug: step {i} ({a}) is illegal: {exc}") from None
        if s.status in (GOAL, WON):
            return plan[:i + 1]
    return plan


def solve_cpsat(pos: Position, time_limit: float | None = None, optimal: bool = False, *,
          hint: bool = True, seed: int = SEED, log: bool = False,
          deterministic_time: float | None = None, workers: int | None = None,
          hint_nodes: int | None = None) -> SolveResult:
    """Solve a position with the CP-SAT model; the plan is replayed before returning.

    ``hint``: first give the search engine a short slice and use its plan as the model's
    solution hint (only a hint: every claim is the model's own proof), and as the answer,
    not proven optimal, when the budget runs out before the model proves one.
    For ``goal: mission`` the answer is optimal when CP-SAT proves it; ``optimal`` matters
    for ``goal: game`` only (then the fewest points are sought, as with the search engine).

    ``deterministic_time``: a budget in CP-SAT's deterministic time for the whole solve
    (see "Reproducible budgets" in the module docstring); the hint search then stops
    after ``hint_nodes`` nodes (default ``HINT_NODES``) rather than after a share of the
    clock.  ``workers``: CP-SAT's ``num_workers`` (default ``WORKERS``, or 1 with a
    deterministic budget).  ``time_limit`` still applies when given with them, and a run
    it cuts short is not reproducible.
    """
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if deterministic_time is not None and deterministic_time < 0:
        raise ValueError(f"deterministic_time must not be negative, not {deterministic_time}")
    budget = _Budget(time_limit, deterministic_time,
                     workers if workers is not None else 1 if deterministic_time is not None
                     else WORKERS)
    t0 = budget.t0
    deck = deck_for(pos.spec, pos.rules)
    start = state_from_position(deck, pos)
    rules = pos.rules.to_dict()

    def result(status: Status, plan: list[Action] | None = None, is_optimal: bool = False,
               reason: str = "", stats: dict[str, Any] | None = None) -> SolveResult:
        if plan is not None:
            verify_plan(pos, plan, deck)
            points, cards, abilities = plan_cost(plan)
            return SolveResult(status, ENGINE, pos.goal, is_optimal, tuple(plan), points, cards,
                               time.monotonic() - t0, rules, abilities=abilities, reason=reason,
                               stats=stats or {})
        return SolveResult(status, ENGINE, pos.goal, False, None, None, None,
                           time.monotonic() - t0, rules, reason=reason, stats=stats or {})

    if start.status in (GOAL, WON):
        return result(SOLVED, [], True)
    if start.status == LOST:
        return result(UNSOLVABLE, reason="the position is already lost")
    if deck.n < 2:
        return result(UNKNOWN, reason="the CP-SAT model needs at least two modules")
    if pos.goal == "mission":
        return _solve_mission(pos, deck, start, budget, hint, hint_nodes, seed, log, result)
    return _solve_game(pos, deck, start, budget, optimal, seed, log, result)


class _Budget:
    """The limits of one solve: wall-clock seconds and CP-SAT deterministic time (None:
    no such limit), and the CP-SAT workers."""

    def __init__(self, time_limit: float | None, deterministic_time: float | None,
                 workers: int) -> None:
        self.t0 = time.monotonic()
        self.time_limit = time_limit
        self.deterministic_time = deterministic_time
        self.workers = workers
        self.dtime_spent = 0.0

    def seconds_left(self) -> float | None:
        if self.time_limit is None:
            return None
        return max(0.01, self.time_limit - (time.monotonic() - self.t0))

    def dtime_left(self) -> float | None:
        if self.deterministic_time is None:
            return None
        return max(0.0, self.deterministic_time - self.dtime_spent)

    def reached(self) -> bool:
        """Whether a limit is used up (checked before each CP-SAT call)."""
        if self.time_limit is not None and time.monotonic() - self.t0 >= self.time_limit:
            return True
        return self.deterministic_time is not None and self.dtime_spent >= self.deterministic_time

    @property
    def limit(self) -> str:
        """The limit that can have stopped the solve, for the reasons given."""
        if self.deterministic_time is None:
            return "time limit"
        if self.time_limit is None:
            return "deterministic time budget"
        return "time limit or deterministic time budget"


def solve_interruptibly(solver: Any, model: Any) -> Any:
    """``solver.solve(model)`` in a worker thread, so that Ctrl-C stops it at once.

    CP-SAT is told not to catch SIGINT itself (``catch_sigint_signal``), but Python runs
    its handler only between bytecodes of the main thread, which would wait for the solve
    to return; here the main thread waits in short waits, and a KeyboardInterrupt (or
    ``Terminated``) stops the search before it is raised again.

    The process must never exit while CP-SAT's thread runs: it then aborts ("terminate
    called without an active exception") instead of exiting 130.  So:

    * the thread is started with the stop signals held off (``interrupts_held``): a
      Ctrl-C that lands while ``Thread.start`` waits for the thread is raised once the
      thread runs, where it is handled, instead of from inside ``start`` with a thread
      nobody waits for;
    * once interrupted, the main thread asks CP-SAT to stop until the thread is done (a
      stop asked before the solve has begun is lost: ``CpSolver.stop_search`` needs the
      running solve), riding out any further Ctrl-C, and only then raises the first."""
    import threading

    got: list[Any] = []
    errors: list[BaseException] = []
    finished = threading.Event()  # not Thread.join: an interrupted join can mark a live thread stopped

    def work() -> None:
        try:
            got.append(solver.solve(model))
        except BaseException as exc:  # handed to the main thread
            errors.append(exc)
        finally:
            finished.set()

    thread = threading.Thread(target=work, name="cp-sat", daemon=True)
    started = False
    try:
        with interrupts_held():
            thread.start()
            started = True
        while not finished.wait(0.05):
            pass
    except KeyboardInterrupt:
        if started:
            _stop_until_finished(solver, finished)
        raise
    if errors:
        raise errors[0]
    return got[0]


def _stop_until_finished(solver: Any, finished: Any) -> None:
    """Ask CP-SAT to stop until its thread has finished, whatever stop signals come."""
    while True:
        try:
            solver.stop_search()
            if finished.wait(0.05):
                return
        except KeyboardInterrupt:
            continue


def _run(model: Any, budget: _Budget, seed: int, log: bool) -> tuple[Any, Any]:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    p = solver.parameters
    p.num_workers = budget.workers
    p.random_seed = seed
    p.catch_sigint_signal = False  # Ctrl-C reaches Python, which stops the run (exit 130)
    # Planning models are proof-bound clause problems: the LP relaxation of the one-hot
    # layout is weak and slow, so both workers run without it, one improving solutions
    # and one raising the objective's lower bound.  LNS and feasibility jump find
    # nothing here that the hint does not already give; probing costs more than it
    # saves at these sizes.
    p.subsolvers.extend(SUBSOLVERS)
    p.use_lns = False
    p.use_feasibility_jump = False
    p.cp_model_probing_level = 0
    seconds, dtime = budget.seconds_left(), budget.dtime_left()
    if seconds is not None:
        p.max_time_in_seconds = seconds
    if dtime is not None:
        p.max_deterministic_time = dtime
    p.log_search_progress = log
    status = solve_interruptibly(solver, model.m)
    budget.dtime_spent += solver.deterministic_time
    return solver, status


def _solve_mission(pos: Position, deck: Deck, start: State, budget: _Budget, hint: bool,
                   hint_nodes: int | None, seed: int, log: bool, result: _Answer) -> SolveResult:
    """Optimal plan for the mission, by deepening on the move budget: the model for
    budget ``p`` admits every plan with at most ``p`` moves (horizon ``p`` + plays +
    abilities), so an INFEASIBLE one proves every budget up to ``p`` infeasible and the
    next model may require ``p + 1`` moves or more; an OPTIMAL one is the true optimum
    (more moves cost more points); when every ``p`` up to the points obtainable is
    infeasible, no plan exists.

    The search engine's plan (``hint``), of ``U`` points, picks the budgets
    (``_move_budgets``: ``U - 1`` or ``U`` first) and, in the models it fits, is the cost
    to beat (``cost <= cost(plan) - 1``): their INFEASIBLE proves it optimal, and the
    model then follows it (``_confirm``).  That is one or two proofs instead of one per
    budget from 0 and a minimisation that proves the lower bound again (on the book's
    Mission in N puzzles the minimisation was most of the work).  The hint is never
    believed: a plan that is not optimal is beaten by the model, every claim is the
    model's own proof, and the two engines stay independent.  It is also the answer
    handed back, marked not optimal, when the budget runs out first.  (Measured on
    bare-budget puzzles: one model with the whole move budget is 1.3x faster on
    impossible puzzles but up to 100x slower where the optimum is small, since it must
    prove a lower bound over a long horizon.)
    """
    from ortools.sat.python import cp_model

    bounds = mission_bounds(deck, start)
    known: list[Action] | None = None
    hint_seconds = 0.0
    if hint:
        time_limit = budget.time_limit
        slice_: float | None = min(HINT_CAP, HINT_SHARE * time_limit) if time_limit else HINT_CAP
        nodes = hint_nodes
        if budget.deterministic_time is not None:
            # a reproducible solve: nodes bound the hint, the clock only when it is given
            slice_ = min(HINT_CAP, HINT_SHARE * time_limit) if time_limit is not None else None
            nodes = HINT_NODES if hint_nodes is None else hint_nodes
        t_hint = time.monotonic()
        known, _ = _search_hint(pos, slice_, nodes)
        hint_seconds = time.monotonic() - t_hint
    budgets = _move_budgets(bounds.moves, plan_cost(known) if known is not None else None)
    floor = 0  # every plan has at least this many moves (proven by an infeasible model)
    stats: dict[str, Any] = {"hint_seconds": hint_seconds, "bounds": {
        "moves": bounds.moves, "plays": bounds.plays, "abilities": bounds.abilities,
        "takes": bounds.takes}, "move_budgets": [], "cpsat_seconds": 0.0}
    for moves in budgets:
        horizon = moves + bounds.plays + bounds.abilities
        stats["horizon"] = horizon
        if horizon == 0:
            continue  # no action at all: nothing completes the mission (it did not match)
        if budget.reached():
            if known is not None:
                return result(SOLVED, known, False, f"{budget.limit} reached; plan from the "
                              "search hint, not proven optimal", stats)
            return result(UNKNOWN, reason=f"{budget.limit} reached (no plan has fewer than "
                          f"{moves} points)", stats=stats)
        if horizon > MAX_HORIZON:
            if known is not None:
                return result(SOLVED, known, False, f"horizon {horizon} is too large for the model; "
                              "plan from the search hint, not proven optimal", stats)
            return result(UNKNOWN, reason=f"horizon {horizon} is too large for the model", stats=stats)
        model_args = _MissionModel(horizon, bounds, moves, floor)
        model = model_args.build(deck, start)
        beat = known is not None and plan_cost(known)[0] <= moves
        if known is not None and beat:
            # only plans that cost less than the known one: INFEASIBLE proves it optimal
            model.m.add(model.cost <= _weighted(model, known) - 1)
        stats["model"] = {"variables": len(model.m.proto.variables),
                          "constraints": len(model.m.proto.constraints)}
        solver, status = _run(model, budget, seed, log)
        stats["status"] = solver.status_name(status)
        stats["cpsat_seconds"] += solver.wall_time
        stats["cpsat_dtime"] = budget.dtime_spent
        stats["move_budgets"].append(moves)
        if status == cp_model.OPTIMAL:
            plan = _cut_at_goal(deck, start, model.decode(solver))
            return result(SOLVED, plan, True, stats=stats)
        if status == cp_model.INFEASIBLE:
            if beat:
                assert known is not None
                plan = _confirm(deck, start, known, model_args, budget, seed, log, stats)
                return result(SOLVED, plan, True, stats=stats)
            floor = moves + 1
            continue
        if known is not None and not (beat and status == cp_model.FEASIBLE):
            return result(SOLVED, known, False, f"{budget.limit} reached; plan from the search "
                          "hint, not proven optimal", stats)
        if status == cp_model.FEASIBLE:  # with ``beat``: cheaper than the hint's
            plan = _cut_at_goal(deck, start, model.decode(solver))
            return result(SOLVED, plan, False, f"{budget.limit} reached; plan not proven "
                          "optimal", stats)
        return result(UNKNOWN, reason=f"{budget.limit} reached", stats=stats)
    return result(UNSOLVABLE, reason="" if stats["move_budgets"] else "no action is possible",
                  stats=stats)


@dataclass(frozen=True)
class _MissionModel:
    """One model of ``_solve_mission``: horizon, plans of ``floor..moves`` moves."""

    horizon: int
    bounds: Bounds
    moves: int
    floor: int

    def build(self, deck: Deck, start: State) -> Any:
        from .cpsat_model import RoveModel

        model = RoveModel(deck, start, self.horizon, goal="mission", universe=self.bounds.universe,
                          max_takes=self.bounds.takes,
                          noop_abilities=not deck.rules.auto_complete_on_reveal, min_actions=1)
        model.m.add(model.n_moves <= self.moves)
        if self.floor:
            # every plan with fewer moves was proven impossible by an earlier model
            model.m.add(model.n_moves >= self.floor)
        return model


def _weighted(model: Any, plan: list[Action]) -> int:
    """A plan's cost in the model's objective weights."""
    points, cards, abilities = plan_cost(plan)
    return int(model.w_point * points + model.w_card * cards + model.w_ability * abilities)


def _confirm(deck: Deck, start: State, known: list[Action], spec: _MissionModel, budget: _Budget,
             seed: int, log: bool, stats: dict[str, Any]) -> list[Action]:
    """The plan of the model that follows ``known``, once the model has proven that no
    plan costs less: the model must admit a plan the rules engine has replayed (else it
    is wrong, and so could be its proof).  The plan is the model's own, decoded and cut
    at the goal like any other (a Coil use may land elsewhere for the same cost).

    Every action is fixed, so propagation alone finds it; it gets its own deterministic
    budget (``CONFIRM_DTIME``) rather than what is left of the solve's."""
    from ortools.sat.python import cp_model

    model = spec.build(deck, start)
    model.follow(known, states_along(deck, start, known))
    solver, status = _run(model, _Budget(None, CONFIRM_DTIME, budget.workers), seed, log)
    stats["confirm_seconds"] = solver.wall_time
    stats["cpsat_seconds"] += solver.wall_time
    stats["cpsat_dtime"] = stats.get("cpsat_dtime", 0.0) + solver.deterministic_time
    stats["confirm_status"] = solver.status_name(status)
    stats["status"] = "OPTIMAL"  # proven by the INFEASIBLE model of cheaper plans
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise SolverBug(f"cpsat model bug: the model rejects a replayed plan ({solver.status_name(status)})")
    plan = _cut_at_goal(deck, start, model.decode(solver))
    if plan_cost(plan) != plan_cost(known):
        raise SolverBug(f"cpsat model bug: following a plan of cost {plan_cost(known)} "
                        f"gave one of cost {plan_cost(plan)}")
    return plan


def _move_budgets(most: int, known: tuple[int, int, int] | None) -> list[int]:
    """The move budgets ``p`` that ``_solve_mission`` tries, in order, up to ``most``.

    Without a known plan: ``0, 1, 2, ...``.  With one of cost ``known`` (``U`` points):
    ``U - 1`` first, then ``U, U + 1, ...``, or ``U`` first when the plan plays no card
    and uses two abilities or more.  A model of budget ``p`` holds every plan of at most
    ``p`` moves, so its INFEASIBLE proves every smaller budget infeasible too: the small
    budgets need no model of their own.  After ``U - 1``, the model of budget ``U`` may
    require ``U`` moves, and with the known cost to beat it asks only whether a plan of
    ``U`` moves plays fewer cards or uses fewer abilities.  When the plan's only spare is
    two uses or more, that question is as hard as the first, and one model of budget
    ``U`` with the cost to beat asks both at once and learns once what the two would each
    learn (less work on most of the book's Mission in N puzzles with two to four uses).
    With one use (the second question is then whether ``U`` moves alone do it) or a card
    to spare (whether ``U`` moves do it without that card) ``U - 1`` first is cheaper:
    on a plan of five moves and one use, and on the card puzzles of ``bench/cpsat.py
    --keep-hand``, one model took up to twice the work of the two (figures in
    docs/internals/cpsat.md).  An OPTIMAL model is the true optimum whatever budget it
    had (a plan with more moves costs more points), so a known plan that is not optimal
    only costs the first model an optimisation instead of a proof."""
    if known is None or known[0] > most:
        return list(range(most + 1))
    upper, cards, abilities = known
    if upper < 1:
        return list(range(most + 1))
    if not cards and abilities >= 2:
        return list(range(upper, most + 1))
    return [upper - 1, *range(upper, most + 1)]


def game_bounds(deck: Deck, s: State) -> Bounds:
    """Upper bounds for a whole game: ``R`` missions left, each completion but the last
    reveals a mission and draws a card (two takes), Sensor flips take one each."""
    left = deck.missions_to_win - s.done
    flips = sensor_draws_left(deck, s.spent)
    takes = flips + 2 * max(0, left - 1)
    known = s.draw + s.discard
    slots = max(0, takes - len(known))
    universe = set(s.hand) | set(known)
    if s.card >= 0:
        universe.add(s.card)
    plays = len(s.hand) + flips + max(0, left - 1)
    bonuses = sorted((deck.bonus[c] for c in universe), reverse=True)
    if slots:
        moves = s.points + plays * (bonuses[0] if bonuses else 0)
    else:
        moves = s.points + sum(bonuses[:plays])
    abilities = sum(1 for i in range(deck.n) if not s.spent >> i & 1)
    return Bounds(moves, plays, abilities, takes, tuple(sorted(universe)))


def _solve_game(pos: Position, deck: Deck, start: State, budget: _Budget, optimal: bool,
                seed: int, log: bool, result: _Answer) -> SolveResult:
    """A whole game over a horizon that holds every winning plan, so INFEASIBLE proves the
    deal unwinnable.  Practical only for small custom specs (few modules and cards)."""
    from ortools.sat.python import cp_model

    from .cpsat_model import RoveModel

    bounds = game_bounds(deck, start)
    horizon = bounds.horizon
    stats: dict[str, Any] = {"horizon": horizon, "bounds": {
        "moves": bounds.moves, "plays": bounds.plays, "abilities": bounds.abilities,
        "takes": bounds.takes}}
    if horizon > MAX_HORIZON:
        return result(UNKNOWN, reason=f"horizon {horizon} is too large for the model "
                      f"(at most {MAX_HORIZON} steps; use a smaller spec)", stats=stats)
    model = RoveModel(deck, start, horizon, goal="game", universe=bounds.universe,
                      max_takes=bounds.takes, noop_abilities=not deck.rules.auto_complete_on_reveal,
                      min_actions=1, objective=optimal)
    stats["model"] = {"variables": len(model.m.proto.variables),
                      "constraints": len(model.m.proto.constraints)}
    solver, status = _run(model, budget, seed, log)
    stats["status"] = solver.status_name(status)
    stats["cpsat_seconds"] = solver.wall_time
    stats["cpsat_dtime"] = budget.dtime_spent
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        plan = _cut_at_goal(deck, start, model.decode(solver))
        return result(SOLVED, plan, optimal and status == cp_model.OPTIMAL, stats=stats)
    if status == cp_model.INFEASIBLE:
        return result(UNSOLVABLE, stats=stats)
    return result(UNKNOWN, reason=f"{budget.limit} reached", stats=stats)
