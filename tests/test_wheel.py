"""The wheel a user installs: built by ``make dist``, installed with pip into a fresh venv
whose PATH holds no cargo or rustc, and run from an empty folder outside the checkout.

Each capability is driven once through the installed command, so a data file the wheel
lost (a bundled deck, a schema, the play page) or a path that only resolves inside the
checkout fails here rather than on a user's machine."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from installed import ROOT, Installed
from pypdf import PdfReader


def run(installed: Installed, cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(installed.bin / "rove"), *args], cwd=cwd, env=installed.env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"rove {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
    return proc


@pytest.fixture
def empty(tmp_path: Path) -> Path:
    folder = tmp_path / "somewhere"
    folder.mkdir()
    assert not folder.resolve().is_relative_to(ROOT)
    return folder


def test_the_wheel_is_abi3_manylinux_and_holds_the_package_data(installed: Installed) -> None:
    """One build serves CPython 3.11 and newer; pip took its tag (the install passed), and
    the files rove reads at run time are inside it."""
    assert re.fullmatch(r"rove-[\d.]+-cp311-abi3-manylinux_\d+_\d+_x86_64\.whl", installed.wheel.name) \
        or "aarch64" in installed.wheel.name, installed.wheel.name
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for needed in ("rove/_core.abi3.so", "rove/specs/standard.yaml", "rove/specs/classic.yaml",
                   "rove/specs/rove-spec.schema.json", "rove/specs/rove-position.schema.json",
                   "rove/play/static/index.html", "rove/play/static/play.js", "rove/play/static/play.css",
                   "rove/py.typed"):
        assert needed in names, f"the wheel lost {needed}"
    assert not any(n.endswith((".pyc", ".pdf")) or "__pycache__" in n for n in names)
    sdists = list(installed.wheel.parent.glob("rove-*.tar.gz"))
    assert len(sdists) == 1, "make dist writes the sdist beside the wheel"


def test_version_names_the_installed_core_and_decks(installed: Installed, empty: Path) -> None:
    out = run(installed, empty, "--version").stdout
    site = str(installed.venv)
    assert re.match(r"rove \d+\.\d+\.\d+\n", out), out
    core = next(line for line in out.splitlines() if line.startswith("core: "))
    assert "rove-core" in core and "release" in core and site in core, core
    decks = next(line for line in out.splitlines() if line.startswith("bundled decks: "))
    assert "classic, standard" in decks and site in decks and str(ROOT) not in decks, decks


def test_every_capability_runs_from_an_empty_folder(installed: Installed, empty: Path) -> None:
    assert "standard: ok" in run(installed, empty, "validate", "standard").stdout
    run(installed, empty, "new", "my-deck.yaml", "--from", "classic")
    assert "my-deck.yaml: ok (spec 'Classic deck'" in run(installed, empty, "validate", "my-deck.yaml").stdout
    run(installed, empty, "book", "--count", "2", "-o", "b.pdf")
    assert len(PdfReader(empty / "b.pdf").pages) > 2
    run(installed, empty, "cards", "standard")
    written = sorted(p.relative_to(empty).as_posix() for p in empty.rglob("*.pdf") if p.name != "b.pdf")
    assert written and all(len(PdfReader(empty / p).pages) >= 2 for p in written), written
    report = json.loads(run(installed, empty, "check", "standard", "--deals", "2", "--starts", "0",
                            "--jobs", "1", "--json").stdout)
    assert report, "the check printed its JSON report"


def test_play_serves_its_page_and_state_from_the_wheel(installed: Installed, empty: Path) -> None:
    proc = subprocess.Popen([str(installed.bin / "rove"), "play", "--deal", "1", "--no-browser"], cwd=empty,
                            env=installed.env(), stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        base = f"http://127.0.0.1:{m.group(1)}"
        with urllib.request.urlopen(f"{base}/api/state", timeout=30) as res:
            assert json.load(res)["modules"]
        for static in ("/", "/static/play.js"):
            with urllib.request.urlopen(f"{base}{static}", timeout=30) as res:
                assert res.status == 200 and len(res.read()) > 100, static
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
