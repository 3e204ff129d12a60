"""The PDF report of ``rove check --report``: the tables and three charts.

Charts are drawn directly with ``reportlab.graphics`` shapes (bars, whiskers, axes), so
their look does not depend on chart-library defaults.  The PDF embeds the Vera fonts
and is written in ReportLab's invariant mode: the same report gives the same bytes.
Timings are left out on purpose (they would break that).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from typing import Any

from reportlab.graphics.shapes import Drawing, Group, Line, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import (
    CondPageBreak,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from ..check.report import (
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
from ..check.verdict import deck_tune_command, sequential_rule_words
from .fonts import FONT, FONT_BOLD, clip_text, register_fonts, text_width

PAGE = A4
MARGIN = 16 * mm
WIDTH = PAGE[0] - 2 * MARGIN

INK = colors.HexColor("#222222")
GRID = colors.HexColor("#d0d0d0")
BAND = colors.HexColor("#dce6f2")  # the range a figure may still take (bounds over unknowns)
SERIES = [colors.HexColor("#2b6cb0"), colors.HexColor("#dd8a2b"), colors.HexColor("#c0392b"),
          colors.HexColor("#5a9e4b")]
STATUS_COLOR = {OK: colors.HexColor("#2f855a"), WARN: colors.HexColor("#b7791f"),
                FAIL: colors.HexColor("#c53030"), SKIPPED: colors.HexColor("#777777")}


def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("body", fontName=FONT, fontSize=8.5, leading=11, textColor=INK,
                          alignment=TA_LEFT)
    return {
        "title": ParagraphStyle("title", parent=base, fontName=FONT_BOLD, fontSize=16, leading=20,
                                spaceAfter=4),
        "h2": ParagraphStyle("h2", parent=base, fontName=FONT_BOLD, fontSize=11.5, leading=15,
                             spaceBefore=8, spaceAfter=4),
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=7.5, leading=9.5,
                                textColor=colors.HexColor("#444444")),
        "cell": ParagraphStyle("cell", parent=base, fontSize=7.5, leading=9),
    }


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --------------------------------------------------------------------------- charts


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = span / max(1, ticks)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def bar_chart(categories: Sequence[str], series: Sequence[dict[str, Any]], *, height: float,
              y_max: float | None = None, y_label: str = "", percent: bool = False,
              integer: bool = False, width: float = WIDTH, rotate_labels: bool = False,
              show_zero: bool = True) -> Drawing:
    """Grouped vertical bars.  Each series: ``name``, ``values`` (None draws nothing),
    optional ``low``/``high`` whiskers, ``band_low``/``band_high`` (a pale band behind the
    bar: the range the figure may still take) and ``color``; a legend when there are
    several."""
    d = Drawing(width, height)
    left, right, top = 34.0, 6.0, 16.0 if len(series) > 1 else 6.0
    bottom = 34.0 if rotate_labels else 16.0
    pw, ph = width - left - right, height - top - bottom
    top_val = max([v for s in series for v in [*s["values"], *(s.get("high") or [])]
                   if v is not None] or [0])
    y_max = y_max if y_max is not None else max(1.0, top_val * 1.1)
    step = _nice_step(y_max)
    if integer:
        step = max(1.0, math.ceil(step))
    if y_max / step > 8:
        step *= 2
    y_max = math.ceil(y_max / step - 1e-9) * step if not percent else y_max
    top_y = y_max

    def y(v: float) -> float:
        return bottom + ph * (v / top_y if top_y else 0)

    _axes(d, y, top_y, step, left, bottom, pw, ph, percent, y_label)
    n = max(1, len(categories))
    slot = pw / n
    group_w = slot * 0.72
    bar_w = group_w / max(1, len(series))
    for ci, cat in enumerate(categories):
        x0 = left + slot * ci + (slot - group_w) / 2
        for si, s in enumerate(series):
            _bar(d, s, si, ci, n, x0 + si * bar_w, bar_w, y, bottom, show_zero)
        _category_label(d, cat, left + slot * ci + slot / 2, bottom, rotate_labels)
    if len(series) > 1:
        _legend(d, series, left + 4, height)
    return d


def _axes(d: Drawing, y: Callable[[float], float], y_max: float, step: float, left: float,
          bottom: float, pw: float, ph: float, percent: bool, y_label: str) -> None:
    """The grid lines with their figures, the two axes and the y axis' label."""
    k = 0.0
    while k <= y_max + 1e-9:
        d.add(Line(left, y(k), left + pw, y(k), strokeColor=GRID, strokeWidth=0.4))
        label = f"{100 * k:.0f}%" if percent else f"{k:g}"
        d.add(String(left - 3, y(k) - 2.5, label, fontName=FONT, fontSize=6.5, textAnchor="end",
                     fillColor=INK))
        k += step
    d.add(Line(left, bottom, left + pw, bottom, strokeColor=INK, strokeWidth=0.6))
    d.add(Line(left, bottom, left, bottom + ph, strokeColor=INK, strokeWidth=0.6))
    if y_label:
        g = Group(String(0, 0, y_label, fontName=FONT, fontSize=6.5, textAnchor="middle",
                         fillColor=INK))
        g.translate(8, bottom + ph / 2)
        g.rotate(90)
        d.add(g)


