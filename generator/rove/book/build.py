"""Putting a book together: how many puzzles of each kind and grade, in which order,
and the files ``--export-dir`` writes.  The CLI only parses options and calls these.

Selection is deterministic: candidates are tried in seed-label order and accepted into
per-grade quotas (``star_quotas``: spread over 1..5 stars, the middle grades a little
fuller, so the book ramps from gentle to brutal).  A kind stops as soon as every quota is
full or its gap can be filled by spare candidates one star away (or when its attempts run
out); empty slots then take the spare candidates closest in grade, and a kind that still
falls short is topped up with Mission in N puzzles.  Verified deals cycle through normal, hard
and impossible.  The book is ordered by stars, then kind, then score.

Variety: every kind's candidates pass one ``MissionQuota``, so no mission is posed
(``posed_missions``) by more than ``mission_cap(count)`` of the book's puzzles, nor more
than MISSION_PER_GRADE times in one grade; ``book_order`` keeps equal missions apart.

Adding a kind: a generator in ``generate`` returning ``Puzzle``, its name in
``KIND_ORDER``, a maker in ``generate_book``, what it poses in ``posed_missions``, and
its page and solution in ``rove.pdf.book`` (``BookWriter.puzzle`` / ``solution_block``
dispatch on the kind).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..actions import Action, dumps_plan
from ..errors import SolverBug
from ..position import Position, dump_position, normalized_cells
from ..spec import Spec
from ..words import plural
from .grade import GRADING_TEXT
from .puzzles import (
    DEAL_DIFFICULTIES,
    KIND_NAMES,
    Puzzle,
    Settings,
    campaign_puzzle,
    count_solutions,
    deal_puzzle,
    hand_puzzle,
    mission_puzzle,
    potential_stars,
)

if TYPE_CHECKING:
    from ..executors import Ahead, Job

KIND_ORDER = ("mission", "hand", "deal", "campaign")
DEFAULT_MIX = "mission:55,hand:20,deal:15,campaign:10"
#: candidates tried per puzzle wanted, and a floor, per kind
ATTEMPTS = {"mission": (8, 24), "hand": (10, 20), "deal": (6, 6), "campaign": (2, 3)}

def parse_mix(text: str) -> dict[str, int]:
    """``mission:60,hand:25,deal:15`` -> weights; raises ValueError saying what is wrong."""
    out: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, weight = part.partition(":")
        name = name.strip()
        if name not in KIND_ORDER:
            raise ValueError(f"unknown puzzle kind {name!r}; use {', '.join(KIND_ORDER)} "
                             f"(e.g. {DEFAULT_MIX})")
        if not sep:
            raise ValueError(f"'{part}' needs a weight, like {name}:50")
        try:
            w = int(weight)
        except ValueError:
            raise ValueError(f"weight {weight.strip()!r} of {name} is not a whole number") from None
        if w < 0:
            raise ValueError(f"weight of {name} is negative")
        if name in out:
            raise ValueError(f"{name} is given twice")
        out[name] = w
    if not out or sum(out.values()) == 0:
        raise ValueError("give at least one kind with a positive weight, like mission:100")
    return out


def split_count(count: int, mix: dict[str, int]) -> dict[str, int]:
    """Puzzles per kind: largest remainder, ties to the kind named first in KIND_ORDER."""
    total = sum(mix.values())
    exact = {k: count * w / total for k, w in mix.items()}
    got = {k: int(v) for k, v in exact.items()}
    rest = count - sum(got.values())
    for k in sorted(exact, key=lambda k: (-(exact[k] - got[k]), KIND_ORDER.index(k)))[:rest]:
        got[k] += 1
    return {k: got.get(k, 0) for k in KIND_ORDER if got.get(k, 0)}


def star_quotas(n: int) -> dict[int, int]:
    """n puzzles spread evenly over 1..5 stars (puzzle i of n aims at 1 + 4i/(n-1) stars,
    rounded half up; a lone puzzle aims at 3)."""
    out = {s: 0 for s in range(1, 6)}
    for i in range(n):
        out[3 if n == 1 else 1 + int(4 * i / (n - 1) + 0.5)] += 1
    return out


#: no mission is posed by more than this share of a book's puzzles (and never fewer than
#: MISSION_REPEATS_MIN of them may share one)
MISSION_SHARE = 0.15
MISSION_REPEATS_MIN = 2


def posed_missions(p: Puzzle) -> frozenset[str]:
    """The mission cards a puzzle poses, which the variety rule counts: a Mission in N or
    hand puzzle its mission; a verified deal the mission face up at its start (the rest
    come as the shuffle has them); a campaign the card of each of its missions (they are
    printed on the mission sides of the deck's first cards, so every campaign poses the
    first card and the next ones).  Every kind counts: with deals and campaigns left out,
    one mission was posed by 5 puzzles of a book of 16."""
    if p.kind == "campaign":
        return frozenset(pos.mission for pos, _ in p.legs if pos.mission is not None)
    return frozenset() if p.position.mission is None else frozenset((p.position.mission,))


#: a grade of a small book poses one mission at most this often (with ``book_order`` that
#: keeps equal missions apart in all but the smallest grades); ``grade_cap`` scales it
MISSION_PER_GRADE = 2


def mission_cap(count: int) -> int:
    """The most puzzles of a book of ``count`` that may pose one mission."""
    return max(MISSION_REPEATS_MIN, int(MISSION_SHARE * count))


def grade_cap(count: int) -> int:
    """The most puzzles of one grade of a book of ``count`` that may pose one mission:
    MISSION_PER_GRADE, or for a big book two fifths of ``mission_cap`` (the cap spread over
    the five grades, with room for grades of unequal size and missions that suit one grade
    more than another).  A fixed 2 a grade held the bundled deck's 18 missions to 180
    puzzles in all, and far fewer in practice (a grade's puzzles draw on the few missions
    that suit it), so books of 60 ran out; up to 40 puzzles the two rules agree."""
    return max(MISSION_PER_GRADE, round(mission_cap(count) * 2 / 5))


class MissionQuota:
    """How often each mission has been posed so far (``posed_missions``), in the book
    (against its cap) and in each grade (against ``grade_cap``).  Every kind's puzzles are
    taken through it."""

    def __init__(self, count: int) -> None:
        self.cap = mission_cap(count)
        self.per_grade = grade_cap(count)
        self.used: dict[str, int] = {}
        self.graded: dict[tuple[str, int], int] = {}

    def room(self, mission: str) -> bool:
        """Whether one more puzzle may pose ``mission`` (its grade not known yet)."""
        return self.used.get(mission, 0) < self.cap

    def allows(self, p: Puzzle) -> bool:
        return all(self.room(m) and self.graded.get((m, p.stars), 0) < self.per_grade
                   for m in posed_missions(p))

    def why_not(self, p: Puzzle) -> str:
        """Which cap refuses ``p``: "book" (a mission posed ``cap`` times in the book) or
        "grade" (``per_grade`` times in its grade)."""
        return "book" if not all(self.room(m) for m in posed_missions(p)) else "grade"

    def take(self, p: Puzzle) -> None:
        for m in posed_missions(p):
            self.used[m] = self.used.get(m, 0) + 1
            self.graded[m, p.stars] = self.graded.get((m, p.stars), 0) + 1

    def give_back(self, p: Puzzle) -> None:
        """``p`` left the book after all."""
        for m in posed_missions(p):
            self.used[m] -= 1
            self.graded[m, p.stars] -= 1


@dataclass
class KindTally:
    """What became of one kind's candidates: how many the budget allowed and were tried,
    and why the ones not printed were not (the generator kept none, the puzzle was one
    the book had, the variety rule refused it), so a short book can say which limit
    binds."""

    kind: str = "mission"
    asked: int = 0
    made: int = 0
    budget: int = 0
    tried: int = 0
    none: int = 0           # the generator or its proofs kept no puzzle (within node budgets)
    duplicate: int = 0      # a puzzle the book already had (up to translation)
    book_cap: int = 0       # refused: its mission posed mission_cap times in the book
    grade_cap: int = 0      # refused: its mission posed grade_cap times in its grade
    spare: int = 0          # proven but not needed, or of a grade already full

    def refused(self, quota: MissionQuota, p: Puzzle) -> None:
        if quota.why_not(p) == "book":
            self.book_cap += 1
        else:
            self.grade_cap += 1


Progress = Callable[[str, int, int], None]  # (kind, puzzles found, puzzles wanted)


def make_candidate(task: tuple[str, Spec, str, Settings]) -> Puzzle | None:
    """One candidate of a kind from its seed label (a worker task: a pure function of the
    task, so where it runs changes nothing).  The searches run without the core's distance
    tables (``core.tables_off``): the book makes thousands of short searches, which do not
    earn a table's build back."""
    from ..solve import core

    kind, spec, label, settings = task
    maker = {"mission": mission_puzzle, "hand": hand_puzzle, "campaign": campaign_puzzle}[kind]
    with core.tables_off():
        return maker(spec, label, settings)


