"""YAML reading that remembers where every value came from.

PyYAML's composed node tree carries start marks; we keep them on the containers
we build (``LineDict``/``LineList``) so validation can say which line is wrong.

Input files are untrusted: every file is read whole only when it is small enough,
and a YAML document may not nest, or repeat values through aliases, beyond the
limits below (docs/LIMITS.md).  A value echoed into an error message is cut short.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from .errors import InputError, shorten

MAX_INPUT_BYTES = 5 * 1024 * 1024
"""Largest spec, position or plan file read (5 MB); the bundled spec is 3 kB."""
MAX_DEPTH = 64
"""Deepest nesting of lists and mappings in a YAML or JSON input."""
MAX_ALIAS_USES = 1_000
"""Most alias uses (``*name``) in a YAML document, an alias inside an aliased value
counted once for every time that value is used."""
MAX_VALUES = 100_000
"""Most values (scalars, lists and mappings) in a YAML document, every alias counted
as a full copy of the value it names."""
MAX_ECHO = 80
"""Longest text of a value quoted in an error message (longer values are cut)."""


def short_repr(value: Any, limit: int = MAX_ECHO) -> str:
    """``repr(value)`` cut to about ``limit`` characters, in time and memory bounded by the
    limit however big or deeply shared the value is (a value read through YAML aliases)."""
    out: list[str] = []
    room = limit + 1

    def put(text: str) -> bool:
        nonlocal room
        out.append(text[:room])
        room -= len(text)
        return room > 0

    def walk(v: Any, depth: int) -> bool:
        if isinstance(v, dict):
            if depth > 8:
                return put("{...}")
            if not put("{"):
                return False
            for i, (k, item) in enumerate(v.items()):
                if (i and not put(", ")) or not walk(k, depth + 1) or not put(": ") \
                        or not walk(item, depth + 1):
                    return False
            return put("}")
        if isinstance(v, (list, tuple, set, frozenset)):
            ends = "[]" if isinstance(v, list) else "()" if isinstance(v, tuple) else "{}"
            if depth > 8:
                return put(ends[0] + "..." + ends[1])
            if not put(ends[0]):
                return False
            for i, item in enumerate(v):
                if (i and not put(", ")) or not walk(item, depth + 1):
                    return False
            return put(ends[1])
        if isinstance(v, (str, bytes)):
            return put(repr(v[:room + 1]))
        return put(repr(v))

    walk(value, 0)
    text = "".join(out)
    return text if room >= 0 else text[:max(0, limit - 3)] + "..."


class LineDict(dict[str, Any]):
    """A mapping that knows its own line and the line of each key (1-based).

    Its ``repr`` (what an error message quotes) is cut to MAX_ECHO characters."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.line)

    def __repr__(self) -> str:
        return short_repr(self)

    __str__ = __repr__


class LineList(list[Any]):
    """A sequence that knows its own line and the line of each item (1-based).

    Its ``repr`` (what an error message quotes) is cut to MAX_ECHO characters."""

    line: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line

    def __repr__(self) -> str:
        return short_repr(self)

    __str__ = __repr__


class _Refused(Exception):
    """A document over one of the limits, at a YAML mark."""

    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.line = mark.line + 1 if mark is not None else None
        self.message = message


