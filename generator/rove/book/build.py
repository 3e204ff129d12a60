"""Putting a book together: how many puzzles of each kind and grade, in which order,
and the files ``--export-dir`` writes.  The CLI only parses options and calls these.

Selection is deterministic: candidates are tried in seed-label order and accepted into
per-grade quotas (``star_quotas``: spread over 1..5 stars, the middle grades a little
fuller, so the book ramps from gentle to brutal).  A kind stops as soon as every quota is
full or its gap can be filled by spare candidates one star away (or when its attempts run
out); empty slots then take the spare candidates closest in grade, and a kind that still
falls short is topped up with Mission in N puzzles.  Verified deals cycle through normal, hard
and impossible.  The book is ordered by stars, then kind, then score.

Adding a kind: a generator in ``generate`` returning ``Puzzle``, its name in
``KIND_ORDER``, a maker in ``generate_book``, and its page and solution in
``rove.pdf.book`` (``BookWriter.puzzle`` / ``solution_block`` dispatch on the kind).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..actions import dumps_plan
from ..errors import SolverBug
from ..generators.puzzles import (
    DEAL_DIFFICULTIES,
    KIND_NAMES,
    Puzzle,
    Settings,
    campaign_puzzle,
    count_solutions,
    deal_puzzle,
    hand_puzzle,
    mission_puzzle,
    potential_stars,
)
from ..position import dump_position, normalized_cells
from ..spec import Spec
from .grade import GRADING_TEXT

KIND_ORDER = ("mission", "hand", "deal", "campaign")
DEFAULT_MIX = "mission:55,hand:20,deal:15,campaign:10"
#: candidates tried per puzzle wanted, and a floor, per kind
ATTEMPTS = {"mission": (8, 24), "hand": (10, 20), "deal": (6, 6), "campaign": (2, 3)}

Progress = Callable[[str, int, int], None]  # (kind, puzzles found, puzzles wanted)


def parse_mix(text: str) -> dict[str, int]:
    """``mission:60,hand:25,deal:15`` -> weights; raises ValueError saying what is wrong."""
    out: dict[str, int] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        name, sep, weight = part.partition(":")
        name = name.strip()
        if name not in KIND_ORDER:
            raise ValueError(f"unknown puzzle kind {name!r}; use {', '.join(KIND_ORDER)} "
                             f"(e.g. {DEFAULT_MIX})")
        if not sep:
            raise ValueError(f"'{part}' needs a weight, like {name}:50")
        try:
            w = int(weight)
        except ValueError:
            raise ValueError(f"weight {weight.strip()!r} of {name} is not a whole number") from None
        if w < 0:
            raise ValueError(f"weight of {name} is negative")
        if name in out:
            raise ValueError(f"{name} is given twice")
        out[name] = w
    if not out or sum(out.values()) == 0:
        raise ValueError("give at least one kind with a positive weight, like mission:100")
    return out


def split_count(count: int, mix: dict[str, int]) -> dict[str, int]:
    """Puzzles per kind: largest remainder, ties to the kind named first in KIND_ORDER."""
    total = sum(mix.values())
    exact = {k: count * w / total for k, w in mix.items()}
    got = {k: int(v) for k, v in exact.items()}
    rest = count - sum(got.values())
    for k in sorted(exact, key=lambda k: (-(exact[k] - got[k]), KIND_ORDER.index(k)))[:rest]:
        got[k] += 1
    return {k: got.get(k, 0) for k in KIND_ORDER if got.get(k, 0)}


def star_quotas(n: int) -> dict[int, int]:
    """n puzzles spread evenly over 1..5 stars (puzzle i of n aims at 1 + 4i/(n-1) stars,
    rounded half up; a lone puzzle aims at 3)."""
    out = {s: 0 for s in range(1, 6)}
    for i in range(n):
        out[3 if n == 1 else 1 + int(4 * i / (n - 1) + 0.5)] += 1
    return out


def _fill(kind: str, n: int, make: Callable[[str], Puzzle | None], seed: int,
          keys: set[tuple], progress: Progress | None,
          finish: Callable[[Puzzle], Puzzle] | None = None) -> list[Puzzle]:
    quotas = star_quotas(n)
    chosen: dict[int, list[Puzzle]] = {s: [] for s in quotas}
    if progress:
        progress(kind, 0, n)
    spare: list[Puzzle] = []
    per, floor = ATTEMPTS[kind]

    def enough() -> bool:
        """Every quota is full, or its gap can be filled by spares one star away."""
        avail = {s: sum(p.stars == s for p in spare) for s in quotas}
        for s in sorted(quotas):
            gap = quotas[s] - len(chosen[s])
            for t in (s - 1, s + 1):
                take = min(gap, avail.get(t, 0))
                gap -= take
                if t in avail:
                    avail[t] -= take
            if gap > 0:
                return False
        return True

    for i in range(max(floor, per * n)):
        if enough():
            break
        p = make(f"{seed}:{i}")
        if p is None or p.key in keys:
            continue
        keys.add(p.key)
        if potential_stars(p) > p.stars:
            # graded below what it is worth until its optimal solutions are counted: count
            # them while that grade has room or the kind has too few puzzles (only then is
            # the count worth its cost), and never print it under-graded
            pot = potential_stars(p)
            short = sum(map(len, chosen.values())) + len(spare) < n  # too few puzzles yet
            if finish is None or len(chosen[pot]) >= quotas[pot] and not short and not (
                    pot == 5 and chosen[5] and p.score > min(q.score for q in chosen[5])):
                continue
            p = finish(p)
            if potential_stars(p) > p.stars:
                continue  # not counted within its node budget
        if p.stars == 5 and len(chosen[5]) >= quotas[5] and chosen[5]:
            # the top grade keeps the hardest puzzles seen so far: the longest, least obvious
            weakest = min(chosen[5], key=lambda q: q.score)
            if p.score > weakest.score:
                chosen[5].remove(weakest)
                chosen[5].append(p)
                p = weakest
        if len(chosen[p.stars]) < quotas[p.stars]:
            chosen[p.stars].append(p)
            if progress:
                progress(kind, sum(map(len, chosen.values())), n)
        else:
            spare.append(p)
    for s in quotas:  # empty slots take the spare candidates closest in grade
        while len(chosen[s]) < quotas[s] and spare:
            best = min(spare, key=lambda p: (abs(p.stars - s), p.stars, spare.index(p)))
            spare.remove(best)
            chosen[s].append(best)
            if progress:
                progress(kind, sum(map(len, chosen.values())), n)
    return [p for s in sorted(chosen) for p in chosen[s]]


def _deals(n: int, spec: Spec, settings: Settings, seed: int, keys: set[tuple],
           progress: Progress | None) -> list[Puzzle]:
    out: list[Puzzle] = []
    per, floor = ATTEMPTS["deal"]
    if progress:
        progress("deal", 0, n)
    for slot in range(n):
        difficulty = DEAL_DIFFICULTIES[slot % len(DEAL_DIFFICULTIES)]
        for i in range(per):
            p = deal_puzzle(spec, f"{seed}:{slot}:{i}", settings, difficulty)
            if p is not None and p.key not in keys:
                keys.add(p.key)
                out.append(p)
                break
        if progress:
            progress("deal", len(out), n)
    return out


def generate_book(spec: Spec, count: int, mix: dict[str, int], seed: int,
                  settings: Settings = Settings(), progress: Progress | None = None,
                  ) -> list[Puzzle]:
    """``count`` verified puzzles (fewer only if even Mission in N runs dry), in book order."""
    counts = split_count(count, mix)
    keys: set[tuple] = set()
    found: list[Puzzle] = []
    makers = {
        "mission": lambda label: mission_puzzle(spec, label, settings),
        "hand": lambda label: hand_puzzle(spec, label, settings),
        "campaign": lambda label: campaign_puzzle(spec, label, settings),
    }

    def finish(p: Puzzle) -> Puzzle:
        return count_solutions(p, settings)

    for kind in ("hand", "deal", "campaign"):
        if kind in counts:
            if kind == "deal":
                got = _deals(counts[kind], spec, settings, seed, keys, progress)
            else:
                got = _fill(kind, counts[kind], makers[kind], seed, keys, progress, finish)
            found += got
            short = counts[kind] - len(got)
            if short:
                counts["mission"] = counts.get("mission", 0) + short
    if counts.get("mission"):
        found += _fill("mission", counts["mission"], makers["mission"], seed, keys, progress, finish)
    return sorted(found, key=lambda p: (p.stars, KIND_ORDER.index(p.kind), p.score, p.source))


# --------------------------------------------------------------------------- printing and export


def puzzle_name(number: int, p: Puzzle) -> str:
    return f"{number:02d}-{p.kind}"


def puzzle_title(p: Puzzle) -> str:
    """The puzzle's title as the book and the export print it (a deal without a
    difficulty is just a verified deal, never "Verified deal (None)")."""
    if p.kind == "deal" and not p.difficulty:
        return "Verified deal"
    return p.title


def _count(value: object) -> int | None:
    """``value`` as a whole number for the page, or None when it is not one: a bool (a
    flag where a count belongs), None, nan, a fraction."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _said(words: dict[int, str], value: object) -> str | None:
    """The words for a coded feature (``greedy``: 0, 1, 2), or None for anything else."""
    n = _count(value)
    return words.get(n) if n is not None else None


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def measured(p: Puzzle) -> tuple[str, ...]:
    """The graded features, in words, for the solutions section.  A feature that is not a
    number (a flag or None where a count belongs) is left out rather than printed."""
    f = p.features
    n = {name: _count(getattr(f, name)) for name in (
        "points", "cards", "abilities", "hand_size", "nodes", "traps", "wrong_plays", "plays",
        "branching", "first_moves", "actions", "solutions")}
    score = (f"score {p.score:.1f}" if isinstance(p.score, (int, float)) and not isinstance(p.score, bool)
             and math.isfinite(p.score) else None)
    words: list[str | None] = []
    if p.kind == "deal":
        if n["points"] is not None and n["cards"] is not None and n["abilities"] is not None:
            words.append(f"winning line of {_plural(n['points'], 'point')}, "
                         f"{_plural(n['cards'], 'card')} and "
                         f"{_plural(n['abilities'], 'ability', 'abilities')}")
        if n["hand_size"]:
            words.append(f"starting hand of {n['hand_size']}")
        if n["nodes"] is not None:
            words.append(f"the game solver examined {_plural(n['nodes'], 'position')}")
        return tuple(w for w in words if w)
    first_moves = (None if n["first_moves"] is None else "a unique optimal first move"
                   if n["first_moves"] == 1 else "2 or more optimal first moves")
    if p.kind == "campaign":
        costs = [_count(pos.current.points) if pos.current else 0 for pos, _ in p.legs]
        if all(c is not None for c in costs):
            words.append(f"{len(p.legs)} missions costing {', '.join(map(str, costs))} points on "
                         "the book's line (each proven optimal from where the line leaves the "
                         "layout, by CP-SAT and A*)")
        if n["traps"] is not None:
            words.append(f"{_plural(n['traps'], 'trap')} (missions after which some optimal "
                         "finish leaves the next one out of its budget)")
        words.append(_said({0: "a greedy player completes them all", 1: "a greedy player gets "
                            "stuck after the first mission", 2: "a greedy player fails the first "
                            "mission"}, f.greedy))
        words += [first_moves, score]
        return tuple(w for w in words if w)
    if p.kind == "mission":
        if n["points"] is not None:
            words.append(f"optimum {_plural(n['points'], 'point')} (A*)")
        words.append(first_moves)
    else:
        if n["points"] is not None and n["cards"] is not None:
            words.append(f"best {_plural(n['points'], 'point')} and {_plural(n['cards'], 'card')} (A*)")
        if n["wrong_plays"] is not None and n["plays"] is not None:
            words.append(f"{n['wrong_plays']} of {n['plays']} opening card plays fail or cost more")
        if f.bonus_needed is True:
            words.append("a bonus is needed")
    if n["abilities"]:
        words.append(f"{_plural(n['abilities'], 'ability', 'abilities')} needed")
    if n["actions"]:
        words.append(f"a plan of {_plural(n['actions'], 'action')}")
    if n["solutions"]:
        words.append("a unique optimal solution (up to the order of independent actions)"
                     if n["solutions"] == 1 else
                     f"{n['solutions']} essentially different optimal solutions")
    if n["branching"] is not None:
        words.append(f"{_plural(n['branching'], 'action')} at the start")
    words.append(_said({0: "a greedy player finds it", 1: "a greedy player overspends",
                        2: "a greedy player gets stuck"}, f.greedy))
    if n["nodes"] is not None:
        words.append(f"A* examined {_plural(n['nodes'], 'position')}")
    words.append(score)
    return tuple(w for w in words if w)


