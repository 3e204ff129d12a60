"""YAML reading that remembers where every value came from.

PyYAML's composed node tree carries start marks; we keep them on the containers
we build (``LineDict``/``LineList``) so validation can say which line is wrong.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError


class LineDict(dict[str, Any]):
    """A mapping that knows its own line and the line of each key (1-based)."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item (1-based)."""

    line: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


class _Loader(yaml.SafeLoader):
    """SafeLoader that builds LineDict/LineList and rejects duplicate keys."""


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    data = LineDict()
    data.line = node.start_mark.line + 1
    data.key_lines = {}
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, str):
            key = str(key)
        if key in data:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}; remove one of them", key_node.start_mark
            )
        data[key] = loader.construct_object(value_node, deep=True)
        data.key_lines[key] = key_node.start_mark.line + 1


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    data = LineList()
    data.line = node.start_mark.line + 1
    data.item_lines = []
    yield data
    for item in node.value:
        data.append(loader.construct_object(item, deep=True))
        data.item_lines.append(item.start_mark.line + 1)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


_PLAIN = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./-]*$")


def yaml_scalar(s: str) -> str:
    """A string as a YAML scalar that reads back as the same string: plain when that is
    unambiguous (``c01``, ``standard``), JSON-quoted otherwise (``"01"``, ``"on"``, ``"a #b"``)."""
    if _PLAIN.match(s) and yaml.safe_load(s) == s:
        return s
    return json.dumps(s, ensure_ascii=False)


def load_yaml_text(text: str, path: str) -> Any:
    """Parse YAML text; a syntax error becomes an InputError at its line."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or str(exc)
        raise InputError.single(path, line, f"YAML syntax: {what}; fix the YAML at this line") from None
    except yaml.YAMLError as exc:
        raise InputError.single(path, None, f"YAML syntax: {exc}") from None


def read_text(path: Path, what: str) -> str:
    """Read a UTF-8 file or raise an InputError that says what was expected there."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError.single(str(path), None, f"no such file; give the path of a {what}") from None
    except IsADirectoryError:
        raise InputError.single(str(path), None, f"is a folder; give the path of a {what}") from None
    except UnicodeDecodeError as exc:
        raise InputError.single(str(path), None, f"not UTF-8 text ({exc.reason}); save it as UTF-8") from None
    except OSError as exc:
        raise InputError.single(str(path), None, f"cannot read: {exc.strerror}") from None


def load_yaml_file(path: Path, what: str) -> Any:
    return load_yaml_text(read_text(path, what), str(path))
