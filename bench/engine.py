"""Rules engine speed: the three loops every solver spends its time in.

    python bench/engine.py [--seconds 5] [--repeats 5] [--save-baseline]

Positions come from random deals of a spec advanced by random legal play (the same
seed gives the same positions).  Three figures, each the median of several timed
repeats:

* generations/s: ``successors(deck, state)`` fully consumed (every legal action and
  the state after it, mission checks included);
* matches/s: ``CompiledPattern.matches`` of every mission pattern of the deck;
* apply/s: ``apply(deck, state, action)`` on legal actions.

With ``bench/baseline-engine.json`` present the ratio to it is printed (above 1 is
faster); ``--save-baseline`` writes the figures of this run there.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.actions import Action  # noqa: E402
from rove.engine import Deck, State, apply, successors  # noqa: E402
from rove.spec import load_spec  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))  # tests/helpers.py: what the tests and benches share
from helpers import playing_states  # noqa: E402

BASELINE = ROOT / "bench" / "baseline-engine.json"


def positions(spec_ref: str, count: int, seed: int) -> tuple[Deck, list[State]]:
    """``count`` playing states with a legal action (``playing_states`` of tests/helpers.py)."""
    spec = load_spec(spec_ref)
    return Deck(spec), playing_states(spec, count, seed)


def timed(loop: Callable[[], int], seconds: float) -> float:
    """Operations per second of ``loop`` (one pass returns its operation count), run
    for at least ``seconds``."""
    ops = 0
    start = time.perf_counter()
    while True:
        ops += loop()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return ops / elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="total timing budget (default 5)")
    ap.add_argument("--repeats", type=int, default=5, help="timed repeats per figure (default 5)")
    ap.add_argument("--positions", type=int, default=200, help="positions to cycle through")
    ap.add_argument("--spec", default="classic", help="bundled spec name or path")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", type=Path, default=BASELINE)
    ap.add_argument("--save-baseline", action="store_true", help="write this run as the baseline")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    deck, states = positions(args.spec, args.positions, args.seed)
    pairs: list[tuple[State, Action]] = []
    rng = random.Random(args.seed)
    for s in states:
        acts = [a for a, _ in successors(deck, s)]
        pairs += [(s, a) for a in rng.sample(acts, min(5, len(acts)))]
    cells = [s.cells for s in states]
    patterns = deck.mission_pat
    n_actions = sum(1 for s in states for _ in successors(deck, s))
    setup = time.perf_counter() - t0

    def gen_loop() -> int:
        for s in states:
            for _ in successors(deck, s):
                pass
        return len(states)

    def match_loop() -> int:
        for c in cells:
            occ = set(c)
            for p in patterns:
                p.matches(c, occ)
        return len(cells) * len(patterns)

    def apply_loop() -> int:
        for s, a in pairs:
            apply(deck, s, a)
        return len(pairs)

    loops = {"generations_per_s": gen_loop, "matches_per_s": match_loop, "apply_per_s": apply_loop}
    slice_s = args.seconds / (len(loops) * args.repeats)
    runs: dict[str, list[float]] = {k: [] for k in loops}
    for _ in range(args.repeats):  # interleaved, so drift hits every figure alike
        for name, loop in loops.items():
            runs[name].append(timed(loop, slice_s))
    result = {k: statistics.median(v) for k, v in runs.items()}

    print(f"rules engine bench: spec {args.spec}, {len(states)} positions "
          f"({n_actions / len(states):.0f} legal actions each on average), "
          f"{len(patterns)} mission patterns, {len(pairs)} actions to apply; setup {setup:.1f}s")
    print(f"python {platform.python_version()} on {platform.machine()}; median of "
          f"{args.repeats} repeats of {slice_s:.2f}s each")
    baseline = None
    if args.baseline.exists() and not args.save_baseline:
        baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
    labels = {"generations_per_s": "generations/s (successors consumed)",
              "matches_per_s": "pattern matches/s",
              "apply_per_s": "apply() calls/s"}
    for key, label in labels.items():
        spread = f"{min(runs[key]):>10,.0f} .. {max(runs[key]):>10,.0f}"
        line = f"  {label:<38} {result[key]:>12,.0f}   (range {spread})"
        if baseline and baseline.get(key):
            line += f"   x{result[key] / baseline[key]:.2f} vs baseline"
        print(line)
    if args.save_baseline:
        data = {**{k: round(v, 1) for k, v in result.items()}, "spec": args.spec,
                "positions": len(states), "seed": args.seed, "python": platform.python_version()}
        args.baseline.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.baseline}")
    elif baseline is None:
        print(f"(no baseline at {args.baseline}; --save-baseline writes one)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