def make_example(task: tuple[Spec, str, Settings]) -> Puzzle | None:
    """A Mission in N candidate for the worked example, as a worker task (with the
    distance tables as the process has them, as the example was always made)."""
    return mission_puzzle(*task)


def finish_candidate(task: tuple[Puzzle, Settings]) -> Puzzle:
    """``count_solutions`` as a worker task (the uniqueness count that may lift a grade)."""
    from ..solve import core

    with core.tables_off():
        return count_solutions(*task)


def make_deal(task: tuple[Spec, str, Settings, str, frozenset[str]]) -> tuple[str | None, Puzzle | None]:
    """One verified-deal candidate as a worker task: (the mission face up at its start, the
    deal proven winnable or None).  ``full`` are the missions with no room left in the book
    when it was sent: a deal facing one is not even proven (None).  The selection decides
    by the mission and the book as they are when it takes the deal (``_deals``), so a deal
    sent before a mission filled up decides as one sent after."""
    from ..solve import core

    spec, label, settings, difficulty, full = task
    faced: list[str] = []

    def mission_ok(mission: str) -> bool:
        faced.append(mission)
        return mission not in full

    with core.tables_off():
        got = deal_puzzle(spec, label, settings, difficulty, mission_ok=mission_ok)
    return (faced[0] if faced else None), got


def lookahead(executor: Any) -> int:
    """Tasks sent ahead of the selection: one in this process (exactly the work a one-by-one
    selection does), a few per worker otherwise."""
    workers = max(1, int(getattr(executor, "workers", 1)))
    return 1 if workers == 1 or getattr(executor, "name", "") == "serial" else LOOKAHEAD * workers


#: tasks sent ahead per worker: enough to keep every worker busy through uneven tasks (the
#: executor starts them in the selection's order, so more ahead delays none that it needs
#: first), few enough that little is computed past the last one a kind needs
LOOKAHEAD = 4

#: the order ``generate_book`` takes the kinds in (campaigns first: see there), then the
#: worked example; a task's priority is its place in this one-by-one order
RUN_ORDER = ("campaign", "hand", "deal", "mission", "example")


#: the priority a task gains when the selection is sure to take it (see ``_priority``)
SURE = 10 ** 12


def _priority(kind: str, place: int, sure: bool = False) -> int:
    """The executor's priority of task ``place`` of ``kind`` (higher starts first): first
    the tasks the selection is ``sure`` to take (every kind's first candidates, every deal
    slot's first try, the counts it sent for candidates that may need one), then those it
    may take (candidates and tries ahead of it), each in the one-by-one selection's order.
    So a worker takes the task the selection will ask for soonest among the useful ones,
    a guess ahead waits until the selection knows more, and later kinds' tasks fill what
    would be idle.  (The task the selection waits for starts first whatever its priority.)"""
    return (SURE if sure else 0) - (RUN_ORDER.index(kind) * 10 ** 9 + place)


def _send_candidate(executor: Any, kind: str, spec: Spec, seed: int, settings: Settings, j: int,
                    sure: bool = False) -> Job:
    """Candidate ``j`` of ``kind`` (label ``seed:j``) sent to the executor."""
    return executor.submit(make_candidate, (kind, spec, f"{seed}:{j}", settings), _priority(kind, 2 * j, sure))


def _send_deal(executor: Any, spec: Spec, seed: int, settings: Settings, slot: int, attempt: int,
               place: int, full: frozenset[str], sure: bool = False) -> Job:
    """Try ``attempt`` of deal slot ``slot`` (label ``seed:slot:attempt``) sent to the executor."""
    task = (spec, f"{seed}:{slot}:{attempt}", settings, DEAL_DIFFICULTIES[slot % len(DEAL_DIFFICULTIES)], full)
    return executor.submit(make_deal, task, _priority("deal", place, sure))


def _send_example(executor: Any, spec: Spec, seed: int, settings: Settings, j: int) -> Job:
    """Candidate ``j`` of the worked example (label ``seed:example:j``) sent to the executor."""
    return executor.submit(make_example, (spec, f"{seed}:example:{j}", settings), _priority("example", j))


