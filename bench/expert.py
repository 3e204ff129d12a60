"""The expert's games alone: CPU per game against a saved baseline, and whether every
game played the same moves.

    python bench/expert.py [--decks standard,bench/decks/g35.yaml,...] [--deals 10]
                           [--difficulty normal,impossible] [--jobs 2] [--seed 1]
                           [--baseline bench/baseline-expert.json | --save PATH] [--fresh]
                           [--probe-nodes 2000]

Each deal is played as ``rove check`` plays it (the same game, its win replayed through
the engine).  Per deck it prints the games' wins and nodes, the median CPU seconds a
game, and, against the baseline (a JSON this script wrote with ``--save`` on an earlier
commit: per game its moves' hash, outcome, nodes and CPU), the baseline's median, the
ratio and whether every game is identical (the same moves, so the same rates).  CPU is
the game's own process time (``time.process_time``), so it says what the expert costs
whatever else the machine runs; run it niced.

The games go to ``--jobs`` long-lived worker processes, worker ``k`` playing games
``k, k + jobs, ...`` of a deck in that order, as the workers of a check play deal after
deal (what a worker keeps from one game to the next, like its distance tables and
compiled deck, counts as it does there).  ``--fresh`` plays each game in a process of
its own instead and prints each game's peak resident memory (a long mission search
keeps every state it pushed: on o35's ninth deal at normal one game peaks above 2 GB).
The last line per deck lists each game as its outcome's letter and its CPU seconds.

``--probe-nodes`` plays another expert, one whose probes (another candidate's search, a
look-ahead) get that many nodes instead of the expert's 2,000: against a baseline of the
real expert it says what that cheaper player would save and how many games, and
outcomes, it would change (docs/internals/check.md has the figures).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.check.options import DEFAULT_EXPERT_NODE_LIMIT, deal_seed  # noqa: E402
from rove.engine import Deck, state_from_position  # noqa: E402
from rove.generators.deals import deal  # noqa: E402
from rove.replay import states_along, verify_plan  # noqa: E402
from rove.solve.expert import DEFAULT_PROBE_NODES, play  # noqa: E402
from rove.spec import load_spec  # noqa: E402

DECKS = "standard,bench/decks/g35.yaml,bench/decks/o35.yaml,bench/decks/t35.yaml"
BASELINE = ROOT / "bench" / "baseline-expert.json"

Game = tuple[str, int, int, str, int]  # deck, seed, deal index, difficulty, probe nodes


def moves_hash(plan: Any) -> str:
    """A short hash of a game's moves, in the plan notation."""
    return hashlib.sha256("\n".join(a.notation() for a in plan).encode()).hexdigest()[:16]


