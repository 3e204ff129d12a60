"""MkDocs hooks of the guide (mkdocs.yml, ``hooks:``).

* The command reference's option tables are read from the `rove` command line at build
  time (``reference.py``), wrapped so that a narrow screen shows them as a list.
* The pictures ``docs/tools/pictures.py`` makes (``make docs``) live in a git-ignored
  folder; a build without them (a plain ``mkdocs build`` of a fresh clone) shows a note
  where each picture belongs, naming the command that makes it, instead of a broken
  image, so the strict build passes and no reader meets an empty frame.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import reference  # noqa: E402

GENERATED = Path(__file__).resolve().parents[1] / "assets" / "generated"
_PICTURE = re.compile(r"!\[([^\]]*)\]\(((?:\.\./)*assets/generated/([\w.-]+\.png))\)")


def missing_pictures(markdown: str) -> str:
    """Every picture of the generated folder that is not there, replaced by a note."""
    def note(match: re.Match[str]) -> str:
        if (GENERATED / match.group(3)).exists():
            return match.group(0)
        return (f'!!! note "Picture not built: {match.group(1)}"\n'
                f"    This build of the guide was made without its pictures; `make docs` makes them "
                f"(`python docs/tools/pictures.py`, then `mkdocs build`).\n")
    return _PICTURE.sub(note, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return missing_pictures(reference.expand(markdown))
