"""The check's units of work, typed: what an executor runs (``rove.check.run.run_task``).

Each task is a small frozen dataclass of plain values, so that it pickles for a process
pool or a Dask cluster; its kind is its class, never a string in a tuple's first slot.
A task names its spec by :class:`SpecRef` (an absolute path and the spec's content
hash), so every worker loads the file once and refuses a copy edited since.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..solve.ladder import Rung


@dataclass(frozen=True)
class SpecRef:
    """A spec file as the workers see it: its absolute path and its content's hash."""

    path: str
    fingerprint: str


@dataclass(frozen=True)
class ExpertTask:
    """One deal played by the expert (``rove.solve.expert``)."""

    spec: SpecRef
    index: int
    seed: int
    difficulty: str
    node_limit: int


@dataclass(frozen=True)
class DealTask:
    """One deal climbed by the thoughtful player: its rungs in order, until one decides."""

    spec: SpecRef
    index: int
    seed: int
    difficulty: str
    rungs: tuple[Rung, ...]
    time_limit: float | None


@dataclass(frozen=True)
class StartsTask:
    """Every mission's cost from one start arrangement (``tables``: the costs without
    abilities come from a :class:`TableTask` instead)."""

    spec: SpecRef
    index: int
    arrangement: tuple[str, ...]
    node_limit: int
    time_limit: float | None
    tables: bool


@dataclass(frozen=True)
class TableTask:
    """One mission's cost with every module spent from every start arrangement."""

    spec: SpecRef
    card: str
    arrangements: tuple[tuple[str, ...], ...]
    node_limit: int
    time_limit: float | None


@dataclass(frozen=True)
class VerifyTask:
    """One lost deal proved again by the reference search (``--verify-losses``)."""

    spec: SpecRef
    index: int
    seed: int
    difficulty: str
    node_limit: int
    time_limit: float | None


Task = ExpertTask | DealTask | StartsTask | TableTask | VerifyTask
#: the tasks that play a whole deal (seconds each: one a chunk for the executors)
LONG_TASKS = (ExpertTask, DealTask, VerifyTask)
