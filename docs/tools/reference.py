"""The command reference's tables, read from the `rove` command line itself.

Each reference page (docs/reference/*.md) holds a marker ``<!-- rove-options: rove NAME -->``
where the table of that command's arguments and options belongs.  At ``make docs`` the
MkDocs hook (``hooks.py``) replaces every marker with ``options_table(NAME)``, built from the
Typer app's click command: the same objects ``rove NAME --help`` prints, so the reference
cannot drift from the program.  ``tests/test_docs.py`` checks that every command has a page
with its marker, that each table names every option ``--help`` prints, and that the tables
are the same from run to run.
"""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Any

# Typer 0.2x carries its own cut-down copy of click, so parameters are told apart by what
# they are (click's ``param_type_name``), not by importing click's classes.
Command = Any
Param = Any


def _is_option(param: Param) -> bool:
    return bool(param.param_type_name == "option")


def _is_flag(param: Param) -> bool:
    return _is_option(param) and bool(getattr(param, "is_flag", False))


DOCS = Path(__file__).resolve().parent.parent
REFERENCE = DOCS / "reference"
MARKER = re.compile(r"<!--\s*rove-options:\s*rove ([a-z ]+?)\s*-->")


def _root() -> Command:
    import typer.main

    from rove.cli import app

    return typer.main.get_command(app)


def commands() -> dict[str, Command]:
    """Every leaf command by its full name (``check``, ``generate missions``), in the
    order ``rove --help`` lists them."""
    found: dict[str, Command] = {}

    def walk(group: Command, prefix: str) -> None:
        for name, cmd in group.commands.items():
            full = f"{prefix}{name}"
            if hasattr(cmd, "commands"):  # a group of subcommands
                walk(cmd, full + " ")
            else:
                found[full] = cmd

    walk(_root(), "")
    return found


def page_name(command: str) -> str:
    """The reference page of a command: ``check.md``, ``generate-missions.md``."""
    return command.replace(" ", "-") + ".md"


def _number(value: float) -> str:
    """A bound as a reader takes it in: 10^12 rather than 1,000,000,000,000."""
    if isinstance(value, int) and value >= 10**9 and str(value).rstrip("0") == "1":
        return f"10^{len(str(value)) - 1}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _value(param: Param) -> str:
    if _is_flag(param):
        return ""
    kind = param.type
    if hasattr(kind, "choices"):
        return "|".join(str(c) for c in kind.choices)
    if hasattr(kind, "min") and hasattr(kind, "max"):
        base = "INT" if "Int" in type(kind).__name__ else "NUMBER"
        bounds = []
        if kind.min is not None:
            bounds.append(f"{_number(kind.min)} <=")
        bounds.append("x")
        if kind.max is not None:
            bounds.append(f"<= {_number(kind.max)}")
        return f"{base} ({' '.join(bounds)})"
    if "path" in type(kind).__name__.lower():
        return "PATH"
    name = getattr(kind, "name", "") or "TEXT"
    name = name.upper()
    return {"INTEGER": "INT", "FLOAT": "NUMBER", "STR": "TEXT", "STRING": "TEXT", "FILE_PATH": "FILE"}.get(name, name)


def _default(param: Param) -> str:
    value = param.default
    if callable(value) or value is None or value == "":
        return ""
    if isinstance(value, enum.Enum):
        value = value.value
    if _is_flag(param):
        if param.secondary_opts:
            return param.opts[-1] if value else param.secondary_opts[0]
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) if value else ""
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _names(param: Param) -> str:
    if not _is_option(param):
        return f"`{param.human_readable_name.upper()}`" + ("" if param.required else " (optional)")
    names = [*param.opts, *param.secondary_opts]
    text = ", ".join(f"`{n}`" for n in names)
    return text + (" (required)" if param.required else "")


def option_names(command: str) -> set[str]:
    """Every option spelling of a command (``--node-limit``, ``-o``, ``--no-stamp``)."""
    cmd = commands()[command]
    return {n for p in cmd.params if _is_option(p) for n in (*p.opts, *p.secondary_opts)}


def usage(command: str) -> str:
    cmd = commands()[command]
    parts = [f"rove {command}"]
    if any(_is_option(p) for p in cmd.params):
        parts.append("[OPTIONS]")
    for p in cmd.params:
        if not _is_option(p):
            name = p.human_readable_name.upper() + ("..." if p.nargs == -1 else "")
            parts.append(name if p.required else f"[{name}]")
    return " ".join(parts)


def options_table(command: str) -> str:
    """The Markdown of a command's usage line and the table of its arguments and options."""
    cmd = commands()[command]
    lines = [f"`{usage(command)}`", "",
             "| argument or option | value | default | what it does |", "|---|---|---|---|"]
    for p in cmd.params:
        help_text = getattr(p, "help", None) or ""
        value = _value(p)
        lines.append(f"| {_names(p)} | {_cell(value) and '`' + _cell(value) + '`'} | {_cell(_default(p))} "
                     f"| {_cell(help_text)} |")
    lines.append("| `--help` |  |  | Show the command's help and exit. |")
    return "\n".join(lines) + "\n"


def expand(markdown: str) -> str:
    """A page with every marker replaced by its command's table, in a block the guide's
    style sheet (docs/assets/extra.css, .options-table) turns into a list of options on a narrow screen."""
    return MARKER.sub(lambda m: f'<div class="options-table" markdown>\n\n{options_table(m.group(1))}\n</div>',
                      markdown)
