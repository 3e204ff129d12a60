"""The book's puzzle kinds, each from its own seeded generator and proven by the solvers.

* **Mission in N** (``mission``): a layout, spent modules, a mission and a bare budget of
  N points, where N is the optimum proven by A*.  The generator grows a random valid layout,
  spends some modules, picks a mission the layout does not already show, solves it and
  keeps the candidate when N lands in 1..``MAX_N``.
* **Hand puzzles** (``hand``): a layout (all modules spent), a mission and a tight hand of
  movement cards (no budget, empty piles).  Kept when the optimum with the hand is finite,
  plays 2 or more cards, and at least one opening card play (another card first, or base
  points instead of the bonus) makes the mission impossible or dearer, proven by A*.
* **Verified deals** (``deal``): fresh seeded deals at normal, hard and impossible
  difficulty that the game solver proves winnable within its node budget (an unknown result
  is skipped, never printed); the winning line is shortened by dropping steps while the
  replay still wins.
* **Campaigns** (``campaign``): a sequence of new missions from ``rove generate missions``
  (CP-SAT synthesis, costs proven by both engines), played from the standard start with
  every module spent (movement only, each module on the *spent* side of the reader's own
  card: the generator proves its costs with ``sides="spent"``), each mission with its own
  bare budget: the proven optimum from where the book's line leaves the layout.  The
  generated missions replace the mission sides of the deck's first cards; nothing else of
  the deck changes.  The first budget is tight; a
  later one is tight for that line, and the measured *traps* count the missions after
  which some optimal finish leaves the next mission out of its budget (plan ahead).
  Every leg is re-solved and replayed here.

A kind is a function ``(spec, seed label, Settings) -> Puzzle | None`` like those in
``KINDS``; see ``rove.book.build`` for the rest of the wiring.

No two puzzles of a book are alike up to translation: each has a canonical key (layout
normalised to its bounding box, spent set, mission, and budget or hand), and a key is used
once.  Every layout is re-based so its bounding box starts at (0, 0); the plan is found on
that very position, so its cells are the ones a reader (and ``rove replay``) sees.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..actions import Action
from ..engine import Deck, State, deck_for, state_cells, state_from_position
from ..generators.deals import deal
from ..grid import NEIGHBOUR_OFFSETS, Cell, connected
from ..position import Current, Position, normalized_cells
from ..replay import verify_plan
from ..rules import HAND_SIZES, Rules
from ..solve.heuristic import Heuristic
from ..solve.nodes import Budget, Limit
from ..spec import DEFAULT_SPEC, Spec
from . import analyse
from .grade import Features, score, stars

KIND_NAMES = {"mission": "Mission in N", "hand": "Hand puzzle", "deal": "Verified deal",
              "campaign": "Campaign"}
MAX_N = 8  # largest optimum a Mission in N may have
HAND_SLACK = 2  # a hand's bonus points exceed the bare optimum by at most this
HAND_TRIES = 4  # hands tried per layout
HAND_MIN_CARDS = 2  # a hand puzzle's solution plays at least this many cards


@dataclass(frozen=True)
class Settings:
    """Search bounds.  Node limits make results deterministic; the time limit (seconds per
    solve) is only a safety net on slow machines."""

    mission_nodes: int = 40_000
    check_nodes: int = 80_000     # all the follow-up proofs of one candidate together
    solution_nodes: int = 300_000  # nodes (A* ones included) for listing the optimal solutions
    deal_nodes: int = 200_000
    deal_expert_nodes: int = 2_000_000  # the expert's game, when the solver leaves a deal undecided
    time_limit: float | None = 30.0
    spec_ref: str = DEFAULT_SPEC


@dataclass(frozen=True)
class Puzzle:
    """One verified puzzle: the position as printed and exported, an optimal (or, for a
    deal, winning) plan that replays on it, and how it was graded."""

    kind: str
    position: Position
    plan: tuple[Action, ...]
    features: Features
    score: float
    stars: int
    key: tuple
    source: str                   # the seed label that made it
    difficulty: str | None = None  # deals: normal / hard / impossible
    notes: tuple[str, ...] = field(default=())
    #: campaigns: every mission as its own position (budget = its cost on the book's line)
    #: and that line's plan; ``position``/``plan`` are the first leg's
    legs: tuple[tuple[Position, tuple[Action, ...]], ...] = field(default=())

    @property
    def title(self) -> str:
        if self.kind == "mission":
            # N counts points; with every ability spent each point is one move, otherwise
            # abilities (free) add actions, and the title must not read as N moves
            n, acts = self.features.points, self.features.actions
            if self.position.spent >= frozenset(self.position.spec.codes):
                return f"Mission in {n} move{'s' if n != 1 else ''}"
            more = f" ({acts} actions)" if acts > n else ""
            return f"Mission in {n} point{'s' if n != 1 else ''}{more}"
        if self.kind == "hand":
            return "Hand puzzle"
        if self.kind == "campaign":
            return f"Campaign of {len(self.legs)} missions"
        return f"Verified deal ({self.difficulty})"


# --------------------------------------------------------------------------- helpers


def random_layout(codes: tuple[str, ...], rng: random.Random, max_w: int = 5,
                  max_h: int = 4, winding: bool = False) -> dict[str, Cell]:
    """A random valid layout: cells grown one by one next to the group (edge neighbours
    twice as likely as corner ones), inside a max_w x max_h box, then codes shuffled.
    ``winding`` grows from the newest cell that has room, favouring cells that touch only
    one module: a winding chain, which is further from most missions than a clump.  The
    box grows for specs with many modules."""
    max_w = max(max_w, math.isqrt(len(codes)) + 3)  # room for specs with many modules
    max_h = max(max_h, math.isqrt(len(codes)) + 2)
    cells = [(0, 0)]
    taken = {(0, 0)}
    while len(cells) < len(codes):
        options: list[Cell] = []
        for x, y in (reversed(cells) if winding else cells):
            for dx, dy in NEIGHBOUR_OFFSETS:
                c = (x + dx, y + dy)
                if c in taken:
                    continue
                xs = [p[0] for p in cells] + [c[0]]
                ys = [p[1] for p in cells] + [c[1]]
                if max(xs) - min(xs) >= max_w or max(ys) - min(ys) >= max_h:
                    continue
                weight = 1 if dx and dy else 2
                if winding and sum((c[0] + a, c[1] + b) in taken for a, b in NEIGHBOUR_OFFSETS) == 1:
                    weight *= 3
                options.extend([c] * weight)
            if winding and options:
                break
        if not options:  # pragma: no cover - a 1x1 box; cannot happen with 5x4
            raise ValueError("no room for the layout")
        c = rng.choice(sorted(options))
        cells.append(c)
        taken.add(c)
    order = list(codes)
    rng.shuffle(order)
    return normalized_cells(dict(zip(order, cells)))


def puzzle_key(pos: Position, extra: tuple) -> tuple:
    """Equal for two puzzles alike up to translation."""
    cells = normalized_cells(pos.cells)
    return (tuple(sorted(cells.items())), tuple(sorted(pos.spent)), pos.mission, extra)


def _position(spec: Spec, cells: dict[str, Cell], mission: str, spent: frozenset[str],
              hand: tuple[str, ...], current: Current | None, settings: Settings) -> Position:
    return Position(spec=spec, layout=Position.layout_of(cells), mission=mission, goal="mission",
                    spent=spent, hand=hand, current=current, spec_ref=settings.spec_ref)


def _random_spent(codes: tuple[str, ...], rng: random.Random, low: int, high: int) -> frozenset[str]:
    """``low`` to ``high`` of ``codes`` at random, as many as there are when there are fewer
    (a valid deck may have a single module)."""
    k = rng.randint(min(low, len(codes)), min(high, len(codes)))
    return frozenset(rng.sample(sorted(codes), k))


def _mission_choices(spec: Spec, deck: Deck, s: State) -> list[str]:
    """Cards whose mission the layout does not already show."""
    return [c.id for c in spec.cards if not deck.mission_pat[deck.card_index[c.id]].matches(s.cells)]


# --------------------------------------------------------------------------- Mission in N


def mission_puzzle(spec: Spec, label: str, settings: Settings) -> Puzzle | None:
    """One Mission in N candidate from the seed label, or None if it is not kept.

    A random layout (half the time a winding chain, which makes dearer missions), some
    modules spent, a mission the layout does not show; A* finds the optimum N, kept when
    1 <= N <= MAX_N; then the budget is set to N and the puzzle is measured.  The seed
    picks one of four recipes (``MISSION_RECIPES``):

    * ``random``: 3 or more modules spent, a random mission (mostly the gentle ones);
    * ``dearest``: the same, but the mission whose optimum is the largest;
    * ``deep``: every module spent (moves only) and a random mission; the layout is then
      improved by hill climbing (``_climb``: one module moved to another free cell at a
      time, each step kept when the proven optimum does not get cheaper) towards a plan
      of MAX_N points;
    * ``chain``: only CHAIN_SPENT modules spent, so most abilities are open, and the
      layout climbed towards a long plan of abilities *and* moves; kept only when the
      optimum needs at least CHAIN_MIN_ABILITIES abilities and one point."""
    rng = random.Random(f"rove-book:mission:{label}")
    deck = deck_for(spec, Rules())
    roll = rng.random()
    recipe = next(name for name, share in _RECIPE_CUTS if roll < share)
    cells = random_layout(spec.codes, rng, winding=recipe in ("deep", "chain") or rng.random() < 0.5)
    if recipe == "deep":
        spent = frozenset(spec.codes)
    elif recipe == "chain":
        spent = _random_spent(spec.codes, rng, *CHAIN_SPENT)
    else:
        spent = _random_spent(spec.codes, rng, 3, len(spec.codes))
    probe = _position(spec, cells, spec.cards[0].id, spent, (), Current(None, MAX_N), settings)
    s0 = state_from_position(deck, probe)
    missions = _mission_choices(spec, deck, s0)
    if not missions:
        return None
    sol: analyse.Solved | None
    if recipe == "dearest":
        got = _dearest_mission(deck, probe, missions, settings)
        if got is None:
            return None
        pos, sol = got
    elif recipe in ("deep", "chain"):
        pos = replace(probe, mission=rng.choice([c.id for c in spec.cards]))
        climbed = _climb(deck, pos, rng, settings, _deep_value if recipe == "deep" else _chain_value)
        if climbed is None:
            return None
        pos, sol = climbed
        if recipe == "chain" and not _is_chain(sol):
            return None
    else:
        pos = replace(probe, mission=rng.choice(missions))
        try:
            sol = analyse.solve_optimal(deck, state_from_position(deck, pos), settings.mission_nodes,
                                        settings.time_limit)
        except Limit:
            return None
    try:
        if sol is None or not 1 <= sol.points <= MAX_N:
            return None
        n = sol.points
        pos = replace(pos, current=Current(None, n))
        s = state_from_position(deck, pos)
        h = Heuristic(deck)
        first = analyse.optimal_first_moves(deck, s, n, settings.check_nodes, settings.time_limit,
                                             sol.plan)
    except Limit:
        return None
    feats = Features(points=n, cards=sol.cards, abilities=sol.abilities, first_moves=first,
                     branching=analyse.branching(deck, s), greedy=analyse.greedy(deck, s, h, n),
                     nodes=sol.nodes, actions=len(sol.plan))
    verify_plan(pos, list(sol.plan), deck)
    return Puzzle("mission", pos, sol.plan, feats, score("mission", feats), stars("mission", feats),
                  puzzle_key(pos, ("budget", n)), label, notes=_mission_notes(feats))


#: Mission in N recipes and the share of candidates each makes
MISSION_RECIPES = (("random", 0.2), ("dearest", 0.2), ("deep", 0.35), ("chain", 0.25))
_RECIPE_CUTS = tuple((name, sum(s for _, s in MISSION_RECIPES[:i + 1]))
                     for i, (name, _) in enumerate(MISSION_RECIPES[:-1])) + ((MISSION_RECIPES[-1][0], 2.0),)
CLIMB_STEPS = 40  # layouts the hill climb tries per candidate
CHAIN_SPENT = (1, 3)  # modules spent in a chain candidate
CHAIN_MIN_ABILITIES = 2  # a chain puzzle's optimum uses at least this many abilities


def _is_chain(sol: analyse.Solved) -> bool:
    return sol.abilities >= CHAIN_MIN_ABILITIES and sol.points >= 1


def _deep_value(sol: analyse.Solved) -> tuple[int, ...]:
    return (sol.points, len(sol.plan))


def _chain_value(sol: analyse.Solved) -> tuple[int, ...]:
    return (_is_chain(sol), len(sol.plan), min(sol.points, 4), sol.abilities)


def _climb(deck: Deck, pos: Position, rng: random.Random, settings: Settings,
           value: Callable[[analyse.Solved], tuple[int, ...]],
           ) -> tuple[Position, analyse.Solved] | None:
    """Hill climbing on the layout for a dearer mission: CLIMB_STEPS times, one module is
    moved to a random free cell next to the group (the layout stays valid and does not
    show the mission); the new layout is kept when its proven optimum (1..MAX_N points)
    has a ``value`` at least as high.  Every value is an optimum proven by A* (a proof
    that runs out of nodes just rejects the step).  Returns the best layout and its
    optimum, or None when no layout tried had one."""

    def solved(cand: Position) -> analyse.Solved | None:
        s = state_from_position(deck, cand)
        if s.status != "playing":
            return None
        try:
            sol = analyse.solve_optimal(deck, s, settings.mission_nodes, settings.time_limit)
        except Limit:
            return None
        return sol if sol is not None and 1 <= sol.points <= MAX_N else None

    best = solved(pos)
    for _ in range(CLIMB_STEPS):
        cand = pos.with_cells(_nudge(pos.cells, rng))
        sol = solved(cand)
        if sol is not None and (best is None or value(sol) >= value(best)):
            pos, best = cand, sol
    return None if best is None else (pos.with_cells(normalized_cells(pos.cells)), best)


def _nudge(cells: dict[str, Cell], rng: random.Random) -> dict[str, Cell]:
    """The layout with one module moved to a free cell next to the others (still one
    connected group), re-based to (0, 0); the same layout when no move is found."""
    codes = sorted(cells)
    for _ in range(20):
        code = rng.choice(codes)
        others = {k: v for k, v in cells.items() if k != code}
        taken = set(others.values())
        free = sorted({(x + dx, y + dy) for x, y in taken for dx, dy in NEIGHBOUR_OFFSETS}
                      - taken - {cells[code]})
        new = dict(others)
        new[code] = rng.choice(free)
        if connected(new.values()):
            return normalized_cells(new)
    return cells


def _mission_notes(f: Features) -> tuple[str, ...]:
    notes = []
    if f.abilities >= CHAIN_MIN_ABILITIES and f.points >= 1:
        notes.append("Abilities and moves together: the best solution needs both.")
    notes += _solution_note(f)
    if not f.solutions and f.first_moves == 1:
        notes.append("The first move is unique.")
    return tuple(notes)


def _solution_note(f: Features) -> tuple[str, ...]:
    """What the page says about the optimal solutions, when they were counted."""
    if f.solutions == 1:
        return ("The optimal solution is unique, up to the order of independent actions.",)
    if f.solutions > 1:
        return (f"There are {f.solutions} essentially different optimal solutions; find one.",)
    return ()


def potential_stars(p: Puzzle) -> int:
    """The stars ``p`` gets once its optimal solutions are counted, at most (a Mission in N
    or hand puzzle is graded at most MAX_STARS_UNCOUNTED until they are)."""
    if p.kind not in SOLUTION_KINDS or p.features.solutions > 0:
        return p.stars
    return max(p.stars, stars(p.kind, replace(p.features, solutions=1)))


SOLUTION_KINDS = ("mission", "hand")  # the kinds whose optimal solutions are counted


def count_solutions(p: Puzzle, settings: Settings) -> Puzzle:
    """``p`` with its essentially different optimal solutions counted
    (``analyse.optimal_solutions``), graded again and its notes saying what was found;
    ``p`` itself when it is not a Mission in N or hand puzzle, was counted already, or the
    count runs out of nodes (then it stays below 3 stars).  Counting is dear, so the
    book does it only for the puzzles it would print at 3 stars or more."""
    if p.kind not in SOLUTION_KINDS or p.features.solutions > 0:
        return p
    deck = deck_for(p.position.spec, p.position.rules)
    s = state_from_position(deck, p.position)
    f = p.features
    try:
        got = analyse.optimal_solutions(deck, s, (f.points, f.cards, f.abilities),
                                        settings.solution_nodes)
    except Limit:
        return p
    if not got.classes:
        return p
    f = replace(f, solutions=got.classes)
    notes = _mission_notes(f) if p.kind == "mission" else _hand_notes(f)
    return replace(p, features=f, score=score(p.kind, f), stars=stars(p.kind, f), notes=notes)


def _hand_notes(f: Features) -> tuple[str, ...]:
    w = f.wrong_plays
    return (f"{w} of the {f.plays} opening card plays make{'s' if w == 1 else ''} the "
            "mission impossible or dearer.",
            "No solution takes base points only: a bonus is needed.",
            *_solution_note(f))


def _dearest_mission(deck: Deck, probe: Position, missions: list[str], settings: Settings,
                     ) -> tuple[Position, analyse.Solved] | None:
    """The mission whose proven optimum is the largest within 1..MAX_N from this layout
    (ties: the longer plan, then card order), with its optimal plan; None when none is.

    A mission drawn at random is usually cheap (on the bundled deck 0 to 2 points nine
    times in ten), while most layouts also offer one of 4 points or more; the book's
    hard pages need those.  Each proof is bounded by nodes; one that runs out is skipped."""
    best: tuple[Position, analyse.Solved] | None = None
    for mission in missions:
        pos = replace(probe, mission=mission)
        try:
            sol = analyse.solve_optimal(deck, state_from_position(deck, pos), settings.mission_nodes,
                                        settings.time_limit)
        except Limit:
            continue
        if sol is None or not 1 <= sol.points <= MAX_N:
            continue
        if best is None or (sol.points, len(sol.plan)) > (best[1].points, len(best[1].plan)):
            best = (pos, sol)
    return best


# --------------------------------------------------------------------------- hand puzzles


def hand_puzzle(spec: Spec, label: str, settings: Settings) -> Puzzle | None:
    """One hand-puzzle candidate from the seed label, or None if it is not kept.

    A random layout (half the time a winding chain) with every module spent, so moves and
    cards are the whole story, and a mission it does not show; A* finds the bare optimum N
    (the fewest points any solution spends).  Hands of 2 or 3 cards are then tried that are
    *tight*: their base points add up to less than N (so no solution takes base points
    only: a bonus is needed, by this very count) and their bonus points to N .. N +
    HAND_SLACK.  A hand is kept when the optimum with it is finite, plays at least
    HAND_MIN_CARDS cards, and at least one opening card play (another card first, or base
    points instead of the bonus) makes the mission impossible or dearer (points, then
    cards) than the optimum, each proven by A*."""
    rng = random.Random(f"rove-book:hand:{label}")
    deck = deck_for(spec, Rules())
    cells = random_layout(spec.codes, rng, 6, 4, winding=rng.random() < 0.5)
    spent = frozenset(spec.codes)  # movement only: the cards are the whole story
    probe = _position(spec, cells, spec.cards[0].id, spent, (), Current(None, MAX_N), settings)
    missions = _mission_choices(spec, deck, state_from_position(deck, probe))
    if not missions:
        return None
    mission = rng.choice(missions)
    s_bare = state_from_position(deck, replace(probe, mission=mission))
    try:
        bare = analyse.solve_optimal(deck, s_bare, settings.mission_nodes, settings.time_limit)
    except Limit:
        return None
    if bare is None or bare.points < 2:
        return None
    n = bare.points
    others = sorted(c.id for c in spec.cards if c.id != mission)
    tight = [h for k in (2, 3) for h in itertools.combinations(others, k)
             if _base(spec, h) < n <= _bonus(spec, h) <= n + HAND_SLACK]
    rng.shuffle(tight)
    for hand in tight[:HAND_TRIES]:
        got = _hand_check(deck, replace(probe, mission=mission, hand=hand, current=None), label,
                          settings)
        if got is not None:
            return got
    return None


def _base(spec: Spec, hand: tuple[str, ...]) -> int:
    return sum(spec.card(c).movement.points for c in hand)


def _bonus(spec: Spec, hand: tuple[str, ...]) -> int:
    return sum(spec.card(c).movement.bonus for c in hand)


def _hand_check(deck: Deck, pos: Position, label: str, settings: Settings) -> Puzzle | None:
    try:
        s = state_from_position(deck, pos)
        sol = analyse.solve_optimal(deck, s, settings.mission_nodes, settings.time_limit)
        if sol is None or sol.cards < HAND_MIN_CARDS:
            return None
        plays, wrong = analyse.opening_plays(deck, s, (sol.points, sol.cards),
                                             settings.check_nodes, settings.time_limit)
        if wrong == 0:
            return None  # every opening card play is as good as any: the order does not matter
    except Limit:
        return None
    h = Heuristic(deck)
    # the hand's base points add up to less than the bare optimum, a lower bound on the
    # points any solution spends: no solution takes base points only
    feats = Features(points=sol.points, cards=sol.cards, abilities=sol.abilities,
                     branching=analyse.branching(deck, s),
                     greedy=analyse.greedy(deck, s, h, sol.points), bonus_needed=True,
                     wrong_plays=wrong, plays=plays, nodes=sol.nodes, actions=len(sol.plan))
    verify_plan(pos, list(sol.plan), deck)
    notes = _hand_notes(feats)
    return Puzzle("hand", pos, sol.plan, feats, score("hand", feats), stars("hand", feats),
                  puzzle_key(pos, ("hand", pos.hand)), label, notes=notes)


# --------------------------------------------------------------------------- verified deals

DEAL_DIFFICULTIES = ("normal", "hard", "impossible")


def deal_puzzle(spec: Spec, label: str, settings: Settings, difficulty: str = "normal",
                mission_ok: Callable[[str], bool] | None = None) -> Puzzle | None:
    """A fresh deal proven winnable, or None (lost, or undecided by both players, or its
    first mission refused by ``mission_ok``, which is asked before any search).

    The game solver tries first; a deal it leaves at its node budget goes to the expert
    player, and an expert win is as good a proof (its plan replays through the engine
    below, like every plan).  On a deck worth playing most deals outlast the solver's
    budget, and without the expert the book would print only the easy ones.  Such a deal
    is graded on the positions the solver examined without deciding it, a lower bound on
    its difficulty."""
    from ..solve.expert import play
    from ..solve.winnable import solve_game

    rng = random.Random(f"rove-book:deal:{label}")
    seed = rng.randrange(1, 10 ** 6)
    pos = deal(spec, seed, difficulty, spec_ref=settings.spec_ref)
    if mission_ok is not None and pos.mission is not None and not mission_ok(pos.mission):
        return None
    deck = deck_for(spec, pos.rules)
    s = state_from_position(deck, pos)
    budget = Budget.of(settings.time_limit, settings.deal_nodes)
    witness = "the game solver, which knew the whole draw order"
    try:
        plan, _ = solve_game(deck, s, budget)  # its second value is its optimality flag
    except Limit:
        game = play(deck, s, node_limit=settings.deal_expert_nodes)
        plan = list(game.plan) if game.status == "won" else None
        witness = "the expert player, who saw only the table: the solution is its game"
    nodes = budget.nodes
    if plan is None:
        return None
    plan = analyse.simplify_plan(deck, s, plan)
    if not plan:  # won before any move (a deck whose one mission every deal shows): no puzzle
        return None
    verify_plan(pos, plan, deck)
    feats = Features(points=analyse.plan_points(plan), cards=sum(a.act == "play" for a in plan),
                     abilities=sum(a.act == "ability" for a in plan), nodes=nodes,
                     hand_size=HAND_SIZES[difficulty])
    key = (tuple(sorted(pos.cells.items())), pos.mission, pos.hand, pos.draw)
    return Puzzle("deal", pos, tuple(plan), feats, score("deal", feats), stars("deal", feats),
                  key, label, difficulty=difficulty,
                  notes=(f"Proven winnable by {witness}.",))


# --------------------------------------------------------------------------- campaigns

CAMPAIGN_MISSIONS = (3, 4)  # missions per campaign
CAMPAIGN_COSTS = (1, 3)  # each mission's cost range (the generator ramps through it)
CAMPAIGN_FINISHES = 20_000  # layouts the search for optimal finishes may visit


def campaign_puzzle(spec: Spec, label: str, settings: Settings) -> Puzzle | None:
    """A campaign from ``rove generate missions`` (seeded by the label), or None when the
    generator gives up or a proof runs out of nodes."""
    from ..generators.missions import GenerationFailed, generate_missions
    from ..generators.missions import Settings as GenSettings

    if GenSettings().problems(spec):  # a deck too small for missions (a valid deck may have one module)
        return None

    rng = random.Random(f"rove-book:campaign:{label}")
    count = min(rng.choice(CAMPAIGN_MISSIONS), len(spec.cards))  # only the deck's own cards change
    lo, hi = CAMPAIGN_COSTS
    if count < 1:
        return None
    try:
        camp = generate_missions(spec, GenSettings(count=count, min_cost=lo, max_cost=hi,
                                                   seed=rng.randrange(10 ** 6),
                                                   time_limit=settings.time_limit, sides="spent"))
    except GenerationFailed:
        return None
    # the reader's deck: the source's modules (both sides), with the generated missions on
    # the first cards' mission sides; every leg is posed, solved and replayed on it
    cspec = camp.spec
    deck = deck_for(cspec, Rules())
    spent = frozenset(spec.codes)
    legs: list[tuple[Position, tuple[Action, ...]]] = []
    for gm in camp.missions:
        pos = _position(cspec, dict(gm.start), gm.card, spent, (), Current(None, gm.cost), settings)
        verify_plan(pos, list(gm.plan), deck)
        legs.append((pos, gm.plan))
    h = Heuristic(deck)
    try:
        s0 = state_from_position(deck, legs[0][0])
        first = analyse.optimal_first_moves(deck, s0, legs[0][0].current.points,  # type: ignore[union-attr]
                                            settings.check_nodes, settings.time_limit, legs[0][1])
        traps = sum(_trapped(deck, legs[i][0], legs[i + 1][0]) for i in range(len(legs) - 1))
    except Limit:
        return None
    feats = Features(points=sum(gm.cost for gm in camp.missions), first_moves=first,
                     branching=analyse.branching(deck, s0), greedy=_greedy_campaign(deck, h, legs),
                     traps=traps)
    notes = [f"Generated missions (seed {camp.settings.seed}), each cost proven by CP-SAT and A*."]
    if traps:
        notes.append(f"After {traps} of the missions some optimal finish leaves the next one "
                     "out of its budget: plan ahead.")
    key = ("campaign", tuple(gm.pattern.normalized() for gm in camp.missions))
    return Puzzle("campaign", legs[0][0], legs[0][1], feats, score("campaign", feats),
                  stars("campaign", feats), key, label, notes=tuple(notes), legs=tuple(legs))


def _leg_state(deck: Deck, s: State, nxt: Position) -> State:
    """The next leg's start from the layout of ``s`` (a goal state of the leg before)."""
    cells = normalized_cells(state_cells(deck, s))
    return state_from_position(deck, nxt.with_cells(cells))


