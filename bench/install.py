"""From a wheel to a written book, as a user without Rust would go: the wheel's size, then
the time ``pip install`` takes in a fresh venv (a PATH with no cargo or rustc) and the
time the installed ``rove book`` takes from an empty folder, in one run.

    python bench/install.py [--wheel FILE] [--count 30] [--log pip.txt]

Without ``--wheel`` it builds one with ``make dist`` first (not timed).  pip takes the
dependencies from its cache or the index, as a user's pip would; the first install on a
machine with an empty cache also times their download.  The steps are the test suite's
own (tests/installed.py), so the bench installs exactly what the wheel tests check.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from installed import Installed, build_wheel, new_venv, pip_install  # noqa: E402

T = TypeVar("T")


def timed(step: Callable[[], T]) -> tuple[float, T]:
    """Wall seconds of one step, and what it returned."""
    start = time.perf_counter()
    result = step()
    return time.perf_counter() - start, result


def run_book(installed: Installed, folder: Path, count: int) -> None:
    proc = subprocess.run([str(installed.bin / "rove"), "book", "--count", str(count), "-o", "book.pdf"],
                          cwd=folder, env=installed.env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"rove book exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, help="the wheel to install (default: build one with make dist)")
    ap.add_argument("--count", type=int, default=30, help="puzzles in the book (default 30, make book's)")
    ap.add_argument("--log", type=Path, help="also write pip's output here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rove-install-") as tmp:
        where = Path(tmp)
        wheel = args.wheel or build_wheel(where / "dist")
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.2f} MB")
        venv = where / "venv"
        venv_s, _ = timed(lambda: new_venv(venv))
        pip_s, installed = timed(lambda: pip_install(wheel, venv, where))
        if args.log:
            args.log.write_text(installed.log, encoding="utf-8")
        empty = where / "empty"
        empty.mkdir()
        book_s, _ = timed(lambda: run_book(installed, empty, args.count))
        size = (empty / "book.pdf").stat().st_size
        print(f"fresh venv        {venv_s:7.1f} s")
        print(f"pip install       {pip_s:7.1f} s   ({len(installed.log.splitlines())} lines of pip output)")
        print(f"rove book ({args.count:>3})   {book_s:7.1f} s   (book.pdf {size / 1e6:.2f} MB)")
        print(f"pip install to a written book: {pip_s + book_s:.1f} s "
              f"(with the venv's creation {venv_s + pip_s + book_s:.1f} s)")


if __name__ == "__main__":
    main()
