"""`rove generate missions`: new mission sequences, each mission's cost proven.

The campaign starts from the standard 2x3 start (the spec's modules in order, row-major).
Mission ``k`` is a new pattern (3 to 6 cells, one named module, no two alike up to
translation, none alike a mission the output keeps) whose proven optimal cost from the
layout mission ``k-1`` ended in lies in ``[A, B]``; the campaign then follows one optimal
plan of it (the search engine's, replayed) to the next start.

Cost is points (moves) with a bare budget, no hand and no ability: by default every module
moves on its active side (``sides="active"``).  That is the mission's intrinsic distance,
the figure a designer prices a card by; abilities stay the player's spare resource.  With
``sides="spent"`` every module is spent and moves on its *spent* side, exactly as a player
holding the deck does once every ability is used: the book's campaigns are posed that way,
so the costs they print hold for the reader's own cards (on a deck whose spent sides repeat
the active ones, the two settings give the same missions).  (With abilities free the
figure says little: from the start, 39 of 40 random patterns cost 0, because abilities
alone reach ~190,000 layouts.)  The sequence ramps: mission ``k`` aims at a cost rising
evenly from ``A`` to ``B`` and falls back towards ``A`` only when that target is proven
impossible or not found within the limits.

Counterexample-guided synthesis (CEGAR), per mission:

1. *Synthesis* (CP-SAT, ``generators.patterns``): a plan of ``F..B`` moves (``F`` the target)
   from the current layout and a pattern read off its last layout, of the chosen size
   and named module, one king-connected piece, not alike any earlier pattern and not
   matched by any cut layout reached with fewer than ``F`` points.
2. *Check*: the search engine's proven optimum ``c`` for that pattern.  If ``c < F``
   every layout along its optimal plan becomes a cut (the ``i``-th is reached with
   ``i`` moves or fewer, so every pattern it matches costs at most that) and synthesis
   runs again; the pattern just found is among those cut, so each round makes progress.
3. *Proof* (CP-SAT again): with a budget of ``c - 1`` points the model is infeasible,
   so no plan cheaper than ``c >= F >= A`` exists; two independent engines agree on the
   cost.  A disagreement is a bug and raises.

The (size, named module) choices are taken in seeded random order, least-named modules
first, in two passes (``ROUND_PASSES``): each choice first gets 3 rounds, and only the
choices that found nothing then get up to 12, so a hopeless choice (three cells at a
high target, say) no longer spends 12 rounds before a promising one is tried, and the
cuts its rounds found serve the others.  (Measured on seed 0 at ``--min-cost 2
--max-cost 5``: 102 rounds in one pass of 12, 44 in two passes.)

When synthesis is infeasible for every size and named module even at ``F = A``, no new
pattern has a cost in ``[A, B]`` from that layout: a proof, reported as such.  Every CP-SAT run has one worker,
a seed from ``--seed`` and a deterministic time limit, so the same options give the same
missions, byte for byte.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..actions import Action, plan_to_json
from ..engine import deck_for, state_cells, state_from_position, unpack
from ..errors import SolverBug
from ..grid import Cell
from ..position import Current, Position, normalized_cells
from ..replay import replay
from ..spec import ANY, Card, Mission, Pattern, Spec
from .deals import start_layout

MIN_CELLS, MAX_CELLS = 3, 6
#: CP-SAT deterministic-time limits (about seconds on this class of machine)
SYNTH_DTIME, PROOF_DTIME = 30.0, 60.0
#: search-engine time per candidate check
SEARCH_SECONDS = 30.0
#: synthesis rounds a (size, named module) choice may have, by pass over the choices: a
#: choice that found nothing after the first pass's rounds waits until every other choice
#: has had its turn (and added its cuts, which all choices share), then gets the rest
ROUND_PASSES = (3, 12)

_ADJECTIVES = ("Amber", "Broken", "Cold", "Dusty", "Echoing", "Faint", "Glass", "Hollow",
               "Iron", "Jagged", "Lone", "Muted", "Narrow", "Open", "Pale", "Quiet", "Rusted",
               "Silent", "Tilted", "Under", "Vast", "Woven")
_NOUNS = ("Arch", "Beacon", "Cairn", "Delta", "Edge", "Ford", "Gate", "Hinge", "Isle",
          "Junction", "Keel", "Ledge", "Mesa", "Notch", "Outpost", "Pass", "Ridge", "Spur",
          "Terrace", "Vent", "Wash", "Yard")


class GenerationFailed(Exception):
    """No whole sequence was produced; ``proven`` says whether the reason is a proof.
    ``partial`` holds the missions proven before a limit stopped the run (None when there
    are none, or when the reason is a proof), so that they are not thrown away."""

    def __init__(self, message: str, proven: bool, partial: Campaign | None = None) -> None:
        super().__init__(message)
        self.proven = proven
        self.partial = partial


@dataclass(frozen=True)
class Settings:
    count: int = 7
    min_cost: int = 2
    max_cost: int = 4
    seed: int = 0
    time_limit: float | None = None
    #: which side every module moves on while a cost is proven (no ability either way)
    sides: Literal["active", "spent"] = "active"

    def problems(self, spec: Spec) -> list[str]:
        """What is wrong with these options for ``spec`` (empty when fine)."""
        out = []
        if self.count < 1:
            out.append("--count must be at least 1")
        if self.min_cost < 0:
            out.append("--min-cost must be 0 or more")
        if self.max_cost < max(self.min_cost, 1):
            out.append("--max-cost must be at least 1 and at least --min-cost")
        if self.max_cost > 12:
            out.append("--max-cost above 12 makes models too large to prove; use 12 or less")
        if len(spec.modules) < MIN_CELLS:
            out.append(f"the spec has {len(spec.modules)} modules; missions need at least {MIN_CELLS}")
        if self.time_limit is not None and self.time_limit <= 0:
            out.append("--time-limit must be positive")
        if self.sides not in ("active", "spent"):
            out.append(f"--sides is {self.sides!r}; use active or spent")
        return out


@dataclass(frozen=True)
class GeneratedMission:
    """One mission of the sequence and the line the campaign follows through it."""

    card: str
    title: str
    pattern: Pattern
    cost: int  # proven optimal points from ``start``
    plan: tuple[Action, ...]  # one optimal plan (replayed)
    start: tuple[tuple[str, Cell], ...]  # layout before the mission, at (0, 0)
    target: int  # the ramp's aim; the cost is below it only when the aim was not reachable
    rounds: int  # synthesis rounds
    cuts: int  # cut layouts in force when the pattern was found

    def to_json(self) -> dict[str, Any]:
        named, = self.pattern.named
        return {"card": self.card, "title": self.title, "pattern": self.pattern.text(),
                "named": named, "cells": self.pattern.size, "cost": self.cost,
                "target": self.target, "start": {c: list(xy) for c, xy in self.start},
                "plan": plan_to_json(list(self.plan)), "rounds": self.rounds, "cuts": self.cuts}


@dataclass(frozen=True)
class Campaign:
    """A generated sequence: the options, the spec it came from, the spec it makes and the
    missions with the line through them (``stats``: where the time went)."""

    settings: Settings
    source: Spec
    spec: Spec  # the source with the new missions in its first cards
    missions: tuple[GeneratedMission, ...]
    stats: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        st = self.settings
        return {"status": "generated", "count": st.count, "min_cost": st.min_cost,
                "max_cost": st.max_cost, "seed": st.seed, "sides": st.sides,
                "missions": [m.to_json() for m in self.missions]}

    def yaml(self) -> str:
        """The output spec, with a header that records how it was made."""
        from ..spec import dump_spec

        st = self.settings
        option = " --sides spent" if st.sides == "spent" else ""
        side = ("every module spent, moving on its spent side" if st.sides == "spent"
                else "every module moving on its active side")
        head = [f"# Missions of cards {self.missions[0].card}..{self.missions[-1].card} generated by "
                f"`rove generate missions --count {st.count} --min-cost {st.min_cost} "
                f"--max-cost {st.max_cost} --seed {st.seed}{option}`",
                f"# for the deck '{self.source.name}', from the standard start (modules in spec",
                "# order, 2 rows x 3 columns); each mission's optimal cost (movement points, no",
                f"# ability, {side}) is proven from the layout the previous one ended in.",
                "# Only the mission sides of those cards differ from the source deck:"]
        for m in self.missions:
            head.append(f"#   {m.card} {m.title}: {m.cost} point(s)")
        return "\n".join(head) + "\n" + dump_spec(self.spec, schema=None)


# --------------------------------------------------------------------------- decks and states


def movement_only(spec: Spec) -> Spec:
    """The spec with every module's spent side equal to its active side: played with
    every module spent, it moves as the active side does and has no ability left.

    A solver's device only, never a deck anyone is shown: it proves the ``active`` cost,
    and what it reports is that cost on the user's own deck (the output spec is built from
    the source, ``_campaign_spec``)."""
    return replace(spec, modules=tuple(replace(m, spent_arrows=m.arrows, spent_same=True)
                                       for m in spec.modules))


def play_spec(spec: Spec, sides: str) -> Spec:
    """The spec costs are proven on, every module spent: the deck itself for ``spent``
    (its spent sides move), ``movement_only`` for ``active``."""
    return spec if sides == "spent" else movement_only(spec)


def with_mission(spec: Spec, pattern: Pattern) -> Spec:
    """The spec whose first card carries ``pattern`` (the position's mission)."""
    first = spec.cards[0]
    card = replace(first, mission=Mission("candidate", pattern))
    return replace(spec, cards=(card, *spec.cards[1:]))


def _position(spec: Spec, cells: dict[str, Cell], budget: int) -> Position:
    """The mission position the generator solves: every module spent (no ability; on a
    ``movement_only`` spec the spent sides are the active ones), a bare budget, no hand."""
    return Position(spec=spec, layout=Position.layout_of(cells), mission=spec.cards[0].id,
                    goal="mission", spent=frozenset(spec.codes), current=Current(None, budget))


def mission_title(rng: random.Random, used: set[str]) -> str:
    for _ in range(1000):
        title = f"{rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}"
        if title not in used:
            used.add(title)
            return title
    raise SolverBug("title lists exhausted")


# --------------------------------------------------------------------------- the generator


@dataclass(frozen=True)
class PartialCampaign(Campaign):
    """The missions proven before a limit stopped the run (fewer than ``settings.count``):
    written as a campaign is, marked as partial, rather than thrown away."""

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "status": "partial"}

    def yaml(self) -> str:
        first, rest = super().yaml().split("\n", 1)
        return (f"{first}\n# (only the first {len(self.missions)} of {self.settings.count}: the run "
                f"reached its limits before the next one was proven)\n{rest}")


