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

The estimate is the mean time of the finished tasks of each kind times the tasks of that
kind still to run, over the workers; the deals the cheap rungs will leave to the dear
ones are not known until they have run, so until then the estimate says so.  Every
figure but the estimate is a count of finished work, the same on any machine.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from .options import CheckOptions

Task = tuple[Any, ...]


class ProgressFn(Protocol):
    def __call__(self, group: str, done: int, total: int, note: str = "") -> None: ...


def group_of(task: Task) -> str:
    """The progress group of a task."""
    kind = task[0]
    if kind in ("starts", "verify"):
        return "starts" if kind == "starts" else "verify losses"
    if kind == "table":
        return "tables"
    return str(task[5]) if kind == "deal" else f"{task[5]} expert"


class Tally:
    """The counts of a run so far (one per run; fed by ``rove.check.run._run_tasks``)."""

    def __init__(self, options: CheckOptions, progress: ProgressFn | None, workers: int) -> None:
        self.options = options
        self.progress = progress
        self.workers = max(1, workers)
        self.t0 = time.monotonic()
        #: batch number -> task index -> result, for a partial report
        self.finished: dict[int, dict[int, dict[str, Any]]] = {}
        self.batches = 0
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.pending: dict[str, int] = {}  # tasks not finished, by kind
        self.seconds: dict[str, list[float]] = {}  # finished tasks' seconds, by kind
        self.phase_now = -1 if "thoughtful" in options.players else 2
        self.won = dict.fromkeys(options.difficulties, 0)
        self.lost = dict.fromkeys(options.difficulties, 0)
        self.open = dict.fromkeys(options.difficulties, options.deals)
        self.expert_won = dict.fromkeys(options.difficulties, 0)

    # ------------------------------------------------------------------ events

    def begin(self, tasks: list[Task]) -> int:
        """A batch of tasks is about to run: its number."""
        batch = self.batches
        self.batches += 1
        self.finished[batch] = {}
        for t in tasks:
            g = group_of(t)
            if t[0] != "deal":
                self.totals[g] = self.totals.get(g, 0) + 1
            self.pending[t[0]] = self.pending.get(t[0], 0) + 1
        for g in {group_of(t) for t in tasks if t[0] != "deal"}:
            self._say(g, self.done.get(g, 0), self.totals[g])
        self._eta()
        return batch

    def expert_wins(self, rows: Iterable[dict[str, Any]]) -> None:
        """The thoughtful deals the expert's wins decided."""
        for r in rows:
            self._decided(r["difficulty"], won=True)
        for d in self.options.difficulties:
            self._thoughtful(d)

    def phase(self, phase: int) -> None:
        """The thoughtful player's rungs of ``phase`` start (its deals are counted as
        their tasks are planned)."""
        self.phase_now = phase
        self._eta()

    def task_done(self, batch: int, i: int, task: Task, res: dict[str, Any]) -> None:
        self.finished[batch][i] = res
        kind = task[0]
        self.pending[kind] -= 1
        self.seconds.setdefault(kind, []).append(float(res.get("seconds", 0.0)))
        g = group_of(task)
        if kind == "deal":
            if res["status"] != "unknown":
                self._decided(g, won=res["status"] == "solved")
            self._thoughtful(g)
        else:
            self.done[g] = self.done.get(g, 0) + 1
            note = ""
            if kind == "expert":
                self.expert_won[str(task[5])] += res["status"] == "won"
                note = f"won {self.expert_won[str(task[5])]}"
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
        self._say(d, self.won[d] + self.lost[d], self.options.deals,
                  f"won {self.won[d]}, lost {self.lost[d]}, {left} {what}")

    def eta_seconds(self) -> float | None:
        """The estimated seconds left (None: nothing finished yet to estimate from)."""
        every = [s for v in self.seconds.values() for s in v]
        if not every:
            return None
        fallback = sum(every) / len(every)
        left = 0.0
        for kind, n in self.pending.items():
            got = self.seconds.get(kind)
            left += n * (sum(got) / len(got) if got else fallback)
        return left / self.workers

    def _eta(self) -> None:
        eta = self.eta_seconds()
        if eta is None:
            note = "estimating"
        else:
            note = f"about {_duration(eta)} left"
            if "thoughtful" in self.options.players and self.phase_now < 1:
                note += ", then the searches the undecided deals need"
        self._say("time left", 0, 0, note)

    def _say(self, group: str, done: int, total: int, note: str = "") -> None:
        if self.progress is not None:
            self.progress(group, done, total, note)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{round(seconds / 60)} min"
