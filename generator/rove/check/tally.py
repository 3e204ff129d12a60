"""What a running check has found so far, for its progress display and its Ctrl-C.

A check's work comes in batches (``rove.check.run``: the static part with the expert's
games, then the thoughtful player's cheap rungs, then its dear ones), so a bar per task
kind would say little about what matters to a designer: how many deals are decided, how
many are still open, and how long the rest will take.  :class:`Tally` keeps those
figures as results arrive and hands them to a progress function as
``progress(group, done, total, note)``:

* ``"starts"`` and ``"tables"``: the static part's tasks;
* ``"<difficulty> expert"``: the expert's games, the note its wins so far;
* ``"<difficulty>"``: the thoughtful player's deals *decided* (won or proven lost), the
  note how many are won, lost, and still open or unknown;
* ``"time left"``: ``done`` and ``total`` 0, the note an estimate of the time left.

The estimate (:meth:`Tally.eta_seconds`) is the mean time of the finished tasks of each
kind times the tasks of that kind still to come, over the workers; it says "estimating"
until every kind still running has a few finished tasks to go by.  The tasks to come are
those planned, the batches a sequential run will likely add (each difficulty's expert
rate so far held fixed) and the thoughtful player's deals the expert will likely not
win; the deals the cheap rungs leave to the dear ones are not known until they have run.
Every figure but the estimate is a count of finished work, the same on any machine.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterable
from typing import Any, Protocol

from .options import CheckOptions
from .tasks import DealTask, ExpertTask, StartsTask, TableTask, Task
from .verdict import needed_deals

#: finished tasks of a kind the estimate needs before it trusts that kind's mean (fewer
#: when the kind has fewer tasks in all): one game's time says little of the next
MIN_SAMPLES = 4
#: a thoughtful deal's seconds before any has run, in expert games: the seer on a deal
#: the expert did not win took 1.5 to 3 times an expert game on the bench decks
#: (docs/internals/check.md, "How long a check takes")
DEAL_PRIOR = 2.0


class ProgressFn(Protocol):
    def __call__(self, group: str, done: int, total: int, note: str = "") -> None: ...


def kind_of(task: Task) -> str:
    """A task's kind, the key of its time figures."""
    return {ExpertTask: "expert", DealTask: "deal", StartsTask: "starts", TableTask: "table"}.get(
        type(task), "verify")


def group_of(task: Task) -> str:
    """The progress group of a task."""
    if isinstance(task, StartsTask):
        return "starts"
    if isinstance(task, TableTask):
        return "tables"
    if isinstance(task, DealTask):
        return task.difficulty
    if isinstance(task, ExpertTask):
        return f"{task.difficulty} expert"
    return "verify losses"