def _bar(d: Drawing, s: dict[str, Any], si: int, ci: int, n: int, bx: float, bar_w: float,
         y: Callable[[float], float], bottom: float, show_zero: bool) -> None:
    """Series ``si``'s bar for category ``ci`` at ``bx``: its band, bar, whisker and label."""
    v = s["values"][ci]
    color = s.get("color", SERIES[si % len(SERIES)])
    b_lo = (s.get("band_low") or [None] * n)[ci]
    b_hi = (s.get("band_high") or [None] * n)[ci]
    if b_lo is not None and b_hi is not None and b_hi > b_lo:
        d.add(Rect(bx - 2, y(b_lo), bar_w + 4, y(b_hi) - y(b_lo), fillColor=BAND,
                   strokeColor=SERIES[0], strokeWidth=0.4, strokeDashArray=[2, 2]))
    if v is not None and (v or show_zero):
        h = max(0.0, y(v) - bottom)
        # a zero still shows, as a thin line on the axis
        d.add(Rect(bx + 0.5, bottom, bar_w - 1, max(h, 1.2), fillColor=color, strokeColor=None))
    lo = (s.get("low") or [None] * n)[ci]
    hi = (s.get("high") or [None] * n)[ci]
    if lo is not None and hi is not None:
        cx = bx + bar_w / 2
        cap = min(4.0, bar_w * 0.3)
        d.add(Line(cx, y(lo), cx, y(hi), strokeColor=INK, strokeWidth=0.8))
        d.add(Line(cx - cap, y(lo), cx + cap, y(lo), strokeColor=INK, strokeWidth=0.8))
        d.add(Line(cx - cap, y(hi), cx + cap, y(hi), strokeColor=INK, strokeWidth=0.8))
    if s.get("labels") and s["labels"][ci]:
        text = s["labels"][ci]
        h = y(v or 0) - bottom
        if h > 14:  # inside the bar, left of the whisker, in white
            d.add(String(bx + 4, y(v or 0) - 10, text, fontName=FONT_BOLD, fontSize=7,
                         fillColor=colors.white))
        else:
            d.add(String(bx + 4, y(v or 0) + 3, text, fontName=FONT_BOLD, fontSize=7,
                         fillColor=INK))


def _category_label(d: Drawing, cat: str, cx: float, bottom: float, rotate: bool) -> None:
    if rotate:
        g = Group(String(0, 0, cat, fontName=FONT, fontSize=6.5, textAnchor="end",
                         fillColor=INK))
        g.translate(cx + 2, bottom - 4)
        g.rotate(45)
        d.add(g)
    else:
        d.add(String(cx, bottom - 10, cat, fontName=FONT, fontSize=7, textAnchor="middle",
                     fillColor=INK))


def _legend(d: Drawing, series: Sequence[dict[str, Any]], lx: float, height: float) -> None:
    for si, s in enumerate(series):
        color = s.get("color", SERIES[si % len(SERIES)])
        d.add(Rect(lx, height - 10, 7, 7, fillColor=color, strokeColor=None))
        d.add(String(lx + 10, height - 9, s["name"], fontName=FONT, fontSize=7, fillColor=INK))
        lx += 16 + len(s["name"]) * 4.2


# --------------------------------------------------------------------------- tables


