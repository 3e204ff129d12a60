"""The named rule options of docs/RULES.md ("Rule options"), defaults first.

Every engine and solver result records the options it ran under (``Rules.to_dict``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, get_args

Recycle = Literal["on_demand", "when_empty"]
"""Rule option ``recycle``: when the discard pile becomes the draw pile."""
GripperTarget = Literal["active_or_spent", "active_only"]
"""Rule option ``gripper_target``: which modules a Gripper may trigger."""

HAND_LIMIT = 5
HAND_SIZES = {"normal": 5, "hard": 4, "impossible": 3}

#: option name -> allowed values, default first
OPTIONS: dict[str, tuple[Any, ...]] = {
    "auto_complete_on_reveal": (True, False),
    "recycle": get_args(Recycle),
    "gripper_target": get_args(GripperTarget),
}


@dataclass(frozen=True, slots=True)
class Rules:
    auto_complete_on_reveal: bool = True
    recycle: Recycle = "on_demand"
    gripper_target: GripperTarget = "active_or_spent"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in OPTIONS[f.name] or type(value) is not type(OPTIONS[f.name][0]):
                raise ValueError(option_message(f.name, value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def non_default(self) -> dict[str, Any]:
        return {k: v for k, v in self.to_dict().items() if v != OPTIONS[k][0]}


def option_message(name: str, value: Any) -> str:
    if name not in OPTIONS:
        return f"unknown rule option {name!r}; options are: {', '.join(OPTIONS)}"
    allowed = " | ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in OPTIONS[name])
    return f"rule option {name} cannot be {value!r}; use {allowed}"