class _Loader(yaml.SafeLoader):
    """SafeLoader that builds LineDict/LineList, rejects duplicate keys, and refuses a
    document nested deeper than MAX_DEPTH or grown by aliases past MAX_ALIAS_USES alias
    uses or MAX_VALUES values (the "billion laughs"), while composing, before any value
    is built.  A value that cannot be built (a 5000-digit integer, the date 2001-13-45)
    is an error at its line, not a crash."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._open: list[list[int]] = []  # per open list/mapping: [values, alias uses] inside it
        self._sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values, alias uses) expanded
        self._values = 0
        self._aliases = 0

    def _check(self, mark: Any) -> None:
        if self._aliases > MAX_ALIAS_USES:
            raise _Refused(mark, f"more than {MAX_ALIAS_USES:,} alias uses (*name), counting an "
                                 "alias inside an aliased value each time that value is used "
                                 "(the limit stops alias bombs); write the values out instead")
        if self._values > MAX_VALUES:
            raise _Refused(mark, f"more than {MAX_VALUES:,} values, counting each alias (*name) as "
                                 "a full copy of its value; no deck or position needs so many: "
                                 "is this the right file?")

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            target = self.anchors.get(event.anchor)
            if target is not None:  # an undefined alias is PyYAML's own error
                size = self._sizes.get(id(target))
                if size is None:  # its value is still open: the alias is inside it
                    raise _Refused(event.start_mark, f"alias *{shorten(event.anchor, MAX_ECHO)} is "
                                                     "used inside the value it names; a value "
                                                     "cannot contain itself")
                values, aliases = size[0], size[1] + 1
                self._values += values
                self._aliases += aliases
                if self._open:
                    self._open[-1][0] += values
                    self._open[-1][1] += aliases
                self._check(event.start_mark)
            return super().compose_node(parent, index)
        event = self.peek_event()
        nested = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if nested:
            if len(self._open) >= MAX_DEPTH:
                raise _Refused(event.start_mark, f"lists and mappings nested more than {MAX_DEPTH} "
                                                 "levels deep; no deck or position needs so many")
            self._open.append([0, 0])  # its children count themselves in here as they come
        try:
            node = super().compose_node(parent, index)
        finally:
            values, aliases = self._open.pop() if nested else (0, 0)
        values += 1  # the node itself
        self._sizes[id(node)] = (values, aliases)
        self._values += 1
        if self._open:
            self._open[-1][0] += values
            self._open[-1][1] += aliases
        self._check(event.start_mark)
        return node

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError, TypeError) as exc:
            kind = shorten(node.tag.rsplit(":", 1)[-1], MAX_ECHO)
            raise _Refused(node.start_mark, f"this value cannot be read as YAML type {kind} "
                                            f"({shorten(str(exc), 200)}); fix it, or quote it "
                                            "to make it text") from None


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> Iterator[LineDict]:
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


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> Iterator[LineList]:
    data = LineList()
    data.line = node.start_mark.line + 1
    data.item_lines = []
    yield data
    for item in node.value:
        data.append(loader.construct_object(item, deep=True))
        data.item_lines.append(item.start_mark.line + 1)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./-]*")


def yaml_scalar(s: str) -> str:
    """A string as a YAML scalar that reads back as the same string: plain when that is
    unambiguous (``c01``, ``standard``), JSON-quoted otherwise (``"01"``, ``"on"``, ``"a #b"``)."""
    if _PLAIN.fullmatch(s) and yaml.safe_load(s) == s:
        return s
    return json.dumps(s, ensure_ascii=False)


def load_yaml_text(text: str, path: str) -> Any:
    """Parse YAML text; a syntax error, or a document over the limits, becomes an
    InputError at its line."""
    try:
        loader = _Loader(text)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except _Refused as exc:
        raise InputError.single(path, exc.line, exc.message) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = f"{exc.problem or exc}; fix the YAML at this line"
        if exc.context_mark is not None and exc.problem_mark is not None and \
                exc.problem_mark.index >= len(text.rstrip()):
            # the file ended inside something opened earlier (a quote, a bracket): that is
            # where to look, not past the end of the file
            mark, what = exc.context_mark, f"the file ends {exc.context} that starts at this line; close it"
        line = mark.line + 1 if mark else None
        if mark is not None and mark is exc.problem_mark:
            if exc.context_mark is not None and exc.context_mark.line < mark.line and \
                    exc.context and "flow" in exc.context:
                # a bracket left open on an earlier line: the parser read on past its end
                line = exc.context_mark.line + 1
                what = (f"{exc.problem}: the bracket opened at this line is not closed (the parser "
                        f"stopped at line {mark.line + 1}); close it")
            elif isinstance(exc, yaml.parser.ParserError):  # a scanner's fault is its own character
                line, what = _line_at_fault(text, mark.line, mark.column, what)
        raise InputError.single(path, line, f"YAML syntax: {what}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (a NUL byte, ...)
        line = text.count("\n", 0, exc.position) + 1
        char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
        raise InputError.single(path, line, f"the character {char!r} (U+{ord(char[:1] or ' '):04X}) "
                                            "cannot be in a YAML file; remove it") from None
    except yaml.YAMLError as exc:
        raise InputError.single(path, None, f"YAML syntax: {exc}") from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH stops nesting long before this
        raise InputError.single(path, None, f"nested too deeply; at most {MAX_DEPTH} levels") from None


def _line_at_fault(text: str, line: int, column: int, what: str) -> tuple[int, str]:
    """The 1-based line to report for a parser stopped at (``line``, ``column``), 0-based.

    The parser finds a fault at the first token it cannot take; when that token opens
    its line (only blanks before it), the fault was the line before, which ended where
    it should not have (an unclosed bracket, a value left out), so that line is reported,
    the one with the last thing written before it, and the parser's line named too."""
    lines = text.splitlines()
    if line >= len(lines) or lines[line][:column].strip():
        return line + 1, what
    before = next((i for i in range(min(line, len(lines)) - 1, -1, -1)
                   if lines[i].strip() and not lines[i].lstrip().startswith("#")), None)
    if before is None:
        return line + 1, what
    return before + 1, f"{what} (the parser stopped at the start of line {line + 1})"


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages: 'a folder', 'a character device', ..."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "not a regular file"


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


