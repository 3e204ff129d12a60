"""The `rove` command line (docs/FORMATS.md, "Commands"): a thin layer over library functions.

Heavy libraries (OR-Tools, ReportLab) are imported inside the commands that use
them, so ``rove --help`` and ``rove validate`` start fast.

Unlike the other modules this one does not use ``from __future__ import annotations``:
Typer reads every command's parameters at every start, and string annotations it must
evaluate, twice a parameter (``inspect.signature(eval_str=True)`` and
``get_type_hints``), which took about 40 ms of each start; as objects they are read
directly.
"""

import errno
import functools
import json
import math
import os
import signal
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from .defaults import (
    CHECK_BATCH,
    CHECK_MAX_DEALS,
    CHECK_MISSION_NODES,
    CHECK_SEER_NODES,
    CHECK_STARTS,
    CHECK_THOUGHTFUL_DEALS,
    CHECK_TIME_LIMIT,
    EXPERT_GAME_NODES,
    QUICK_SEARCH_NODES,
    SEER_NODES,
    SOLVE_NODES,
)
from .errors import InputError, SolverBug
from .outputs import (
    MANIFEST,
    Outputs,
    Terminated,
    check_output,
    foreign_entries,
    manifest_text,
    names_a_folder,
    prepare_stdio,
    read_manifest,
    stop_signals_handled,
    write_output,
)
from .words import listed, plural

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a process stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of our output went away (`rove ... | head`)

MAX_DEALS = 100_000
"""Most deals per difficulty ``rove check`` takes (docs/LIMITS.md)."""
MAX_NODES = 10**12
"""Largest node limit an option takes: days of search, and far inside what the search
core counts in (a 64-bit integer; 10^20 used to end in an OverflowError)."""

#: help and usage errors in Click's plain format: Typer's Rich format imports Rich, its
#: Markdown parser and Pygments to print them, most of the start-up of `rove --help` (the
#: commands that draw tables or progress bars import Rich themselves)
HELP_MARKUP = None

app = typer.Typer(
    name="rove",
    help="Rules engine, solvers, puzzle books and print-and-play cards for the solo card game ROVE.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
)
generate_app = typer.Typer(help="Generate new content from a spec.", no_args_is_help=True,
                           rich_markup_mode=HELP_MARKUP)
app.add_typer(generate_app, name="generate")

F = TypeVar("F", bound=Callable[..., Any])


def _print_version(value: bool) -> None:
    if value:
        from .about import version_text

        typer.echo(version_text())
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print the version, the search core's build and where the bundled decks are.")] = False,
) -> None:
    """Rules engine, solvers, puzzle books and print-and-play cards for the solo card game ROVE."""


def say(message: str) -> None:
    """A line on stderr; a stderr that cannot be written is no reason for a traceback."""
    try:
        typer.echo(message, err=True)
    except (OSError, ValueError):
        pass


def fail_input(message: str) -> typer.Exit:
    """Print a bad-input message on stderr; the caller raises the returned Exit(2)."""
    say(message)
    return typer.Exit(EXIT_INPUT)


def _silence_stdout() -> None:
    """Point a broken stdout at /dev/null, so that what is still buffered does not fail
    again (with an "Exception ignored" message) when Python exits."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        pass


_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF, errno.EROFS}


def _output_failed(exc: OSError) -> typer.Exit:
    """An OSError that reached a command: a broken stdout, or a file that could not be used."""
    if exc.filename is not None:
        return fail_input(f"{exc.filename}: {exc.strerror or exc}")
    if exc.errno == errno.EPIPE:  # the reader of stdout went away: stop quietly, as `cat` does
        _silence_stdout()
        return typer.Exit(EXIT_BROKEN_PIPE)
    try:  # anything stdout could not take must not fail again at exit
        sys.stdout.flush()
    except (OSError, ValueError):
        _silence_stdout()
    if exc.errno in _WRITE_ERRORS:  # a stream without a name: stdout (rove's files say their name)
        return fail_input(f"rove: cannot write to standard output: {exc.strerror or exc}; "
                          "the output is incomplete")
    return fail_input(f"rove: {exc.strerror or exc}")


def _refuse_non_finite(command: str, values: dict[str, Any]) -> None:
    """Every float option of every command is a finite number: Click's float ranges let
    ``nan`` through (no comparison with it is true) and ``inf`` means nothing a limit,
    a size or a margin can use.  Checked here, where every command passes, so that no
    option can slip by (tests/test_hostile.py walks them all)."""
    for name, value in values.items():
        if isinstance(value, float) and not math.isfinite(value):
            flag = "--" + name.replace("_", "-")
            raise fail_input(f"{command}: {flag} {value}: give a finite number (for no limit, leave a "
                             "limit out)")


def stopped(exc: KeyboardInterrupt) -> tuple[str, int]:
    """How a stop is said, and its exit code: ``interrupted (Ctrl-C)`` and 130, or
    ``stopped by SIGTERM`` (SIGHUP) and 143 (129): a command that reports its own stop
    names the signal that came, in one message."""
    if isinstance(exc, Terminated):
        return f"stopped by {signal.Signals(exc.signum).name}", 128 + exc.signum
    return "interrupted (Ctrl-C)", EXIT_INTERRUPTED


def handles_input_errors(fn: F) -> F:
    """Bad input becomes `path:line: message` lines on stderr and exit code 2, never a traceback.

    So does an output that cannot be written (a full disk, `> /dev/full`); a closed pipe
    on stdout stops quietly with 141; Ctrl-C stops with a short message and 130, SIGTERM
    and SIGHUP with 143 and 129 (every output is written through ``Outputs``, so none is
    left half-written, and a worker pool ends its workers on the way out)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        prepare_stdio()
        try:
            _refuse_non_finite(fn.__name__.replace("_", " "), kwargs)
            try:
                with stop_signals_handled():
                    result = fn(*args, **kwargs)
            except typer.Exit:
                sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit
                raise
            sys.stdout.flush()
            return result
        except InputError as exc:
            for p in exc.problems:
                say(str(p))
            raise typer.Exit(EXIT_INPUT) from None
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM or SIGHUP (Terminated)
            words, code = stopped(exc)
            say(f"rove: {words}; no output was left half-written")
            raise typer.Exit(code) from None
        except OSError as exc:
            raise _output_failed(exc) from None

    return wrapper  # type: ignore[return-value]


def file_path(value: str | Path) -> Path:
    """An output file option's value (its Typer ``parser``): a name ending in ``/`` is
    refused as a bad option value (exit 2), as it names a folder, not a file."""
    text = os.fspath(value)
    if names_a_folder(text):
        raise typer.BadParameter(f"{text!r} names a folder, not a file; give a file name (to write "
                                 "into that folder, add the file's name after the last /)")
    return Path(text)


