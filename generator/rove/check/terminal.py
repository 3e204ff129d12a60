"""`rove check` in the terminal: the progress bar and the report as Rich tables (compact
enough for an 80-column terminal).  Rich is imported inside the functions, so importing
this module stays cheap."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .report import (
    FAIL,
    OK,
    SKIPPED,
    WARN,
    CheckReport,
    fmt_num,
    fmt_pct,
    ladder_sentence,
    tried_sentence,
    unknown_sentences,
)
from .tally import ProgressFn
from .verdict import deck_tune_command, sequential_rule_words

_STATUS_STYLE = {OK: "green", WARN: "yellow", FAIL: "bold red", SKIPPED: "dim"}
_LOST_BY = ("stuck", "budget", "no_mission")


@contextmanager
def progress_bar(console: Any) -> Iterator[ProgressFn]:
    """A Rich progress display fed by ``run_check``'s progress callback
    (``rove.check.tally``): a bar per group (mission costs, the expert's games and the
    thoughtful player's decided deals per difficulty) with what it has found so far, and
    a last line with the estimated time left; it disappears when done."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    names = {"starts": "mission costs", "tables": "distance tables"}
    with Progress(TextColumn("{task.description:>17}"), BarColumn(bar_width=24), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn("{task.fields[note]}"), console=console,
                  transient=True) as bar:
        ids: dict[str, Any] = {}

        def update(group: str, done: int, total: int, note: str = "") -> None:
            if group == "time left":
                if group not in ids:
                    ids[group] = bar.add_task("time left", total=None, note=note, start=False)
                bar.update(ids[group], note=note)
                return
            if group not in ids:
                label = names.get(group, group if group.endswith(("expert", "losses")) else f"{group} decided")
                ids[group] = bar.add_task(label, total=total, note=note)
            bar.update(ids[group], completed=done, total=total, note=note)

        yield update


def _span(lo: float | None, hi: float | None) -> str:
    return "-" if lo is None or hi is None else f"{100 * lo:.1f}-{100 * hi:.1f}%"


def _table(title: str, *cols: str, left: int = 1) -> Any:
    from rich import box

    from ..screen import FittedTable

    # collapsed padding: the interval columns keep their figures in 80 columns; narrower,
    # a table that cannot fit prints a block a row rather than cut figures
    t = FittedTable(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
              collapse_padding=True, title_style="bold")
    for i, col in enumerate(cols):
        t.add_column(col, justify="left" if i < left else "right")
    return t


def print_report(report: CheckReport, console: Any) -> None:
    """The report as Rich tables, in the order of the PDF's sections."""
    data = report.to_json(timing=False)
    diffs = data["options"]["difficulties"]
    ex = data.get("expert")
    _print_heading(data, console)
    part = data.get("partial")
    if part is not None:
        static = "" if part["static_checks"] else "; the static part had not finished (left out)"
        console.print(f"[bold yellow]PARTIAL: interrupted; the figures cover {part['expert_games']} expert "
                      f"game(s) and {part['thoughtful_deals']} thoughtful deal(s) of the "
                      f"{part['deals_asked']} planned (a deal the expert won counts as won; one the "
                      f"thoughtful player had not reached, or was cut off in, as unknown){static}[/]")
    if data.get("verdict"):
        _print_verdict(data["verdict"], data["spec"].get("ref"), console)
    _print_checks(data["checks"], console)
    _print_mission_costs(data["mission_costs"], console)
    _print_winnability(data["winnability"], console)
    _print_unknown_depth(data["winnability"], data["spec"]["missions_to_win"], console)
    why = tried_sentence(data["winnability"], data["points"])
    if why:
        console.print(f"[dim]{why}[/dim]")
    if ex is not None:
        _print_expert_winnability(ex, data["winnability"], console)
    _print_cards(data["cards"], diffs, console)
    if ex is not None:
        _print_expert_cards(ex["cards"], diffs, console)
    _print_modules(data["modules"], console)
    if data.get("sensitivity"):
        _print_sensitivity(data["sensitivity"], console)
    if data.get("advice"):
        _print_advice(data["advice"], console)
    _print_footer(data["reproducibility"], report.timing, console)


def _print_verdict(verdict: dict[str, dict[str, Any]], ref: str | None, console: Any) -> None:
    """The verdict first: per difficulty where the expert's rate lies against the band,
    how sure, why the run stopped, and what to pull."""
    style = {"too easy": "bold yellow", "too hard": "bold red", "in the band": "bold green"}
    console.print("[bold]Verdict[/bold] (the expert's win rate against the target band; --band sets it)")
    for v in verdict.values():
        word = v["verdict"] if v["settled"] else "unsettled"
        console.print(f"- [{style.get(word, 'bold')}]{word}[/] {v['text']}")
        if v["direction"] is not None:
            console.print(f"  lever: {v['lever']}: [bold]{v['tune']}[/bold]")
    every = deck_tune_command(verdict, ref) if ref else None
    if every and sum(v["tune"] is not None for v in verdict.values()) > 1:
        console.print(f"  every difficulty at once: [bold]{every}[/bold]")


def _shift(m: dict[str, Any] | None) -> str:
    """A sensitivity cell: the difference in points of win rate, +- its half-interval."""
    if m is None:
        return "-"
    lo, hi = m["ci95"]
    return f"{100 * m['diff']:+.1f} \u00b1{100 * (hi - lo) / 2:.1f}"


def _print_sensitivity(sens: dict[str, Any], console: Any) -> None:
    t = _table(f"Sensitivity: the expert's win rate ({fmt_pct(sens['win_rate'])} over "
               f"{sens['deals']} deals) with one number moved", "card", "pts",
               "points -1", "points +1", "bonus -1", "bonus +1")
    for cid, row in sens["cards"].items():
        t.add_row(cid, f"{row['base']}/{row['bonus']}", _shift(row["points_minus"]),
                  _shift(row["points_plus"]), _shift(row["bonus_minus"]), _shift(row["bonus_plus"]))
    console.print(t)
    console.print("[dim]change in points of win rate, variant minus the deck as it is, on the "
                  "same deals (95% interval); -: a deck the spec forbids.[/dim]")


def _print_advice(lines: list[dict[str, Any]], console: Any) -> None:
    console.print("[bold]What to try[/bold]")
    for a in lines:
        console.print(f"- {a['text']}")


def _print_heading(data: dict[str, Any], console: Any) -> None:
    spec, opts = data["spec"], data["options"]
    console.print(f"[bold]rove check[/bold]: {spec['name']} "
                  f"({len(spec['modules'])} modules, {len(spec['cards'])} cards, "
                  f"{spec['missions_to_win']} missions to win); seed {opts['seed']}, "
                  + (f"{opts['deals']} deal(s) per difficulty" if opts["deals"] is not None else
                     sequential_rule_words(opts))
                  + f", node limit {opts['node_limit']}"
                  + (f" (seer {opts['seer_node_limit']})" if opts.get("seer_node_limit") else "")
                  + (f"; rungs {_rungs(opts['ladder'])}" if opts.get("ladder") else "")
                  + (f"; players: {', '.join(opts['players'])}" if "players" in opts else ""))


def _rungs(ladder: list[list[dict[str, Any]]]) -> str:
    """The thoughtful player's ladder in a few words: ``search 100k, seer 500k | ...``."""
    return " | ".join(", ".join(f"{r['solver']} {_short(r['nodes'])}" for r in phase) for phase in ladder if phase)


def _short(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else (
        f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n))


def _print_checks(checks: list[dict[str, Any]], console: Any) -> None:
    t = _table("Static checks", "status", "check", left=2)
    for c in checks:
        detail = c["detail"]
        for it in c["items"]:
            detail += f"\n  {it['card']}: " + (it.get("problem") or "; ".join(it.get("problems", [])))
        t.add_row(f"[{_STATUS_STYLE[c['status']]}]{c['status']}[/]", f"{c['title']}\n[dim]{detail}[/dim]")
    console.print(t)


def _cost_cell(x: dict[str, Any]) -> str:
    if x["min"] is None:
        return "-"
    return f"{fmt_num(x['min'])}/{fmt_num(x['median'])}/{fmt_num(x['max'])} ({fmt_num(x['mean'])})"


def _print_mission_costs(mc: dict[str, Any], console: Any) -> None:
    if not mc["arrangements"]:
        return
    t = _table(f"Mission cost (points) from {mc['arrangements']} of {mc['arrangements_possible']} "
               "starts: min/median/max (mean)", "card", "mission", "with abilities",
               "no abilities", "reached", "unknown", left=2)
    for cid, e in mc["missions"].items():
        t.add_row(cid, e["title"], _cost_cell(e["with_abilities"]), _cost_cell(e["no_abilities"]),
                  str(e["reachable_from"]),
                  str(e["with_abilities"]["unknown"] + e["no_abilities"]["unknown"]))
    console.print(t)


def _print_winnability(win: dict[str, dict[str, Any]], console: Any) -> None:
    if not win:
        return
    t = _table("Winnability (win rate among decided deals; unknowns apart)", "difficulty", "deals",
               "won", "lost", "unknown", "win rate", "Wilson 95%", "bounds")
    for d, w in win.items():
        ci = w["wilson95"] or [None, None]
        t.add_row(d, str(w["deals"]), str(w["solved"]), str(w["unsolvable"]), str(w["unknown"]),
                  fmt_pct(w["win_rate"]), _span(*ci), _span(*w["bounds"]))
    console.print(t)
    said = ladder_sentence(win)
    if said:
        console.print(f"[dim]{said}[/dim]")
    for line in unknown_sentences(win):
        console.print(f"[dim]{line}[/dim]")


def _print_unknown_depth(win: dict[str, dict[str, Any]], missions: int, console: Any) -> None:
    """Where deals stayed unknown: the win rate's 95% interval over all deals with the
    unknowns counted as losses and as wins (``wilson_union``), and how far their searches
    got (a search near the end is likelier to finish with more nodes than one stuck
    early)."""
    rows = {d: w for d, w in win.items() if w["unknown"] and w.get("wilson95_all")}
    if not rows:
        return
    t = _table("Unknown deals counted as losses and as wins: 95% over all deals", "difficulty",
               "unknown", "as losses", "as wins", "95% all", f"deepest (of {missions})")
    for d, w in rows.items():
        deepest = ("-" if w.get("unknown_missions_done_max") is None else
                   f"{w['unknown_missions_done_max']} ({fmt_num(w['unknown_missions_done_mean'])})")
        t.add_row(d, str(w["unknown"]), _span(*w["wilson95_unknowns_lost"]),
                  _span(*w["wilson95_unknowns_won"]), _span(*w["wilson95_all"]), deepest)
    console.print(t)
    console.print("[dim]95% all: the two Wilson intervals joined; it holds whatever the "
                  "unknowns turn out to be. deepest: the most missions an unknown deal's "
                  "deepest line completed (mean).[/dim]")


def _print_expert_winnability(ex: dict[str, Any], win: dict[str, dict[str, Any]],
                              console: Any) -> None:
    t = _table("Thoughtful (draw order known) and expert (sees only the table) win rates",
               "difficulty", "thoughtful", "Wilson 95%", "expert", "Wilson 95%", "won",
               "lost (budget)", "gap")
    for d, w in ex["winnability"].items():
        tw = win.get(d)
        tci = (tw["wilson95"] if tw else None) or [None, None]
        t.add_row(d, fmt_pct(w["thoughtful_win_rate"]), _span(*tci), fmt_pct(w["win_rate"]),
                  _span(*(w["wilson95"] or [None, None])), str(w["won"]),
                  f"{w['lost']} ({w['lost_by']['budget']})",
                  "-" if w["gap_points"] is None else f"{w['gap_points']:.1f}")
    console.print(t)
    lost_by = {k: sum(w["lost_by"][k] for w in ex["winnability"].values()) for k in _LOST_BY}
    console.print(f"[dim]gap: thoughtful minus expert, in points of win rate. The expert's "
                  f"games are all decided: lost {lost_by['stuck']} stuck (no completion from "
                  f"what it holds), {lost_by['budget']} at its node limit "
                  f"({ex['node_limit']} a deal: rove's search stopping short, not the player "
                  f"losing), {lost_by['no_mission']} with no mission left to reveal.[/dim]")
    if lost_by["budget"]:
        finished = ", ".join(
            f"{d} {fmt_pct(w.get('win_rate_finished'))} of {w.get('finished')}"
            for d, w in ex["winnability"].items())
        console.print(f"[yellow]Budget losses make the expert's rate a lower bound; among the "
                      f"games it finished it won {finished}. A larger --expert-node-limit "
                      "finishes more.[/yellow]")
    if ex["foresight"]:
        console.print(ex["foresight"])


def _print_cards(cards: dict[str, dict[str, Any]], diffs: list[str], console: Any) -> None:
    t = _table("Cards", "card", "mission", "cost", "pts", f"blocked ({'/'.join(d[0] for d in diffs)})",
               "share", "plays", "bonus", left=2)
    for cid, c in cards.items():
        t.add_row(cid, c["title"],
                  f"{fmt_num(c['mission_cost_mean'])}/{fmt_num(c['mission_cost_mean_no_abilities'])}",
                  f"{c['base']}/{c['bonus']}", "/".join(str(c["blocked"][d]) for d in diffs),
                  fmt_pct(c["blocked_share"]), str(c["plays"]),
                  f"{c['bonus_plays']} ({fmt_pct(c['bonus_share'])})")
    console.print(t)
    console.print("[dim]cost: mean optimal points from the starts with/without abilities; pts: "
                  "base/bonus; blocked: lost deals whose deepest line stopped at this mission; "
                  "plays/bonus: movement plays in the winning plans found.[/dim]")


def _print_expert_cards(cards: dict[str, dict[str, Any]], diffs: list[str], console: Any) -> None:
    t = _table("Cards for the expert", "card", "mission",
               f"failed ({'/'.join(d[0] for d in diffs)})", "share", "plays", "bonus", left=2)
    for cid, c in cards.items():
        t.add_row(cid, c["title"], "/".join(str(c["failed"][d]) for d in diffs),
                  fmt_pct(c["failed_share"]), str(c["plays"]),
                  f"{c['bonus_plays']} ({fmt_pct(c['bonus_share'])})")
    console.print(t)
    console.print("[dim]failed: the expert's lost games that ended on this mission; "
                  "plays/bonus: movement plays in all its games and how many took the "
                  "bonus.[/dim]")


def _print_modules(modules: dict[str, dict[str, Any]], console: Any) -> None:
    t = _table("Modules (ability uses in the winning plans found)", "module", "name", "ability",
               "uses", "via Gripper", "wins using", left=3)
    for code, m in modules.items():
        t.add_row(code, m["name"], m["ability"], str(m["uses"]), str(m["triggered_via_gripper"]),
                  f"{m['wins_using']} ({fmt_pct(m['wins_using_share'])})")
    console.print(t)


def _print_footer(rep: dict[str, Any], timing: dict[str, Any], console: Any) -> None:
    console.print(f"[dim]{rep['note']}.[/dim]")
    _print_verification(rep.get("loss_verification"), console)
    if rep["blockers_unknown"]:
        console.print(f"[dim]{rep['blockers_unknown']} lost deal(s) without a named blocker.[/dim]")
    if timing:
        console.print(f"[dim]{timing['seconds_total']:.1f} s on {timing['workers']} worker(s) "
                      f"({timing['executor']}).[/dim]")


def _print_verification(v: dict[str, Any] | None, console: Any) -> None:
    """What ``--verify-losses`` found (a disagreement never gets here: it fails the run)."""
    if v is None:
        return
    console.print(f"{v['lost']} lost verdict(s) re-proved with the tables off: {v['confirmed']} "
                  f"confirmed, {v['unknown']} unknown at {v['node_limit']} nodes a deal, "
                  "none contradicted.")
