"""Where the tasks of ``rove check`` and ``rove book`` run: this process, a local process
pool, or Dask.

Every executor has the same small interface::

    with executor:
        for index, result in executor.map_unordered(fn, tasks):
            ...
        job = executor.submit(fn, task, priority)
        ... job.result() ...

``fn`` is a top-level function (it is pickled by reference) and each task a small
picklable value.  ``map_unordered`` gives the results in any order, each with the index
of its task, so the caller gathers them by index and its figures never depend on the
number of workers or their timing; tasks are sent in chunks to keep the per-task
overhead small.  ``submit`` is for a caller that decides as it goes which tasks it
needs (``rove book``'s selection): it sends one task and returns a ``Job``, whose
``result()`` waits for it; the tasks of higher ``priority`` start first, and ``cancel()``
says a result is not wanted.  ``Ahead`` builds an ordered stream on it.  In this process
(``SerialExecutor``) a job is computed when its result is first asked for, so a caller
that sends tasks ahead does exactly the work of one that does not.
"""

from __future__ import annotations

import heapq
import itertools
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from queue import Empty, SimpleQueue
from typing import Any, Protocol

from .outputs import interrupts_held

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


class Job(Protocol):
    """A task sent with ``submit``."""

    def result(self) -> Result:
        """The task's result (or its exception), waiting for it (in this process: computing it)."""

    def done(self) -> bool:
        """Whether the result is there, without waiting (in this process: already computed)."""

    def cancel(self) -> None:
        """The result is not wanted: a task not started never is (a running one runs out)."""


class LazyJob:
    """A task of ``SerialExecutor.submit``: run when its result is first asked for, once."""

    __slots__ = ("_fn", "_task", "_result", "_done")

    def __init__(self, fn: Callable[[Task], Result], task: Task) -> None:
        self._fn: Callable[[Task], Result] | None = fn
        self._task, self._result, self._done = task, None, False

    def result(self) -> Result:
        if not self._done:
            if self._fn is None:
                raise RuntimeError("the result of a cancelled job was asked for")
            self._result, self._done = self._fn(self._task), True
            self._fn = self._task = None
        return self._result

    def done(self) -> bool:
        return self._done

    def cancel(self) -> None:
        if not self._done:
            self._fn = self._task = None


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

    def submit(self, fn: Callable[[Task], Result], task: Task, priority: int = 0) -> Job:
        """A job computed when its result is asked for (``priority`` has nothing to order)."""
        return LazyJob(fn, task)


