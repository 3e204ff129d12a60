"""The seer: the expert's judgement with the whole draw order known, and backtracking.

The whole-deal search (:mod:`.winnable`) is exact, so it is the only thing that can prove
a deal lost; but on decks worth playing its order (cheapest completion first) meets
deals whose win lies millions of nodes away, and it stops ``unknown``.  A good player
finds many of those wins at once, because it judges a completion by what it leaves for
the next mission (:mod:`.expert`).  The seer is that judgement turned into a win-finder:

* it sees everything the thoughtful player sees (the draw order), so a completion's
  look-ahead is exact about which card comes up next;
* at every mission it ranks candidate completions (:func:`candidates`: the expert's
  own, i.e. the cheapest plan from the expert's view and one after each other card play
  first, then one after each ability used first and one that may use the Sensor; a plan
  that the real draw order makes illegal is dropped) by the expert's key (wins, then a
  next mission it can still complete, then the worth kept, then the cheapest).  The
  mission searches run on the expert's view (the draw pile cut to its top card), where
  they are about ten times cheaper than with the whole pile to tell apart;
* it walks that tree of completions by *limited discrepancy search* (Harvey and
  Ginsberg, 1995): first the expert's own line (no discrepancy), then every line that
  departs from the ranking once, then twice, and so on while its node budget lasts.  A
  heuristic that is right most of the time is wrong at few decisions on a winning line,
  and discrepancy search reaches such lines long before a depth-first search that
  backtracks from the bottom;
* it walks a narrow tree first, then a wide one (:data:`PROBE_WIDTHS`): the probes (the
  searches after another first action, the look-ahead) get 500 nodes in the first tree
  and the expert's 2,000 in the second, which it enters only when every line of the
  first was tried without a win.  Most probes that need more than a few hundred nodes
  are stuck on the plateau of free ability uses (every layout those reach costs no
  point, so A* walks them all before it spends one) and need tens of thousands: at
  2,000 they still stop short and only cost nodes, and they were four fifths of the
  seer's nodes.  The narrow tree ranks its candidates sooner and reaches the
  discrepancies that win long before the wide one (``python bench/seer.py`` has the
  figures); on a deck whose narrow tree is small it is soon tried whole, and the wide
  one still finds the wins only it has.
* each decision's own search (the cheapest plan from the view) is capped at 100,000
  nodes; a decision whose search stops there is not ranked, and on a hard deck that can
  leave a small tree, tried whole in a few hundred thousand nodes.  So once both trees
  were tried whole while a decision's search stopped at its cap, the seer walks them
  again with the cap :data:`WIDEN` times larger, up to :data:`MAX_SEARCH_NODES` (the
  searches it made already are answered from memory).  On bench/decks/t35.yaml that
  won a deal the narrow cap left at 100,000 nodes (seed 257753543646319 at hard: 658,958
  nodes with the cap at 400,000); the other six such deals of the check's 60 were
  tried whole at 400,000 too, within 2,000,000 nodes each.

* a main search that stops at its cap where only a Sensor's ability is left (so no
  ability can change the layout) is searched again with the compiled core's distance
  table of its mission and spent set, and so is every later one of the same pair
  (:class:`rove.solve.expert.PlayerBudget`'s ``table_after``; from a budget of
  :data:`TABLES_MIN_NODES` on).  Those were most of the
  capped searches, and they recur: on bench/decks/t35.yaml, 44% to 81% of a won deal's
  nodes went to searches stopped at the cap, nearly all of them such states of two or
  three (mission, spent set) pairs a deal, whose optimum A*'s bound put at 3 points
  against 8.  With the table each takes a few hundred nodes and gives its decision a
  plan; the check's t35 deals decided by the seer went from 38 to 41 of 43.

A line it finds is a win of the real deal, replayed through the engine like every plan
(:func:`rove.replay.verify_plan` in the callers).  Finding none proves nothing: the seer
only ever tries the expert's candidates, so it never answers ``unsolvable``, and its
callers use it as a witness of wins only.  Every search is bounded by nodes (the mission
searches' nodes, as for the expert), so the result does not depend on the machine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import Action
from ..engine import PLAYING, WON, Deck, State
from .expert import (
    DEFAULT_PROBE_NODES,
    PlayerBudget,
    add_first_action_plans,
    completion,
    known_view,
    pre_completion,
    sensor_mask,
    worth,
)
from .result import plan_cost

DEFAULT_SEARCH_NODES = 100_000  # the cap of each main search (a decision's own plan)
WIDEN = 4
"""How many times larger each next main-search cap is, once the trees at one cap were
tried whole while a decision's own search stopped at it (see :func:`seek`)."""
MAX_SEARCH_NODES = 400_000
"""The largest main-search cap.  A* keeps every state it generates (about 2.5 KB a node
measured on bench/decks/t35.yaml: 2.7 GB at a cap of 1,600,000) and runs some 30,000
nodes a second there, so one search at a larger cap costs close to a minute; on that
deck's seven deals whose trees were tried whole at 100,000, the caps up to 1,600,000 won
the one deal that 400,000 won and nothing more."""
TABLES_MIN_NODES = 1_000_000
"""A seer with a smaller budget switches no distance table on for its capped searches
(see the module's docstring): a build takes seconds, which the coach's first answers
(300,000 nodes, meant to come within two seconds) cannot spare; with them on, one of
``python bench/coach.py``'s answers took 6.1 s (a build) where it takes about a
second without."""
PROBE_WIDTHS: tuple[int, ...] = (500, DEFAULT_PROBE_NODES)
"""The probes' nodes in each tree the seer walks, in order (see the module's docstring)."""

