"""Tables stay readable when piped or narrow: no value is ever cut to an ellipsis
(``rove.screen.FittedTable``): a table that fits prints as one, any other as a block
a row."""

from __future__ import annotations

import io
import json
import os
import subprocess

import pytest
from conftest import rove_script
from rich.console import Console

from rove.screen import FittedTable


def _table() -> FittedTable:
    t = FittedTable(title="presets")
    for col in ("name", "output", "order"):
        t.add_column(col)
    t.add_row("home-a4", "sheets a4 duplex", "front-back")
    t.add_row("tts", "", "front-back")
    return t


def _render(width: int) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(_table())
    return out.getvalue()


def test_a_table_that_fits_is_a_table_and_one_that_does_not_is_blocks() -> None:
    wide = _render(80)
    assert "┃" in wide or "│" in wide, wide
    narrow = _render(34)
    assert "…" not in narrow
    assert "home-a4\n" in narrow and "  output: sheets a4 duplex" in narrow and "  order: front-back" in narrow
    assert "tts\n" in narrow and narrow.count("output:") == 1, "an empty value is left out"


def _run(*args: str, columns: int) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    proc = subprocess.run([rove_script(), *args], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("columns", [60, 80])
def test_the_presets_list_piped_or_narrow_cuts_no_value(columns: int) -> None:
    out = _run("cards", "--list-presets", columns=columns)
    assert "…" not in out
    rows = json.loads(_run("cards", "--list-presets", "--json", columns=columns))
    for r in rows:
        assert r["name"] in out and str(r["order"]) in out and str(r["color"]) in out, r["name"]


def test_the_check_report_at_60_columns_cuts_no_figure() -> None:
    out = _run("check", "classic", "--deals", "2", "--starts", "0", "--player", "thoughtful", "--jobs", "1",
               columns=60)
    assert "…" not in out
    assert "normal" in out and "Wilson 95%" in out