def spec_ref_for(spec_arg: str, out_file: Path | None) -> str:
    """How a written position names its spec: bundled names stay names, paths are made
    relative to the folder of the file being written (docs/FORMATS.md, "Paths inside files")."""
    from .spec import bundled_name, resolve_spec_ref

    path = resolve_spec_ref(spec_arg)
    if bundled_name(path) == spec_arg:
        return spec_arg
    base = (out_file.parent if out_file else Path.cwd()).resolve()
    return os.path.relpath(path.resolve(), base)


# --------------------------------------------------------------------------- validate


@app.command()
@handles_input_errors
def validate(
    files: Annotated[list[Path], typer.Argument(
        help="Spec or position YAML files (or bundled spec names).")],
) -> None:
    """Check card specs and positions; every problem as `path:line: message`."""
    from .spec import resolve_spec_ref, spec_from_data
    from .yamlio import LineDict, load_yaml_file

    problems = []
    for f in files:
        path = resolve_spec_ref(str(f))  # a bundled name ("standard") as every command takes it
        try:
            data = load_yaml_file(path, "spec or position (YAML)")
            fmt = data.get("format") if isinstance(data, LineDict) else None
            if isinstance(fmt, str) and fmt.startswith("rove-position"):
                from .position import position_from_data  # not needed for a spec

                pos = position_from_data(data, str(path), path.parent)
                typer.echo(f"{f}: ok (position, goal {pos.goal}, spec {pos.spec.name!r})")
            else:
                spec = spec_from_data(data, path)  # not read again: a pipe gives its text once
                typer.echo(f"{f}: ok (spec {spec.name!r}: {len(spec.modules)} modules, "
                           f"{len(spec.cards)} cards, {spec.missions_to_win} missions to win)")
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)


# --------------------------------------------------------------------------- new


@app.command()
@handles_input_errors
def new(
    output: Annotated[Path, typer.Argument(parser=file_path, help="The deck file to write (YAML).")],
    start: Annotated[str, typer.Option("--from", help="The bundled deck to start from.")] = "standard",
    force: Annotated[bool, typer.Option(help="Replace the file if it exists.")] = False,
) -> None:
    """Start a deck of your own: write a bundled deck, its comments included, as a file to edit."""
    from .spec import bundled_spec_text

    text = bundled_spec_text(start)
    check_output(output, "FILE")
    if output.exists() and not force:
        raise InputError.single(str(output), None, "exists already; give another file name, or "
                                                   "--force to replace it")
    write_output(output, text)
    typer.echo(f"wrote {output}: the {start} deck, to edit; check it with `rove validate {output}`",
               err=True)


# --------------------------------------------------------------------------- deal


class Difficulty(str, Enum):
    normal = "normal"
    hard = "hard"
    impossible = "impossible"


@app.command()
@handles_input_errors
def deal(
    seed: Annotated[int, typer.Option(help="Seed: the same seed always gives the same deal.")],
    spec: Annotated[str, typer.Option(help="Bundled spec name or path.")] = "standard",
    difficulty: Annotated[Difficulty, typer.Option(help="Starting hand 5, 4 or 3.")] = Difficulty.normal,
    output: Annotated[Path | None, typer.Option("-o", "--output", parser=file_path,
                                                help="Write here instead of stdout.")] = None,
) -> None:
    """Write a random fresh deal as a position (YAML)."""
    from dataclasses import replace

    from .generators.deals import deal as make_deal
    from .position import dump_position
    from .spec import load_spec

    sp = load_spec(spec)
    if output is not None:
        check_output(output, "-o", inputs=sp.sources)
    pos = make_deal(sp, seed, difficulty.value)
    pos = replace(pos, spec_ref=spec_ref_for(spec, output))
    text = dump_position(pos)
    if output:
        write_output(output, text)
        typer.echo(f"wrote {output}", err=True)
    else:
        sys.stdout.write(text)


# --------------------------------------------------------------------------- solve


class Engine(str, Enum):
    search = "search"
    cpsat = "cpsat"


@app.command()
@handles_input_errors
def solve(
    position: Annotated[Path, typer.Argument(help="Position YAML (goal: game or mission).")],
    engine: Annotated[Engine, typer.Option(help="search: exact A*/depth-first; "
                                                "cpsat: the OR-Tools model.")] = Engine.search,
    time_limit: Annotated[float | None, typer.Option(help="Seconds; when reached the answer is 'unknown' (exit 3).",
                                                     min=0)] = None,
    optimal: Annotated[bool, typer.Option(help="For goal: game, find the win that spends fewest points.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    node_limit: Annotated[int, typer.Option(help="Search nodes (search engine); when reached the answer is "
                                                 "'unknown' (exit 3). Memory grows about 100 bytes a node.",
                                            min=1, max=MAX_NODES)] = SOLVE_NODES,
    seer_node_limit: Annotated[int, typer.Option(help="goal: game: nodes for the seer, which looks for a win "
                                                      "where the exact search stopped at --node-limit (0: no "
                                                      "seer; it never proves a loss).",
                                                 min=0, max=MAX_NODES)] = SEER_NODES,
) -> None:
    """Solve a position: solved (plan), unsolvable (proven) or unknown (limit reached)."""
    from .position import load_position

    pos = load_position(position)
    if engine is Engine.cpsat:
        from .solve.cpsat import solve_cpsat

        result = solve_cpsat(pos, time_limit=time_limit, optimal=optimal)
    else:
        from .solve.search import solve as solve_search

        result = solve_search(pos, time_limit=time_limit, max_nodes=node_limit, optimal=optimal,
                              seer_nodes=seer_node_limit)
    if as_json:
        typer.echo(json.dumps(result.to_json()))
    else:
        from .replay import describe_state
        from .replay import replay as run_replay

        typer.echo(f"{result.status} ({result.engine}, goal {result.goal}, "
                   f"{result.seconds:.2f} s, {result.nodes} nodes)")
        if result.plan is not None:
            opt = "optimal" if result.optimal else "not proven optimal"
            typer.echo(f"{plural(result.points, 'point')}, {plural(result.cards, 'card')}, "
                       f"{plural(result.abilities, 'ability', 'abilities')}; {opt}")
            if result.stats.get("witness") == "seer":
                typer.echo("found by the seer after the exact search stopped at its node limit")
            r = run_replay(pos, list(result.plan))
            for i, (a, s) in enumerate(zip(result.plan, r.states)):
                typer.echo(f"step {i}: {a}")
                typer.echo(describe_state(r.deck, s))
        elif result.reason:
            typer.echo(result.reason)
    raise typer.Exit(result.exit_code)


