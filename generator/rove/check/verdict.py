"""The check's verdict: per difficulty, is the expert's win rate too easy, in the band or
too hard, and when has a run played enough deals to say so.

*The stopping rule.*  A sequential check plays deals in seed order, in batches of a fixed
size, and looks at each difficulty's interval after every batch: it stops that
difficulty when the interval lies wholly below, inside or above the target band (the
verdict is *settled*), when it is at most ``NARROW`` wide, or at the cap.  Looking again
and again at an ordinary 95% interval and stopping when it looks good inflates its error
(each look is another chance to be fooled), so each look's interval has a level of its
own, the 5% error shared out over the looks the run may take (``looks = ceil(max_deals
/ batch)``): the last look, at the cap, gets ``LAST_LOOK_SHARE`` of it (4.5%), and each
earlier look an even part of the rest (with the defaults 0.5% over 20 looks).  Each
look's interval is the Clopper-Pearson one at its level, whose chance of missing the
true rate is at most that level's error at every rate (Wilson's swings a little either
side of it), so by the union bound the chance that *any* look's interval misses is at
most their sum, 5%, whatever the stopping rule does with them: the interval reported
where the run stopped is a valid 95% one.  Most of the error goes to the last look
because that is where a deck inside its band ends, so the cap's interval is nearly the
plain one; the default cap (420) is the fewest whole batches at which it is at most
``NARROW`` wide whatever the rate, so every difficulty ends settled or within 10 points.
The earlier looks, stricter, still settle a deck clearly off its band within a few
batches.  (An even split over the looks, Bonferroni's, made the cap's interval as
strict as the others: a cap of 1,100 deals for 10 points.)  With ``--deals N`` there is one
look, the plain Wilson 95% interval, and no stopping.

*Every decision is made on whole batches in seed order*, so the deals played, where each
difficulty stops and every figure are the same with any number of workers and either
executor.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .options import CheckOptions
from .stats import clopper_pearson, wilson

#: an interval at most this wide stops a sequential run even when it straddles an edge
NARROW = 0.10
ALPHA = 0.05
TOO_EASY, IN_BAND, TOO_HARD = "too easy", "in the band", "too hard"
#: the deck-level direction a card-level suggestion must agree with
HARDER, EASIER = "harder", "easier"


#: the share of the 5% error the last look (at the cap) gets; the looks before it share the rest
LAST_LOOK_SHARE = 0.9


def look_alpha(looks: int, last: bool = True) -> float:
    """A look's share of the 5% error when the run may take ``looks`` looks: all of it
    for one; else the last look's ``LAST_LOOK_SHARE`` or, with ``last`` false, each
    earlier look's even part of the rest."""
    if looks <= 1:
        return ALPHA
    if last:
        return ALPHA * LAST_LOOK_SHARE
    return ALPHA * (1 - LAST_LOOK_SHARE) / (looks - 1)


def z_for(looks: int, last: bool = True) -> float:
    """The two-sided normal quantile of a look's level (:func:`look_alpha`): 1.96 for one
    look.  The JSON gives it so that a look's strictness reads at a glance."""
    return statistics.NormalDist().inv_cdf(1 - look_alpha(looks, last) / 2)


def _is_last(n: int, options: CheckOptions) -> bool:
    return options.deals is not None or n >= options.max_deals


def interval(won: int, n: int, options: CheckOptions) -> tuple[float, float]:
    """The expert's interval after ``n`` deals, valid under the stopping rule: with a
    fixed count the plain Wilson 95% interval; in a sequential run the Clopper-Pearson
    interval at the look's share of the error (its coverage is at least its level at
    every rate, which the union bound over the looks needs)."""
    if options.deals is not None:
        return wilson(won, n)
    return clopper_pearson(won, n, look_alpha(options.looks, _is_last(n, options)))


def position(lo: float, hi: float, band: tuple[float, float]) -> str | None:
    """Where an interval lies against a band: wholly above it (too easy), inside it, wholly
    below it (too hard), or None when it straddles an edge."""
    if lo > band[1]:
        return TOO_EASY
    if hi < band[0]:
        return TOO_HARD
    if band[0] <= lo and hi <= band[1]:
        return IN_BAND
    return None


