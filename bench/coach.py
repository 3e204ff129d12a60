"""`rove play`'s coach on deals: how soon "Still winnable?" and "Hint" answer, and who answers.

    python bench/coach.py [--spec standard] [--deals 10] [--moves 3] [--difficulty normal]
                          [--json]

For each of the deals ``rove play --deal 0 .. N-1`` starts (the same seeds), the coach is
asked "Still winnable?" and then "Hint" at the start and after each of the first
``--moves`` moves a good player makes (the expert's, :mod:`rove.solve.expert`), each
question timed from the moment it is asked with nothing thought ahead (the coach's
``think_ahead`` off: the slowest case, a question asked the instant the position appears).
It prints, per position, the verdict, the solver that gave it (``known line``: the
position lies on a winning line found for an earlier position, so the answer needs no
search) and the seconds; then how many positions were answered within 2 s and how many
decided.  With ``think_ahead`` on (as ``rove play`` runs), a question asked ``t`` seconds
after the position appeared waits ``max(0, seconds - t)``: the figures say how long a
player must look at the board for the answer to be there within 2 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
try:
    import rove  # noqa: F401
except ImportError:  # run from a checkout without the package installed
    sys.path.insert(0, str(ROOT / "generator"))

from rove.play.coach import Coach, Job  # noqa: E402
from rove.play.run import PlayOptions, started_from  # noqa: E402
from rove.play.session import Session  # noqa: E402
from rove.solve.expert import decide, expert_budget  # noqa: E402


def timed(coach: Coach, ask: str, level: int = 1) -> tuple[Job, float]:
    t0 = time.perf_counter()
    job = coach.ask(ask, level)
    coach.wait(job)
    return job, time.perf_counter() - t0


def one_deal(spec: str, seed: int, difficulty: str, moves: int) -> list[dict[str, Any]]:
    session = Session(started_from(PlayOptions(spec=spec, deal_seed=seed, difficulty=difficulty)))
    coach = Coach(session)
    rows = []
    try:
        for move in range(moves + 1):
            verdict, vs = timed(coach, "verdict")
            hint, hs = timed(coach, "hint", 2)
            v, h = verdict.result or {}, hint.result or {}
            rows.append({"deal": seed, "move": move, "verdict": v.get("verdict"), "solver": v.get("solver"),
                         "verdict_seconds": round(vs, 2), "hint": h.get("action"), "hint_seconds": round(hs, 2),
                         "nodes": v.get("nodes")})
            _, state, _ = session.snapshot()
            plan, _, _ = decide(session.deck, state, expert_budget(coach.expert_nodes))
            if not plan or move == moves:
                break
            session.play(plan[0])  # the engine referees the expert's step
            coach.changed()
    finally:
        coach.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default="standard")
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [r for seed in range(args.deals) for r in one_deal(args.spec, seed, args.difficulty, args.moves)]
    slowest = [max(r["verdict_seconds"], r["hint_seconds"]) for r in rows]
    summary = {
        "positions": len(rows),
        "decided": sum(r["verdict"] in ("won", "lost") for r in rows),
        "within_2s": sum(s <= 2.0 for s in slowest),
        "deals_all_within_2s": sum(all(max(r["verdict_seconds"], r["hint_seconds"]) <= 2.0
                                       for r in rows if r["deal"] == d) for d in range(args.deals)),
        "by_solver": {k: sum(r["solver"] == k for r in rows) for k in ("known line", "seer", "search", None)},
        "median_seconds": round(statistics.median(slowest), 2) if rows else None,
    }
    if args.json:
        print(json.dumps({"spec": args.spec, "difficulty": args.difficulty, "rows": rows, "summary": summary},
                         indent=2))
        return
    print(f"rove play's coach, {args.spec} deals 0..{args.deals - 1} ({args.difficulty}), "
          f"the start and the expert's first {args.moves} moves; seconds from the question, nothing thought ahead")
    print(f"{'deal':>4} {'move':>4}  {'verdict':<8}{'solver':<11}{'seconds':>8}  {'hint':<10}{'seconds':>8}")
    for r in rows:
        print(f"{r['deal']:>4} {r['move']:>4}  {r['verdict'] or '-':<8}{r['solver'] or '-':<11}"
              f"{r['verdict_seconds']:>8.2f}  {r['hint'] or '-':<10}{r['hint_seconds']:>8.2f}")
    s = summary
    print(f"{s['decided']} of {s['positions']} positions decided; {s['within_2s']} answered (verdict and hint) "
          f"within 2 s; deals answered within 2 s at every position: {s['deals_all_within_2s']} of {args.deals}; "
          f"median {s['median_seconds']} s; by solver: "
          + ", ".join(f"{k or 'unknown'} {n}" for k, n in s["by_solver"].items()))


if __name__ == "__main__":
    main()
