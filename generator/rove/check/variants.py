"""Variants of a deck that differ only in its cards' numbers (and, for ``rove tune --vary
missions``, in which cards' mission patterns are swapped for generated ones), and the
expert's win rate of each on the same seeded deals (common random numbers): what ``rove
tune`` searches over and ``rove check --sensitivity`` measures.

A variant is the designer's deck with each card's base points and bonus moved by a
small step and its mission either its own or one of the card's *alternatives*
(:class:`Variant`, a tuple of per-card deltas; the alternatives are fixed for a run, so a
variant names them by index), so comparing two variants on
the same deals compares the numbers, not the luck of the shuffle: deal ``i`` of every
variant is dealt from :func:`~rove.check.options.deal_seed` ``(seed, i)`` exactly as in
``rove check``, and the order of the cards in the spec (hence the shuffle) never changes.

Every game is played by the check's own expert task (``run._expert_task``: a win is
replayed through the rules engine), on a spec file written once per variant into a
private folder, so the workers load it as they load any checked spec.  Results are
cached per (variant, difficulty, deal), so successive halving, which asks for more
deals of the survivors, pays only for the new ones.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..spec import Card, Mission, Spec, dump_spec, load_spec
from .options import DEFAULT_EXPERT_NODE_LIMIT, deal_seed
from .report import wilson
from .run import run_task, spec_fingerprint
from .tasks import ExpertTask, SpecRef, Task

MAX_NUMBER = 9  # the largest base points or bonus a card may have (the spec's limit)

#: one card's change: (base points delta, bonus delta, mission: 0 its own, k its k-th alternative)
Delta = tuple[int, int, int]
#: a deck variant: one delta per card, in spec order
Variant = tuple[Delta, ...]
#: progress of an evaluation: (games done, games asked)
GamesFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Alternative:
    """A mission a card may take instead of its own (``rove tune --vary missions``): a
    pattern from the mission generator, with the cost the generator proved for it."""

    mission: Mission
    cost: int  # proven optimal points by movement alone, from where the generator posed it


#: per card (in spec order), the missions it may take instead of its own
Alternatives = tuple[tuple[Alternative, ...], ...]


def zero(spec: Spec) -> Variant:
    """The designer's deck itself."""
    return tuple((0, 0, 0) for _ in spec.cards)


def apply_variant(spec: Spec, v: Variant, alternatives: Alternatives = ()) -> Spec:
    """The spec with every card's numbers moved by its delta and its mission swapped for
    the alternative the delta names (the cards' order, the movement patterns and the
    modules stay)."""
    cards: list[Card] = []
    for i, (c, (dp, db, m)) in enumerate(zip(spec.cards, v)):
        mv = replace(c.movement, points=c.movement.points + dp, bonus=c.movement.bonus + db)
        mission = alternatives[i][m - 1].mission if m else c.mission
        cards.append(replace(c, mission=mission, movement=mv))
    return replace(spec, cards=tuple(cards), path=None)


def valid(spec: Spec, v: Variant, max_change: int | None = None) -> bool:
    """Whether a variant's numbers make a legal deck (0 <= points < bonus <= 9) within
    ``max_change`` of the designer's (the missions are swapped only among a card's own
    alternatives, :func:`swap`)."""
    for c, (dp, db, _) in zip(spec.cards, v):
        p, b = c.movement.points + dp, c.movement.bonus + db
        if p < 0 or b > MAX_NUMBER or b <= p:
            return False
        if max_change is not None and (abs(dp) > max_change or abs(db) > max_change):
            return False
    return True


def step(spec: Spec, v: Variant, i: int, dp: int, db: int, max_change: int | None = None,
         carry: bool = True) -> Variant | None:
    """``v`` with card ``i``'s points moved by ``dp`` and its bonus by ``db``; with
    ``carry``, a single move that would meet the other number takes it along (points
    raised to the bonus raise the bonus; a bonus lowered to the points lowers them), since
    a bonus must stay above the points.  None when the result is not a legal deck."""
    c = spec.cards[i].movement
    p, b, m = v[i]
    if carry and dp > 0 and not db and c.points + p + dp >= c.bonus + b:
        db = dp
    if carry and db < 0 and not dp and c.bonus + b + db <= c.points + p:
        dp = db
    out = v[:i] + ((p + dp, b + db, m),) + v[i + 1:]
    return out if valid(spec, out, max_change) else None


def swap(v: Variant, i: int, m: int) -> Variant:
    """``v`` with card ``i`` taking mission ``m`` (0: its own, k: its k-th alternative)."""
    dp, db, _ = v[i]
    return v[:i] + ((dp, db, m),) + v[i + 1:]


def change_size(v: Variant) -> int:
    """How far a variant is from the designer's deck: the sum of the numbers' moves, and
    one for each mission swapped."""
    return sum(abs(dp) + abs(db) + (1 if m else 0) for dp, db, m in v)