# --------------------------------------------------------------------------- check


@app.command()
@handles_input_errors
def check(
    spec: Annotated[str, typer.Argument(help="Bundled spec name or path.")],
    deals: Annotated[int | None, typer.Option(help=f"Random deals per difficulty, a fixed count (at most "
                                                   f"{MAX_DEALS:,}); by default deals in batches of "
                                                   f"{CHECK_BATCH} until the expert's interval settles "
                                                   "the verdict or narrows to 10 points.", min=0,
                                              max=MAX_DEALS)] = None,
    max_deals: Annotated[int, typer.Option(help="Most deals per difficulty without --deals; the default "
                                                "is the fewest at which the interval is always at most "
                                                "10 points wide.",
                                           min=1, max=MAX_DEALS)] = CHECK_MAX_DEALS,
    band: Annotated[list[str] | None, typer.Option(help="DIFFICULTY=LOW-HIGH, the target band of the expert's "
                                                        "win rate (repeat for each), e.g. normal=0.45-0.65; "
                                                        "the defaults are in docs/reference/check.md.")] = None,
    thoughtful_deals: Annotated[int | None, typer.Option(help="Deals per difficulty the thoughtful player plays, "
                                                              "the first ones (default: all of --deals, else "
                                                              f"{CHECK_THOUGHTFUL_DEALS}).", min=0)] = None,
    difficulty: Annotated[str, typer.Option(help="Comma-separated: "
                                                 "normal,hard,impossible.")] = "normal,hard,impossible",
    seed: Annotated[int, typer.Option(help="Deal i uses a seed derived from this and i.")] = 0,
    node_limit: Annotated[int, typer.Option(help=f"Exact-search nodes per deal; above {QUICK_SEARCH_NODES:,} "
                                                 "the deals the cheap rungs leave get a dear search of this many.",
                                            min=1, max=MAX_NODES)] = QUICK_SEARCH_NODES,
    mission_node_limit: Annotated[int, typer.Option(help="Search nodes per mission-cost solve.",
                                                    min=1, max=MAX_NODES)] = CHECK_MISSION_NODES,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per solve (0: none); a safety net only: a solve "
                                                          "stopped by it makes the run timing-dependent.",
                                                     min=0)] = CHECK_TIME_LIMIT,
    starts: Annotated[int | None, typer.Option(help="Start arrangements for mission costs (a seeded sample; "
                                                    "720: all of six modules; 0 skips).", min=0)] = CHECK_STARTS,
    jobs: Annotated[int | None, typer.Option(help="Local worker processes (default and at most all cores; "
                                                  "1 runs in this process).", min=1)] = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address for --executor dask.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every figure as one JSON object.")] = False,
    report: Annotated[Path | None, typer.Option(parser=file_path, help="Also write a PDF report here.")] = None,
    player: Annotated[str, typer.Option(help="Who plays the deals, comma-separated: thoughtful (exact solver, "
                                             "draw order known), expert (sees only the table).")
                      ] = "thoughtful,expert",
    expert_node_limit: Annotated[int, typer.Option(help="Search nodes per deal for the expert (a game it cannot "
                                                        "finish within them counts as lost).",
                                                   min=1, max=MAX_NODES)] = EXPERT_GAME_NODES,
    seer_node_limit: Annotated[int, typer.Option(help="Search nodes per deal for the seer, which looks for a win "
                                                      "(0: no seer; it never proves a loss); above "
                                                      f"{CHECK_SEER_NODES:,} the deals the cheap rungs leave "
                                                      "get the seer again.",
                                                 min=0, max=MAX_NODES)] = CHECK_SEER_NODES,
    sensitivity: Annotated[bool, typer.Option("--sensitivity", help="Also play every card's points and bonus "
                                              "one lower and one higher (4 more expert games per card, "
                                              "deal and difficulty).")] = False,
    verify_losses: Annotated[bool, typer.Option(help="Prove every lost deal again with the distance tables "
                                                     "off (node-bounded by --node-limit); exit 1 on any "
                                                     "disagreement.")] = False,
) -> None:
    """Does a card design work? Static checks, then win rates over seeded random deals:
    the thoughtful one (draw order known) and the expert player's, side by side."""
    from rich.console import Console

    from .check import CheckInterrupted, CheckOptions, parse_band, print_report, progress_bar, run_check
    from .executors import default_jobs, make_executor
    from .spec import load_spec

    cores = default_jobs()
    if jobs is not None and jobs > cores and executor == "local":
        raise fail_input(f"check: --jobs {jobs} is more than the {plural(cores, 'core')} this machine "
                         f"gives rove; give at most --jobs {cores}")
    sp = load_spec(spec)
    if report is not None:
        check_output(report, "--report", inputs=sp.sources)
    try:
        opts = CheckOptions(deals=deals, difficulties=tuple(d.strip() for d in difficulty.split(",") if d.strip()),
                            seed=seed, node_limit=node_limit, mission_node_limit=mission_node_limit,
                            time_limit=time_limit or None, starts=starts,
                            players=tuple(p.strip() for p in player.split(",") if p.strip()),
                            expert_node_limit=expert_node_limit, seer_node_limit=seer_node_limit,
                            max_deals=max_deals, thoughtful_deals=thoughtful_deals,
                            bands=parse_band(band or []))
        ex = make_executor(executor, jobs, scheduler)
    except (ValueError, RuntimeError) as exc:
        raise fail_input(f"check: {exc}") from None
    if sensitivity and "expert" not in opts.players:
        raise fail_input("check: --sensitivity measures the expert's win rate; add expert to --player")
    interrupted: CheckInterrupted | None = None
    with progress_bar(Console(stderr=True)) as progress:
        try:
            with ex:
                result = run_check(sp, opts, executor=ex, progress=progress,
                                   verify_losses=verify_losses, ref=spec)
                if sensitivity:
                    from .check.sensitivity import sensitivity as measure

                    result.sensitivity = measure(sp, opts, result, ex,
                                                 lambda done, total: progress("sensitivity", done, total))
                    result.refresh_advice()
        except OSError as exc:  # e.g. an unreachable Dask scheduler
            raise fail_input(f"check: {exc}") from None
        except SolverBug as exc:  # a lost verdict disproved: never bad input
            typer.echo(f"check: {exc}; a bug in rove's solver, please report it", err=True)
            raise typer.Exit(EXIT_FAIL) from None
        except CheckInterrupted as stop:
            interrupted = stop
    if interrupted is not None:
        _print_partial_check(interrupted, as_json)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        print_report(result, Console())
    if report is not None:
        from .pdf.report import render_report_pdf

        write_output(report, render_report_pdf(result))
        typer.echo(f"wrote {report}", err=True)