PIPE_WAIT = 30.0
"""Seconds a named pipe (FIFO) is waited for its writer: ``rove replay pos.yaml fifo``
while another program opens it, as ``cat`` waits, but not for ever (a FIFO nobody
writes to hung the command)."""


def _named_pipe(name: str) -> bool:
    """A FIFO on disk, not a descriptor's alias (/dev/stdin, ``<(...)``'s /dev/fd/N),
    whose writer holds it open already."""
    return not (name in ("-", "/dev/stdin") or name.startswith(("/dev/fd/", "/proc/self/fd/")))


def _writer_came(fd: int) -> bool:
    """Whether a writer opened the FIFO read by ``fd`` (opened non-blocking, so the open
    itself never waits) within ``PIPE_WAIT`` seconds: it has written, or come and gone."""
    import select

    if not hasattr(select, "poll"):  # pragma: no cover - not POSIX
        return True
    waiter = select.poll()
    waiter.register(fd, select.POLLIN | select.POLLHUP)
    return bool(waiter.poll(int(PIPE_WAIT * 1000)))


def read_bytes(path: Path, what: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file (or a pipe) of at most ``limit`` bytes, or an InputError
    that says what was expected there.  A device or a file over the limit is refused before
    it is read whole: at most ``limit + 1`` bytes are ever read."""
    name = str(path)
    try:
        # A pipe is read blocking, as `cat` does: read non-blocking before its writer came,
        # it reads as empty ("all 0 steps legal").  /dev/stdin and <(...) are opened
        # blocking (their writer holds them open); a named pipe is opened non-blocking and
        # its writer waited for, PIPE_WAIT seconds at most; anything else is opened
        # non-blocking, so that a device cannot hang the open.
        try:
            fifo = stat.S_ISFIFO(os.stat(path).st_mode)
        except OSError:
            fifo = False  # the open below says what is wrong
        named = fifo and _named_pipe(name)
        blocking = fifo and not named
        flags = os.O_RDONLY | getattr(os, "O_NOCTTY", 0) | (0 if blocking else getattr(os, "O_NONBLOCK", 0))
        fd = os.open(path, flags)
        if named and not _writer_came(fd):
            os.close(fd)
            raise InputError.single(name, None, f"is a named pipe (FIFO) that nobody opened for writing "
                                                f"within {PIPE_WAIT:g} seconds; start its writer first, "
                                                f"or give the path of a {what}")
    except FileNotFoundError:
        raise InputError.single(name, None, f"no such file; give the path of a {what}") from None
    except IsADirectoryError:
        raise InputError.single(name, None, f"is a folder; give the path of a {what}") from None
    except OSError as exc:
        raise InputError.single(name, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError.single(name, None, f"is a folder; give the path of a {what}")
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise InputError.single(name, None, f"is {file_kind(st.st_mode)}, not a file; give the "
                                                f"path of a {what}")
        if stat.S_ISREG(st.st_mode) and st.st_size > limit:
            raise InputError.single(name, None, f"is {_megabytes(st.st_size)}, over the "
                                                f"{_megabytes(limit)} limit for a {what}; "
                                                "is this the right file?")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # a file that grew, or a pipe
            raise InputError.single(name, None, f"is over the {_megabytes(limit)} limit for a "
                                                f"{what}; is this the right file?")
        return b"".join(chunks)
    except IsADirectoryError:
        raise InputError.single(name, None, f"is a folder; give the path of a {what}") from None
    except OSError as exc:
        raise InputError.single(name, None, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: Path, what: str, limit: int = MAX_INPUT_BYTES) -> str:
    """Read a UTF-8 file (a leading byte-order mark is dropped) of at most ``limit`` bytes,
    or raise an InputError that says what was expected there."""
    data = read_bytes(path, what, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError.single(str(path), line, f"not UTF-8 text ({exc.reason}); save it as UTF-8") from None


def load_yaml_file(path: Path, what: str) -> Any:
    return load_yaml_text(read_text(path, what), str(path))
