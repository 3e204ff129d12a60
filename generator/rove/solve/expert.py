"""The expert: a fixed, deterministic player who cannot see the order of the deck.

``rove check`` reports two win rates.  The *thoughtful* one (``solve.winnable``) knows the
whole draw order, so it is an upper bound on what anybody wins.  The *expert* plays as a
good player at the table does, from what that player can see:

* the layout, the spent modules, the hand, the current card and its points, the
  current mission, the missions done;
* the top card of the draw pile (it lies mission side up, so it is the next mission)
  and how many cards the pile holds;
* the discard pile, in order, and every card played.

It never reads the order of the draw pile below its top card.  Once that pile is down
to one card nothing is hidden any more (the discard pile is public and recycling
turns it over without shuffling), so the expert then plans with everything.

**Planning view.**  The expert plans on a copy of the state, the *view*
(:func:`known_view`): the draw pile cut down to its top card and, while the real pile
holds two cards or more, an empty discard pile; with one card or none left the view is
the real state.  In the view the first draw (a Sensor, or a Gripper triggering one)
takes the top card, as it would at the table.  A second draw in the same mission finds
the view's draw pile empty and, by the recycling rule, may take back a card the plan
itself discarded; at the table it takes an unseen card.  The expert never relies on that
blindly: every step is played on the real state through the engine, and whenever a step
leaves the real state other than the plan expected (a draw showed an unseen card), the
expert plans again from what it now sees.  The hand limit, the recycling rules and all
other rulings are the engine's own in the view.

**Choosing a completion.**  At the start of each mission (and after every re-plan) the
expert lists candidate completions of the current mission, each the optimal plan of the
exact mission search (:func:`rove.solve.astar.solve_mission_state`: fewest points,
then cards, then abilities) from the view: one from the view as it is, and one after
each other card play the hand allows first (each distinct card, for its bonus when its
movement pattern matches, else for its base points).  The searches leave a Sensor's own
ability out (it is marked spent in the searched copy; a Gripper may still trigger it):
with a draw in reach the search must tell the piles apart and grows tenfold, and a
player keeps the Sensor for when nothing else works (below).  For each candidate it
looks one mission ahead: the next mission is the top card, known, so it solves that
mission from the candidate's end state, holding what the candidate leaves (hand,
modules, layout) and drawing nothing it cannot see.  It plays the candidate with the
smallest key:

1. *class*: 0 wins the game; 1 leaves the next mission completable from what it holds;
   2 leaves the next mission unknown (the plan draws the top card, or the look-ahead hit
   its node limit); 3 leaves a next mission it cannot complete from what it holds;
2. the *worth* kept, highest first: after the next mission for class 1, after this one
   otherwise.  Worth is the bonus points of the cards in hand plus ``ABILITY_WORTH`` (2)
   points for every module whose ability is still unspent (the current card's points
   are lost at every completion, so they are not worth anything);
3. fewest points spent on this mission, then fewest cards played, then fewest
   abilities used;
4. the candidate's place in the fixed order above (the view's own plan first, then the
   plays in hand order, bonus before base).

When no candidate is found it searches once more with the Sensor, and failing that it
gambles on a draw while the draw pile hides cards: the first Sensor draw the engine
lists (Sensor, or Gripper triggering it), after playing the weakest card of a full hand
(fewest bonus points, then first in hand) to make room; then it plans again.

**Ending.**  Every expert game ends, won or lost.  It is lost when the engine loses it
(no mission can be revealed); when no plan completes the current mission from the view
and no gamble is left ("stuck": the search, Sensor included, proved it; with no draw
left that could show an unseen card the view holds all that matters, so this is a proof
that the game is lost from where the expert's own choices led); or when the main search
hits the game's node limit ("budget").  Every search is bounded by nodes, not seconds, so
the result does not depend on the machine: each probe (another candidate, a look-ahead)
gets ``probe_nodes`` (2,000), and the main search of a decision whatever the game's
``node_limit`` (2,000,000) has left.  The budget scales with what the mission needs
because a fixed slice made the expert's figures measure rove's budget rather than a
player: on decks that are hard to think through (a full hand, no points, a mission
several plays away) the optimal plan can take half a million nodes to find, and most
of the "losses" at a fixed 100,000 were searches stopped short.  An easy decision costs
what it always did: an A* search stops at its plan whatever its cap, and finds the same
plan under any cap it fits in.  (The main search once started at 100,000 nodes and
doubled while it hit its cap; that found the same plans and spent a third of the
expert's nodes on the searches cut short.)  A search of a state already
searched is answered from memory.  A main search from a state where only a Sensor's
ability is left (no ability can change the layout) that runs past
:data:`EXPERT_TABLE_AFTER` nodes starts again with the compiled core's exact distance
table of its mission and spent set (A*'s own bound there can be 3 points against an
optimum of 8), and so does every later one of that mission and spent set.  A main
search that still hits the limit is the
expert failing to find a plan, and the game counts as lost ("budget"; reported apart
from the real losses): the expert is a player, not a prover, and its win rate has no
unknowns.  A lost expert game does not
prove the deal unwinnable; a won one proves it winnable (its plan is replayed by the
engine).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from ..actions import Action
from ..defaults import EXPERT_GAME_NODES
from ..engine import LOST, PLAYING, WON, Deck, IllegalAction, State, apply
from ..replay import run_plan
from ..rules import HAND_LIMIT
from .astar import solve_mission_state
from .nodes import Budget, Limit, useful_successors
from .result import plan_cost

ABILITY_WORTH = 2  # points an unspent ability counts for in a candidate's worth
GAME_NODE_LIMIT = EXPERT_GAME_NODES  # nodes of mission search for a whole game
DEFAULT_PROBE_NODES = 2_000  # nodes of each probe: another candidate's search, a look-ahead
EXPERT_TABLE_AFTER = 500_000
"""Nodes after which the expert's main search from a state where only a Sensor's ability
is left starts again with the distance table of its mission and spent set (see
:meth:`PlayerBudget._search`).  Below it a table's build (seconds) costs more than the
nodes it saves: at 100,000 the standard deck's 60 expert games took 38 s instead of 25
on two cores, the same games; at 500,000 none of them reaches it, and on
bench/decks/t35.yaml the six games its searches lost to the 2,000,000-node budget end
otherwise (91 -> 69 s, 27.0 -> 17.0 million nodes)."""
MAX_STEPS = 100_000  # a safety net: every game ends long before (each step spends something)

Outcome = Literal["won", "lost"]
"""How an expert game ended (it always ends)."""
LossReason = Literal["stuck", "budget", "no_mission"]
"""Why an expert game was lost: no plan and no gamble left, a node limit hit, or no mission
left to reveal (the engine lost it)."""
WON_: Final[Outcome] = "won"
LOST_: Final[Outcome] = "lost"
STUCK: Final[LossReason] = "stuck"
BUDGET: Final[LossReason] = "budget"
NO_MISSION: Final[LossReason] = "no_mission"


@dataclass(frozen=True)
class ExpertResult:
    """One expert game: how it ended, the plan it played, and what it cost."""

    status: Outcome
    reason: LossReason | None  # None when won
    plan: tuple[Action, ...]
    done: int  # missions completed
    failed_mission: int | None  # the card index of the mission it failed (None: won or no mission)
    nodes: int  # mission-search nodes spent
    decisions: int  # times it chose a completion (missions plus re-plans)
    replans: int  # re-plans after a draw showed an unseen card (or a step became illegal)


def hidden(s: State) -> bool:
    """Whether the state hides anything from a player: the draw pile's order below its top."""
    return len(s.draw) >= 2