def stop_reason(won: int, n: int, options: CheckOptions, difficulty: str) -> str | None:
    """Why a sequential run stops a difficulty after ``n`` deals (``settled``, ``narrow``
    or ``max_deals``), or None to play another batch."""
    lo, hi = interval(won, n, options)
    if n and position(lo, hi, options.band(difficulty)) is not None:
        return "settled"
    if n and hi - lo <= NARROW:
        return "narrow"
    if n >= options.max_deals:
        return "max_deals"
    return None


def _lean(rate: float, band: tuple[float, float]) -> str:
    return TOO_EASY if rate > band[1] else TOO_HARD if rate < band[0] else IN_BAND


def direction_of(word: str | None) -> str | None:
    """The way the deck should move for a verdict (or lean): harder, easier or None."""
    return HARDER if word == TOO_EASY else EASIER if word == TOO_HARD else None


def tune_command(ref: str, targets: Sequence[tuple[str, float]]) -> str:
    """The ``rove tune`` command that moves the deck to the targets given."""
    stem = Path(ref).stem if ref.endswith((".yaml", ".yml")) else Path(ref).name
    return (f"rove tune {ref} " + " ".join(f"--target {d}={t:.2f}" for d, t in targets)
            + f" -o {stem}-tuned.yaml")


def _lever(direction: str | None, sensitivity: dict[str, Any] | None) -> str:
    """What to pull for a direction, with the card that moves the rate most that way when
    a sensitivity was measured."""
    if direction is None:
        return "nothing to pull"
    if direction == HARDER:
        text = "make the deck harder: lower cards' points or bonuses, or give missions dearer patterns"
    else:
        text = "make the deck easier: raise cards' points or bonuses, or give missions cheaper patterns"
    best = _strongest(direction, sensitivity)
    return text + (f"; the strongest single step measured: {best}" if best else "")


def _strongest(direction: str, sensitivity: dict[str, Any] | None) -> str | None:
    """The sensitivity's variant that moves the expert's rate most in ``direction``, with
    its interval clear of zero."""
    if not sensitivity:
        return None
    best: tuple[float, str] | None = None
    for cid, row in sensitivity["cards"].items():
        for key, what, step in (("points_minus", "points", -1), ("points_plus", "points", 1),
                                ("bonus_minus", "bonus", -1), ("bonus_plus", "bonus", 1)):
            m = row.get(key)
            if m is None or m["ci95"][0] <= 0 <= m["ci95"][1]:
                continue
            if (m["diff"] < 0) != (direction == HARDER):
                continue
            now = row["base"] if what == "points" else row["bonus"]
            said = f"{cid} {what} {now}->{now + step} ({100 * m['diff']:+.1f} points)"
            if best is None or abs(m["diff"]) > best[0]:
                best = (abs(m["diff"]), said)
    return None if best is None else best[1]


def verdict_section(options: CheckOptions, experts: list[dict[str, Any]], ref: str,
                    stopped: dict[str, str], sensitivity: dict[str, Any] | None = None,
                    ) -> dict[str, dict[str, Any]] | None:
    """Per difficulty, the verdict on the expert's games (None when it did not play):
    the band, the deals, the interval valid under the stopping rule, where it lies, why
    the run stopped (``stopped``), the lever and the ``rove tune`` command."""
    if "expert" not in options.players:
        return None
    out: dict[str, dict[str, Any]] = {}
    for d in options.difficulties:
        rs = [r for r in experts if r["difficulty"] == d]
        n, won = len(rs), sum(r["status"] == "won" for r in rs)
        band = options.band(d)
        last = _is_last(n, options)
        lo, hi = interval(won, n, options)
        settled = position(lo, hi, band) if n else None
        rate = won / n if n else None
        lean = None if rate is None else _lean(rate, band)
        word = settled or lean
        direction = direction_of(word)
        target = round((band[0] + band[1]) / 2, 4)
        out[d] = {
            "band": [band[0], band[1]], "deals": n, "won": won,
            "win_rate": None if rate is None else round(rate, 4),
            "interval": [round(lo, 4), round(hi, 4)] if n else None,
            "z": round(z_for(options.looks, last), 4), "looks": options.looks,
            "level": round(1 - look_alpha(options.looks, last), 6),
            "method": "wilson" if options.deals is not None else "clopper-pearson",
            "settled": settled is not None, "verdict": settled or "unsettled", "leaning": lean,
            "stopped": stopped.get(d, "fixed" if not options.sequential else "interrupted"),
            "direction": direction, "target": target,
            "lever": _lever(direction, sensitivity),
            "tune": None if direction is None else tune_command(ref, [(d, target)]),
        }
        out[d]["text"] = verdict_words(d, out[d])
    return out