class _Fill:
    """One kind's puzzles chosen from its candidates in seed-label order, into per-grade
    quotas (see the module text).  The selection itself is sequential and cheap; the
    candidates and their uniqueness counts, the dear part, stream through the executor:
    a few candidates ahead of the selection (``Ahead``), and the count of every candidate
    that arrived ahead and may need one.  Every task is a pure function of its inputs and
    the selection takes the results in seed order, deciding exactly as it would one by
    one, so the book is the same byte for byte for any number of workers, lookahead or
    executor: running ahead only computes some candidates (or counts) that a one-by-one
    run would not have needed."""

    def __init__(self, kind: str, n: int, spec: Spec, settings: Settings, seed: int,
                 keys: set[tuple], progress: Progress | None, quota: MissionQuota,
                 executor: Any, tally: KindTally, early: dict[int, Job] | None = None) -> None:
        self.kind, self.n, self.spec, self.settings, self.seed = kind, n, spec, settings, seed
        self.keys, self.progress, self.quota, self.executor = keys, progress, quota, executor
        self.tally = tally
        self.early = dict(early or {})  # candidates sent before the kind's turn (generate_book)
        self.quotas = star_quotas(n)
        self.chosen: dict[int, list[Puzzle]] = {s: [] for s in self.quotas}
        self.spare: list[Puzzle] = []
        self.counts: dict[str, Job] = {}  # label -> the uniqueness count sent
        self.strict = False

    def enough(self) -> bool:
        """Every quota is full, or its gap can be filled by spares one star away (once
        ``strict``, only by spares the variety rule still allows)."""
        spare = [p for p in self.spare if self.quota.allows(p)] if self.strict else self.spare
        avail = {s: sum(p.stars == s for p in spare) for s in self.quotas}
        for s in sorted(self.quotas):
            gap = self.quotas[s] - len(self.chosen[s])
            for t in (s - 1, s + 1):
                take = min(gap, avail.get(t, 0))
                gap -= take
                if t in avail:
                    avail[t] -= take
            if gap > 0:
                return False
        return True

    def _gaps(self) -> bool:
        """A grade's quota is not full."""
        return any(len(self.chosen[s]) < self.quotas[s] for s in self.quotas)

    def _short(self) -> bool:
        """Too few puzzles of the kind yet (chosen and spare)."""
        return sum(map(len, self.chosen.values())) + len(self.spare) < self.n

    def worth_counting(self, p: Puzzle) -> bool:
        """Whether to count ``p``'s optimal solutions: its potential grade has room, the
        kind has too few puzzles, or it would beat the weakest 5-star puzzle (only then is
        the count worth its cost).  Once false for a candidate it stays false as the
        selection goes on (grades only fill, the weakest 5-star puzzle only gets
        stronger), so the count of every candidate it holds true for may be sent early."""
        pot = potential_stars(p)
        five = self.chosen[5]
        return (len(self.chosen[pot]) < self.quotas[pot] or self._short()
                or pot == 5 and bool(five) and p.score > min(q.score for q in five))

    def _send_count(self, p: Puzzle, j: int) -> Job:
        """The uniqueness count of candidate ``j`` (``p``), sent once."""
        if p.source not in self.counts:
            self.counts[p.source] = self.executor.submit(finish_candidate, (p, self.settings),
                                                         _priority(self.kind, 2 * j + 1, sure=True))
        return self.counts[p.source]

    def _count_early(self, stream: Ahead) -> None:
        """Send the count of every candidate that arrived ahead of its turn and may need it
        then: new, allowed by the variety rule, graded below what it is worth, and
        ``worth_counting`` now (which only ever turns false, so a count sent early is at
        worst not needed; the selection still decides at the candidate's turn)."""
        for j, p in stream.finished():
            if (p is not None and p.key not in self.keys and self.quota.allows(p)
                    and potential_stars(p) > p.stars and self.worth_counting(p)):
                self._send_count(p, j)

    def run(self) -> list[Puzzle]:
        per, floor = ATTEMPTS[self.kind]
        self.tally.asked, self.tally.budget = self.n, max(floor, per * self.n)
        if self.progress:
            self.progress(self.kind, 0, self.n)

        def start(j: int) -> Job:
            job = self.early.pop(j, None)
            if job is None:
                job = _send_candidate(self.executor, self.kind, self.spec, self.seed, self.settings, j)
            return job

        from ..executors import Ahead

        i = 0
        with Ahead(start, self.tally.budget, lookahead(self.executor)) as stream:
            try:
                while True:
                    while i < self.tally.budget and not self.enough():
                        self._count_early(stream)
                        p = next(stream)
                        i += 1
                        self.tally.tried += 1
                        self._take(p, i - 1)
                    self._fill_gaps()
                    # ``enough`` counted every spare one star away, but the variety rule may
                    # refuse some of them by the time the gaps are filled (a big book of the
                    # standard deck fell short so, its budget barely touched): then the
                    # candidates go on, and ``enough`` counts only the spares the rule allows
                    if i >= self.tally.budget or not self._gaps():
                        break
                    self.strict = True
            finally:
                for job in (*self.counts.values(), *self.early.values()):
                    job.cancel()
                self.counts.clear()
                self.early.clear()
        out = [p for s in sorted(self.chosen) for p in self.chosen[s]]
        self.tally.made = len(out)
        self.tally.spare = len(self.spare)
        return out

    def _take(self, p: Puzzle | None, j: int) -> None:
        """The one-by-one selection's step for candidate ``j``, ``p``."""
        quota, chosen, quotas = self.quota, self.chosen, self.quotas
        if p is None:
            self.tally.none += 1
            return
        if p.key in self.keys:
            self.tally.duplicate += 1
            return
        if not quota.allows(p):
            self.tally.refused(quota, p)
            return
        self.keys.add(p.key)
        if potential_stars(p) > p.stars:
            # graded below what it is worth until its optimal solutions are counted: count
            # them while that grade has room or the kind has too few puzzles (only then is
            # the count worth its cost), and never print it under-graded
            if not self.worth_counting(p):
                return
            p = self._send_count(p, j).result()
            del self.counts[p.source]  # the counted puzzle keeps its label
            if potential_stars(p) > p.stars:
                return  # not counted within its node budget
        if p.stars == 5 and len(chosen[5]) >= quotas[5] and chosen[5]:
            # the top grade keeps the hardest puzzles seen so far: the longest, least obvious
            weakest = min(chosen[5], key=lambda q: q.score)
            if p.score > weakest.score:
                quota.give_back(weakest)
                if quota.allows(p):  # checked again: counting its solutions regraded it
                    chosen[5].remove(weakest)
                    chosen[5].append(p)
                    quota.take(p)
                    p = weakest
                else:
                    quota.take(weakest)
        if len(chosen[p.stars]) < quotas[p.stars] and quota.allows(p):
            chosen[p.stars].append(p)
            quota.take(p)
            if self.progress:
                self.progress(self.kind, sum(map(len, chosen.values())), self.n)
        else:
            self.spare.append(p)

    def _fill_gaps(self) -> None:
        """Empty slots take the spare candidates closest in grade."""
        for s in self.quotas:
            while len(self.chosen[s]) < self.quotas[s]:
                fits = [p for p in self.spare if self.quota.allows(p)]
                if not fits:
                    break
                best = min(fits, key=lambda p: (abs(p.stars - s), p.stars, self.spare.index(p)))
                self.spare.remove(best)
                self.chosen[s].append(best)
                self.quota.take(best)
                if self.progress:
                    self.progress(self.kind, sum(map(len, self.chosen.values())), self.n)


def _deals(n: int, spec: Spec, settings: Settings, seed: int, keys: set[tuple],
           progress: Progress | None, quota: MissionQuota, executor: Any,
           tally: KindTally, early: dict[tuple[int, int], Job] | None = None) -> list[Puzzle]:
    """Verified deals through the mission quota like every kind: a deal whose first
    mission has no room left is not even proven.

    Slot ``s`` takes the first of its candidates ``seed:s:0``, ``seed:s:1``, ... that is
    new and passes the quota, trying up to ATTEMPTS["deal"] of them; the slots are decided
    in order, one by one.  The budget is the book's, that many a deal asked: the slots
    left empty then try on (``seed:s:6``, ...) in slot order while it lasts.  A slot alone
    fails often enough (an impossible deal is lost or undecided about seven times in ten)
    that a fixed few tries a slot left big books short: 2 of the 55 slots of a book of 365.

    The deals stream through the executor: the try of the slot being decided and, for the
    next few slots, the first try not known to have failed (a try still running or proven
    is taken as likely to pass), each sent as soon as the one before it is known to fail,
    so no deal is proven that the one-by-one order would not prove, unless an earlier
    slot's choice refuses one it thought would pass.  A try sent earlier faced the book's
    full missions of then, a subset of those of when it is taken (the book only fills
    here); the selection refuses by the missions full now, so it decides as one by one."""
    from ..executors import arrived

    out: list[Puzzle] = []
    per, _ = ATTEMPTS["deal"]
    tally.asked, tally.budget = n, per * n
    if progress:
        progress("deal", 0, n)
    window = lookahead(executor)
    sent: dict[tuple[int, int], Job] = dict(early or {})

    def send(slot: int, attempt: int) -> None:
        if (slot, attempt) not in sent:
            # the one-by-one order: slot by slot, then the empty slots' further tries
            place = slot * per + attempt if attempt < per else n * per + slot * tally.budget + attempt
            sent[slot, attempt] = _send_deal(executor, spec, seed, settings, slot, attempt, place,
                                             frozenset(m for m in quota.used if not quota.room(m)))

    def failed(slot: int, attempt: int) -> bool:
        """Known already (arrived) not to give the slot a deal."""
        job = sent.get((slot, attempt))
        if job is None:
            return False
        ok, got = arrived(job)
        if not ok:
            return False
        mission, p = got
        return p is None or mission is not None and not quota.room(mission)

    def take(slot: int, attempt: int) -> bool:
        """Decide candidate ``attempt`` of ``slot``: whether the book takes it."""
        send(slot, attempt)
        tally.tried += 1
        mission, p = sent.pop((slot, attempt)).result()
        if mission is not None and not quota.room(mission):
            tally.book_cap += 1  # its mission has no room left in the book: refused unproven
        elif p is None:
            tally.none += 1
        elif p.key in keys:
            tally.duplicate += 1
        elif not quota.allows(p):
            tally.refused(quota, p)
        else:
            keys.add(p.key)
            quota.take(p)
            out.append(p)
            return True
        return False

    empty: list[int] = []
    try:
        for slot in range(n):
            for attempt in range(per):
                send(slot, attempt)
                for s in range(slot + 1, min(n, slot + window)):
                    a = 0
                    while a < per and failed(s, a):
                        a += 1
                    if a < per:
                        send(s, a)
                if take(slot, attempt):
                    break
            else:
                empty.append(slot)
            if progress:
                progress("deal", len(out), n)
        for slot in empty:
            attempt = per
            while tally.tried < tally.budget:
                for a in range(attempt, attempt + min(window, tally.budget - tally.tried)):
                    send(slot, a)
                attempt += 1
                if take(slot, attempt - 1):
                    for key in [k for k in sent if k[0] == slot]:  # the slot's tries sent ahead
                        sent.pop(key).cancel()
                    if progress:
                        progress("deal", len(out), n)
                    break
    finally:
        for job in sent.values():
            job.cancel()
    tally.made = len(out)
    return out


