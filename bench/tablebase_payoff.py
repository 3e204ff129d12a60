"""What a points bound across missions (issue #40's priced tables) could prove, measured
before anyone builds it.

    python bench/tablebase_payoff.py [--spec bench/decks/f35.yaml] [--deals 40] [--seed 0]
                                     [--difficulty normal,impossible] [--chains 5]
                                     [--chain-missions 4] [--bonus-sample 0] [--json]

The deals are `rove check`'s (deal ``i`` of seed ``s`` is ``deal_seed(s, i)``, the same
index at every difficulty).  Per deal:

* ``cap``: the points the deal can ever pay, at most: every card of the starting hand at
  its bonus, and every card it can still draw (one after each of the first
  ``missions_to_win - 1`` completions, plus the Sensor draws of ``sensor_draws_left``)
  at the deck's largest bonus.  A card gives its points once per play, and a play takes
  a card from the hand, so no line pays more.
* ``ceiling``: the most that *any* bound charging each mission by its card and the
  spent sets alone (tables indexed by mission and spent set, with the layout forgotten
  between missions, and any rationing of the ability uses) can say a deal needs.  Such
  a bound cannot charge more than the line that never uses an ability: its first
  mission's fewest moves from the deal's start (every module active) plus, per later
  mission, the fewest moves from *some* layout matching the previous mission
  (``rove._core.pair_costs`` with nothing spent), along the dearest sequence of distinct
  cards the deal could reveal.  Where ``ceiling < cap`` no such bound proves the deal
  lost, whatever its ability tables say.
* with ``--chains N``, on the first N deals of each difficulty, ``chain``: the exact
  fewest moves of the no-ability line that keeps its layout from one mission to the next
  (``rove._core.chain_cost``, every module active), over the first ``--chain-missions``
  missions of the sequence that playing one card a mission and no Sensor reveals; set
  against ``chain_cap``, the points those missions can be paid at most.  A bound that
  keeps the layout (per-layout tables of mission chains) charges no more than that, so
  this is what the next bound up could see.
* with ``--bonus-sample N``: over N random valid layouts (seeded), how much the best
  play could pay there: the largest bonus among the cards whose movement pattern the
  layout matches, else the largest base points (what a bound that knew bonuses need
  their patterns could charge a play at most).
* ``base_cap``, ``chain_base_cap``: the caps with every card at its base points, no
  bonus ever paid (not a bound; what a card side that could deny every bonus would
  compare with).

Figures are exact move counts (deterministic); the CPU seconds are this process's, and
the peak memory is its maximum resident set.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove import _core  # noqa: E402
from rove.check.options import deal_seed  # noqa: E402
from rove.engine import Deck, sensor_draws_left, state_from_position, unpack  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.solve import core  # noqa: E402
from rove.spec import load_spec  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
from helpers import random_layout  # noqa: E402

Pairs = list[list[int | None]]


def points_cap(deck: Deck, hand: tuple[int, ...], missions: int, bonus: bool = True) -> int:
    """The points a deal with this starting hand can pay over its first ``missions``
    missions, at most: the hand at its bonuses, and each card it can draw meanwhile (one
    after each completion but the last, and the Sensor draws) at the largest bonus.
    ``bonus=False``: the same count with every card at its base points (not a bound: a
    card pays its bonus when the layout matches its movement pattern)."""
    points = deck.bonus if bonus else deck.base
    draws = missions - 1 + sensor_draws_left(deck, 0)
    return sum(points[c] for c in hand) + draws * max(points)


def dearest_sequence(pairs: Pairs, first: int, length: int) -> int | None:
    """The largest sum of ``pairs[a][b]`` along a sequence of ``length`` distinct cards
    that starts with ``first`` (None: some such sequence has a pair no move sequence
    connects, so the sum is unbounded)."""
    n = len(pairs)

    @lru_cache(maxsize=None)
    def best(used: int, last: int, left: int) -> int | None:
        if left == 0:
            return 0
        out = 0
        for b in range(n):
            if used >> b & 1:
                continue
            step = pairs[last][b]
            rest = best(used | 1 << b, b, left - 1)
            if step is None or rest is None:
                return None
            out = max(out, step + rest)
        return out

    return best(1 << first, first, length - 1)


def cheapest_sequence(pairs: Pairs, first: int, length: int) -> int | None:
    """The least sum of ``pairs[a][b]`` along a sequence of ``length`` distinct cards that
    starts with ``first`` (None: no sequence connects)."""
    n = len(pairs)

    @lru_cache(maxsize=None)
    def best(used: int, last: int, left: int) -> int | None:
        if left == 0:
            return 0
        sums = [step + rest for b in range(n) if not used >> b & 1
                if (step := pairs[last][b]) is not None
                if (rest := best(used | 1 << b, b, left - 1)) is not None]
        return min(sums) if sums else None

    return best(1 << first, first, length - 1)


def one_card_sequence(first: int, hand: tuple[int, ...], draw: tuple[int, ...], length: int,
                      hand_limit: int = 5) -> list[int]:
    """The first ``length`` missions (at most) of a line that plays exactly one card a
    mission and never the Sensor: after each completion the top card is revealed, then
    one is drawn (the hand is below its limit, one card having been played)."""
    out, pile = [first], list(draw)
    size = len(hand)
    while len(out) < length and pile:
        out.append(pile.pop(0))
        size -= 1
        if size < hand_limit and pile:
            pile.pop(0)
            size += 1
    return out


def best_pay_sample(deck: Deck, count: int) -> list[int]:
    """Per random layout (seeded), the most one play could pay there: the largest bonus
    among the cards whose movement pattern matches it, else the largest base points."""
    rng = random.Random("tablebase-payoff:bonus")
    top_base = max(deck.base)
    out = []
    for _ in range(count):
        cells = random_layout(rng, deck.n)
        out.append(max([top_base, *(deck.bonus[c] for c in range(len(deck.card_ids))
                                     if deck.move_pat[c].matches(cells))]))
    return out


def stats(values: list[int]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "mean": round(statistics.mean(values), 2),
            "max": max(values)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(ROOT / "bench" / "decks" / "f35.yaml"))
    ap.add_argument("--deals", type=int, default=40, help="deals per difficulty")
    ap.add_argument("--seed", type=int, default=0, help="rove check's --seed")
    ap.add_argument("--difficulty", default="normal,impossible")
    ap.add_argument("--chains", type=int, default=0, help="deals per difficulty given an exact chain")
    ap.add_argument("--chain-missions", type=int, default=4)
    ap.add_argument("--pairs", default="active,spent",
                    help="spent sets whose pair costs are built: active (the ceiling needs it), spent")
    ap.add_argument("--bonus-sample", type=int, default=0, help="random layouts to read the best play's pay in")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    spec = load_spec(args.spec)
    deck = Deck(spec)
    compiled = core.core_deck(deck)
    full = (1 << deck.n) - 1
    out: dict[str, Any] = {"spec": args.spec, "seed": args.seed, "deals": args.deals}
    say = (lambda *a: None) if args.json else print

    if args.bonus_sample:
        pays = best_pay_sample(deck, args.bonus_sample)
        out["best_pay"] = {str(p): pays.count(p) for p in sorted(set(pays))}
        say(f"the best play's pay over {args.bonus_sample} random layouts (pay: layouts): {out['best_pay']}")

    cpu0 = time.process_time()
    built = {name: _core.pair_costs(compiled, spent) for name, spent in (("active", 0), ("spent", full))
             if name in args.pairs.split(",")}
    active_pairs = built["active"]
    out["pairs_cpu_s"] = round(time.process_time() - cpu0, 1)
    for name, pairs in built.items():
        vals = [v for a, row in enumerate(pairs) for b, v in enumerate(row) if a != b and v is not None]
        out[f"pairs_{name}"] = {**stats(vals), "unreachable": sum(v is None for row in pairs for v in row)}
        say(f"pair costs, {name:6} (fewest moves from a layout matching one mission to one matching "
            f"another, no ability): {out[f'pairs_{name}']}")
    say(f"{len(built) * len(deck.card_ids)} tables: {out['pairs_cpu_s']} s CPU")

    rows = []
    sums: dict[int, tuple[int | None, int | None, int | None]] = {}
    chain_cpu = 0.0
    length = spec.missions_to_win
    for difficulty in args.difficulty.split(","):
        for i in range(args.deals):
            seed = deal_seed(args.seed, i)
            s = state_from_position(deck, deal(spec, seed, difficulty))
            first = s.mission
            cells = [unpack(c) for c in s.cells]
            start = _core.chain_cost(compiled, [first], 0, cells)
            if first not in sums:  # the sequences depend on the first mission alone
                sums[first] = (dearest_sequence(active_pairs, first, length),
                               cheapest_sequence(active_pairs, first, length),
                               cheapest_sequence(built["spent"], first, length) if "spent" in built else None)
            rest, cheap, spent_cheap = sums[first]
            row: dict[str, Any] = {
                "seed": seed, "difficulty": difficulty, "cap": points_cap(deck, s.hand, length),
                "base_cap": points_cap(deck, s.hand, length, bonus=False),
                "start": start,
                "ceiling": None if start is None or rest is None else start + rest,
                "cheapest": None if start is None or cheap is None else start + cheap,
            }
            if "spent" in built:
                row["spent_cheapest"] = spent_cheap
            if i < args.chains:
                seq = one_card_sequence(first, s.hand, s.draw, args.chain_missions)
                t0 = time.process_time()
                row["chain_missions"] = [deck.card_ids[c] for c in seq]
                row["chain"] = _core.chain_cost(compiled, seq, 0, cells)
                chain_cpu += time.process_time() - t0
                row["chain_cap"] = points_cap(deck, s.hand, len(seq))
                row["chain_base_cap"] = points_cap(deck, s.hand, len(seq), bonus=False)
            rows.append(row)
            say(json.dumps(row))
    out["rows"] = rows
    for difficulty in args.difficulty.split(","):
        mine = [r for r in rows if r["difficulty"] == difficulty]
        open_ = [r for r in mine if r["ceiling"] is None or r["ceiling"] >= r["cap"]]
        summary = {
            "deals": len(mine),
            "provable_at_most": len(open_),
            "cap": stats([r["cap"] for r in mine]),
            "base_cap": stats([r["base_cap"] for r in mine]),
            "cheapest": stats([r["cheapest"] for r in mine if r["cheapest"] is not None]),
            "ceiling": stats([r["ceiling"] for r in mine if r["ceiling"] is not None]),
            "margin": stats([r["cap"] - r["ceiling"] for r in mine if r["ceiling"] is not None]),
        }
        chained = [r for r in mine if "chain" in r and r["chain"] is not None]
        if chained:
            summary["chain"] = stats([r["chain"] for r in chained])
            summary["chain_cap"] = stats([r["chain_cap"] for r in chained])
            summary["chain_base_cap"] = stats([r["chain_base_cap"] for r in chained])
            summary["chain_provable"] = sum(r["chain"] >= r["chain_cap"] for r in chained)
        out[difficulty] = summary
        say(f"{difficulty}: {summary}")
    out["chain_cpu_s"] = round(chain_cpu, 1)
    out["cpu_s"] = round(time.process_time() - cpu0, 1)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    say(f"{out['cpu_s']} s CPU in all ({out['chain_cpu_s']} s for the chains), peak {out['peak_rss_mb']} MB")
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