def _print_partial_check(stop: Any, as_json: bool) -> None:
    """Ctrl-C during ``rove check``: the figures of the work that finished, marked
    partial, then the interrupt goes on (exit 130, nothing written to --report)."""
    from rich.console import Console

    from .check import print_report

    if stop.report is not None:
        if as_json:
            typer.echo(json.dumps(stop.report.to_json(), indent=2))
        else:
            print_report(stop.report, Console())
    words, code = stopped(stop.signal)
    if stop.report is not None:
        say(f"check: {words}; the figures above are partial: they cover only the work "
            "that had finished (see 'partial'); nothing was written to --report")
    else:
        say(f"check: {words} before any deal was finished; no figures")
    raise typer.Exit(code)


# --------------------------------------------------------------------------- tune


def _targets(values: list[str]) -> tuple[tuple[str, float], ...]:
    """``--target normal=0.55`` (a share, or a percentage such as 55%) as (difficulty, rate)."""
    out = []
    for v in values:
        d, sep, r = v.partition("=")
        try:
            rate = float(r.rstrip("%")) / (100 if r.endswith("%") else 1)
        except ValueError:
            rate = -1.0
        if not sep or not 0 <= rate < math.inf:  # nan and inf are no rate
            raise ValueError(f"--target {v!r} is not DIFFICULTY=RATE; write e.g. --target normal=0.55")
        out.append((d.strip(), rate))
    return tuple(out)


def _cost_range(value: str) -> tuple[int, int]:
    """``--mission-cost 2-4`` (or one number) as (low, high)."""
    lo, sep, hi = value.partition("-")
    try:
        return (int(lo), int(hi if sep else lo))
    except ValueError:
        raise ValueError(f"--mission-cost {value!r} is not LOW-HIGH; write e.g. --mission-cost 2-4") from None


