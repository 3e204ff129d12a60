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

The package: :mod:`.options` (what the figures depend on), :mod:`.tasks` (the typed units
of work), :mod:`.run` (the workers and the run, in batches), :mod:`.verdict` (too easy, in
the band or too hard, and when to stop dealing), :mod:`.report` (the figures, one
function a report section), :mod:`.stats` (the intervals) and :mod:`.terminal` (the Rich
tables); the PDF is :mod:`rove.pdf.report`.  None of them imports Rich or
ReportLab at import time.
"""

from .options import (
    BARE_BUDGET,
    DEFAULT_BANDS,
    DEFAULT_DEALS,
    DEFAULT_EXPERT_NODE_LIMIT,
    DEFAULT_MISSION_NODE_LIMIT,
    DEFAULT_SEARCH_NODE_LIMIT,
    DEFAULT_STARTS,
    DEFAULT_TIME_LIMIT,
    MAX_STARTS,
    PLAYERS,
    CheckOptions,
    deal_seed,
    parse_band,
    start_arrangements,
)
from .report import (
    CHECK_FORMAT,
    FAIL,
    OK,
    SKIPPED,
    WARN,
    CheckReport,
    aggregate,
    fmt_num,
    fmt_pct,
    foresight_sentence,
    outcome_bounds,
    wilson,
    wilson_union,
)
from .run import CheckInterrupted, deal_tasks, plan_tasks, run_check, run_task, spec_fingerprint
from .tally import ProgressFn
from .terminal import print_report, progress_bar

__all__ = [
    "BARE_BUDGET", "CHECK_FORMAT", "DEFAULT_DEALS", "DEFAULT_STARTS", "DEFAULT_EXPERT_NODE_LIMIT",
    "DEFAULT_MISSION_NODE_LIMIT", "DEFAULT_SEARCH_NODE_LIMIT", "DEFAULT_BANDS", "DEFAULT_TIME_LIMIT", "FAIL",
    "MAX_STARTS", "OK", "PLAYERS", "SKIPPED", "WARN", "CheckOptions", "CheckReport",
    "CheckInterrupted", "ProgressFn", "aggregate", "deal_tasks", "deal_seed", "fmt_num", "fmt_pct",
    "foresight_sentence", "parse_band",
    "outcome_bounds", "plan_tasks", "print_report", "progress_bar", "run_check", "run_task",
    "spec_fingerprint", "start_arrangements", "wilson", "wilson_union",
]