def _send_early(executor: Any, spec: Spec, seed: int, settings: Settings,
                counts: dict[str, int]) -> dict[str, dict[Any, Job]]:
    """Every kind's first tasks, sent before the kind's turn so no worker idles while a
    kind runs out its last long task: the ones its selection is sure to take (a kind's
    first ``n`` candidates, for it tries at least as many as it makes: ``enough`` needs
    ``n`` puzzles, chosen or spare; every deal slot's first try) and, as a guess, a
    window's worth of candidates more.  Only for workers (nothing is computed ahead in
    this process); a deal sent now faces a book with no full mission, which ``_deals``
    makes up for."""
    window = lookahead(executor)
    if window <= 1:
        return {}
    early: dict[str, dict[Any, Job]] = {}
    for kind in RUN_ORDER[:4]:
        n = counts.get(kind, 0)
        if kind == "deal":
            early[kind] = {(s, 0): _send_deal(executor, spec, seed, settings, s, 0, s * ATTEMPTS["deal"][0],
                                              frozenset(), sure=True) for s in range(n)}
        elif n:
            per, floor = ATTEMPTS[kind]
            early[kind] = {j: _send_candidate(executor, kind, spec, seed, settings, j, sure=j < n)
                           for j in range(min(n + window, max(floor, per * n)))}
    return early


def generate_book(spec: Spec, count: int, mix: dict[str, int], seed: int,
                  settings: Settings = Settings(), progress: Progress | None = None,
                  executor: Any = None, tallies: dict[str, KindTally] | None = None,
                  ) -> list[Puzzle]:
    """``count`` verified puzzles (fewer only if even Mission in N runs dry), in book order.

    ``executor`` (``rove.executors``; default: this process) computes the candidates; the
    book is the same for any.  ``tallies``, when given, receives each kind's
    ``KindTally`` (what ``shortfalls`` reads to say which limit binds)."""
    from ..executors import SerialExecutor

    executor = executor if executor is not None else SerialExecutor()
    tallies = tallies if tallies is not None else {}
    counts = split_count(count, mix)
    keys: set[tuple] = set()
    quota = MissionQuota(count)
    found: list[Puzzle] = []
    early = _send_early(executor, spec, seed, settings, counts)
    # campaigns first: their missions are on the deck's first cards whatever the seed, so
    # they take those cards' quota before the kinds that can pose any mission
    for kind in RUN_ORDER[:4]:
        if not counts.get(kind):
            continue
        tally = tallies.setdefault(kind, KindTally(kind))
        if kind == "deal":
            got = _deals(counts[kind], spec, settings, seed, keys, progress, quota, executor, tally,
                         early.get(kind))
        else:
            got = _Fill(kind, counts[kind], spec, settings, seed, keys, progress, quota, executor,
                        tally, early.get(kind)).run()
        found += got
        short = counts[kind] - len(got)
        if short and kind != "mission":
            counts["mission"] = counts.get("mission", 0) + short
    return book_order(found)


#: the worked example: a small Mission in N (points, and actions at most), tried this often
EXAMPLE_POINTS, EXAMPLE_ACTIONS, EXAMPLE_TRIES = (2, 3), 4, 40


def example_puzzle(spec: Spec, seed: int, puzzles: list[Puzzle],
                   settings: Settings = Settings(), executor: Any = None,
                   early: dict[int, Job] | None = None) -> Puzzle | None:
    """A small Mission in N for the "How to solve one" page, none of the book's own (by
    key or mission): 2 or 3 points, 4 actions at most; None when no candidate fits.  The
    first that fits in label order, the candidates streamed through ``executor``
    (``early``: candidates sent before, by label number; those not taken are cancelled)."""
    from ..executors import Ahead, SerialExecutor

    executor = executor if executor is not None else SerialExecutor()
    taken = {p.key for p in puzzles}

    early = dict(early or {})

    def start(j: int) -> Job:
        job = early.pop(j, None)
        return job if job is not None else _send_example(executor, spec, seed, settings, j)

    try:
        with Ahead(start, EXAMPLE_TRIES, lookahead(executor)) as stream:
            for p in stream:
                if (p is not None and p.key not in taken
                        and EXAMPLE_POINTS[0] <= p.features.points <= EXAMPLE_POINTS[1]
                        and len(p.plan) <= EXAMPLE_ACTIONS):
                    return p
    finally:
        for job in early.values():
            job.cancel()
    return None


@dataclass(frozen=True)
class BookOptions:
    """What ``rove book`` is asked for, but the files: everything that decides the bytes."""

    count: int = 30
    mix: str = DEFAULT_MIX
    seed: int = 1
    paper: str = "a5"
    per_page: int = 1
    title: str = "ROVE"
    subtitle: str = "Verified Puzzles"
    imposition: str = "none"
    settings: Settings = Settings()
    export: bool = False

    def problems(self) -> list[str]:
        """What is wrong with the options, as the CLI reports it (``--name: why``)."""
        out = []
        try:
            parse_mix(self.mix)
        except ValueError as exc:
            out.append(f"--mix: {exc}")
        if not 1 <= self.count <= MAX_COUNT:
            out.append(f"--count is {self.count}; give 1 to {MAX_COUNT}")
        if self.paper not in BOOK_PAPERS:
            out.append(f"--paper is {self.paper!r}; use {', '.join(BOOK_PAPERS)}")
        for name, text in (("--title", self.title), ("--subtitle", self.subtitle)):
            if len(text) > 80 or not text.isprintable():
                out.append(f"{name} must be printable text of at most 80 characters")
        if self.imposition not in ("none", "booklet"):
            out.append(f"--imposition is {self.imposition!r}; use none or booklet")
        return out


