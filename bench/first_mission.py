"""Why hard plays like normal: what the expert's hand holds once the first mission is done.

    python bench/first_mission.py [--spec standard] [--deals 30] [--seed 0]
                                  [--difficulty normal,hard]

A difficulty is only the starting hand (5, 4 or 3 cards), and each completed mission draws
one card while the hand holds fewer than 5.  If the first mission is completed without
playing a card (abilities cost no points), the full normal hand draws nothing while the
hard hand draws its fifth, and from there the two games are alike.  This script plays
``rove check``'s first deals (the same seeds) as the expert, replays each plan through
the rules engine, and prints per difficulty: how many cards and abilities the first
mission took, the hand size right after it, and the games won.  Node-bounded, so the
figures are the same on any machine.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.options import deal_seed  # noqa: E402
from rove.engine import Deck, state_from_position  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.replay import states_along  # noqa: E402
from rove.solve.expert import play  # noqa: E402
from rove.spec import Spec, load_spec  # noqa: E402


def first_mission(spec: Spec, seed: int, difficulty: str) -> tuple[int, int, int | None, bool]:
    """(cards played, abilities used, hand size after it; None if never completed, won)
    for the first mission of one expert game."""
    pos = deal(spec, seed, difficulty)
    deck = Deck(spec, pos.rules)
    result = play(deck, state_from_position(deck, pos))
    states = states_along(deck, state_from_position(deck, pos), result.plan)
    first = [(a, after) for a, before, after in zip(result.plan, states, states[1:]) if before.done == 0]
    hand_after = next((len(after.hand) for _, after in first if after.done >= 1), None)
    return (sum(a.act == "play" for a, _ in first), sum(a.act == "ability" for a, _ in first),
            hand_after, result.status == "won")


def histogram(counter: Counter[int | None]) -> str:
    return ", ".join(f"{k if k is not None else 'never'}: {v}" for k, v in sorted(
        counter.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="standard")
    ap.add_argument("--deals", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0, help="rove check's --seed (the deals)")
    ap.add_argument("--difficulty", default="normal,hard")
    args = ap.parse_args()
    spec = load_spec(args.spec)
    print(f"{args.spec}: the expert's first mission over rove check's first {args.deals} deals "
          f"(seed {args.seed})")
    for difficulty in args.difficulty.split(","):
        cards: Counter[int | None] = Counter()
        abilities: Counter[int | None] = Counter()
        hands: Counter[int | None] = Counter()
        won = 0
        for i in range(args.deals):
            c, a, h, w = first_mission(spec, deal_seed(args.seed, i), difficulty)
            cards[c] += 1
            abilities[a] += 1
            hands[h] += 1
            won += w
        print(f"{difficulty}: won {won} of {args.deals}")
        print(f"  cards played on the first mission   {histogram(cards)}")
        print(f"  abilities used on the first mission {histogram(abilities)}")
        print(f"  cards in hand after it              {histogram(hands)}")


if __name__ == "__main__":
    main()
