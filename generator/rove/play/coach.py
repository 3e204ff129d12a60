"""The coach: analyses of the game being played, run in a worker thread.

Questions (``ask``):

* ``verdict``: for a deal (``goal: game``), is it still winnable from here?  The
  thoughtful verdict (it knows the draw order), in order of cost
  (:func:`rove.solve.ladder.climb`): a state on a winning line found earlier is won at
  once (the rest of that line still wins); else the seer looks for a win, then the exact
  search (:func:`rove.solve.winnable.solve_game`) for a win or a proof of loss, a
  quick one first, as ``rove check``'s cheap rungs.  The answer is ``won`` (a win
  exists; its plan is replayed), ``lost`` (proven: no line wins) or ``unknown`` (the
  budgets ran out), with the solver that answered and the nodes spent; asking again
  about a state left unknown climbs again ("keep thinking"): the seer with four times
  the nodes each time, the exact search with the full ``nodes``, then four times that.
  With ``think_ahead`` the coach starts that verdict as soon as a deal's position
  appears (at the start, after every move), in the time the player looks at the board,
  and a question asked meanwhile waits for it.  For a
  puzzle (``goal: mission``), is the play still optimal?  The proven optimum from
  here (A*, :func:`rove.solve.astar.solve_mission`) plus the points already spent,
  against the proven optimum from the start.
* ``hint`` at level 1 (which module moves next), 2 (the next action) or 3 (the
  whole remaining plan), from the same search.
* ``expert``: the move the expert player (:mod:`rove.solve.expert`) makes here; it
  sees only what the player sees.

Every search is bounded by nodes, so an answer does not depend on the machine, and
answers are kept per state, so asking again (or undoing back) is free.  Jobs run one
at a time in the order asked; a move, undo or redo makes the older ones stale: a
queued one is dropped, a running one is told to stop (the pure-Python searches at their
next node, the compiled whole-deal search at its next progress report; otherwise it
runs out its budget) and its answer is thrown away.  The page polls a job for its
state and progress.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from ..actions import Action
from ..engine import GOAL, LOST, WON, State, apply, is_stuck
from ..replay import run_plan
from ..solve.ladder import QUICK_SEARCH_NODES, Rung, climb
from ..solve.nodes import Budget, Limit
from .session import Session

ASKS = ("verdict", "hint", "expert")
DEFAULT_NODES = 1_000_000
"""Exact-search nodes for one verdict or hint (a few seconds on the compiled core at most);
on a deal, from the first time the player asks again about a position left unknown."""
DEFAULT_SEER_NODES = 300_000
"""The seer's nodes before the exact search on a deal: it wins 44 of the standard deck's
first 60 check deals within them (a median 1.4 s of CPU; ``python bench/seer.py``),
where the exact search finds none within 200,000."""
MORE = 4
"""How many times the nodes each ask again about a state left unknown gets."""
DEFAULT_EXPERT_NODES = 300_000
"""Mission-search nodes for the expert's one decision (``rove check``'s per-game default)."""
KEPT_JOBS = 64
"""Finished jobs kept for the page to fetch; older ones are forgotten (404)."""

QUEUED, RUNNING, DONE, CANCELLED, FAILED = "queued", "running", "done", "cancelled", "failed"


class Cancelled(Exception):
    """Raised inside a running search whose job went stale."""


@dataclass
class Job:
    """One question about one state of the game."""

    id: int
    ask: str
    level: int
    version: int
    state: State
    spent: int  # points spent on the plan so far
    status: str = QUEUED
    result: dict[str, Any] | None = None
    started: float | None = None
    finished: float | None = None
    deepest: int | None = None  # whole-deal search progress: most missions done on a line
    background: bool = False  # asked by the coach itself (think_ahead), not the player
    cancel: threading.Event = field(default_factory=threading.Event)

    def to_json(self) -> dict[str, Any]:
        now = self.finished or time.monotonic()
        return {"job": self.id, "ask": self.ask, "level": self.level, "version": self.version,
                "status": self.status,
                "seconds": round(now - self.started, 2) if self.started is not None else 0.0,
                "deepest": self.deepest, "result": self.result}


class Stoppable(Budget):
    """A node budget that a stale job's cancel event stops at its next node (the
    pure-Python searches tick it at every node; the compiled core takes only its limits,
    so there a stale search stops at its next progress report or runs out its budget)."""

    def __init__(self, max_nodes: int, cancel: threading.Event) -> None:
        super().__init__(float("inf"), max_nodes)
        self.cancel = cancel

    def tick(self) -> None:
        super().tick()
        if self.cancel.is_set():
            raise Cancelled


@dataclass(frozen=True)
class Answer:
    """An exact search from one state: ``solved`` (plan replayed), ``unsolvable`` (proven)
    or ``unknown`` (budget), with the nodes it spent."""

    status: str
    plan: tuple[Action, ...] | None
    nodes: int
    #: who answered: "search", "seer", "known line" (a state on a winning line found
    #: earlier) or None (unknown)
    witness: str | None = None
    #: how many times this state was climbed (each again with MORE times the nodes)
    effort: int = 1
    #: the most missions completed on a line the climb reached (-1: none known)
    deepest: int = -1


class Coach:
    """The worker and its jobs for one session."""

    def __init__(self, session: Session, nodes: int = DEFAULT_NODES,
                 expert_nodes: int = DEFAULT_EXPERT_NODES, autostart: bool = True,
                 seer_nodes: int = DEFAULT_SEER_NODES, think_ahead: bool = False) -> None:
        self.session = session
        self.nodes = nodes
        self.seer_nodes = seer_nodes
        self.expert_nodes = expert_nodes
        #: start a deal's verdict as soon as its position appears (``rove play`` does)
        self.think_ahead = think_ahead
        self.jobs: OrderedDict[int, Job] = OrderedDict()
        self.queue: deque[Job] = deque()
        self.cond = threading.Condition()
        self.ids = itertools.count(1)
        self.answers: dict[State, Answer] = {}
        #: the states whose verdict the player has seen: asking again climbs further
        self.shown: set[State] = set()
        self.closed = False
        #: the job the worker is answering, if any
        self.running: Job | None = None
        #: whether the first question starts the worker (tests start it themselves, to
        #: see jobs while they are queued)
        self.autostart = autostart
        self.thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the page's side

    def ask(self, ask: str, level: int = 1, background: bool = False) -> Job:
        """Queue a question about the current state (ValueError for a bad one)."""
        if ask not in ASKS:
            raise ValueError(f"'ask' is {ask!r}; use one of {', '.join(ASKS)}")
        if ask == "hint" and level not in (1, 2, 3):
            raise ValueError(f"'level' is {level!r}; a hint has level 1 (the module), 2 (the move) "
                             "or 3 (the whole plan)")
        if ask == "expert" and self.session.position.goal != "game":
            raise ValueError("the expert plays deals (goal: game); on a puzzle ask for a hint")
        version, state, plan = self.session.snapshot()
        with self.cond:
            ahead = self._ahead(version, ask)
            if ahead is not None:  # the verdict thought ahead: the page follows that job
                self.shown.add(state)
                return ahead
        job = Job(next(self.ids), ask, level, version, state, sum(1 for a in plan if a.act == "move"),
                  background=background)
        with self.cond:
            self._drop_stale(version)
            self.jobs[job.id] = job
            while len(self.jobs) > KEPT_JOBS:
                old = next(iter(self.jobs))
                if self.jobs[old].status in (QUEUED, RUNNING):
                    break
                del self.jobs[old]
            self.queue.append(job)
            if self.autostart:
                self.start()
            self.cond.notify_all()
        return job

    def get(self, job_id: int) -> Job | None:
        with self.cond:
            return self.jobs.get(job_id)

    def idle(self, timeout: float | None = None) -> bool:
        """Block until the worker answers nothing and has nothing queued."""
        with self.cond:
            return self.cond.wait_for(lambda: self.running is None and not self.queue, timeout)

    def wait(self, job: Job, timeout: float | None = None) -> bool:
        """Block until ``job`` is no longer queued or running; False if ``timeout`` ran out."""
        with self.cond:
            return self.cond.wait_for(lambda: job.status not in (QUEUED, RUNNING), timeout)

    def changed(self) -> None:
        """The game moved: every job about another version is stale; with ``think_ahead``
        the verdict of the new position starts."""
        with self.cond:
            self._drop_stale(self.session.version)
        self.look_ahead()

    def reset(self) -> None:
        """Another game started in the session: what was known of the old one's states
        (answers, verdicts shown) goes, and its jobs are stale."""
        with self.cond:
            self._drop_stale(self.session.version)
            self.answers.clear()
            self.shown.clear()

    def look_ahead(self) -> None:
        """With ``think_ahead``, on a deal: start the verdict of the current position now,
        before anybody asks (once a position; a state answered already costs nothing)."""
        if not self.think_ahead or self.session.position.goal != "game":
            return
        version, state, _ = self.session.snapshot()
        with self.cond:
            if state in self.answers or self._ahead(version, "verdict") is not None:
                return
        self.ask("verdict", background=True)

    def _ahead(self, version: int, ask: str) -> Job | None:
        """A verdict job of this version still queued or running, which a new verdict
        question joins rather than asking again (callers hold ``cond``)."""
        if ask != "verdict":
            return None
        return next((j for j in self.jobs.values() if j.version == version and j.ask == "verdict"
                     and j.status in (QUEUED, RUNNING)), None)

    def close(self, wait: float = 0.0) -> None:
        """Stop answering: every job is cancelled, the running one too; then wait up to
        ``wait`` seconds for the worker to leave its search (``shutdown`` is the close
        for a process that is ending)."""
        with self.cond:
            self.closed = True
            for job in self.queue:
                job.cancel.set()
            if self.running is not None:
                self.running.cancel.set()
            self.cond.notify_all()
        if wait and self.thread is not None:
            self.thread.join(wait)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Close for a process that is ending, and wait (up to ``timeout`` seconds) until
        the worker has left every search.

        A worker still inside the compiled core when the interpreter finalizes is ended
        by a forced unwind the core's frames cannot pass, and the process aborts (SIGABRT,
        "FATAL: exception not rethrown", where Ctrl-C must exit 130): so the core's
        searches are stopped (:func:`rove.solve.core.shutdown`; they stop within a
        thousand nodes), the Python ones by the job's cancel event, and the worker is
        joined before the command returns."""
        from ..solve.core import shutdown

        self.close()
        shutdown()
        if self.thread is not None:
            self.thread.join(timeout)

    def _drop_stale(self, version: int) -> None:
        for job in self.jobs.values():
            if job.version != version and job.status in (QUEUED, RUNNING):
                job.cancel.set()
                job.status = CANCELLED
                job.finished = time.monotonic()
        self.queue = deque(j for j in self.queue if not j.cancel.is_set())
        self.cond.notify_all()

    def start(self) -> None:
        """Start the worker thread (once)."""
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="rove-coach", daemon=True)
            self.thread.start()

    # ------------------------------------------------------------------ the worker

    def _work(self) -> None:
        while True:
            with self.cond:
                self.cond.wait_for(lambda: bool(self.queue) or self.closed)
                if self.closed:
                    return
                job = self.queue.popleft()
                job.status = RUNNING
                job.started = time.monotonic()
                self.running = job
            try:
                result = self.answer(job)
                status = DONE
            except Cancelled:
                result, status = None, CANCELLED
            except KeyboardInterrupt:  # the core stopped for shutdown(): the process is ending
                result, status = None, CANCELLED
            except Exception as exc:  # a solver bug: said on the page, the server goes on
                result, status = {"text": f"the analysis failed: {exc}"}, FAILED
            with self.cond:
                if job.cancel.is_set():
                    status, result = CANCELLED, None
                job.result, job.status = result, status
                job.finished = time.monotonic()
                self.running = None
                self.cond.notify_all()

    def answer(self, job: Job) -> dict[str, Any]:
        """The answer to one job (run in the worker; also called directly by tests)."""
        if job.ask == "expert":
            return self._expert(job)
        if self.session.position.goal == "mission":
            return self._puzzle(job)
        return self._deal(job)

    # ------------------------------------------------------------------ searches

    def search(self, s: State, job: Job | None = None, again: bool = False) -> Answer:
        """The answer for the position's goal from ``s``, kept per state; ``again``: a
        state left unknown is climbed once more, with MORE times the nodes."""
        got = self.answers.get(s)
        if got is not None and not (again and got.status == "unknown" and s.goal != "mission"):
            return got
        if s.goal != "mission":
            got = self._climb(s, job, 1 if got is None else got.effort + 1)
            self._keep(s, got, job)
            return got
        deck = self.session.deck
        budget = Budget(float("inf"), self.nodes) if job is None else Stoppable(self.nodes, job.cancel)
        plan: list[Action] | None
        try:
            from ..solve.astar import solve_mission

            plan, _ = solve_mission(deck, s, budget)
        except Limit:
            got = Answer("unknown", None, budget.nodes)
        else:
            if plan is None:
                got = Answer("unsolvable", None, budget.nodes)
            else:
                states, bad = run_plan(deck, s, plan)  # the engine referees every plan
                end = states[-1] if states else s
                if bad is not None or end.status not in (WON, GOAL):
                    raise RuntimeError(f"solver bug: the plan from here does not replay ({bad})")
                got = Answer("solved", tuple(plan), budget.nodes)
        self._keep(s, got, job)
        return got

    def _keep(self, s: State, got: Answer, job: Job | None) -> None:
        """Keep an answer, unless its job went stale meanwhile (the session may have
        started another game, whose deck the answer is not of)."""
        if job is None or not job.cancel.is_set():
            self.answers[s] = got

    def _climb(self, s: State, job: Job | None, effort: int) -> Answer:
        """A deal's verdict from ``s`` in order of cost: the seer with ``MORE ** (effort -
        1)`` times its nodes, then the exact search: the quick one first
        (:data:`rove.solve.ladder.QUICK_SEARCH_NODES`, no more than ``nodes``), then ``nodes`` and ``MORE`` times
        that each time the player asks again."""
        rungs = [Rung("seer", self.seer_nodes * MORE ** (effort - 1))] if self.seer_nodes else []
        quick = min(self.nodes, QUICK_SEARCH_NODES)
        rungs.append(Rung("search", quick if effort == 1 else self.nodes * MORE ** (effort - 2)))

        def check() -> None:
            if job is not None and job.cancel.is_set():
                raise Cancelled

        def progress(done: int) -> None:
            if job is not None:
                job.deepest = max(done, job.deepest or 0)
            check()

        v = climb(self.session.deck, s, rungs, progress=progress, check=check)
        if v.plan is not None:
            self._remember_line(v.plan, v.line)
        status = {"solved": "solved", "unsolvable": "unsolvable"}.get(v.status, "unknown")
        return Answer(status, v.plan, v.nodes, v.witness, effort, v.deepest)

    def _remember_line(self, plan: tuple[Action, ...], states: tuple[State, ...]) -> None:
        """Every state on a winning line is won by the rest of that line (the draw order is
        fixed, so the same steps play out the same): a player who follows it gets each next
        verdict and hint at once.  ``states`` are the plan's, as the ladder replayed it."""
        for i, t in enumerate(states[:-1]):
            if t not in self.answers or self.answers[t].status != "solved":
                self.answers[t] = Answer("solved", plan[i + 1:], 0, "known line")

    def _deal(self, job: Job) -> dict[str, Any]:
        s = job.state
        over = _over(self.session, s)
        if over is not None:
            return over
        again = job.ask == "verdict" and s in self.shown
        if job.ask == "verdict" and not job.background:
            self.shown.add(s)
        a = self.search(s, job, again=again)
        if job.ask == "hint":
            return self._hint(job, a)
        n = a.nodes
        out: dict[str, Any] = {"nodes": n, "solver": a.witness}
        if a.status == "solved":
            by = {"seer": "the seer (the expert's judgement with the draw order known) found",
                  "search": "the exact search found",
                  "known line": "the winning line found earlier goes on from here; it is"}.get(a.witness or "", "")
            return out | {"verdict": "won",
                          "text": f"still winnable: {by} a win from here ({_nodes(n)}; it knows the draw order)"}
        if a.status == "unsolvable":
            return out | {"verdict": "lost", "text": f"lost: no line wins from here (proven in {_nodes(n)})"}
        far = f"; its deepest line completed {a.deepest} mission(s)" if a.deepest >= 0 else ""
        return out | {"verdict": "unknown", "more": True, "deepest": a.deepest,
                      "text": f"unknown: no answer within {_nodes(n)}{far}; ask again to keep thinking "
                              f"({MORE} times the nodes)"}

    def _puzzle(self, job: Job) -> dict[str, Any]:
        s = job.state
        start = self.search(self.session.start, job)
        best = points(start.plan) if start.plan is not None else None
        if s.status == GOAL:
            text = f"mission complete in {job.spent} points"
            if best is not None:
                text += "; that is the optimum" if job.spent <= best else f"; the optimum is {best}"
            return {"verdict": "complete", "optimal": best is not None and job.spent <= best,
                    "optimum": best, "spent": job.spent, "nodes": 0, "text": text}
        over = _over(self.session, s)
        if over is not None:
            return over
        a = self.search(s, job)
        if job.ask == "hint":
            return self._hint(job, a)
        if a.status == "unsolvable":
            return {"verdict": "lost", "nodes": a.nodes, "optimum": best, "spent": job.spent,
                    "text": f"lost: the mission can no longer be completed (proven in {_nodes(a.nodes)})"}
        if a.status == "unknown" or best is None:
            return {"verdict": "unknown", "nodes": a.nodes, "optimum": best, "spent": job.spent,
                    "text": f"unknown: no answer within {_nodes(self.nodes)}"}
        assert a.plan is not None
        total = job.spent + points(a.plan)
        if total <= best:
            return {"verdict": "optimal", "nodes": a.nodes, "optimum": best, "spent": job.spent,
                    "text": f"still optimal: {best} points in all is still possible "
                            f"({job.spent} spent, {total - job.spent} to go)"}
        return {"verdict": "behind", "nodes": a.nodes, "optimum": best, "spent": job.spent,
                "text": f"still solvable, but in {total} points at best; the optimum is {best}"}

    def _hint(self, job: Job, a: Answer) -> dict[str, Any]:
        if a.plan is None:
            what = ("lost: no line reaches the goal from here (proven)" if a.status == "unsolvable"
                    else f"no hint: no answer within {_nodes(a.nodes)}; ask 'Still winnable?' to keep thinking")
            return {"verdict": "lost" if a.status == "unsolvable" else "unknown", "nodes": a.nodes,
                    "text": what}
        out = hint_json(self.session, a.plan, job.level, a.nodes)
        if a.witness is not None:
            out["solver"] = a.witness  # a step on a winning line that solver found
        return out

    def _expert(self, job: Job) -> dict[str, Any]:
        s = job.state
        over = _over(self.session, s)
        if over is not None:
            return over
        from ..solve.expert import decide, expert_budget

        deck = self.session.deck
        budget = expert_budget(self.expert_nodes)
        plan, why, _ = decide(deck, s, budget)
        if not plan:
            text = ("the expert sees no way to complete this mission" if why == "stuck"
                    else f"the expert finds no plan within {_nodes(self.expert_nodes)}")
            return {"verdict": "stuck", "nodes": budget.used, "text": text}
        apply(deck, s, plan[0])  # the engine referees: the first step is legal here
        return {"verdict": "move", "nodes": budget.used, "action": plan[0].notation(),
                "plan": [x.notation() for x in plan],
                "text": f"the expert plays {plan[0]} (its plan for this mission: "
                        f"{len(plan)} steps; {_nodes(budget.used)})"}


