"""`rove tune`: move a deck's numbers until the expert wins as often as the designer asks.

The search works on the cards' base points and bonuses (``vary``); the modules, the
missions and the cards' order never change.  It is a greedy descent, one step a round:

1. The current deck (at first the designer's) is played by the expert on the final
   number of seeded deals per target difficulty (``deals``, at least 200).  When every
   target lies inside the Wilson 95% interval of its measured rate the search stops:
   that is the tolerance.
2. Otherwise the direction is the sign of the summed gaps (too easy: numbers go down).
   The candidate steps are one card's base points, or one card's bonus, one step in that
   direction; when a target is far (``FAR`` points or more) the whole deck's points,
   bonuses, or both, one step at once, are tried first, and the single cards' only if
   none of those helps: no single card's step closes a far gap, and a few candidates
   cost a tenth of thirty.  The whole-deck steps come in every length up to
   ``max_change`` (one, two, three steps at once), since a deck so easy that every deal
   is won may not move at one step (a plateau); ties go to the shorter.
3. Successive halving picks the step: every candidate plays the first ``first_deals``
   deals, the best third plays three times as many, and so on up to the final deals;
   the deals are the same for every candidate (common random numbers), so candidates
   are compared on the numbers, not on the luck of the shuffle.  Candidates are ranked
   by the squared distance of their rates to the targets, then by the size of their
   change from the designer's deck (the smallest change wins a tie), then by a fixed
   order.
4. The survivor replaces the current deck if it is closer to the targets over the final
   deals; if it is not, no step helps and the search stops with the closest deck it
   found, and the gap still left (``reached`` false).

Everything is seeded and every game node-bounded, so the same spec, targets and seed
give the same tuned deck on any machine and any number of workers.  The search keeps
the closest deck so far in :class:`TuneState`, so an interrupted run can still write it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..generators.deals import DIFFICULTIES
from ..spec import Spec, dump_spec
from .options import DEFAULT_EXPERT_NODE_LIMIT
from .variants import (
    Evaluator,
    GamesFn,
    Rate,
    Variant,
    apply_variant,
    change_size,
    describe,
    step,
    zero,
)

TUNE_FORMAT = "rove-tune/1"
VARY = ("points", "bonus")  # the numbers the search may move (mission patterns are not yet)
MIN_FINAL_DEALS = 200
FAR = 0.15  # a gap (as a share) from which whole-deck steps are tried too

#: progress lines: (round, what is being done, games done, games asked)
TuneProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class TuneOptions:
    """What a tuning run depends on (workers do not belong here)."""

    targets: tuple[tuple[str, float], ...]
    vary: tuple[str, ...] = VARY
    seed: int = 0
    #: final deals per difficulty (the command line asks for at least MIN_FINAL_DEALS;
    #: tests use fewer)
    deals: int = MIN_FINAL_DEALS
    first_deals: int = 25
    max_change: int = 3
    max_rounds: int = 30
    expert_node_limit: int = DEFAULT_EXPERT_NODE_LIMIT

    def __post_init__(self) -> None:
        if not self.targets:
            raise ValueError("give at least one --target DIFFICULTY=RATE")
        seen = [d for d, _ in self.targets]
        bad = [d for d in seen if d not in DIFFICULTIES]
        if bad:
            raise ValueError(f"target difficulty {bad[0]!r} is not one of {', '.join(DIFFICULTIES)}")
        if len(set(seen)) != len(seen):
            raise ValueError("a difficulty has two targets")
        for d, r in self.targets:
            if not 0.0 < r < 1.0:
                raise ValueError(f"target {d}={r:g} must be a win rate strictly between 0 and 1")
        unknown = [v for v in self.vary if v not in VARY]
        if unknown or not self.vary:
            extra = " (mission patterns are not varied yet)" if "missions" in unknown else ""
            raise ValueError(f"--vary takes {', '.join(VARY)}{extra}")
        if self.deals < 1:
            raise ValueError("deals must be at least 1")
        if not 1 <= self.first_deals <= self.deals:
            raise ValueError("first deals must be between 1 and the final deals")
        if self.max_change < 1 or self.max_rounds < 0 or self.expert_node_limit < 1:
            raise ValueError("max change and node limit must be at least 1, rounds at least 0")

    @property
    def difficulties(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.targets)

    def to_json(self) -> dict[str, Any]:
        return {"targets": dict(self.targets), "vary": list(self.vary), "seed": self.seed,
                "deals": self.deals, "first_deals": self.first_deals,
                "max_change": self.max_change, "max_rounds": self.max_rounds,
                "expert_node_limit": self.expert_node_limit}


def rungs(options: TuneOptions) -> list[int]:
    """The deal counts of successive halving: first deals, three times as many, ... and
    the final deals last."""
    out = [options.first_deals]
    while out[-1] * 3 < options.deals:
        out.append(out[-1] * 3)
    if out[-1] != options.deals:
        out.append(options.deals)
    return out


def distance(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> float:
    """The squared distance of the rates to the targets (the search's objective)."""
    return sum((rates[d].rate - t) ** 2 for d, t in targets)


def within(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> bool:
    """Whether every target lies inside its rate's Wilson 95% interval."""
    return all(rates[d].wilson95[0] <= t <= rates[d].wilson95[1] for d, t in targets)


def candidates(spec: Spec, cur: Variant, direction: int, options: TuneOptions,
               far: bool) -> list[Variant]:
    """The steps from ``cur`` in ``direction`` (+1 raises numbers): whole-deck steps when
    ``far`` (and one is left), else one card's points or bonus, in card order; only legal
    decks within ``max_change`` of the designer's."""
    out: list[Variant] = []
    moves = [(direction, 0)] if "points" in options.vary else []
    if "bonus" in options.vary:
        moves.append((0, direction))
    if "points" in options.vary and "bonus" in options.vary:
        moves.insert(0, (direction, direction))
    if far:  # the whole deck at once, k steps (see the module's docstring)
        for k in range(1, options.max_change + 1):
            for dp, db in moves:
                # every card takes as many of the k steps as its limits allow
                v = tuple(next((w[i] for j in range(k, 0, -1)
                                if (w := step(spec, cur, i, j * dp, j * db, options.max_change,
                                              carry=False)) is not None), cur[i])
                          for i in range(len(cur)))
                if v != cur:
                    out.append(v)
        if out:
            return list(dict.fromkeys(out))
    both = "points" in options.vary and "bonus" in options.vary
    for i in range(len(cur)):
        for dp, db in moves:
            if dp and db:
                continue  # a single card moves one number at a time (the other follows
            # when the bonus must stay above the points, if both may vary)
            w = step(spec, cur, i, dp, db, options.max_change, carry=both)
            if w is not None:
                out.append(w)
    return list(dict.fromkeys(out))


@dataclass
class TuneState:
    """What the search knows so far; the closest deck is kept up to date, so an
    interrupted run can write it."""

    spec: Spec
    options: TuneOptions
    best: Variant
    best_rates: dict[str, Rate] | None = None
    rounds: int = 0
    games: int = 0
    reached: bool = False
    log: list[str] = field(default_factory=list)

    def offer(self, v: Variant, rates: dict[str, Rate]) -> None:
        """Keep ``v`` if it is closer to the targets over the final deals (ties: the
        smaller change)."""
        key = (distance(rates, self.options.targets), change_size(v))
        if self.best_rates is None or key < (distance(self.best_rates, self.options.targets),
                                             change_size(self.best)):
            self.best, self.best_rates = v, rates

    @property
    def tuned(self) -> Spec:
        return apply_variant(self.spec, self.best)

    def gaps(self) -> dict[str, float]:
        """Per target, measured minus target (points of win rate) for the closest deck."""
        if self.best_rates is None:
            return {}
        return {d: round(100 * (self.best_rates[d].rate - t), 1) for d, t in self.options.targets}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": TUNE_FORMAT, "spec": self.spec.name, "options": self.options.to_json(),
            "reached": self.reached, "rounds": self.rounds, "games": self.games,
            "changes": describe(self.spec, self.best), "change_size": change_size(self.best),
            "rates": ({d: r.to_json() for d, r in self.best_rates.items()}
                      if self.best_rates is not None else None),
            "gaps_points": self.gaps(), "log": self.log,
        }


def tune(spec: Spec, options: TuneOptions, executor: Any = None, state: TuneState | None = None,
         progress: TuneProgress | None = None) -> TuneState:
    """Search the deck's numbers for the targets (see the module's docstring).  Pass a
    ``state`` to keep hold of the closest deck if the run is interrupted."""
    st = state if state is not None else TuneState(spec, options, zero(spec))
    targets, diffs = options.targets, options.difficulties
    ladder = rungs(options)
    with Evaluator(spec, options.seed, executor, options.expert_node_limit) as ev:

        def measure(vs: list[Variant], n: int, what: str) -> dict[Variant, dict[str, Rate]]:
            fn: GamesFn | None = None
            if progress is not None:
                report = progress

                def fn(done: int, total: int) -> None:
                    report(what, done, total)
            got = ev.evaluate(vs, diffs, n, fn)
            st.games = ev.games
            return got

        cur = zero(spec)
        cur_rates = measure([cur], options.deals, "the designer's deck")[cur]
        st.offer(cur, cur_rates)
        st.log.append(_line("start", spec, cur, cur_rates, targets))
        while True:
            if within(cur_rates, targets):
                st.reached = True
                break
            if st.rounds >= options.max_rounds:
                break
            st.rounds += 1
            gap = sum(t - cur_rates[d].rate for d, t in targets)
            direction = 1 if gap > 0 else -1
            far = max(abs(t - cur_rates[d].rate) for d, t in targets) >= FAR
            # far: the whole deck's steps first, and the single cards' if none helps
            found = None
            for whole in (True, False) if far else (False,):
                pool = candidates(spec, cur, direction, options, whole)
                if not pool:
                    continue
                for k, n in enumerate(ladder):
                    rated = measure(pool, n, f"round {st.rounds}: {len(pool)} candidate(s), {n} deals")
                    pool.sort(key=lambda v: (distance(rated[v], targets), change_size(v)))
                    keep = 1 if k == len(ladder) - 1 else max(1, math.ceil(len(pool) / 3))
                    pool = pool[:keep]
                champion = pool[0]
                rates = measure([champion], options.deals, "")[champion]
                st.offer(champion, rates)
                if distance(rates, targets) < distance(cur_rates, targets):
                    found = champion, rates
                    break
            if found is None:
                st.log.append(f"round {st.rounds}: no step brings the rates closer; stopped")
                break
            cur, cur_rates = found
            st.log.append(_line(f"round {st.rounds}", spec, cur, cur_rates, targets))
    return st


def _line(what: str, spec: Spec, v: Variant, rates: dict[str, Rate],
          targets: Sequence[tuple[str, float]]) -> str:
    got = ", ".join(f"{d} {100 * rates[d].rate:.1f}% (target {100 * t:.0f}%)" for d, t in targets)
    changed = describe(spec, v)
    return f"{what}: {got}; " + (f"{len(changed)} card(s) changed" if changed else "no change")


def tuned_yaml(st: TuneState, table: list[str] | None = None, interrupted: bool = False) -> str:
    """The tuned spec, with a header comment saying what changed and the measured table
    (``table``: extra lines, e.g. the thoughtful rates)."""
    o = st.options
    head = [f"Tuned by `rove tune` from {st.spec.name!r}: seed {o.seed}, targets "
            + ", ".join(f"{d}={t:g}" for d, t in o.targets)
            + f", varying {', '.join(o.vary)} (each at most {o.max_change} from the designer's).",
            ("Interrupted (Ctrl-C): the closest deck found so far." if interrupted else
             "Every target is inside the Wilson 95% interval of its measured rate." if st.reached
             else "Not reached: the closest deck found; gaps (points of win rate): "
             + ", ".join(f"{d} {g:+.1f}" for d, g in st.gaps().items()) + ".")]
    changes = describe(st.spec, st.best)
    head.append("Changed: " + ("; ".join(changes) if changes else "nothing") + ".")
    if st.best_rates is not None:
        head.append(f"Expert win rate over {o.deals} seeded deals per difficulty "
                    f"(node limit {o.expert_node_limit} a game):")
        head.append(f"  {'difficulty':<11}{'target':>7}{'won':>6}{'deals':>6}{'rate':>8}"
                    f"{'Wilson 95%':>15}{'budget':>8}")
        for d, t in o.targets:
            r = st.best_rates[d]
            lo, hi = r.wilson95
            head.append(f"  {d:<11}{100 * t:>6.0f}%{r.won:>6}{r.deals:>6}{100 * r.rate:>7.1f}%"
                        f"{100 * lo:>8.1f}-{100 * hi:.1f}%{r.budget:>8}")
    head += table or []
    body = dump_spec(st.tuned)
    comment = "".join(f"# {line}".rstrip() + "\n" for line in head)
    return comment + "#\n" + body