class _Clock:
    def __init__(self, limit: float | None) -> None:
        self.deadline = time.monotonic() + limit if limit is not None else float("inf")

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def check(self, what: str) -> None:
        if self.left() <= 0:
            raise GenerationFailed(f"time limit reached {what}", proven=False)


def _cpsat_params(solver: Any, seed: int, dtime: float, seconds: float = math.inf) -> None:
    """One worker, a fixed seed and a deterministic limit: the same run every time
    (the seed is what makes different ``--seed`` values give different patterns).

    ``seconds`` is what is left of ``--time-limit``: deterministic time is not wall time
    (a 16-module deck took 42 s over a 10 s limit), so the solve also stops at the run's
    deadline; that only cuts a solve when the run is out of time anyway."""
    p = solver.parameters
    p.num_workers = 1
    p.random_seed = seed
    p.max_deterministic_time = dtime
    if math.isfinite(seconds):
        p.max_time_in_seconds = max(0.1, seconds)
    p.catch_sigint_signal = False  # Ctrl-C reaches Python, which stops the run (exit 130)
    # The pattern half has no useful LP relaxation; without linearization a synthesis
    # model solves in ~0.2 s instead of 3-20 s (measured on the bundled deck).
    p.linearization_level = 0
    # Probing costs more than it finds here: 7 synthesis rounds of seed 0 (2 solver seeds
    # each) take 8.3 units of deterministic time with it, 3.2 without.  (Fixed-order
    # branching takes 2.1 but finds the plainest patterns first: 2.5x more rounds.)
    p.cp_model_probing_level = 0


