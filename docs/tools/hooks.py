"""MkDocs hooks of the guide (mkdocs.yml, ``hooks:``): the command reference's option
tables are read from the `rove` command line at build time (``reference.py``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference  # noqa: E402


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return reference.expand(markdown)