@app.command()
@handles_input_errors
def tune(
    spec: Annotated[str, typer.Argument(help="Bundled spec name or path: the designer's deck.")],
    target: Annotated[list[str], typer.Option(help="DIFFICULTY=RATE, the expert win rate to reach "
                                                   "(repeat for each difficulty), e.g. normal=0.55.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Tuned spec YAML to write.")],
    vary: Annotated[str, typer.Option(help="Comma-separated, what may change: points, bonus, missions "
                                           "(swapped for generated ones).")] = "points,bonus",
    mission_cost: Annotated[str, typer.Option(help="With --vary missions: LOW-HIGH, the proven cost "
                                                   "(points by movement) of the generated missions.")] = "2-4",
    seed: Annotated[int, typer.Option(help="Deal i uses a seed derived from this and i.")] = 0,
    deals: Annotated[int, typer.Option(help="Deals per difficulty each chosen deck is judged on at "
                                             "least (more where --tolerance needs them: 300 at 0.03).",
                                        min=200, max=MAX_DEALS)] = 200,
    first_deals: Annotated[int, typer.Option(help="Deals per difficulty for every candidate on the "
                                                  "first rung of successive halving (and for your deck "
                                                  "at first).", min=1)] = 25,
    max_change: Annotated[int, typer.Option(help="How far each card's points or bonus may move.",
                                            min=1, max=9)] = 3,
    max_rounds: Annotated[int, typer.Option(help="Steps the search takes at most.", min=0)] = 30,
    expert_node_limit: Annotated[int, typer.Option(help="Search nodes per game for the expert.",
                                                   min=1)] = EXPERT_GAME_NODES,
    jobs: Annotated[int | None, typer.Option(help="Local worker processes (default and at most all cores; "
                                                  "1 runs in this process).", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    tolerance: Annotated[float, typer.Option(help="How near each target the rate on deals no choice saw "
                                                  "must land, as a share (0.03: 3 points; 0.01 to 0.5).",
                                            min=0.01, max=0.5)] = 0.03,
    min_points: Annotated[int, typer.Option(help="The fewest base points a card may be tuned to "
                                                 "(0 allows it, with a warning).", min=0, max=8)] = 0,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address for --executor dask.")] = None,
) -> None:
    """Move the cards' points and bonuses (and swap missions for generated ones) until the
    expert's win rate lands within --tolerance of each target over deals no choice saw;
    write the tuned spec (the designer's file, only its numbers changed).

    Exit 0: reached; 1: not reached (the closest deck is written, the gap and the reason
    stated); 130: interrupted (the closest deck so far is written)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .check.tune import TuneOptions, TuneState, tuned_yaml
    from .check.tune import tune as run_tune
    from .check.variants import zero
    from .executors import default_jobs, make_executor
    from .generators.missions import GenerationFailed
    from .spec import load_spec

    cores = default_jobs()
    if jobs is not None and jobs > cores and executor == "local":
        raise fail_input(f"tune: --jobs {jobs} is more than the {plural(cores, 'core')} this machine "
                         f"gives rove; give at most --jobs {cores}")
    sp = load_spec(spec)
    check_output(output, "-o", inputs=sp.sources)
    try:
        opts = TuneOptions(targets=_targets(target), vary=tuple(v.strip() for v in vary.split(",") if v.strip()),
                           seed=seed, deals=deals, first_deals=first_deals, max_change=max_change,
                           max_rounds=max_rounds, expert_node_limit=expert_node_limit,
                           mission_cost=_cost_range(mission_cost), tolerance=tolerance,
                           min_points=min_points)
        ex = make_executor(executor, jobs, scheduler)
    except (ValueError, RuntimeError) as exc:
        raise fail_input(f"tune: {exc}") from None
    state = TuneState(sp, opts, zero(sp))
    err = Console(stderr=True)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True) as bar, ex:
            task = bar.add_task("the designer's deck", total=None)
            logged = 0

            def progress(what: str, done: int, total: int) -> None:
                nonlocal logged
                for line in state.log[logged:]:
                    bar.console.print(line)
                logged = len(state.log)
                if what:
                    bar.update(task, description=what, completed=done, total=total)

            run_tune(sp, opts, executor=ex, state=state, progress=progress)
            for line in state.log[logged:]:
                bar.console.print(line)
    except OSError as exc:  # e.g. an unreachable Dask scheduler
        raise fail_input(f"tune: {exc}") from None
    except GenerationFailed as exc:
        say(f"tune: --vary missions: the generator found no missions costing {mission_cost} ({exc}); "
            "try another --mission-cost or --seed; nothing written")
        raise typer.Exit(EXIT_FAIL) from None
    except KeyboardInterrupt as exc:
        words, code = stopped(exc)
        if state.best_rates is not None:
            write_output(output, tuned_yaml(state, interrupted=True))
            say(f"tune: {words}; wrote the closest deck so far to {output}")
        else:
            say(f"tune: {words} before any deck was measured; nothing written")
        raise typer.Exit(code) from None
    write_output(output, tuned_yaml(state))
    if as_json:
        typer.echo(json.dumps(state.to_json(), indent=2))
    gaps = ", ".join(f"{d} {g:+.1f}" for d, g in state.gaps().items())
    changes = f"{plural(state.cards_changed, 'card')}: " + ("; ".join(state.to_json()["changes"]) or "nothing")
    if state.zero_points():
        say("tune: warning: the tuned deck leaves " + ", ".join(state.zero_points()) + " at 0 base "
            "points (a card that scores nothing by its points); --min-points 1 forbids it")
    unseen = ""
    if state.held_out is not None:
        unseen = f" over {state.held_out_span}, which no choice of the search saw"
    if state.reached:
        say(f"tune: every target reached ({gaps} points from target{unseen}) after "
            f"{plural(state.rounds, 'round')}, {plural(state.games, 'game')}; changed {changes}; "
            f"wrote {output}")
        return
    say(f"tune: target not reached within {100 * tolerance:g} points: {state.stopped}; closest deck "
        f"written to {output}, still {gaps} points of win rate from the target(s){unseen} (changed "
        f"{changes}); a wider --max-change or more --max-rounds may help")
    raise typer.Exit(EXIT_FAIL)


# --------------------------------------------------------------------------- replay


@app.command()
@handles_input_errors
def replay(
    position: Annotated[Path, typer.Argument(help="Position YAML.")],
    plan: Annotated[Path, typer.Argument(help="Plan: JSON list of actions (or solve --json "
                                              "output), or notation one action a line.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Replay a plan step by step through the rules engine; say where and why it breaks."""
    from .actions import load_plan
    from .position import load_position
    from .replay import describe_state
    from .replay import replay as run_replay

    pos = load_position(position)
    actions = load_plan(plan)
    r = run_replay(pos, actions)
    if as_json:
        typer.echo(json.dumps(r.to_json(), sort_keys=False))
    else:
        typer.echo(f"start (missions done {pos.missions_done}):")
        typer.echo(describe_state(r.deck, r.start))
        for i, (a, s) in enumerate(zip(actions, r.states)):
            typer.echo(f"step {i}: {a}")
            typer.echo(describe_state(r.deck, s))
        if r.first_illegal is not None:
            i, why = r.first_illegal
            typer.echo(f"step {i}: {actions[i]}: illegal: {why}")
        else:
            typer.echo(f"all {plural(len(actions), 'step')} legal; goal "
                       f"{'reached' if r.goal_reached else 'not reached'}; "
                       f"{plural(r.points_spent, 'point')} spent, {plural(r.cards_played, 'card')} "
                       f"played, {plural(r.missions_completed, 'mission')} completed")
    raise typer.Exit(EXIT_OK if r.legal else EXIT_FAIL)


# --------------------------------------------------------------------------- cards


class Paper(str, Enum):
    a4 = "a4"
    letter = "letter"


class CardLayout(str, Enum):
    duplex = "duplex"
    gutterfold = "gutterfold"
    fronts = "fronts"


class CardSize(str, Enum):
    poker = "poker"
    bridge = "bridge"
    mini = "mini"
    mpc = "mpc"


class ColorModel(str, Enum):
    rgb = "rgb"
    cmyk = "cmyk"


def _parse_offset(text: str) -> tuple[float, float]:
    """``X,Y`` in millimetres (``--back-offset 0.5,-1``)."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = (float(v) for v in parts)
    except ValueError:
        raise fail_input(f"cards: --back-offset {text!r}: give X,Y in millimetres, e.g. "
                         "--back-offset 0.5,-1") from None
    if not (abs(x) <= 10 and abs(y) <= 10):
        raise fail_input(f"cards: --back-offset {text!r}: each of X and Y must be within "
                         "-10..10 mm; print rove cards --calibration to read the offset")
    return x, y


def _list_presets(as_json: bool) -> None:
    from rich.console import Console

    from .pdf.presets import preset_rows
    from .screen import FittedTable

    rows = preset_rows()
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    table = FittedTable(title="rove cards --preset NAME (options given on the command line win)")
    for col in ("name", "output", "card", "bleed mm", "safe mm", "dpi", "order", "colour", "stamp"):
        table.add_column(col, no_wrap=col in ("name", "order"))
    for r in rows:
        output = f"sheets {r['paper']} {r['layout']}" if r["shape"] == "sheets" else str(r["shape"])
        table.add_row(str(r["name"]), output, str(r["card"]), f"{r['bleed_mm']:g}", f"{r['safe_mm']:g}",
                      str(r["dpi"]), str(r["order"]), str(r["color"]), "yes" if r["stamp"] else "no")
    console = Console()
    console.print(table)
    for r in rows:
        console.print(f"[bold]{r['name']}[/bold]: {r['summary']}", highlight=False)


def _write_calibration(output: Path, paper: str, offset: tuple[float, float]) -> None:
    from .pdf.calibration import render_calibration_pdf

    check_output(output, "-o")
    write_output(output, render_calibration_pdf(paper, offset))
    typer.echo(f"wrote {output}: print it double-sided (flip on long edge) at actual size, "
               "then read X and Y off the back")


@app.command()
@handles_input_errors
def cards(
    spec: Annotated[str, typer.Argument(help="Bundled spec name or path.")] = "standard",
    output_text: Annotated[str | None, typer.Option("-o", "--output", help="Where to write: a PDF, or a "
                                                     "folder for the png and tts presets (default "
                                                     "output/cards.pdf, output/cards-PRESET.pdf or "
                                                     "output/cards-PRESET/).")] = None,
    preset: Annotated[str | None, typer.Option(help="Print destination: home-a4 (default), home-letter, "
                                                    "drivethrucards, thegamecrafter, makeplayingcards, "
                                                    "tts; see --list-presets.")] = None,
    list_presets: Annotated[bool, typer.Option("--list-presets", help="Print what every preset sets, "
                                                                      "then stop.")] = False,
    calibration: Annotated[bool, typer.Option("--calibration", help="Write the one-sheet duplex test "
                                                                    "(default output/calibration.pdf) "
                                                                    "to read --back-offset from.")
                           ] = False,
    paper: Annotated[Paper | None, typer.Option(help="Paper size of home sheets.")] = None,
    layout: Annotated[CardLayout | None, typer.Option(help="Home sheets: duplex: backs on the next page; "
                                                           "gutterfold: fronts and backs side by side; "
                                                           "fronts: no backs.")] = None,
    bleed: Annotated[float | None, typer.Option(help="Bleed in mm around each card.", min=0, max=6)] = None,
    card: Annotated[CardSize | None, typer.Option(help="Card size (mpc: 63 x 88 mm).")] = None,
    safe: Annotated[float | None, typer.Option(help="Safe zone in mm inside the cut, for the preflight.",
                                               min=0, max=20)] = None,
    dpi: Annotated[int | None, typer.Option(help="Resolution of PNG output and previews (tagged in "
                                                 "the files).", min=36, max=1200)] = None,
    color: Annotated[ColorModel | None, typer.Option(help="Colour model of the PDF: rgb or cmyk.")] = None,
    back_offset: Annotated[str | None, typer.Option(help="X,Y in mm: shift duplex back pages to line up "
                                                         "with the fronts (read it off --calibration).")
                           ] = None,
    stamp: Annotated[bool | None, typer.Option("--stamp/--no-stamp", help="Deck name and spec hash small "
                                                                        "on every face, to tell playtest "
                                                                        "printouts apart (default: on for "
                                                                        "home presets, off for services).")
                     ] = None,
    stamp_date: Annotated[str | None, typer.Option(help="A date (or any short text) added to the stamp; "
                                                        "implies --stamp.")] = None,
    preflight: Annotated[bool, typer.Option("--preflight", help="Check the files against the preset's "
                                                                "rules before writing (always done "
                                                                "for service presets); exit 1 on a "
                                                                "failure.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the preflight (or --list-presets) as "
                                                         "JSON.")] = False,
    png_dir: Annotated[Path | None, typer.Option(help="Also write a PNG preview of each card here.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace previews --png-dir already holds "
                                                        "(of the same names).")] = False,
) -> None:
    """Print files of every card of a spec, both sides: home sheets or a print service's files."""
    if list_presets:
        _list_presets(as_json)
        return
    from .pdf.presets import PRESETS
    from .pdf.printing import cards_output, check_destinations, check_stale_files, render_print, resolve_job

    name = preset or "home-a4"
    if name not in PRESETS:
        raise fail_input(f"cards: unknown preset {name!r}; use one of {', '.join(PRESETS)} "
                         "(rove cards --list-presets shows what each sets)")
    offset = _parse_offset(back_offset) if back_offset is not None else None
    try:
        output = cards_output(output_text, preset, calibration=calibration)
    except ValueError as exc:
        raise fail_input(f"cards: {exc}") from None
    if calibration:
        if PRESETS[name].shape != "sheets":
            raise fail_input(f"cards: --calibration is for printing at home; preset {name} is "
                             "for a print service (use --preset home-a4 or home-letter)")
        _write_calibration(output, paper.value if paper else PRESETS[name].paper, offset or (0.0, 0.0))
        return
    from .spec import load_spec

    sp = load_spec(spec)
    check_destinations(sp, output, PRESETS[name].shape, png_dir, force)
    try:
        job = resolve_job(name, paper=paper.value if paper else None, layout=layout.value if layout else None,
                          bleed_mm=bleed, card=card.value if card else None, safe_mm=safe, dpi=dpi,
                          color=color.value if color else None, back_offset_mm=offset,
                          stamp=stamp, stamp_date=stamp_date)
        files = render_print(sp, job)
    except ValueError as exc:
        raise fail_input(f"cards: {exc}") from None
    if preflight or as_json or job.preset.service:
        _preflight_cards(files, as_json)
    check_stale_files(output, files)
    _write_cards(sp, job, files, output, png_dir, say if as_json else typer.echo)


def _preflight_cards(files: Any, as_json: bool) -> None:
    """The preflight of the files made (``rove.pdf.preflight``), printed or as JSON; exit 1
    when a file fails it, before anything is written."""
    from .pdf.preflight import preflight_lines, run_preflight

    result = run_preflight(files)
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        for line in preflight_lines(result):
            typer.echo(line)
    if not result.ok:
        raise typer.Exit(EXIT_FAIL)


def _write_cards(sp: Any, job: Any, files: Any, output: Path, png_dir: Path | None,
                 done: Callable[[str], None]) -> None:
    """The card files and the previews, put into place together at the end, then a line
    that says what was written (``done``: stderr when stdout carries the JSON)."""
    with Outputs() as out:
        if files.pdf is not None:
            out.file(output, files.pdf)
        else:
            with out.filling(output) as staging:
                for fname, data in files.files.items():
                    (staging / fname).write_bytes(data)
        written = []
        if png_dir is not None:
            from .pdf.cards import write_card_pngs

            with out.filling(png_dir) as staging:
                written = write_card_pngs(sp, job.opts, staging)
        out.commit()
    if job.shape == "sheets":
        from .pdf.cards import cards_per_page, plan_pages

        pages = len(plan_pages(sp, job.opts))
        done(f"wrote {output}: {plural(pages, 'page')}, {cards_per_page(sp, job.opts)} cards a "
             f"{'page' if job.opts.layout == 'gutterfold' else 'sheet'}")
    elif files.pdf is not None:
        done(f"wrote {output}")
    else:
        done(f"wrote {len(files.files)} files to {output}")
    if png_dir is not None:
        done(f"wrote {len(written)} PNG previews to {png_dir}")


# --------------------------------------------------------------------------- book


def _check_export_dir(export_dir: Path, force: bool, inputs: tuple[Path, ...]) -> bool:
    """Refuse (InputError), before any work, an --export-dir that holds an earlier export
    unless --force is given.  With --force the folder is replaced as a whole, which is
    safe only when it holds nothing but what the earlier export wrote (its manifest lists
    that): a folder holding anything else, or export files no manifest lists, is refused,
    and so is one whose replacement would take the input spec or the current folder with
    it, or whose parent takes no new folder.  A folder with no earlier export is refused
    with --force too when it holds anything: ``--force`` on ``.`` or on a folder of the
    user's own files must not pass where it would be refused once an export is there.
    Returns whether the folder is replaced."""
    from .book.build import earlier_export

    old = earlier_export(export_dir)
    recorded = read_manifest(export_dir)
    if (old or recorded is not None) and not force:
        raise InputError.single(str(export_dir), None, (
            f"--export-dir already holds files of an earlier export ({listed(old or [MANIFEST])}); "
            "give a new or empty folder, or add --force to replace that export"))
    if not force or not export_dir.is_dir():
        return False  # a new export is written beside what is there
    if not old and recorded is None:  # nothing to replace, and --force must not mean "anything"
        foreign = foreign_entries(export_dir, set())
        if foreign:
            raise InputError.single(str(export_dir), None, (
                f"--export-dir holds files no rove export wrote ({listed(foreign)}); --force "
                "replaces only an export's own files: leave --force out to write the export "
                "beside them, or give another folder (nothing was written)"))
        return False
    real = os.path.realpath(export_dir)
    for what, path in [*(("the input file", p) for p in inputs), ("the current folder", Path.cwd())]:
        if Path(os.path.relpath(os.path.realpath(path), real)).parts[:1] != (os.pardir,):
            raise InputError.single(str(export_dir), None, (
                f"--export-dir holds {what} {path}; --force would remove it with the folder's "
                "old contents: give another folder"))
    if recorded is None:
        raise InputError.single(str(export_dir), None, (
            f"--export-dir holds files no rove export recorded as its own ({listed(old)}); "
            "--force replaces only what an export wrote: move them away or give another folder"))
    foreign = foreign_entries(export_dir, recorded)
    if foreign:
        raise InputError.single(str(export_dir), None, (
            f"--export-dir holds files the earlier export did not write ({listed(foreign)}); "
            "--force replaces only an export's own files: move them away or give another folder"))
    parent = os.path.dirname(real)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError.single(str(export_dir), None, (
            f"--force: cannot replace the folder: cannot write into {parent} (permission "
            "denied), where the new export is written before it takes the old one's place"))
    return True


@app.command()
@handles_input_errors
def book(
    spec: Annotated[str, typer.Option(help="Bundled spec name or path.")] = "standard",
    count: Annotated[int, typer.Option(help="Number of puzzles (1 to 1,000).", min=1)] = 30,
    mix: Annotated[str, typer.Option(help="Share of each kind: mission (Mission in N), hand "
                                          "(hand puzzles), deal (verified deals), campaign "
                                          "(generated mission sequences); default "
                                          "mission:55,hand:20,deal:15,campaign:10.")] = "",
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same book, byte for byte.")] = 1,
    paper: Annotated[str, typer.Option(help="Page size: a5, a4, letter or 6x9 (inches); inner "
                                            "margins leave room for binding.")] = "a5",
    per_page: Annotated[int, typer.Option(help="Puzzles a page: 1, or 2 (two neighbouring small "
                                               "Mission in N share a page).", min=1, max=2)] = 1,
    title: Annotated[str, typer.Option(help="The cover's title.")] = "ROVE",
    subtitle: Annotated[str, typer.Option(help="The line under the title.")] = "Verified Puzzles",
    imposition: Annotated[str, typer.Option(help="none, or booklet: pages two a side on A4 (A5 and A4 "
                                                 "pages) or Letter (Letter and 6x9 pages) in "
                                                 "saddle-stitch order, to print double-sided, fold "
                                                 "and staple.")] = "none",
    time_limit: Annotated[float, typer.Option(help="Seconds allowed for any one solve (a safety net: "
                                                   "node limits decide which puzzles are kept).", min=0.1)] = 30.0,
    jobs: Annotated[int | None, typer.Option(help="Local worker processes (default and at most all cores; "
                                                  "1 runs in this process); the book is the same for any.",
                                             min=1)] = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address for --executor dask.")] = None,
    output: Annotated[Path, typer.Option("-o", "--output", parser=file_path,
                                         help="PDF to write.")] = Path("output/book.pdf"),
    export_dir: Annotated[Path | None, typer.Option(help="Also write every puzzle as NAME.yaml and its "
                                                         "solution as NAME.plan.json here, with the "
                                                         "specs they use under specs/ and a list of "
                                                         "the puzzles, index.json.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an earlier export in --export-dir (only "
                                                        "if the folder holds nothing else).")] = False,
) -> None:
    """Verified puzzle book: generated puzzles, each proven by the solvers, graded 1-5 stars."""
    from dataclasses import replace as dc_replace

    from rich.console import Console

    from .book import build
    from .book.puzzles import Settings
    from .book.terminal import book_progress
    from .executors import default_jobs, make_executor
    from .spec import load_spec

    options = build.BookOptions(count=count, mix=mix or build.DEFAULT_MIX, seed=seed, paper=paper,
                                per_page=per_page, title=title, subtitle=subtitle,
                                imposition=imposition, export=export_dir is not None,
                                settings=dc_replace(Settings(), time_limit=time_limit))
    for problem in options.problems():
        raise fail_input(f"book: {problem}")
    cores = default_jobs()
    if jobs is not None and jobs > cores and executor == "local":
        raise fail_input(f"book: --jobs {jobs} is more than the {plural(cores, 'core')} this machine "
                         f"gives rove; give at most --jobs {cores}")
    sp = load_spec(spec)
    check_output(output, "-o", inputs=sp.sources)
    replace_export = False
    if export_dir is not None:
        check_output(export_dir, "--export-dir", folder=True, inputs=sp.sources, others=[("-o", output)])
        replace_export = _check_export_dir(export_dir, force, sp.sources)
    try:
        ex = make_executor(executor, jobs, scheduler)
    except (ValueError, RuntimeError) as exc:
        raise fail_input(f"book: {exc}") from None
    try:  # every puzzle is checked on the reader's deck (SolverBug: a bug, never expected)
        with book_progress(Console(stderr=True), count) as progress, ex:
            made = build.make_book(sp, options, ex, progress)
    except OSError as exc:  # e.g. an unreachable Dask scheduler
        raise fail_input(f"book: {exc}") from None
    except (build.ExportCheckFailed, SolverBug) as exc:
        typer.echo(f"book: internal check failed: {exc}; nothing written (a bug in rove, "
                   "please report it)", err=True)
        raise typer.Exit(EXIT_FAIL) from None
    if not made.puzzles:
        typer.echo(f"book: no puzzle could be generated and proven from spec {spec!r}; "
                   "nothing written", err=True)
        raise typer.Exit(EXIT_FAIL)
    _write_book(made, output, export_dir, replace_export)
    short = f" (only {len(made.puzzles)} of {count} could be proven)" if len(made.puzzles) < count else ""
    for line in made.short:
        typer.echo(f"book: {line}", err=True)
    typer.echo(f"wrote {output}: {plural(len(made.puzzles), 'puzzle')}{short}", err=True)
    if export_dir is not None:
        typer.echo(f"wrote {len(made.files)} files to {export_dir}", err=True)


def _write_book(made: Any, output: Path, export_dir: Path | None, replace_export: bool) -> None:
    """The book's PDF and export folder, written aside and put into place together at the
    end: an error or Ctrl-C leaves neither half-written."""
    files, data = made.files, made.pdf
    pdf_in_export = None  # the PDF's path inside the export folder, when -o puts it there
    if export_dir is not None:
        inside = Path(os.path.relpath(os.path.realpath(output), os.path.realpath(export_dir)))
        if inside.parts and inside.parts[0] != os.pardir:
            if any(name == inside.as_posix() or name.startswith(inside.as_posix() + "/")
                   for name in files):
                raise fail_input(f"book: -o {output} is {inside.as_posix()} of --export-dir "
                                 f"{export_dir}, a file of the export; give another file name "
                                 "(nothing was written)")
            pdf_in_export = inside
    with Outputs() as out:
        if export_dir is not None:
            written = [*files, *([pdf_in_export.as_posix()] if pdf_in_export is not None else [])]
            with out.filling(export_dir, replace=replace_export) as staging:
                for name, text in {**files, MANIFEST: manifest_text(written)}.items():
                    target = staging / name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_text(text, encoding="utf-8", newline="")
                if replace_export and pdf_in_export is not None:
                    # the old folder goes as a whole: the PDF goes into the new one
                    target = staging / pdf_in_export
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)
        if not (replace_export and pdf_in_export is not None):
            out.file(output, data)
        out.commit()


# --------------------------------------------------------------------------- play


@app.command()
@handles_input_errors
def play(
    position: Annotated[Path | None, typer.Argument(help="Position YAML: a puzzle, a deal, a book "
                                                         "export's puzzle; or a book's export folder "
                                                         "(its puzzle list); or use --deal.")] = None,
    deal_seed: Annotated[int | None, typer.Option("--deal", help="Play a fresh deal of this seed "
                                                                 "instead of a file.")] = None,
    spec: Annotated[str, typer.Option(help="With --deal: bundled spec name or path.")] = "standard",
    difficulty: Annotated[Difficulty, typer.Option(help="With --deal: starting hand 5, 4 or 3.")
                          ] = Difficulty.normal,
    host: Annotated[str, typer.Option(help="Interface to serve on; anything but the loopback "
                                           "interface lets other machines play.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: a free one).", min=0, max=65535)] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
    open_deck: Annotated[bool, typer.Option("--open", help="Show the draw pile's order.")] = False,
    coach_nodes: Annotated[int, typer.Option(help="Exact-search nodes for one verdict or hint (on a deal: "
                                                   "once asked again; the first answer searches 100,000 at most).",
                                              min=1)] = 1_000_000,
    expert_nodes: Annotated[int, typer.Option(help="Search nodes for one expert decision.", min=1)] = 300_000,
) -> None:
    """Play a position in the browser, with the solvers as a coach (a local web app)."""
    from .play.run import PlayOptions, run_play

    if (position is None) == (deal_seed is None):
        raise fail_input("play: give a position file or --deal SEED (one of them)")
    run_play(PlayOptions(position=position, deal_seed=deal_seed, spec=spec, difficulty=difficulty.value,
                         host=host, port=port, browser=not no_browser, open_deck=open_deck,
                         coach_nodes=coach_nodes, expert_nodes=expert_nodes), say)


# --------------------------------------------------------------------------- generate


@generate_app.command("missions")
@handles_input_errors
def generate_missions(
    spec: Annotated[str, typer.Option(help="Bundled spec name or path: its modules, and the "
                                           "cards whose missions are replaced.")] = "standard",
    count: Annotated[int, typer.Option(help="Missions in the sequence.", min=1, max=24)] = 7,
    min_cost: Annotated[int, typer.Option(help="Least optimal cost (points) of each mission.", min=0)] = 2,
    max_cost: Annotated[int, typer.Option(help="Greatest optimal cost (points) of each mission.", min=1, max=12)] = 4,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same missions, byte for byte.")] = 0,
    time_limit: Annotated[float | None, typer.Option(help="Seconds for the whole run (default: none).", min=1)] = None,
    sides: Annotated[str, typer.Option(help="The side every module moves on while costs are proven: "
                                            "active, or spent (the deck's spent sides, as once every "
                                            "ability is used).")] = "active",
    output: Annotated[Path | None, typer.Option("-o", "--output", parser=file_path,
                                                help="Card spec YAML to write (default: print it).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the sequence, costs and plans as JSON.")] = False,
) -> None:
    """A new mission sequence, each cost proven by CP-SAT and the search engine, as a card spec.

    From the standard start (spec order, 2 rows x 3 columns), mission k's
    proven optimal cost (points, moving without abilities) from where
    mission k-1 ended lies between --min-cost and --max-cost, ramping up.
    The missions replace those of the spec's first cards.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .generators.missions import GenerationFailed, PartialCampaign, Settings
    from .generators.missions import generate_missions as run
    from .spec import load_spec

    sp = load_spec(spec)
    if sides not in ("active", "spent"):
        raise fail_input(f"generate missions: --sides is {sides!r}; use active or spent")
    settings = Settings(count=count, min_cost=min_cost, max_cost=max_cost, seed=seed,
                        time_limit=time_limit, sides="spent" if sides == "spent" else "active")
    bad = settings.problems(sp)
    if bad:
        raise fail_input("generate missions: " + "; ".join(bad))
    if output is not None:
        check_output(output, "-o", inputs=sp.sources)
    stopped = ""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("proving missions", total=count)
        try:
            campaign = run(sp, settings, lambda done, total: bar.update(task, completed=done))
        except GenerationFailed as exc:
            if exc.partial is None:
                typer.echo(f"generate missions: {exc}; nothing written", err=True)
                raise typer.Exit(EXIT_FAIL if exc.proven else EXIT_UNKNOWN) from None
            campaign = exc.partial  # the missions proven before the limit are kept, not thrown away
            stopped = str(exc)
    text = campaign.yaml()
    if output is not None:
        write_output(output, text)
    if as_json:
        typer.echo(json.dumps(campaign.to_json(), indent=2))
    elif output is None:
        typer.echo(text, nl=False)
    if not as_json:
        from .screen import FittedTable

        table = FittedTable(title=f"{len(campaign.missions)} missions, optimal cost (points, by movement) in "
                            f"[{min_cost}, {max_cost}]")
        for col in ("card", "title", "cells", "named", "target", "cost", "rounds"):
            table.add_column(col, justify="right" if col in ("cells", "target", "cost", "rounds") else "left")
        for m in campaign.missions:
            named, = m.pattern.named
            table.add_row(m.card, m.title, str(m.pattern.size), named, str(m.target), str(m.cost),
                          str(m.rounds))
        Console(stderr=True).print(table)
    if output is not None:
        typer.echo(f"wrote {output}", err=True)
    if isinstance(campaign, PartialCampaign):
        typer.echo(f"generate missions: {stopped}; the {len(campaign.missions)} of {count} missions proven "
                   f"before it are {'written to ' + str(output) if output else 'printed'} (their spec "
                   "keeps the other cards' missions)", err=True)
        raise typer.Exit(EXIT_UNKNOWN)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
