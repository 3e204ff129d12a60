"""One game being played in the browser: the start, the moves made, undo and redo.

The session keeps the start state and every (action, state after) pair made from it;
a cursor says how many of them are in force, so undo and redo are moves of the cursor
and a move made after an undo drops the undone ones (as a chess board does).  Every
move goes through :func:`rove.engine.apply`; the legal actions the page highlights are
:func:`rove.engine.successors`.  The page sees what a player at the table sees
(:meth:`Session.view`): the draw pile's size and its top card (which lies mission side
up, so it is the next mission), the discard pile in order, and the draw pile's order
only when the session was started open.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..actions import Action, dumps_plan
from ..engine import (
    GOAL,
    LOST,
    WON,
    Deck,
    State,
    apply,
    deck_for,
    is_stuck,
    position_from_state,
    state_from_position,
    successors,
    unpack,
)
from ..position import Position, dump_position
from ..spec import Pattern

GLYPH_SIZE = (0.2, 0.44, 0.021)
"""A module's arrows on the page, in cell widths: from the centre out to r0, to r1, line width."""
MAX_HISTORY = 10_000
"""Most actions one session keeps (a whole game takes a few hundred at most)."""


class NothingThere(ValueError):
    """An undo with nothing made, a redo with nothing undone, a step out of range."""


@dataclass(frozen=True)
class Started:
    """What a session is started from: the position, a title, how its spec is named in
    an exported position, and whether the draw pile's order is shown."""

    position: Position
    title: str
    spec_ref: str
    open_deck: bool = False
    #: the puzzle's number when it is one of a book's (``rove play DIR``), else None
    puzzle: int | None = None


def export_spec_ref(ref: str, base_dir: Path | None) -> str:
    """How an exported position names its spec: a bundled name stays a name; a file is
    named by its absolute path, since the browser may save the export anywhere."""
    from ..spec import BUNDLED_DIR, resolve_spec_ref

    path = resolve_spec_ref(ref, base_dir)
    if path.resolve().parent == BUNDLED_DIR and path.stem == ref:
        return ref
    return str(path.resolve())


def pattern_json(p: Pattern) -> list[list[Any]]:
    """A pattern's cells as [x, y, value] from its bounding box's corner."""
    return [[x, y, v] for (x, y), v in p.normalized().cells]


