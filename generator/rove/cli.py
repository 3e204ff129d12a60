"""The `rove` command line (CONTRACT section 4): a thin layer over library functions.

Heavy libraries (OR-Tools, ReportLab) are imported inside the commands that use
them, so ``rove --help`` and ``rove validate`` start fast.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from .errors import InputError, SolverBug
from .outputs import Outputs, check_output, write_output

EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a process stopped by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: the reader of our output went away (`rove ... | head`)

MAX_DEALS = 100_000
"""Most deals per difficulty ``rove check`` takes (docs/LIMITS.md)."""

app = typer.Typer(
    name="rove",
    help="Rules engine, solvers, puzzle books and print-and-play cards for the solo card game ROVE.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
generate_app = typer.Typer(help="Generate new content from a spec.", no_args_is_help=True)
app.add_typer(generate_app, name="generate")

F = TypeVar("F", bound=Callable[..., Any])


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
        return fail_input(f"rove: cannot write the output: {exc.strerror or exc}")
    return fail_input(f"rove: {exc.strerror or exc}")


def handles_input_errors(fn: F) -> F:
    """Bad input becomes `path:line: message` lines on stderr and exit code 2, never a traceback.

    So does an output that cannot be written (a full disk, `> /dev/full`); a closed pipe
    on stdout stops quietly with 141; Ctrl-C stops with a short message and 130 (every
    output is written through ``Outputs``, so none is left half-written)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
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
        except KeyboardInterrupt:
            say("rove: interrupted (Ctrl-C); no output was left half-written")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except OSError as exc:
            raise _output_failed(exc) from None

    return wrapper  # type: ignore[return-value]


def plural(n: int | None, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else (words or word + 's')}"


def spec_input(spec_arg: str) -> Path:
    """The file a spec argument names (a bundled name or a path), to keep outputs off it."""
    from .spec import resolve_spec_ref

    return resolve_spec_ref(spec_arg)


