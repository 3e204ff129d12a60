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
from typing import TYPE_CHECKING

from ..errors import InputError
from .session import Started, export_spec_ref

if TYPE_CHECKING:
    from .book import Book

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


def book_of(opts: PlayOptions) -> Book | None:
    """The book whose export folder is to be played (InputError for a bad index), or None."""
    if opts.position is None or not opts.position.is_dir():
        return None
    from .book import load_index

    return load_index(opts.position)


def started_from(opts: PlayOptions) -> Started:
    """The position to play and its title (InputError for a bad file or spec); for a
    book's folder, its first puzzle."""
    book = book_of(opts)
    if book is not None:
        return book.started(book.puzzles[0].number, opts.open_deck)
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
        # no Nagle: an answer's headers and body go at once (Linux hands the option on to
        # every accepted connection); without it each request on a kept-alive connection
        # waited some 40 ms for the browser's delayed ACK
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
    if not opts.host.strip():  # the socket layer takes "" for every interface, unwarned
        raise InputError.single("--host", None, (
            "is empty; give an interface's address or name (127.0.0.1, the default, serves "
            "this machine only; 0.0.0.0 serves every interface)"))
    book = book_of(opts)
    started = book.started(book.puzzles[0].number, opts.open_deck) if book else started_from(opts)
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
        what = f"the book {book.title!r} ({len(book.puzzles)} puzzles)" if book else started.title
        say(f"rove play: {what} at {url} (Ctrl-C stops)")
        if opts.browser:
            import webbrowser

            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        from .coach import Coach
        from .server import LOOPBACK_HOSTS, create_app, serve
        from .session import Session

        session = Session(started)
        coach = Coach(session, opts.coach_nodes, opts.expert_nodes, think_ahead=True)
        if book is None:  # a book opens on its list: the verdict waits for the puzzle picked
            coach.look_ahead()  # the start's verdict, while the player looks at the board
        try:
            serve(create_app(session, coach, LOOPBACK_HOSTS if local else ("*",), book), sock)
        finally:
            coach.shutdown()
    finally:
        sock.close()
