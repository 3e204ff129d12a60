"""From a wheel to a written book, as a user without Rust would go: the wheel's size, then
the time ``pip install`` takes in a fresh venv (a PATH with no cargo or rustc) and the
time the installed ``rove book`` takes from an empty folder, in one run.

    python bench/install.py [--wheel FILE] [--count 30] [--log pip.txt]

Without ``--wheel`` it builds one with ``make dist`` first (not timed).  pip takes the
dependencies from its cache or the index, as a user's pip would; the first install on a
machine with an empty cache also times their download.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NO_RUST_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir())


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return seconds, proc.stdout + proc.stderr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheel", type=Path, help="the wheel to install (default: build one with make dist)")
    ap.add_argument("--count", type=int, default=30, help="puzzles in the book (default 30, make book's)")
    ap.add_argument("--log", type=Path, help="also write pip's output here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rove-install-") as tmp:
        where = Path(tmp)
        wheel = args.wheel
        if wheel is None:
            subprocess.run(["make", "--no-print-directory", "dist", f"DIST={where / 'dist'}"], cwd=ROOT,
                           check=True, capture_output=True)
            wheel = next((where / "dist").glob("rove-*.whl"))
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.2f} MB")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env.update(PATH=f"{where / 'venv' / 'bin'}{os.pathsep}{NO_RUST_PATH}", NO_COLOR="1")
        assert shutil.which("cargo", path=env["PATH"]) is None, "cargo is on the PATH"
        base = getattr(sys, "_base_executable", sys.executable)
        venv_s, _ = timed([base, "-m", "venv", str(where / "venv")], where, env)
        pip_s, log = timed([str(where / "venv" / "bin" / "python"), "-m", "pip", "install", str(wheel)],
                           where, env)
        if args.log:
            args.log.write_text(log, encoding="utf-8")
        empty = where / "empty"
        empty.mkdir()
        book_s, _ = timed([str(where / "venv" / "bin" / "rove"), "book", "--count", str(args.count),
                           "-o", "book.pdf"], empty, env)
        size = (empty / "book.pdf").stat().st_size
        print(f"fresh venv        {venv_s:7.1f} s")
        print(f"pip install       {pip_s:7.1f} s   ({len(log.splitlines())} lines of pip output)")
        print(f"rove book ({args.count:>3})   {book_s:7.1f} s   (book.pdf {size / 1e6:.2f} MB)")
        print(f"pip install to a written book: {pip_s + book_s:.1f} s "
              f"(with the venv's creation {venv_s + pip_s + book_s:.1f} s)")


if __name__ == "__main__":
    main()