def book_puzzles(puzzles: list[Puzzle]):  # -> list[BookPuzzle]
    """The puzzles as the PDF prints them (imports ReportLab)."""
    from ..pdf.book import BookPuzzle

    return [BookPuzzle(number=i, name=puzzle_name(i, p), kind=p.kind, title=puzzle_title(p),
                       stars=p.stars, position=p.position, plan=p.plan, notes=p.notes,
                       measured=measured(p), difficulty=p.difficulty, legs=p.legs)
            for i, p in enumerate(puzzles, 1)]


def render_book(spec: Spec, puzzles: list[Puzzle], seed: int, paper: str = "a5") -> bytes:
    """The PDF bytes of a book of these puzzles."""
    from ..pdf.book import BookInfo, render_book_pdf

    kinds = {p.kind for p in puzzles}
    kinds_text = []
    if "mission" in kinds:
        kinds_text.append((KIND_NAMES["mission"],
                           "A layout, some spent modules, a mission and a bare budget of N "
                           "movement points, no cards. N is the proven optimum."))
    if "hand" in kinds:
        kinds_text.append((KIND_NAMES["hand"],
                           "A layout, a mission and a hand of movement cards. Bonus patterns "
                           "matter: play the cards in the wrong order, or for their base points, "
                           "and the mission gets dearer or impossible."))
    if "deal" in kinds:
        kinds_text.append((KIND_NAMES["deal"] + "s",
                           "Whole games from real deals (normal, hard, impossible), proven "
                           "winnable. The book lists the card order to stack a real deck."))
    if "campaign" in kinds:
        kinds_text.append((KIND_NAMES["campaign"] + "s",
                           "New missions, generated for this book, played in order from the "
                           "standard start by movement alone, each within its own budget. "
                           "Finish each mission with the next one in mind."))
    info = BookInfo(spec_name=spec.name, seed=seed, paper=paper, grading=tuple(GRADING_TEXT),
                    kinds_text=tuple(kinds_text))
    return render_book_pdf(spec, book_puzzles(puzzles), info)