class Session:
    """A game: start state, history of (action, state after), cursor; thread-safe."""

    def __init__(self, started: Started) -> None:
        #: bumped by every change; the coach drops an analysis of an older version
        self.version = 0
        self.lock = threading.RLock()
        self.load(started)

    def load(self, started: Started) -> None:
        """Start another game in this session (a book's next puzzle, a shared link's
        position): the version goes on counting, so every analysis of the old game is stale."""
        deck = deck_for(started.position.spec, started.position.rules)
        start = state_from_position(deck, started.position)
        with self.lock:
            self.started, self.position, self.deck, self.start = started, started.position, deck, start
            self.history: list[tuple[Action, State]] = []
            self.cursor = 0
            self.version += 1
            self._static = self._static_json()

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> State:
        return self.history[self.cursor - 1][1] if self.cursor else self.start

    @property
    def plan(self) -> list[Action]:
        return [a for a, _ in self.history[:self.cursor]]

    def snapshot(self) -> tuple[int, State, list[Action]]:
        """(version, state, plan so far), taken together under the lock."""
        with self.lock:
            return self.version, self.state, self.plan

    # ------------------------------------------------------------------ changes

    def play(self, action: Action) -> State:
        """Make one action (IllegalAction says why not); drops any undone actions."""
        with self.lock:
            if self.cursor >= MAX_HISTORY:
                raise NothingThere(f"this session holds {MAX_HISTORY:,} actions, the most it keeps")
            new = apply(self.deck, self.state, action)
            del self.history[self.cursor:]
            self.history.append((action, new))
            self.cursor += 1
            self.version += 1
            return new

    def undo(self) -> None:
        with self.lock:
            if not self.cursor:
                raise NothingThere("nothing to undo: this is the start")
            self.cursor -= 1
            self.version += 1

    def redo(self) -> None:
        with self.lock:
            if self.cursor >= len(self.history):
                raise NothingThere("nothing to redo")
            self.cursor += 1
            self.version += 1

    def goto(self, step: int) -> None:
        """Put the cursor after ``step`` actions (0: the start), undoing or redoing."""
        with self.lock:
            if not 0 <= step <= len(self.history):
                raise NothingThere(f"step {step} is not in this game; give 0 to {len(self.history)}")
            if step != self.cursor:
                self.cursor = step
                self.version += 1

    def follow(self, plan: list[Action]) -> None:
        """Play ``plan`` from the start in place of the game so far (a reloaded or shared
        link's line): all of it or, if a step is illegal (IllegalAction), none of it."""
        with self.lock:
            if len(plan) > MAX_HISTORY:
                raise NothingThere(f"a line of {len(plan):,} actions is longer than the "
                                   f"{MAX_HISTORY:,} a session keeps")
            history, s = [], self.start
            for a in plan:
                s = apply(self.deck, s, a)
                history.append((a, s))
            self.history, self.cursor = history, len(history)
            self.version += 1

    # ------------------------------------------------------------------ exports

    def export_position(self) -> tuple[str, str]:
        """The position to download and its file name: the position now, or once the
        game is over (there is no position left to write) the start, which ``rove
        replay`` reads with the exported plan to play the finished game through."""
        try:
            return self.position_text(), f"rove-position-step{self.cursor}.yaml"
        except NothingThere:
            return self.start_text(), "rove-position-start.yaml"

    def start_text(self) -> str:
        """The start position, as ``rove solve`` and ``rove replay`` read it."""
        return dump_position(replace(self.position, spec_ref=self.started.spec_ref),
                             title=self.started.title or None)

    def position_text(self) -> str:
        """The position now, as ``rove solve`` reads it (NothingThere once the game is over)."""
        with self.lock:
            s, step = self.state, self.cursor
        try:
            pos = position_from_state(self.deck, s, self.position)
        except ValueError as exc:
            raise NothingThere(str(exc)) from None
        title = f"{self.started.title} (after step {step})" if step else self.started.title
        return dump_position(replace(pos, spec_ref=self.started.spec_ref), title=title or None)

    def plan_text(self) -> str:
        """The plan from the start, as ``rove replay`` reads it, with the start position."""
        with self.lock:
            return dumps_plan(self.plan)

    # ------------------------------------------------------------------ what the page sees

    def _static_json(self) -> dict[str, Any]:
        """What never changes during a game: modules, cards, title, goal."""
        # the cards' own wording of the abilities, their colours and their arrow glyphs
        from ..pdf import cards, glyphs
        from .svgcanvas import _hex, compass_svg

        spec = self.position.spec
        return {
            "title": self.started.title,
            "puzzle": self.started.puzzle,
            "start_position": self.start_text(),
            "spec": spec.name,
            "goal": self.position.goal,
            "open": self.started.open_deck,
            "palette": {name.lower(): _hex(getattr(mod, name)) for mod, name in (
                (glyphs, "INK"), (glyphs, "ANY_FILL"), (glyphs, "GRID_LINE"), (cards, "MODULE_ACCENT"),
                (cards, "MODULE_BG"), (cards, "SPENT_ACCENT"), (cards, "SPENT_BG"), (cards, "SPENT_HATCH"),
                (cards, "SPENT_INK"), (cards, "MISSION_ACCENT"), (cards, "MISSION_BG"),
                (cards, "MOVEMENT_ACCENT"), (cards, "MOVEMENT_BG"))},
            "missions_to_win": spec.missions_to_win,
            "modules": {m.code: {
                "name": m.name, "ability": m.ability, "text": cards.ABILITY_TEXT.get(m.ability, ""),
                "arrows": [[[a.kind, [d.name for d in a.dirs]] for a in m.arrows],
                           [[a.kind, [d.name for d in a.dirs]] for a in m.spent_arrows]],
                # each side's arrows around the centre of a cell of size 1, as the cards draw them
                "glyphs": [compass_svg(m.arrows, *GLYPH_SIZE, glyphs.INK),
                           compass_svg(m.spent_arrows, *GLYPH_SIZE, cards.SPENT_INK)],
            } for m in spec.modules},
            "cards": {c.id: {
                "title": c.mission.title, "mission": pattern_json(c.mission.pattern),
                "points": c.movement.points, "bonus": c.movement.bonus,
                "movement": pattern_json(c.movement.pattern),
            } for c in spec.cards},
        }

    def view(self) -> dict[str, Any]:
        """The table as a player sees it, the legal actions and the plan: the page's one input."""
        with self.lock:
            deck, s, plan = self.deck, self.state, self.plan
            version, cursor, length = self.version, self.cursor, len(self.history)
            undone = [a for a, _ in self.history[cursor:]]
        ids = deck.card_ids
        status: str = s.status
        if status not in (WON, LOST, GOAL) and is_stuck(deck, s):
            status = "stuck"
        draw: dict[str, Any] = {"count": len(s.draw), "top": ids[s.draw[0]] if s.draw else None}
        if self.started.open_deck:
            draw["cards"] = [ids[c] for c in s.draw]
        return {
            **self._static,
            "version": version,
            "status": status,
            "cells": {c: list(unpack(s.cells[i])) for i, c in enumerate(deck.codes)},
            "spent": [c for i, c in enumerate(deck.codes) if s.spent >> i & 1],
            "mission": ids[s.mission] if s.mission >= 0 else None,
            "done": s.done,
            "completed": [ids[c] for c in s.completed],
            "hand": [{"id": ids[c], "bonus_ready": deck.move_pat[c].matches(s.cells)} for c in s.hand],
            "current": ({"card": ids[s.card] if s.card >= 0 else None, "points": s.points}
                        if s.card >= 0 or s.points else None),
            "draw": draw,
            "discard": [ids[c] for c in s.discard],
            "plan": [a.notation() for a in plan],
            "cursor": cursor,
            "redo": [a.notation() for a in undone],
            "can_undo": cursor > 0,
            "can_redo": cursor < length,
            "points_spent": sum(1 for a in plan if a.act == "move"),
            "cards_played": sum(1 for a in plan if a.act == "play"),
            "legal": self._legal(deck, s),
        }

    def _legal(self, deck: Deck, s: State) -> list[dict[str, Any]]:
        """Every legal action with the layout after it (the layout is public; the hand
        after a draw is not, so it is not sent)."""
        out = []
        for a, s2 in successors(deck, s):
            moved = [c for i, c in enumerate(deck.codes) if s2.cells[i] != s.cells[i]]
            item: dict[str, Any] = {"n": a.notation(), "act": a.act}
            if a.act == "play":
                item.update(card=a.card, bonus=a.bonus)
            else:
                item.update(module=a.module, via=a.via, moved=moved,
                            cells={c: list(unpack(s2.cells[i])) for i, c in enumerate(deck.codes)})
            out.append(item)
        return out
