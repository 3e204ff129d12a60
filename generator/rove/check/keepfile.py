"""The tuned deck written as the designer's own file with only its numbers changed.

`rove tune` moves cards' base points and bonuses; the designer's file holds much more
than the spec those numbers live in: a description, comments, the key order they chose,
arrow shorthand such as ``orthogonal``, quoting and blank lines.  Writing the tuned
:class:`~rove.spec.Spec` afresh (:func:`~rove.spec.dump_spec`) would lose all of it.

So the file is read once more with ruamel.yaml's round-trip loader, which keeps the
line and column of every value, and each changed number is replaced *in the text*, at
its place, by the new one.  Every other byte of the file is the designer's.  ruamel's
own dumper is not used for numbers: it keeps comments but may still reflow long flow
sequences or change indentation, and splicing the text is exact by construction.

A swapped mission (``--vary missions``) is a new title and pattern, not a number: those
cards' ``mission`` mappings are assigned in ruamel's tree and the whole document dumped
by ruamel (comments and order kept, layout ruamel's).  A deck whose cards come from
included files, or that has no file, cannot be kept so; :func:`kept_file` returns None
and the caller writes the spec afresh.

ruamel.yaml is imported here, inside the function, so ``rove --help`` never loads it.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from ..spec import Spec
from .variants import Alternatives, Variant

_INT = re.compile(r"[+-]?\d+")


def kept_file(spec: Spec, v: Variant, alternatives: Alternatives = ()) -> str | None:
    """The designer's file (``spec.path``) with the variant's numbers (and missions)
    changed in place; None when the deck is not all in that one file."""
    if spec.path is None or len(spec.sources) != 1:
        return None
    path = Path(spec.path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    from ruamel.yaml import YAML  # lazily: only a tune writes a file so

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    try:
        doc = yaml.load(text)
    except Exception:  # noqa: BLE001 - ruamel's errors have no common base; fall back
        return None
    cards = doc.get("cards") if hasattr(doc, "get") else None
    if not isinstance(cards, list) or len(cards) != len(spec.cards):
        return None
    edits: list[tuple[int, int, int]] = []  # (line, column, new value), 0-based
    for card, item, (dp, db, _) in zip(spec.cards, cards, v):
        mv = item.get("movement") if hasattr(item, "get") else None
        if mv is None or not hasattr(mv, "lc"):
            return None
        for key, delta, old in (("points", dp, card.movement.points), ("bonus", db, card.movement.bonus)):
            if delta:
                if mv.get(key) != old:
                    return None  # not the number the spec read: do not guess
                line, col = mv.lc.value(key)
                edits.append((line, col, old + delta))
    out = _splice(text, edits)
    if out is None:
        return None
    if not any(m for _, _, m in v):
        return out
    return _with_missions(yaml, out, v, alternatives)


def _splice(text: str, edits: list[tuple[int, int, int]]) -> str | None:
    """``text`` with the integer at each (line, column) replaced by its new value."""
    lines = text.splitlines(keepends=True)
    for line, col, new in edits:
        if line >= len(lines):
            return None
        m = _INT.match(lines[line], col)
        if m is None:
            return None
        lines[line] = lines[line][:col] + str(new) + lines[line][m.end():]
    return "".join(lines)


def _with_missions(yaml: Any, text: str, v: Variant, alternatives: Alternatives) -> str:
    """``text`` (numbers already changed) with the swapped cards' missions assigned."""
    doc = yaml.load(text)
    from ruamel.yaml.scalarstring import LiteralScalarString

    for item, (_, _, m), alts in zip(doc["cards"], v, alternatives):
        if m:
            mission = alts[m - 1].mission
            item["mission"]["title"] = mission.title
            item["mission"]["pattern"] = LiteralScalarString(mission.pattern.text() + "\n")
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    buf = io.StringIO()
    yaml.dump(doc, buf)
    return buf.getvalue()