def describe(spec: Spec, v: Variant, alternatives: Alternatives = ()) -> list[str]:
    """One phrase per changed card, e.g. ``c03 points 3->2, bonus 5->4`` or ``c05 mission
    'Signal Tower' -> 'Hollow Beacon' (cost 3)``."""
    out = []
    for i, (c, (dp, db, m)) in enumerate(zip(spec.cards, v)):
        parts = []
        if m:
            alt = alternatives[i][m - 1]
            parts.append(f"mission {c.mission.title!r} -> {alt.mission.title!r} (cost {alt.cost})")
        if dp:
            parts.append(f"points {c.movement.points}->{c.movement.points + dp}")
        if db:
            parts.append(f"bonus {c.movement.bonus}->{c.movement.bonus + db}")
        if parts:
            out.append(f"{c.id} " + ", ".join(parts))
    return out


@dataclass(frozen=True)
class Rate:
    """The expert's games of one variant at one difficulty over ``deals`` deals (the first
    ones, or a block of them: :meth:`Evaluator.evaluate`)."""

    won: int
    deals: int
    budget: int  # games lost at the node budget (counted as losses; reported apart)

    @property
    def rate(self) -> float:
        return self.won / self.deals if self.deals else 0.0

    @property
    def wilson95(self) -> tuple[float, float]:
        return wilson(self.won, self.deals)

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.wilson95
        return {"won": self.won, "deals": self.deals, "budget_losses": self.budget,
                "win_rate": round(self.rate, 4), "wilson95": [round(lo, 4), round(hi, 4)]}


class Evaluator:
    """The expert's results of deck variants on common seeded deals, cached.

    Use it as a context manager: the variants' spec files live in a private folder that
    is removed at the end."""

    def __init__(self, spec: Spec, seed: int, executor: Any = None,
                 expert_node_limit: int = DEFAULT_EXPERT_NODE_LIMIT,
                 alternatives: Alternatives = ()) -> None:
        from ..executors import SerialExecutor

        self.spec = spec
        self.alternatives = alternatives
        self.seed = seed
        self.executor = executor if executor is not None else SerialExecutor()
        self.node_limit = expert_node_limit
        self.games = 0  # games played so far (cache misses)
        self._won: dict[tuple[Variant, str, int], tuple[bool, bool]] = {}
        self._files: dict[Variant, tuple[str, str]] = {}
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Evaluator:
        self._dir = tempfile.TemporaryDirectory(prefix="rove-variants-")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def _file(self, v: Variant) -> tuple[str, str]:
        """The variant's spec file (written once) and its fingerprint."""
        got = self._files.get(v)
        if got is None:
            if self._dir is None:
                raise RuntimeError("use the Evaluator as a context manager")
            text = dump_spec(apply_variant(self.spec, v, self.alternatives), schema=None)
            name = hashlib.sha256(text.encode()).hexdigest()[:16]
            path = Path(self._dir.name) / f"{name}.yaml"
            path.write_text(text, encoding="utf-8")
            got = (str(path), spec_fingerprint(load_spec(path)))
            self._files[v] = got
        return got

    def evaluate(self, variants: Iterable[Variant], difficulties: Sequence[str], deals: int,
                 progress: GamesFn | None = None, first: int = 0) -> dict[Variant, dict[str, Rate]]:
        """Each variant's expert results at each difficulty over deals ``first .. first +
        deals - 1`` (the games not yet cached are played, all variants' together)."""
        vs = list(dict.fromkeys(variants))
        span = range(first, first + deals)
        tasks: list[Task] = []
        keys: list[tuple[Variant, str, int]] = []
        for v in vs:
            path, fp = self._file(v)
            for d in difficulties:
                for i in span:
                    if (v, d, i) not in self._won:
                        tasks.append(ExpertTask(SpecRef(path, fp), i, deal_seed(self.seed, i), d,
                                                self.node_limit))
                        keys.append((v, d, i))
        if progress:
            progress(0, len(tasks))
        done = 0
        # an expert game takes seconds on a hard deck: one a chunk, as in `rove check`, so
        # that no worker waits while another runs out a chunk of long games at a rung's end
        for j, res in self.executor.map_unordered(run_task, tasks, 1):
            self._won[keys[j]] = (res["status"] == "won", res["reason"] == "budget")
            done += 1
            if progress:
                progress(done, len(tasks))
        self.games += len(tasks)
        out: dict[Variant, dict[str, Rate]] = {}
        for v in vs:
            out[v] = {}
            for d in difficulties:
                got = [self._won[(v, d, i)] for i in span]
                out[v][d] = Rate(sum(w for w, _ in got), deals, sum(b for _, b in got))
        return out

    def prime(self, v: Variant, rows: Iterable[dict[str, Any]]) -> None:
        """Take games already played (a check's expert rows, same seed and node limit) as
        the results of ``v``, so they are not played again."""
        for r in rows:
            self._won[(v, r["difficulty"], r["index"])] = (r["status"] == "won", r["reason"] == "budget")

    def outcomes(self, v: Variant, difficulty: str, deals: int) -> list[bool]:
        """Won or not, deal by deal (evaluated before)."""
        return [self._won[(v, difficulty, i)][0] for i in range(deals)]
