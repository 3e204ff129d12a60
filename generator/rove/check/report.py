"""The figures of a check: :class:`CheckReport` (plain data, the JSON of ``rove check
--json``) and the functions that compute it from the tasks' results, one a report section.

The win rate is taken among the decided deals with a 95% Wilson score interval, and the
unknowns are reported apart, never counted as wins or losses; the bounds ``wins / N`` and
``(wins + unknown) / N`` hold whatever the unknowns turn out to be.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..spec import Spec, pattern_problems
from .options import BARE_BUDGET, CheckOptions
from .stats import Z95 as Z95
from .stats import wilson as wilson
from .stats import wilson_union as wilson_union

CHECK_FORMAT = "rove-check/1"
#: a deal row's fields that depend on the machine: kept out of the report's figures
_TIMING = frozenset({"seconds", "cpu_seconds"})

OK, WARN, FAIL, SKIPPED = "ok", "warn", "fail", "skipped"

#: one row of task results (a plain dict, as a worker returns it)
Row = dict[str, Any]


# --------------------------------------------------------------------------- statistics


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


def _histogram(values: Sequence[int]) -> list[int]:
    if not values:
        return []
    out = [0] * (max(values) + 1)
    for v in values:
        out[v] += 1
    return out


def _default_rules() -> dict[str, Any]:
    from ..rules import Rules

    return Rules().to_dict()


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
    #: per-card sensitivity of the expert's win rate (``--sensitivity``; .sensitivity)
    sensitivity: dict[str, Any] | None = None
    #: what a designer may try, one line each (from the sensitivity and the failures)
    advice: list[dict[str, Any]] | None = None
    #: set when the run was interrupted: what the figures cover (None: the whole run)
    partial: dict[str, Any] | None = None
    #: per difficulty, the verdict on the expert's win rate against the target band
    #: (``rove.check.verdict``; None when the expert did not play)
    verdict: dict[str, dict[str, Any]] | None = None

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        out = {
            "format": CHECK_FORMAT,
            "spec": self.spec,
            "options": self.options,
            **({} if self.verdict is None else {"verdict": self.verdict}),
            "reproducibility": self.reproducibility,
            "checks": self.checks,
            "mission_costs": self.mission_costs,
            "points": self.points,
            "winnability": self.winnability,
            "cards": self.cards,
            "modules": self.modules,
            "deals": self.deals,
        }
        if self.partial is not None:
            out["partial"] = self.partial
        if self.expert is not None:
            out["expert"] = self.expert
        if self.sensitivity is not None:
            out["sensitivity"] = self.sensitivity
        if self.advice is not None:
            out["advice"] = self.advice
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
                   expert=data.get("expert"), sensitivity=data.get("sensitivity"),
                   advice=data.get("advice"), partial=data.get("partial"), verdict=data.get("verdict"))

    def refresh_advice(self) -> None:
        """Read the advice lines again from the figures (after a sensitivity is added: the
        verdict's levers name its strongest step too)."""
        from .advice import advice
        from .verdict import relever

        if self.verdict is not None:
            relever(self.verdict, self.sensitivity)
        self.advice = None
        self.advice = advice(self.to_json(timing=False))

    @property
    def failed(self) -> bool:
        return any(c["status"] == FAIL for c in self.checks)


def aggregate(spec: Spec, options: CheckOptions, arrangements: list[tuple[str, ...]],
              starts: list[Row], deals: list[Row], experts: list[Row] | None = None) -> CheckReport:
    """The report from the tasks' results (each list in task order)."""
    checks = static_checks(spec)
    mission_costs, overall = mission_cost_section(spec, arrangements, starts)
    checks.append(reach_check(mission_costs["missions"], len(arrangements)))
    points, points_check = points_section(spec, overall)
    checks.append(points_check)
    winnability = winnability_section(options, deals)
    expert = (expert_section(spec, options, winnability, deals, experts or [])
              if "expert" in options.players else None)
    report = CheckReport(
        spec={"name": spec.name, "modules": [m.code for m in spec.modules],
              "cards": [c.id for c in spec.cards], "missions_to_win": spec.missions_to_win},
        options={**options.to_json(), "rules": _default_rules()},
        checks=checks, mission_costs=mission_costs, points=points, winnability=winnability,
        cards=card_section(spec, options, deals, mission_costs["missions"]),
        modules=module_section(spec, deals), reproducibility=reproducibility_section(starts, deals),
        deals=[{k: v for k, v in r.items() if k not in _TIMING} for r in deals], expert=expert,
    )
    report.refresh_advice()
    return report


def static_checks(spec: Spec) -> list[Row]:
    """The spec is valid (it loaded), and every mission and movement pattern can be matched
    by a valid layout."""
    codes = set(spec.codes)
    n_mod = len(spec.modules)
    checks: list[Row] = [{
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
    return checks


def _mission_cost_entry(rows: list[Row], key: str) -> tuple[Row, list[int]]:
    """One mission's costs from the starts, with or without abilities (``key``), and the
    solved costs themselves."""
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
    return ({**counts, "matched_at_start": at_start, **_cost_summary(costs),
             "histogram": _histogram(costs)}, costs)


def mission_cost_section(spec: Spec, arrangements: list[tuple[str, ...]], starts: list[Row],
                         ) -> tuple[Row, dict[str, list[int]]]:
    """The optimal cost of every mission from the start arrangements, and every solved
    cost with and without abilities (for the points section)."""
    per_card: dict[str, Row] = {}
    overall: dict[str, list[int]] = {"with_abilities": [], "no_abilities": []}
    for c in spec.cards:
        entry: Row = {"title": c.mission.title}
        rows = [next(x for x in s["missions"] if x["card"] == c.id) for s in starts]
        for key in ("with_abilities", "no_abilities"):
            entry[key], costs = _mission_cost_entry(rows, key)
            overall[key] += costs
        entry["reachable_from"] = sum(1 for row in rows if "solved" in
                                      (row["with_abilities"]["status"], row["no_abilities"]["status"]))
        per_card[c.id] = entry
    total_arr = math.factorial(len(spec.modules))
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
    return mission_costs, overall


def reach_check(per_card: dict[str, Row], n_arr: int) -> Row:
    """The check that every mission is reached from the ``n_arr`` start arrangements."""
    title = "Every mission is reachable from the starts"
    if not n_arr:
        return {"id": "missions_from_starts", "title": title, "status": SKIPPED,
                "detail": "no start arrangement solved (starts 0)", "items": []}
    items = []
    unreachable = []
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
    return {"id": "missions_from_starts", "title": title, "status": status, "detail": detail,
            "items": items}


def points_section(spec: Spec, overall: dict[str, list[int]]) -> tuple[Row, Row]:
    """The deck's points against what the missions need, and the check that they cover it."""
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
    return points, {"id": "points", "title": "The deck's points cover the missions' needs",
                    "status": pstatus, "detail": pdetail, "items": []}


def winnability_section(options: CheckOptions, deals: list[Row]) -> dict[str, Row]:
    """The thoughtful player's win rate per difficulty (empty when it did not play)."""
    winnability: dict[str, Row] = {}
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
            # what stopped the unknown deals: a node or time limit, or (a partial run) Ctrl-C
            # cutting a deal's rungs off, or a deal the run had not reached
            "unknown_by_limit": {k: sum(r["status"] == "unknown" and r["limit"] == k for r in rs)
                                 for k in ("nodes", "time", "interrupted", "not_played")},
            # wins the search left at its limit, proven by the seer's or the expert's
            # replayed plan
            "decided_by_seer": sum(r.get("witness") == "seer" for r in rs),
            "decided_by_expert": sum(r.get("witness") == "expert" for r in rs),
            "decided_by_search": sum(r.get("witness") == "search" for r in rs),
            # the loss proofs' sizes: every exact-search node the deal's ladder spent
            "lost_proof_nodes": [r["nodes"] for r in rs if r["status"] == "unsolvable"],
            "lost_missions_done_mean": _r(statistics.fmean(reached)) if reached else None,
            "nodes_total": sum(r["nodes"] for r in rs),
            **_rerun_seeds(rs),
            **_unknown_section(won, unk, n, rs),
            "unknown_tried": _tried(rs),
        }
    return winnability


def _tried(rs: list[Row]) -> Row:
    """What the ladder tried on a difficulty's deals a limit left unknown: how many the
    seer searched whole (every line it ranks, within fewer nodes than its budget: a
    larger seer finds nothing new), how many it left at its budget, how many the exact
    search left at its node limit, and the largest budget each had."""
    out: Row = {"deals": 0, "seer_whole": 0, "seer_at_budget": 0, "search_at_limit": 0,
                "seer_budget": None, "search_budget": None}
    for r in rs:
        if r["status"] != "unknown" or r["limit"] not in ("nodes", "time"):
            continue
        out["deals"] += 1
        seer = [st for st in r["steps"] if st["solver"] == "seer"]
        search = [st for st in r["steps"] if st["solver"] == "search"]
        if seer:
            last = seer[-1]
            out["seer_whole" if last["nodes"] < last["budget"] else "seer_at_budget"] += 1
            out["seer_budget"] = max(out["seer_budget"] or 0, last["budget"])
        if search:
            out["search_at_limit"] += 1
            out["search_budget"] = max(out["search_budget"] or 0, search[-1]["budget"])
    return out


def tried_sentence(win: dict[str, Row], points: Row) -> str | None:
    """Why the unknown deals stayed undecided, in words: what each rung tried, and the
    deck's points against what its missions need.  Only the exact search proves a loss,
    so a deal no search could exhaust stays unknown, never lost."""
    tried = [w["unknown_tried"] for w in win.values() if w.get("unknown_tried", {}).get("deals")]
    if not tried:
        return None
    n = sum(t["deals"] for t in tried)
    whole, at_budget = sum(t["seer_whole"] for t in tried), sum(t["seer_at_budget"] for t in tried)
    search = sum(t["search_at_limit"] for t in tried)
    seer_b = max((t["seer_budget"] or 0 for t in tried), default=0)
    search_b = max((t["search_budget"] or 0 for t in tried), default=0)
    parts = []
    if whole:
        parts.append(f"the seer tried every line it ranks on {whole} (inside its {seer_b:,}-node budget) "
                     "and found no win")
    if at_budget:
        parts.append(f"the seer ran out of its {seer_b:,} nodes on {at_budget}")
    if search:
        parts.append(f"the exact search, the only proof of a loss, stopped at its {search_b:,} nodes on {search}")
    need = points.get("needed_no_abilities")
    pts = (f"; the deck's cards pay {points['base_total']} base and {points['bonus_total']} bonus points "
           f"in all against {need:g} its {points['missions_to_win']} missions need by the median cost "
           "with every module spent (a reading, not a proof: spent cards come back when the draw "
           "pile is remade, and abilities move modules for nothing)" if need is not None else "")
    return (f"Why {n} deal(s) stayed unknown: {'; '.join(parts)}{pts}. A larger --node-limit "
            "gives the exact search the chance to prove them lost.")


def ladder_sentence(win: dict[str, Row]) -> str | None:
    """One sentence on who decided the thoughtful player's deals (the terminal's and the
    PDF's), or None when none was decided."""
    expert = sum(w.get("decided_by_expert", 0) for w in win.values())
    seer = sum(w.get("decided_by_seer", 0) for w in win.values())
    search = sum(w.get("decided_by_search", 0) for w in win.values())
    proofs = [n for w in win.values() for n in w.get("lost_proof_nodes", [])]
    if not expert + seer + search:
        return None
    lost = (f", {len(proofs)} of them proven lost (the largest proof {max(proofs):,} nodes)"
            if proofs else ", none proven lost")
    parts = [f"{expert} by the expert's own win (no search needed)" if expert else "",
             f"{seer} by the seer (the expert's judgement with the draw order known, backtracking)" if seer else "",
             f"{search} by the exact search{lost}" if search else "no loss proven"]
    return (f"Decided in order of cost: {', '.join(p for p in parts if p)}; every win's plan is replayed by "
            "the rules engine, and only the exact search proves a loss.")


def unknown_sentences(win: dict[str, Row]) -> list[str]:
    """What the thoughtful player's unknown deals are, in words (the terminal's and the
    PDF's): those a limit stopped (which a larger limit narrows), those Ctrl-C cut off
    and those an interrupted run never reached (neither of which reached any limit)."""
    by = {k: sum(w["unknown_by_limit"].get(k, 0) for w in win.values())
          for k in ("nodes", "time", "interrupted", "not_played")}
    out = []
    limited = by["nodes"] + by["time"]
    if limited:
        out.append(f"{limited} deal(s) unknown (limit reached): the true win rate lies within the "
                   "bounds, which a larger --node-limit narrows.")
    if by["interrupted"]:
        out.append(f"{by['interrupted']} deal(s) interrupted: Ctrl-C stopped their searches.")
    if by["not_played"]:
        out.append(f"{by['not_played']} deal(s) not played: the run was interrupted before the "
                   "thoughtful player reached them.")
    return out


def _unknown_section(won: int, unk: int, n: int, rs: list[Row]) -> Row:
    """The interval over all deals (``wilson_union``) and how far the unknown deals'
    searches got: the most and the mean missions completed on their deepest lines."""
    as_lost, as_won = wilson(won, n), wilson(won + unk, n)
    depths = [r["deepest"] for r in rs if r["status"] == "unknown" and r["deepest"] is not None]
    return {"wilson95_all": [_r(x) for x in wilson_union(won, unk, n)] if n else None,
            "wilson95_unknowns_lost": [_r(x) for x in as_lost] if n else None,
            "wilson95_unknowns_won": [_r(x) for x in as_won] if n else None,
            "unknown_missions_done_max": max(depths) if depths else None,
            "unknown_missions_done_mean": _r(statistics.fmean(depths)) if depths else None}


def _rerun_seeds(rs: list[Row]) -> Row:
    """The seeds of a difficulty's lost and unknown deals, in deal order: each re-runs
    alone (``RERUN``), so a user can check a loss or push an unknown further."""
    return {"lost_seeds": [r["seed"] for r in rs if r["status"] == "unsolvable"],
            "unknown_seeds": [r["seed"] for r in rs if r["status"] == "unknown"]}


#: how one deal of a check is played again on its own (the check deals with the same
#: ``rove.generators.deals.deal`` as ``rove deal``, from the seed it lists)
RERUN = ("rove deal --spec SPEC --seed SEED --difficulty DIFFICULTY -o deal.yaml, then "
         "rove solve deal.yaml --node-limit NODE_LIMIT --seer-node-limit SEER_NODE_LIMIT: the "
         "same deal and, with the check's node limits, the same verdict")


def _card_counts(card: str, difficulties: Sequence[str], ended: list[Row], key: str,
                 played: list[Row]) -> tuple[dict[str, int], int, int, int]:
    """Per difficulty, the games of ``ended`` whose ``key`` names the card, and their total;
    the card's plays and bonus plays over the games of ``played``."""
    by_difficulty = {d: sum(r[key] == card for r in ended if r["difficulty"] == d) for d in difficulties}
    plays = sum(r["plays"].get(card, 0) for r in played)
    bplays = sum(r["bonus_plays"].get(card, 0) for r in played)
    return by_difficulty, sum(by_difficulty.values()), plays, bplays


def card_section(spec: Spec, options: CheckOptions, deals: list[Row],
                 per_card: dict[str, Row]) -> dict[str, Row]:
    """Per card: its mission's cost, the lost deals it blocked, its plays in the wins."""
    wins = [r for r in deals if r["status"] == "solved"]
    losses = [r for r in deals if r["status"] == "unsolvable"]
    cards: dict[str, Row] = {}
    for c in spec.cards:
        blocked, total_blocked, plays, bplays = _card_counts(c.id, options.difficulties, losses,
                                                             "blocker", wins)
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
    return cards


def module_section(spec: Spec, deals: list[Row]) -> dict[str, Row]:
    """Per module: its ability's uses in the wins (a use through Gripper counts for
    Gripper and, as triggered via Gripper, for the module it triggered)."""
    wins = [r for r in deals if r["status"] == "solved"]
    modules: dict[str, Row] = {}
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
    return modules


def reproducibility_section(starts: list[Row], deals: list[Row]) -> Row:
    """Whether the figures can depend on timing (a solve stopped by the time limit), and
    how many lost deals have no named blocker."""
    time_limited = sum(r["limit"] == "time" for r in deals)
    time_limited += sum(m[k]["limit"] == "time" for s in starts for m in s["missions"]
                        for k in ("with_abilities", "no_abilities"))
    return {
        "primary_limit": "nodes",
        "time_limited": time_limited,
        "reproducible": time_limited == 0,
        "note": ("every solve is bounded by a node count, so these figures do not depend on "
                 "the machine, the workers or their timing; the time limit is only a safety net"
                 + ("" if time_limited == 0 else
                    f"; {time_limited} solve(s) stopped at the time limit, so a rerun may differ")),
        "blockers_unknown": sum(1 for r in deals if r["status"] == "unsolvable" and r["blocker"] is None),
        "rerun": RERUN,
    }


EXPERT_DESCRIPTION = (
    "a fixed, deterministic player that sees what a person at the table sees (layout, spent "
    "modules, hand, current card and points, mission, the top card of the draw pile, the "
    "discard pile) and never the order of the deck below its top card; for each mission it "
    "plays the completion that keeps the most for the next mission (rove.solve.expert); a "
    "game it cannot finish within its node budget counts as lost, and is reported apart "
    "as a budget loss")
#: gaps (thoughtful minus expert win rate, in points) below which foresight matters little,
#: and from which it matters a lot
FORESIGHT_LITTLE, FORESIGHT_LOT = 5.0, 20.0
#: decided deals a difficulty needs, for each player (thoughtful: solved or proven
#: unsolvable; expert: not lost at its node budget), before its gap is read: with fewer,
#: a gap of 20 points is within the noise of the two rates (a Wilson interval over 30
#: deals is about 30 points wide)
FORESIGHT_MIN_DEALS = 30


def foresight_sentence(gaps: dict[str, float | None], unknown: int = 0,
                       counts: dict[str, tuple[int, int, int, int]] | None = None) -> str:
    """What the gap between the two win rates means, in one sentence (``unknown``: deals
    the thoughtful solver left undecided, which make its rate, and so the gap, uncertain).

    ``counts`` gives per difficulty (thoughtful won, thoughtful decided, expert won,
    expert games finished within its budget); a difficulty with fewer than
    ``FORESIGHT_MIN_DEALS`` decided for either player is left out of the verdict (a gap
    read from one decided deal is noise), and the numbers behind each gap are stated."""
    thin: list[str] = []
    if counts is not None:
        for d, (_, td, _, ef) in counts.items():
            if d in gaps and gaps[d] is not None and min(td, ef) < FORESIGHT_MIN_DEALS:
                thin.append(d)
    known = {d: g for d, g in gaps.items() if g is not None and d not in thin}
    if not known:
        if thin:
            assert counts is not None
            have = ", ".join(f"{d}: {counts[d][1]} thoughtful, {counts[d][3]} expert" for d in thin)
            return (f"Too few decided deals to read what foresight is worth ({have}; at least "
                    f"{FORESIGHT_MIN_DEALS} of each are needed): run more --deals, or a larger "
                    "--node-limit if the thoughtful deals are unknown.")
        return ("With no decided deal for both players there is no gap between the thoughtful "
                "and the expert win rate to read.")

    def basis(d: str) -> str:
        if counts is None:
            return ""
        tw, td, ew, ef = counts[d]
        return f" (thoughtful {tw} of {td} decided deals won, expert {ew} of {ef} finished games)"

    parts = ", ".join(f"{g:.1f} points on {d}{basis(d)}" for d, g in known.items())
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
    left_out = ("" if not thin else
                f"; {', '.join(thin)} left out, with fewer than {FORESIGHT_MIN_DEALS} decided deals")
    return (f"The gap between the thoughtful win rate (the whole draw order known: an upper "
            f"bound for anyone) and the expert's (a good player who sees only the table) is "
            f"what foresight is worth in this deck, {parts}, so foresight {verdict}{caveat}"
            f"{left_out}.")


def expert_section(spec: Spec, options: CheckOptions, winnability: dict[str, dict[str, Any]],
                    deals: list[dict[str, Any]], experts: list[dict[str, Any]]) -> dict[str, Any]:
    """The expert's figures: win rate per difficulty beside the thoughtful one, how its
    games were lost, and per card the missions it failed and the bonus it used."""
    # the thoughtful player's own verdict: a deal the expert won is never searched
    thoughtful = {(r["difficulty"], r["index"]): "not searched" if r.get("witness") == "expert" else r["status"]
                  for r in deals}
    win: dict[str, dict[str, Any]] = {}
    gaps: dict[str, float | None] = {}
    counts: dict[str, tuple[int, int, int, int]] = {}
    for d in options.difficulties:
        rs = [r for r in experts if r["difficulty"] == d]
        n = len(rs)
        won = sum(r["status"] == "won" for r in rs)
        lo, hi = wilson(won, n)
        budget = sum(r["reason"] == "budget" for r in rs)
        finished = n - budget
        flo, fhi = wilson(won, finished)
        tw = winnability.get(d, {})
        counts[d] = (tw.get("solved", 0), tw.get("decided", 0), won, finished)
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
            # a budget loss is rove's search stopping short, not the player losing: the
            # rate among the games it finished, and the share it did not, say how much
            # the budget weighs on the win rate (which counts them as losses)
            "finished": finished,
            "budget_share": _r(budget / n) if n else None,
            "win_rate_finished": _r(won / finished) if finished else None,
            "wilson95_finished": [_r(flo), _r(fhi)] if finished else None,
            "lost_missions_done_mean": _r(statistics.fmean(reached)) if reached else None,
            "thoughtful_win_rate": t_rate,
            "gap_points": gap,
            # a deal the expert wins is winnable: its plan, replayed by the engine, proves it,
            # so the thoughtful player's solvers never run on it (its verdict is unknown to them)
            "wins_thoughtful_unknown": sum(p in ("unknown", "not searched") for p in paired),
            "wins_thoughtful_unsolvable": sum(p == "unsolvable" for p in paired),
            "nodes_total": sum(r["nodes"] for r in rs),
        }
    lost = [r for r in experts if r["status"] == "lost"]
    cards: dict[str, dict[str, Any]] = {}
    for c in spec.cards:
        failed, total, plays, bplays = _card_counts(c.id, options.difficulties, lost,
                                                    "failed_mission", experts)
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
        "foresight": (foresight_sentence(gaps, sum(w["unknown"] for w in winnability.values()),
                                         counts)
                      if "thoughtful" in options.players else None),
        "cards": cards,
        "deals": [{k: v for k, v in r.items() if k not in _TIMING} for r in experts],
    }


# --------------------------------------------------------------------------- formatting


def fmt_pct(x: float | None) -> str:
    """A share as a percentage for tables (terminal and PDF); None as a dash."""
    return "-" if x is None else f"{100 * x:.1f}%"


def fmt_num(x: float | int | None) -> str:
    """A figure for tables: floats to two decimals at most; None as a dash."""
    if x is None:
        return "-"
    return f"{round(x, 2):g}" if isinstance(x, float) else str(x)
