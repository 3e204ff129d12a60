"""The expert's games alone: wall time, CPU time, wins and mission-search nodes a deck.

    python bench/expert.py [--decks standard,bench/decks/o35.yaml] [--deals 10]
                           [--difficulty normal,impossible] [--jobs 2] [--seed 1]

Each deal is played as ``rove check`` plays it (the same task, its win replayed through
the engine) in a pool of ``--jobs`` processes.  CPU is the games' own process time, so
it says what the expert costs whatever else the machine runs; run it on two commits to
compare them.  Each game runs in a fresh worker process, so that the worker's peak
resident memory is that game's (a long mission search keeps every state it pushed:
on o35's ninth deal at normal one game peaks above 2 GB); the wall time includes those
processes' start.  The last line per deck lists each game as its outcome's letter and
its CPU seconds.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.options import deal_seed  # noqa: E402
from rove.check.run import _expert_task, spec_fingerprint  # noqa: E402
from rove.solve.expert import GAME_NODE_LIMIT  # noqa: E402
from rove.spec import load_spec  # noqa: E402

Game = tuple[str, str, int, int, str]


def game(task: Game) -> tuple[str, int, float, float]:
    """(outcome, nodes, CPU seconds, the process's peak resident MB) of one expert game
    (``task``: spec path, its fingerprint, seed, deal index, difficulty)."""
    spec_path, fingerprint, seed, index, difficulty = task
    t = time.process_time()
    r = _expert_task(spec_path, fingerprint, index, deal_seed(seed, index), difficulty, GAME_NODE_LIMIT)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return r["status"], r["nodes"], time.process_time() - t, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", default="standard,bench/decks/g35.yaml,bench/decks/o35.yaml")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--difficulty", default="normal,impossible")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for deck in args.decks.split(","):
        fingerprint = spec_fingerprint(load_spec(deck))
        tasks = [(deck, fingerprint, args.seed, i, d) for d in args.difficulty.split(",") for i in range(args.deals)]
        t0 = time.monotonic()
        with Pool(args.jobs, maxtasksperchild=1) as pool:
            games = pool.map(game, tasks, chunksize=1)
        wins = sum(g[0] == "won" for g in games)
        print(f"{deck}: wall {time.monotonic() - t0:.1f} s, CPU {sum(g[2] for g in games):.1f} s, "
              f"won {wins} of {len(games)}, nodes {sum(g[1] for g in games):,}")
        top = max(range(len(games)), key=lambda k: games[k][3])
        print(f"  peak memory a game: median {statistics.median(g[3] for g in games):,.0f} MB, "
              f"largest {games[top][3]:,.0f} MB (deal {tasks[top][3]}, {tasks[top][4]})")
        print("  " + " ".join(f"{g[0][0]}{g[2]:.1f}" for g in games))


if __name__ == "__main__":
    main()
