"""Every script under ``bench/`` runs to its end in its lightest mode (slow: about six
minutes in all, most of it the CP-SAT generator's).

Nothing else runs the bench scripts: they are not commands of the product, and their
figures are read by people.  So a script that rots fails only when someone needs its
figures.  One did: ``bench/startup.py`` posed a puzzle on the bundled deck, and when the
bundled deck's missions changed its in-process check failed at every run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: (script, arguments that make it quick); every script under bench/ is listed
LIGHT = [
    ("book.py", ["--sizes", "3", "--spec", "classic", "--jobs", "1,2"]),
    ("check.py", ["--deals", "1", "--node-limit", "2000"]),
    ("check_cluster.py", ["--deals", "1", "--difficulty", "normal"]),
    ("coach.py", ["--deals", "1", "--moves", "0", "--spec", "classic"]),
    ("core.py", ["--positions", "10", "--puzzles", "3", "--budget", "1", "--deal-missions", "2",
                 "--deal-nodes", "2000", "--python-nodes", "300"]),
    ("cpsat.py", ["--puzzles", "2", "--time-limit", "5"]),
    ("engine.py", ["--seconds", "0.5", "--repeats", "1"]),
    ("expert.py", ["--decks", "classic", "--deals", "1", "--difficulty", "normal", "--jobs", "1"]),
    ("first_mission.py", ["--deals", "2"]),
    ("grading.py", ["--count", "5"]),
    ("install.py", ["--count", "1"]),
    ("memory.py", ["--nodes", "1,2000"]),
    ("play.py", ["--moves", "3"]),
    ("seer.py", ["--decks", "classic", "--deals", "1", "--difficulty", "normal", "--nodes", "20000",
                 "--jobs", "1"]),
    ("solve.py", ["--puzzles", "2", "--deals", "2", "--time-limit", "5"]),
    ("startup.py", ["--runs", "3"]),
    ("static.py", ["--starts", "2", "--repeat", "1"]),
    ("sweep_decks.py", ["--deals", "1", "--only", "b01"]),
    ("tables.py", ["--cards", "0"]),
    ("tune.py", ["--decks", "classic", "--max-rounds", "0", "--check-deals", "5", "--jobs", "1"]),
    ("tune_games.py", ["--deck", "classic", "--deals", "1", "--candidates", "0"]),
    ("tune_sim.py", ["--runs", "3", "--start", "0.3"]),
    ("tablebase_payoff.py", ["--deals", "1", "--difficulty", "normal", "--pairs", "active", "--bonus-sample", "200"]),
]


def test_every_bench_script_is_listed() -> None:
    assert sorted(name for name, _ in LIGHT) == sorted(p.name for p in (ROOT / "bench").glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize(("script", "args"), LIGHT, ids=[name for name, _ in LIGHT])
def test_bench_script_runs(script: str, args: list[str]) -> None:
    # from the repository's root, as the scripts' usage lines run them (their default
    # decks are paths under bench/); none writes a file there without a flag asking it to
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert proc.stdout.strip(), "the script printed no figures"