def spec_ref_for(spec_arg: str, out_file: Path | None) -> str:
    """How a written position names its spec: bundled names stay names, paths are made
    relative to the folder of the file being written (CONTRACT: paths inside files)."""
    from .spec import BUNDLED_DIR, resolve_spec_ref

    path = resolve_spec_ref(spec_arg)
    if path.resolve().parent == BUNDLED_DIR and path.stem == spec_arg:
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
    from .position import position_from_data
    from .spec import load_spec, resolve_spec_ref
    from .yamlio import LineDict, load_yaml_file

    problems = []
    for f in files:
        path = resolve_spec_ref(str(f))  # a bundled name ("standard") as every command takes it
        try:
            data = load_yaml_file(path, "spec or position (YAML)")
            fmt = data.get("format") if isinstance(data, LineDict) else None
            if isinstance(fmt, str) and fmt.startswith("rove-position"):
                pos = position_from_data(data, str(path), path.parent)
                typer.echo(f"{f}: ok (position, goal {pos.goal}, spec {pos.spec.name!r})")
            else:
                spec = load_spec(path)
                typer.echo(f"{f}: ok (spec {spec.name!r}: {len(spec.modules)} modules, "
                           f"{len(spec.cards)} cards, {spec.missions_to_win} missions to win)")
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)


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
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")] = None,
) -> None:
    """Write a random fresh deal as a position (YAML)."""
    from dataclasses import replace

    from .generators.deals import deal as make_deal
    from .position import dump_position
    from .spec import load_spec

    if output is not None:
        check_output(output, "-o", inputs=[spec_input(spec)])
    sp = load_spec(spec)
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
) -> None:
    """Solve a position: solved (plan), unsolvable (proven) or unknown (limit reached)."""
    from .position import load_position

    pos = load_position(position)
    if engine is Engine.cpsat:
        from .solve.cpsat import solve_cpsat

        result = solve_cpsat(pos, time_limit=time_limit, optimal=optimal)
    else:
        from .solve.search import solve as solve_search

        result = solve_search(pos, time_limit=time_limit, optimal=optimal)
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
    deals: Annotated[int, typer.Option(help=f"Random deals per difficulty (at most {MAX_DEALS:,}).",
                                       min=0, max=MAX_DEALS)] = 100,
    difficulty: Annotated[str, typer.Option(help="Comma-separated: "
                                                 "normal,hard,impossible.")] = "normal,hard,impossible",
    seed: Annotated[int, typer.Option(help="Deal i uses a seed derived from this and i.")] = 0,
    node_limit: Annotated[int, typer.Option(help="Search nodes per deal: the limit that keeps results reproducible.",
                                            min=1)] = 2_000_000,
    mission_node_limit: Annotated[int, typer.Option(help="Search nodes per mission-cost solve.", min=1)] = 200_000,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per solve (0: none); a safety net only: a solve "
                                                          "stopped by it makes the run timing-dependent.",
                                                     min=0)] = 600.0,
    starts: Annotated[int | None, typer.Option(help="Start arrangements for mission costs (default all, "
                                                    "at most 720; 0 skips).", min=0)] = None,
    jobs: Annotated[int | None, typer.Option(help="Local worker processes (default and at most all cores; "
                                                  "1 runs in this process).", min=1)] = None,
    executor: Annotated[str, typer.Option(help="local (process pool) or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address for --executor dask.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print every figure as one JSON object.")] = False,
    report: Annotated[Path | None, typer.Option(help="Also write a PDF report here.")] = None,
    player: Annotated[str, typer.Option(help="Who plays the deals, comma-separated: thoughtful (exact solver, "
                                             "draw order known), expert (sees only the table).")
                      ] = "thoughtful,expert",
    expert_node_limit: Annotated[int, typer.Option(help="Search nodes per deal for the expert (a game it cannot "
                                                        "finish within them counts as lost).", min=1)] = 2_000_000,
    sensitivity: Annotated[bool, typer.Option("--sensitivity", help="Also play every card's points and bonus "
                                              "one lower and one higher (4 more expert games per card, "
                                              "deal and difficulty).")] = False,
) -> None:
    """Does a card design work? Static checks, then win rates over seeded random deals:
    the thoughtful one (draw order known) and the expert player's, side by side."""
    from rich.console import Console

    from .check import CheckOptions, print_report, progress_bar, run_check
    from .executors import default_jobs, make_executor
    from .spec import load_spec

    cores = default_jobs()
    if jobs is not None and jobs > cores and executor == "local":
        raise fail_input(f"check: --jobs {jobs} is more than the {plural(cores, 'core')} this machine "
                         f"gives rove; give at most --jobs {cores}")
    if report is not None:
        check_output(report, "--report", inputs=[spec_input(spec)])
    sp = load_spec(spec)
    try:
        opts = CheckOptions(deals=deals, difficulties=tuple(d.strip() for d in difficulty.split(",") if d.strip()),
                            seed=seed, node_limit=node_limit, mission_node_limit=mission_node_limit,
                            time_limit=time_limit or None, starts=starts,
                            players=tuple(p.strip() for p in player.split(",") if p.strip()),
                            expert_node_limit=expert_node_limit)
        ex = make_executor(executor, jobs, scheduler)
    except (ValueError, RuntimeError) as exc:
        raise fail_input(f"check: {exc}") from None
    if sensitivity and "expert" not in opts.players:
        raise fail_input("check: --sensitivity measures the expert's win rate; add expert to --player")
    with progress_bar(Console(stderr=True)) as progress:
        try:
            with ex:
                result = run_check(sp, opts, executor=ex, progress=progress)
                if sensitivity:
                    from .check.sensitivity import sensitivity as measure

                    result.sensitivity = measure(sp, opts, result, ex,
                                                 lambda done, total: progress("sensitivity", done, total))
                    result.refresh_advice()
        except OSError as exc:  # e.g. an unreachable Dask scheduler
            raise fail_input(f"check: {exc}") from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        print_report(result, Console())
    if report is not None:
        from .pdf.report import render_report_pdf

        write_output(report, render_report_pdf(result))
        typer.echo(f"wrote {report}", err=True)


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
        if not sep or rate < 0:
            raise ValueError(f"--target {v!r} is not DIFFICULTY=RATE; write e.g. --target normal=0.55")
        out.append((d.strip(), rate))
    return tuple(out)


