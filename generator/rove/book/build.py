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

from collections.abc import Callable
from dataclasses import replace

from ..actions import dumps_plan
from ..position import dump_position, normalized_cells
from ..spec import Spec
from .generate import (
    DEAL_DIFFICULTIES,
    KIND_NAMES,
    Puzzle,
    Settings,
    campaign_puzzle,
    deal_puzzle,
    hand_puzzle,
    mission_puzzle,
)
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
          keys: set[tuple], progress: Progress | None) -> list[Puzzle]:
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
    for kind in ("hand", "deal", "campaign"):
        if kind in counts:
            if kind == "deal":
                got = _deals(counts[kind], spec, settings, seed, keys, progress)
            else:
                got = _fill(kind, counts[kind], makers[kind], seed, keys, progress)
            found += got
            short = counts[kind] - len(got)
            if short:
                counts["mission"] = counts.get("mission", 0) + short
    if counts.get("mission"):
        found += _fill("mission", counts["mission"], makers["mission"], seed, keys, progress)
    return sorted(found, key=lambda p: (p.stars, KIND_ORDER.index(p.kind), p.score, p.source))


# --------------------------------------------------------------------------- printing and export


def puzzle_name(number: int, p: Puzzle) -> str:
    return f"{number:02d}-{p.kind}"


def measured(p: Puzzle) -> tuple[str, ...]:
    """The graded features, in words, for the solutions section."""
    f = p.features
    if p.kind == "deal":
        return (f"winning line of {f.points} points, {f.cards} cards and {f.abilities} "
                f"abilities", f"starting hand of {f.hand_size}",
                f"the game solver examined {f.nodes} positions")
    if p.kind == "campaign":
        costs = ", ".join(str(pos.current.points if pos.current else 0) for pos, _ in p.legs)
        return (f"{len(p.legs)} missions costing {costs} points on the book's line "
                "(each proven optimal from where the line leaves the layout, by CP-SAT and A*)",
                f"{f.traps} trap{'s' if f.traps != 1 else ''} (missions after which some optimal "
                "finish leaves the next one out of its budget)",
                {0: "a greedy player completes them all", 1: "a greedy player gets stuck "
                 "after the first mission", 2: "a greedy player fails the first mission"}[f.greedy],
                "a unique optimal first move" if f.first_moves == 1 else "2 or more optimal first moves",
                f"score {p.score:.1f}")
    words = []
    if p.kind == "mission":
        words.append(f"optimum {f.points} point{'s' if f.points != 1 else ''} (A*)")
        words.append("a unique optimal first move" if f.first_moves == 1
                     else "2 or more optimal first moves")
    else:
        words.append(f"best {f.points} point{'s' if f.points != 1 else ''} and {f.cards} "
                     f"card{'s' if f.cards != 1 else ''} (A*)")
        words.append(f"{f.wrong_plays} of {f.plays} opening card plays fail or cost more")
        if f.bonus_needed:
            words.append("a bonus is needed")
    if f.abilities:
        words.append(f"{f.abilities} abilit{'ies' if f.abilities != 1 else 'y'} needed")
    words.append(f"{f.branching} actions at the start")
    words.append({0: "a greedy player finds it", 1: "a greedy player overspends",
                  2: "a greedy player gets stuck"}[f.greedy])
    words.append(f"A* examined {f.nodes} positions")
    words.append(f"score {p.score:.1f}")
    return tuple(words)


def book_puzzles(puzzles: list[Puzzle]):  # -> list[BookPuzzle]
    """The puzzles as the PDF prints them (imports ReportLab)."""
    from ..pdf.book import BookPuzzle

    return [BookPuzzle(number=i, name=puzzle_name(i, p), kind=p.kind, title=p.title,
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


def export_files(puzzles: list[Puzzle], spec_ref: str) -> dict[str, str]:
    """``NAME.yaml`` (the position) and ``NAME.plan.json`` (the solution) for every puzzle.

    A campaign is written as one position and plan per mission, ``NAME-K.yaml`` and
    ``NAME-K.plan.json``, each naming the campaign's spec ``specs/NAME.yaml`` (the deck
    with the generated missions, movement only; in a subfolder, so every YAML file at the
    top is a position with its plan beside it); mission ``K+1`` starts where the plan of
    ``K`` ends.  Layouts are already re-based so (0, 0) is the top-left, which is exactly
    what ``dump_position`` writes, so the plan's cells match the file."""
    from ..spec import dump_spec

    out: dict[str, str] = {}
    for i, p in enumerate(puzzles, 1):
        name = puzzle_name(i, p)
        if p.kind == "campaign":
            out[f"specs/{name}.yaml"] = (f"# Puzzle {i}: {p.title}: the deck with its generated "
                                         "missions (movement only)\n"
                                         + dump_spec(p.position.spec, schema=None))
            for k, (pos, plan) in enumerate(p.legs, 1):
                title = f"Puzzle {i}: {p.title}, mission {k} of {len(p.legs)}"
                out[f"{name}-{k}.yaml"] = dump_position(replace(pos, spec_ref=f"specs/{name}.yaml"),
                                                        title=title)
                out[f"{name}-{k}.plan.json"] = dumps_plan(list(plan))
            continue
        pos = replace(p.position, spec_ref=spec_ref)
        if normalized_cells(pos.cells) != pos.cells:  # pragma: no cover - generators re-base
            raise AssertionError(f"{name}: layout is not re-based to (0, 0)")
        title = f"Puzzle {i}: {p.title}, {p.stars} star{'s' if p.stars != 1 else ''}"
        out[f"{name}.yaml"] = dump_position(pos, title=title)
        out[f"{name}.plan.json"] = dumps_plan(list(p.plan))
    return out
