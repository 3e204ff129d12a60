"""The executors' streaming side (``submit``, ``Ahead``): in this process nothing runs
before it is asked for; in a pool the results come in task order whatever order the
tasks finish in, queued tasks start by priority, and a stream left early cancels what
it had not started."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rove.executors import Ahead, LocalPoolExecutor, SerialExecutor


def nap(task: tuple[float, str]) -> tuple[str, float]:
    """Sleep, then say which task this was and when it finished (the monotonic clock is
    the machine's, so workers' times compare)."""
    seconds, name = task
    time.sleep(seconds)
    return name, time.monotonic()


def mark(path: str) -> str:
    """A task that leaves a file behind, so a test sees which tasks ran."""
    time.sleep(0.2)
    Path(path).touch()
    return path


def test_the_serial_stream_computes_nothing_ahead() -> None:
    ran: list[int] = []

    def square(i: int) -> int:
        ran.append(i)
        return i * i

    ex = SerialExecutor()
    with Ahead(lambda i: ex.submit(square, i, -i), 10, window=5) as stream:
        assert ran == [] and stream.finished() == []
        assert [next(stream), next(stream)] == [0, 1]
        assert ran == [0, 1] and stream.finished() == []
    assert ran == [0, 1]  # the three sent ahead were never computed
    job = ex.submit(square, 7)
    job.cancel()
    with pytest.raises(RuntimeError, match="cancelled"):
        job.result()
    assert ran == [0, 1]


def test_the_pool_stream_yields_in_task_order() -> None:
    """The first task is the slowest: the later ones finish before it and still come after."""
    naps = [0.8, 0.3, 0.0, 0.1, 0.0]
    with LocalPoolExecutor(2) as ex:
        stream = Ahead(lambda i: ex.submit(nap, (naps[i], f"t{i}"), -i), len(naps), window=4)
        got = list(stream)
    assert [name for name, _ in got] == [f"t{i}" for i in range(len(naps))]
    assert got[1][1] < got[0][1] and got[2][1] < got[0][1]  # they did finish out of order


def test_queued_tasks_start_by_priority() -> None:
    """One worker, busy: of the tasks queued behind it, the one of higher priority runs
    first (the pool holds one task beside the running one, taken in the order sent)."""
    with LocalPoolExecutor(1) as ex:
        busy = ex.submit(nap, (0.5, "busy"))
        held = ex.submit(nap, (0.0, "held"))
        low = ex.submit(nap, (0.0, "low"), priority=1)
        high = ex.submit(nap, (0.0, "high"), priority=5)
        done = {j.result()[0]: j.result()[1] for j in (busy, held, low, high)}
    assert done["busy"] < done["held"] < done["high"] < done["low"]


def test_a_stream_left_early_cancels_what_it_had_not_started(tmp_path: Path) -> None:
    """Twenty tasks sent ahead, one taken: the pool ran only what it held, not the rest still
    queued.  It holds ``workers + 1`` tasks (3) and refills to that as it takes in arrivals;
    the tasks that arrive with the first (at most its two companions in the pool) each let
    one more in before the stream is left, so at most 6 run: never the 14 or more queued."""
    with LocalPoolExecutor(2) as ex:
        with Ahead(lambda i: ex.submit(mark, str(tmp_path / f"{i}"), -i), 20, window=20) as stream:
            assert next(stream) == str(tmp_path / "0")
        time.sleep(1.0)  # whatever the pool held runs out meanwhile
        ran = len(list(tmp_path.iterdir()))
        assert 1 <= ran <= 6, ran
        later = ex.submit(nap, (0.0, "after"))
        assert later.result()[0] == "after"  # the pool goes on serving new tasks
    assert len(list(tmp_path.iterdir())) == ran


def test_submit_needs_the_pool_entered() -> None:
    with pytest.raises(RuntimeError, match="entered"):
        LocalPoolExecutor(2).submit(nap, (0.0, "x"))