def one_game(task: Game) -> dict[str, Any]:
    """One expert game as the check plays it: outcome, nodes, moves' hash, CPU seconds
    and the process's peak resident MB so far."""
    path, seed, index, difficulty, probe_nodes = task
    spec = load_spec(path)
    t = time.process_time()
    pos = deal(spec, deal_seed(seed, index), difficulty)
    deck = Deck(spec, pos.rules)
    r = play(deck, state_from_position(deck, pos), node_limit=DEFAULT_EXPERT_NODE_LIMIT,
             probe_nodes=probe_nodes)
    if r.status == "won":  # as the check does: the plan replayed through the engine
        verify_plan(pos, list(r.plan), deck)
    else:
        states_along(deck, state_from_position(deck, pos), r.plan)
    cpu = time.process_time() - t
    return {"deck": path, "difficulty": difficulty, "index": index, "status": r.status,
            "nodes": r.nodes, "moves": moves_hash(r.plan), "cpu": round(cpu, 3),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def worker_games(tasks: list[Game]) -> list[dict[str, Any]]:
    """A long-lived worker's games, in order."""
    return [one_game(t) for t in tasks]


def play_deck(tasks: list[Game], jobs: int, fresh: bool) -> list[dict[str, Any]]:
    """Every game of ``tasks``, in task order."""
    if fresh:
        with Pool(jobs, maxtasksperchild=1) as pool:
            return pool.map(one_game, tasks, chunksize=1)
    slices = [tasks[k::jobs] for k in range(jobs)]
    with Pool(jobs) as pool:
        done = pool.map(worker_games, slices, chunksize=1)
    out: list[dict[str, Any]] = [{}] * len(tasks)
    for k, games in enumerate(done):
        for j, g in enumerate(games):
            out[k + j * jobs] = g
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--decks", default=DECKS)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--difficulty", default="normal,impossible")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--baseline", type=Path, default=BASELINE,
                    help="the saved baseline to compare against (skipped when absent)")
    ap.add_argument("--save", type=Path, help="write this run's games as a baseline")
    ap.add_argument("--fresh", action="store_true", help="one process a game, with its peak memory")
    ap.add_argument("--probe-nodes", type=int, default=DEFAULT_PROBE_NODES,
                    help="nodes of each probe (another player when not the expert's 2,000)")
    args = ap.parse_args()
    base: dict[str, Any] = {}
    if args.save is None and args.baseline.exists():
        base = json.loads(args.baseline.read_text())
        if base.get("seed") != args.seed:
            sys.exit(f"{args.baseline} was saved with --seed {base.get('seed')}, not {args.seed}")
    saved: dict[str, Any] = {"seed": args.seed, "node_limit": DEFAULT_EXPERT_NODE_LIMIT,
                             "probe_nodes": args.probe_nodes, "games": []}
    for deck in args.decks.split(","):
        tasks = [(deck, args.seed, i, d, args.probe_nodes)
                 for d in args.difficulty.split(",") for i in range(args.deals)]
        t0 = time.monotonic()
        games = play_deck(tasks, args.jobs, args.fresh)
        saved["games"] += games
        wins = sum(g["status"] == "won" for g in games)
        cpu = [g["cpu"] for g in games]
        print(f"{deck}: wall {time.monotonic() - t0:.1f} s, CPU {sum(cpu):.1f} s, "
              f"won {wins} of {len(games)}, nodes {sum(g['nodes'] for g in games):,}")
        line = f"  CPU a game: median {statistics.median(cpu):.2f} s"
        old = {(g["deck"], g["difficulty"], g["index"]): g for g in base.get("games", [])}
        mine = [old.get((g["deck"], g["difficulty"], g["index"])) for g in games]
        if base and all(mine):
            was = statistics.median(g["cpu"] for g in mine if g)
            same = sum(g["moves"] == o["moves"] and g["nodes"] == o["nodes"]
                       for g, o in zip(games, mine) if o)
            flips = sum(g["status"] != o["status"] for g, o in zip(games, mine) if o)
            won_was = sum(o["status"] == "won" for o in mine if o)
            line += (f", baseline {was:.2f} s, ratio {was / max(statistics.median(cpu), 1e-9):.2f}x"
                     f" (total {sum(g['cpu'] for g in mine if g) / max(sum(cpu), 1e-9):.2f}x); "
                     f"identical games: {same} of {len(games)}"
                     + ("" if same == len(games) else
                        f"  DIFFERENT: {flips} outcomes changed, won {wins} against {won_was}"))
        elif base:
            line += ", not in the baseline"
        print(line)
        if args.fresh:
            top = max(range(len(games)), key=lambda k: games[k]["peak_mb"])
            print(f"  peak memory a game: median {statistics.median(g['peak_mb'] for g in games):,.0f} MB, "
                  f"largest {games[top]['peak_mb']:,.0f} MB (deal {tasks[top][2]}, {tasks[top][3]})")
        print("  " + " ".join(f"{g['status'][0]}{g['cpu']:.1f}" for g in games))
    if args.save is not None:
        for g in saved["games"]:
            del g["peak_mb"]
        args.save.write_text(json.dumps(saved, indent=1) + "\n")
        print(f"saved {len(saved['games'])} games to {args.save}")


if __name__ == "__main__":
    main()