#: the most puzzles a book may ask for
MAX_COUNT = 1000


@dataclass
class MadeBook:
    """A book made in memory: its puzzles, the PDF's bytes, the export's files (empty
    without ``export``) and a line for every kind the deck could not supply in full."""

    puzzles: list[Puzzle]
    pdf: bytes
    files: dict[str, str]
    short: list[str]


def make_book(spec: Spec, options: BookOptions, executor: Any = None,
              progress: Progress | None = None) -> MadeBook:
    """The whole of ``rove book`` but writing the files: the puzzles generated and proven
    (on ``executor``), the PDF rendered (imposed as asked) and the export's files, both
    checked on the reader's deck.  An empty ``puzzles`` (and no PDF) when the deck gave
    none; SolverBug or ExportCheckFailed when a check fails (a bug, never expected)."""
    mix = parse_mix(options.mix)
    tallies: dict[str, KindTally] = {}
    # the example's first candidates (a pure function of the seed) fill the workers the
    # book's last tasks leave idle; in this process nothing is sent ahead
    ahead = lookahead(executor) if executor is not None else 1
    examples = {j: _send_example(executor, spec, options.seed, options.settings, j)
                for j in range(ahead)} if ahead > 1 else {}
    puzzles = generate_book(spec, options.count, mix, options.seed, options.settings, progress,
                            executor=executor, tallies=tallies)
    if not puzzles:
        for job in examples.values():
            job.cancel()
        return MadeBook([], b"", {}, [])
    example = example_puzzle(spec, options.seed, puzzles, options.settings, executor=executor,
                             early=examples)
    data = render_book(spec, puzzles, options.seed, options.paper, options.title, options.subtitle,
                       example, options.per_page)
    files = export_files(puzzles, spec, options.title, options.seed) if options.export else {}
    if options.imposition == "booklet":
        from ..pdf.impose import impose_booklet

        data = impose_booklet(data, "a4" if options.paper in ("a5", "a4") else "letter")
    return MadeBook(puzzles, data, files, shortfalls(options.count, mix, puzzles, tallies))


def book_order(puzzles: list[Puzzle]) -> list[Puzzle]:
    """By stars (the book ramps), and within a grade arranged so that no two neighbouring
    puzzles pose the same mission and kinds alternate where they can.

    Within a grade the puzzles start in (kind, score) order; each next place takes, among
    those whose mission differs from the puzzle before it, the one whose mission is left
    most often in the grade (so the repeats can still be spread: the classic greedy that
    keeps equal items apart whenever that is possible), then one of another kind than the
    puzzle before, then the earliest."""
    ranked = sorted(puzzles, key=lambda p: (p.stars, KIND_ORDER.index(p.kind), p.score, p.source))
    out: list[Puzzle] = []
    for stars in sorted({p.stars for p in ranked}):
        left = [p for p in ranked if p.stars == stars]
        while left:
            prev = out[-1] if out else None
            prev_missions = posed_missions(prev) if prev else frozenset()
            fits = [p for p in left if not posed_missions(p) & prev_missions] or left
            left_count = Counter(m for q in left for m in posed_missions(q))
            ranks = [(-max((left_count[m] for m in posed_missions(p)), default=0),
                      int(prev is not None and p.kind == prev.kind), i)
                     for i, p in enumerate(fits)]
            best = fits[min(ranks)[2]]
            left.remove(best)
            out.append(best)
    return _part_neighbours(out)


def _part_neighbours(order: list[Puzzle]) -> list[Puzzle]:
    """Mend what the grade-by-grade greedy cannot see: two neighbours with one mission
    across a grade boundary.  The later one trades places with a puzzle of its own grade
    (so the grades still ramp) where that leaves no equal neighbours around either place;
    failing that, the earlier one does."""
    out = list(order)

    def clash(i: int) -> bool:
        return 0 < i < len(out) and bool(posed_missions(out[i]) & posed_missions(out[i - 1]))

    for i in range(1, len(out)):
        if not clash(i):
            continue
        for at in (i, i - 1):
            others = [j for j in range(len(out)) if j not in (i, i - 1) and out[j].stars == out[at].stars]
            for j in others:
                out[at], out[j] = out[j], out[at]
                if not any(clash(x) for x in (at, at + 1, j, j + 1)):
                    break
                out[at], out[j] = out[j], out[at]
            else:
                continue
            break
    return out


KIND_NOUNS = {"mission": ("Mission in N puzzle", "Mission in N puzzles"),
              "hand": ("hand puzzle", "hand puzzles"), "deal": ("verified deal", "verified deals"),
              "campaign": ("campaign", "campaigns")}


def shortfalls(count: int, mix: dict[str, int], puzzles: list[Puzzle],
               tallies: dict[str, KindTally] | None = None) -> list[str]:
    """One line for each kind the book asked for and the deck could not supply in full:
    what was asked, what was made, and which limit binds (from the kind's ``KindTally``
    when given: the candidate budget, the generator's reach within its node budgets, or
    the variety rule's caps)."""
    out = []
    tallies = tallies or {}
    made = {k: sum(p.kind == k for p in puzzles) for k in KIND_ORDER}
    for kind, asked in split_count(count, mix).items():
        if kind == "mission" or made[kind] >= asked:
            continue
        per, floor = ATTEMPTS[kind]
        why = (binding_limit(tallies[kind], count) if kind in tallies else
               f"of up to {max(floor, per * asked)} candidates from this deck, too few passed the "
               "proofs within their node budgets (or they repeated a mission too often)")
        out.append(f"asked for {plural(asked, *KIND_NOUNS[kind])}, made {made[kind]}: {why}; "
                   "Mission in N puzzles took the free places")
    if sum(made.values()) < count:
        why = (binding_limit(tallies["mission"], count) if "mission" in tallies
               else "even Mission in N candidates ran out")
        out.append(f"made {sum(made.values())} of the {count} puzzles asked for: Mission in N "
                   f"fell short: {why}")
    return out


def binding_limit(t: KindTally, count: int) -> str:
    """Why a kind fell short, in words: what became of its candidates and which limit
    binds (the one that turned away most of them).  A deal's candidates are whole games:
    the ones not printed were mostly lost or left undecided by both players within their
    node budgets (the deal generator's reach), and the budget is the book's, so slots
    that found nothing spend what the others left."""
    deal = t.kind == "deal"
    reach = (("the deal generator's reach",
              f"{t.none} were lost or undecided within the solvers' node budgets") if deal else
             ("the generator's reach", f"{t.none} kept no puzzle within their node budgets"))
    parts = {
        reach[0]: (t.none, reach[1]),
        "repeats": (t.duplicate, f"{t.duplicate} repeated a puzzle of the book"),
        "the variety rule's book cap": (t.book_cap, f"{t.book_cap} would pose a mission more than "
                                        f"{mission_cap(count)} times in the book"),
        "the variety rule's grade cap": (t.grade_cap, f"{t.grade_cap} would pose a mission more "
                                         f"than {grade_cap(count)} times in one grade"),
        "the star quotas": (t.spare, f"{t.spare} were proven but of grades already full"),
    }
    said = "; ".join(text for n, text in parts.values() if n)
    if t.tried < t.budget:
        return (f"all its {t.tried} candidates were proven before the budget of {t.budget} ran "
                f"out ({said or 'none left'}): the binding limit is the variety rule's caps")
    worst = max(parts, key=lambda k: parts[k][0])
    what = "deal candidate budget" if deal else "candidate budget"
    return (f"the {what} of {t.budget} ({ATTEMPTS[t.kind][0]} a {'deal' if deal else 'puzzle'} "
            f"asked) was spent ({said}): the binding limit is {worst}")