class _MissionSearch:
    """CEGAR for one mission from one layout (see the module docstring)."""

    def __init__(self, play_spec: Spec, cells: dict[str, Cell], settings: Settings,
                 taken: list[Pattern], rng: random.Random, clock: _Clock, stats: dict[str, Any]) -> None:
        self.play_spec = play_spec
        self.cells = cells
        self.st, self.taken, self.rng, self.clock, self.stats = settings, taken, rng, clock, stats
        self.codes = play_spec.codes
        #: the spec every model of this search plays: a mission no layout matches (the
        #: model's pattern variables stand for the mission), its deck built once
        self.model_spec = with_mission(play_spec, _unmatchable(len(self.codes)))
        #: (layout as a cell per module in spec order, points it is reached with): a layout
        #: reached with ``r`` points is a cut for every target above ``r``
        self.cuts: list[tuple[tuple[Cell, ...], int]] = [(tuple(cells[c] for c in self.codes), 0)]
        self.rounds = 0

    def run(self, choices: list[tuple[int, str]], target: int) -> tuple[Pattern, int, list[Action]] | str:
        """A proven pattern of cost in ``[target, B]``, or ``infeasible`` (proven none) or
        ``unknown``."""
        unknown = False
        used = dict.fromkeys(choices, 0)
        left = list(choices)
        for limit in ROUND_PASSES:
            again = []
            for choice in left:
                got = self._choice(*choice, target, limit - used[choice])
                used[choice] = limit
                if got == "rounds":
                    again.append(choice)
                elif got == "unknown":
                    unknown = True
                elif got != "infeasible":
                    return got
            left = again
        return "unknown" if unknown or left else "infeasible"

    def _choice(self, size: int, named: str, target: int, rounds: int) -> Any:
        """Up to ``rounds`` CEGAR rounds for one (size, named module): a proven pattern,
        ``infeasible`` (proven none), ``unknown`` (CP-SAT ran out of time) or ``rounds``
        (none found within the rounds)."""
        from ortools.sat.python import cp_model

        from ..solve.cpsat import solve_interruptibly
        from ..solve.cpsat_model import RoveModel
        from .patterns import PatternVariables

        deck = deck_for(self.model_spec)
        start = state_from_position(deck, _position(deck.spec, self.cells, self.st.max_cost))
        mdl = RoveModel(deck, start, self.st.max_cost, goal="free", universe=(), max_takes=0,
                        min_actions=max(1, target), objective=False,
                        tick=lambda: self.clock.check("while building a model"))
        mdl.m.add(mdl.n_moves >= target)
        pv = PatternVariables(mdl, MIN_CELLS, min(MAX_CELLS, deck.n))
        pv.fix(size=size, named=deck.index[named])
        pv.connected()
        for k, q in enumerate(self.taken):
            pv.not_alike(q, f"alike{k}")
        n_cut = 0
        for _ in range(rounds):
            for layout, reach in self.cuts[n_cut:]:
                if reach < target:
                    pv.not_matched_by(layout, f"cut{n_cut}")
                n_cut += 1
            self.clock.check("while searching for a pattern")
            solver = cp_model.CpSolver()
            _cpsat_params(solver, self.rng.randrange(1 << 30),
                          min(SYNTH_DTIME, max(1.0, self.clock.left())), self.clock.left())
            status = solve_interruptibly(solver, mdl.m)
            self.stats["synth_seconds"] += solver.wall_time
            self.rounds += 1
            if status == cp_model.INFEASIBLE:
                return "infeasible"
            if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                return "unknown"
            pattern = pv.decode(solver)
            checked = self._check(pattern)
            if checked is None:  # the search could not decide: never offer this pattern again
                self.taken.append(pattern)
                pv.not_alike(pattern, f"skip{len(self.taken)}")
                continue
            cost, plan, layouts = checked
            if cost < target:
                self.cuts.extend((layout, i) for i, layout in enumerate(layouts))
                continue
            self._prove(pattern, cost)
            return pattern, cost, plan
        return "rounds"

    def _check(self, pattern: Pattern) -> tuple[int, list[Action], list[tuple[Cell, ...]]] | None:
        """The search engine's optimum for ``pattern``: cost, plan and its layouts."""
        from ..solve.search import solve as solve_search

        pos = _position(with_mission(self.play_spec, pattern), self.cells, self.st.max_cost)
        t0 = time.monotonic()
        r = solve_search(pos, time_limit=min(SEARCH_SECONDS, max(1.0, self.clock.left())))
        self.stats["search_seconds"] += time.monotonic() - t0
        if r.status == "unsolvable":
            raise SolverBug("generator bug: the synthesis plan completes a pattern the "
                                 "search engine proves impossible")
        if r.status != "solved" or r.plan is None:
            return None
        rep = replay(pos, r.plan)  # the search engine replayed it already: legal, reaches the goal
        layouts = [tuple(unpack(c) for c in s.cells) for s in (rep.start, *rep.states)]
        return r.points or 0, list(r.plan), layouts

    def _prove(self, pattern: Pattern, cost: int) -> None:
        """CP-SAT: no plan of ``cost - 1`` points or fewer (the second engine's proof)."""
        if cost == 0:
            return
        from ..solve.cpsat import solve_cpsat

        pos = _position(with_mission(self.play_spec, pattern), self.cells, cost - 1)
        t0 = time.monotonic()
        r = solve_cpsat(pos, time_limit=max(1.0, min(PROOF_DTIME, self.clock.left())), hint=False)
        self.stats["proof_seconds"] += time.monotonic() - t0
        if r.status == "solved":
            raise SolverBug(f"engines disagree: the search engine proves {cost} points optimal "
                                 f"but CP-SAT completes the mission with {r.points}")
        if r.status != "unsolvable":
            raise GenerationFailed(f"CP-SAT could not prove the optimum of a candidate ({r.reason})",
                                   proven=False)
        self.stats["proofs"] += 1