def known_view(s: State) -> State:
    """The state as the expert may plan with it: the draw pile cut down to its top card and
    no discard pile while the pile hides cards; the real state when it hides none."""
    if not hidden(s):
        return s
    return replace(s, draw=s.draw[:1], discard=())


def _known(s: State) -> tuple[Any, ...]:
    """What the expert compares between the state a plan expected and the real one."""
    return (s.cells, s.spent, s.hand, s.card, s.points, s.mission, s.done, s.status)


def worth(deck: Deck, hand: tuple[int, ...], spent: int) -> int:
    """Bonus points in hand plus ``ABILITY_WORTH`` per unspent ability."""
    unspent = sum(1 for i in range(deck.n) if not spent >> i & 1)
    return sum(deck.bonus[c] for c in hand) + ABILITY_WORTH * unspent


class PlayerBudget:
    """The game's node budget; each search gets a slice of it.  A search of a state
    already searched is answered from memory when the earlier answer holds under its
    limit (same answer, no nodes).

    ``max_search`` caps each main search (None: whatever the game has left); a player
    that backtracks (:mod:`.seer`) sets it, so that one hard decision cannot spend the
    nodes its alternatives need.

    With ``table_after``, a main search from a state no ability can change the layout of
    any more that runs past that many nodes is searched again at once with the core's
    distance table of its mission and spent set, and so is every later main search of
    that mission and spent set (see :meth:`_search`): the seer sets it to its cap, the
    expert to :data:`EXPERT_TABLE_AFTER`."""

    def __init__(self, node_limit: int, probe_nodes: int, max_search: int | None = None,
                 table_after: int | None = None) -> None:
        self.left = node_limit
        self.probe_nodes = probe_nodes
        self.max_search = max_search
        self.table_after = table_after
        self.used = 0
        #: main searches stopped by ``max_search`` (a larger cap could answer them), and
        #: searches of either kind stopped by what the game had left
        self.capped = 0
        self.starved = 0
        # (state, spent set searched) -> (answer, nodes it took)
        self.memo: dict[tuple[State, int], tuple[tuple[list[Action] | None, bool], int]] = {}
        #: (mission, spent set) of the layout-inert main searches that ran past
        #: ``table_after``: their main searches use the distance tables
        self.tabled: set[tuple[int, int]] = set()

    def search(self, deck: Deck, s: State, probe: bool = False, mask: bool = True,
               ) -> tuple[list[Action] | None, bool]:
        """The optimal plan completing ``s``'s mission (None: proven impossible from ``s``),
        and whether the search stopped at its limit (then the plan is None).  A probe
        (another candidate, a look-ahead) gets ``probe_nodes``; the main search
        ``max_search``, or all the game has left; neither more than the game has left.

        One search with the whole cap, not a short one grown while it hits its cap: A*
        finds the same plan under any cap it fits in, so a restart only pays again for
        the nodes the short one spent."""
        left = self.left
        want = self.probe_nodes if probe else self.max_search if self.max_search is not None else left
        got = self._search(deck, s, min(left, want), mask, main=not probe)
        if got[1]:  # stopped at its limit: say whose
            if want >= left:
                self.starved += 1
            elif not probe and self.max_search is not None:
                self.capped += 1
        return got

    def _search(self, deck: Deck, s: State, cap: int, mask: bool, main: bool = False,
                ) -> tuple[list[Action] | None, bool]:
        """One bounded mission search of ``cap`` nodes (see :meth:`search`); ``main``: a
        decision's own search, not a probe.

        Its answer is remembered with the nodes it took: a plan (or a proof) found in
        ``n`` nodes is the answer to any search of the state with a cap above ``n`` (a
        search stops at its cap's node), and a search cut short at ``cap`` is cut short
        under any cap up to that one.

        The searches run without the distance tables: the game's searches are many and
        short, and a table's build (seconds) costs more than the nodes it saves them (on
        10 deals a difficulty, the expert's CPU time 68 -> 50 s on the bundled deck and
        159 -> 131 s on bench/decks/o35.yaml, the same wins).  The exception is
        ``table_after``: the long main searches are nearly all from states whose
        abilities are spent but a Sensor's, where A*'s bound is far below the optimum
        (3 points against 8) and a table's is exact, and they come back again and again
        with the same mission and spent set (the seer's capped searches: 34 of them, of
        three pairs, on one bench/decks/t35.yaml deal); one build of a few seconds
        answers them all in a few hundred nodes each, where each cost the seer its whole
        cap and left its decision without a plan, and cost the expert up to the game's
        whole budget.  Whether a table is used depends on node counts
        only, and a table's distances are exact, so the answers stay the same on any
        machine."""
        from .core import tables_eager, tables_off, tables_possible

        if cap <= 0:
            return None, True
        masked = s.spent | sensor_mask(deck) if mask else s.spent
        known = self.memo.get((s, masked))
        if known is not None:
            got, nodes = known
            if (not got[1] and nodes < cap) or (got[1] and nodes >= cap):
                return got
        searched = replace(s, spent=masked)
        key = (s.mission, masked)
        # the nodes after which this search switches to a table (None: it never does)
        after = (self.table_after if main and layout_inert(deck, masked) and tables_possible(deck)
                 else None)
        if after is not None and key in self.tabled:
            got, nodes = _bounded_search(deck, searched, cap, tables_eager)
        else:
            got, nodes = _bounded_search(deck, searched, cap if after is None else min(cap, after), tables_off)
        if got[1] and after is not None and key not in self.tabled:
            self.tabled.add(key)
            self.used += nodes
            self.left -= nodes
            got, nodes = _bounded_search(deck, searched, min(cap, self.left), tables_eager)
        plan = got[0]
        if plan and masked != s.spent and completion(deck, s, plan) is None:
            got = (None, False)  # not expected: the masked Sensor's arrows are its active ones
        self.used += nodes
        self.left -= nodes
        self.memo[(s, masked)] = (got, nodes)
        return got