# --------------------------------------------------------------------------- printing and export


def puzzle_name(number: int, p: Puzzle) -> str:
    return f"{number:02d}-{p.kind}"


def puzzle_title(p: Puzzle) -> str:
    """The puzzle's title as the book and the export print it (a deal without a
    difficulty is just a verified deal, never "Verified deal (None)")."""
    if p.kind == "deal" and not p.difficulty:
        return "Verified deal"
    return p.title


def _count(value: object) -> int | None:
    """``value`` as a whole number for the page, or None when it is not one: a bool (a
    flag where a count belongs), None, nan, a fraction."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _said(words: dict[int, str], value: object) -> str | None:
    """The words for a coded feature (``greedy``: 0, 1, 2), or None for anything else."""
    n = _count(value)
    return words.get(n) if n is not None else None


def measured(p: Puzzle) -> tuple[str, ...]:
    """The graded features, in words, for the solutions section.  A feature that is not a
    number (a flag or None where a count belongs) is left out rather than printed."""
    f = p.features
    n = {name: _count(getattr(f, name)) for name in (
        "points", "cards", "abilities", "hand_size", "nodes", "traps", "wrong_plays", "plays",
        "branching", "first_moves", "actions", "solutions")}
    score = (f"score {p.score:.1f}" if isinstance(p.score, (int, float)) and not isinstance(p.score, bool)
             and math.isfinite(p.score) else None)
    words: list[str | None] = []
    if p.kind == "deal":
        if n["points"] is not None and n["cards"] is not None and n["abilities"] is not None:
            words.append(f"winning line of {plural(n['points'], 'point')}, "
                         f"{plural(n['cards'], 'card')} and "
                         f"{plural(n['abilities'], 'ability', 'abilities')}")
        if n["hand_size"]:
            words.append(f"starting hand of {n['hand_size']}")
        if n["nodes"] is not None:
            words.append(f"the game solver examined {plural(n['nodes'], 'position')}")
        return tuple(w for w in words if w)
    first_moves = (None if n["first_moves"] is None else "a unique optimal first move"
                   if n["first_moves"] == 1 else "2 or more optimal first moves")
    if p.kind == "campaign":
        costs = [_count(pos.current.points) if pos.current else 0 for pos, _ in p.legs]
        if all(c is not None for c in costs):
            words.append(f"{len(p.legs)} missions costing {', '.join(map(str, costs))} points on "
                         "the book's line (each proven optimal from where the line leaves the "
                         "layout, by CP-SAT and A*)")
        if n["traps"] is not None:
            words.append(f"{plural(n['traps'], 'trap')} (missions after which some optimal "
                         "finish leaves the next one out of its budget)")
        words.append(_said({0: "a greedy player completes them all", 1: "a greedy player gets "
                            "stuck after the first mission", 2: "a greedy player fails the first "
                            "mission"}, f.greedy))
        words += [first_moves, score]
        return tuple(w for w in words if w)
    if p.kind == "mission":
        if n["points"] is not None:
            words.append(f"optimum {plural(n['points'], 'point')} (A*)")
        words.append(first_moves)
    else:
        if n["points"] is not None and n["cards"] is not None:
            words.append(f"best {plural(n['points'], 'point')} and {plural(n['cards'], 'card')} (A*)")
        if n["wrong_plays"] is not None and n["plays"] is not None:
            words.append(f"{n['wrong_plays']} of {n['plays']} opening card plays fail or cost more")
        if f.bonus_needed is True:
            words.append("a bonus is needed")
    if n["abilities"]:
        words.append(f"{plural(n['abilities'], 'ability', 'abilities')} needed")
    if n["actions"]:
        words.append(f"a plan of {plural(n['actions'], 'action')}")
    if n["solutions"]:
        words.append("a unique optimal solution (up to the order of independent actions)"
                     if n["solutions"] == 1 else
                     f"{n['solutions']} essentially different optimal solutions")
    if n["branching"] is not None:
        words.append(f"{plural(n['branching'], 'action')} at the start")
    words.append(_said({0: "a greedy player finds it", 1: "a greedy player overspends",
                        2: "a greedy player gets stuck"}, f.greedy))
    if n["nodes"] is not None:
        words.append(f"A* examined {plural(n['nodes'], 'position')}")
    words.append(score)
    return tuple(w for w in words if w)


def book_puzzles(puzzles: list[Puzzle]):  # -> list[BookPuzzle]
    """The puzzles as the PDF prints them (imports ReportLab)."""
    from ..pdf.book import BookPuzzle
    from .hints import check_hints, hints_for

    out = []
    for i, p in enumerate(puzzles, 1):
        legs = _legs(p)
        check_hints(p.kind, legs)
        out.append(BookPuzzle(number=i, name=puzzle_name(i, p), kind=p.kind, title=puzzle_title(p),
                              stars=p.stars, position=p.position, plan=p.plan, notes=p.notes,
                              measured=measured(p), difficulty=p.difficulty, legs=p.legs,
                              hints=hints_for(p.kind, legs)))
    return out


# --------------------------------------------------------------------------- the reader's deck


def reader_spec(source: Spec, p: Puzzle) -> Spec:
    """The deck a reader of ``p`` holds: ``source``, the deck the book was asked for, with
    only what ``p``'s kind says it changes (a campaign: its generated missions on the
    mission sides of the cards its missions name).  Built from ``source`` itself, never
    from the spec the kind made for its own solvers, so a deck a kind swapped in shows."""
    if p.kind != "campaign":
        return source
    missions = {pos.mission: pos.spec.card(pos.mission).mission for pos, _ in p.legs
                if pos.mission is not None}
    foreign = sorted(set(missions) - {c.id for c in source.cards})
    if foreign:
        raise SolverBug(f"a campaign names cards the deck does not have: {', '.join(foreign)}")
    return replace(source, cards=tuple(replace(c, mission=missions[c.id]) if c.id in missions else c
                                       for c in source.cards))


def _legs(p: Puzzle) -> tuple[tuple[Position, tuple[Action, ...]], ...]:
    """The positions a puzzle poses and their solutions: a campaign's every mission."""
    return p.legs if p.kind == "campaign" else ((p.position, p.plan),)


def check_reader_deck(source: Spec, puzzles: list[Puzzle]) -> None:
    """Every puzzle is posed on, and its solution replays on, the reader's deck
    (``reader_spec``): the same modules as ``source`` field for field (both sides' arrows,
    abilities, codes), the same cards but for the changes its kind states, and every
    printed plan legal and reaching its goal when replayed by the rules engine on that
    deck.  Run before a book or an export is written; raises SolverBug (a bug in a
    puzzle kind, never a user's error) on any difference."""
    from ..replay import replay

    for i, p in enumerate(puzzles, 1):
        reader = reader_spec(source, p)
        for k, (pos, plan) in enumerate(_legs(p), 1):
            where = f"puzzle {i} ({p.kind}{f', mission {k}' if p.kind == 'campaign' else ''})"
            if pos.spec.modules != source.modules:
                changed = [m.code for m, n in zip(pos.spec.modules, source.modules) if m != n]
                raise SolverBug(f"{where} is posed on modules other than the deck's "
                                f"({', '.join(changed) or 'module list'} differ)")
            if (pos.spec.cards, pos.spec.missions_to_win) != (reader.cards, reader.missions_to_win):
                raise SolverBug(f"{where} is posed on cards other than the deck's")
            r = replay(replace(pos, spec=reader), list(plan))
            if not (r.legal and r.goal_reached):
                why = f"step {r.first_illegal[0]}: {r.first_illegal[1]}" if r.first_illegal else \
                    "it does not reach the goal"
                raise SolverBug(f"{where}: the printed solution fails on the reader's deck ({why})")