Completion = tuple[list[Action], State]
"""A completion of a mission: its plan and the state after it."""


@dataclass(frozen=True)
class SeerResult:
    """What the seer found: a winning plan (None: none found, which proves nothing), the
    mission-search nodes it spent, the states it ranked completions from (decisions,
    counted in each tree it walked), the discrepancies of the last tree's last pass (-1:
    its nodes ran out before a pass ended) and the most missions done at a decision
    (how far its deepest line got)."""

    plan: tuple[Action, ...] | None
    nodes: int
    decisions: int
    discrepancies: int
    deepest: int
    #: every line of every tree was tried, each search within its own cap: a larger
    #: budget would walk the same trees again and find nothing new
    exhausted: bool = False


def _view_plans(deck: Deck, v: State, budget: PlayerBudget) -> list[list[Action]]:
    """Candidate plans from the view ``v``: the expert's (the cheapest plan, and one after
    each other card play first; :func:`rove.solve.expert.decide`), then one after each
    ability used first, and the cheapest plan that may use the Sensor the searches leave
    out.  The expert's plans are all as cheap as a play allows; the ability-first ones
    and the Sensor's spend resources differently, which is what a line the ranking
    missed most often needs."""
    plans: list[list[Action]] = []
    plan, _ = budget.search(deck, v)
    if plan is not None:
        plans.append(plan)
    add_first_action_plans(deck, v, budget, plans, ("play", "ability"))
    if v.spent | sensor_mask(deck) != v.spent:
        sensor, _ = budget.search(deck, v, probe=plan is not None, mask=False)
        if sensor is not None and sensor not in plans:
            plans.append(sensor)
    return plans


def _rank(deck: Deck, s: State, plan: list[Action], e: State, budget: PlayerBudget) -> tuple[int, int]:
    """(class, worth) of a completion from the real state ``s`` ending in ``e``, as the
    expert ranks it (:func:`rove.solve.expert._evaluate`), with the next mission known:
    0 wins; 1 the next mission can be completed from what it holds; 2 the look-ahead hit
    its limit; 3 it cannot."""
    here = worth(deck, pre_completion(deck, s, plan).hand, e.spent)
    if e.status == WON:
        return 0, here
    if e.status != PLAYING:
        return 3, here
    v = known_view(e)
    nxt, limited = budget.search(deck, v, probe=True)
    if limited:
        return 2, here
    if nxt is None or (nxt and completion(deck, e, nxt) is None):
        return 3, here
    if not nxt:
        return 1, worth(deck, e.hand, e.spent)
    after = pre_completion(deck, v, nxt)
    return 1, worth(deck, after.hand, after.spent)


def candidates(deck: Deck, s: State, budget: PlayerBudget) -> list[Completion]:
    """The completions of ``s``'s mission the seer tries, best first: (plan, the real
    state after it), each legal on the real deal, one per end state."""
    scored: list[tuple[Any, list[Action], State]] = []
    seen: set[State] = set()
    for i, plan in enumerate(_view_plans(deck, known_view(s), budget)):
        e = completion(deck, s, plan)
        if e is None or e in seen:
            continue
        seen.add(e)
        cls, w = _rank(deck, s, plan, e, budget)
        scored.append(((cls, -w, *plan_cost(plan), i), plan, e))
    scored.sort(key=lambda t: t[0])
    return [(plan, e) for _, plan, e in scored]


class OutOfNodes(Exception):
    """Raised by a ``children`` function when the seer's budget has run out."""


