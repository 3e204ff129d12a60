"""`rove tune`: move a deck's numbers until the expert wins as often as the designer asks.

The search works on the cards' base points and bonuses and, with ``missions`` in
``vary``, on their mission patterns; the modules, the movement patterns and the cards'
order never change.  It is a greedy descent, one step a round:

1. The designer's deck is measured: the expert plays it on seeded deals at each target
   difficulty, on the first rung's deals (below) and on the next rung's only while a
   target still lies inside its interval.  A target is met when it lies inside the
   Wilson 95% interval of the deck's rate over ``deals`` deals (at least 200) that no
   choice of the search has seen (step 4): that is the tolerance.  A designer's deck
   still inside after the selection rungs is judged so at once.
2. Otherwise the direction is the sign of the summed gaps (too easy: numbers go down).
   The candidate steps move a *share of the deck* one step in that direction: the same
   cards spread evenly through it (:func:`spread`; a generated deck's cards come in order
   of their missions' cost, so its first cards would be its cheapest).  When a target is
   far (``FAR``, 10 points, or more) they are the points and the bonus together on the
   whole deck, half of it and a quarter, and the points alone and the bonus alone on the
   whole deck: five steps whose effects run from the largest down to about a quarter of
   it, roughly evenly on a log scale (with a number alone on the half and the quarter
   as well, nine steps, the simulation below plays a quarter to a third more games and
   lands no closer); when it is near, or when no far step helps, a quarter, an eighth and so on
   down to a single card, one number at a time.  A whole-deck step that falls short of
   the targets is tried two and three steps long too, up to ``max_change``, while no
   step of the round reaches the targets, since a deck so easy that every deal is won
   may not move at one step (a plateau); once one reaches them the shares bracket the
   targets and a longer step only goes further.  Ties go to the smaller change.
3. Successive halving picks the step on the *selection rungs* (:func:`selection_rungs`:
   ``first_deals``, three times as many, and so on, below the final deals; 25 and 75 by
   default): every candidate plays the first rung's deals, the best third the next
   rung's.  The deals are the same for every candidate (common random numbers), so
   candidates are compared on the numbers, not on the luck of the shuffle.  They are
   ranked by the squared distance to the targets of the current deck's rates plus their
   change on the deals both played (:func:`paired_distance`: far more precise than their
   own rates on a rung's few deals), then by the size of their change from the
   designer's deck, then by a fixed order.  The survivor is taken only if it comes
   closer to the targets than the current deck by that measure; if none does, no step
   helps and the search stops with the closest deck it judged (``reached`` false).
4. The survivor is *judged* on the next block of ``deals`` deals after the selection
   rungs and every block judged before (deals 75-274, then 275-474, ...), which no
   choice of the search has seen: the survivor of many candidates is the one the
   selection deals flatter most, so its rate there is biased towards the targets (on
   bench/decks/o35.yaml a tuned deck measured 47.0% over the deals that chose it and
   60% over 100 others), and only other deals say what it does.  Inside the tolerance
   there, the target is reached; else the search goes on from it, with those rates.  A
   deck judged once is never a candidate again, so the search cannot circle.  The
   result's rates are always those of its block (``held_out``), and a search that
   ends with no deck judged judges the designer's deck for them.

   An earlier design measured the survivor on the final deals (the selection deals
   among them) and then *confirmed* it on a fresh block.  Run against a synthetic
   expert (``python bench/tune_sim.py``: deals won by a logistic of the cards' numbers,
   alike between decks as common deals make them), the search with its survivors judged
   at once and these five far steps plays 1.2 to 1.8 times fewer games in the mean,
   and its results lie as close to the targets or closer.

Missions (``vary`` holds ``missions``): before the search, the mission generator
(:mod:`rove.generators.missions`, each cost proven by CP-SAT and the search engine)
makes one new mission for every card, costing ``mission_cost`` points by movement alone
(ramping from the low end to the high end over the cards, seeded by ``seed``); that is
each card's *alternative*.  A mission step swaps one card's mission for its alternative
or back, and the whole-deck steps include swapping every card's at once.  Which way a
swap moves the rate is not assumed: successive halving measures it like any other step.
A swap counts one towards the size of the change.  The rest of the search is unchanged:
the alternatives are fixed for the run, so the evaluation's cache and the common deals
hold as before.

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
    Alternative,
    Alternatives,
    Evaluator,
    GamesFn,
    Rate,
    Variant,
    apply_variant,
    change_size,
    describe,
    step,
    swap,
    zero,
)

TUNE_FORMAT = "rove-tune/1"
VARY = ("points", "bonus", "missions")  # what the search may move
DEFAULT_VARY = ("points", "bonus")
MISSION_COST = (2, 4)  # the alternatives' proven cost range, by default
MIN_FINAL_DEALS = 200
TOLERANCE = 0.03  # how near the target the point estimate must land, by default
JUDGE_STEP = 50  # the judge's block is a multiple of this many deals
FAR = 0.10  # a gap (as a share) from which whole-deck steps are tried too

#: progress lines: (round, what is being done, games done, games asked)
TuneProgress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class TuneOptions:
    """What a tuning run depends on (workers do not belong here)."""

    targets: tuple[tuple[str, float], ...]
    vary: tuple[str, ...] = DEFAULT_VARY
    seed: int = 0
    #: final deals per difficulty (the command line asks for at least MIN_FINAL_DEALS;
    #: tests use fewer)
    deals: int = MIN_FINAL_DEALS
    first_deals: int = 25
    max_change: int = 3
    max_rounds: int = 30
    expert_node_limit: int = DEFAULT_EXPERT_NODE_LIMIT
    #: the proven cost range (points by movement alone) of the generated missions
    mission_cost: tuple[int, int] = MISSION_COST
    #: how near each target the rate on the judge's block must land (a share)
    tolerance: float = TOLERANCE
    #: the fewest base points a card may be tuned to (0: allowed, with a warning)
    min_points: int = 0

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
            raise ValueError(f"--vary takes {', '.join(VARY)} (comma-separated), not {unknown[0]!r}"
                             if unknown else f"--vary takes {', '.join(VARY)}")
        lo, hi = self.mission_cost
        if not 0 <= lo <= hi or not 1 <= hi <= 12:
            raise ValueError(f"mission cost {lo}-{hi}: give LOW-HIGH with 0 <= LOW <= HIGH, "
                             "1 <= HIGH <= 12")
        if self.deals < 1:
            raise ValueError("deals must be at least 1")
        if not 1 <= self.first_deals <= self.deals:
            raise ValueError("first deals must be between 1 and the final deals")
        if not 0.0 < self.tolerance < 0.5:
            raise ValueError(f"tolerance {self.tolerance:g} must be a share strictly between 0 and 0.5")
        if self.min_points < 0:
            raise ValueError("min points must be at least 0")
        if self.max_change < 1 or self.max_rounds < 0 or self.expert_node_limit < 1:
            raise ValueError("max change and node limit must be at least 1, rounds at least 0")

    @property
    def difficulties(self) -> tuple[str, ...]:
        return tuple(d for d, _ in self.targets)

    @property
    def judge_deals(self) -> int:
        """The judge's block: ``deals``, or more where that is too few for the tolerance
        to mean something.  A rate's standard error over ``n`` deals is
        ``sqrt(t (1 - t) / n)``; the block is the fewest deals (a multiple of
        ``JUDGE_STEP``) that bring it within the tolerance, so a deck judged within the
        tolerance is within about two of it on other deals too, and not merely inside a
        wide interval (at the default 3 points and a target of 0.5: 300 deals)."""
        var = max(t * (1 - t) for _, t in self.targets)
        need = math.ceil(var / self.tolerance ** 2 / JUDGE_STEP - 1e-9) * JUDGE_STEP
        return max(self.deals, need)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "targets": dict(self.targets), "vary": list(self.vary), "seed": self.seed,
            "deals": self.deals, "first_deals": self.first_deals, "max_change": self.max_change,
            "max_rounds": self.max_rounds, "expert_node_limit": self.expert_node_limit,
            "tolerance": self.tolerance, "min_points": self.min_points,
            "judge_deals": self.judge_deals}
        if "missions" in self.vary:
            out["mission_cost"] = list(self.mission_cost)
        return out


def mission_alternatives(spec: Spec, options: TuneOptions) -> Alternatives:
    """One generated mission per card (``missions`` in ``vary``; else none): the
    generator's sequence at ``mission_cost``, seeded by the run's seed, card ``k`` taking
    the sequence's ``k``-th mission.  Raises ``GenerationFailed`` (from the generator) when
    no such sequence is found."""
    if "missions" not in options.vary:
        return ()
    from ..generators.missions import Settings, generate_missions

    lo, hi = options.mission_cost
    got = generate_missions(spec, Settings(count=len(spec.cards), min_cost=lo, max_cost=hi,
                                           seed=options.seed))
    return tuple((Alternative(card.mission, m.cost),)
                 for card, m in zip(got.spec.cards, got.missions))


def selection_rungs(options: TuneOptions) -> list[int]:
    """The rungs successive halving chooses on: every rung but the final deals (the first
    alone when it is the final one).  The final deals are never a rung: the chosen step
    is judged on a block of its own (see the module's docstring)."""
    ladder = rungs(options)
    return ladder[:-1] or ladder


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


def paired_distance(rates: dict[str, Rate], base: dict[str, Rate] | None, cur: dict[str, Rate],
                    targets: Sequence[tuple[str, float]]) -> float:
    """The squared distance to the targets of a step's rates estimated as the current
    deck's over all its deals (``cur``) plus the step's change on the deals both played
    (``rates`` minus ``base``, the current deck on the step's deals); without ``base``,
    :func:`distance` of ``rates`` themselves.

    The two decks play the same deals, so most deals end alike and the change is
    measured far more precisely than either rate: where a step turns one deal in
    twenty, its rate over 25 deals is good to some ten points, its change to two or
    three.  Ranking the raw rates on few deals let noise pick the survivor: on
    bench/decks/g35.yaml, from 57.5% no near step survived to come closer over 200
    deals, and the search stopped short of its target."""
    if base is None:
        return distance(rates, targets)
    return sum((cur[d].rate + rates[d].rate - base[d].rate - t) ** 2 for d, t in targets)


def within(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> bool:
    """Whether every target lies inside its rate's Wilson 95% interval."""
    return all(rates[d].wilson95[0] <= t <= rates[d].wilson95[1] for d, t in targets)


def landed(rates: dict[str, float], targets: Sequence[tuple[str, float]], tolerance: float) -> bool:
    """Whether every rate (a point estimate) lies within ``tolerance`` of its target: the
    stopping rule, judged on the judge's block (an interval's edge is not the target)."""
    return all(abs(rates[d] - t) <= tolerance + 1e-9 for d, t in targets)


def point(rates: dict[str, Rate]) -> dict[str, float]:
    return {d: r.rate for d, r in rates.items()}


def paired_rates(rates: dict[str, Rate], base: dict[str, Rate] | None,
                 cur: dict[str, Rate]) -> dict[str, float]:
    """A step's rates estimated as :func:`paired_distance` does: the current deck's over
    all its deals plus the step's change on the deals both played."""
    if base is None:
        return point(rates)
    return {d: cur[d].rate + rates[d].rate - base[d].rate for d in rates}


def moves(options: TuneOptions, direction: int, far: bool) -> list[tuple[int, int]]:
    """The number moves a step may make, as (points, bonus) deltas: points and bonus
    together (far steps only, when both vary), the points alone, the bonus alone."""
    out = [(direction, 0)] if "points" in options.vary else []
    if "bonus" in options.vary:
        out.append((0, direction))
    if far and "points" in options.vary and "bonus" in options.vary:
        out.insert(0, (direction, direction))
    return out


def sizes(n: int, far: bool) -> list[int]:
    """How many cards a step moves: far, the whole deck, half of it and a quarter; near, a
    quarter, an eighth and so on down to one card (see the module's docstring)."""
    quarter = -(-n // 4)
    if far:
        return list(dict.fromkeys([n, -(-n // 2), quarter]))
    out, m = [], n
    while m > 1:
        m = -(-m // 2)
        if m <= quarter:
            out.append(m)
    return list(dict.fromkeys(out)) or [1]


def spread(idx: Sequence[int], m: int) -> list[int]:
    """``m`` of the indices ``idx``, spread evenly through them (the ``j``-th taken at
    position ``(j + 1/2) * len / m``): a share of the deck, not its first cards, since a
    generated deck's cards are in order of their missions' cost."""
    return [idx[int((j + 0.5) * len(idx) / m)] for j in range(m)] if m < len(idx) else list(idx)


def deck_step(spec: Spec, cur: Variant, move: tuple[int, int], m: int, k: int,
              options: TuneOptions, far: bool) -> Variant:
    """``cur`` with ``m`` of the cards that can take the move (spread evenly) moved ``k``
    steps, each as many of them as its limits allow.  A far step moves the numbers it
    names and no other; a near one moves one number and, when both vary, the other along
    where the bonus must stay above the points (:func:`~rove.check.variants.step`)."""
    dp, db = move
    carry = not far and "points" in options.vary and "bonus" in options.vary

    def moved(i: int) -> Variant | None:
        return next((w for j in range(k, 0, -1)
                     if (w := step(spec, cur, i, j * dp, j * db, options.max_change, carry=carry))
                     is not None and spec.cards[i].movement.points + w[i][0] >= options.min_points),
                    None)

    ok = {i: w[i] for i in range(len(cur)) if (w := moved(i)) is not None}
    out = list(cur)
    for i in spread(list(ok), min(m, len(ok))):
        out[i] = ok[i]
    return tuple(out)


def candidates(spec: Spec, cur: Variant, direction: int, options: TuneOptions,
               far: bool, alternatives: Alternatives = ()) -> list[Variant]:
    """The steps from ``cur`` in ``direction`` (+1 raises numbers), one step long: each
    move (:func:`moves`) on each share of the deck (:func:`sizes`: the whole deck, a half
    and a quarter when ``far``, else a quarter down to one card), only legal decks within
    ``max_change`` of the designer's; the longer whole-deck steps are :func:`deck_step`'s
    with ``k`` above one (:func:`longer_steps`, asked for only where a step of one falls short).
    With ``alternatives`` (``missions`` varied) the mission swaps come too, in either
    direction: every card's at once when ``far``, one card's (to its alternative, or back)
    otherwise."""
    out: list[Variant] = []
    for j, move in enumerate(moves(options, direction, far)):
        for m in sizes(len(cur), far):
            # far: the first move (both numbers, or the one varied) on every share, a
            # number alone on the whole deck only
            if not far or j == 0 or m == len(cur):
                out.append(deck_step(spec, cur, move, m, 1, options, far))
    if "missions" in options.vary and alternatives:
        if far:
            for m in range(max(map(len, alternatives)) + 1):  # every card to one choice
                out.append(tuple(swap(cur, i, m)[i] if m <= len(alternatives[i]) else cur[i]
                                 for i in range(len(cur))))
        else:
            for i in range(min(len(cur), len(alternatives))):
                out += [swap(cur, i, m) for m in range(len(alternatives[i]) + 1) if m != cur[i][2]]
    return [v for v in dict.fromkeys(out) if v != cur]


def rank(rates: dict[str, Rate], base: dict[str, Rate] | None, cur: dict[str, Rate], v: Variant,
         options: TuneOptions, last: bool) -> tuple[float, ...]:
    """A candidate's place in successive halving: by :func:`paired_distance`, then the size
    of its change.  On the last rung the steps whose paired estimate lands within the
    tolerance come first, the fewest cards changed among them: of the steps that land,
    the one that touches least of the designer's deck."""
    near = paired_distance(rates, base, cur, options.targets)
    if last and landed(paired_rates(rates, base, cur), options.targets, options.tolerance):
        return (0, changed_cards(v), change_size(v), near)
    return (1, near, change_size(v), 0)


def changed_cards(v: Variant) -> int:
    """How many cards a variant changes (a number or the mission)."""
    return sum(1 for c in v if c != (0, 0, 0))


def gap(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> float:
    """The summed gap, targets minus rates: its sign is the direction the numbers go."""
    return sum(t - rates[d].rate for d, t in targets)


def crossed(rates: dict[str, Rate], targets: Sequence[tuple[str, float]], direction: int) -> bool:
    """Whether the rates lie at or past the targets, seen from the side ``direction``
    came from (the summed gap has changed sign or vanished)."""
    return gap(rates, targets) * direction <= 0


@dataclass
class TuneState:
    """What the search knows so far; the closest deck is kept up to date, so an
    interrupted run can write it."""

    spec: Spec
    options: TuneOptions
    best: Variant
    best_rates: dict[str, Rate] | None = None
    #: the generated missions the cards may take (``missions`` varied), set by ``tune``
    alternatives: Alternatives = ()
    rounds: int = 0
    games: int = 0
    reached: bool = False
    #: why the search stopped short of the targets (empty when reached)
    stopped: str = ""
    #: the result's rates on a block of ``options.deals`` deals from ``held_out_first``
    #: on, which no decision of the search saw (set when the search ends)
    held_out: dict[str, Rate] | None = None
    held_out_first: int = 0
    log: list[str] = field(default_factory=list)

    def offer(self, v: Variant, rates: dict[str, Rate], first: int | None = None,
              force: bool = False) -> None:
        """Keep ``v`` if it is closer to the targets than the deck kept so far: a deck
        judged on a block of deals no choice saw (from ``first`` on) before one that was
        not, then the squared distance, then the smaller change.  ``force``: keep it
        whatever (it meets the targets)."""
        key = (first is None, distance(rates, self.options.targets), change_size(v))
        if not (force or self.best_rates is None
                or key < (self.held_out is None, distance(self.best_rates, self.options.targets),
                          change_size(self.best))):
            return
        self.best, self.best_rates = v, rates
        self.held_out, self.held_out_first = (None, 0) if first is None else (rates, first)

    @property
    def tuned(self) -> Spec:
        return apply_variant(self.spec, self.best, self.alternatives)

    @property
    def held_out_span(self) -> str:
        """Which deals ``held_out`` was measured on ("deals 200-399")."""
        return _block(self.held_out_first, self.options.judge_deals)

    @property
    def cards_changed(self) -> int:
        return changed_cards(self.best)

    def zero_points(self) -> list[str]:
        """The cards the tuned deck leaves at 0 base points that the designer gave more:
        a card that scores nothing unless its mission is done may not be what was meant
        (``min_points`` forbids it)."""
        return [c.id for c, (dp, _, _) in zip(self.spec.cards, self.best)
                if c.movement.points > 0 and c.movement.points + dp == 0]

    def gaps(self) -> dict[str, float]:
        """Per target, measured minus target (points of win rate) for the closest deck."""
        return {} if self.best_rates is None else _gaps(self.best_rates, self.options.targets)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": TUNE_FORMAT, "spec": self.spec.name, "options": self.options.to_json(),
            "reached": self.reached, "stopped": self.stopped, "rounds": self.rounds,
            "games": self.games,
            "changes": describe(self.spec, self.best, self.alternatives),
            "change_size": change_size(self.best), "cards_changed": self.cards_changed,
            "zero_points": self.zero_points(),
            "rates": ({d: r.to_json() for d, r in self.best_rates.items()}
                      if self.best_rates is not None else None),
            "gaps_points": self.gaps(),
            "held_out": ({"first_deal": self.held_out_first,
                          "rates": {d: r.to_json() for d, r in self.held_out.items()},
                          "gaps_points": _gaps(self.held_out, self.options.targets)}
                         if self.held_out is not None else None),
            "log": self.log,
        }


def tune(spec: Spec, options: TuneOptions, executor: Any = None, state: TuneState | None = None,
         progress: TuneProgress | None = None) -> TuneState:
    """Search the deck's numbers for the targets (see the module's docstring).  Pass a
    ``state`` to keep hold of the closest deck if the run is interrupted."""
    st = state if state is not None else TuneState(spec, options, zero(spec))
    targets, diffs, tol = options.targets, options.difficulties, options.tolerance
    sel = selection_rungs(options)
    if "missions" in options.vary and not st.alternatives:
        if progress is not None:
            progress("generating one mission per card", 0, 0)
        st.alternatives = mission_alternatives(spec, options)
        lo, hi = options.mission_cost
        st.log.append(f"generated {len(st.alternatives)} missions costing {lo}-{hi} points by "
                      "movement (seed {}): ".format(options.seed)
                      + ", ".join(f"{c.id} {a[0].mission.title!r} {a[0].cost}"
                                  for c, a in zip(spec.cards, st.alternatives)))
    alts = st.alternatives
    with Evaluator(spec, options.seed, executor, options.expert_node_limit, alts) as ev:

        def measure(vs: list[Variant], n: int, what: str, first: int = 0) -> dict[Variant, dict[str, Rate]]:
            fn: GamesFn | None = None
            if progress is not None:
                report = progress

                def fn(done: int, total: int) -> None:
                    report(what, done, total)
            got = ev.evaluate(vs, diffs, n, fn, first=first)
            st.games = ev.games
            return got

        judged: list[Variant] = []

        def judge(v: Variant, what: str) -> tuple[dict[str, Rate], str]:
            """``v`` over the next block of ``deals`` deals, which no choice has seen, and
            the block's name."""
            first = sel[-1] + len(judged) * options.judge_deals
            span = _block(first, options.judge_deals)
            rates = measure([v], options.judge_deals, f"{what} on {span}", first)[v]
            judged.append(v)
            st.offer(v, rates, first, force=landed(point(rates), targets, tol))
            return rates, span

        cur = zero(spec)
        cur_rates: dict[str, Rate] = {}
        for n in sel:  # the designer's deck: more deals only while the target may be in
            cur_rates = measure([cur], n, "the designer's deck")[cur]
            if not within(cur_rates, targets):
                break
        played = _deals(cur_rates)  # the current deck has played deals 0 .. played - 1
        st.offer(cur, cur_rates)
        st.log.append(_line(f"start, over {_block(0, played)}", spec, cur, cur_rates, targets,
                            alts))
        if within(cur_rates, targets):  # the designer's deck may already meet them
            cur_rates, span = judge(cur, "the designer's deck")
            st.reached = landed(point(cur_rates), targets, tol)
            st.log.append(_line(f"the designer's deck on {span}", spec, cur, cur_rates, targets,
                                alts, changes=False))
        while not st.reached and st.rounds < options.max_rounds:
            st.rounds += 1
            direction = 1 if gap(cur_rates, targets) > 0 else -1
            far = max(abs(t - cur_rates[d].rate) for d, t in targets) >= FAR
            found = None
            for whole in (True, False) if far else (False,):  # far: the large shares first
                pool = [v for v in candidates(spec, cur, direction, options, whole, alts)
                        if v not in judged]
                if not pool:
                    continue
                what = f"round {st.rounds}: {len(pool)} candidate(s), {sel[0]} deals"
                rated = measure(pool, sel[0], what)
                if whole:

                    def first_rung(vs: list[Variant], what: str = what) -> dict[Variant, dict[str, Rate]]:
                        return measure(vs, sel[0], what)
                    pool += [v for v in longer_steps(spec, cur, direction, options, rated, targets,
                                                     first_rung) if v not in judged]
                close = math.inf
                for k, n in enumerate(sel):
                    rated = measure(pool, n, f"round {st.rounds}: {len(pool)} candidate(s), {n} deals")
                    # the current deck on the same deals, when it has played them (it has,
                    # but for the designer's deck far from the targets)
                    base = measure([cur], n, "")[cur] if played >= n else None
                    last = k == len(sel) - 1
                    pool.sort(key=lambda v: rank(rated[v], base, cur_rates, v, options, last))
                    keep = 1 if last else max(1, math.ceil(len(pool) / 3))
                    pool = pool[:keep]
                    close = paired_distance(rated[pool[0]], base, cur_rates, targets)
                if close < distance(cur_rates, targets):
                    found = pool[0]
                    break
            if found is None:
                st.stopped = ("no deck within reach comes closer to the targets (each card's "
                              f"numbers move at most {options.max_change}"
                              + (f", base points at least {options.min_points}" if options.min_points else "")
                              + ")")
                st.log.append(f"round {st.rounds}: no step comes closer to the targets; stopped")
                break
            cur, played = found, sel[-1]
            cur_rates, span = judge(cur, f"round {st.rounds}: its step")
            st.reached = landed(point(cur_rates), targets, tol)
            st.log.append(_line(f"round {st.rounds}, on {span}", spec, cur, cur_rates, targets, alts))
        if not st.reached and not st.stopped:
            st.stopped = f"out of rounds (--max-rounds {options.max_rounds})"
        if st.held_out is None:  # no deck judged: the designer's deck, on deals no choice saw
            rates, span = judge(st.best, "the designer's deck")
            st.log.append(_line(f"the designer's deck on {span}", spec, st.best, rates, targets,
                                alts, changes=False))
    return st


def plural_cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _rate_rows(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> list[str]:
    """The header's table of measured rates, one row per target difficulty."""
    out = [f"  {'difficulty':<11}{'target':>7}{'won':>6}{'deals':>6}{'rate':>8}"
           f"{'Wilson 95%':>15}{'budget':>8}"]
    for d, t in targets:
        r = rates[d]
        lo, hi = r.wilson95
        out.append(f"  {d:<11}{100 * t:>6.0f}%{r.won:>6}{r.deals:>6}{100 * r.rate:>7.1f}%"
                   f"{100 * lo:>8.1f}-{100 * hi:.1f}%{r.budget:>8}")
    return out


def _block(first: int, n: int) -> str:
    """A block of ``n`` deals from ``first`` on, as the log and the header name it."""
    return f"deals {first}-{first + n - 1}"


def _gaps(rates: dict[str, Rate], targets: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Per target, measured minus target, in points of win rate."""
    return {d: round(100 * (rates[d].rate - t), 1) for d, t in targets}


def _deals(rates: dict[str, Rate]) -> int:
    return min(r.deals for r in rates.values())


def longer_steps(spec: Spec, cur: Variant, direction: int, options: TuneOptions,
                 rated: dict[Variant, dict[str, Rate]], targets: Sequence[tuple[str, float]],
                 measure: Callable[[list[Variant]], dict[Variant, dict[str, Rate]]]) -> list[Variant]:
    """The whole deck's steps of two, three, ... up to ``max_change`` at once, only while
    every step measured in ``rated`` (grown with what is measured here) falls short of
    the targets: on a plateau one step may move nothing, but once a step reaches the
    targets the round's shares already bracket them, and a longer step only goes
    further."""
    out: list[Variant] = []
    n, live = len(cur), moves(options, direction, True)
    for k in range(2, options.max_change + 1):
        if any(crossed(r, targets, direction) for r in rated.values()):
            break
        batch = []
        for move in live:
            longer = deck_step(spec, cur, move, n, k, options, True)
            if longer != deck_step(spec, cur, move, n, k - 1, options, True):
                batch.append((move, longer))
        if not batch:
            break
        new = [v for _, v in batch if v not in rated]
        if new:
            rated.update(measure(new))
        out += [v for _, v in batch]
        live = [move for move, _ in batch]
    return list(dict.fromkeys(v for v in out if v != cur))


def _line(what: str, spec: Spec, v: Variant, rates: dict[str, Rate],
          targets: Sequence[tuple[str, float]], alternatives: Alternatives = (),
          changes: bool = True) -> str:
    got = ", ".join(f"{d} {100 * rates[d].rate:.1f}% (target {100 * t:.0f}%)" for d, t in targets)
    if not changes:
        return f"{what}: {got}"
    changed = describe(spec, v, alternatives)
    return f"{what}: {got}; " + (f"{len(changed)} card(s) changed" if changed else "no change")


def tuned_yaml(st: TuneState, table: list[str] | None = None, interrupted: bool = False) -> str:
    """The tuned spec, with a header comment saying what changed and the measured table
    (``table``: extra lines, e.g. the thoughtful rates)."""
    o = st.options
    head = [f"Tuned by `rove tune` from {st.spec.name!r}: seed {o.seed}, targets "
            + ", ".join(f"{d}={t:g}" for d, t in o.targets)
            + f", varying {', '.join(o.vary)} ("
            + "; ".join(([f"each at most {o.max_change} from the designer's"]
                         if {"points", "bonus"} & set(o.vary) else [])
                        + (["missions swapped for ones generated at cost {}-{}".format(*o.mission_cost)]
                           if "missions" in o.vary else [])) + ").",
            ("Interrupted (Ctrl-C): the closest deck found so far." if interrupted else
             f"Every target is within {100 * o.tolerance:g} points of its measured rate, over "
             "deals that no choice of the search saw." if st.reached
             else "Not reached: the closest deck found; gaps (points of win rate): "
             + ", ".join(f"{d} {g:+.1f}" for d, g in st.gaps().items()) + ".")]
    changes = describe(st.spec, st.best, st.alternatives)
    head.append(f"Changed {plural_cards(st.cards_changed)}: "
                + ("; ".join(changes) if changes else "nothing") + ".")
    if st.zero_points():
        head.append("Warning: at 0 base points now: " + ", ".join(st.zero_points())
                    + " (--min-points 1 forbids it).")
    if st.best_rates is not None:
        over = (f"{st.held_out_span} ({_deals(st.best_rates)} a difficulty), which no choice "
                "of the search saw (the figure to expect on other deals)"
                if st.held_out is st.best_rates else f"{_deals(st.best_rates)} seeded deals per difficulty")
        head.append(f"Expert win rate over {over}; node limit {o.expert_node_limit} a game:")
        head += _rate_rows(st.best_rates, o.targets)
    head += table or []
    from .keepfile import kept_file

    kept = kept_file(st.spec, st.best, st.alternatives)
    body = kept if kept is not None else dump_spec(st.tuned)
    comment = "".join(f"# {line}".rstrip() + "\n" for line in head)
    return comment + "#\n" + body