def _table(rows: list[list[Any]], col_widths: Sequence[float] | None = None,
           align_right_from: int = 1, status_col: int | None = None) -> Table:
    t = Table(rows, colWidths=col_widths, repeatRows=1, hAlign="LEFT")
    style = [
        ("FONT", (0, 0), (-1, -1), FONT, 7.5),
        ("FONT", (0, 0), (-1, 0), FONT_BOLD, 7.5),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, INK),
        ("LINEBELOW", (0, -1), (-1, -1), 0.4, GRID),
        ("ALIGN", (align_right_from, 0), (-1, -1), "RIGHT"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ("LEFTPADDING", (0, 0), (-1, -1), 3),
        ("RIGHTPADDING", (0, 0), (-1, -1), 3),
    ]
    for r in range(2, len(rows), 2):
        style.append(("BACKGROUND", (0, r), (-1, r), colors.HexColor("#f3f5f8")))
    if status_col is not None:
        for r, row in enumerate(rows[1:], start=1):
            c = STATUS_COLOR.get(str(row[status_col]))
            if c is not None:
                style.append(("TEXTCOLOR", (status_col, r), (status_col, r), c))
                style.append(("FONT", (status_col, r), (status_col, r), FONT_BOLD, 7.5))
    t.setStyle(TableStyle(style))
    return t


# --------------------------------------------------------------------------- document


def render_report_pdf(report: CheckReport) -> bytes:
    """The whole report as PDF bytes (deterministic for a given report)."""
    register_fonts()
    st = _styles()
    data = report.to_json(timing=False)
    spec = data["spec"]
    buf = io.BytesIO()
    doc = SimpleDocTemplate(buf, pagesize=PAGE, leftMargin=MARGIN, rightMargin=MARGIN,
                            topMargin=MARGIN, bottomMargin=MARGIN, invariant=1, pageCompression=1,
                            title=f"rove check - {spec['name']}", author="rove",
                            subject=f"Design check of the ROVE card spec '{spec['name']}'",
                            creator="rove check", initialFontName=FONT)
    story: list[Any] = [
        *_heading(data, st), *_verdict(data, st), *_static_checks(data["checks"], st), *_winnability(data, st),
        # the advice right after the win rates: the summary a designer acts on
        *(_advice(data["advice"], st) if data.get("advice") else []),
        *_mission_costs(data["mission_costs"], data["points"], st), *_cards(data, st),
    ]
    if data.get("expert") is not None:
        story += _expert_cards(data, st)
    story += _modules(data["modules"], st)
    if data.get("sensitivity"):
        story += _sensitivity(data["sensitivity"], st)

    def footer(canvas: Any, doc_: Any) -> None:
        canvas.saveState()
        canvas.setFont(FONT, 7)
        canvas.setFillColor(colors.HexColor("#666666"))
        number = f"page {doc_.page}"
        room = PAGE[0] - 2 * MARGIN - text_width(number, FONT, 7) - 12  # a deck name may be long
        canvas.drawString(MARGIN, MARGIN / 2, clip_text(f"rove check - {spec['name']}", FONT, 7, room))
        canvas.drawRightString(PAGE[0] - MARGIN, MARGIN / 2, number)
        canvas.restoreState()

    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return buf.getvalue()


Styles = dict[str, ParagraphStyle]


def _heading(data: dict[str, Any], st: Styles) -> list[Any]:
    """The title, what was run and how, and the reproducibility note."""
    spec, opts = data["spec"], data["options"]
    deals = (f"{opts['deals']} seeded random deal(s)" if opts["deals"] is not None else
             f"Seeded random {sequential_rule_words(opts)}")
    limit = ("no time limit" if opts["time_limit"] is None else
             f"time limit {opts['time_limit']:g} s per solve (safety net)")
    return [
        # a deck's name has no length limit: about three lines of the title at most
        Paragraph(_esc(clip_text(f"rove check: {spec['name']}", FONT_BOLD, st["title"].fontSize,
                                 2.5 * (PAGE[0] - 2 * MARGIN))), st["title"]),
        Paragraph(
            f"{len(spec['modules'])} modules, {len(spec['cards'])} cards, {spec['missions_to_win']} "
            f"missions to win. {deals} per difficulty "
            f"({', '.join(opts['difficulties'])}), seed {opts['seed']}; exact search solver with a "
            f"node limit of {opts['node_limit']} per deal and {opts['mission_node_limit']} per "
            f"mission-cost solve"
            + (f", and the seer with up to {opts['seer_node_limit']}; the thoughtful player's "
               "solvers run cheapest first, on the deals the expert did not win"
               if opts.get("seer_node_limit") else "")
            + f"; {limit}."
            + (f" Players: {', '.join(opts['players'])}" if opts.get("players") else "")
            + (f" (the expert with {data['expert']['node_limit']} nodes a deal)."
               if data.get("expert") else "." if opts.get("players") else "")
            + " Rules: "
            + ", ".join(f"{k} {str(v).lower()}" for k, v in opts["rules"].items()) + ".",
            st["body"]),
        Paragraph(_esc(data["reproducibility"]["note"]) + ".", st["small"]),
    ]


