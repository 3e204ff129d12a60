"""Fresh random deals, set up exactly as the rulings say (a seed fixes everything)."""

from __future__ import annotations

import random

from ..grid import Cell
from ..position import Position
from ..rules import HAND_SIZES, Rules
from ..spec import Spec, ref_of

DIFFICULTIES = tuple(HAND_SIZES)


def start_layout(codes: list[str] | tuple[str, ...]) -> dict[str, Cell]:
    """The setup's 2 rows x 3 columns, in the order given (row-major; more modules wrap
    at 3 a row).  In spec order this is *the* standard start the generator uses."""
    return {code: (i % 3, i // 3) for i, code in enumerate(codes)}


def deal(spec: Spec, seed: int, difficulty: str = "normal", spec_ref: str | None = None,
         rules: Rules = Rules()) -> Position:
    """Modules shuffled into 2 rows x 3 columns (row-major; more modules wrap at 3 a row),
    cards shuffled; the top card is the mission, the next 5/4/3 the hand, the rest the draw.
    The position names its spec by ``spec_ref``, by default the spec's own (``ref_of``), so
    that a deal written out and read back is dealt from the same deck."""
    if difficulty not in HAND_SIZES:
        raise ValueError(f"difficulty must be one of {', '.join(DIFFICULTIES)}")
    rng = random.Random(f"rove-deal:{seed}")
    codes = list(spec.codes)
    rng.shuffle(codes)
    cells = start_layout(codes)
    cards = [c.id for c in spec.cards]
    rng.shuffle(cards)
    n = HAND_SIZES[difficulty]
    return Position(spec=spec, layout=Position.layout_of(cells), mission=cards[0], goal="game",
                    hand=tuple(cards[1:1 + n]), draw=tuple(cards[1 + n:]), rules=rules,
                    spec_ref=ref_of(spec) if spec_ref is None else spec_ref)
