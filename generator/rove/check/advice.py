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
  their bonus;
* *generous bonuses* and *rich cards*, for a deck to make harder: the bonuses the expert
  takes most often, the cards that pay the most.

Every line that suggests a change says which way it moves the deck (``direction``:
``easier`` or ``harder``), and it agrees with the verdict (``rove.check.verdict``): when
the expert's rate is above the band only lines that make the deck harder are given,
below it only lines that make it easier, and when every difficulty is in the band, or
they pull apart, no card is told to move (a card moves every difficulty alike).  Without
a verdict (the expert did not play) every line is given.

Each line is plain data (``kind``, ``card``, ``text``, ``direction``) so the terminal,
the JSON and the PDF say the same thing.
"""

from __future__ import annotations

import statistics
from typing import Any

from .verdict import EASIER, HARDER, deck_direction

MAX_LINES = 8
WALL_SHARE = 2.0
WALL_MIN = 3
DEAR = 1.75
BONUS_MIN_PLAYS = 10
MAX_LEVERS = 3
#: a bonus the expert takes in at least this share of a card's plays is generous
GENEROUS_SHARE = 0.5
MAX_GENEROUS = 3


def _pts(x: float) -> str:
    return f"{100 * x:+.1f}"


def advice(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The advice lines of a check report's JSON (``CheckReport.to_json``), each agreeing
    with the verdict's direction (see the module's docstring)."""
    verdict = data.get("verdict")
    way = deck_direction(verdict)
    out: list[dict[str, Any]] = []
    out += _levers(data, way)
    out += _walls(data)
    out += _stall(data)
    out += _dear(data)
    out += _dead_bonuses(data)
    if way == HARDER:
        out += _generous(data)
    if verdict:
        out = [a for a in out if a.get("direction") in (None, way)]
        out += _spread(verdict)
    return out[:MAX_LINES]


def _spread(verdict: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One line when the difficulties pull apart (one too easy, another too hard)."""
    easy = [d for d, v in verdict.items() if v["direction"] == HARDER]
    hard = [d for d, v in verdict.items() if v["direction"] == EASIER]
    if not easy or not hard:
        return []
    return [{"kind": "spread", "card": None, "direction": None, "text": (
        f"{', '.join(easy)} is too easy and {', '.join(hard)} too hard: a card's numbers move "
        "every difficulty the same way, so no card change mends both; the difficulties differ "
        "only by the hand dealt, so aim the cards at the middle one (rove tune with a target "
        "for each) or set bands that match the deck's spread (--band)")}]


def _levers(data: dict[str, Any], way: str | None = None) -> list[dict[str, Any]]:
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
            if way is not None and (m["diff"] < 0) != (way == HARDER):
                continue  # it moves the deck the other way
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
        said = (f"{cid} {what} {now}->{now + step} moves the expert's win rate "
                f"{_pts(m['diff'])} points ({_pts(lo)} to {_pts(hi)}): a strong lever; ")
        if way is None:
            said += (f"{'lower' if m['diff'] * step > 0 else 'raise'} its {what} to make the deck harder, "
                     f"{'raise' if m['diff'] * step > 0 else 'lower'} it to make it easier")
        else:
            said += f"pull it to make the deck {way}"
        lines.append({"kind": "lever", "card": cid, "text": said,
                      "direction": HARDER if m["diff"] < 0 else EASIER})
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
            "on the cards that reach it"), "direction": EASIER})
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
        "arrows that move further, or make the missions cheaper to reach with them"), "direction": EASIER}]


def _costs(data: dict[str, Any], key: str = "with_abilities") -> dict[str, float]:
    """Each mission's mean cost from the starts (``key``: with abilities, or with every
    module spent; the other where the first has none)."""
    other = "no_abilities" if key == "with_abilities" else "with_abilities"
    out = {}
    for cid, e in data["mission_costs"].get("missions", {}).items():
        mean = e[key]["mean"]
        if mean is None:
            mean = e[other]["mean"]
        if mean is not None:
            out[cid] = float(mean)
    return out


def _dear(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Missions far dearer than the median one.  Abilities make nearly every mission free
    from the starts on many decks (a median of 0 with abilities), so the reading falls
    back to the costs with every module spent, the cost a late mission faces."""
    costs, how = _costs(data), "from the starts"
    if len(costs) >= 3 and statistics.median(costs.values()) <= 0:
        costs, how = _costs(data, "no_abilities"), "from the starts with every module spent"
    if len(costs) < 3:
        return []
    med = statistics.median(costs.values())
    if med <= 0:
        return []
    lines = []
    for cid, cost in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])):
        if cost >= DEAR * med:
            lines.append({"kind": "dear", "card": cid, "direction": EASIER, "text": (
                f"{cid} costs {cost / med:.1f} times the median mission ({cost:g} against "
                f"{med:g} points {how}): a cheaper pattern, or more points in the deck")})
    return lines


def _generous(data: dict[str, Any]) -> list[dict[str, Any]]:
    """For a deck to make harder: the bonuses the expert takes most often (lower them),
    else the cards that pay the most (lower their points)."""
    ex = data.get("expert")
    if ex is None:
        return []
    cards = data["cards"]
    rows = [(c["bonus_plays"] / c["plays"], cid, c) for cid, c in ex["cards"].items()
            if c["plays"] >= BONUS_MIN_PLAYS and c["bonus_plays"] >= GENEROUS_SHARE * c["plays"]
            and cards[cid]["bonus"] > cards[cid]["base"]]
    lines = []
    for share, cid, c in sorted(rows, key=lambda r: (-r[0], r[1]))[:MAX_GENEROUS]:
        b = cards[cid]["bonus"]
        lines.append({"kind": "generous", "card": cid, "direction": HARDER, "text": (
            f"{cid}'s bonus was taken in {c['bonus_plays']} of {c['plays']} plays by the expert "
            f"({100 * share:.0f}%): lower it ({b}->{b - 1}) to make the deck harder")})
    if lines:
        return lines
    rich = sorted(cards.items(), key=lambda kv: (-(kv[1]["base"] + kv[1]["bonus"]), kv[0]))[:2]
    return [{"kind": "rich", "card": cid, "direction": HARDER, "text": (
        f"{cid} pays {c['base']} points ({c['bonus']} with its bonus), among the most in the deck: "
        "lower its points to make the deck harder")} for cid, c in rich if c["base"] > 0]


def _dead_bonuses(data: dict[str, Any]) -> list[dict[str, Any]]:
    ex = data.get("expert")
    if ex is None:
        return []
    lines = []
    for cid, c in ex["cards"].items():
        if c["plays"] >= BONUS_MIN_PLAYS and c["bonus_plays"] == 0:
            lines.append({"kind": "bonus", "card": cid, "direction": EASIER, "text": (
                f"{cid}'s bonus was never taken in {c['plays']} plays by the expert: an easier "
                "movement pattern, or move the bonus into its base points")})
    return lines