def expert_budget(node_limit: int = GAME_NODE_LIMIT, probe_nodes: int = DEFAULT_PROBE_NODES,
                  ) -> PlayerBudget:
    """The expert's budget for a game (or, in the coach, one decision): no cap on a main
    search, the tables past :data:`EXPERT_TABLE_AFTER`.  One constructor, so that every
    place that plays the expert's moves plays the same player."""
    return PlayerBudget(node_limit, probe_nodes, table_after=EXPERT_TABLE_AFTER)


def _bounded_search(deck: Deck, s: State, cap: int, tables: Callable[[], AbstractContextManager[None]],
                    ) -> tuple[tuple[list[Action] | None, bool], int]:
    """((the optimal plan or None, whether the search stopped at ``cap``), nodes) of one
    A* search of ``s``'s mission, inside the ``tables`` context (on or off)."""
    if cap <= 0:
        return (None, True), 0
    b = Budget(float("inf"), cap)
    try:
        with tables():
            plan, _, _ = solve_mission_state(deck, s, b)
        return (plan, False), b.nodes
    except Limit:
        return (None, True), b.nodes


def layout_inert(deck: Deck, spent: int) -> bool:
    """Whether no ability left in ``spent`` can change the layout: every unspent module
    is a Sensor (its ability draws a card), the states the distance tables cover."""
    return all(spent >> i & 1 or m.ability == "sensor" for i, m in enumerate(deck.modules))