class ExportCheckFailed(RuntimeError):
    """The export, read back from disk, is not what the book printed (a bug: never expected)."""


def _spec_file_name(spec: Spec, taken: set[str]) -> str:
    """``specs/NAME.yaml`` for the book's spec: the name of the file it was read from
    (``standard`` for the bundled deck), made safe, never one of the ``taken`` paths."""
    stem = Path(spec.path).stem if spec.path else spec.name
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.") or "deck"
    name, k = f"specs/{base}.yaml", 1
    while name in taken:
        k += 1
        name = f"specs/{base}-{k}.yaml"
    return name


def spec_copy(spec: Spec) -> tuple[str, bool]:
    """The text of the spec file to ship with an export, and whether it is the spec's own
    file byte for byte (True) or a dump of the spec (False).  The file is copied when it
    stands alone (no ``include``) and, read back on its own, gives this very spec;
    otherwise (includes, a file changed since it was read, a spec not read from a file)
    the whole spec is dumped, which loads back equal."""
    from ..errors import InputError
    from ..spec import dump_spec, load_spec
    from ..yamlio import load_yaml_text

    if spec.path and Path(spec.path).is_file():  # a pipe (/dev/stdin) was read once: dump it
        try:
            raw = Path(spec.path).read_bytes()
            text = raw.decode("utf-8")
            data = load_yaml_text(text, spec.path)
            if isinstance(data, dict) and "include" not in data:
                with tempfile.TemporaryDirectory(prefix="rove-spec-") as tmp:
                    copy = Path(tmp, "spec.yaml")
                    copy.write_bytes(raw)
                    if load_spec(copy) == spec:
                        return text, True
        except (OSError, UnicodeError, InputError):
            pass
    return dump_spec(spec, schema=None), False


