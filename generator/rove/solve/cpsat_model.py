"""The CP-SAT model of ROVE play: planning as satisfiability over a fixed horizon.

Imported only by ``rove.solve.cpsat`` (OR-Tools is never loaded at ``import rove``).

Shape of the model
==================
States ``0..T`` and steps ``0..T-1``; step ``t`` turns state ``t`` into state ``t+1``
with exactly one action or a *no-op*.  No-ops form a suffix (symmetry breaking: a plan
of length ``L < T`` has one encoding), so one model with the largest horizon holds every
shorter plan.

Layout, per state ``t``:

* ``X[t][i]``, ``Y[t][i]``: integer cell of module ``i``.
* ``DX[t][a,b][v]``, ``DY[t][a,b][v]`` (``a < b``): one-hot of ``x_b - x_a`` (resp. y) over
  ``-(n-1)..n-1``.  Every state is a valid layout (one king-connected group of ``n``
  modules), so no two modules are further apart than ``n-1`` on either axis and the
  one-hots are exhaustive.  Everything relational is a clause over these: "module ``b``
  sits at offset ``v`` from ``a``" (``rel``), "the cell at offset ``v`` from ``a`` is
  occupied" (``occ``, the sum of ``rel`` over the others, at most one by distinctness),
  adjacency, landing cells, jump gaps, push runs and pattern matches.  No per-cell grid
  is needed, so the model does not grow with the window.
* ``OX[t][a,b]``, ``OY[t][a,b]``: for mission and game goals the same offsets as
  integers, each value tied to its one-hot literal (the link between cells and
  one-hots), so that with no ability use a step's displacements carry them from state
  to state (``_offset_steps``, below).

Validity of every state: distinct cells (``not (DX=0 and DY=0)`` per pair) and one
king-connected group by *cut constraints*: a graph is connected iff every cut
``(S, V\\S)`` with module 0 in ``S`` is crossed by an edge, so for each such ``S`` one
clause "some adjacent pair crosses ``S``" (``2^(n-1)-1`` clauses of at most ``n^2/4``
literals; exact and free of the auxiliary symmetry a spanning-tree encoding has).
Beyond 10 modules a depth-labelled spanning tree is used instead (``n^2`` literals).

Window (why no optimal plan is cut off)
---------------------------------------
After every legal action the layout is one king-connected group and every module that
moves lands next to another module or moves one cell (a push chain moves each by
one cell; Brain places next to Brain; Coil lands next to a module because the result is
valid), so the bounding box of the group grows by at most one cell per action in each
direction.  State ``t`` therefore lies in the start's bounding box grown by ``t``: the
domains of ``X[t]``, ``Y[t]`` are exactly that, and with horizon ``T`` every reachable
layout is representable.  A standard move's distance is at most ``n``: start and landing
both touch one of the other ``n-1`` modules, whose span is at most ``n-2``.

Actions per step: moves ``(module, direction, distance)`` for every arrow of either side
(the side in force is the module's spent flag at that step); card plays ``(card, bonus)``;
ability uses ``(flipping module g, actor a)`` (``a == g`` for an own use, ``a != g`` for
Gripper ``via``) with the actor's argument literals shared by all sources (swap pair,
shift target and direction, Brain placement per Brain, Coil move per Coil, Sensor draw).
Positions change by constant displacements (moves, pushes, shifts: linear sums) or by
enforced equalities (swaps, placements, Coil); a module no effect touches stays put.

Cards: points ``pts[t]``, hand one-hots, and (only when a draw can reach a card
discarded during the plan) the current card's identity.  Draws use one FIFO queue: the
draw pile, then the discard pile bottom first, then every card discarded during the plan
in order.  Both recycle options take cards in exactly this order (recycling turns the
oldest discard into the next card either way), so the ``k``-th successful take is queue
item ``k``; items past the known piles are *slots* filled by discard events.

Goal ``mission``: the mission pattern matches in state ``T`` (half-reified: only the
"matches" direction is needed).  A model plan may pass through a matching state earlier;
the decoder cuts the plan at the first completion, which is a real plan of no greater
cost, so model optimum = true optimum and infeasibility = no plan within the horizon.

Goal ``game``: completions are not optional, so each state's mission match is fully
reified and every step ends with up to ``R`` completion rounds (discard the current
card, reveal the next mission from the queue, draw one if the hand has fewer than 5,
check the revealed mission).  The last state must be won; steps after the win are no-ops.

Redundant constraints (sound, they only help propagation):

* every module touches another one (implied by the cuts of single modules);
* occupancy change: the occupied set keeps its size and every action but a Laser swap
  or a Sensor draw swaps at most one of its cells (a push vacates Motor's cell and fills
  the one past the run), so where the mission pattern lands at the end, the cells it
  needs that are empty in state ``t`` are at most the occupancy-changing actions left
  (per state, with the final translation as variables; at ``t = 0`` also as a table over
  the window) -- the search engine's holes heuristic, with one translation for all
  states;
* moves left after state ``t`` are at most the points held plus the most later plays give;
* with no ability use, each module's own moves are at least the fewest of its move vectors
  that sum to its final offset minus the pushes it gets (``_own_moves_bound``);
* with no ability use (not in pattern synthesis), each pair's offset after a step is its
  offset before plus the difference of the two modules' displacements
  (``_offset_steps``): the cell equations imply it, but only through absolute cells that
  a plan's later states leave unpinned.

Symmetry breaking (each removes only plans that another plan of no greater cost
replaces): no-ops form a suffix; ability uses that change nothing are dropped unless the
flip changes arrows (or, with ``auto_complete_on_reveal: false``, any action can complete
a waiting mission); two moves in a row of one module that one move (or none) replaces are
forbidden for mission goals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ortools.sat.python import cp_model

from ..actions import Action
from ..engine import DIR_NAMES, Deck, State, gripper_may_target, unpack
from ..errors import SolverBug
from ..grid import DIRECTION_BY_NAME
from ..rules import HAND_LIMIT
from ..spec import ANY, EMPTY, Pattern

Lit = Any  # a CP-SAT literal (IntVar or its negation), or a Python bool constant
DIRS: tuple[tuple[str, int, int], ...] = tuple(
    (name, DIRECTION_BY_NAME[name].dx, DIRECTION_BY_NAME[name].dy) for name in DIR_NAMES)
CUT_LIMIT = 10  # modules up to which connectivity uses cut clauses


@dataclass
class Step:
    """The action literals of one step (names as in the plan JSON)."""

    noop: Lit = False
    moves: dict[tuple[int, str, int], Lit] = field(default_factory=dict)
    plays: dict[tuple[int, bool], Lit] = field(default_factory=dict)
    uses: dict[tuple[int, int], Lit] = field(default_factory=dict)
    swaps: dict[tuple[int, int], Lit] = field(default_factory=dict)
    shifts: dict[tuple[int, str], Lit] = field(default_factory=dict)
    places: dict[tuple[int, int, str], Lit] = field(default_factory=dict)
    coils: dict[int, Lit] = field(default_factory=dict)
    sensor: Lit = False
    #: (j, dx, dy, "module j is pushed by (dx, dy)") of this step's push runs
    pushed: list[tuple[int, int, int, Lit]] = field(default_factory=list)
    move_any: Lit = False
    play_any: Lit = False


class _Displacements:
    """What one step does to each module's cell, gathered by the constraint families
    and turned into the cell equations by ``RoveModel._new_cells``: constant
    displacements ``(literal, dx)``, ``(literal, dy)`` (moves, pushes, Motor shifts) and
    cells set outright ``(literal, new x, new y)`` (swaps, placements; ``None`` for a
    Coil, whose new cell is free)."""

    def __init__(self, n: int) -> None:
        self.dx: list[list[tuple[Lit, int]]] = [[] for _ in range(n)]
        self.dy: list[list[tuple[Lit, int]]] = [[] for _ in range(n)]
        self.cells: list[list[tuple[Lit, Any, Any]]] = [[] for _ in range(n)]

    def add(self, j: int, lit: Lit, dx: int, dy: int) -> None:
        self.dx[j].append((lit, dx))
        self.dy[j].append((lit, dy))

    def set_cell(self, j: int, lit: Lit, x: Any, y: Any) -> None:
        self.cells[j].append((lit, x, y))


class Queue:
    """The draw FIFO: known cards first, then slots that plan discards fill in order.

    ``take`` and ``discard`` are called in the order the rules perform them; each keeps
    a running counter so the ``k``-th take reads queue item ``k``.
    """

    def __init__(self, mdl: RoveModel, known: Sequence[int], universe: Sequence[int],
                 max_takes: int) -> None:
        self.mdl = mdl
        self.known = tuple(known)
        self.universe = tuple(universe)
        self.max_takes = max_takes
        self.nslots = max(0, max_takes - len(self.known))
        m = mdl.m
        #: slot j -> card -> literal "slot j holds card"
        self.slots: list[dict[int, Lit]] = []
        for j in range(self.nslots):
            row = {c: m.new_bool_var(f"slot{j}_c{c}") for c in self.universe}
            m.add_at_most_one(row.values())
            self.slots.append(row)
        self.taken: Any = 0  # takes so far (int or IntVar)
        self.taken_max = 0
        self.discarded: Any = 0  # plan discards so far
        self.discarded_max = 0

    def _eq(self, var: Any, hi: int, name: str) -> dict[int, Lit]:
        """Literals of ``var == k`` for ``k`` in 0..hi (``var`` may also exceed ``hi``)."""
        if isinstance(var, int):
            return {k: k == var for k in range(hi + 1)}
        m = self.mdl.m
        lits: dict[int, Lit] = {}
        for k in range(hi + 1):
            b = lits[k] = m.new_bool_var(f"{name}=={k}")
            m.add(var == k).only_enforce_if(b)
            m.add(var != k).only_enforce_if(~b)
        return lits

    def _count(self, old: Any, old_max: int, inc: Lit, name: str) -> tuple[Any, int]:
        if inc is False:
            return old, old_max
        if inc is True and isinstance(old, int):
            return old + 1, old_max + 1
        v = self.mdl.m.new_int_var(0, old_max + 1, name)
        self.mdl.m.add(v == old + self.mdl.as_int(inc))
        return v, old_max + 1

    def discard(self, active: Lit, cards: dict[int, Lit], name: str) -> None:
        """A card goes on the discard pile (``active``; which card: ``cards``)."""
        if active is False:
            return
        if self.nslots:
            idx = self._eq(self.discarded, min(self.discarded_max, self.nslots), f"{name}_ix")
            for j in range(min(self.discarded_max, self.nslots - 1) + 1):
                fill = self.mdl.conj([active, idx[j]], f"{name}_fill{j}")
                for c, lit in cards.items():
                    if c in self.slots[j]:
                        self.mdl.clause([self.mdl.neg(fill), self.mdl.neg(lit), self.slots[j][c]])
        self.discarded, self.discarded_max = self._count(self.discarded, self.discarded_max,
                                                         active, f"{name}_nd")

    def take(self, want: Lit, name: str) -> tuple[Lit, dict[int, Lit]]:
        """Take the next card if one can be had: (taken, card literals)."""
        if want is False:
            return False, {}
        mdl = self.mdl
        known = len(self.known)
        # available: taken < known + discarded
        if isinstance(self.taken, int) and self.taken < known:
            avail: Lit = True
        else:
            avail = mdl.m.new_bool_var(f"{name}_avail")
            mdl.m.add(self.taken < known + self.discarded).only_enforce_if(avail)
            mdl.m.add(self.taken >= known + self.discarded).only_enforce_if(~avail)
        ok = mdl.conj([want, avail], f"{name}_ok")
        if ok is False:
            return False, {}
        hi = min(self.taken_max, self.max_takes)
        idx = self._eq(self.taken, hi, f"{name}_ix")
        cards: dict[int, list[Lit]] = {}
        for k in range(hi + 1):
            if idx[k] is False:
                continue
            if k >= known + self.nslots:
                # beyond the modelled queue: ``max_takes`` bounds the takes of any plan
                mdl.clause([mdl.neg(ok), mdl.neg(idx[k])])
            elif k < known:
                cards.setdefault(self.known[k], []).append(mdl.conj([ok, idx[k]], f"{name}_k{k}"))
            else:
                for c, s in self.slots[k - known].items():
                    cards.setdefault(c, []).append(mdl.conj([ok, idx[k], s], f"{name}_k{k}c{c}"))
        got = {c: mdl.disj(ls, f"{name}_c{c}") for c, ls in cards.items()}
        self.taken, self.taken_max = self._count(self.taken, self.taken_max, ok, f"{name}_nt")
        return ok, got


class RoveModel:
    """The time-indexed model for one start state and horizon (see the module docstring).

    ``goal`` is ``mission``, ``game`` or ``free`` (plays as for a mission but nothing is
    required of the last state: the mission generator adds its own pattern variables
    there, see ``rove.generators.patterns``).  ``max_takes`` bounds queue takes (draws and
    reveals) over the plan and ``universe`` lists every card that can be in the hand,
    current or in a slot; ``noop_abilities`` keeps ability uses that change nothing.
    ``tick`` is called between the parts of the build (each step is one): building for a
    deck of many modules takes seconds, and a caller with a deadline raises there.
    """

    def __init__(self, deck: Deck, start: State, horizon: int, *, goal: str,
                 universe: Sequence[int], max_takes: int, noop_abilities: bool = False,
                 min_actions: int = 0, objective: bool = True, tick: Callable[[], None] | None = None) -> None:
        self.deck = deck
        self.start = start
        self.T = horizon
        self.goal = goal
        self.n = deck.n
        self.R = self.n - 1
        self.m = cp_model.CpModel()
        self.noop_abilities = noop_abilities
        self._rel: dict[tuple[int, int, int, int, int], Lit] = {}
        self._occ: dict[tuple[int, int, int, int], Lit] = {}
        self._adj: dict[tuple[int, int, int], Lit] = {}
        self._match: dict[tuple[int, str, int], Lit] = {}
        self._match_options: dict[tuple[int, str, int], list[Lit]] = {}
        self._false = self.m.new_bool_var("false")
        self.m.add(self._false == 0)
        self.universe = tuple(sorted(set(universe)))
        self.steps: list[Step] = []
        self.codes = deck.codes
        self.ability = tuple(mod.ability for mod in deck.modules)
        self.flippers = tuple(i for i in range(self.n) if not start.spent >> i & 1)
        #: pair offsets as integers too (``OX``, ``OY``), and carried by each step
        #: (``_offset_steps``) when no module can use its ability; not in pattern synthesis
        #: (``free``), which looks for a plan rather than a proof and ran at half speed
        self.int_offsets = goal != "free"
        self.carry_offsets = self.int_offsets and not self.flippers

        tick = tick or (lambda: None)
        self._layout_variables()
        tick()
        self._validity()
        tick()
        self._card_variables(max_takes)
        for t in range(self.T):
            self.steps.append(self._step(t))
            tick()
        self._suffix_noops(min_actions)
        if goal in ("mission", "free") and not self.track_current:
            self._dominated_move_pairs()
        if goal == "mission":
            self._mission_goal()
        self._points_left()
        self._objective(objective)

    # ------------------------------------------------------------------ literal helpers
    def lit(self, x: Lit) -> Any:
        """A CP-SAT literal for a literal or a Python constant."""
        if x is True:
            return ~self._false
        if x is False:
            return self._false
        return x

    @staticmethod
    def neg(x: Lit) -> Lit:
        if x is True:
            return False
        if x is False:
            return True
        return ~x

    def as_int(self, x: Lit) -> Any:
        return int(x) if isinstance(x, bool) else x

    def clause(self, lits: Iterable[Lit]) -> None:
        out = []
        for x in lits:
            if x is True:
                return
            if x is not False:
                out.append(x)
        self.m.add_bool_or(out if out else [self._false])

    def imply(self, a: Lit, b: Lit) -> None:
        self.clause([self.neg(a), b])

    def conj(self, lits: Iterable[Lit], name: str, half: bool = False) -> Lit:
        """A literal equal to the conjunction (``half``: only implying it)."""
        out = []
        for x in lits:
            if x is False:
                return False
            if x is not True:
                out.append(x)
        if not out:
            return True
        if len(out) == 1:
            return out[0]
        b = self.m.new_bool_var(name)
        for x in out:
            self.m.add_implication(b, x)
        if not half:
            self.m.add_bool_or([b] + [~x for x in out])
        return b

    def disj(self, lits: Iterable[Lit], name: str, half: bool = False) -> Lit:
        """A literal equal to the disjunction (``half``: only implying it)."""
        out = []
        for x in lits:
            if x is True:
                return True
            if x is not False:
                out.append(x)
        if not out:
            return False
        if len(out) == 1:
            return out[0]
        b = self.m.new_bool_var(name)
        self.m.add_bool_or([~b] + out)
        if not half:
            for x in out:
                self.m.add_implication(x, b)
        return b

    def exclusive_sum(self, lits: Iterable[Lit], name: str) -> Lit:
        """A literal equal to the sum of literals known to be mutually exclusive."""
        out = [x for x in lits if x is not False]
        if any(x is True for x in out):
            return True if len(out) == 1 else self.disj(out, name)
        if not out:
            return False
        if len(out) == 1:
            return out[0]
        b = self.m.new_bool_var(name)
        self.m.add(b == sum(out))
        return b

    # ------------------------------------------------------------------ layout
    def _layout_variables(self) -> None:
        """Cells per state within the start's bounding box grown by ``t``; pair offsets as
        one-hots (and as integers when ``int_offsets``)."""
        cells = [unpack(c) for c in self.start.cells]
        x0, x1 = min(x for x, _ in cells), max(x for x, _ in cells)
        y0, y1 = min(y for _, y in cells), max(y for _, y in cells)
        self.box = (x0, x1, y0, y1)
        m, n, R = self.m, self.n, self.R
        self.X: list[list[Any]] = []
        self.Y: list[list[Any]] = []
        self.DX: list[dict[tuple[int, int], dict[int, Lit]]] = []
        self.DY: list[dict[tuple[int, int], dict[int, Lit]]] = []
        self.OX: list[dict[tuple[int, int], Any]] = []
        self.OY: list[dict[tuple[int, int], Any]] = []
        for t in range(self.T + 1):
            if t == 0:
                self.X.append([x for x, _ in cells])
                self.Y.append([y for _, y in cells])
                dx: dict[tuple[int, int], dict[int, Lit]] = {}
                dy: dict[tuple[int, int], dict[int, Lit]] = {}
                for a, b in combinations(range(n), 2):
                    dx[a, b] = {v: cells[b][0] - cells[a][0] == v for v in range(-R, R + 1)}
                    dy[a, b] = {v: cells[b][1] - cells[a][1] == v for v in range(-R, R + 1)}
                self.DX.append(dx)
                self.DY.append(dy)
                self.OX.append({(a, b): cells[b][0] - cells[a][0] for a, b in combinations(range(n), 2)})
                self.OY.append({(a, b): cells[b][1] - cells[a][1] for a, b in combinations(range(n), 2)})
                continue
            self.X.append([m.new_int_var(x0 - t, x1 + t, f"x{t}_{self.codes[i]}") for i in range(n)])
            self.Y.append([m.new_int_var(y0 - t, y1 + t, f"y{t}_{self.codes[i]}") for i in range(n)])
            dx, dy = {}, {}
            ox: dict[tuple[int, int], Any] = {}
            oy: dict[tuple[int, int], Any] = {}
            for a, b in combinations(range(n), 2):
                for axis, store, offsets, P in (("x", dx, ox, self.X[t]), ("y", dy, oy, self.Y[t])):
                    hot = {v: m.new_bool_var(f"d{axis}{t}_{self.codes[a]}{self.codes[b]}={v}")
                           for v in range(-R, R + 1)}
                    m.add_exactly_one(hot.values())
                    store[a, b] = hot
                    if not self.int_offsets:
                        m.add(P[b] - P[a] == sum(v * h for v, h in hot.items()))
                        continue
                    # the offset as an integer, each value tied to its literal: the same
                    # link as ``P[b] - P[a] == sum(v * hot[v])``, and cheaper to propagate
                    off = m.new_int_var(-R, R, f"o{axis}{t}_{self.codes[a]}{self.codes[b]}")
                    m.add(off == P[b] - P[a])
                    for v, h in hot.items():
                        m.add(off == v).only_enforce_if(h)
                    offsets[a, b] = off
            self.DX.append(dx)
            self.DY.append(dy)
            self.OX.append(ox)
            self.OY.append(oy)

    def rel(self, t: int, a: int, b: int, vx: int, vy: int) -> Lit:
        """Module ``b`` sits at offset ``(vx, vy)`` from module ``a`` in state ``t``."""
        if a == b:
            return vx == 0 and vy == 0
        if abs(vx) > self.R or abs(vy) > self.R:
            return False
        if a > b:
            return self.rel(t, b, a, -vx, -vy)
        key = (t, a, b, vx, vy)
        got = self._rel.get(key)
        if got is None:
            got = self._rel[key] = self.conj([self.DX[t][a, b][vx], self.DY[t][a, b][vy]],
                                              f"rel{t}_{self.codes[a]}{self.codes[b]}_{vx}_{vy}")
        return got

    def occ(self, t: int, a: int, vx: int, vy: int) -> Lit:
        """The cell at offset ``(vx, vy)`` from module ``a`` holds a module in state ``t``."""
        if vx == 0 and vy == 0:
            return True
        key = (t, a, vx, vy)
        got = self._occ.get(key)
        if got is None:
            got = self._occ[key] = self.disj(
                (self.rel(t, a, b, vx, vy) for b in range(self.n) if b != a),
                f"occ{t}_{self.codes[a]}_{vx}_{vy}")
        return got

    def forbid_at(self, enforce: Sequence[Lit], t: int, a: int, b: int, vx: int, vy: int) -> None:
        """Clause: when all of ``enforce`` hold, module ``b`` is not at offset ``v`` from ``a``."""
        if a == b:
            if vx == 0 and vy == 0:
                self.clause(self.neg(e) for e in enforce)
            return
        if abs(vx) > self.R or abs(vy) > self.R:
            return
        if a > b:
            a, b, vx, vy = b, a, -vx, -vy
        self.clause([*(self.neg(e) for e in enforce), self.neg(self.DX[t][a, b][vx]),
                     self.neg(self.DY[t][a, b][vy])])

    def require_empty(self, enforce: Sequence[Lit], t: int, a: int, vx: int, vy: int,
                      besides: Iterable[int] = ()) -> None:
        """Clauses: when ``enforce`` holds, the cell at offset ``v`` from ``a`` is empty
        (``besides``: modules allowed there)."""
        skip = {a, *besides}
        for b in range(self.n):
            if b not in skip:
                self.forbid_at(enforce, t, a, b, vx, vy)

    def adj(self, t: int, a: int, b: int) -> Lit:
        """Modules ``a`` and ``b`` are king-adjacent in state ``t`` (fully reified)."""
        if a > b:
            a, b = b, a
        key = (t, a, b)
        got = self._adj.get(key)
        if got is None:
            hx = [self.DX[t][a, b][v] for v in (-1, 0, 1)]
            hy = [self.DY[t][a, b][v] for v in (-1, 0, 1)]
            if t == 0:
                got = any(hx) and any(hy)
            else:
                got = self.m.new_bool_var(f"adj{t}_{self.codes[a]}{self.codes[b]}")
                self.clause([~got, *hx])
                self.clause([~got, *hy])
                for u in hx:
                    for w in hy:
                        self.clause([got, ~u, ~w])
            self._adj[key] = got
        return got

    def _validity(self) -> None:
        """Every state after the start: distinct cells, one king-connected group."""
        n = self.n
        for t in range(1, self.T + 1):
            for a, b in combinations(range(n), 2):
                self.clause([self.neg(self.DX[t][a, b][0]), self.neg(self.DY[t][a, b][0])])
            if n <= CUT_LIMIT:
                rest = list(range(1, n))
                for r in range(0, n - 1):
                    for extra in combinations(rest, r):
                        inside = {0, *extra}
                        self.clause(self.adj(t, a, b) for a in inside for b in range(n) if b not in inside)
            else:
                self._tree(t)
            # redundant: every module touches another one
            for a in range(n):
                self.clause(self.adj(t, a, b) for b in range(n) if b != a)

    def _tree(self, t: int) -> None:
        """Connectivity for many modules: a spanning tree rooted at module 0 by depth labels."""
        m, n = self.m, self.n
        depth = [0] + [m.new_int_var(1, n - 1, f"depth{t}_{i}") for i in range(1, n)]
        for i in range(1, n):
            parents = []
            for p in range(n):
                if p == i:
                    continue
                par = m.new_bool_var(f"par{t}_{i}_{p}")
                m.add_implication(par, self.lit(self.adj(t, i, p)))
                m.add(depth[i] == depth[p] + 1).only_enforce_if(par)
                parents.append(par)
            m.add_exactly_one(parents)

    # ------------------------------------------------------------------ patterns
    def match(self, t: int, pattern: Pattern, key: tuple[str, int], half: bool) -> Lit:
        """The layout of state ``t`` matches ``pattern`` by some translation.

        With a named cell the translation is fixed by that module; otherwise the pattern's
        first occupied cell is tried on every module.  All cells are read relative to the
        anchor module, so a match is a conjunction of ``rel``/``occ`` literals.
        """
        ck = (t, key[0], key[1] * 2 + int(half))
        got = self._match.get(ck)
        if got is not None:
            return got
        cells = list(pattern.cells)
        named = [(c, v) for c, v in cells if v not in (ANY, EMPTY)]
        if named:
            (ax, ay), code = named[0]
            anchors = [(self.deck.index[code], ax, ay)]
        else:
            (ax, ay) = next(c for c, v in cells if v == ANY)
            anchors = [(j, ax, ay) for j in range(self.n)]
        options: list[Lit] = []
        self._match_options[t, key[0], key[1]] = options
        for j, ax, ay in anchors:
            if half and t > 0:
                options.append(self._half_match(t, cells, j, ax, ay, f"pat{t}_{key[0]}{key[1]}_{j}"))
                continue
            conds: list[Lit] = []
            for (x, y), v in cells:
                ox, oy = x - ax, y - ay
                if v == ANY:
                    conds.append(self.occ(t, j, ox, oy))
                elif v == EMPTY:
                    conds.append(self.neg(self.occ(t, j, ox, oy)))
                else:
                    conds.append(self.rel(t, j, self.deck.index[v], ox, oy))
            options.append(self.conj(conds, f"pat{t}_{key[0]}{key[1]}_{j}", half=half))
        got = self._match[ck] = self.disj(options, f"pat{t}_{key[0]}{key[1]}", half=half)
        return got

    def _half_match(self, t: int, cells: list[tuple[tuple[int, int], str]], j: int, ax: int,
                    ay: int, name: str) -> Lit:
        """A literal implying the pattern's cells read from anchor module ``j`` (clauses
        straight on the pair one-hots where a cell is named or must be empty)."""
        b = self.m.new_bool_var(name)
        for (x, y), v in cells:
            ox, oy = x - ax, y - ay
            if v == ANY:
                self.imply(b, self.occ(t, j, ox, oy))
            elif v == EMPTY:
                self.require_empty([b], t, j, ox, oy)
            else:
                self.require_at(b, t, j, self.deck.index[v], ox, oy)
        return b

    def require_at(self, enforce: Lit, t: int, a: int, b: int, vx: int, vy: int) -> None:
        """Clauses: when ``enforce`` holds, module ``b`` is at offset ``v`` from ``a``."""
        if a == b:
            if vx or vy:
                self.clause([self.neg(enforce)])
            return
        if abs(vx) > self.R or abs(vy) > self.R:
            self.clause([self.neg(enforce)])
            return
        if a > b:
            a, b, vx, vy = b, a, -vx, -vy
        self.imply(enforce, self.DX[t][a, b][vx])
        self.imply(enforce, self.DY[t][a, b][vy])

    # ------------------------------------------------------------------ cards
    def _card_variables(self, max_takes: int) -> None:
        """Points, hand and current card per state; the draw queue."""
        s, deck = self.start, self.deck
        self.max_pts = max([s.points] + [deck.bonus[c] for c in self.universe])
        self.pts: list[Any] = [s.points]
        self.hand: list[dict[int, Lit]] = [{c: c in s.hand for c in self.universe}]
        self.queue = Queue(self, s.draw + s.discard, self.universe, max_takes)
        self.track_current = self.queue.nslots > 0
        self.cur: list[dict[int, Lit]] = [{c: c == s.card for c in self.universe}]
        self.spent: list[list[Lit]] = [[bool(s.spent >> i & 1) for i in range(self.n)]]
        #: game: current mission one-hot, missions done and the win flag per state
        self.mis: list[dict[int, Lit]] = [{s.mission: True}]
        self.done: list[Any] = [s.done]
        self.won: list[Lit] = [False]

    def handsize_ok(self, t: int, hand: dict[int, Lit], name: str) -> Lit:
        """The hand holds fewer than ``HAND_LIMIT`` cards."""
        size = sum(self.as_int(v) for v in hand.values())
        if isinstance(size, int):
            return size < HAND_LIMIT
        b = self.m.new_bool_var(name)
        self.m.add(size <= HAND_LIMIT - 1).only_enforce_if(b)
        self.m.add(size >= HAND_LIMIT).only_enforce_if(~b)
        return b

    # ------------------------------------------------------------------ one step
    def _step(self, t: int) -> Step:
        """Step ``t``: one block per constraint family, in the order the variables are
        made (the order fixes the model's text, so keep it)."""
        st = Step()
        d = _Displacements(self.n)
        self._moves(t, st, d)
        on = self._ability_uses(t, st)
        self._laser_swaps(t, st, d, on)
        self._motor_shifts(t, st, d, on)
        self._brain_and_coil(t, st, d, on)
        st.sensor = self._kind_on(t, on, "sensor")
        self._new_cells(t, d)
        self._spent_flags(t, st)
        self._card_step(t, st)
        # exactly one action or a no-op
        st.noop = self.m.new_bool_var(f"noop{t}")
        every = [st.noop, *st.moves.values(), *st.plays.values(), *st.uses.values()]
        self.m.add_exactly_one(every)
        return st

    def _moves(self, t: int, st: Step, d: _Displacements) -> None:
        """One literal per (module, direction, distance) move its arrows allow on either
        side (spent or not), and the pushes a push move makes along its run."""
        m, n, spent = self.m, self.n, self.spent[t]
        for i in range(n):
            sides = self.deck.move_dirs[i]
            for name, ddx, ddy in DIRS:
                has_push = any(kind == "push" and d_ == name for side in sides for kind, _, d_ in side)
                for k in range(1, n + 1):
                    kinds = [{kind for kind, _, d_ in sides[side] if d_ == name and (
                        kind == "standard" or (kind in ("short", "push") and k == 1)
                        or (kind == "jump" and k >= 2))} for side in (0, 1)]
                    if spent[i] is True or spent[i] is False:
                        kinds = [kinds[int(spent[i])]]
                    elif kinds[0] == kinds[1]:
                        kinds = kinds[:1]
                    if not any(kinds):
                        continue
                    mv = m.new_bool_var(f"s{t}_{self.codes[i]}_{name}{k}")
                    if len(kinds) == 1:
                        self._move_condition([mv], t, i, ddx, ddy, k, kinds[0])
                    else:
                        self._move_condition([mv, self.neg(spent[i])], t, i, ddx, ddy, k, kinds[0])
                        self._move_condition([mv, spent[i]], t, i, ddx, ddy, k, kinds[1])
                    st.moves[i, name, k] = mv
                    d.add(i, mv, k * ddx, k * ddy)
                    if has_push and k == 1:
                        self._pushes(t, st, d, i, name, ddx, ddy, mv)
        st.move_any = self.exclusive_sum(st.moves.values(), f"move{t}")

    def _pushes(self, t: int, st: Step, d: _Displacements, i: int, name: str, ddx: int, ddy: int,
                mv: Lit) -> None:
        """Module ``i``'s push move ``mv`` shoves every module of the unbroken run in
        front of it one cell along."""
        run: Lit = True
        for dist in range(1, self.R + 1):
            for j in range(self.n):
                if j == i:
                    continue
                r = self.rel(t, i, j, dist * ddx, dist * ddy)
                pushed = self.conj([mv, r, run], f"push{t}_{self.codes[i]}{name}_{self.codes[j]}{dist}")
                if pushed is not False:
                    st.pushed.append((j, ddx, ddy, pushed))
                    d.add(j, pushed, ddx, ddy)
            run = self.conj([run, self.occ(t, i, dist * ddx, dist * ddy)],
                            f"run{t}_{self.codes[i]}{name}{dist}")
            if run is False:
                break

    def _ability_uses(self, t: int, st: Step) -> dict[int, Lit]:
        """Uses (flipper ``g``, actor ``a``): an active flipper, a Gripper's target
        adjacent (and active, by the rule); returns "actor ``a``'s ability fires" per actor."""
        n, deck, spent = self.n, self.deck, self.spent[t]
        active_only = deck.rules.gripper_target == "active_only"
        actor_uses: dict[int, list[Lit]] = {}
        for g in self.flippers:
            if self.ability[g] == "gripper":
                actors = [a for a in range(n) if gripper_may_target(deck, g, a)
                          and not (active_only and self.spent[0][a] is True)]
            else:
                actors = [g]
            for a in actors:
                pre: list[Lit] = [self.neg(spent[g])]
                if a != g:
                    pre.append(self.adj(t, g, a))
                    if active_only:
                        pre.append(self.neg(spent[a]))
                if any(p is False for p in pre):
                    continue
                use = self.m.new_bool_var(f"u{t}_{self.codes[g]}_{self.codes[a]}")
                for p in pre:
                    self.imply(use, p)
                st.uses[g, a] = use
                actor_uses.setdefault(a, []).append(use)
        return {a: self.exclusive_sum(us, f"on{t}_{self.codes[a]}") for a, us in actor_uses.items()}

    def _kind_on(self, t: int, on: dict[int, Lit], kind: str) -> Lit:
        """An ability of this kind fires in step ``t``."""
        return self.exclusive_sum([v for a, v in on.items() if self.ability[a] == kind], f"{kind}{t}")

    def _laser_swaps(self, t: int, st: Step, d: _Displacements, on: dict[int, Lit]) -> None:
        """Laser: one pair of modules swaps cells."""
        laser = self._kind_on(t, on, "laser")
        if laser is False:
            return
        X, Y = self.X[t], self.Y[t]
        for p, q in combinations(range(self.n), 2):
            sw = self.m.new_bool_var(f"swap{t}_{self.codes[p]}{self.codes[q]}")
            st.swaps[p, q] = sw
            d.set_cell(p, sw, X[q], Y[q])
            d.set_cell(q, sw, X[p], Y[p])
        self.m.add(sum(st.swaps.values()) == self.as_int(laser))

    def _motor_shifts(self, t: int, st: Step, d: _Displacements, on: dict[int, Lit]) -> None:
        """Motor: one module steps one cell onto an empty cell."""
        motor = self._kind_on(t, on, "motor")
        if motor is False:
            return
        for j in range(self.n):
            for name, ddx, ddy in DIRS:
                if t == 0 and self.occ(0, j, ddx, ddy) is True:
                    continue
                sh = self.m.new_bool_var(f"shift{t}_{self.codes[j]}{name}")
                self.require_empty([sh], t, j, ddx, ddy)
                st.shifts[j, name] = sh
                d.add(j, sh, ddx, ddy)
        self.m.add(sum(st.shifts.values()) == self.as_int(motor))

    def _brain_and_coil(self, t: int, st: Step, d: _Displacements, on: dict[int, Lit]) -> None:
        """Brain: another module placed on an empty cell next to the Brain.  Coil: the
        Coil moves to another cell (where, the cell equations and validity decide)."""
        m, n, X, Y = self.m, self.n, self.X[t], self.Y[t]
        # Brain putting a module back on its own cell changes nothing but the flip: kept
        # only when that flip changes the flipping module's arrows (or no-ops can matter)
        noop_place = {a: self.noop_abilities or any(self.deck.modules[g].flip_matters
                                                     for (g, aa) in st.uses if aa == a)
                      for a in on}
        for a, lit_on in on.items():
            if self.ability[a] == "brain":
                opts = []
                for j in range(n):
                    if j == a:
                        continue
                    for name, ddx, ddy in DIRS:
                        besides = (j,) if noop_place[a] else ()
                        if t == 0 and any(self.rel(0, a, i, ddx, ddy) is True
                                          for i in range(n) if i not in (a, *besides)):
                            continue
                        pl = m.new_bool_var(f"place{t}_{self.codes[a]}_{self.codes[j]}{name}")
                        self.require_empty([pl], t, a, ddx, ddy, besides)
                        st.places[a, j, name] = pl
                        d.set_cell(j, pl, X[a] + ddx, Y[a] + ddy)
                        opts.append(pl)
                m.add(sum(opts) == self.as_int(lit_on))
            elif self.ability[a] == "coil":
                st.coils[a] = lit_on
                d.set_cell(a, lit_on, None, None)
                bx = m.new_bool_var(f"coilx{t}")
                by = m.new_bool_var(f"coily{t}")
                self.clause([self.neg(lit_on), bx, by])
                m.add(self.X[t + 1][a] != X[a]).only_enforce_if(bx)
                m.add(self.Y[t + 1][a] != Y[a]).only_enforce_if(by)

    def _new_cells(self, t: int, d: _Displacements) -> None:
        """Each module's cell in state ``t + 1``: its cell plus the step's constant
        displacements, unless an ability sets it (then the enforced equality)."""
        m, n = self.m, self.n
        X, Y, X1, Y1 = self.X[t], self.Y[t], self.X[t + 1], self.Y[t + 1]
        shift_x = [sum(self.as_int(lit) * v for lit, v in d.dx[j]) for j in range(n)]
        shift_y = [sum(self.as_int(lit) * v for lit, v in d.dy[j]) for j in range(n)]
        for j in range(n):
            base_x = X[j] + shift_x[j]
            base_y = Y[j] + shift_y[j]
            if not d.cells[j]:
                m.add(X1[j] == base_x)
                m.add(Y1[j] == base_y)
                continue
            for lit, nx, ny in d.cells[j]:
                if nx is not None:
                    m.add(X1[j] == nx).only_enforce_if(self.lit(lit))
                    m.add(Y1[j] == ny).only_enforce_if(self.lit(lit))
            still = [self.lit(self.neg(lit)) for lit, _, _ in d.cells[j] if lit is not True]
            m.add(X1[j] == base_x).only_enforce_if(still)
            m.add(Y1[j] == base_y).only_enforce_if(still)
        if self.carry_offsets:
            self._offset_steps(t, shift_x, shift_y)

    def _spent_flags(self, t: int, st: Step) -> None:
        """A flipper is spent in state ``t + 1`` if it was, or its ability was used."""
        spent = self.spent[t]
        row: list[Lit] = []
        for g in range(self.n):
            mine = [u for (gg, _), u in st.uses.items() if gg == g]
            if not mine:
                row.append(spent[g])
                continue
            b = self.m.new_bool_var(f"spent{t + 1}_{self.codes[g]}")
            self.m.add(b == self.as_int(spent[g]) + sum(mine))
            row.append(b)
        self.spent.append(row)

    def _offset_steps(self, t: int, shift_x: list[Any], shift_y: list[Any]) -> None:
        """Redundant, when ``carry_offsets``: each pair's offset in state ``t + 1`` is its
        offset in state ``t`` plus the difference of the two modules' displacements in step
        ``t`` (``shift_x``, ``shift_y``: the sums the cell equations use).

        Implied by the cell equations, but those carry it only through the absolute cells:
        bounds propagation learns nothing about ``x_b - x_a`` from ``x_a`` and ``x_b``
        unless both are pinned, which a plan's later states (and the goal, at a translation
        still open) are not.  On the offsets themselves an offset and the step's moves fix
        the next offset, and the next offset and the moves fix the one before, so what the
        goal needs of the relative layout flows back to the start.  On the book's Mission
        in N puzzles this cut the ``N - 1`` proofs of pure move puzzles to about 0.4 of
        their work.  With abilities (swaps, placements and Coil moves set cells by enforced
        equalities, so these would hold only when none is used) they cost more time than
        they saved, and in pattern synthesis (``rove generate missions``) they halved the
        rate of missions, so both are left without (docs/internals/cpsat.md)."""
        m, n = self.m, self.n
        for shift, offsets in ((shift_x, self.OX), (shift_y, self.OY)):
            for a, b in combinations(range(n), 2):
                m.add(offsets[t + 1][a, b] == offsets[t][a, b] + shift[b] - shift[a])

    def _move_condition(self, enforce: list[Lit], t: int, i: int, ddx: int, ddy: int, k: int,
                        kinds: set[str]) -> None:
        """Clauses: what must hold, under ``enforce``, for module ``i`` to move ``k`` cells
        by arrows of these kinds (a push may land on a module; the others need an empty
        landing cell; a jump also needs a module strictly between)."""
        if not kinds:
            self.clause(self.neg(e) for e in enforce)
            return
        if "push" in kinds:
            return
        self.require_empty(enforce, t, i, k * ddx, k * ddy)
        if kinds & {"standard", "short"}:
            return
        self.clause([*(self.neg(e) for e in enforce),
                     *(self.occ(t, i, s * ddx, s * ddy) for s in range(1, k))])

    def _card_step(self, t: int, st: Step) -> None:
        """Plays, points, discards and Sensor draws of step ``t`` (and, for ``game``, the
        completion rounds)."""
        m, deck = self.m, self.deck
        hand = self.hand[t]
        pts = self.pts[t]
        for c in self.universe:
            if hand[c] is False:
                continue
            base = m.new_bool_var(f"p{t}_{deck.card_ids[c]}-")
            self.imply(base, hand[c])
            st.plays[c, False] = base
            bon = m.new_bool_var(f"p{t}_{deck.card_ids[c]}+")
            self.imply(bon, hand[c])
            self.imply(bon, self.match(t, deck.spec.cards[c].movement.pattern, ("mv", c), half=True))
            st.plays[c, True] = bon
        st.play_any = self.exclusive_sum(st.plays.values(), f"play{t}")
        if st.move_any is not False:
            m.add(self.as_int(pts) >= 1).only_enforce_if(self.lit(st.move_any))
        # points
        nxt = m.new_int_var(0, self.max_pts, f"pts{t + 1}" if self.goal == "mission" else f"ptsa{t}")
        gained = sum((deck.bonus[c] if b else deck.base[c]) * lit for (c, b), lit in st.plays.items())
        if st.play_any is not False:
            m.add(nxt == gained).only_enforce_if(self.lit(st.play_any))
            m.add(nxt == pts - self.as_int(st.move_any)).only_enforce_if(self.lit(self.neg(st.play_any)))
        else:
            m.add(nxt == pts - self.as_int(st.move_any))
        # current card identity and discards (only when a slot of the queue needs them)
        q = self.queue
        cur_after: dict[int, Lit] = {}
        if self.track_current:
            cur = self.cur[t]
            if st.move_any is False or isinstance(pts, int) and pts != 1:
                last: Lit = False
            else:
                last = m.new_bool_var(f"last{t}")  # the move spends the card's last point
                if isinstance(pts, int):
                    m.add(last == st.move_any)
                else:
                    e1 = m.new_bool_var(f"pts{t}==1")
                    m.add(pts == 1).only_enforce_if(e1)
                    m.add(pts != 1).only_enforce_if(~e1)
                    m.add_bool_and([self.lit(st.move_any), e1]).only_enforce_if(last)
                    m.add_bool_or([~self.lit(st.move_any), ~e1, last])
            gone = self.disj([st.play_any, last], f"gone{t}")
            ev0 = {c: self.conj([cur[c], gone], f"disc{t}_{c}") for c in self.universe}
            q.discard(self.exclusive_sum(ev0.values(), f"disc{t}"), ev0, f"d{t}a")
            ev1 = {c: st.plays[c, False] for c in self.universe
                   if deck.base[c] == 0 and (c, False) in st.plays}
            q.discard(self.exclusive_sum(ev1.values(), f"zero{t}"), ev1, f"d{t}b")
            keep = self.conj([self.neg(st.play_any), self.neg(last)], f"keep{t}")
            row = {}
            for c in self.universe:
                comes = [st.plays.get((c, True), False)]
                if deck.base[c] > 0:
                    comes.append(st.plays.get((c, False), False))
                comes.append(self.conj([cur[c], keep], f"keep{t}_{c}"))
                row[c] = self.exclusive_sum(comes, f"cur{t + 1}_{c}")
            cur_after = row
        # Sensor draw
        drawn: dict[int, Lit] = {}
        if st.sensor is not False:
            room = self.handsize_ok(t, hand, f"room{t}")
            ok, drawn = q.take(self.conj([st.sensor, room], f"want{t}"), f"draw{t}")
            if not self.noop_abilities:
                for (g, a), use in st.uses.items():
                    if self.ability[a] == "sensor" and not self.deck.modules[g].flip_matters:
                        self.imply(use, ok)
        # hand
        row = {}
        for c in self.universe:
            terms = [self.as_int(hand[c]), -self.as_int(st.plays.get((c, False), False)),
                     -self.as_int(st.plays.get((c, True), False)), self.as_int(drawn.get(c, False))]
            if all(isinstance(v, int) for v in terms):
                row[c] = bool(sum(terms))
            else:
                b = m.new_bool_var(f"h{t + 1}_{deck.card_ids[c]}")
                m.add(b == sum(terms))
                row[c] = b
        if self.goal == "game":
            nxt, cur_after, row = self._completions(t, st, nxt, cur_after, row)
        self.pts.append(nxt)
        self.cur.append(cur_after)
        self.hand.append(row)

    def _completions(self, t: int, st: Step, pts: Any, cur: dict[int, Lit], hand: dict[int, Lit],
                     ) -> tuple[Any, dict[int, Lit], dict[int, Lit]]:
        """The completion procedure after the action of step ``t``, as rounds: while the
        current mission matches, discard the current card, count the mission, and (unless
        that won) reveal the next mission from the queue (it must exist, else the game is
        lost) and draw one card if the hand holds fewer than 5; a revealed mission is
        checked again only with ``auto_complete_on_reveal``.  Returns the points, current
        card and hand of state ``t+1`` and records its mission, count and win flag."""
        m, deck, q = self.m, self.deck, self.queue
        rounds = (self.deck.missions_to_win - self.start.done
                  if deck.rules.auto_complete_on_reveal else 1)
        mis = self.mis[t]
        done = self.done[t]
        won = self.won[t]
        active: Lit = self.neg(st.noop)
        any_comp: list[Lit] = []
        for r in range(rounds):
            match = self.disj([self.conj([lit, self.match(t + 1, deck.spec.cards[c].mission.pattern,
                                                          ("ms", c), half=False)], f"mm{t}_{r}_{c}")
                               for c, lit in mis.items()], f"match{t}_{r}")
            comp = self.conj([active, match], f"comp{t}_{r}")
            if comp is False:
                break
            any_comp.append(comp)
            if self.track_current:
                ev = {c: self.conj([comp, lit], f"cdisc{t}_{r}_{c}") for c, lit in cur.items()}
                q.discard(self.exclusive_sum(ev.values(), f"cdisc{t}_{r}"), ev, f"c{t}_{r}")
                cur = {c: self.conj([lit, self.neg(comp)], f"cur{t}_{r}_{c}") for c, lit in cur.items()}
            new_done = m.new_int_var(0, deck.missions_to_win, f"done{t}_{r}")
            m.add(new_done == done + self.as_int(comp))
            win = m.new_bool_var(f"win{t}_{r}")
            m.add(new_done == deck.missions_to_win).only_enforce_if(win)
            m.add(new_done != deck.missions_to_win).only_enforce_if(~win)
            win = self.conj([win, comp], f"winc{t}_{r}")
            cont = self.conj([comp, self.neg(win)], f"cont{t}_{r}")
            ok, revealed = q.take(cont, f"rev{t}_{r}")
            self.imply(cont, ok)  # a mission that cannot be revealed loses the game
            room = self.handsize_ok(t, hand, f"croom{t}_{r}")
            ok2, drawn = q.take(self.conj([cont, room], f"cwant{t}_{r}"), f"cdraw{t}_{r}")
            new_hand = {}
            for c, lit in hand.items():
                got = drawn.get(c, False)
                new_hand[c] = self.exclusive_sum([lit, got], f"ch{t}_{r}_{c}")
            hand = new_hand
            new_mis = {}
            for c in set(mis) | set(revealed):
                keep = self.conj([mis.get(c, False), self.neg(comp)], f"mk{t}_{r}_{c}")
                new_mis[c] = self.exclusive_sum([keep, revealed.get(c, False)], f"mis{t}_{r}_{c}")
            mis = new_mis
            done = new_done
            won = self.disj([won, win], f"won{t}_{r}")
            active = cont
        if any_comp:
            some = self.disj(any_comp, f"comp{t}")
            final = m.new_int_var(0, self.max_pts, f"pts{t + 1}")
            m.add(final == 0).only_enforce_if(self.lit(some))
            m.add(final == pts).only_enforce_if(self.lit(self.neg(some)))
            pts = final
        self.mis.append(mis)
        self.done.append(done)
        self.won.append(won)
        return pts, cur, hand

    # ------------------------------------------------------------------ goal, objective
    def _suffix_noops(self, min_actions: int) -> None:
        """No-ops form a suffix; in a game they are exactly the steps after the win, and
        the last state is won."""
        for t in range(self.T - 1):
            self.m.add_implication(self.steps[t].noop, self.steps[t + 1].noop)
        for t in range(min(min_actions, self.T)):
            self.m.add(self.steps[t].noop == 0)
        if self.goal == "game":
            for t in range(self.T):
                self.m.add(self.lit(self.steps[t].noop) == self.as_int(self.won[t]))
            self.clause([self.won[self.T]])

    def _dominated_move_pairs(self) -> None:
        """Symmetry breaking: two moves of one module in a row are never needed when one
        move of it does the same (or nothing is done).

        Both moves use the same side (no flip between them), and nothing else moves, so
        the single move lands on a cell that was empty and leaves the same valid layout
        for one point less.  Two standard moves along one line always collapse (to one
        standard move along it, or to nothing); two 1-cell moves collapse when their sum
        is a direction with a 1-cell arrow of that module, or zero.  Directions with a push
        arrow on that side are left out (such a move may push others).  Only for mission
        goals without a tracked current card, where one point fewer changes nothing else.
        """
        deck, n = self.deck, self.n
        for t in range(self.T - 1):
            a, b = self.steps[t], self.steps[t + 1]
            for i in range(n):
                for side in range(2):
                    sp = self.spent[t][i]
                    if isinstance(sp, bool) and sp != bool(side):
                        continue  # that side is not in force at step t
                    arrows = deck.modules[i].arrows[side]
                    # a 1-cell move on a side with a push arrow that way may push others
                    push = {d for kind, dirs in arrows if kind == "push" for d in dirs}
                    std = {d for kind, dirs in arrows if kind == "standard" for d in dirs} - push
                    one = {d for kind, dirs in arrows if kind in ("standard", "short") for d in dirs} - push
                    guard = [] if isinstance(sp, bool) else [sp if side else self.neg(sp)]
                    for line in (("N", "S"), ("E", "W"), ("NE", "SW"), ("NW", "SE")):
                        if not set(line) <= std:
                            continue
                        first = [x for (j, d, _), x in a.moves.items() if j == i and d in line]
                        second = [x for (j, d, _), x in b.moves.items() if j == i and d in line]
                        for x in first:
                            for y in second:
                                self.clause([*(self.neg(g) for g in guard), ~x, ~y])
                    for d1, dx1, dy1 in DIRS:
                        for d2, dx2, dy2 in DIRS:
                            sx, sy = dx1 + dx2, dy1 + dy2
                            if max(abs(sx), abs(sy)) > 1:
                                continue
                            net = next((nm for nm, ex, ey in DIRS if (ex, ey) == (sx, sy)), None)
                            if net is not None and net not in one:
                                continue
                            if d1 not in one or d2 not in one:
                                continue
                            x, y = a.moves.get((i, d1, 1)), b.moves.get((i, d2, 1))
                            if x is not None and y is not None:
                                self.clause([*(self.neg(g) for g in guard), ~x, ~y])

    def _mission_goal(self) -> None:
        s = self.start
        pat = self.deck.spec.cards[s.mission].mission.pattern
        self.clause([self.match(self.T, pat, ("ms", s.mission), half=True)])
        self._change_bound(pat)
        self._distance_to_goal(pat)
        self._own_moves_bound()

    def fill_lits(self, t: int) -> list[Lit]:
        """The occupancy-changing actions of step ``t`` (see ``fills``)."""
        st = self.steps[t]
        return [st.move_any, *(u for (_, a), u in st.uses.items()
                               if self.ability[a] in ("brain", "coil", "motor"))]

    def _distance_to_goal(self, pat: Pattern) -> None:
        """Redundant, per state: with the final translation ``tau`` as variables, the
        pattern cells empty in state ``t`` (and the must-be-empty cells occupied) are at
        most the occupancy-changing actions of steps ``t..T-1`` (same argument as
        ``_change_bound``).  This is the search engine's holes heuristic, but with one
        translation shared by all states, and it lets the solver cut a plan as soon as
        the points left cannot close the gap."""
        m, T, n = self.m, self.T, self.n
        x0, x1, y0, y1 = self.box
        cells = list(pat.cells)
        named = [(c, v) for c, v in cells if v not in (ANY, EMPTY)]
        tx = m.new_int_var(x0 - 2 * T - 8, x1 + 2 * T + 8, "tau_x")
        ty = m.new_int_var(y0 - 2 * T - 8, y1 + 2 * T + 8, "tau_y")
        if named:
            (ax, ay), code = named[0]
            anchors = [(self.deck.index[code], ax, ay)]
        else:
            ax, ay = next(c for c, v in cells if v == ANY)
            anchors = [(j, ax, ay) for j in range(n)]
        options = self._match_options.get((T, "ms", self.start.mission), [])
        for (j, ax, ay), opt in zip(anchors, options):
            m.add(tx == self.X[T][j] - ax).only_enforce_if(self.lit(opt))
            m.add(ty == self.Y[T][j] - ay).only_enforce_if(self.lit(opt))
        self.tau = (tx, ty)
        rest: Any = 0
        for t in range(T - 1, -1, -1):
            rest = rest + sum(self.as_int(x) for x in self.fill_lits(t))
            eqx: dict[tuple[int, int], Any] = {}
            eqy: dict[tuple[int, int], Any] = {}

            def eq(store: dict[tuple[int, int], Any], P: list[Any], tau: Any, i: int, off: int,
                   axis: str, t: int = t) -> Any:
                got = store.get((i, off))
                if got is None:
                    got = store[i, off] = m.new_bool_var(f"tau{axis}{t}_{self.codes[i]}_{off}")
                    m.add(P[i] - tau == off).only_enforce_if(got)
                    m.add(P[i] - tau != off).only_enforce_if(~got)
                return got

            holes, blocks = [], []
            for (px, py), v in cells:
                at = [self.conj([eq(eqx, self.X[t], tx, i, px, "x"), eq(eqy, self.Y[t], ty, i, py, "y")],
                                f"tau{t}_{self.codes[i]}_{px}_{py}") for i in range(n)]
                full = self.exclusive_sum(at, f"taucell{t}_{px}_{py}")
                if v == EMPTY:
                    blocks.append(self.as_int(full))
                else:
                    holes.append(1 - self.as_int(full))
            if holes:
                m.add(sum(holes) <= rest)
            if blocks:
                m.add(sum(blocks) <= rest)

    def own_move_distances(self, i: int, radius: int) -> dict[tuple[int, int], int]:
        """The fewest of module ``i``'s own moves (the model's move literals of it, any
        step) whose vectors sum to each ``(dx, dy)`` with ``|dx|, |dy| <= radius``
        (missing: more than ``radius`` would allow, see ``_own_moves_bound``).  Breadth
        first over partial sums inside that box; the order of the moves does not change
        their sum."""
        offs = {name: (ddx, ddy) for name, ddx, ddy in DIRS}
        vecs = {(k * offs[d][0], k * offs[d][1]) for st in self.steps for (j, d, k) in st.moves if j == i}
        dist = {(0, 0): 0}
        frontier = [(0, 0)]
        while frontier:
            nxt = []
            for vx, vy in frontier:
                for ex, ey in vecs:
                    w = (vx + ex, vy + ey)
                    if abs(w[0]) <= radius and abs(w[1]) <= radius and w not in dist:
                        dist[w] = dist[vx, vy] + 1
                        nxt.append(w)
            frontier = nxt
        return dist

    def _own_moves_bound(self) -> None:
        """Redundant, for models with no ability use (the pure move puzzles): a bound on
        each module's own moves that holds across pushes.

        Without abilities a module's cell changes only by its own move literals (each a
        constant vector ``k * (dx, dy)``) and by the ``pushed`` literals of runs it is in
        (each a unit vector), exactly as ``_step`` writes the new cells; so its own moves
        sum to ``(X[T] - X[0] - PX, Y[T] - Y[0] - PY)`` with ``PX, PY`` the sums of its
        pushed vectors, and their number is at least the fewest own move vectors that
        sum to that (``own_move_distances``).  That is a consequence of the model's own
        equations (no game argument is needed), so it removes no plan of the model.  Any
        ``T`` or fewer vectors of length at most ``n`` have partial sums within ``T * n``
        of the origin in any order, so the breadth-first search in that box finds every
        sum of at most ``T`` of them at its true fewest; a sum it does not reach within
        ``T`` needs more than ``T`` moves and counts ``T + 1`` (no plan of the model has
        that many).  Per module the count of its move literals is at least its term, and
        the terms sum to at most the moves of the plan.  A push is one own move of the
        pusher and moves its run one cell each, so unlike a bound that ignores pushed
        modules it keeps every module's term, shifted by the pushes it gets."""
        if any(st.uses for st in self.steps):
            return
        m, T, n = self.m, self.T, self.n
        x0, x1, y0, y1 = self.box
        radius = T * n
        lbs: list[Any] = []
        for i in range(n):
            own = [lit for st in self.steps for (j, _, _), lit in st.moves.items() if j == i]
            if not own:
                continue
            px = [(lit, dx) for st in self.steps for (j, dx, _, lit) in st.pushed if j == i and dx]
            py = [(lit, dy) for st in self.steps for (j, _, dy, lit) in st.pushed if j == i and dy]
            sx, sy = self.X[0][i], self.Y[0][i]
            lox, hix = x0 - T - sx - len(px), x1 + T - sx + len(px)
            loy, hiy = y0 - T - sy - len(py), y1 + T - sy + len(py)
            ox = m.new_int_var(lox, hix, f"ownx_{self.codes[i]}")
            oy = m.new_int_var(loy, hiy, f"owny_{self.codes[i]}")
            m.add(ox == self.X[T][i] - sx - sum(self.as_int(lit) * v for lit, v in px))
            m.add(oy == self.Y[T][i] - sy - sum(self.as_int(lit) * v for lit, v in py))
            dist = self.own_move_distances(i, radius)
            lb = m.new_int_var(0, T + 1, f"own_{self.codes[i]}")
            rows = [(X, Y, min(T + 1, dist.get((X, Y), T + 1)))
                    for X in range(lox, hix + 1) for Y in range(loy, hiy + 1)]
            m.add_allowed_assignments([ox, oy, lb], rows)
            m.add(sum(self.as_int(x) for x in own) >= lb)
            lbs.append(lb)
        if lbs:
            m.add(sum(lbs) <= sum(self.as_int(st.move_any) for st in self.steps))

    def _points_left(self) -> None:
        """Redundant: the moves of steps ``t..T-1`` are at most the points held in state
        ``t`` plus the most the later plays can give (a play sets the points to its
        card's value, at most the bonus)."""
        later: Any = 0
        moves: Any = 0
        for t in range(self.T - 1, -1, -1):
            st = self.steps[t]
            moves = moves + self.as_int(st.move_any)
            later = later + sum(self.deck.bonus[c] * self.as_int(lit) for (c, _), lit in st.plays.items())
            self.m.add(moves <= self.pts[t] + later)

    def fills(self) -> Any:
        """Actions that can change the set of occupied cells: moves (a push too: it
        vacates Motor's cell and fills the cell past the run) and Brain, Coil and Motor
        uses (own or via Gripper).  Each changes that set by at most one cell in and one
        out; a Laser swap and a Sensor draw change nothing."""
        out = []
        for st in self.steps:
            out.append(self.as_int(st.move_any))
            out.extend(u for (_, a), u in st.uses.items() if self.ability[a] in ("brain", "coil", "motor"))
        return sum(out)

    def _change_bound(self, pat: Pattern) -> None:
        """Redundant: where the pattern lands at the end, the cells it needs filled that
        were empty at the start (holes) and the cells it needs empty that were occupied
        (blocks) are each at most the number of occupancy-changing actions, because the
        occupied set keeps its size and each such action swaps at most one cell of it.
        A table gives holes/blocks for every final translation in the window."""
        occ0 = {unpack(c) for c in self.start.cells}
        cells = list(pat.cells)
        filled = [c for c, v in cells if v != EMPTY]
        empty = [c for c, v in cells if v == EMPTY]
        named = [(c, v) for c, v in cells if v not in (ANY, EMPTY)]
        fills = self.fills()
        T = self.T
        x0, x1, y0, y1 = self.box
        anchors = ([(self.deck.index[named[0][1]], named[0][0])] if named
                   else [(j, next(c for c, v in cells if v == ANY)) for j in range(self.n)])
        options = self._match_options.get((T, "ms", self.start.mission), [])
        for (j, (ax, ay)), opt in zip(anchors, options):
            rows = []
            worst = 0
            for X in range(x0 - T, x1 + T + 1):
                for Y in range(y0 - T, y1 + T + 1):
                    holes = sum((X + px - ax, Y + py - ay) not in occ0 for px, py in filled)
                    blocks = sum((X + px - ax, Y + py - ay) in occ0 for px, py in empty)
                    need = max(holes, blocks)
                    worst = max(worst, need)
                    rows.append((X, Y, need))
            need_var = self.m.new_int_var(0, worst, f"need_{self.codes[j]}")
            self.m.add_allowed_assignments([self.X[T][j], self.Y[T][j], need_var], rows)
            self.m.add(fills >= need_var).only_enforce_if(self.lit(opt))

    def _objective(self, minimize: bool) -> None:
        """Points, then cards, then abilities, as one weighted sum (minimised when asked;
        a game solved without ``optimal`` only needs any win)."""
        self.n_moves = sum(self.as_int(st.move_any) for st in self.steps)
        self.n_plays = sum(self.as_int(st.play_any) for st in self.steps)
        self.n_uses = sum(sum(st.uses.values()) for st in self.steps)
        self.w_ability = 1
        self.w_card = self.T + 1
        self.w_point = self.w_card * (self.T + 1)
        self.cost = self.w_point * self.n_moves + self.w_card * self.n_plays + self.n_uses
        if minimize:
            self.m.minimize(self.cost)

    # ------------------------------------------------------------------ decoding and hints
    def decode(self, solver: cp_model.CpSolver) -> list[Action]:
        """The plan of a solution, as engine actions."""
        plan: list[Action] = []
        codes, ids = self.codes, self.deck.card_ids

        def on(x: Lit) -> bool:
            return x is True or (x is not False and solver.boolean_value(x))

        def val(v: Any) -> int:
            return v if isinstance(v, int) else solver.value(v)

        for t, st in enumerate(self.steps):
            if on(st.noop):
                break
            act: Action | None = None
            for (i, name, k), lit in st.moves.items():
                if on(lit):
                    act = Action.move(codes[i], name, k)
            for (c, b), lit in st.plays.items():
                if on(lit):
                    act = Action.play(ids[c], b)
            for (g, a), lit in st.uses.items():
                if not on(lit):
                    continue
                via = codes[a] if a != g else None
                ab = self.ability[a]
                if ab == "laser":
                    p, q = next(pq for pq, x in st.swaps.items() if on(x))
                    act = Action.ability(codes[g], via=via, swap=(codes[p], codes[q]))
                elif ab == "motor":
                    j, name = next(jd for jd, x in st.shifts.items() if on(x))
                    act = Action.ability(codes[g], via=via, target=codes[j], dir=name)
                elif ab == "brain":
                    _, j, name = next(k for k, x in st.places.items() if k[0] == a and on(x))
                    d = DIRECTION_BY_NAME[name]
                    to = (val(self.X[t][a]) + d.dx, val(self.Y[t][a]) + d.dy)
                    act = Action.ability(codes[g], via=via, target=codes[j], to=to)
                elif ab == "coil":
                    act = Action.ability(codes[g], via=via, to=(val(self.X[t + 1][a]), val(self.Y[t + 1][a])))
                else:
                    act = Action.ability(codes[g], via=via)
            if act is None:
                raise SolverBug(f"cpsat model bug: step {t} has no action")
            plan.append(act)
        return plan

    def hint(self, plan: Sequence[Action], states: Sequence[State]) -> None:
        """Hint the action literals and cells of a known plan (``states[t]`` is the state
        before step ``t``; one more at the end)."""
        m = self.m
        for lit, value in self._plan_literals(plan, states):
            m.add_hint(lit, value)
        for t in range(self.T):
            s = states[min(t + 1, len(states) - 1)]
            for i in range(self.n):
                x, y = unpack(s.cells[i])
                m.add_hint(self.X[t + 1][i], x)
                m.add_hint(self.Y[t + 1][i], y)

    def follow(self, plan: Sequence[Action], states: Sequence[State]) -> None:
        """Fix the action literals to a known plan (the cells are left to the model, so a
        solution shows that the model admits the plan, as the rules engine does)."""
        for lit, value in self._plan_literals(plan, states):
            self.m.add(lit == int(value))

    def _plan_literals(self, plan: Sequence[Action], states: Sequence[State],
                       ) -> list[tuple[Any, bool]]:
        """Every action literal of every step with its value in a known plan (no-ops
        after its end)."""
        idx = self.deck.index
        cidx = self.deck.card_index
        out: list[tuple[Any, bool]] = []
        for t, st in enumerate(self.steps):
            chosen: list[Lit] = []
            if t < len(plan):
                a = plan[t]
                if a.act == "move":
                    assert a.module is not None and a.dir is not None and a.dist is not None
                    chosen.append(st.moves.get((idx[a.module], a.dir, a.dist), False))
                elif a.act == "play":
                    assert a.card is not None
                    c = cidx[a.card]
                    bonus = a.bonus if a.bonus is not None else self.deck.move_pat[c].matches(states[t].cells)
                    chosen.append(st.plays.get((c, bonus), False))
                else:
                    assert a.module is not None
                    g = idx[a.module]
                    actor = idx[a.via] if a.via else g
                    chosen.append(st.uses.get((g, actor), False))
                    if a.swap:
                        p, q = sorted((idx[a.swap[0]], idx[a.swap[1]]))
                        chosen.append(st.swaps.get((p, q), False))
                    elif a.dir:
                        assert a.target is not None
                        chosen.append(st.shifts.get((idx[a.target], a.dir), False))
                    elif a.target and a.to:
                        cell = unpack(states[t].cells[actor])
                        name = next(nm for nm, dx, dy in DIRS if (cell[0] + dx, cell[1] + dy) == tuple(a.to))
                        chosen.append(st.places.get((actor, idx[a.target], name), False))
            for lits in (st.moves, st.plays, st.uses, st.swaps, st.shifts, st.places):
                for lit in lits.values():
                    if not isinstance(lit, bool):
                        out.append((lit, any(lit is x for x in chosen)))
            if not isinstance(st.noop, bool):
                out.append((st.noop, t >= len(plan)))
        return out