def sensor_mask(deck: Deck) -> int:
    """The Sensors whose ability the mission searches leave out (flipping them changes no
    arrow, so a plan found with them marked spent is legal with them active)."""
    return sum(1 << i for i, m in enumerate(deck.modules)
               if m.ability == "sensor" and not m.flip_matters)


def completion(deck: Deck, s: State, plan: list[Action]) -> State | None:
    """The state after ``plan`` from ``s`` when the plan is legal there and completes its
    mission (or wins), else None."""
    states, bad = run_plan(deck, s, plan)
    if bad is not None:
        return None
    e = states[-1] if states else s
    return e if e.status == WON or e.done > s.done else None


def pre_completion(deck: Deck, v: State, plan: list[Action]) -> State:
    """The view after a plan's last action but before the completion it triggers (the
    mission check is kept off for that one action)."""
    s = v
    for a in plan[:-1]:
        s = apply(deck, s, a)
    return apply(deck, replace(s, mission=-1), plan[-1])


def _evaluate(deck: Deck, v: State, plan: list[Action], budget: PlayerBudget, unseen: bool,
              ) -> tuple[int, int]:
    """(class, worth) of a candidate completion from the view ``v``, looking one mission
    ahead; ``unseen``: the real draw pile hides cards below its top."""
    if not plan:
        return 0, 0
    pre = pre_completion(deck, v, plan)
    here = worth(deck, pre.hand, pre.spent)
    if v.done + 1 >= deck.missions_to_win:
        return 0, here
    if not unseen:
        # nothing is hidden: the engine's own completion (reveal, draw, chains) is exact
        e = v
        for a in plan:
            e = apply(deck, e, a)
        if e.status == WON:
            return 0, here
        if e.status != PLAYING:
            return 3, here
        nxt_plan, limited = budget.search(deck, e, probe=True)
        start = e
    else:
        if pre.draw[:1] != v.draw[:1]:
            return 2, here  # the plan draws the top card: the next mission is unseen
        top = v.draw[0]
        e = State(pre.cells, pre.spent, pre.hand, (), (), -1, 0, top, v.done + 1,
                  v.completed + (v.mission,), PLAYING, v.goal)
        if deck.rules.auto_complete_on_reveal and deck.mission_pat[top].matches(e.cells):
            return 1, here  # the next mission completes on its reveal
        nxt_plan, limited = budget.search(deck, e, probe=True)
        start = e
    if limited:
        return 2, here
    if nxt_plan is None:
        return 3, here
    if not nxt_plan:
        return 1, worth(deck, start.hand, start.spent)
    after = pre_completion(deck, start, nxt_plan)
    return 1, worth(deck, after.hand, after.spent)


def _draw_gamble(deck: Deck, s: State) -> Action | None:
    """A step towards a draw that could show an unseen card: the first Sensor draw in the
    engine's order; with a full hand, first the play of the hand's weakest card (fewest
    bonus points, then the first in hand) to make room.  None when no draw is left."""
    if not s.draw:
        return None
    draws = [a for a, _ in useful_successors(deck, replace(s, hand=s.hand[:HAND_LIMIT - 1]))
             if a.act == "ability"
             and deck.modules[deck.index[a.via or a.module or ""]].ability == "sensor"]
    if not draws:
        return None
    if len(s.hand) >= HAND_LIMIT:
        weakest = s.hand[min(range(len(s.hand)), key=lambda i: (deck.bonus[s.hand[i]], i))]
        return Action.play(deck.card_ids[weakest], deck.move_pat[weakest].matches(s.cells))
    return draws[0]


