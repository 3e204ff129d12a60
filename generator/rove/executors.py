"""Where the tasks of ``rove check`` run: this process, a local process pool, or Dask.

Every executor has the same small interface::

    with executor:
        for index, result in executor.map_unordered(fn, tasks):
            ...

``fn`` is a top-level function (it is pickled by reference) and each task a small
picklable value.  Results arrive in any order, each with the index of its task, so the
caller gathers them by index and its figures never depend on the number of workers or
their timing.  Tasks are sent in chunks to keep the per-task overhead small.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from queue import SimpleQueue
from typing import Any

Task = Any
Result = Any


def run_chunk(fn: Callable[[Task], Result], chunk: Sequence[tuple[int, Task]]) -> list[tuple[int, Result]]:
    """Run a chunk of (index, task) pairs in one worker call."""
    return [(i, fn(t)) for i, t in chunk]


def chunked(tasks: Sequence[Task], workers: int, max_chunk: int = 16) -> list[list[tuple[int, Task]]]:
    """Chunks of (index, task): small enough that every worker gets several (so the load
    evens out and progress moves), big enough to amortise the round trip."""
    size = max(1, min(max_chunk, len(tasks) // (max(1, workers) * 8)))
    items = list(enumerate(tasks))
    return [items[i:i + size] for i in range(0, len(items), size)]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class SerialExecutor:
    """Everything in the current process, in task order (``--jobs 1``)."""

    name = "serial"
    workers = 1

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def map_unordered(self, fn: Callable[[Task], Result], tasks: Sequence[Task],
                      max_chunk: int | None = None) -> Iterator[tuple[int, Result]]:
        for i, t in enumerate(tasks):
            yield i, fn(t)


class LocalPoolExecutor:
    """A local ``ProcessPoolExecutor`` (``--jobs J``, default all cores).

    Workers start with ``forkserver`` (``spawn`` where that is missing), never a bare
    fork of a process that may run a progress-bar thread."""

    name = "local"

    def __init__(self, jobs: int | None = None, max_chunk: int = 16) -> None:
        self.workers = jobs or default_jobs()
        self.max_chunk = max_chunk
        methods = multiprocessing.get_all_start_methods()
        self._ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> LocalPoolExecutor:
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if self._pool is not None:
            if exc_type is not None:
                # Ctrl-C, SIGTERM or an error: the running tasks' results are not wanted, and
                # waiting for them could take minutes; end the workers now (a terminal's
                # Ctrl-C reaches them too, but a `kill` of this process does not)
                for proc in list((getattr(self._pool, "_processes", None) or {}).values()):
                    proc.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def map_unordered(self, fn: Callable[[Task], Result], tasks: Sequence[Task],
                      max_chunk: int | None = None) -> Iterator[tuple[int, Result]]:
        """Results as they finish; ``max_chunk`` overrides the executor's for these tasks
        (1 for tasks of seconds each, whose round trip costs nothing beside them and whose
        chunks would leave a worker idle while another runs a long chunk out)."""
        if self._pool is None:
            with self:
                yield from self.map_unordered(fn, tasks, max_chunk)
            return
        # Finished futures arrive through a done-callback and a C queue rather than
        # ``concurrent.futures.wait``: that takes every pending future's lock in a Python
        # loop, and a Ctrl-C or SIGTERM raised inside the loop left some of them held, so
        # the pool's manager thread, cancelling them at shutdown, waited forever (6 runs
        # in 15 of `kill` during `rove check --jobs 2` hung so). ``SimpleQueue.get``
        # holds no lock of Python's when a signal's exception leaves it.
        finished: SimpleQueue[Future[list[tuple[int, Result]]]] = SimpleQueue()
        chunks = chunked(tasks, self.workers, max_chunk or self.max_chunk)
        for chunk in chunks:
            self._pool.submit(run_chunk, fn, chunk).add_done_callback(finished.put)
        # The futures still pending when an exception leaves this loop are not cancelled
        # here but by the pool's shutdown in ``__exit__``, in the pool's own manager thread:
        # a cancel from this thread raced the manager marking them failed once the workers
        # were ended, and the manager thread died printing a traceback (InvalidStateError)
        for _ in chunks:
            yield from finished.get().result()


class DaskExecutor:
    """An existing Dask distributed cluster (``--executor dask --scheduler ADDRESS``).

    Give either the scheduler's address or a ``distributed.Client`` (which is then
    left open).  Needs the optional extra: ``pip install 'rove[dask]'``; the workers
    must be able to import ``rove``."""

    name = "dask"

    def __init__(self, address: str | None = None, client: Any = None, max_chunk: int = 16) -> None:
        if address is None and client is None:
            raise ValueError("DaskExecutor needs a scheduler address or a client")
        try:
            import distributed  # noqa: F401
        except ImportError as exc:
            raise RuntimeError("the dask executor needs Dask distributed: "
                               "pip install 'dask[distributed]' (or rove[dask])") from exc
        self.address = address
        self.max_chunk = max_chunk
        self._client = client
        self._own = client is None
        self.workers = 1

    def __enter__(self) -> DaskExecutor:
        if self._client is None:
            from distributed import Client

            self._client = Client(self.address)
        self.workers = max(1, sum(self._client.nthreads().values()))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._own and self._client is not None:
            self._client.close()
            self._client = None

    def map_unordered(self, fn: Callable[[Task], Result], tasks: Sequence[Task],
                      max_chunk: int | None = None) -> Iterator[tuple[int, Result]]:
        if self._client is None:
            with self:
                yield from self.map_unordered(fn, tasks, max_chunk)
            return
        from distributed import as_completed

        self.workers = max(1, sum(self._client.nthreads().values()))
        futures = [self._client.submit(run_chunk, fn, chunk, pure=False)
                   for chunk in chunked(tasks, self.workers, max_chunk or self.max_chunk)]
        try:
            for fut in as_completed(futures):
                yield from fut.result()
        finally:
            for fut in futures:
                if not fut.done():
                    fut.cancel()


def make_executor(kind: str = "local", jobs: int | None = None, scheduler: str | None = None) -> Any:
    """The executor a command line asks for: local (1 job: this process) or dask."""
    if kind == "dask":
        if not scheduler:
            raise ValueError("--executor dask needs --scheduler ADDRESS (e.g. tcp://host:8786)")
        return DaskExecutor(address=scheduler)
    if kind != "local":
        raise ValueError(f"unknown executor {kind!r}; use local or dask")
    jobs = jobs or default_jobs()
    return SerialExecutor() if jobs == 1 else LocalPoolExecutor(jobs)
