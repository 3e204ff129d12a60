"""Advice a designer can act on: the cards and missions that most change the win rate,
one line each with what to try, read from a check's figures (its JSON).

The lines come from five readings, strongest first, at most ``MAX_LINES``:

* *levers* (with ``--sensitivity``): the cards whose points or bonus move the expert's
  win rate most, when the move's 95% interval is clear of zero;
* *walls*: missions that end a large share of the lost games (the expert's when it
  played, else the thoughtful solver's blockers): at least ``WALL_SHARE`` times their
  fair share and ``WALL_MIN`` games;
* *a stall*: with every module spent the median mission costs more points from the
  starts than any one card pays, so once its abilities are used the deck can hardly go
  on (a completion draws one card); a deck-wide line, whose ``card`` is None;
* *dear missions*: missions whose mean cost from the starts is at least ``DEAR`` times the
  median mission's;
* *dead bonuses*: cards the expert played often (``BONUS_MIN_PLAYS``) and never for
  their bonus.

Each line is plain data (``kind``, ``card``, ``text``) so the terminal, the JSON and the
PDF say the same thing.
"""

from __future__ import annotations

import statistics
from typing import Any

MAX_LINES = 8
WALL_SHARE = 2.0
WALL_MIN = 3
DEAR = 1.75
BONUS_MIN_PLAYS = 10
MAX_LEVERS = 3


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def advice(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The advice lines of a check report's JSON (``CheckReport.to_json``)."""
    out: list[dict[str, Any]] = []
    out += _levers(data)
    out += _walls(data)
    out += _stall(data)
    out += _dear(data)
    out += _dead_bonuses(data)
    return out[:MAX_LINES]


def _levers(data: dict[str, Any]) -> list[dict[str, Any]]:
    sens = data.get("sensitivity")
    if not sens:
        return []
    ranked = []
    for cid, row in sens["cards"].items():
        best = None
        for key in ("points_plus", "points_minus", "bonus_plus", "bonus_minus"):
            m = row.get(key)
            if m is None or m["ci95"][0] <= 0 <= m["ci95"][1]:
                continue  # not clear of zero: no lever to name
            if best is None or abs(m["diff"]) > abs(best[1]["diff"]):
                best = (key, m)
        if best is not None:
            ranked.append((-abs(best[1]["diff"]), cid, best, row))
    lines = []
    for _, cid, (key, m), row in sorted(ranked)[:MAX_LEVERS]:
        what = "points" if key.startswith("points") else "bonus"
        now = row["base"] if what == "points" else row["bonus"]
        step = 1 if key.endswith("plus") else -1
        lo, hi = m["ci95"]
        lines.append({"kind": "lever", "card": cid, "text": (
            f"{cid} {what} {now}->{now + step} moves the expert's win rate "
            f"{_pts(m['diff'])} points ({_pts(lo)} to {_pts(hi)}): a strong lever; "
            f"{'lower' if m['diff'] * step > 0 else 'raise'} its {what} to make the deck harder, "
            f"{'raise' if m['diff'] * step > 0 else 'lower'} it to make it easier")})
    return lines


def _walls(data: dict[str, Any]) -> list[dict[str, Any]]:
    ex = data.get("expert")
    if ex is not None:
        rows = {cid: (c["failed_total"], c["title"]) for cid, c in ex["cards"].items()}
        who = "the expert's"
    else:
        rows = {cid: (c["blocked_total"], c["title"]) for cid, c in data["cards"].items()}
        who = "the thoughtful solver's"
    total = sum(n for n, _ in rows.values())
    if not total or not rows:
        return []
    fair = total / len(rows)
    costs = _costs(data)
    med = statistics.median(costs.values()) if costs else None
    lines = []
    for cid, (n, title) in sorted(rows.items(), key=lambda kv: (-kv[1][0], kv[0])):
        if n < WALL_MIN or n < WALL_SHARE * fair:
            continue
        cost = costs.get(cid)
        dear = (f"; it costs {cost:g} points from the starts (median mission {med:g})"
                if cost is not None and med is not None and cost > med else "")
        lines.append({"kind": "wall", "card": cid, "text": (
            f"{cid} ({title}) ends {n} of {total} of {who} lost games ({100 * n / total:.0f}%, "
            f"{n / fair:.1f} times its share){dear}: a cheaper mission pattern, or more points "
            "on the cards that reach it")})
    return lines


def _stall(data: dict[str, Any]) -> list[dict[str, Any]]:
    costs = data["mission_costs"]["overall"]["no_abilities"]  # with every module spent
    med = costs["median"]
    top = max((max(c["base"], c["bonus"]) for c in data["cards"].values()), default=None)
    if med is None or top is None or med <= top:
        return []
    return [{"kind": "stall", "card": None, "text": (
        f"With every module spent, the median mission costs {med:g} points from the starts "
        f"(up to {costs['max']:g}), more than any card pays ({top} at most), and a completion "
        "draws one card: once its abilities are used the deck stalls; give the spent sides "
        "arrows that move further, or make the missions cheaper to reach with them")}]


def _costs(data: dict[str, Any]) -> dict[str, float]:
    """Each mission's mean cost from the starts (with abilities; without where none)."""
    out = {}
    for cid, e in data["mission_costs"].get("missions", {}).items():
        mean = e["with_abilities"]["mean"]
        if mean is None:
            mean = e["no_abilities"]["mean"]
        if mean is not None:
            out[cid] = float(mean)
    return out


def _dear(data: dict[str, Any]) -> list[dict[str, Any]]:
    costs = _costs(data)
    if len(costs) < 3:
        return []
    med = statistics.median(costs.values())
    if med <= 0:
        return []
    lines = []
    for cid, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        if cost >= DEAR * med:
            lines.append({"kind": "dear", "card": cid, "text": (
                f"{cid} costs {cost / med:.1f} times the median mission ({cost:g} against "
                f"{med:g} points from the starts): a cheaper pattern, or more points in the deck")})
    return lines


def _dead_bonuses(data: dict[str, Any]) -> list[dict[str, Any]]:
    ex = data.get("expert")
    if ex is None:
        return []
    lines = []
    for cid, c in ex["cards"].items():
        if c["plays"] >= BONUS_MIN_PLAYS and c["bonus_plays"] == 0:
            lines.append({"kind": "bonus", "card": cid, "text": (
                f"{cid}'s bonus was never taken in {c['plays']} plays by the expert: an easier "
                "movement pattern, or move the bonus into its base points")})
    return lines
