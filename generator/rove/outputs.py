"""Safe output writing: a command writes whole files, or nothing, and only where it should.

Every output is checked before a command starts its work (``check_output``): it must be
a regular file or a new path, never a folder, a device, a pipe or a socket, never one of
the command's own input files, and its folder must take new files.  The command then
writes through ``Outputs``: each file goes to a temporary file beside it, each folder to
a temporary folder, and ``commit`` renames them all into place at the end, with Ctrl-C
held off for the few renames (a folder written with ``replace`` is staged beside the old
one and swapped in for it whole).  An error or Ctrl-C before that removes every temporary
file, so no output is ever half-written and an existing file is replaced whole or kept.

Around that: SIGTERM and SIGHUP are made to act as Ctrl-C does (``stop_signals_handled``),
the renames run under a lock on the folders they go into and are refused when another
run wrote there meanwhile (two runs never mix), an export folder lists what it wrote
(``MANIFEST``) so that replacing it removes nothing else, and ``prepare_stdio`` makes
every write to standard output checked (unbuffered, closed, or unable to show a character).
"""

from __future__ import annotations

import contextlib
import errno
import io
import itertools
import os
import shutil
import signal
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from .errors import InputError


def _refuse(path: Path | str, message: str) -> InputError:
    return InputError.single(str(path), None, message)


def _real(path: Path) -> Path:
    """The path with symbolic links followed as far as they go (never raises on a loop)."""
    return Path(os.path.realpath(path))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return _real(a) == _real(b)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a file"
    from .yamlio import file_kind  # here, not at the top: yamlio loads PyYAML, which `rove --help` never needs

    return file_kind(mode)