#: the book's page sizes: A5 and A4, US Letter, 6 x 9 in (a print-on-demand trim)
BOOK_PAPERS = ("a5", "a4", "letter", "6x9")


def render_book(spec: Spec, puzzles: list[Puzzle], seed: int, paper: str = "a5",
                title: str = "ROVE", subtitle: str = "Verified Puzzles",
                example: Puzzle | None = None, per_page: int = 1) -> bytes:
    """The PDF bytes of a book of these puzzles (checked on the reader's deck first), with
    ``example`` worked through on a page before the first puzzle; ``per_page`` 2 puts two
    neighbouring small Mission in N on one page."""
    from ..pdf.book import BookInfo, render_book_pdf

    check_reader_deck(spec, puzzles + ([example] if example else []))

    kinds = {p.kind for p in puzzles}
    kinds_text = []
    if "mission" in kinds:
        kinds_text.append((KIND_NAMES["mission"],
                           "A layout, some spent modules, a mission and a bare budget of N "
                           "movement points, no cards. N is the proven optimum."))
    if "hand" in kinds:
        kinds_text.append((KIND_NAMES["hand"],
                           "A layout, a mission and a hand of movement cards. Bonus patterns "
                           "matter: play the cards in the wrong order, or for their base points, "
                           "and the mission gets dearer or impossible."))
    if "deal" in kinds:
        kinds_text.append((KIND_NAMES["deal"] + "s",
                           "Whole games from real deals (normal, hard, impossible), proven "
                           "winnable. The book lists the card order to stack a real deck."))
    if "campaign" in kinds:
        kinds_text.append((KIND_NAMES["campaign"] + "s",
                           "New missions, generated for this book, played in order from the "
                           "standard start by movement alone (every module spent, moving on its "
                           "spent side), each within its own budget. "
                           "Finish each mission with the next one in mind."))
    worked = book_puzzles([example])[0] if example else None
    info = BookInfo(title=title, subtitle=subtitle, spec_name=spec.name, seed=seed, paper=paper,
                    grading=tuple(GRADING_TEXT), kinds_text=tuple(kinds_text), example=worked,
                    per_page=per_page)
    return render_book_pdf(spec, book_puzzles(puzzles), info)


class ExportCheckFailed(RuntimeError):
    """The export, read back from disk, is not what the book printed (a bug: never expected)."""


def _spec_file_name(spec: Spec, taken: set[str]) -> str:
    """``specs/NAME.yaml`` for the book's spec: the name of the file it was read from
    (``standard`` for the bundled deck), made safe, never one of the ``taken`` paths."""
    stem = Path(spec.path).stem if spec.path else spec.name
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "deck"
    name, k = f"specs/{base}.yaml", 1
    while name in taken:
        k += 1
        name = f"specs/{base}-{k}.yaml"
    return name


def spec_copy(spec: Spec) -> tuple[str, bool]:
    """The text of the spec file to ship with an export, and whether it is the spec's own
    file byte for byte (True) or a dump of the spec (False).  The file is copied when it
    stands alone (no ``include``) and, read back on its own, gives this very spec;
    otherwise (includes, a file changed since it was read, a spec not read from a file)
    the whole spec is dumped, which loads back equal."""
    from ..errors import InputError
    from ..spec import dump_spec, load_spec
    from ..yamlio import load_yaml_text

    if spec.path and Path(spec.path).is_file():  # a pipe (/dev/stdin) was read once: dump it
        try:
            raw = Path(spec.path).read_bytes()
            text = raw.decode("utf-8")
            data = load_yaml_text(text, spec.path)
            if isinstance(data, dict) and "include" not in data:
                with tempfile.TemporaryDirectory(prefix="rove-spec-") as tmp:
                    copy = Path(tmp, "spec.yaml")
                    copy.write_bytes(raw)
                    if load_spec(copy) == spec:
                        return text, True
        except (OSError, UnicodeError, InputError):
            pass
    return dump_spec(spec, schema=None), False