def export_files(puzzles: list[Puzzle]) -> dict[str, str]:
    """``NAME.yaml`` (the position) and ``NAME.plan.json`` (the solution) for every puzzle,
    and under ``specs/`` the spec every position names, so the export stands alone.

    The positions of Mission in N, hand puzzles and deals name a copy of the book's spec,
    ``specs/NAME.yaml`` (``specs/standard.yaml`` for the bundled deck): the spec's file
    byte for byte, or, for a spec with ``include``s, a dump of the whole spec.  A campaign
    is written as one position and plan per mission, ``NAME-K.yaml`` and
    ``NAME-K.plan.json``, each naming the campaign's spec ``specs/NAME.yaml`` (the deck
    with the generated missions, movement only); mission ``K+1`` starts where the plan of
    ``K`` ends.  Specs live in a subfolder, so every YAML file at the top is a position
    with its plan beside it.  Layouts are already re-based so (0, 0) is the top-left,
    which is exactly what ``dump_position`` writes, so the plan's cells match the file.

    Before returning, the files are written to a temporary folder and read back
    (``check_export``); ExportCheckFailed if they do not give back the book's puzzles."""
    from ..spec import dump_spec

    out: dict[str, str] = {}
    campaign_specs = {f"specs/{puzzle_name(i, p)}.yaml" for i, p in enumerate(puzzles, 1)
                      if p.kind == "campaign"}
    book_specs: list[tuple[Spec, str]] = []  # the spec of every other puzzle, and its copy
    for i, p in enumerate(puzzles, 1):
        name = puzzle_name(i, p)
        if p.kind == "campaign":
            out[f"specs/{name}.yaml"] = (f"# Puzzle {i}: {puzzle_title(p)}: the deck with its "
                                         "generated missions (movement only)\n"
                                         + dump_spec(p.position.spec, schema=None))
            for k, (pos, plan) in enumerate(p.legs, 1):
                title = f"Puzzle {i}: {puzzle_title(p)}, mission {k} of {len(p.legs)}"
                out[f"{name}-{k}.yaml"] = dump_position(replace(pos, spec_ref=f"specs/{name}.yaml"),
                                                        title=title)
                out[f"{name}-{k}.plan.json"] = dumps_plan(list(plan))
            continue
        ref = next((r for sp, r in book_specs if sp == p.position.spec), None)
        if ref is None:
            ref = _spec_file_name(p.position.spec, campaign_specs | {r for _, r in book_specs})
            book_specs.append((p.position.spec, ref))
            out[ref] = spec_copy(p.position.spec)[0]
        pos = replace(p.position, spec_ref=ref)
        if normalized_cells(pos.cells) != pos.cells:  # pragma: no cover - generators re-base
            raise SolverBug(f"{name}: layout is not re-based to (0, 0)")
        title = f"Puzzle {i}: {puzzle_title(p)}, {p.stars} star{'s' if p.stars != 1 else ''}"
        out[f"{name}.yaml"] = dump_position(pos, title=title)
        out[f"{name}.plan.json"] = dumps_plan(list(p.plan))
    out = dict(sorted(out.items()))
    with tempfile.TemporaryDirectory(prefix="rove-export-") as tmp:
        for rel, text in out.items():
            target = Path(tmp, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        check_export(Path(tmp), puzzles)
    return out


def check_export(folder: Path, puzzles: list[Puzzle]) -> None:
    """Read an export back from ``folder`` as ``rove solve`` and ``rove replay`` would:
    every position loads (its spec found by the relative path it names, never a bundled
    name) with the spec, layout and mission the book printed, every spec under ``specs/``
    validates, and every plan replays to its goal.  Raises ExportCheckFailed."""
    from ..actions import load_plan
    from ..position import load_position
    from ..replay import replay
    from ..spec import load_spec

    def fail(message: str) -> ExportCheckFailed:
        return ExportCheckFailed(f"the export does not check: {message}")

    for spec_file in sorted((folder / "specs").glob("*.yaml")):
        load_spec(spec_file)  # validates (InputError)
    for i, p in enumerate(puzzles, 1):
        name = puzzle_name(i, p)
        legs = ([(f"{name}-{k}", pos, plan) for k, (pos, plan) in enumerate(p.legs, 1)]
                if p.kind == "campaign" else [(name, p.position, p.plan)])
        for stem, want, plan in legs:
            got = load_position(folder / f"{stem}.yaml")
            spec_file = Path(got.spec_ref)
            if spec_file.is_absolute() or spec_file.parts[:1] != ("specs",) or len(spec_file.parts) != 2:
                raise fail(f"{stem}.yaml names the spec {got.spec_ref!r}, not a copy in specs/")
            if got.spec != want.spec:
                raise fail(f"{got.spec_ref} is not the spec of {stem}")
            if (got.cells, got.spent, got.mission, got.hand, got.draw, got.current) != (
                    want.cells, want.spent, want.mission, want.hand, want.draw, want.current):
                raise fail(f"{stem}.yaml is not the position the book printed")
            r = replay(got, load_plan(folder / f"{stem}.plan.json"))
            if not (r.legal and r.goal_reached):
                raise fail(f"{stem}.plan.json does not reach the goal of {stem}.yaml")
            if list(load_plan(folder / f"{stem}.plan.json")) != list(plan):
                raise fail(f"{stem}.plan.json is not the book's solution")


def earlier_export(folder: Path) -> list[str]:
    """The entries of ``folder`` an earlier export may have left: position or spec YAML
    files, plans and JSON files, and the ``specs`` folder (sorted; hidden entries and
    other files, such as the book's own PDF, are not counted).  Empty for a folder that
    does not exist."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names if not n.startswith(".") and (
        n == "specs" or n.endswith((".yaml", ".yml", ".json"))))