@app.command()
@handles_input_errors
def tune(
    spec: Annotated[str, typer.Argument(help="Bundled spec name or path: the designer's deck.")],
    target: Annotated[list[str], typer.Option(help="DIFFICULTY=RATE, the expert win rate to reach "
                                                   "(repeat for each difficulty), e.g. normal=0.55.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Tuned spec YAML to write.")],
    vary: Annotated[str, typer.Option(help="Comma-separated numbers to move: points, bonus.")] = "points,bonus",
    seed: Annotated[int, typer.Option(help="Deal i uses a seed derived from this and i.")] = 0,
    deals: Annotated[int, typer.Option(help="Deals per difficulty for the final figures and the "
                                             "tolerance (at least 200).", min=200, max=MAX_DEALS)] = 200,
    first_deals: Annotated[int, typer.Option(help="Deals per difficulty for every candidate on the "
                                                  "first rung of successive halving.", min=1)] = 25,
    max_change: Annotated[int, typer.Option(help="How far each card's points or bonus may move.",
                                            min=1, max=9)] = 3,
    max_rounds: Annotated[int, typer.Option(help="Steps the search takes at most.", min=0)] = 30,
    expert_node_limit: Annotated[int, typer.Option(help="Search nodes per game for the expert.",
                                                   min=1)] = 2_000_000,
    jobs: Annotated[int | None, typer.Option(help="Local worker processes (default and at most all cores; "
                                                  "1 runs in this process).", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
) -> None:
    """Move the cards' points and bonuses until the expert's win rate meets each target
    (inside its Wilson 95% interval over the final deals); write the tuned spec.

    Exit 0: reached; 1: not reached (the closest deck is written and the gap stated);
    130: interrupted (the closest deck so far is written)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .check.tune import TuneOptions, TuneState, tuned_yaml, zero
    from .check.tune import tune as run_tune
    from .executors import default_jobs, make_executor
    from .spec import load_spec

    cores = default_jobs()
    if jobs is not None and jobs > cores:
        raise fail_input(f"tune: --jobs {jobs} is more than the {plural(cores, 'core')} this machine "
                         f"gives rove; give at most --jobs {cores}")
    check_output(output, "-o", inputs=[spec_input(spec)])
    sp = load_spec(spec)
    try:
        opts = TuneOptions(targets=_targets(target), vary=tuple(v.strip() for v in vary.split(",") if v.strip()),
                           seed=seed, deals=deals, first_deals=first_deals, max_change=max_change,
                           max_rounds=max_rounds, expert_node_limit=expert_node_limit)
    except ValueError as exc:
        raise fail_input(f"tune: {exc}") from None
    state = TuneState(sp, opts, zero(sp))
    err = Console(stderr=True)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), console=err, transient=True) as bar, \
                make_executor("local", jobs) as ex:
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
    except KeyboardInterrupt:
        if state.best_rates is not None:
            write_output(output, tuned_yaml(state, interrupted=True))
            say(f"tune: interrupted (Ctrl-C); wrote the closest deck so far to {output}")
        else:
            say("tune: interrupted (Ctrl-C) before any deck was measured; nothing written")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    write_output(output, tuned_yaml(state))
    if as_json:
        typer.echo(json.dumps(state.to_json(), indent=2))
    gaps = ", ".join(f"{d} {g:+.1f}" for d, g in state.gaps().items())
    changes = "; ".join(state.to_json()["changes"]) or "nothing"
    if state.reached:
        say(f"tune: every target reached ({gaps} points from target) after {plural(state.rounds, 'round')}, "
            f"{plural(state.games, 'game')}; changed {changes}; wrote {output}")
        return
    say(f"tune: target not reached; closest deck written to {output}, still {gaps} points of win "
        f"rate from the target(s) (changed {changes}); a wider --max-change or more --max-rounds may help")
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


@app.command()
@handles_input_errors
def cards(
    spec: Annotated[str, typer.Argument(help="Bundled spec name or path.")] = "standard",
    output: Annotated[Path, typer.Option("-o", "--output", help="PDF to write.")] = Path("output/cards.pdf"),
    paper: Annotated[Paper, typer.Option(help="Paper size.")] = Paper.a4,
    layout: Annotated[CardLayout, typer.Option(help="duplex: backs on the next page; gutterfold: fronts and "
                                                    "backs side by side; fronts: no backs.")] = CardLayout.duplex,
    bleed: Annotated[float, typer.Option(help="Bleed in mm around each card.", min=0, max=6)] = 0.0,
    card: Annotated[CardSize, typer.Option(help="Card size.")] = CardSize.poker,
    png_dir: Annotated[Path | None, typer.Option(help="Also write a PNG preview of each card here.")] = None,
) -> None:
    """Print-and-play PDF of every card of a spec, both sides."""
    from .pdf.cards import CardOptions, render_cards_pdf
    from .spec import load_spec

    inputs = [spec_input(spec)]
    check_output(output, "-o", inputs=inputs)
    if png_dir is not None:
        check_output(png_dir, "--png-dir", folder=True, inputs=inputs, others=[("-o", output)])
    sp = load_spec(spec)
    opts = CardOptions(paper=paper.value, layout=layout.value, bleed_mm=bleed, card=card.value)
    data = render_cards_pdf(sp, opts)
    with Outputs() as out:  # the PDF and the PNGs are put into place together at the end
        out.file(output, data)
        written = []
        if png_dir is not None:
            from .pdf.cards import write_card_pngs

            written = write_card_pngs(sp, opts, out.folder(png_dir))
        out.commit()
    typer.echo(f"wrote {output}")
    if png_dir is not None:
        typer.echo(f"wrote {len(written)} PNG previews to {png_dir}")


# --------------------------------------------------------------------------- book


def _check_export_dir(export_dir: Path, force: bool, inputs: list[Path]) -> bool:
    """Refuse (InputError), before any work, an --export-dir that holds an earlier export
    unless --force is given; with --force, one whose replacement would take the input spec
    or the current folder with it, or whose parent takes no new folder.  Returns whether
    the folder is to be replaced as a whole (it exists and is not empty, and --force)."""
    from .book.build import earlier_export

    old = earlier_export(export_dir)
    if old and not force:
        shown = ", ".join(old[:4]) + (f" and {len(old) - 4} more" if len(old) > 4 else "")
        raise InputError.single(str(export_dir), None, (
            f"--export-dir already holds files of an earlier export ({shown}); give a new or "
            "empty folder, or add --force to replace its contents as a whole"))
    if not force or not export_dir.is_dir() or not any(os.scandir(export_dir)):
        return False
    real = os.path.realpath(export_dir)
    for what, path in [*(("the input file", p) for p in inputs), ("the current folder", Path.cwd())]:
        if Path(os.path.relpath(os.path.realpath(path), real)).parts[:1] != (os.pardir,):
            raise InputError.single(str(export_dir), None, (
                f"--export-dir holds {what} {path}; --force would remove it with the folder's "
                "old contents: give another folder"))
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
    count: Annotated[int, typer.Option(help="Number of puzzles.", min=1, max=200)] = 30,
    mix: Annotated[str, typer.Option(help="Share of each kind: mission (Mission in N), hand "
                                          "(hand puzzles), deal (verified deals), campaign "
                                          "(generated mission sequences); default "
                                          "mission:55,hand:20,deal:15,campaign:10.")] = "",
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same book, byte for byte.")] = 1,
    paper: Annotated[str, typer.Option(help="Page size: a5 or letter.")] = "a5",
    time_limit: Annotated[float, typer.Option(help="Seconds allowed for any one solve (a safety net: "
                                                   "node limits decide which puzzles are kept).", min=0.1)] = 30.0,
    output: Annotated[Path, typer.Option("-o", "--output", help="PDF to write.")] = Path("output/book.pdf"),
    export_dir: Annotated[Path | None, typer.Option(help="Also write every puzzle as NAME.yaml and its "
                                                         "solution as NAME.plan.json here, with the "
                                                         "specs they use under specs/.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace the contents of an --export-dir that "
                                                        "already holds an earlier export, as a whole.")] = False,
) -> None:
    """Verified puzzle book: generated puzzles, each proven by the solvers, graded 1-5 stars."""
    from dataclasses import replace as dc_replace

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .book.build import (
        DEFAULT_MIX,
        ExportCheckFailed,
        export_files,
        generate_book,
        parse_mix,
        render_book,
    )
    from .generators.puzzles import KIND_NAMES, Settings
    from .spec import load_spec

    try:
        weights = parse_mix(mix or DEFAULT_MIX)
    except ValueError as exc:
        raise fail_input(f"book: --mix: {exc}") from None
    if paper not in ("a5", "letter"):
        raise fail_input(f"book: --paper is {paper!r}; use a5 or letter")
    inputs = [spec_input(spec)]
    check_output(output, "-o", inputs=inputs)
    replace_export = False
    if export_dir is not None:
        check_output(export_dir, "--export-dir", folder=True, inputs=inputs, others=[("-o", output)])
        replace_export = _check_export_dir(export_dir, force, inputs)
    sp = load_spec(spec)
    settings = dc_replace(Settings(), time_limit=time_limit)
    with Progress(TextColumn("{task.description:>16}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def progress(kind: str, done: int, total: int) -> None:
            if kind not in tasks:
                tasks[kind] = bar.add_task(KIND_NAMES.get(kind, kind), total=total)
            bar.update(tasks[kind], completed=done, total=max(total, done))

        puzzles = generate_book(sp, count, weights, seed, settings, progress)
    if not puzzles:
        typer.echo(f"book: no puzzle could be generated and proven from spec {spec!r}; "
                   "nothing written", err=True)
        raise typer.Exit(EXIT_FAIL)
    try:  # both check every puzzle on the reader's deck first (SolverBug: a bug, never expected)
        data = render_book(sp, puzzles, seed, paper)
        files = export_files(puzzles, sp) if export_dir is not None else {}
    except (ExportCheckFailed, SolverBug) as exc:
        typer.echo(f"book: internal check failed: {exc}; nothing written (a bug in rove, "
                   "please report it)", err=True)
        raise typer.Exit(EXIT_FAIL) from None
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
    # the PDF and the export folder are written aside and put into place together at the
    # end: an error or Ctrl-C leaves neither half-written
    with Outputs() as out:
        if export_dir is not None:
            staging = out.folder(export_dir, replace=replace_export)
            for name, text in files.items():
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
    short = f" (only {len(puzzles)} of {count} could be proven)" if len(puzzles) < count else ""
    typer.echo(f"wrote {output}: {plural(len(puzzles), 'puzzle')}{short}", err=True)
    if export_dir is not None:
        typer.echo(f"wrote {len(files)} files to {export_dir}", err=True)


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
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Card spec YAML to write "
                                                 "(default: print it).")] = None,
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

    from .generators.missions import GenerationFailed, Settings
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
        check_output(output, "-o", inputs=[spec_input(spec)])
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("proving missions", total=count)
        try:
            campaign = run(sp, settings, lambda done, total: bar.update(task, completed=done))
        except GenerationFailed as exc:
            typer.echo(f"generate missions: {exc}; nothing written", err=True)
            raise typer.Exit(EXIT_FAIL if exc.proven else EXIT_UNKNOWN) from None
    text = campaign.yaml()
    if output is not None:
        write_output(output, text)
    if as_json:
        typer.echo(json.dumps(campaign.to_json(), indent=2))
    elif output is None:
        typer.echo(text, nl=False)
    if not as_json:
        from rich.table import Table

        table = Table(title=f"{count} missions, optimal cost (points, by movement) in "
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


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
