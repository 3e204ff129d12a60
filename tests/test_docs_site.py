"""The built guide in a real headless Chromium: the command reference's option tables
are readable on a phone (390 px: one block an option, nothing wider than the screen)
and stay tables on a desktop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_docs import build_tracked_site
from test_play_browser import driver  # noqa: F401  (the module's headless Chromium)

_MEASURE = """
const t = document.querySelector('.options-table table');
const cell = t.querySelector('tbody td');
return [t.getBoundingClientRect().right, document.documentElement.clientWidth,
        document.documentElement.scrollWidth, getComputedStyle(cell).display, t.rows.length];
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tracked_site(tmp_path_factory.mktemp("guide"))


@pytest.mark.parametrize("page", ["check", "cards", "book"])
def test_option_tables_fit_a_phone_and_stay_tables_on_a_desktop(driver: Any, site: Path,  # noqa: F811
                                                                 page: str) -> None:
    url = (site / "reference" / page / "index.html").as_uri()
    driver.set_window_size(390, 844)
    driver.get(url)
    right, width, scroll, display, rows = driver.execute_script(_MEASURE)
    assert rows > 5
    assert display == "block", "on a phone each option is a block"
    assert right <= width + 1 and scroll <= width + 1, (right, width, scroll)
    driver.set_window_size(1280, 800)
    driver.get(url)
    assert driver.execute_script(_MEASURE)[3] == "table-cell"