def _verdict(data: dict[str, Any], st: Styles) -> list[Any]:
    """The verdict, first: per difficulty where the expert's rate lies against its band,
    why the run stopped, and the lever with the ``rove tune`` command that pulls it."""
    verdict = data.get("verdict")
    if not verdict:
        return []
    story: list[Any] = [Paragraph("Verdict", st["h2"]), Paragraph(
        "The expert's win rate against the target band of each difficulty (--band sets it); "
        "settled when its interval, valid under the stopping rule, lies wholly below, inside "
        "or above the band.", st["small"])]
    for v in verdict.values():
        word = v["verdict"] if v["settled"] else "unsettled"
        story.append(Paragraph(f"<b>{_esc(word)}</b> {_esc(v['text'])}.", st["body"]))
        if v["direction"] is not None:
            story.append(Paragraph(f"Lever: {_esc(v['lever'])}: {_esc(v['tune'])}",
                                   st["small"]))
    ref = data["spec"].get("ref")
    every = deck_tune_command(verdict, ref) if ref else None
    if every and sum(v["tune"] is not None for v in verdict.values()) > 1:
        story.append(Paragraph(f"Every difficulty at once: {_esc(every)}", st["small"]))
    return story


def _static_checks(checks: list[dict[str, Any]], st: Styles) -> list[Any]:
    rows: list[list[Any]] = [["status", "check", "detail"]]
    for c in checks:
        detail = _esc(c["detail"])
        for it in c["items"][:12]:
            detail += f"<br/>{_esc(it['card'])}: " + _esc(it.get("problem") or "; ".join(it.get("problems", [])))
        if len(c["items"]) > 12:
            detail += f"<br/>... and {len(c['items']) - 12} more"
        rows.append([c["status"], Paragraph(_esc(c["title"]), st["cell"]), Paragraph(detail, st["cell"])])
    return [Paragraph("Static checks", st["h2"]),
            _table(rows, [16 * mm, 58 * mm, WIDTH - 74 * mm], align_right_from=99, status_col=0)]


def _wilson_span(w: dict[str, Any]) -> str:
    return "-" if w["wilson95"] is None else f"{fmt_pct(w['wilson95'][0])} - {fmt_pct(w['wilson95'][1])}"


