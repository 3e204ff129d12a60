"""rove as a user installs it: the wheel ``make dist`` builds, pip-installed into a fresh
virtual environment whose PATH holds no Rust toolchain.

Built once per test run and shared by the pytest-xdist workers (a lock file in the
run's shared temporary folder; the first worker builds, the others wait and reuse it),
so the wheel test and the documents' examples (tests/test_docs.py) both run the
installed command, from folders outside the checkout, as a reader would.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
#: what a user's machine has without Rust: the system folders, never ~/.cargo/bin
SYSTEM_PATH = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if Path(p).is_dir())


@dataclass(frozen=True)
class Installed:
    """A fresh virtual environment with rove's wheel installed in it."""

    wheel: Path
    venv: Path
    #: what pip printed while installing the wheel
    log: str

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a command of the installed rove runs in: its venv first on a
        PATH with no cargo or rustc, nothing pointing back into the checkout."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CARGO_HOME", "RUSTUP_HOME")}
        env.update(PATH=f"{self.bin}{os.pathsep}{SYSTEM_PATH}", NO_COLOR="1", **extra)
        return env


def no_rust(path: str) -> None:
    """Fail if ``path`` finds cargo or rustc: the install must work without them."""
    for tool in ("cargo", "rustc"):
        found = shutil.which(tool, path=path)
        assert found is None, f"{tool} is on the PATH the install must do without: {found}"


def build_wheel(dist: Path) -> Path:
    """The wheel ``make dist`` writes into ``dist`` (the one file it must write)."""
    subprocess.run(["make", "--no-print-directory", "dist", f"DIST={dist}"], cwd=ROOT, check=True,
                   stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wheels = sorted(dist.glob("rove-*.whl"))
    assert len(wheels) == 1, f"make dist wrote {wheels}"
    return wheels[0]


def new_venv(venv: Path) -> None:
    """A fresh virtual environment from the base interpreter (not the checkout's venv)."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, capture_output=True)


def pip_install(wheel: Path, venv: Path, cwd: Path) -> Installed:
    """``pip install WHEEL`` into ``venv`` on a PATH checked to hold no Rust toolchain,
    as a user's machine would run it; pip's output is kept for the reader."""
    env = Installed(wheel, venv, "").env()
    no_rust(env["PATH"])
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheel)],
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert proc.returncode == 0, f"pip install of the wheel failed:\n{proc.stdout}{proc.stderr}"
    return Installed(wheel, venv, proc.stdout + proc.stderr)


def _build(where: Path) -> Installed:
    wheel = build_wheel(where / "dist")
    new_venv(where / "venv")
    return pip_install(wheel, where / "venv", where)


def _take(lock: IO[str], wait: bool) -> bool:
    """Take the lock (polling, so that a Ctrl-C reaches a main thread that waits) or,
    without ``wait``, only when nobody holds it."""
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if not wait:
                return False
            time.sleep(0.2)


def installed_rove(shared: Path, wait: bool = True) -> Installed | None:
    """The installed rove of this test run, built under ``shared`` by whichever worker
    gets there first (a failed build is tried again by the next worker that asks).

    ``wait=False`` (conftest's background start) builds only when no other thread or
    worker is at it, and otherwise returns None at once: a background build that waited
    its turn started a second build after a Ctrl-C had stopped the first (the session's
    end then waited some 30 s for it)."""
    shared.mkdir(parents=True, exist_ok=True)
    where = shared / "rove-wheel"
    done = where / "installed.txt"
    with open(shared / "rove-wheel.lock", "w") as lock:
        if not _take(lock, wait):
            return None
        if not done.exists():
            shutil.rmtree(where, ignore_errors=True)
            where.mkdir()
            built = _build(where)
            done.write_text(f"{built.wheel}\n{built.log}", encoding="utf-8")
        wheel, log = done.read_text(encoding="utf-8").split("\n", 1)
    return Installed(Path(wheel), where / "venv", log)