def add_first_action_plans(deck: Deck, v: State, budget: PlayerBudget, candidates: list[list[Action]],
                           kinds: tuple[str, ...]) -> None:
    """Add to ``candidates`` (the cheapest plan from the view ``v`` first) one plan after
    each first action of ``kinds`` (``"play"``, ``"ability"``), in that order: the action,
    then the cheapest plan from there (a probe).  Nothing when there is no cheapest plan:
    a plan proven impossible from the view is impossible after any first action; the
    cheapest plan's own first action is not repeated, nor is a plan already listed."""
    if not candidates or not candidates[0]:
        return
    first = candidates[0][0]
    successors = useful_successors(deck, v)
    for kind in kinds:
        for a, v1 in successors:
            if a.act != kind or a == first:
                continue
            if v1.status == WON or v1.done > v.done:
                sub: list[Action] | None = []
            elif v1.status != PLAYING:
                continue
            else:
                sub, _ = budget.search(deck, v1, probe=True)
            if sub is not None and [a, *sub] not in candidates:
                candidates.append([a, *sub])


def decide(deck: Deck, s: State, budget: PlayerBudget,
           ) -> tuple[list[Action] | None, LossReason | None, State]:
    """The completion the expert plays from the real state ``s`` (it looks only at
    ``known_view(s)``): (plan, None, view), or (None, why not, view)."""
    v = known_view(s)
    candidates: list[list[Action]] = []
    limited = False
    plan, hit = budget.search(deck, v)
    limited |= hit
    if plan is not None:
        candidates.append(plan)
    add_first_action_plans(deck, v, budget, candidates, ("play",))
    if not candidates and v.spent | sensor_mask(deck) != v.spent:
        # the Sensor left out of the searches may be what this mission needs
        plan, hit = budget.search(deck, v, mask=False)
        limited |= hit
        if plan is not None:
            candidates.append(plan)
    if not candidates:
        gamble = _draw_gamble(deck, v) if hidden(s) else None
        if gamble is not None:
            return [gamble], None, v
        return None, BUDGET if limited else STUCK, v
    best: tuple[Any, ...] | None = None
    chosen: list[Action] = candidates[0]
    for i, p in enumerate(candidates):
        cls, w = _evaluate(deck, v, p, budget, hidden(s))
        key = (cls, -w, *plan_cost(p), i)
        if best is None or key < best:
            best, chosen = key, p
    return chosen, None, v


def play(deck: Deck, start: State, node_limit: int = GAME_NODE_LIMIT,
         probe_nodes: int = DEFAULT_PROBE_NODES,
         on_decision: Callable[[State, State, list[Action]], None] | None = None) -> ExpertResult:
    """Play a whole game from ``start`` as the expert, within ``node_limit`` nodes of
    mission search.  ``on_decision(real state, view, plan)`` is called at every
    decision (tests)."""
    budget = expert_budget(node_limit, probe_nodes)
    s = start
    plan: list[Action] = []
    pending: list[tuple[Action, State | None]] = []
    decisions = replans = 0
    reason: LossReason | None = None
    while s.status == PLAYING:
        if len(plan) >= MAX_STEPS:
            reason = BUDGET
            break
        if not pending:
            chosen, why, v = decide(deck, s, budget)
            decisions += 1
            if chosen is None:
                reason = why
                break
            if on_decision is not None:
                on_decision(s, v, chosen)
            pending = []
            e: State | None = v
            for a in chosen:
                try:
                    e = apply(deck, e, a) if e is not None else None
                except IllegalAction:
                    e = None
                pending.append((a, e))
        a, expected = pending.pop(0)
        try:
            s2 = apply(deck, s, a)
        except IllegalAction:
            pending, replans = [], replans + 1
            continue
        plan.append(a)
        if pending and (expected is None or _known(s2) != _known(expected)):
            pending, replans = [], replans + 1
        s = s2
    if s.status == WON:
        return ExpertResult(WON_, None, tuple(plan), s.done, None, budget.used, decisions, replans)
    if s.status == LOST and reason is None:
        reason = NO_MISSION
    failed = s.mission if s.mission >= 0 else None
    return ExpertResult(LOST_, reason, tuple(plan), s.done, failed, budget.used, decisions, replans)
