"""`rove check`: does a card design work?  Static checks and winnability at scale.

The method follows how solitaire research reports winnability (the Solvitaire study of
Blake and Gent): many seeded random deals per variant, each run through an exact
solver; a deal is *solved* (a plan exists, and it was replayed), *unsolvable* (proven:
no plan exists) or *unknown* (a limit was reached).  The win rate is taken among the
decided deals with a 95% Wilson score interval, and the unknowns are reported apart,
never counted as wins or losses; the bounds ``wins / N`` and ``(wins + unknown) / N``
hold whatever the unknowns turn out to be.

Reproducibility: every solve is limited by a node count first (``node_limit``), which
makes its answer independent of the machine, the number of workers and their timing.
The time limit is only a safety net; a deal stopped by it is counted as unknown and
flagged (``time_limited``), since on a faster or less busy machine it may have been
decided.  Deal ``i`` uses the seed :func:`deal_seed` ``(seed, i)``; the same seed is
used for every difficulty, so the difficulties are compared on the same shuffles
(paired deals that differ only in the starting hand).

The work is a list of small picklable tasks (:func:`run_task`), so it can run in the
current process, a local process pool or a Dask cluster (``rove.executors``) with the
same results: they are gathered by task index, never by arrival order.

The blocker of an unsolvable deal is the mission the deepest line reached but could not
complete, as the game solver reports it (``stats["deepest_mission"]``; exact, since the
search that proved the deal unsolvable visited every line).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .deal import DIFFICULTIES, deal
from .spec import Spec, load_spec, pattern_problems

CHECK_FORMAT = "rove-check/1"
Z95 = 1.959963984540054  # two-sided 95% normal quantile
BARE_BUDGET = 99  # points of the bare budget for mission costs from the starts: never binding
MAX_STARTS = 720  # arrangements tried when --starts is not given (all of them for 6 modules)
DEFAULT_DEALS = 100
DEFAULT_NODE_LIMIT = 2_000_000
DEFAULT_MISSION_NODE_LIMIT = 200_000
DEFAULT_TIME_LIMIT = 600.0
DEFAULT_EXPERT_NODE_LIMIT = 300_000
PLAYERS = ("thoughtful", "expert")

OK, WARN, FAIL, SKIPPED = "ok", "warn", "fail", "skipped"


# --------------------------------------------------------------------------- statistics


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% by default).

    ``n == 0`` gives the uninformative (0, 1)."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} must be between 0 and n={n}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def outcome_bounds(wins: int, unknown: int, n: int) -> tuple[float, float]:
    """Bounds on the win rate of all ``n`` deals that hold whatever the unknowns are."""
    if n <= 0:
        return (0.0, 1.0)
    return (wins / n, (wins + unknown) / n)


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def _cost_summary(costs: Sequence[int]) -> dict[str, Any]:
    if not costs:
        return {"min": None, "median": None, "max": None, "mean": None}
    return {"min": min(costs), "median": _r(statistics.median(costs)), "max": max(costs),
            "mean": _r(statistics.fmean(costs))}


# --------------------------------------------------------------------------- options and seeds


@dataclass(frozen=True)
class CheckOptions:
    """Everything the figures depend on (workers and executors do not belong here)."""

    deals: int = DEFAULT_DEALS
    difficulties: tuple[str, ...] = DIFFICULTIES
    seed: int = 0
    node_limit: int = DEFAULT_NODE_LIMIT
    time_limit: float | None = DEFAULT_TIME_LIMIT
    mission_node_limit: int = DEFAULT_MISSION_NODE_LIMIT
    #: start arrangements for the mission costs: None = all (a seeded sample of
    #: MAX_STARTS when there are more), 0 = skip the cost solves
    starts: int | None = None
    #: who plays the deals: "thoughtful" (the exact solver, the draw order known) and/or
    #: "expert" (rove.solve.expert: a fixed player that sees what a person at the table sees)
    players: tuple[str, ...] = PLAYERS
    expert_node_limit: int = DEFAULT_EXPERT_NODE_LIMIT

    def __post_init__(self) -> None:
        bad = [d for d in self.difficulties if d not in DIFFICULTIES]
        if bad or not self.difficulties:
            raise ValueError(f"difficulty must be one or more of {', '.join(DIFFICULTIES)}")
        if len(set(self.difficulties)) != len(self.difficulties):
            raise ValueError("a difficulty is listed twice")
        if self.deals < 0:
            raise ValueError("deals must be 0 or more")
        if self.node_limit < 1 or self.mission_node_limit < 1:
            raise ValueError("node limits must be at least 1")
        if self.starts is not None and self.starts < 0:
            raise ValueError("starts must be 0 or more")
        if not self.players or any(p not in PLAYERS for p in self.players):
            raise ValueError(f"player must be one or more of {', '.join(PLAYERS)}")
        if len(set(self.players)) != len(self.players):
            raise ValueError("a player is listed twice")
        if self.expert_node_limit < 1:
            raise ValueError("node limits must be at least 1")

    def to_json(self) -> dict[str, Any]:
        return {"deals": self.deals, "difficulties": list(self.difficulties), "seed": self.seed,
                "node_limit": self.node_limit, "mission_node_limit": self.mission_node_limit,
                "time_limit": self.time_limit, "starts": self.starts, "players": list(self.players),
                "expert_node_limit": self.expert_node_limit}


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal ``index`` of a check run with ``seed`` (48 bits, stable)."""
    digest = hashlib.sha256(f"rove-check:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def start_arrangements(spec: Spec, starts: int | None, seed: int) -> list[tuple[str, ...]]:
    """Module orders dealt row-major into rows of 3 (as ``deal`` does): all of them, in the
    order of ``itertools.permutations`` of the spec's codes, or a seeded sample."""
    codes = spec.codes
    total = math.factorial(len(codes))
    want = min(total, MAX_STARTS) if starts is None else min(total, starts)
    if want == total:
        return list(itertools.permutations(codes))
    rng = random.Random(f"rove-check-starts:{seed}")
    if total <= 50_000:
        return sorted(rng.sample(list(itertools.permutations(codes)), want))
    got: set[tuple[str, ...]] = set()
    while len(got) < want:
        order = list(codes)
        rng.shuffle(order)
        got.add(tuple(order))
    return sorted(got)


def start_cells(arrangement: Sequence[str]) -> dict[str, tuple[int, int]]:
    return {code: (i % 3, i // 3) for i, code in enumerate(arrangement)}


# --------------------------------------------------------------------------- worker tasks
# A task is a small tuple naming a spec file; its result a small dict of plain values.

_SPECS: dict[tuple[str, str], Spec] = {}


def spec_fingerprint(spec: Spec) -> str:
    """A short hash of the spec's content (its canonical YAML)."""
    from .spec import dump_spec

    return hashlib.sha256(dump_spec(spec, schema=None).encode()).hexdigest()[:16]


def _spec(path: str, fingerprint: str) -> Spec:
    """The spec a task names, loaded once per worker process; the fingerprint makes sure a
    long-lived worker never uses a stale copy of a file that was edited since."""
    spec = _SPECS.get((path, fingerprint))
    if spec is None:
        spec = load_spec(path)
        if spec_fingerprint(spec) != fingerprint:
            raise RuntimeError(f"the spec file {path} differs from the one the check started "
                               "with (edited meanwhile, or not the same file on this worker)")
        _SPECS[(path, fingerprint)] = spec
    return spec


def run_task(task: tuple) -> dict[str, Any]:
    """Run one task in whatever process it lands in (pure: same task, same result,
    apart from ``seconds``)."""
    kind = task[0]
    if kind == "deal":
        return _deal_task(*task[1:])
    if kind == "starts":
        return _starts_task(*task[1:])
    if kind == "expert":
        return _expert_task(*task[1:])
    raise ValueError(f"unknown task kind {kind!r}")


def _limit_hit(status: str, nodes: int, node_limit: int) -> str | None:
    if status != "unknown":
        return None
    return "nodes" if nodes >= node_limit else "time"


def _deal_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
               node_limit: int, time_limit: float | None) -> dict[str, Any]:
    from .solve.search import solve

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    r = solve(pos, time_limit=time_limit, max_nodes=node_limit)
    out: dict[str, Any] = {
        "index": index, "seed": seed, "difficulty": difficulty, "status": r.status,
        "nodes": r.nodes, "limit": _limit_hit(r.status, r.nodes, node_limit),
        "deepest": None, "blocker": None, "blocker_source": None,
        "points": r.points, "cards": r.cards, "abilities": r.abilities,
        "plays": {}, "bonus_plays": {}, "ability_uses": {},
    }
    if r.status == "solved":
        out["deepest"] = spec.missions_to_win
        plays: dict[str, int] = {}
        bonus: dict[str, int] = {}
        uses: dict[str, int] = {}
        for a in r.plan or ():
            if a.act == "play":
                assert a.card is not None  # a play action always names its card
                plays[a.card] = plays.get(a.card, 0) + 1
                if a.bonus:
                    bonus[a.card] = bonus.get(a.card, 0) + 1
            elif a.act == "ability":
                assert a.module is not None  # an ability action always names its module
                key = a.module if a.via is None else f"{a.module}>{a.via}"
                uses[key] = uses.get(key, 0) + 1
        out["plays"] = dict(sorted(plays.items()))
        out["bonus_plays"] = dict(sorted(bonus.items()))
        out["ability_uses"] = dict(sorted(uses.items()))
    else:
        stats = r.stats or {}
        d = stats.get("deepest_done")
        out["deepest"] = d if isinstance(d, int) and d >= 0 else None
        if r.status == "unsolvable" and isinstance(stats.get("deepest_mission"), str):
            out["blocker"], out["blocker_source"] = stats["deepest_mission"], "solver"
    out["seconds"] = time.monotonic() - t0
    return out


def _plan_counts(plan: Sequence[Any]) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Movement plays, bonus plays (per card) and ability uses (per module, ``G>L`` for a
    use through Gripper) in a plan."""
    plays: dict[str, int] = {}
    bonus: dict[str, int] = {}
    uses: dict[str, int] = {}
    for a in plan:
        if a.act == "play":
            plays[a.card] = plays.get(a.card, 0) + 1
            if a.bonus:
                bonus[a.card] = bonus.get(a.card, 0) + 1
        elif a.act == "ability":
            key = a.module if a.via is None else f"{a.module}>{a.via}"
            uses[key] = uses.get(key, 0) + 1
    return dict(sorted(plays.items())), dict(sorted(bonus.items())), dict(sorted(uses.items()))


def _expert_task(spec_path: str, fingerprint: str, index: int, seed: int, difficulty: str,
                 node_limit: int) -> dict[str, Any]:
    """One deal played by the expert (``rove.solve.expert``); a win is replayed through the
    engine (that replay is a proof the deal is winnable)."""
    from .engine import Deck, apply, state_from_position
    from .replay import verify_plan
    from .solve.expert import play

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    pos = deal(spec, seed, difficulty)
    deck = Deck(spec, pos.rules)
    r = play(deck, state_from_position(deck, pos), node_limit=node_limit)
    if r.status == "won":
        verify_plan(pos, list(r.plan), deck)
    else:  # the plan is legal up to where the expert stopped
        s = state_from_position(deck, pos)
        for a in r.plan:
            s = apply(deck, s, a)
    plays, bonus, uses = _plan_counts(r.plan)
    # the expert's plays all say bonus or base, so the bonus counts are exact
    return {
        "index": index, "seed": seed, "difficulty": difficulty, "status": r.status,
        "reason": r.reason, "missions_done": r.done,
        "failed_mission": None if r.failed_mission is None else deck.card_ids[r.failed_mission],
        "nodes": r.nodes, "actions": len(r.plan), "decisions": r.decisions, "replans": r.replans,
        "plays": plays, "bonus_plays": bonus, "ability_uses": uses,
        "seconds": time.monotonic() - t0,
    }


def _starts_task(spec_path: str, fingerprint: str, index: int, arrangement: tuple[str, ...],
                 node_limit: int, time_limit: float | None) -> dict[str, Any]:
    """Optimal cost (points) of every mission from one start arrangement: bare budget,
    empty hand, goal mission; once with every ability available, once with every
    module spent (no ability left: the cost a late mission may face)."""
    from .position import Current, Position
    from .solve.search import solve

    t0 = time.monotonic()
    spec = _spec(spec_path, fingerprint)
    layout = Position.layout_of(start_cells(arrangement))
    missions = []
    for card in spec.cards:
        row: dict[str, Any] = {"card": card.id}
        for key, spent in (("with_abilities", frozenset()), ("no_abilities", frozenset(spec.codes))):
            pos = Position(spec=spec, layout=layout, mission=card.id, goal="mission",
                           current=Current(None, BARE_BUDGET), spent=spent)
            r = solve(pos, time_limit=time_limit, max_nodes=node_limit)
            row[key] = {"status": r.status, "points": r.points, "abilities": r.abilities,
                        "actions": None if r.plan is None else len(r.plan), "nodes": r.nodes,
                        "limit": _limit_hit(r.status, r.nodes, node_limit)}
        missions.append(row)
    return {"index": index, "arrangement": "".join(arrangement), "missions": missions,
            "seconds": time.monotonic() - t0}


# --------------------------------------------------------------------------- the report


@dataclass
class CheckReport:
    """Every figure of a check.  ``to_json`` is deterministic; ``timing`` is kept apart."""

    spec: dict[str, Any]
    options: dict[str, Any]
    checks: list[dict[str, Any]]
    mission_costs: dict[str, Any]
    points: dict[str, Any]
    winnability: dict[str, dict[str, Any]]
    cards: dict[str, dict[str, Any]]
    modules: dict[str, dict[str, Any]]
    reproducibility: dict[str, Any]
    deals: list[dict[str, Any]]
    timing: dict[str, Any] = field(default_factory=dict)
    #: the expert player's figures (None when only the thoughtful one played)
    expert: dict[str, Any] | None = None

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        out = {
            "format": CHECK_FORMAT,
            "spec": self.spec,
            "options": self.options,
            "reproducibility": self.reproducibility,
            "checks": self.checks,
            "mission_costs": self.mission_costs,
            "points": self.points,
            "winnability": self.winnability,
            "cards": self.cards,
            "modules": self.modules,
            "deals": self.deals,
        }
        if self.expert is not None:
            out["expert"] = self.expert
        if timing:
            out["timing"] = self.timing
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckReport:
        """A report back from its JSON (``rove check --json`` output), e.g. to redraw a PDF."""
        if data.get("format") != CHECK_FORMAT:
            raise ValueError(f"not a {CHECK_FORMAT} report")
        return cls(**{k: data[k] for k in ("spec", "options", "checks", "mission_costs", "points",
                                           "winnability", "cards", "modules", "reproducibility",
                                           "deals")}, timing=data.get("timing", {}),
                   expert=data.get("expert"))

    @property
    def failed(self) -> bool:
        return any(c["status"] == FAIL for c in self.checks)


ProgressFn = Callable[[str, int, int], None]


def plan_tasks(spec: Spec, options: CheckOptions) -> tuple[list[tuple], list[tuple[str, ...]]]:
    """The task list of a run: start arrangements first, then the thoughtful deals by
    difficulty, then the expert's (the same deals).

    A task names the spec by absolute path (workers load it once, and check its
    fingerprint), so every worker must see the file at that path."""
    if spec.path is None:
        raise ValueError("run_check needs a spec loaded from a file (spec.path)")
    path = str(Path(spec.path).resolve())
    fp = spec_fingerprint(spec)
    arrangements = start_arrangements(spec, options.starts, options.seed)
    tasks: list[tuple] = [("starts", path, fp, i, arr, options.mission_node_limit,
                           options.time_limit) for i, arr in enumerate(arrangements)]
    if "thoughtful" in options.players:
        for diff in options.difficulties:
            for i in range(options.deals):
                tasks.append(("deal", path, fp, i, deal_seed(options.seed, i), diff,
                              options.node_limit, options.time_limit))
    if "expert" in options.players:
        for diff in options.difficulties:
            for i in range(options.deals):
                tasks.append(("expert", path, fp, i, deal_seed(options.seed, i), diff,
                              options.expert_node_limit))
    return tasks, arrangements


def run_check(spec: Spec, options: CheckOptions = CheckOptions(), executor: Any = None,
              progress: ProgressFn | None = None) -> CheckReport:
    """Run every check of a spec.  ``executor`` (``rove.executors``) runs the tasks;
    None runs them in this process.  ``progress(group, done, total)`` is called as tasks
    finish, group being ``"starts"`` or a difficulty."""
    from .executors import SerialExecutor

    t0 = time.monotonic()
    tasks, arrangements = plan_tasks(spec, options)
    groups = [t[0] if t[0] == "starts" else t[5] if t[0] == "deal" else f"{t[5]} expert"
              for t in tasks]
    totals: dict[str, int] = {}
    for g in groups:
        totals[g] = totals.get(g, 0) + 1
    done_count = dict.fromkeys(totals, 0)
    if progress:
        for g, n in totals.items():
            progress(g, 0, n)
    results: list[dict[str, Any] | None] = [None] * len(tasks)
    ex = executor if executor is not None else SerialExecutor()
    for i, res in ex.map_unordered(run_task, tasks):
        results[i] = res
        g = groups[i]
        done_count[g] += 1
        if progress:
            progress(g, done_count[g], totals[g])
    assert all(r is not None for r in results)
    kinds = [t[0] for t in tasks]
    starts = [r for r, k in zip(results, kinds) if k == "starts"]
    deals = [r for r, k in zip(results, kinds) if k == "deal"]
    experts = [r for r, k in zip(results, kinds) if k == "expert"]
    report = _aggregate(spec, options, arrangements, starts, deals, experts)  # type: ignore[arg-type]
    report.timing = {
        "seconds_total": round(time.monotonic() - t0, 3),
        "executor": getattr(ex, "name", type(ex).__name__),
        "workers": getattr(ex, "workers", 1),
        "starts_seconds": round(sum(r["seconds"] for r in starts), 3),  # type: ignore[index]
        "deal_seconds": {d: round(sum(r["seconds"] for r in deals if r["difficulty"] == d), 3)  # type: ignore[index]
                         for d in options.difficulties},
        "deal_seconds_max": round(max((r["seconds"] for r in deals), default=0.0), 3),  # type: ignore[index]
    }
    if experts:
        report.timing["expert_seconds"] = {
            d: round(sum(r["seconds"] for r in experts if r["difficulty"] == d), 3)  # type: ignore[index]
            for d in options.difficulties}
        report.timing["expert_seconds_max"] = round(max(r["seconds"] for r in experts), 3)  # type: ignore[index]
    return report


def _aggregate(spec: Spec, options: CheckOptions, arrangements: list[tuple[str, ...]],
               starts: list[dict[str, Any]], deals: list[dict[str, Any]],
               experts: list[dict[str, Any]] | None = None) -> CheckReport:
    codes = set(spec.codes)
    n_mod = len(spec.modules)
    total_arr = math.factorial(n_mod)
    checks: list[dict[str, Any]] = [{
        "id": "spec", "title": "Spec is valid", "status": OK,
        "detail": f"{n_mod} modules, {len(spec.cards)} cards, {spec.missions_to_win} missions to win",
        "items": [],
    }]
    for what, attr in (("mission", "mission"), ("movement", "movement")):
        bad = []
        for c in spec.cards:
            probs = pattern_problems(getattr(c, attr).pattern, codes, n_mod)
            if probs:
                bad.append({"card": c.id, "problems": probs})
        checks.append({
            "id": f"{what}_patterns", "title": f"Every {what} pattern can be matched by a valid layout",
            "status": FAIL if bad else OK,
            "detail": (f"{len(bad)} pattern(s) no valid layout matches" if bad else
                       f"all {len(spec.cards)} {what} patterns are matchable"),
            "items": bad,
        })

    # ---- mission costs from the start arrangements
    per_card: dict[str, dict[str, Any]] = {}
    overall: dict[str, list[int]] = {"with_abilities": [], "no_abilities": []}
    for c in spec.cards:
        entry: dict[str, Any] = {"title": c.mission.title}
        rows = [next(x for x in s["missions"] if x["card"] == c.id) for s in starts]
        for key in ("with_abilities", "no_abilities"):
            costs: list[int] = []
            counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
            at_start = 0
            for row in rows:
                m = row[key]
                counts[m["status"]] += 1
                if m["status"] == "solved":
                    costs.append(m["points"])
                    if m["actions"] == 0:
                        at_start += 1
            overall[key] += costs
            entry[key] = {**counts, "matched_at_start": at_start, **_cost_summary(costs),
                          "histogram": _histogram(costs)}
        entry["reachable_from"] = sum(1 for row in rows if "solved" in
                                      (row["with_abilities"]["status"], row["no_abilities"]["status"]))
        per_card[c.id] = entry
    mission_costs = {
        "arrangements": len(arrangements), "arrangements_possible": total_arr,
        "sampled": len(arrangements) < total_arr,
        "setup": (f"each start arrangement (rows of 3), bare budget of {BARE_BUDGET} points, "
                  "empty hand, goal mission; with_abilities: every ability active; "
                  "no_abilities: every module spent"),
        "overall": {key: {**_cost_summary(v), "histogram": _histogram(v)}
                    for key, v in overall.items()},
        "missions": per_card,
    }
    if not arrangements:
        checks.append({"id": "missions_from_starts", "title": "Every mission is reachable from the starts",
                       "status": SKIPPED, "detail": "no start arrangement solved (starts 0)",
                       "items": []})
    else:
        items = []
        unreachable = []
        n_arr = len(arrangements)
        for cid, e in per_card.items():
            wa, na = e["with_abilities"], e["no_abilities"]
            if e["reachable_from"] == 0 and wa["unknown"] == 0 and na["unknown"] == 0:
                unreachable.append(cid)
                items.append({"card": cid, "title": e["title"], "problem": "unreachable from every start"})
            elif e["reachable_from"] == 0:
                items.append({"card": cid, "title": e["title"],
                              "problem": "not reached from any start within the node limit"})
            elif e["reachable_from"] < n_arr:
                items.append({"card": cid, "title": e["title"],
                              "problem": f"reached from {e['reachable_from']} of {n_arr} starts"})
        unknown = sum(e[k]["unknown"] for e in per_card.values() for k in ("with_abilities", "no_abilities"))
        status = FAIL if unreachable else WARN if (items or unknown) else OK
        if unreachable:
            names = ", ".join(f"{cid} ({per_card[cid]['title']})" for cid in unreachable)
            detail = f"unreachable from every start: {names}"
        else:
            detail = f"every mission reached from {n_arr} start(s)" if not items else \
                f"{len(items)} mission(s) not reached from every start"
        if unknown:
            detail += f"; {unknown} solve(s) hit the node limit (unknown)"
        checks.append({"id": "missions_from_starts",
                       "title": "Every mission is reachable from the starts", "status": status,
                       "detail": detail, "items": items})

    # ---- points against needs
    base = sum(c.movement.points for c in spec.cards)
    bonus = sum(c.movement.bonus for c in spec.cards)
    wa_costs, na_costs = overall["with_abilities"], overall["no_abilities"]
    med_wa = statistics.median(wa_costs) if wa_costs else None
    med_na = statistics.median(na_costs) if na_costs else None
    mtw = spec.missions_to_win
    need_lo = None if med_wa is None else mtw * med_wa
    need_hi = None if med_na is None else mtw * med_na
    points = {"base_total": base, "bonus_total": bonus,
              "base_mean": _r(base / len(spec.cards)), "bonus_mean": _r(bonus / len(spec.cards)),
              "missions_to_win": mtw,
              "median_cost_with_abilities": _r(med_wa), "median_cost_no_abilities": _r(med_na),
              "needed_with_abilities": _r(need_lo), "needed_no_abilities": _r(need_hi),
              "base_ratio": _r(base / need_hi) if need_hi else None,
              "bonus_ratio": _r(bonus / need_hi) if need_hi else None}
    if need_hi is None:
        pstatus, pdetail = SKIPPED, "no mission costs without abilities (no start solved)"
    else:
        lo = need_lo if need_lo is not None else 0
        pstatus = FAIL if bonus < lo else WARN if base < need_hi else OK
        pdetail = (f"deck points: base {base}, bonus {bonus}; {mtw} missions x median cost "
                   f"{med_na:g} without abilities = {need_hi:g}"
                   + ("" if med_wa is None else f" ({need_lo:g} with every ability)"))
    checks.append({"id": "points", "title": "The deck's points cover the missions' needs",
                   "status": pstatus, "detail": pdetail, "items": []})

    # ---- winnability
    winnability: dict[str, dict[str, Any]] = {}
    for d in options.difficulties if "thoughtful" in options.players else ():
        rs = [r for r in deals if r["difficulty"] == d]
        n = len(rs)
        won = sum(r["status"] == "solved" for r in rs)
        lost = sum(r["status"] == "unsolvable" for r in rs)
        unk = n - won - lost
        decided = won + lost
        lo, hi = wilson(won, decided)
        blo, bhi = outcome_bounds(won, unk, n)
        reached = [r["deepest"] for r in rs if r["status"] == "unsolvable" and r["deepest"] is not None]
        winnability[d] = {
            "deals": n, "solved": won, "unsolvable": lost, "unknown": unk, "decided": decided,
            "win_rate": _r(won / decided) if decided else None,
            "wilson95": [_r(lo), _r(hi)] if decided else None,
            "bounds": [_r(blo), _r(bhi)],
            "unknown_by_limit": {"nodes": sum(r["limit"] == "nodes" for r in rs),
                                 "time": sum(r["limit"] == "time" for r in rs)},
            "lost_missions_done_mean": _r(statistics.fmean(reached)) if reached else None,
            "nodes_total": sum(r["nodes"] for r in rs),
        }

    # ---- per card
    wins = [r for r in deals if r["status"] == "solved"]
    losses = [r for r in deals if r["status"] == "unsolvable"]
    cards: dict[str, dict[str, Any]] = {}
    for c in spec.cards:
        blocked = {d: sum(r["blocker"] == c.id for r in losses if r["difficulty"] == d)
                   for d in options.difficulties}
        total_blocked = sum(blocked.values())
        plays = sum(r["plays"].get(c.id, 0) for r in wins)
        bplays = sum(r["bonus_plays"].get(c.id, 0) for r in wins)
        cards[c.id] = {
            "title": c.mission.title,
            "base": c.movement.points, "bonus": c.movement.bonus,
            "mission_cost_mean": per_card[c.id]["with_abilities"]["mean"],
            "mission_cost_mean_no_abilities": per_card[c.id]["no_abilities"]["mean"],
            "blocked": blocked, "blocked_total": total_blocked,
            "blocked_share": _r(total_blocked / len(losses)) if losses else None,
            "plays": plays, "bonus_plays": bplays,
            "bonus_share": _r(bplays / plays) if plays else None,
            "wins_with_bonus": sum(1 for r in wins if r["bonus_plays"].get(c.id)),
        }
    blockers_unknown = sum(1 for r in losses if r["blocker"] is None)

    # ---- per module
    modules: dict[str, dict[str, Any]] = {}
    for m in spec.modules:
        direct = sum(r["ability_uses"].get(m.code, 0) for r in wins)
        as_gripper = sum(v for r in wins for k, v in r["ability_uses"].items()
                         if k.startswith(f"{m.code}>"))
        via = sum(v for r in wins for k, v in r["ability_uses"].items()
                  if k.endswith(f">{m.code}"))
        used_in = sum(1 for r in wins if any(k == m.code or k.startswith(f"{m.code}>")
                                             or k.endswith(f">{m.code}") for k in r["ability_uses"]))
        modules[m.code] = {
            "name": m.name, "ability": m.ability,
            "uses": direct + as_gripper, "triggered_via_gripper": via,
            "wins_using": used_in, "wins_using_share": _r(used_in / len(wins)) if wins else None,
        }

    time_limited = sum(r["limit"] == "time" for r in deals)
    time_limited += sum(m[k]["limit"] == "time" for s in starts for m in s["missions"]
                        for k in ("with_abilities", "no_abilities"))
    reproducibility = {
        "primary_limit": "nodes",
        "time_limited": time_limited,
        "reproducible": time_limited == 0,
        "note": ("every solve is bounded by a node count, so these figures do not depend on "
                 "the machine, the workers or their timing; the time limit is only a safety net"
                 + ("" if time_limited == 0 else
                    f"; {time_limited} solve(s) stopped at the time limit, so a rerun may differ")),
        "blockers_unknown": blockers_unknown,
    }
    deal_rows = [{k: v for k, v in r.items() if k != "seconds"} for r in deals]
    expert = (_expert_section(spec, options, winnability, deals, experts or [])
              if "expert" in options.players else None)
    return CheckReport(
        spec={"name": spec.name, "modules": [m.code for m in spec.modules],
              "cards": [c.id for c in spec.cards], "missions_to_win": spec.missions_to_win},
        options={**options.to_json(), "rules": _default_rules()},
        checks=checks, mission_costs=mission_costs, points=points, winnability=winnability,
        cards=cards, modules=modules, reproducibility=reproducibility, deals=deal_rows,
        expert=expert,
    )


EXPERT_DESCRIPTION = (
    "a fixed, deterministic player that sees what a person at the table sees (layout, spent "
    "modules, hand, current card and points, mission, the top card of the draw pile, the "
    "discard pile) and never the order of the deck below its top card; for each mission it "
    "plays the completion that keeps the most for the next mission (rove.solve.expert); a "
    "game it cannot finish within its node budget counts as lost")
#: gaps (thoughtful minus expert win rate, in points) below which foresight matters little,
#: and from which it matters a lot
FORESIGHT_LITTLE, FORESIGHT_LOT = 5.0, 20.0


def foresight_sentence(gaps: dict[str, float | None], unknown: int = 0) -> str:
    """What the gap between the two win rates means, in one sentence (``unknown``: deals
    the thoughtful solver left undecided, which make its rate, and so the gap, uncertain)."""
    known = {d: g for d, g in gaps.items() if g is not None}
    if not known:
        return ("With no decided deal for both players there is no gap between the thoughtful "
                "and the expert win rate to read.")
    parts = ", ".join(f"{g:.1f} points on {d}" for d, g in known.items())
    top = max(known.values())
    verdict = ("matters little: a good player who cannot see the deck wins nearly as often as "
               "one who could" if top < FORESIGHT_LITTLE else
               "matters a lot: much of what the thoughtful player wins comes from knowing the "
               "order of the deck, so its win rate overstates what players will see"
               if top >= FORESIGHT_LOT else
               "matters moderately: players will win noticeably less often than the "
               "thoughtful figure")
    caveat = ("" if not unknown else
              f" (with {unknown} deal(s) the thoughtful solver left unknown, a larger "
              "--node-limit would make the gap surer)")
    return (f"The gap between the thoughtful win rate (the whole draw order known: an upper "
            f"bound for anyone) and the expert's (a good player who sees only the table) is "
            f"what foresight is worth in this deck, {parts}, so foresight {verdict}{caveat}.")


def _expert_section(spec: Spec, options: CheckOptions, winnability: dict[str, dict[str, Any]],
                    deals: list[dict[str, Any]], experts: list[dict[str, Any]]) -> dict[str, Any]:
    """The expert's figures: win rate per difficulty beside the thoughtful one, how its
    games were lost, and per card the missions it failed and the bonus it used."""
    thoughtful = {(r["difficulty"], r["index"]): r["status"] for r in deals}
    win: dict[str, dict[str, Any]] = {}
    gaps: dict[str, float | None] = {}
    for d in options.difficulties:
        rs = [r for r in experts if r["difficulty"] == d]
        n = len(rs)
        won = sum(r["status"] == "won" for r in rs)
        lo, hi = wilson(won, n)
        reached = [r["missions_done"] for r in rs if r["status"] == "lost"]
        paired = [thoughtful.get((d, r["index"])) for r in rs if r["status"] == "won"]
        t_rate = winnability.get(d, {}).get("win_rate")
        rate = _r(won / n) if n else None
        gap = None if t_rate is None or rate is None else round(100 * (t_rate - rate), 1)
        gaps[d] = gap
        win[d] = {
            "deals": n, "won": won, "lost": n - won,
            "win_rate": rate, "wilson95": [_r(lo), _r(hi)] if n else None,
            "lost_by": {k: sum(r["reason"] == k for r in rs) for k in ("stuck", "budget", "no_mission")},
            "lost_missions_done_mean": _r(statistics.fmean(reached)) if reached else None,
            "thoughtful_win_rate": t_rate,
            "gap_points": gap,
            # a deal the expert wins is winnable: its plan, replayed by the engine, proves it
            "wins_thoughtful_unknown": sum(p == "unknown" for p in paired),
            "wins_thoughtful_unsolvable": sum(p == "unsolvable" for p in paired),
            "nodes_total": sum(r["nodes"] for r in rs),
        }
    lost = [r for r in experts if r["status"] == "lost"]
    cards: dict[str, dict[str, Any]] = {}
    for c in spec.cards:
        failed = {d: sum(r["failed_mission"] == c.id for r in lost if r["difficulty"] == d)
                  for d in options.difficulties}
        total = sum(failed.values())
        plays = sum(r["plays"].get(c.id, 0) for r in experts)
        bplays = sum(r["bonus_plays"].get(c.id, 0) for r in experts)
        cards[c.id] = {
            "title": c.mission.title, "failed": failed, "failed_total": total,
            "failed_share": _r(total / len(lost)) if lost else None,
            "plays": plays, "bonus_plays": bplays,
            "bonus_share": _r(bplays / plays) if plays else None,
        }
    return {
        "description": EXPERT_DESCRIPTION,
        "node_limit": options.expert_node_limit,
        "winnability": win,
        "foresight": (foresight_sentence(gaps, sum(w["unknown"] for w in winnability.values()))
                      if "thoughtful" in options.players else None),
        "cards": cards,
        "deals": [{k: v for k, v in r.items() if k != "seconds"} for r in experts],
    }


def _histogram(values: Sequence[int]) -> list[int]:
    if not values:
        return []
    out = [0] * (max(values) + 1)
    for v in values:
        out[v] += 1
    return out


def _default_rules() -> dict[str, Any]:
    from .rules import Rules

    return Rules().to_dict()


# --------------------------------------------------------------------------- terminal output


def fmt_pct(x: float | None) -> str:
    """A share as a percentage for tables (terminal and PDF); None as a dash."""
    return "-" if x is None else f"{100 * x:.1f}%"


def fmt_num(x: float | int | None) -> str:
    """A figure for tables: floats to two decimals at most; None as a dash."""
    if x is None:
        return "-"
    return f"{round(x, 2):g}" if isinstance(x, float) else str(x)


_STATUS_STYLE = {OK: "green", WARN: "yellow", FAIL: "bold red", SKIPPED: "dim"}


@contextmanager
def progress_bar(console: Any) -> Iterator[ProgressFn]:
    """A Rich progress bar (one line per group: mission costs, each difficulty) fed by
    ``run_check``'s progress callback; it disappears when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:>13}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        ids: dict[str, Any] = {}

        def update(group: str, done: int, total: int) -> None:
            if group not in ids:
                ids[group] = bar.add_task("mission costs" if group == "starts" else group, total=total)
            bar.update(ids[group], completed=done)

        yield update


def _span(lo: float | None, hi: float | None) -> str:
    return "-" if lo is None or hi is None else f"{100 * lo:.1f}-{100 * hi:.1f}%"


def print_report(report: CheckReport, console: Any) -> None:
    """The report as Rich tables (compact enough for an 80-column terminal)."""
    from rich import box
    from rich.table import Table

    def table(title: str, *cols: str, left: int = 1) -> Table:
        # collapsed padding: the interval columns keep their figures in 80 columns
        t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True, title_style="bold")
        for i, col in enumerate(cols):
            t.add_column(col, justify="left" if i < left else "right")
        return t

    data = report.to_json(timing=False)
    opts = data["options"]
    diffs = opts["difficulties"]
    console.print(f"[bold]rove check[/bold]: {data['spec']['name']} "
                  f"({len(data['spec']['modules'])} modules, {len(data['spec']['cards'])} cards, "
                  f"{data['spec']['missions_to_win']} missions to win); seed {opts['seed']}, "
                  f"{opts['deals']} deal(s) per difficulty, node limit {opts['node_limit']}"
                  + (f"; players: {', '.join(opts['players'])}" if "players" in opts else ""))

    t = table("Static checks", "status", "check", left=2)
    for c in data["checks"]:
        detail = c["detail"]
        for it in c["items"]:
            detail += f"\n  {it['card']}: " + (it.get("problem") or "; ".join(it.get("problems", [])))
        t.add_row(f"[{_STATUS_STYLE[c['status']]}]{c['status']}[/]", f"{c['title']}\n[dim]{detail}[/dim]")
    console.print(t)

    mc = data["mission_costs"]
    if mc["arrangements"]:
        t = table(f"Mission cost (points) from {mc['arrangements']} of {mc['arrangements_possible']} "
                  "starts: min/median/max (mean)", "card", "mission", "with abilities",
                  "no abilities", "reached", "unknown", left=2)
        for cid, e in mc["missions"].items():
            cells = []
            for k in ("with_abilities", "no_abilities"):
                x = e[k]
                cells.append("-" if x["min"] is None else
                             f"{fmt_num(x['min'])}/{fmt_num(x['median'])}/{fmt_num(x['max'])} ({fmt_num(x['mean'])})")
            t.add_row(cid, e["title"], *cells, str(e["reachable_from"]),
                      str(e["with_abilities"]["unknown"] + e["no_abilities"]["unknown"]))
        console.print(t)

    if data["winnability"]:
        t = table("Winnability (win rate among decided deals; unknowns apart)", "difficulty", "deals",
                  "won", "lost", "unknown", "win rate", "Wilson 95%", "bounds")
        for d, w in data["winnability"].items():
            ci = w["wilson95"] or [None, None]
            t.add_row(d, str(w["deals"]), str(w["solved"]), str(w["unsolvable"]), str(w["unknown"]),
                      fmt_pct(w["win_rate"]), _span(*ci), _span(*w["bounds"]))
        console.print(t)
        unknown = sum(w["unknown"] for w in data["winnability"].values())
        if unknown:
            console.print(f"[dim]{unknown} deal(s) unknown (limit reached): the true win rate lies "
                          "within the bounds, which a larger --node-limit narrows.[/dim]")
    ex = data.get("expert")
    if ex is not None:
        t = table("Thoughtful (draw order known) and expert (sees only the table) win rates",
                  "difficulty", "thoughtful", "Wilson 95%", "expert", "Wilson 95%", "won",
                  "lost", "gap")
        for d, w in ex["winnability"].items():
            tw = data["winnability"].get(d)
            tci = (tw["wilson95"] if tw else None) or [None, None]
            t.add_row(d, fmt_pct(w["thoughtful_win_rate"]), _span(*tci), fmt_pct(w["win_rate"]),
                      _span(*(w["wilson95"] or [None, None])), str(w["won"]), str(w["lost"]),
                      "-" if w["gap_points"] is None else f"{w['gap_points']:.1f}")
        console.print(t)
        lost_by = {k: sum(w["lost_by"][k] for w in ex["winnability"].values())
                   for k in ("stuck", "budget", "no_mission")}
        console.print(f"[dim]gap: thoughtful minus expert, in points of win rate. The expert's "
                      f"games are all decided: lost {lost_by['stuck']} stuck (no completion from "
                      f"what it holds), {lost_by['budget']} at its node limit "
                      f"({ex['node_limit']} a deal), {lost_by['no_mission']} with no mission "
                      "left to reveal.[/dim]")
        if ex["foresight"]:
            console.print(ex["foresight"])

    t = table("Cards", "card", "mission", "cost", "pts", f"blocked ({'/'.join(d[0] for d in diffs)})",
              "share", "plays", "bonus", left=2)
    for cid, c in data["cards"].items():
        t.add_row(cid, c["title"], f"{fmt_num(c['mission_cost_mean'])}/{fmt_num(c['mission_cost_mean_no_abilities'])}",
                  f"{c['base']}/{c['bonus']}", "/".join(str(c["blocked"][d]) for d in diffs),
                  fmt_pct(c["blocked_share"]), str(c["plays"]), f"{c['bonus_plays']} ({fmt_pct(c['bonus_share'])})")
    console.print(t)
    console.print("[dim]cost: mean optimal points from the starts with/without abilities; pts: "
                  "base/bonus; blocked: lost deals whose deepest line stopped at this mission; "
                  "plays/bonus: movement plays in the winning plans found.[/dim]")

    if ex is not None:
        t = table("Cards for the expert", "card", "mission",
                  f"failed ({'/'.join(d[0] for d in diffs)})", "share", "plays", "bonus", left=2)
        for cid, c in ex["cards"].items():
            t.add_row(cid, c["title"], "/".join(str(c["failed"][d]) for d in diffs),
                      fmt_pct(c["failed_share"]), str(c["plays"]),
                      f"{c['bonus_plays']} ({fmt_pct(c['bonus_share'])})")
        console.print(t)
        console.print("[dim]failed: the expert's lost games that ended on this mission; "
                      "plays/bonus: movement plays in all its games and how many took the "
                      "bonus.[/dim]")

    t = table("Modules (ability uses in the winning plans found)", "module", "name", "ability",
              "uses", "via Gripper", "wins using", left=3)
    for code, m in data["modules"].items():
        t.add_row(code, m["name"], m["ability"], str(m["uses"]), str(m["triggered_via_gripper"]),
                  f"{m['wins_using']} ({fmt_pct(m['wins_using_share'])})")
    console.print(t)

    rep = data["reproducibility"]
    console.print(f"[dim]{rep['note']}.[/dim]")
    if rep["blockers_unknown"]:
        console.print(f"[dim]{rep['blockers_unknown']} lost deal(s) without a named blocker.[/dim]")
    timing = report.timing
    if timing:
        console.print(f"[dim]{timing['seconds_total']:.1f} s on {timing['workers']} worker(s) "
                      f"({timing['executor']}).[/dim]")