class PoolJob:
    """A task of ``LocalPoolExecutor.submit``: queued in this process by priority, then
    sent to the pool as a worker frees (``future`` set), then arrived."""

    __slots__ = ("_owner", "fn", "task", "future", "arrived", "wanted")

    def __init__(self, owner: LocalPoolExecutor, fn: Callable[[Task], Result], task: Task) -> None:
        self._owner, self.task = owner, task
        self.fn: Callable[[Task], Result] | None = fn
        self.future: Future[Result] | None = None
        self.arrived, self.wanted = False, True

    def result(self) -> Result:
        self._owner._wait_for(self)
        assert self.future is not None
        return self.future.result()

    def done(self) -> bool:
        self._owner._collect(block=False)
        return self.arrived

    def cancel(self) -> None:
        self.wanted = False
        self.fn = self.task = None


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
        # ``submit``'s jobs: queued here by priority (a heap of (-priority, order, job)),
        # at most ``workers + 1`` of them in the pool (one waiting for each worker to free,
        # so a worker never waits for this process to send the next), arriving through a
        # done-callback and a C queue as ``map_unordered``'s do, and for the same reason
        self._queued: list[tuple[int, int, PoolJob]] = []
        self._order = itertools.count()
        self._sent: dict[Future[Result], PoolJob] = {}
        self._arrivals: SimpleQueue[Future[Result]] = SimpleQueue()

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
            self._queued.clear()
            self._sent.clear()
            self._arrivals = SimpleQueue()

    def submit(self, fn: Callable[[Task], Result], task: Task, priority: int = 0) -> Job:
        """Queue ``fn(task)``; it starts when a worker frees and no queued job has a higher
        ``priority`` (equal ones in the order sent).  The executor must be entered."""
        if self._pool is None:
            raise RuntimeError("LocalPoolExecutor.submit needs the executor entered (with executor: ...)")
        job = PoolJob(self, fn, task)
        heapq.heappush(self._queued, (-priority, next(self._order), job))
        self._collect(block=False)
        return job

    def _feed(self) -> None:
        """Send the queued jobs of highest priority while the pool has room."""
        while self._pool is not None and self._queued and len(self._sent) <= self.workers:
            job = heapq.heappop(self._queued)[2]
            if not job.wanted or job.future is not None or job.fn is None:
                continue  # cancelled, or queued again by ``_wait_for`` and sent already
            with interrupts_held():
                job.future = self._pool.submit(job.fn, job.task)
            job.fn = job.task = None
            self._sent[job.future] = job
            job.future.add_done_callback(self._arrivals.put)

    def _collect(self, block: bool) -> None:
        """Take in the jobs that finished (waiting for one when ``block``), then refill the pool."""
        while True:
            try:
                future = self._arrivals.get(block=block)
            except Empty:
                break
            job = self._sent.pop(future, None)
            if job is not None:
                job.arrived = True
            block = False
        self._feed()

    def _wait_for(self, job: PoolJob) -> None:
        """Until ``job`` has arrived; a job still queued goes first (it is wanted now)."""
        if not job.wanted:
            raise RuntimeError("the result of a cancelled job was asked for")
        if job.future is None:
            heapq.heappush(self._queued, (-(1 << 62), next(self._order), job))
        self._collect(block=False)
        while not job.arrived:
            if self._pool is None:
                raise RuntimeError("the executor was left before the job arrived")
            self._collect(block=True)

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
        with interrupts_held():
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

    def submit(self, fn: Callable[[Task], Result], task: Task, priority: int = 0) -> Job:
        """``fn(task)`` on the cluster (Dask's own priorities order it); a Dask future is a Job."""
        if self._client is None:
            raise RuntimeError("DaskExecutor.submit needs the executor entered (with executor: ...)")
        job: Job = self._client.submit(fn, task, pure=False, priority=priority)
        return job


def arrived(job: Job) -> tuple[bool, Result]:
    """(True, its result) when ``job`` has finished without an error, else (False, None),
    without waiting: for a caller that looks ahead at results before their turn (a
    task's error is left for its turn, when a one-by-one run would meet it too)."""
    if not job.done():
        return False, None
    try:
        return True, job.result()
    except Exception:
        return False, None


class Ahead:
    """``fn`` over a run of tasks, taken in order, with up to ``window`` of them sent ahead:
    as each is taken the next one is sent, so no round waits for its slowest task.

    ``start(i)`` sends task ``i`` (``submit``, with the priority the caller gives it, or a
    job it sent earlier) for ``i`` in ``range(stop)``; ``next(stream)`` is the next result
    in task order.  ``finished()`` lists the results that arrived ahead of their turn, for
    a caller that sends follow-up work for them early; ``close()`` cancels what was sent
    and not taken.  On ``SerialExecutor`` nothing runs before it is taken (the jobs are
    lazy), so the stream does exactly the work of a loop over the tasks."""

    def __init__(self, start: Callable[[int], Job], stop: int, window: int) -> None:
        self._start, self._stop, self._window = start, stop, max(1, window)
        self._sent: deque[tuple[int, Job]] = deque()
        self._next = 0
        self._seen: set[int] = set()
        self._fill()

    def _fill(self) -> None:
        while len(self._sent) < self._window and self._next < self._stop:
            self._sent.append((self._next, self._start(self._next)))
            self._next += 1

    def __iter__(self) -> Ahead:
        return self

    def __next__(self) -> Result:
        if not self._sent:
            raise StopIteration
        i, job = self._sent.popleft()
        self._seen.discard(i)
        self._fill()
        return job.result()

    def finished(self) -> list[tuple[int, Result]]:
        """(index, result) of the tasks sent ahead that have arrived since the last call."""
        out = []
        for i, job in self._sent:
            if i not in self._seen:
                ok, result = arrived(job)
                if ok:
                    self._seen.add(i)
                    out.append((i, result))
        return out

    def close(self) -> None:
        for _, job in self._sent:
            job.cancel()
        self._sent.clear()
        self._next = self._stop

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
