"""Actions: the plan steps of docs/FORMATS.md ("Plans"), as small immutable values.

An ``Action`` reads and writes both the plan JSON objects and a compact notation
that round-trips (``play c02+``, ``B E2``, ``L swap B C``, ``M shift S NE``,
``B place G 2,-1``, ``C to 3,1``, ``S draw``, ``G via L swap B C``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .errors import InputError
from .grid import DIRECTION_BY_NAME

Cell = tuple[int, int]
Act = Literal["play", "move", "ability"]
"""The kind of a plan step (the ``act`` of its JSON object)."""

#: The longest plan a file may hold: a whole game takes a few hundred actions at most.
MAX_PLAN_ACTIONS = 100_000


@dataclass(frozen=True, slots=True)
class Action:
    """One plan step.  ``act`` is 'play', 'move' or 'ability'.

    play: ``card`` and ``bonus`` (True, False, or None for "bonus exactly when it matches").
    move: ``module``, ``dir``, ``dist``.
    ability: ``module`` (the module whose ability is used, Gripper for a via use),
    ``via`` (the module Gripper triggers) and that ability's arguments: ``swap``,
    ``target`` + ``dir`` (Motor), ``target`` + ``to`` (Brain), ``to`` (Coil), none (Sensor).
    """

    act: Act
    module: str | None = None
    card: str | None = None
    bonus: bool | None = None
    dir: str | None = None
    dist: int | None = None
    via: str | None = None
    target: str | None = None
    swap: tuple[str, str] | None = None
    to: Cell | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def play(cls, card: str, bonus: bool | None = None) -> Action:
        return cls("play", card=card, bonus=bonus)

    @classmethod
    def move(cls, module: str, dir: str, dist: int) -> Action:
        return cls("move", module=module, dir=dir, dist=dist)

    @classmethod
    def ability(cls, module: str, *, via: str | None = None, target: str | None = None,
                dir: str | None = None, swap: tuple[str, str] | None = None,
                to: Cell | None = None) -> Action:
        return cls("ability", module=module, via=via, target=target, dir=dir, swap=swap, to=to)

    @property
    def is_ability(self) -> bool:
        return self.act == "ability"

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        if self.act == "play":
            out: dict[str, Any] = {"act": "play", "card": self.card}
            if self.bonus is not None:
                out["bonus"] = self.bonus
            return out
        if self.act == "move":
            return {"act": "move", "module": self.module, "dir": self.dir, "dist": self.dist}
        out = {"act": "ability", "module": self.module}
        if self.via is not None:
            out["via"] = self.via
        if self.swap is not None:
            out["swap"] = list(self.swap)
        if self.target is not None:
            out["target"] = self.target
        if self.dir is not None:
            out["dir"] = self.dir
        if self.to is not None:
            out["to"] = list(self.to)
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Action:
        """Parse one plan object; raises ValueError with a message that says the fix."""
        if not isinstance(obj, dict):
            raise ValueError(f"an action must be a JSON object, not {obj!r}")
        act = obj.get("act")
        allowed: dict[Act, set[str]] = {
            "play": {"act", "card", "bonus"}, "move": {"act", "module", "dir", "dist"},
            "ability": {"act", "module", "via", "swap", "target", "dir", "to"}}
        if not isinstance(act, str) or act not in allowed:
            raise ValueError(f"'act' is {act!r}; use play, move or ability")
        what = f"{'an' if act == 'ability' else 'a'} {act} action"
        extra = set(obj) - allowed[act]
        if extra:
            raise ValueError(f"unknown key(s) {', '.join(sorted(extra))} in {what}")
        if act == "play":
            card, bonus = obj.get("card"), obj.get("bonus")
            if not isinstance(card, str):
                raise ValueError("a play action needs 'card': a card id")
            if bonus is not None and not isinstance(bonus, bool):
                raise ValueError("'bonus' must be true, false or absent")
            return cls.play(card, bonus)
        module = obj.get("module")
        if not isinstance(module, str):
            raise ValueError(f"{what} needs 'module': a module code")
        if act == "move":
            d, k = obj.get("dir"), obj.get("dist")
            if not isinstance(d, str) or d not in DIRECTION_BY_NAME:
                raise ValueError(f"'dir' is {d!r}; use one of N NE E SE S SW W NW")
            if not isinstance(k, int) or isinstance(k, bool) or k < 1:
                raise ValueError(f"'dist' is {k!r}; give a whole number of at least 1")
            return cls.move(module, d, k)
        swap = obj.get("swap")
        if swap is not None:
            if not (isinstance(swap, list) and len(swap) == 2 and all(isinstance(s, str) for s in swap)):
                raise ValueError("'swap' must be a list of two module codes")
            swap = (swap[0], swap[1])
        to = obj.get("to")
        if to is not None:
            if not (isinstance(to, list) and len(to) == 2
                    and all(isinstance(v, int) and not isinstance(v, bool) for v in to)):
                raise ValueError("'to' must be a cell [x, y] of two whole numbers")
            to = (to[0], to[1])
        d = obj.get("dir")
        if d is not None and (not isinstance(d, str) or d not in DIRECTION_BY_NAME):
            raise ValueError(f"'dir' is {d!r}; use one of N NE E SE S SW W NW")
        for key in ("via", "target"):
            if obj.get(key) is not None and not isinstance(obj.get(key), str):
                raise ValueError(f"'{key}' must be a module code")
        return cls.ability(module, via=obj.get("via"), target=obj.get("target"), dir=d,
                           swap=swap, to=to)

    # ------------------------------------------------------------------ notation
    def notation(self) -> str:
        if self.act == "play":
            return f"play {self.card}" + {True: "+", False: "-", None: ""}[self.bonus]
        if self.act == "move":
            return f"{self.module} {self.dir}{self.dist}"
        head = f"{self.module} via {self.via} " if self.via else f"{self.module} "
        return head + self._ability_args()

    def _ability_args(self) -> str:
        if self.swap is not None:
            return f"swap {self.swap[0]} {self.swap[1]}"
        if self.target is not None and self.dir is not None:
            return f"shift {self.target} {self.dir}"
        if self.target is not None and self.to is not None:
            return f"place {self.target} {self.to[0]},{self.to[1]}"
        if self.to is not None and self.target is None:
            return f"to {self.to[0]},{self.to[1]}"
        if self.target is None and self.dir is None:
            return "draw"
        raise ValueError(f"action {self.to_json()} has no notation")  # incomplete arguments

    def __str__(self) -> str:
        return self.notation()

    @classmethod
    def parse(cls, text: str) -> Action:
        """Parse the notation; raises ValueError saying what form was expected."""
        words = text.split()
        if not words:
            raise ValueError("empty action")
        if words[0] == "play":
            m = re.fullmatch(r"play ([A-Za-z0-9][A-Za-z0-9_-]*?)([+-]?)", " ".join(words))
            if not m:
                raise ValueError(f"{text!r}: write 'play CARD', 'play CARD+' (bonus) or 'play CARD-'")
            return cls.play(m.group(1), {"+": True, "-": False, "": None}[m.group(2)])
        if not re.fullmatch(r"[A-Z]", words[0]):
            raise ValueError(f"{text!r}: an action starts with 'play' or a module code")
        module = words[0]
        rest = words[1:]
        if len(rest) == 1:
            m = re.fullmatch(r"(NE|NW|SE|SW|N|E|S|W)([1-9]\d*)", rest[0])
            if m:
                return cls.move(module, m.group(1), int(m.group(2)))
        via = None
        if rest[:1] == ["via"]:
            if len(rest) < 3:
                raise ValueError(f"{text!r}: write 'G via X <ability arguments>'")
            via, rest = rest[1], rest[2:]
        try:
            key = rest[0] if rest else ""
            if key == "swap" and len(rest) == 3:
                return cls.ability(module, via=via, swap=(rest[1], rest[2]))
            if key == "shift" and len(rest) == 3 and rest[2] in DIRECTION_BY_NAME:
                return cls.ability(module, via=via, target=rest[1], dir=rest[2])
            if key == "place" and len(rest) == 3:
                return cls.ability(module, via=via, target=rest[1], to=_cell(rest[2]))
            if key == "to" and len(rest) == 2:
                return cls.ability(module, via=via, to=_cell(rest[1]))
            if key == "draw" and len(rest) == 1:
                return cls.ability(module, via=via)
        except ValueError:
            pass
        raise ValueError(
            f"{text!r}: not an action; forms: 'B E2', 'L swap B C', 'M shift S NE', "
            "'B place G 2,-1', 'C to 3,1', 'S draw', 'G via L swap B C', 'play c02+'"
        )


def _cell(text: str) -> Cell:
    m = re.fullmatch(r"(-?\d+),(-?\d+)", text)
    if not m:
        raise ValueError(text)
    return (int(m.group(1)), int(m.group(2)))


def plan_to_json(plan: list[Action]) -> list[dict[str, Any]]:
    return [a.to_json() for a in plan]


def dumps_plan(plan: list[Action]) -> str:
    """Plan JSON text, one action a line: readable diffs, stable bytes."""
    if not plan:
        return "[]\n"
    return "[\n" + ",\n".join("  " + json.dumps(a.to_json()) for a in plan) + "\n]\n"


def load_plan(path: Path) -> list[Action]:
    """A plan file: a JSON list of actions, or an object with a 'plan' list (solve --json output),
    or a text file of notation, one action a line ('#' starts a comment)."""
    from .yamlio import MAX_DEPTH, read_text

    text = read_text(path, "plan (JSON list of actions)")  # size-limited, byte-order mark dropped
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        too_deep = (f"lists and objects nested more than {MAX_DEPTH} levels deep; "
                    "a plan is a list of flat action objects")
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError.single(str(path), exc.lineno, f"JSON syntax: {exc.msg}") from None
        except RecursionError:
            raise InputError.single(str(path), 1, too_deep) from None
        if _json_depth(data) > MAX_DEPTH:
            raise InputError.single(str(path), 1, too_deep)
        in_object = isinstance(data, dict) and isinstance(data.get("plan"), list)
        if in_object:
            data = data["plan"]
        if not isinstance(data, list):
            raise InputError.single(str(path), 1, "a plan is a JSON list of action objects")
        if len(data) > MAX_PLAN_ACTIONS:
            raise InputError.single(str(path), 1, f"the plan has {len(data):,} actions; at most "
                                                  f"{MAX_PLAN_ACTIONS:,} (limit MAX_PLAN_ACTIONS)")
        out = []
        for i, obj in enumerate(data):
            try:
                out.append(Action.from_json(obj))
            except ValueError as exc:
                raise InputError.single(str(path), _json_item_line(text, i, in_object),
                                        f"action {i}: {exc}") from None
        return out
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line and len(out) >= MAX_PLAN_ACTIONS:
            raise InputError.single(str(path), n, f"more than {MAX_PLAN_ACTIONS:,} actions "
                                                  "(limit MAX_PLAN_ACTIONS)")
        if line:
            try:
                out.append(Action.parse(line))
            except ValueError as exc:
                raise InputError.single(str(path), n, str(exc)) from None
    return out


def _json_depth(data: Any) -> int:
    """How deeply lists and objects nest in parsed JSON (0 for a bare value), without recursion."""
    deepest = 0
    todo = [(data, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            todo.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _json_item_line(text: str, i: int, in_object: bool) -> int | None:
    """The line of item ``i`` of a plan's JSON list (JSON is YAML, whose loader keeps lines)."""
    from .yamlio import LineDict, LineList, load_yaml_text

    try:
        data = load_yaml_text(text, "<plan>")
        if in_object and isinstance(data, LineDict):
            data = data["plan"]
        return data.line_of(i) if isinstance(data, LineList) else None
    except (InputError, KeyError):
        return None