def check_output(path: Path, option: str, *, folder: bool = False,
                 inputs: Iterable[Path | None] = (), others: Iterable[tuple[str, Path | None]] = ()) -> None:
    """Refuse, before any work, an output the command must not write (InputError).

    ``option`` names it in messages (``-o``, ``--report``); ``folder`` says the output is
    a folder of files; ``inputs`` are the files the command reads; ``others`` the
    command's other outputs, as (option, path), which must not be the same path."""
    what = "folder" if folder else "file"
    try:
        st: os.stat_result | None = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # new, or under a file: see the folder below
        st = None
    except OSError as exc:  # a loop of symbolic links, a path through a file, ...
        raise _refuse(path, f"{option} cannot be used: {exc.strerror}; give another {what}") from None
    if st is not None and folder and not stat.S_ISDIR(st.st_mode):
        raise _refuse(path, f"{option} names {_kind(st.st_mode)}, not a folder; give a folder "
                            "(new or existing)")
    if st is not None and not folder:
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, f"{option} names {_kind(st.st_mode)}; rove writes only regular files "
                                "or new paths: give a file name")
        for inp in inputs:
            if inp is not None and _same_file(path, inp):
                raise _refuse(path, f"{option} is the input file {inp}; writing it would destroy "
                                    "the input: give another file name")
    for other_option, other in others:
        if other is not None and _real(other) == _real(path):
            raise _refuse(path, f"{option} and {other_option} name the same path; give two different ones")
    # an existing output folder must take new files; otherwise the nearest existing folder above
    where = _real(path) if st is not None and folder else _real(path).parent
    while True:
        try:
            wst = os.stat(where)
        except (FileNotFoundError, NotADirectoryError):
            if where == where.parent:
                return
            where = where.parent
            continue
        except OSError as exc:
            raise _refuse(path, f"{option} cannot be used: {exc.strerror}; give another {what}") from None
        if not stat.S_ISDIR(wst.st_mode):
            raise _refuse(path, f"{option} cannot be made: {where} is {_kind(wst.st_mode)}, not a folder; "
                                f"give another {what}")
        break
    if not os.access(where, os.W_OK | os.X_OK):
        raise _refuse(path, f"{option}: cannot write into the folder {where} (permission denied); "
                            f"give a {what} in a folder you can write to")


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (``kill``, a closed terminal): a KeyboardInterrupt, so that every
    path that cleans up after Ctrl-C (staged outputs removed, a CP-SAT search stopped, a
    worker pool ended) does the same for these; the command exits 128 + ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: The signals that end a command as Ctrl-C does (SIGHUP is missing on Windows).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def stop_signals_handled() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGHUP raise ``Terminated`` as Ctrl-C raises
    KeyboardInterrupt (by default they would end the process at once, leaving staged files
    and worker processes behind); the old handlers are put back after it.  A signal the
    process was started ignoring stays ignored: ``nohup rove check ...`` must outlive the
    terminal it was started from, as ``nohup`` promises.  Only the main thread can set
    handlers: elsewhere (a test's thread) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.signal(sig, _raise_terminated) for sig in STOP_SIGNALS
           if sig != signal.SIGINT and signal.getsignal(sig) != signal.SIG_IGN}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _locked(folders: list[Path]) -> Iterator[None]:
    """An exclusive lock (``flock``) on each folder, taken in order, held for the block:
    rove runs that put outputs into the same folders take turns.  A folder that cannot be
    opened or locked (a file system without locks) is passed over: the lock only orders
    rove's own runs."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with contextlib.ExitStack() as stack:
        for folder in folders:
            try:
                fd = os.open(folder, os.O_RDONLY)
            except OSError:
                continue
            stack.callback(os.close, fd)
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP off while the block runs, then raise the first one
    caught: for the renames that put outputs into place, so that they happen all or not
    at all, for starting CP-SAT's thread (``rove.solve.cpsat``), so that a Ctrl-C
    never leaves it running unwaited for, and for handing tasks to the process pool
    (``rove.executors``): ``ProcessPoolExecutor.submit`` holds the pool's locks while it
    files a task, and an interrupt raised between a lock's acquire and its release left
    the lock held, so the pool's shutdown waited for it forever."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    old = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum)) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if caught:
            handler = old[caught[0]]
            if caught[0] == signal.SIGINT and handler is signal.default_int_handler:
                raise KeyboardInterrupt
            if handler is _raise_terminated:
                raise Terminated(caught[0])
            if callable(handler):
                handler(caught[0], None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(caught[0])


_SERIAL = itertools.count(1)

_LISTED_DEPTH = 2
"""How deep ``_listing`` looks into an existing output folder: rove's folder outputs are at
most two levels deep (an export's ``specs/NAME.yaml``), and ``--png-dir .`` must not walk
a whole home folder."""


def _listing(folder: Path) -> frozenset[str]:
    """The relative paths in ``folder`` down to ``_LISTED_DEPTH`` levels (links not followed)."""
    found: set[str] = set()

    def walk(where: Path, prefix: str, depth: int) -> None:
        try:
            with os.scandir(where) as entries:
                for e in entries:
                    found.add(prefix + e.name)
                    if depth > 1 and e.is_dir(follow_symlinks=False):
                        walk(Path(e.path), f"{prefix}{e.name}/", depth - 1)
        except OSError:
            pass

    walk(folder, "", _LISTED_DEPTH)
    return frozenset(found)


class Outputs:
    """The files and folders one command writes, put into place together by ``commit``.

    ::

        with Outputs() as out:
            out.file(path, data)
            with out.filling(png_dir) as staging:  # write the folder's files into `staging`
                ...
            out.commit()

    Leaving the block without ``commit`` (an error, Ctrl-C) removes everything staged.
    """

    def __init__(self) -> None:
        self._files: list[tuple[Path, Path, Path]] = []  # (temporary, final, as named)
        #: (temporary, final, as named, whether it replaces, the files the existing folder
        #: held when staging began; None for a new folder or one replaced whole)
        self._folders: list[tuple[Path, Path, Path, bool, frozenset[str] | None]] = []
        self._made: list[Path] = []  # folders created for outputs, removed again if empty
        # unique to this set of outputs, so that two in one process never share a temporary
        self._tag = f"rove-{os.getpid()}-{next(_SERIAL)}"

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.discard()

    def _mkdir(self, folder: Path, named: Path) -> None:
        missing = []
        while not folder.exists() and folder != folder.parent:
            missing.append(folder)
            folder = folder.parent
        try:
            for f in reversed(missing):
                f.mkdir()
                self._made.append(f)
        except OSError as exc:
            raise _refuse(named, f"cannot make the folder {f}: {exc.strerror}") from None

    def file(self, path: Path, data: bytes | str) -> None:
        """Write ``data`` to a temporary file beside ``path`` (the final name if ``path``
        is a symbolic link to a file); ``commit`` renames it into place."""
        final = _real(path)
        self._mkdir(final.parent, path)
        tmp = final.with_name(f".{final.name}.{self._tag}.tmp")
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self._files.append((tmp, final, path))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o666)
            try:
                view = memoryview(raw)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            with contextlib.suppress(FileNotFoundError):  # keep the mode of a file replaced
                os.chmod(tmp, stat.S_IMODE(os.stat(final).st_mode))
        except OSError as exc:
            raise _refuse(path, f"cannot write: {exc.strerror or exc}; nothing was written") from None

    def folder(self, path: Path, replace: bool = False) -> Path:
        """A new temporary folder to write the files of folder ``path`` into; ``commit``
        renames it into place (a new folder) or moves its files in (an existing one).

        With ``replace`` an existing folder is replaced whole: the temporary folder is made
        beside it and ``commit`` swaps the two, then removes the old one with everything
        in it (so nothing of an earlier run is left among the new files)."""
        final = _real(path)
        before: frozenset[str] | None = None
        if final.is_dir() and not replace:
            tmp = final / f".{self._tag}.tmp"
            before = _listing(final)
        else:
            self._mkdir(final.parent, path)
            tmp = final.with_name(f".{final.name}.{self._tag}.tmp")
        self._folders.append((tmp, final, path, replace, before))
        try:
            if tmp.exists():
                shutil.rmtree(tmp)
            tmp.mkdir()
        except OSError as exc:
            raise _refuse(path, f"cannot write: {exc.strerror or exc}; nothing was written") from None
        return tmp

    @contextlib.contextmanager
    def filling(self, path: Path, replace: bool = False) -> Iterator[Path]:
        """``folder(path, replace)`` for the block that writes the folder's files: a write
        there that fails (a full disk, a quota) is refused naming the folder as the user
        gave it, not taken for standard output (a write error carries no file name)."""
        staging = self.folder(path, replace)
        try:
            yield staging
        except OSError as exc:
            where = ""
            if exc.filename is not None:
                with contextlib.suppress(ValueError):
                    where = f" {Path(os.fsdecode(exc.filename)).relative_to(staging).as_posix()}"
            raise _refuse(path, f"cannot write{where or ' into this folder'}: {exc.strerror or exc}; nothing "
                                "was written") from None

    def _raced(self) -> None:
        """Refuse (InputError) to put a folder into place when another run has written
        there since this one staged it: a new folder that now exists with files in it, or
        an existing one that now holds a file this run would replace and did not hold then.
        Two runs into one folder would otherwise mix their files; this way the first to
        finish wins whole and the other writes nothing."""
        for tmp, final, named, replace, before in self._folders:
            if replace:
                continue
            if before is None:  # new: nothing in it but this run's own temporary files
                if final.is_dir() and any(self._tag not in e.name for e in os.scandir(final)):
                    raise _refuse(named, "was made by another run while this one worked; nothing was "
                                         "written (give another folder, or run again)")
                continue
            for src in tmp.rglob("*"):
                rel = src.relative_to(tmp).as_posix()
                if rel.count("/") >= _LISTED_DEPTH:  # not listed when staging began: cannot tell
                    continue
                if not src.is_dir() and os.path.lexists(final / rel) and rel not in before:
                    raise _refuse(named, f"another run wrote {rel} into it while this one worked; "
                                         "nothing was written (run again)")

    def commit(self) -> None:
        """Put every output into place, Ctrl-C held off until it is done, while holding a
        lock on the folders they go into, so that two runs never mix (``_raced``)."""
        parents = {final.parent for _, final, _ in self._files} | {f.parent for _, f, *_ in self._folders}
        with interrupts_held(), _locked(sorted(parents)):
            self._raced()
            try:
                for tmp, final, _ in self._files:
                    os.replace(tmp, final)
                for tmp, final, _, replace, _ in self._folders:
                    if not final.exists():
                        os.rename(tmp, final)
                        continue
                    if replace:
                        old = final.with_name(f".{final.name}.{self._tag}.old")
                        os.rename(final, old)
                        try:
                            os.rename(tmp, final)
                        except OSError:
                            os.rename(old, final)
                            raise
                        shutil.rmtree(old, ignore_errors=True)
                        continue
                    for src in sorted(tmp.rglob("*")):
                        if src.is_dir():
                            continue
                        dest = final / src.relative_to(tmp)
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(src, dest)
                    shutil.rmtree(tmp)
            except OSError as exc:
                where = exc.filename or ""
                raise _refuse(where, f"cannot write: {exc.strerror or exc}") from None
            self._files, self._folders, self._made = [], [], []

    def discard(self) -> None:
        """Remove everything staged and not committed (Ctrl-C held off meanwhile)."""
        with interrupts_held():
            for tmp, _, _ in self._files:
                with contextlib.suppress(OSError):
                    tmp.unlink()
            for tmp, *_ in self._folders:
                shutil.rmtree(tmp, ignore_errors=True)
            for folder in reversed(self._made):
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only if still empty
            self._files, self._folders, self._made = [], [], []


def names_a_folder(text: str) -> bool:
    """Whether an output path as typed names a folder (``out/new/``, ``out/new/.``), which
    ``Path`` would silently turn into a file name (``-o out/new/`` writing a file ``new``)."""
    return os.path.basename(text) in ("", ".", "..")


MANIFEST = ".rove-export"
"""The file in an export folder that lists every file the export wrote, so that a later
``--force`` removes those and nothing else."""


def manifest_text(names: Iterable[str]) -> str:
    """The manifest of an export folder: a comment line, then one relative path a line."""
    lines = ["# files written here by rove; rove --force replaces these and refuses a folder "
             "holding anything else", *sorted(set(names))]
    return "\n".join(lines) + "\n"


def read_manifest(folder: Path) -> set[str] | None:
    """The paths the manifest of ``folder`` lists, or None when it has none (or cannot be
    read: then the folder is treated as holding files no export recorded)."""
    from .yamlio import read_text

    if not os.path.isfile(folder / MANIFEST):
        return None
    try:
        text = read_text(folder / MANIFEST, "rove export manifest")
    except InputError:
        return None
    return {line for line in text.splitlines() if line and not line.startswith("#")}


def foreign_entries(folder: Path, listed: set[str]) -> list[str]:
    """The entries of ``folder`` (relative, sorted, at most a few hundred) that are neither
    a listed file nor a folder holding listed files, nor the manifest itself: what replacing
    the folder as a whole would destroy that rove did not write."""
    parents = {p.as_posix() for name in listed for p in Path(name).parents}
    foreign: list[str] = []
    for root, dirs, names in os.walk(folder):
        rel_root = Path(root).relative_to(folder)
        keep = []
        for d in sorted(dirs):
            rel = (rel_root / d).as_posix()
            if os.path.islink(os.path.join(root, d)):
                names.append(d)  # a link is an entry of its own, never followed
            elif rel in parents:
                keep.append(d)
            else:
                foreign.append(rel + "/")
        dirs[:] = keep
        for n in names:
            rel = (rel_root / n).as_posix()
            if rel not in listed and rel != MANIFEST:
                foreign.append(rel)
        if len(foreign) > 200:
            break
    return sorted(foreign)


def write_output(path: Path, data: bytes | str) -> None:
    """Write one whole file at once (via a temporary file beside it): the old file, if
    any, is replaced whole or kept; nothing half-written is ever left."""
    with Outputs() as out:
        out.file(path, data)
        out.commit()


# --------------------------------------------------------------------------- standard output


class ClosedStream(io.TextIOBase):
    """Standard output when the command was started with it closed (``rove ... >&-``):
    Python then leaves ``sys.stdout`` None and every print is silently dropped; this one
    fails the first write instead, like a write to a closed descriptor."""

    name = "<stdout>"
    encoding = "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed")


def prepare_stdio() -> None:
    """Make every write to standard output checked, before a command writes anything.

    * A descriptor 0, 1 or 2 the command was started without is opened on /dev/null, so
      that no file rove opens takes its number (and a library printing to it cannot write
      into a PDF); a closed stdout becomes ``ClosedStream``, so its first write fails.
    * Unbuffered stdout (``PYTHONUNBUFFERED``, ``python -u``) writes through a raw file, and
      Python's text layer drops what a short write did not take: a nearly full disk kept
      the first 8 kB of 31 kB and rove exited 0.  It gets a buffered layer, which writes
      the rest or raises the error.
    * Characters the stream's encoding cannot show (``PYTHONIOENCODING=latin-1``) are
      written escaped (``\\u20ac``) instead of raising.

    Idempotent, and a no-op for a stream that is not a real file (a test's capture)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_RDWR)
                if null != fd:  # the lowest free number is taken first, so this is rare
                    os.dup2(null, fd)
                    os.close(null)
    if sys.stdout is None:
        sys.stdout = ClosedStream()
    for name in ("stdout", "stderr"):
        stream: Any = getattr(sys, name)
        if not isinstance(stream, io.TextIOWrapper):
            continue
        if isinstance(stream.buffer, io.RawIOBase):  # unbuffered: give it a buffer
            new: TextIO = io.TextIOWrapper(io.BufferedWriter(stream.buffer), encoding=stream.encoding,
                                           errors="backslashreplace", line_buffering=True)
            setattr(sys, name, new)
        elif stream.errors != "backslashreplace":
            stream.reconfigure(errors="backslashreplace")