def _win_series(win: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The thoughtful player's bars: win rate, Wilson whiskers, the bounds as a band."""
    return {"name": "thoughtful", "color": SERIES[0], "values": [w["win_rate"] for w in win.values()],
            "low": [w["wilson95"][0] if w["wilson95"] else None for w in win.values()],
            "high": [w["wilson95"][1] if w["wilson95"] else None for w in win.values()],
            "band_low": [w["bounds"][0] for w in win.values()],
            "band_high": [w["bounds"][1] for w in win.values()],
            "labels": [fmt_pct(w["win_rate"]) if w["win_rate"] is not None else "undecided"
                       for w in win.values()]}


def _expert_series(ew: dict[str, dict[str, Any]], diffs: list[str]) -> dict[str, Any]:
    return {"name": "expert", "color": SERIES[1], "values": [ew[d]["win_rate"] for d in diffs],
            "low": [ew[d]["wilson95"][0] if ew[d]["wilson95"] else None for d in diffs],
            "high": [ew[d]["wilson95"][1] if ew[d]["wilson95"] else None for d in diffs],
            "labels": [fmt_pct(ew[d]["win_rate"]) for d in diffs]}


def _winnability(data: dict[str, Any], st: Styles) -> list[Any]:
    """Win rates per difficulty: the chart (thoughtful and expert side by side), the
    thoughtful table, then the expert's."""
    win = data["winnability"]
    ex = data.get("expert")
    diffs = list(win) or list(data["options"]["difficulties"])
    story: list[Any] = [Paragraph("Winnability per difficulty", st["h2"])]
    series: list[dict[str, Any]] = []
    if win:
        story.append(Paragraph(
            "Thoughtful player (the exact solver, who knows the whole draw order: an "
            "upper bound for anyone): win rate among decided deals (solved or proven "
            "unsolvable); whiskers: 95% Wilson interval. Unknown deals (limit reached) "
            "are not counted as wins or losses; the pale dashed band and the bounds "
            "column hold the win rate over all deals, whatever the unknowns turn out "
            "to be.", st["small"]))
        series.append(_win_series(win))
    if ex is not None:
        story.append(Paragraph("Expert player (" + _esc(ex["description"]) + "): win rate over all "
                               "deals, every one decided; whiskers: 95% Wilson interval.", st["small"]))
        series.append(_expert_series(ex["winnability"], diffs))
    chart = bar_chart(diffs, series, height=130 if len(series) > 1 else 120, y_max=1.0,
                      percent=True, y_label="win rate", width=WIDTH * (0.75 if len(series) > 1 else 0.6))
    parts: list[Any] = [Spacer(1, 3), chart, Spacer(1, 4)]
    if win:
        rows: list[list[Any]] = [["difficulty", "deals", "solved", "unsolvable", "unknown", "win rate",
                                  "Wilson 95%", "bounds (all deals)"]]
        for d, w in win.items():
            rows.append([d, w["deals"], w["solved"], w["unsolvable"], w["unknown"], fmt_pct(w["win_rate"]),
                         _wilson_span(w), f"{fmt_pct(w['bounds'][0])} - {fmt_pct(w['bounds'][1])}"])
        parts.append(_table(rows))
        said = ladder_sentence(win)
        if said:
            parts.append(Paragraph(_esc(said), st["small"]))
        parts += _unknown_deals(win, data["spec"]["missions_to_win"], st)
        for line in [*unknown_sentences(win), tried_sentence(win, data["points"])]:
            if line:
                parts.append(Paragraph(_esc(line), st["small"]))
    story.append(KeepTogether(parts))
    if ex is not None:
        story += _expert_winnability(ex, diffs, st)
    return story


def _unknown_deals(win: dict[str, dict[str, Any]], missions: int, st: Styles) -> list[Any]:
    """Where deals stayed unknown: the 95% interval over all deals with the unknowns
    counted as losses and as wins, and how far their searches got (as in the terminal)."""
    rows: list[list[Any]] = [["difficulty", "unknown", "Wilson 95%, as losses", "as wins",
                              "95% over all deals", f"deepest line (of {missions} missions)"]]
    for d, w in win.items():
        if w["unknown"] and w.get("wilson95_all"):
            deepest = ("-" if w.get("unknown_missions_done_max") is None else
                       f"{w['unknown_missions_done_max']} (mean {fmt_num(w['unknown_missions_done_mean'])})")
            rows.append([d, w["unknown"], _pct_span(w["wilson95_unknowns_lost"]),
                         _pct_span(w["wilson95_unknowns_won"]), _pct_span(w["wilson95_all"]), deepest])
    if len(rows) == 1:
        return []
    return [Spacer(1, 4), Paragraph(
        "Unknown deals counted both ways: the Wilson intervals over all deals with every "
        "unknown deal lost and with every one won, and their union, which holds whatever "
        "the unknowns turn out to be; the deepest line: the most missions an unknown deal's "
        "deepest line completed (the mean in brackets).", st["small"]), Spacer(1, 2), _table(rows)]


def _pct_span(ci: Sequence[float]) -> str:
    return f"{fmt_pct(ci[0])} - {fmt_pct(ci[1])}"


def _expert_winnability(ex: dict[str, Any], diffs: list[str], st: Styles) -> list[Any]:
    rows: list[list[Any]] = [["difficulty", "deals", "won", "lost", "stuck", "budget", "no mission",
                              "expert", "Wilson 95%", "thoughtful", "gap (points)"]]
    for d in diffs:
        w = ex["winnability"][d]
        rows.append([d, w["deals"], w["won"], w["lost"], w["lost_by"]["stuck"],
                     w["lost_by"]["budget"], w["lost_by"]["no_mission"], fmt_pct(w["win_rate"]),
                     _wilson_span(w), fmt_pct(w["thoughtful_win_rate"]),
                     "-" if w["gap_points"] is None else f"{w['gap_points']:.1f}"])
    story: list[Any] = [
        Spacer(1, 4), _table(rows), Spacer(1, 3),
        Paragraph(f"The expert's games end won or lost, never unknown: stuck (no completion "
                  f"of the mission from what it holds), budget (its mission search reached "
                  f"the limit of {ex['node_limit']} nodes a deal: rove's search stopping "
                  "short, not the player losing, and no proof), no mission (none left to "
                  "reveal). A deal it wins is winnable: its plan, replayed by the rules "
                  "engine, is the proof.", st["small"])]
    budget = sum(ex["winnability"][d]["lost_by"]["budget"] for d in diffs)
    if budget:
        finished = ", ".join(
            f"{d} {fmt_pct(ex['winnability'][d].get('win_rate_finished'))} of "
            f"{ex['winnability'][d].get('finished')} games" for d in diffs)
        story += [Spacer(1, 3), Paragraph(
            f"{budget} budget loss(es) make the expert's rate a lower bound: among the games "
            f"it finished it won {finished}. A larger expert node limit finishes more.",
            st["body"])]
    if ex.get("foresight"):
        story += [Spacer(1, 3), Paragraph(_esc(ex["foresight"]), st["body"])]
    return story


def _mission_costs(mc: dict[str, Any], pts: dict[str, Any], st: Styles) -> list[Any]:
    """Mission costs from the starts (chart, distribution, table) and the points line."""
    story: list[Any] = [CondPageBreak(90 * mm), Paragraph("Mission costs from the start layouts", st["h2"])]
    if mc["arrangements"]:
        story += _mission_cost_figures(mc, st)
    else:
        story.append(Paragraph("Skipped (no start arrangement was solved).", st["small"]))
    story.append(Spacer(1, 4))
    story.append(Paragraph(
        f"Points: the deck's movement sides give {pts['base_total']} base / {pts['bonus_total']} "
        f"bonus points in all (mean {pts['base_mean']:g} / {pts['bonus_mean']:g} a card); "
        f"{pts['missions_to_win']} missions at the median cost need "
        f"{fmt_num(pts['needed_no_abilities'])} points without abilities, "
        f"{fmt_num(pts['needed_with_abilities'])} with every ability.", st["body"]))
    return story


def _mission_cost_figures(mc: dict[str, Any], st: Styles) -> list[Any]:
    sampled = (f"a seeded sample of {mc['arrangements']} of the {mc['arrangements_possible']}"
               if mc["sampled"] else f"all {mc['arrangements']}")
    story: list[Any] = [Paragraph(
        f"Optimal points to complete each mission from {sampled} start arrangements "
        "(2 rows of 3 as dealt), with a bare budget and an empty hand: once with every "
        "ability available, once with none. Bars: median; whiskers: min to max.", st["small"])]
    cards = list(mc["missions"])
    series = []
    for key, name, color in (("with_abilities", "with abilities", SERIES[0]),
                             ("no_abilities", "no abilities", SERIES[1])):
        vals = [mc["missions"][c][key] for c in cards]
        series.append({"name": name, "color": color, "values": [v["median"] for v in vals],
                       "low": [v["min"] for v in vals], "high": [v["max"] for v in vals]})
    story.append(bar_chart(cards, series, height=125, y_label="points", integer=True))
    hist = [mc["overall"][k]["histogram"] for k in ("with_abilities", "no_abilities")]
    span = max((len(h) for h in hist), default=0)
    if span:
        story.append(Spacer(1, 4))
        story.append(Paragraph("Distribution of optimal costs over every (start, mission) pair.", st["small"]))
        story.append(bar_chart(
            [str(i) for i in range(span)],
            [{"name": "with abilities", "color": SERIES[0],
              "values": [(hist[0][i] if i < len(hist[0]) else 0) for i in range(span)]},
             {"name": "no abilities", "color": SERIES[1],
              "values": [(hist[1][i] if i < len(hist[1]) else 0) for i in range(span)]}],
            height=95, y_label="count", integer=True, width=WIDTH * 0.7, show_zero=False))
    rows: list[list[Any]] = [["card", "mission", "abil. min", "median", "max", "mean", "none min",
                              "median", "max", "mean", "reached", "unknown"]]
    for cid, e in mc["missions"].items():
        wa, na = e["with_abilities"], e["no_abilities"]
        rows.append([cid, e["title"], *(fmt_num(wa[k]) for k in ("min", "median", "max", "mean")),
                     *(fmt_num(na[k]) for k in ("min", "median", "max", "mean")),
                     e["reachable_from"], wa["unknown"] + na["unknown"]])
    story.append(Spacer(1, 4))
    story.append(_table(rows, align_right_from=2))
    return story


def _per_difficulty_chart(cards: dict[str, dict[str, Any]], key: str, difficulties: list[str],
                          y_label: str) -> Drawing:
    """Bars per card, one series a difficulty, of ``card[key][difficulty]``."""
    return bar_chart(list(cards), [
        {"name": d, "color": SERIES[i % len(SERIES)], "values": [c[key][d] for c in cards.values()]}
        for i, d in enumerate(difficulties)], height=110, y_label=y_label, integer=True,
        show_zero=False)


def _cards(data: dict[str, Any], st: Styles) -> list[Any]:
    """Per card: the lost deals each mission blocked (chart) and the card table."""
    cards_j = data["cards"]
    diffs = list(data["winnability"]) or list(data["options"]["difficulties"])
    story: list[Any] = [CondPageBreak(90 * mm), Paragraph("Cards", st["h2"]), Paragraph(
        "Cost: mean optimal points of the mission from the starts, with every ability / "
        "with none. Blocked (blk): how often the card's mission was the one a lost "
        "(unsolvable) deal could not complete, i.e. the mission the deepest line reached. "
        "Plays and bonus plays count the movement side in the winning plans found.", st["small"])]
    if any(c["blocked_total"] for c in cards_j.values()):
        story.append(_per_difficulty_chart(cards_j, "blocked", data["options"]["difficulties"],
                                           "lost deals"))
    else:
        story.append(Paragraph("No deal was proven unsolvable, so no mission blocked a game.", st["body"]))
    rows: list[list[Any]] = [["card", "mission", "cost abil./none", "base/bonus",
                              *(f"blk {d[:4]}" for d in diffs), "blk share", "plays", "bonus",
                              "bonus share"]]
    for cid, c in cards_j.items():
        rows.append([cid, c["title"],
                     f"{fmt_num(c['mission_cost_mean'])} / {fmt_num(c['mission_cost_mean_no_abilities'])}",
                     f"{c['base']}/{c['bonus']}",
                     *(c["blocked"][d] for d in diffs), fmt_pct(c["blocked_share"]), c["plays"],
                     c["bonus_plays"], fmt_pct(c["bonus_share"])])
    return [*story, Spacer(1, 4), _table(rows, align_right_from=2)]


def _expert_cards(data: dict[str, Any], st: Styles) -> list[Any]:
    """Per card, for the expert: the lost games that ended on each mission, and its plays."""
    ecards = data["expert"]["cards"]
    diffs = list(data["winnability"]) or list(data["options"]["difficulties"])
    story: list[Any] = [CondPageBreak(70 * mm), Paragraph("Cards for the expert", st["h2"]), Paragraph(
        "Failed: how often the card's mission was the one the expert's lost game "
        "ended on. Plays and bonus plays count the movement side over all its "
        "games, won or lost.", st["small"])]
    if any(c["failed_total"] for c in ecards.values()):
        story.append(_per_difficulty_chart(ecards, "failed", data["options"]["difficulties"],
                                           "lost games"))
    else:
        story.append(Paragraph("The expert lost no game on a mission.", st["body"]))
    rows: list[list[Any]] = [["card", "mission", *(f"failed {d[:4]}" for d in diffs), "failed share",
                              "plays", "bonus", "bonus share"]]
    for cid, c in ecards.items():
        rows.append([cid, c["title"], *(c["failed"][d] for d in diffs), fmt_pct(c["failed_share"]),
                     c["plays"], c["bonus_plays"], fmt_pct(c["bonus_share"])])
    return [*story, Spacer(1, 4), _table(rows, align_right_from=2)]


def _modules(modules: dict[str, dict[str, Any]], st: Styles) -> list[Any]:
    rows: list[list[Any]] = [["module", "name", "ability", "uses", "via Gripper", "wins using",
                              "share of wins"]]
    for code, m in modules.items():
        rows.append([code, m["name"], m["ability"], m["uses"], m["triggered_via_gripper"],
                     m["wins_using"], fmt_pct(m["wins_using_share"])])
    return [Paragraph("Modules", st["h2"]),
            Paragraph("Ability uses in the winning plans found; a use through Gripper counts for "
                      "Gripper (uses) and for the triggered module (via Gripper).", st["small"]),
            _table(rows, align_right_from=3)]


SENS_KEYS = (("points_minus", "points -1"), ("points_plus", "points +1"),
             ("bonus_minus", "bonus -1"), ("bonus_plus", "bonus +1"))


def sensitivity_chart(cards: dict[str, dict[str, Any]], width: float = WIDTH) -> Drawing:
    """One row per card: for each variant a dot at its change of win rate (points) with
    its 95% interval as a whisker, around a zero line; the scale is symmetric, so a
    lever's direction reads at a glance."""
    keys = [k for k, _ in SENS_KEYS]
    ext = max([abs(v) for row in cards.values() for k in keys if row[k] is not None
               for v in (row[k]["ci95"][0], row[k]["ci95"][1], row[k]["diff"])] or [0.0])
    ext = max(0.05, ext)
    step = _nice_step(ext, 3)
    ext = math.ceil(ext / step - 1e-9) * step
    row_h, sub = 13.0, 2.6
    left, right, top, bottom = 34.0, 8.0, 16.0, 18.0
    height = top + bottom + row_h * len(cards)
    d = Drawing(width, height)
    pw = width - left - right

    def x(v: float) -> float:
        return left + pw * (v + ext) / (2 * ext)

    tick = -ext
    while tick <= ext + 1e-9:
        d.add(Line(x(tick), bottom, x(tick), height - top, strokeColor=GRID, strokeWidth=0.4))
        d.add(String(x(tick), bottom - 9, f"{100 * tick:+.0f}" if abs(tick) > 1e-9 else "0",
                     fontName=FONT, fontSize=6.5, fillColor=INK, textAnchor="middle"))
        tick += step
    d.add(Line(x(0), bottom, x(0), height - top, strokeColor=INK, strokeWidth=0.8))
    d.add(String(left + pw / 2, 1, "change of the expert's win rate (points)", fontName=FONT,
                 fontSize=6.5, fillColor=INK, textAnchor="middle"))
    for ri, (cid, row) in enumerate(cards.items()):
        yc = height - top - row_h * (ri + 0.5)
        d.add(String(left - 4, yc - 2.5, cid, fontName=FONT, fontSize=7, fillColor=INK, textAnchor="end"))
        for si, k in enumerate(keys):
            m = row[k]
            if m is None:
                continue
            yy = yc + (1.5 - si) * sub
            color = SERIES[si % len(SERIES)]
            d.add(Line(x(m["ci95"][0]), yy, x(m["ci95"][1]), yy, strokeColor=color, strokeWidth=0.7))
            d.add(Rect(x(m["diff"]) - 1.6, yy - 1.6, 3.2, 3.2, fillColor=color, strokeColor=None))
    _legend(d, [{"name": name, "color": SERIES[i]} for i, (_, name) in enumerate(SENS_KEYS)],
            left + 4, height)
    return d


def _sensitivity(sens: dict[str, Any], st: Styles) -> list[Any]:
    """Per card, the expert's win rate with each number one lower and one higher."""
    story: list[Any] = [CondPageBreak(80 * mm), Paragraph("Sensitivity per card", st["h2"]), Paragraph(
        f"The expert's win rate ({fmt_pct(sens['win_rate'])} over {sens['deals']} deals, every "
        "difficulty checked) with one card's base points or bonus one lower or one higher, "
        "played on the same deals: the change in points of win rate, variant minus the deck "
        "as it is, paired deal by deal, with its 95% interval. A missing mark is a deck the "
        "spec forbids.", st["small"]), Spacer(1, 3), sensitivity_chart(sens["cards"]), Spacer(1, 4)]
    rows: list[list[Any]] = [["card", "points/bonus", *(name for _, name in SENS_KEYS)]]
    for cid, row in sens["cards"].items():
        cells = []
        for k, _ in SENS_KEYS:
            m = row[k]
            cells.append("-" if m is None else
                         f"{100 * m['diff']:+.1f} ({100 * m['ci95'][0]:+.1f} to {100 * m['ci95'][1]:+.1f})")
        rows.append([cid, f"{row['base']}/{row['bonus']}", *cells])
    return [*story, _table(rows, align_right_from=1)]


def _advice(lines: list[dict[str, Any]], st: Styles) -> list[Any]:
    """What a designer may try, one line each."""
    return [CondPageBreak(30 * mm), Paragraph("What to try", st["h2"]),
            *(Paragraph("- " + _esc(a["text"]), st["body"]) for a in lines)]

