"""`rove check`'s static part with the distance tables: every start's no-abilities mission
cost is a table look-up, and the report is the one A* gives (tables off)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import TRIO_SPEC

from rove.check import CheckOptions, run_check
from rove.check import run as check_run
from rove.solve import core
from rove.spec import load_spec

pytestmark = pytest.mark.skipif(not core.available(), reason="the compiled core is not built")


@pytest.mark.parametrize(("switch_nodes", "switch_total", "looked_up"), [
    (1, 2_000_000, 4 * 6),  # no start settles within one node: the table everywhere
    (50_000, 0, 4 * 6),  # the table at once: every start looked up
    (50_000, 1, 4 * 5),  # A* for the first start of each mission, then the table
    (check_run.TABLE_SWITCH_NODES, check_run.TABLE_SWITCH_TOTAL, 0),  # the defaults: these
    # cheap solves never build a table
])
def test_no_ability_costs_by_look_up_equal_astar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 switch_nodes: int, switch_total: int,
                                                 looked_up: int) -> None:
    path = tmp_path / "trio.yaml"
    # spent Laser and Motor step east only: from most starts most missions are out of reach
    text = TRIO_SPEC
    for ability, arrows in (("laser", "standard, dirs: [diagonal]"), ("motor", "push, dirs: [orthogonal]")):
        text = text.replace(f"ability: {ability}, arrows: [{{kind: {arrows}}}]}}",
                            f"ability: {ability}, arrows: [{{kind: {arrows}}}], "
                            "spent_arrows: [{kind: short, dirs: [E]}]}")
    assert text.count("spent_arrows") == 2
    path.write_text(text, encoding="utf-8")
    spec = load_spec(path)
    calls = [0]
    real = core.table_distance

    def counted(*args: object) -> int | None:
        calls[0] += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(core, "table_distance", counted)
    monkeypatch.setattr(check_run, "TABLE_SWITCH_NODES", switch_nodes)
    monkeypatch.setattr(check_run, "TABLE_SWITCH_TOTAL", switch_total)
    options = CheckOptions(deals=0, starts=None, mission_node_limit=200_000)
    with_tables = run_check(spec, options).to_json(timing=False)
    assert calls[0] == looked_up
    made = calls[0]
    monkeypatch.setenv("ROVE_TABLES", "0")
    by_astar = run_check(spec, options).to_json(timing=False)
    assert calls[0] == made  # tables off: no look-up, A* everywhere
    for key in ("mission_costs", "points", "checks"):
        assert json.dumps(with_tables[key]) == json.dumps(by_astar[key]), key
    # not a trivial agreement: costs of several sizes, and some mission out of reach
    na = with_tables["mission_costs"]["overall"]["no_abilities"]
    assert na["histogram"] == [0, 0, 2, 1]
    assert sum(m["no_abilities"]["unsolvable"] for m in with_tables["mission_costs"]["missions"].values()) == 21
