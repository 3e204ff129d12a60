"""``rove play`` from the command line's options: load the position, bind, serve.

Kept apart from :mod:`.server` so that the command's checks (bad files, a port in
use) happen before Starlette and uvicorn are imported, and so that tests can build a
session from the same options without serving.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .session import Started

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
"""The ``--host`` values that bind the loopback interface (the app then answers only
``server.LOOPBACK_HOSTS``)."""


@dataclass(frozen=True)
class PlayOptions:
    position: Path | None = None
    deal_seed: int | None = None
    spec: str = "standard"
    difficulty: str = "normal"
    host: str = "127.0.0.1"
    port: int = 0
    browser: bool = True
    open_deck: bool = False
    coach_nodes: int = 1_000_000
    expert_nodes: int = 300_000


def export_spec_ref(ref: str, base_dir: Path | None) -> str:
    """How an exported position names its spec: a bundled name stays a name; a file is
    named by its absolute path, since the browser may save the export anywhere."""
    from ..spec import BUNDLED_DIR, resolve_spec_ref

    path = resolve_spec_ref(ref, base_dir)
    if path.resolve().parent == BUNDLED_DIR and path.stem == ref:
        return ref
    return str(path.resolve())


def started_from(opts: PlayOptions) -> Started:
    """The position to play and its title (InputError for a bad file or spec)."""
    if opts.position is not None:
        from ..position import position_from_data
        from ..yamlio import LineDict, load_yaml_file

        path = opts.position
        data = load_yaml_file(path, "position (YAML)")
        pos = position_from_data(data, str(path), path.parent)
        title = data.get("title") if isinstance(data, LineDict) else None
        return Started(pos, str(title) if title else path.stem,
                       export_spec_ref(pos.spec_ref, path.parent), opts.open_deck)
    from dataclasses import replace

    from ..generators.deals import deal
    from ..spec import load_spec

    assert opts.deal_seed is not None
    ref = export_spec_ref(opts.spec, None)
    pos = replace(deal(load_spec(opts.spec), opts.deal_seed, opts.difficulty), spec_ref=ref)
    return Started(pos, f"deal {opts.deal_seed} ({opts.difficulty})", ref, opts.open_deck)



def bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); port 0 takes a free one.  OSError if it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def run_play(opts: PlayOptions, say: Callable[[str], None]) -> None:
    """Serve the game until Ctrl-C (KeyboardInterrupt reaches the caller).

    The socket is bound, and the browser sent to it, before the web stack is imported
    and the session built: the browser starts while they load, and its first request
    waits in the socket's queue, so the page appears as soon as both are ready."""
    started = started_from(opts)
    try:
        sock = bind(opts.host, opts.port)
    except OSError as exc:
        raise InputError.single("--port" if opts.port else "--host", None, (
            f"cannot serve on {opts.host} port {opts.port}: {exc.strerror or exc}; "
            "give another --port (0 takes a free one) or --host")) from None
    try:
        port = sock.getsockname()[1]
        local = opts.host in LOOPBACK
        if not local:
            say(f"rove play: warning: serving on {opts.host}, not the loopback interface: anyone who "
                "can reach this machine can play this game and ask the coach (who knows the deck's order)")
        shown = f"[{opts.host.strip('[]')}]" if ":" in opts.host else opts.host
        url = f"http://{shown}:{port}/"
        say(f"rove play: {started.title} at {url} (Ctrl-C stops)")
        if opts.browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        from .coach import Coach
        from .server import LOOPBACK_HOSTS, create_app, serve
        from .session import Session

        session = Session(started)
        coach = Coach(session, opts.coach_nodes, opts.expert_nodes, think_ahead=True)
        coach.look_ahead()  # the start's verdict, while the player looks at the board
        try:
            serve(create_app(session, coach, LOOPBACK_HOSTS if local else ("*",)), sock)
        finally:
            coach.shutdown()
    finally:
        sock.close()
