"""What ``rove --version`` says: the version, the search core's build and where the
bundled decks are, so that a report of a problem says which rove ran it."""

from __future__ import annotations

import os
import sys

from . import __version__
from .spec import BUNDLED_DIR, bundled_names


def core_build() -> str:
    """The compiled core's build and file, or why the pure-Python search runs instead."""
    try:
        from . import _core
    except ImportError:
        return "not built: the pure-Python search runs instead (slower, the same answers)"
    build = getattr(_core, "BUILD", "rove-core (build unknown)")
    where = getattr(_core, "__file__", "?")
    if os.environ.get("ROVE_CORE", "1") == "0":
        return f"{build}, switched off by ROVE_CORE=0 ({where})"
    return f"{build} ({where})"


def version_text() -> str:
    lines = [
        f"rove {__version__}",
        f"core: {core_build()}",
        f"bundled decks: {', '.join(bundled_names())} in {BUNDLED_DIR}",
        f"python: {sys.version.split()[0]} ({sys.executable})",
    ]
    return "\n".join(lines)