def discrepancy_search(start: State, children: Callable[[State], Sequence[Completion]],
                       ) -> tuple[list[Action] | None, int]:
    """Limited discrepancy search from ``start`` over ``children`` (best first): a winning
    line and the discrepancies its pass allowed, or (None, that count) when a pass cut
    nothing, i.e. every line was tried.  ``children`` raises :class:`OutOfNodes` to stop.

    Pass ``k`` follows the first child everywhere except at up to ``k`` decisions, where
    it takes a later one.  A state searched without a win is remembered with the
    discrepancies it had and whether its whole subtree was tried: a later pass re-enters
    it only with more, and never once its subtree is exhausted."""
    #: state -> (discrepancies it was searched with, whether that cut a line in its subtree)
    failed: dict[State, tuple[int, bool]] = {}

    def dive(s: State, k: int) -> tuple[list[Action] | None, bool]:
        """A winning line from ``s`` with at most ``k`` discrepancies, and whether a line
        of the subtree was left for lack of them."""
        if s.status == WON:
            return [], False
        if s.status != PLAYING:
            return None, False
        seen = failed.get(s)
        if seen is not None and (seen[0] >= k or not seen[1]):
            return None, seen[1]
        cut = False
        for i, (plan, e) in enumerate(children(s)):
            if i > 0 and k == 0:
                cut = True
                break
            rest, below = dive(e, k if i == 0 else k - 1)
            cut |= below
            if rest is not None:
                return plan + rest, cut
        failed[s] = (k, cut)
        return None, cut

    k = 0
    while True:
        plan, cut = dive(start, k)
        if plan is not None or not cut:
            return plan, k
        k += 1


def seek(deck: Deck, start: State, node_limit: int, search_nodes: int = DEFAULT_SEARCH_NODES,
         probe_widths: Sequence[int] = PROBE_WIDTHS, check: Callable[[], None] | None = None,
         widen: int = WIDEN) -> SeerResult:
    """Look for a win of the deal from ``start`` within ``node_limit`` mission-search nodes
    (:func:`discrepancy_search` over :func:`candidates`), in one tree per probe width in
    turn.  It ends at a win, when its nodes run out, or when a pass of the last tree cut
    nothing (every line of every tree was tried) at a cap no decision's search stopped at,
    or at the last cap (:func:`search_caps`).  ``check()`` is called before each
    decision is ranked; it may raise to stop the seer (the coach's stale jobs do)."""
    # the main searches are capped, where the expert's get all the game has left: a decision
    # the expert would pour a million nodes into is one the seer does better to leave
    # for its alternatives, and an A* search keeps every state it generates (about 3 to
    # 11 KB a node on a six-module deck with abilities left, docs/LIMITS.md), so the cap
    # also bounds the seer's memory (about 1.1 GB at most at the default 100,000).
    # One budget for all the trees: its memo answers a search again under any cap the
    # answer holds for, so the wide tree's main searches are the narrow one's, for free.
    budget = PlayerBudget(node_limit, probe_widths[0], max_search=search_nodes,
                          table_after=search_nodes if node_limit >= TABLES_MIN_NODES else None)
    ranked: dict[State, list[Completion]] = {}  # the tree being walked's decisions

    def children(s: State) -> list[Completion]:
        # each state's completions are ranked once a tree (that costs nodes; walking
        # them again in a later pass does not)
        got = ranked.get(s)
        if got is None:
            if check is not None:
                check()
            if budget.left <= 0:
                raise OutOfNodes
            got = ranked[s] = candidates(deck, s, budget)
        return got

    decisions = 0
    deepest = start.done
    plan: list[Action] | None = None
    k = -1
    for cap in search_caps(search_nodes, widen):
        budget.max_search = cap
        capped = budget.capped
        for width in probe_widths:
            budget.probe_nodes = width
            ranked = {}
            try:
                plan, k = discrepancy_search(start, children)
            except OutOfNodes:
                plan, k = None, -1
            decisions += len(ranked)
            deepest = max([deepest, *(s.done for s in ranked)])
            if plan is not None or k < 0:
                break
        if plan is not None or k < 0 or budget.capped == capped:
            break  # won, out of nodes, or no decision this cap left unranked
    exhausted = plan is None and k >= 0 and budget.starved == 0
    return SeerResult(None if plan is None else tuple(plan), budget.used, decisions, k, deepest, exhausted)


def search_caps(first: int, widen: int) -> list[int]:
    """The main searches' caps, one set of trees each: ``first``, then ``widen`` times
    larger, up to :data:`MAX_SEARCH_NODES` (a single cap when ``first`` is that large
    already)."""
    caps = [first]
    while widen > 1 and caps[-1] * widen <= MAX_SEARCH_NODES:
        caps.append(caps[-1] * widen)
    return caps