def _nodes(n: int) -> str:
    return f"{n:,} node{'' if n == 1 else 's'}"


def points(plan: tuple[Action, ...] | list[Action]) -> int:
    """Points a plan spends: one per move."""
    return sum(1 for a in plan if a.act == "move")


def _over(session: Session, s: State) -> dict[str, Any] | None:
    """The verdict on a finished game, without a search."""
    if s.status == WON:
        return {"verdict": "won", "nodes": 0, "text": "the game is won"}
    if s.status == GOAL:
        return {"verdict": "complete", "nodes": 0, "text": "mission complete"}
    if s.status == LOST or is_stuck(session.deck, s):
        return {"verdict": "lost", "nodes": 0,
                "text": "lost: the game is over (no mission can be completed)"}
    return None


def hint_json(session: Session, plan: tuple[Action, ...], level: int, nodes: int) -> dict[str, Any]:
    """A hint from a plan: level 1 the module that moves next (after any card plays),
    2 the next action, 3 the whole plan."""
    first = plan[0]
    mover = next((a for a in plan if a.act != "play"), None)
    out: dict[str, Any] = {"verdict": "hint", "level": level, "nodes": nodes}
    if mover is not None and mover.module is not None:
        name = session.deck.spec.module(mover.module).name
        out["module"] = mover.module
        lead = "play a card, then " if first.act == "play" else ""
        out["text"] = f"{lead}{mover.module} ({name}) is the module to use next"
    else:
        out["text"] = "play a card from your hand"
    if level >= 2:
        out["action"] = first.notation()
        out["text"] = f"next: {first}"
    if level >= 3:
        out["plan"] = [a.notation() for a in plan]
        out["text"] = f"the plan from here ({len(plan)} steps): " + ", ".join(out["plan"])
    return out