def _unmatchable(n: int) -> Pattern:
    """A mission no layout of ``n`` modules matches (the free model's placeholder)."""
    return Pattern.from_cells({(x, 0): ANY for x in range(n + 1)})


def _choices(codes: tuple[str, ...], named_count: dict[str, int], rng: random.Random) -> list[tuple[int, str]]:
    """Every (size, named module), least-named modules first, in seeded random order."""
    sizes = list(range(MIN_CELLS, min(MAX_CELLS, len(codes)) + 1))
    pairs = [(s, c) for s in sizes for c in codes]
    rng.shuffle(pairs)
    pairs.sort(key=lambda p: named_count[p[1]])
    return pairs


def ramp(settings: Settings) -> list[int]:
    """The cost each mission aims at: evenly from ``A`` to ``B`` over the sequence
    (halves rounded up)."""
    a, b, n = settings.min_cost, settings.max_cost, settings.count
    return [a if n == 1 else a + ((b - a) * k * 2 + n - 1) // (2 * (n - 1)) for k in range(n)]


def generate_missions(spec: Spec, settings: Settings,
                      progress: Callable[[int, int], None] | None = None) -> Campaign:
    """The mission sequence of the module docstring; raises ``GenerationFailed``."""
    st = settings
    bad = st.problems(spec)
    if bad:
        raise ValueError("; ".join(bad))
    rng = random.Random(f"rove-generate:{st.seed}")
    clock = _Clock(st.time_limit)
    play = play_spec(spec, st.sides)
    cells = start_layout(spec.codes)
    count = st.count
    kept = [c.mission.pattern for c in spec.cards[count:]]
    taken: list[Pattern] = [p.normalized() for p in kept if len(p.named) == 1 and not p.empty]
    named_count = {c: 0 for c in spec.codes}
    titles: set[str] = {c.mission.title for c in spec.cards[count:]}
    stats: dict[str, Any] = {"synth_seconds": 0.0, "search_seconds": 0.0, "proof_seconds": 0.0,
                             "proofs": 0, "rounds": 0}
    out: list[GeneratedMission] = []
    ids = _card_ids(spec, count)
    def so_far() -> PartialCampaign | None:
        """The missions proven so far, as a campaign of their own."""
        return PartialCampaign(st, spec, _campaign_spec(spec, out, st), tuple(out), stats) if out else None

    for k, target in enumerate(ramp(st)):
        search = _MissionSearch(play, cells, st, taken, rng, clock, stats)
        choices = _choices(spec.codes, named_count, rng)
        got: Any = "infeasible"
        unknown = False
        for floor in range(target, st.min_cost - 1, -1):
            try:
                got = search.run(choices, floor)
            except GenerationFailed as exc:
                raise GenerationFailed(f"mission {k + 1} of {count}: {exc}", exc.proven,
                                       None if exc.proven else so_far()) from None
            if got == "unknown":
                unknown = True
            elif got != "infeasible":
                break
        stats["rounds"] += search.rounds
        if isinstance(got, str):
            if unknown:
                raise GenerationFailed(
                    f"mission {k + 1} of {count}: no pattern was proven within the limits; try a "
                    "wider cost range, another seed or a longer --time-limit", proven=False, partial=so_far())
            raise GenerationFailed(
                f"mission {k + 1} of {count}: proven: no new pattern of {MIN_CELLS}-{MAX_CELLS} cells "
                f"in one piece has an optimal cost in [{st.min_cost}, {st.max_cost}] from the layout "
                "the previous mission ended in", proven=True)
        pattern, cost, plan = got
        named, = pattern.named
        named_count[named] += 1
        taken.append(pattern)  # decoded patterns are already at (0, 0)
        out.append(GeneratedMission(ids[k], mission_title(rng, titles), pattern, cost, tuple(plan),
                                    Position.layout_of(cells), target, search.rounds,
                                    sum(1 for _, r in search.cuts if r < target)))
        rep = replay(_position(with_mission(play, pattern), cells, st.max_cost), plan)
        cells = normalized_cells(state_cells(rep.deck, rep.final))
        if progress:
            progress(k + 1, count)
    return Campaign(st, spec, _campaign_spec(spec, out, st), tuple(out), stats)


def _card_ids(spec: Spec, count: int) -> list[str]:
    ids = [c.id for c in spec.cards[:count]]
    used = {c.id for c in spec.cards}
    k = 1
    while len(ids) < count:
        cid = f"g{k:02d}"
        k += 1
        if cid not in used:
            ids.append(cid)
            used.add(cid)
    return ids


def _campaign_spec(spec: Spec, missions: list[GeneratedMission], st: Settings) -> Spec:
    """The source spec with mission ``k`` on card ``k`` (cards past the source's reuse its
    movement sides in turn)."""
    cards: list[Card] = []
    for k, gm in enumerate(missions):
        src = spec.cards[k % len(spec.cards)]
        cards.append(Card(gm.card, Mission(gm.title, gm.pattern), src.movement))
    cards.extend(spec.cards[len(missions):])
    return replace(spec, name=f"{spec.name}, generated missions (seed {st.seed})", cards=tuple(cards),
                   path=None)
