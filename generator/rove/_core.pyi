"""Types of ``rove._core``, the compiled search core (core/rove-py/src/lib.rs).

``rove.solve.core`` converts at the boundary: it compiles a ``rove.engine.Deck`` into a
``Deck``, passes states as ``StateTuple`` values and turns the ``ActionTuple`` values
that come back into ``rove.actions.Action`` values.
"""

from collections.abc import Callable, Sequence
from typing import Literal, TypeAlias, final

__all__ = ["Deck", "successors", "revealed", "generate_all", "estimate", "solve_mission", "solve_game",
           "zero_point_walk", "table_distance", "build_table", "pair_costs", "chain_cost", "MAX_MODULES", "MAX_CARDS",
           "TABLES_AFTER", "BUILD"]

# The aliases below are names for the stub only (the module does not define them).
#: (cells, spent, hand, draw, discard, card, points, mission, done, completed, status,
#: goal is mission): cells packed, cards as indices, card and mission -1 for none, status
#: an index into (playing, won, lost, goal).
StateTuple: TypeAlias = tuple[
    tuple[int, ...], int, tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, int, int,
    tuple[int, ...], int, bool,
]
#: (act, module, card, bonus, dir, dist, via, target, swap, to): module and card indices,
#: direction indices, ``to`` a packed cell; None where a field does not apply.
ActionTuple: TypeAlias = tuple[
    Literal["play", "move", "ability"], int | None, int | None, bool | None, int | None, int | None,
    int | None, int | None, tuple[int, int] | None, int | None,
]
#: (arrow kind, direction)
Arrow: TypeAlias = tuple[int, int]
#: (x, y, what): what is a module index, -1 any, -2 must be empty
PatternCell: TypeAlias = tuple[int, int, int]
#: "limit": the node limit, the time limit or the table size was reached
Status: TypeAlias = Literal["solved", "unsolvable", "limit"]

MAX_MODULES: int
MAX_CARDS: int
#: asks after which a solve switches a distance table on, by default
TABLES_AFTER: int
#: the build, as ``rove --version`` prints it: version, profile, target
BUILD: str

@final
class Deck:
    """A compiled deck: built once per engine deck and kept with it (``core_deck``), so its
    heuristic memo and distance tables serve every solve of the deck."""

    def __new__(
        cls,
        modules: Sequence[tuple[int, Sequence[Arrow], Sequence[Arrow]]],
        cards: Sequence[tuple[int, int, Sequence[PatternCell], Sequence[PatternCell]]],
        missions_to_win: int,
        rules: tuple[bool, bool, bool],
    ) -> Deck:
        """modules: (ability, active arrows, spent arrows); cards: (base, bonus, mission
        cells, movement cells); rules: (auto_complete_on_reveal, recycle when_empty,
        gripper_target active_only)."""

def successors(
    deck: Deck, state: StateTuple, include_noops: bool = False
) -> list[tuple[ActionTuple, StateTuple]]:
    """Every legal action and the state after it, in the Python engine's order."""

def revealed(deck: Deck, state: StateTuple) -> StateTuple:
    """A state after its own mission's reveal check."""

def generate_all(deck: Deck, states: Sequence[StateTuple], rounds: int) -> int:
    """Generate every successor of each state ``rounds`` times; how many were made."""

def estimate(deck: Deck, state: StateTuple) -> tuple[int, int, int]:
    """(points needed, abilities at that many points, points obtainable)."""

def solve_mission(
    deck: Deck, state: StateTuple, max_points: int | None, max_nodes: int, seconds: float | None = None,
    tables: int = 0,
) -> tuple[Status, list[tuple[ActionTuple, int]] | None, int]:
    """A* for the cheapest plan completing the current mission: (status, steps as
    (action, translation), nodes); ``tables``: a distance table is switched on once
    asked for that many times (0: never)."""

def solve_game(
    deck: Deck,
    state: StateTuple,
    strategy: str,
    max_nodes: int,
    seconds: float | None = None,
    progress: Callable[[int], object] | None = None,
    reference: bool = False,
    tables: int = 0,
) -> tuple[Status, list[ActionTuple] | None, bool, int, int, int, tuple[int, int, int]]:
    """The whole-deal search with a strategy (portfolio, greedy, deepening or cheapest):
    (status, plan, optimal, nodes, deepest done, deepest mission; -1 for none, (table
    probes, tables switched on, tables built)); ``tables`` as for ``solve_mission``
    (ignored with ``reference``)."""

def zero_point_walk(
    deck: Deck, state: StateTuple, missions: Sequence[int], max_nodes: int, seconds: float | None = None,
) -> tuple[list[list[tuple[ActionTuple, int]] | None], int, bool]:
    """One search of the states ``state`` reaches by ability uses alone for every mission
    of ``missions`` (card indices, at most 64; the state's own mission is ignored): (per
    mission its zero-point optimal plan as steps (action, translation), None when not
    proven; nodes; whether the walk ran out of states)."""

def table_distance(deck: Deck, state: StateTuple) -> int | None:
    """The fewest moves from the state's layout to one matching its mission, by the
    arrows its spent set gives (None: unreachable); ValueError past six modules."""

def build_table(deck: Deck, mission: int, spent: int) -> tuple[int, list[int], int]:
    """Build one distance table from scratch: (layouts, layouts per distance 0.., unreachable)."""

def pair_costs(deck: Deck, spent: int) -> list[list[int | None]]:
    """Per ordered pair of cards ``[a][b]``, the fewest moves by the sides ``spent`` gives
    from a layout matching a's mission to one matching b's (None: none reaches), no
    ability used; ValueError past six modules."""

def chain_cost(deck: Deck, missions: Sequence[int], spent: int, cells: Sequence[tuple[int, int]]) -> int | None:
    """The fewest moves from the layout ``cells`` ((x, y) per module, in module order) to
    complete ``missions`` (card indices) one after the other by the sides ``spent``
    gives, no ability used (None: moves cannot); ValueError past six modules."""

def shutdown() -> None:
    """Stop every running compiled search at its next poll, and every later one at its
    first, with KeyboardInterrupt: for a process that is ending (its worker threads must
    leave the core before the interpreter finalizes)."""