def export_files(puzzles: list[Puzzle], source: Spec, book_title: str = "ROVE", seed: int = 0,
                 ) -> dict[str, str]:
    """``NAME.yaml`` (the position) and ``NAME.plan.json`` (the solution) for every puzzle,
    and under ``specs/`` the spec every position names, so the export stands alone.

    The positions of Mission in N, hand puzzles and deals name a copy of the book's spec,
    ``specs/NAME.yaml`` (``specs/standard.yaml`` for the bundled deck): the spec's file
    byte for byte, or, for a spec with ``include``s, a dump of the whole spec.  A campaign
    is written as one position and plan per mission, ``NAME-K.yaml`` and
    ``NAME-K.plan.json``, each naming the campaign's spec ``specs/NAME.yaml`` (``source``
    with the generated missions on its first cards' mission sides, its header saying
    which); mission ``K+1`` starts where the plan of ``K`` ends.  Specs live in a subfolder,
    so every YAML file at the top is a position with its plan beside it; ``index.json``
    lists the puzzles for an app or a site (``book_index``).  Layouts are
    already re-based so (0, 0) is the top-left, which is exactly what ``dump_position``
    writes, so the plan's cells match the file.

    Before returning, the files are written to a temporary folder and read back
    (``check_export``); ExportCheckFailed if they do not give back the book's puzzles, and
    SolverBug if a puzzle does not hold on the reader's deck (``check_reader_deck``)."""
    check_reader_deck(source, puzzles)
    out: dict[str, str] = {}
    campaign_specs = {f"specs/{puzzle_name(i, p)}.yaml" for i, p in enumerate(puzzles, 1)
                      if p.kind == "campaign"}
    # the spec of every other puzzle, and its copy; the book's own deck always (the index names it)
    book_ref = _spec_file_name(source, campaign_specs)
    book_specs: list[tuple[Spec, str]] = [(source, book_ref)]
    out[book_ref] = spec_copy(source)[0]
    for i, p in enumerate(puzzles, 1):
        name = puzzle_name(i, p)
        if p.kind == "campaign":
            out[f"specs/{name}.yaml"] = _campaign_spec_text(i, p, source)
            for k, (pos, plan) in enumerate(p.legs, 1):
                title = f"Puzzle {i}: {puzzle_title(p)}, mission {k} of {len(p.legs)}"
                out[f"{name}-{k}.yaml"] = dump_position(replace(pos, spec_ref=f"specs/{name}.yaml"),
                                                        title=title)
                out[f"{name}-{k}.plan.json"] = dumps_plan(list(plan))
            continue
        ref = next((r for sp, r in book_specs if sp == p.position.spec), None)
        if ref is None:
            ref = _spec_file_name(p.position.spec, campaign_specs | {r for _, r in book_specs})
            book_specs.append((p.position.spec, ref))
            out[ref] = spec_copy(p.position.spec)[0]
        pos = replace(p.position, spec_ref=ref)
        if normalized_cells(pos.cells) != pos.cells:  # pragma: no cover - generators re-base
            raise SolverBug(f"{name}: layout is not re-based to (0, 0)")
        title = f"Puzzle {i}: {puzzle_title(p)}, {p.stars} star{'s' if p.stars != 1 else ''}"
        out[f"{name}.yaml"] = dump_position(pos, title=title)
        out[f"{name}.plan.json"] = dumps_plan(list(p.plan))
    out[INDEX] = book_index(puzzles, source, book_title, seed, book_ref)
    out = dict(sorted(out.items()))
    with tempfile.TemporaryDirectory(prefix="rove-export-") as tmp:
        for rel, text in out.items():
            target = Path(tmp, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        check_export(Path(tmp), puzzles, source)
    return out


#: the export's list of puzzles, for apps and sites (docs/FORMATS.md, "Book index")
INDEX = "index.json"
INDEX_FORMAT, INDEX_VERSION = "rove-book-index", 1


def _index_files(number: int, p: Puzzle) -> tuple[str, str]:
    """The position and solution files the index names for a puzzle: a campaign's first
    mission (the next ones follow as NAME-2.yaml, ...)."""
    name = puzzle_name(number, p)
    stem = f"{name}-1" if p.kind == "campaign" else name
    return f"{stem}.yaml", f"{stem}.plan.json"


def book_index(puzzles: list[Puzzle], source: Spec, title: str, seed: int, spec_ref: str) -> str:
    """``index.json``: the book's title, deck file and seed, and for every puzzle its files,
    title, kind, stars, proven optimum (of the position its file holds: the printed plan's
    cost, which the solvers proved optimal; null for a deal, a whole game proven
    winnable) and its three hints as the book prints them.  Keys in a fixed order and
    no figure that depends on the run, so the same seed writes the same bytes."""
    import json

    from ..pdf.book import hint_runs
    from ..solve.result import plan_cost
    from .hints import hints_for

    names = {m.code: m.name for m in source.modules}
    rows = []
    for i, p in enumerate(puzzles, 1):
        legs = _legs(p)
        h = hints_for(p.kind, legs)
        file, solution = _index_files(i, p)
        points, cards, abilities = plan_cost(legs[0][1])
        rows.append({
            "number": i, "file": file, "solution": solution, "title": puzzle_title(p), "kind": p.kind,
            "stars": p.stars,
            "optimum": None if p.kind == "deal" else {"points": points, "cards": cards,
                                                      "abilities": abilities},
            "hints": ["".join(t for _, t in hint_runs(h, p.kind, level, names)) for level in (1, 2)]
            + [h.note],
        })
    data = {"format": INDEX_FORMAT, "version": INDEX_VERSION, "title": title, "spec": spec_ref,
            "seed": seed, "puzzles": rows}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _check_index(folder: Path, puzzles: list[Puzzle], fail: Callable[[str], Exception]) -> None:
    """``index.json`` read back: its format, one row per puzzle in book order, and every
    file it names there, holding that puzzle (its solution replayed to the optimum the
    row states)."""
    import json

    from ..actions import load_plan
    from ..solve.result import plan_cost

    try:
        data = json.loads((folder / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise fail(f"{INDEX} does not read back ({exc})") from None
    if (data.get("format"), data.get("version")) != (INDEX_FORMAT, INDEX_VERSION):
        raise fail(f"{INDEX} is not a {INDEX_FORMAT} version {INDEX_VERSION}")
    if not (folder / data["spec"]).is_file():
        raise fail(f"{INDEX} names the spec {data['spec']}, which is not in the export")
    rows = data["puzzles"]
    if [r["number"] for r in rows] != list(range(1, len(puzzles) + 1)):
        raise fail(f"{INDEX} does not list the book's {len(puzzles)} puzzles in order")
    for i, (row, p) in enumerate(zip(rows, puzzles), 1):
        if (row["file"], row["solution"]) != _index_files(i, p) or (
                row["kind"], row["stars"], row["title"]) != (p.kind, p.stars, puzzle_title(p)):
            raise fail(f"{INDEX} row {i} is not puzzle {i} of the book")
        cost = plan_cost(tuple(load_plan(folder / row["solution"])))
        want = None if p.kind == "deal" else dict(zip(("points", "cards", "abilities"), cost))
        if row["optimum"] != want or len(row["hints"]) != 3 or not all(row["hints"]):
            raise fail(f"{INDEX} row {i}: its optimum or hints are not the book's")


def _campaign_spec_text(number: int, p: Puzzle, source: Spec) -> str:
    """A campaign's deck file: a header naming what differs from ``source`` (the mission
    sides of the cards its missions use), then the whole deck."""
    from ..spec import dump_spec

    ids = [pos.mission for pos, _ in p.legs]
    head = [f"# Puzzle {number}: {puzzle_title(p)}.",
            f"# The deck '{source.name}' as given, except the mission sides of cards "
            f"{', '.join(str(i) for i in ids)},",
            "# which carry this campaign's generated missions. Every mission is played with every",
            "# module spent: modules move on their spent sides, no ability is left."]
    return "\n".join(head) + "\n" + dump_spec(p.position.spec, schema=None)


def check_export(folder: Path, puzzles: list[Puzzle], source: Spec) -> None:
    """Read an export back from ``folder`` as ``rove solve`` and ``rove replay`` would:
    every position loads (its spec found by the relative path it names, never a bundled
    name) with the spec, layout and mission the book printed, every spec under ``specs/``
    validates, and every plan replays to its goal, both on the spec the file names and on
    the reader's deck (``reader_spec`` of ``source``: the exported spec must not differ
    from it).  Raises ExportCheckFailed."""
    from ..actions import load_plan
    from ..position import load_position
    from ..replay import replay
    from ..spec import load_spec

    def fail(message: str) -> ExportCheckFailed:
        return ExportCheckFailed(f"the export does not check: {message}")

    for spec_file in sorted((folder / "specs").glob("*.yaml")):
        load_spec(spec_file)  # validates (InputError)
    for i, p in enumerate(puzzles, 1):
        name = puzzle_name(i, p)
        legs = ([(f"{name}-{k}", pos, plan) for k, (pos, plan) in enumerate(p.legs, 1)]
                if p.kind == "campaign" else [(name, p.position, p.plan)])
        for stem, want, plan in legs:
            got = load_position(folder / f"{stem}.yaml")
            spec_file = Path(got.spec_ref)
            if spec_file.is_absolute() or spec_file.parts[:1] != ("specs",) or len(spec_file.parts) != 2:
                raise fail(f"{stem}.yaml names the spec {got.spec_ref!r}, not a copy in specs/")
            if got.spec != want.spec:
                raise fail(f"{got.spec_ref} is not the spec of {stem}")
            if (got.cells, got.spent, got.mission, got.hand, got.draw, got.current) != (
                    want.cells, want.spent, want.mission, want.hand, want.draw, want.current):
                raise fail(f"{stem}.yaml is not the position the book printed")
            if got.spec.modules != source.modules:
                raise fail(f"{got.spec_ref} has modules other than the deck's")
            reader = reader_spec(source, p)
            for deck_spec in (got.spec, reader):
                r = replay(replace(got, spec=deck_spec), load_plan(folder / f"{stem}.plan.json"))
                if not (r.legal and r.goal_reached):
                    raise fail(f"{stem}.plan.json does not reach the goal of {stem}.yaml"
                               + ("" if deck_spec is got.spec else " on the reader's deck"))
            if list(load_plan(folder / f"{stem}.plan.json")) != list(plan):
                raise fail(f"{stem}.plan.json is not the book's solution")
    _check_index(folder, puzzles, fail)


def earlier_export(folder: Path) -> list[str]:
    """The entries of ``folder`` an earlier export may have left: position or spec YAML
    files, plans and JSON files, and the ``specs`` folder (sorted; hidden entries and
    other files, such as the book's own PDF, are not counted).  Empty for a folder that
    does not exist."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names if not n.startswith(".") and (
        n == "specs" or n.endswith((".yaml", ".yml", ".json"))))