_STOPPED = {
    "settled": "the interval settled the verdict",
    "narrow": "the interval narrowed to {narrow} points",
    "max_deals": "the cap of --max-deals was reached",
    "fixed": "--deals fixed the count",
    "interrupted": "the run was interrupted",
}


def verdict_words(d: str, v: dict[str, Any]) -> str:
    """One difficulty's verdict in a sentence (the terminal's and the PDF's)."""
    band = f"{100 * v['band'][0]:.0f}-{100 * v['band'][1]:.0f}%"
    if not v["deals"]:
        return f"{d}: no expert game played; no verdict (band {band})"
    lo, hi = v["interval"]
    level = "95%" if v["looks"] == 1 else f"95% over {v['looks']} looks"
    what = (v["verdict"] if v["settled"] else
            f"unsettled, leaning {v['leaning']}" if v["leaning"] != IN_BAND else
            "unsettled, the rate inside the band but its interval over an edge")
    why = _STOPPED.get(v["stopped"], v["stopped"]).format(narrow=round(100 * NARROW))
    return (f"{d}: {what}: the expert won {v['won']} of {v['deals']} ({100 * v['win_rate']:.1f}%, "
            f"{level} {100 * lo:.1f}-{100 * hi:.1f}%) against the band {band}; stopped after "
            f"{v['deals']} deals: {why}")


def sequential_rule_words(opts: dict[str, Any]) -> str:
    """The sequential rule as the run's options set it, in words (the terminal's heading
    and the PDF's say it the same way)."""
    return (f"deals in batches of {opts['batch']} until the verdict settles or its interval "
            f"narrows to {round(100 * NARROW)} points (at most {opts['max_deals']})")


def deck_direction(verdict: dict[str, dict[str, Any]] | None) -> str | None:
    """The one way the whole deck should move (card changes move every difficulty), or
    None: no verdict, all in the band, or the difficulties pulling apart."""
    if not verdict:
        return None
    ways = {v["direction"] for v in verdict.values() if v["deals"]}
    ways.discard(None)
    return ways.pop() if len(ways) == 1 else None


def deck_tune_command(verdict: dict[str, dict[str, Any]] | None, ref: str) -> str | None:
    """One ``rove tune`` command for every difficulty off its band (None: none is)."""
    if not verdict:
        return None
    off = [(d, v["target"]) for d, v in verdict.items() if v["direction"] is not None]
    return tune_command(ref, off) if off else None


def needed_deals(rate: float, options: CheckOptions, difficulty: str) -> int:
    """The deals a difficulty would play if its rate were ``rate`` exactly: the first
    look at which the stopping rule would stop (for the time-left estimate)."""
    if options.deals is not None:
        return options.deals
    n = options.first_deals
    while True:
        if stop_reason(round(rate * n), n, options, difficulty) is not None:
            return n
        n = min(options.max_deals, n + options.batch)



def relever(verdict: dict[str, dict[str, Any]], sensitivity: dict[str, Any] | None) -> None:
    """Each difficulty's lever read again (a sensitivity measured since names the card
    step that moves the rate most its way)."""
    for v in verdict.values():
        v["lever"] = _lever(v["direction"], sensitivity)


#: an expert win share from which the deck's points plainly cover its missions' needs
COVERED = 0.5


def contradicted(check: dict[str, Any], experts: list[dict[str, Any]]) -> dict[str, Any]:
    """A static check as the measured games leave it.  The points check is an estimate
    (missions to win times the median mission cost from the starts with every module
    spent): it leaves out the abilities a game spends and the bonuses it takes, so where
    the expert wins at least half its games the warning is dropped (status ok) and says
    why; where it stands, it says what it rests on."""
    if check["id"] != "points" or check["status"] not in ("warn", "fail"):
        return check
    rests = ("an estimate: missions to win times the median mission cost from the starts, "
             "leaving out the abilities a game spends and the bonuses it takes")
    n = len(experts)
    won = sum(r["status"] == "won" for r in experts)
    if n and won / n >= COVERED:
        return {**check, "status": "ok", "detail": (
            f"{check['detail']}; {rests}, which the games contradict: the expert won {won} of {n}, "
            "so its deals' points do cover their missions"), "contradicted": True}
    return {**check, "detail": f"{check['detail']}; {rests}" + (
        f" (the expert won {won} of {n})" if n else ""), "contradicted": False}