class Tally:
    """The counts of a run so far (one per run; fed by ``rove.check.run._run_tasks``)."""

    def __init__(self, options: CheckOptions, progress: ProgressFn | None, workers: int) -> None:
        self.options = options
        self.progress = progress
        self.workers = max(1, workers)
        self.t0 = time.monotonic()
        self.batches = 0
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.pending: dict[str, int] = {}  # tasks not finished, by kind
        self.seconds: dict[str, list[float]] = {}  # finished tasks' seconds, by kind
        self.phase_now = -1 if "thoughtful" in options.players else 2
        diffs = options.difficulties
        self.won = dict.fromkeys(diffs, 0)
        self.lost = dict.fromkeys(diffs, 0)
        self.open = dict.fromkeys(diffs, 0)
        self.thoughtful_total = dict.fromkeys(diffs, 0)
        self.expert_won = dict.fromkeys(diffs, 0)
        self.expert_done = dict.fromkeys(diffs, 0)
        self.played = dict.fromkeys(diffs, options.first_deals)

    # ------------------------------------------------------------------ events

    def begin(self, tasks: list[Task]) -> int:
        """A batch of tasks is about to run: its number."""
        batch = self.batches
        self.batches += 1
        for t in tasks:
            g = group_of(t)
            if not isinstance(t, DealTask):
                self.totals[g] = self.totals.get(g, 0) + 1
            self.pending[kind_of(t)] = self.pending.get(kind_of(t), 0) + 1
        for g in {group_of(t) for t in tasks if not isinstance(t, DealTask)}:
            self._say(g, self.done.get(g, 0), self.totals[g])
        self._eta()
        return batch

    def more_deals(self, played: dict[str, int]) -> None:
        """A sequential run plays another batch: the deals each difficulty now plays."""
        self.played = dict(played)

    def expert_wins(self, rows: Iterable[dict[str, Any]], totals: dict[str, int]) -> None:
        """The thoughtful player's deals (``totals`` a difficulty) and those of them the
        expert's wins decided."""
        self.thoughtful_total = dict(totals)
        self.open = dict(totals)
        for r in rows:
            self._decided(r["difficulty"], won=True)
        for d in self.options.difficulties:
            self._thoughtful(d)

    def phase(self, phase: int) -> None:
        """The thoughtful player's rungs of ``phase`` start (its deals are counted as
        their tasks are planned)."""
        self.phase_now = phase
        self._eta()

    def task_done(self, batch: int, task: Task, res: dict[str, Any]) -> None:
        kind = kind_of(task)
        self.pending[kind] -= 1
        self.seconds.setdefault(kind, []).append(float(res.get("seconds", 0.0)))
        g = group_of(task)
        if isinstance(task, DealTask):
            if res["status"] != "unknown":
                self._decided(g, won=res["status"] == "solved")
            self._thoughtful(g)
        else:
            self.done[g] = self.done.get(g, 0) + 1
            note = ""
            if isinstance(task, ExpertTask):
                d = task.difficulty
                self.expert_done[d] += 1
                self.expert_won[d] += res["status"] == "won"
                note = f"won {self.expert_won[d]}"
            self._say(g, self.done[g], self.totals[g], note)
        self._eta()

    # ------------------------------------------------------------------ figures

    def _decided(self, d: str, won: bool) -> None:
        if won:
            self.won[d] += 1
        else:
            self.lost[d] += 1
        self.open[d] -= 1

    def _thoughtful(self, d: str) -> None:
        left = self.open[d]
        what = ("unknown" if self.phase_now >= 1 and self.pending.get("deal", 0) == 0 else
                "left to the dear searches" if self.phase_now == 0 and self.pending.get("deal", 0) == 0
                else "open")
        self._say(d, self.won[d] + self.lost[d], self.thoughtful_total[d],
                  f"won {self.won[d]}, lost {self.lost[d]}, {left} {what}")

    def _mean(self, kind: str) -> float | None:
        """The mean seconds of a kind's finished tasks, once enough of them finished."""
        got = self.seconds.get(kind, [])
        enough = min(MIN_SAMPLES, len(got) + self.pending.get(kind, 0))
        return statistics.fmean(got) if got and len(got) >= enough else None

    def _projected(self) -> tuple[int, int]:
        """The expert games a sequential run will likely add (each difficulty's rate so
        far held fixed, ``verdict.needed_deals``) and the thoughtful deals its cheap rungs
        will likely get (those the expert will likely not win), before they are planned."""
        o = self.options
        games = deals = 0
        for d in o.difficulties:
            done, won = self.expert_done[d], self.expert_won[d]
            rate = won / done if done else 0.5
            n = self.played[d]
            if "expert" in o.players and o.sequential:
                n = max(n, needed_deals(rate, o, d))
                games += n - self.played[d]
            if self.phase_now < 0 and "thoughtful" in o.players:
                limit = o.thoughtful_limit
                t_n = n if limit is None else min(n, limit)
                deals += round(t_n * (1 - rate)) if "expert" in o.players else t_n
        return games, deals

    def eta_seconds(self) -> float | None:
        """The estimated seconds left, or None until it rests on enough finished work:
        ``MIN_SAMPLES`` finished tasks of every kind still running.  It counts the tasks
        planned, the batches a sequential run will likely add and the thoughtful deals to
        come, each at its kind's mean time, over the workers."""
        means: dict[str, float] = {}
        for kind, n in self.pending.items():
            m = self._mean(kind)
            if n and m is None:
                return None
            if m is not None:
                means[kind] = m
        left = sum(n * means[kind] for kind, n in self.pending.items() if n)
        games, deals = self._projected()
        expert = means.get("expert", self._mean("expert"))
        if games:
            if expert is None:
                return None
            left += games * expert
        if deals:
            deal = self._mean("deal") or (None if expert is None else DEAL_PRIOR * expert)
            if deal is None:
                return None
            left += deals * deal
        return left / self.workers

    def _eta(self) -> None:
        eta = self.eta_seconds()
        note = "estimating" if eta is None else f"about {_duration(eta)} left"
        self._say("time left", 0, 0, note)

    def _say(self, group: str, done: int, total: int, note: str = "") -> None:
        if self.progress is not None:
            self.progress(group, done, total, note)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"