def _trapped(deck: Deck, leg: Position, nxt: Position) -> bool:
    """Whether some optimal finish of ``leg`` leaves ``nxt`` out of its budget."""
    s = state_from_position(deck, leg)
    n = leg.current.points if leg.current else 0
    for end in analyse.optimal_finishes(deck, s, n, CAMPAIGN_FINISHES):
        s2 = _leg_state(deck, end, nxt)
        if analyse.solve_optimal(deck, s2, CAMPAIGN_FINISHES, None,
                                 max_points=s2.points) is None:
            return True
    return False


def _greedy_campaign(deck: Deck, h: Heuristic, legs: list[tuple[Position, tuple[Action, ...]]]) -> int:
    """The greedy player through the whole campaign, each mission within its budget:
    GREEDY_OPTIMAL when it completes them all, GREEDY_OVERSPENDS when it completes the
    first but not all, GREEDY_FAILS when it fails the first."""
    s = state_from_position(deck, legs[0][0])
    for i, (pos, _) in enumerate(legs):
        if i:
            s = _leg_state(deck, s, pos)
        end, _ = analyse.greedy_run(deck, s, h)
        if end is None:
            return analyse.GREEDY_FAILS if i == 0 else analyse.GREEDY_OVERSPENDS
        s = end
    return analyse.GREEDY_OPTIMAL


KINDS: dict[str, Callable[..., Puzzle | None]] = {
    "mission": mission_puzzle,
    "hand": hand_puzzle,
    "deal": deal_puzzle,
    "campaign": campaign_puzzle,
}
