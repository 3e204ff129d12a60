"""The HTTP side of ``rove play``: a Starlette app over one session, run on uvicorn.

The API (docs/FORMATS.md, "rove play"): JSON in and out; every error is a 4xx with
``{"error": message}``.  A page of any site the player visits can send requests to
127.0.0.1, so every request that may change the game (any method but GET and HEAD) is
refused with 403 unless it says ``Content-Type: application/json`` (which a page of
another origin cannot send without the browser asking first, and this server never
agrees) and its ``Origin`` (or, without one, its ``Referer``) is the server's own page
(:class:`SameOrigin`).  Bodies are capped at ``MAX_BODY`` bytes, and only the host
names of the loopback interface are answered unless ``--host`` chose another (a page
whose name was rebound to 127.0.0.1 is refused).  A client gets
``REQUEST_TIMEOUT`` seconds to send each request, headers and body, and at most
``MAX_CONNECTIONS`` connections are served at once (:func:`make_server`).  The server
writes no file and opens no path it is sent: the page's files are read from the
package once, by fixed names, and an export is a download the browser saves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import threading
from collections.abc import Iterator, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..actions import Action
from ..engine import IllegalAction
from ..errors import InputError
from .book import Book, shared_started
from .coach import Coach
from .session import NothingThere, Session

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The host names the app answers when it serves on the loopback interface (a page of
another site that resolves its own name to 127.0.0.1 is refused).  Defined here, where
the app uses it: :mod:`.run` starts the server, so the server must not import it back."""

MAX_BODY = 16 * 1024
"""Largest request body taken (an action is a few dozen bytes)."""
STATIC = {"play.js": "text/javascript", "play.css": "text/css"}
SAFE_METHODS = ("GET", "HEAD")
"""The methods that change nothing; every other one must come from the server's own page."""
REQUEST_TIMEOUT = 10.0
"""Seconds a client has to send a whole request, headers and body, from the moment it
connects or its last response was sent (uvicorn times out idle connections only, not
one that sends a byte now and then); the page's requests take milliseconds."""
MAX_CONNECTIONS = 32
"""Connections served at once; past it a request is answered 503 (one player's page
keeps a few open)."""
MAX_HEADERS = 16 * 1024
"""Largest request head (request line and headers) taken."""


class ApiError(HTTPException):
    """A request the API refuses; the handler turns it into ``{"error": ...}``."""


def _page_files() -> dict[str, bytes]:
    root = resources.files("rove.play") / "static"
    return {name: (root / name).read_bytes() for name in ("index.html", *STATIC)}


def _content_type(headers: Any) -> str:
    return str(headers.get("content-type", "")).split(";")[0].strip().lower()


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL (an Origin header is one already)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def foreign(method: str, headers: Any) -> str | None:
    """Why a request may have come from another site's page (None: it did not).

    Browsers send ``Origin`` with every POST, and with every cross-origin request of any
    method, so a request without one comes from a program (curl, a script), not from a
    page of another site; a ``Referer`` stands in for it where a privacy setting strips
    ``Origin``.  Either must name this server's own page, ``http://`` and the ``Host``
    the request was sent to (a host name the app answers, checked before this)."""
    if method in SAFE_METHODS:
        return None
    if _content_type(headers) != "application/json":
        return ("send every request that changes the game with 'Content-Type: application/json' "
                "(an empty body too); another site's page cannot")
    own = f"http://{headers.get('host', '')}".lower()
    origin = headers.get("origin")
    if origin is not None:
        return None if origin.lower() == own else (
            f"the request comes from the page of {origin}, not from this game's page {own}/")
    referer = headers.get("referer")
    if referer is not None and _origin(referer) != own:
        return f"the request comes from the page {referer}, not from this game's page {own}/"
    return None


class SameOrigin:
    """ASGI middleware: a request that may change the game and may come from another
    site's page (:func:`foreign`) is refused with 403 before any route sees it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            from starlette.datastructures import Headers

            why = foreign(scope["method"], Headers(scope=scope))
            if why is not None:
                await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is an empty object); ApiError otherwise."""
    if _content_type(request.headers) != "application/json":  # SameOrigin refused it already
        raise ApiError(403, "send the body as JSON with 'Content-Type: application/json'")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ApiError(413, f"the body is larger than {MAX_BODY:,} bytes; an action is a short JSON object")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise ApiError(413, f"the body is larger than {MAX_BODY:,} bytes; an action is a short JSON object")
    except ClientDisconnect:  # gone, or cut off at REQUEST_TIMEOUT: nobody reads the answer
        raise ApiError(408, f"the body did not come within {REQUEST_TIMEOUT:g} seconds") from None
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object, like {\"action\": \"B E2\"}")
    return data


@contextlib.contextmanager
def refusals(illegal: str) -> Iterator[None]:
    """The session's refusals as the API's answers, the same on every route: a move the
    rules forbid is 422 (``illegal`` says what was refused), a step that is not there
    (nothing to undo, redo or play) is 409."""
    try:
        yield
    except IllegalAction as exc:
        raise ApiError(422, f"{illegal}: {exc}") from None
    except NothingThere as exc:
        raise ApiError(409, str(exc)) from None


def parse_action(value: Any) -> Action:
    """An action as notation text (``"B E2"``) or a plan object (``{"act": "move", ...}``)."""
    try:
        if isinstance(value, str):
            action = Action.parse(value)
        elif isinstance(value, dict):
            action = Action.from_json(value)
        else:
            raise ValueError("'action' must be notation text like \"B E2\" or a plan step object")
        action.notation()  # an ability with arguments of no known form is refused here
    except (ValueError, TypeError) as exc:
        raise ApiError(400, str(exc)) from None
    return action


def create_app(session: Session, coach: Coach, allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
               book: Book | None = None) -> Starlette:
    """The app: the page, its two files, and the API over ``session`` and ``coach``."""
    files = _page_files()

    def view() -> JSONResponse:
        return JSONResponse(session.view())

    async def index(request: Request) -> Response:
        return HTMLResponse(files["index.html"])

    def static(name: str) -> Any:
        async def serve(request: Request) -> Response:
            return Response(files[name], media_type=STATIC[name])
        return serve

    async def state(request: Request) -> Response:
        return view()

    async def action(request: Request) -> Response:
        data = await read_json(request)
        if "action" not in data:
            raise ApiError(400, "give the move as {\"action\": \"B E2\"} (notation or a plan step object)")
        a = parse_action(data["action"])
        with refusals("illegal"):
            session.play(a)
        coach.changed()
        return view()

    def stepper(what: str) -> Any:
        async def step(request: Request) -> Response:
            data = await read_json(request)
            with refusals("illegal"):
                if what == "undo":
                    session.undo()
                elif what == "redo":
                    session.redo()
                else:
                    to = data.get("step")
                    if not isinstance(to, int) or isinstance(to, bool):
                        raise ApiError(400, "give the step to go to as {\"step\": N} (0: the start)")
                    session.goto(to)
            coach.changed()
            return view()
        return step

    async def ask(request: Request) -> Response:
        data = await read_json(request)
        level = data.get("level", 1)
        if not isinstance(level, int) or isinstance(level, bool):
            raise ApiError(400, f"'level' is {level!r}; give 1, 2 or 3")
        try:
            job = coach.ask(str(data.get("ask")), level)
        except ValueError as exc:
            raise ApiError(400, str(exc)) from None
        return JSONResponse(job.to_json(), status_code=202)

    async def job(request: Request) -> Response:
        raw = request.path_params["job"]
        found = coach.get(int(raw)) if raw.isdigit() and len(raw) < 12 else None
        if found is None:
            raise ApiError(404, f"there is no analysis {raw!r} (finished ones are kept a while only); "
                                "ask again")
        return JSONResponse(found.to_json())

    def export(what: str) -> Any:
        async def download(request: Request) -> Response:
            if what == "position":
                text, name = session.export_position()
                mime = "application/x-yaml"
            else:
                text, name, mime = session.plan_text(), "rove-plan.json", "application/json"
            return Response(text, media_type=mime,
                            headers={"Content-Disposition": f'attachment; filename="{name}"'})
        return download

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    routes = [
        Route("/", index),
        *(Route(f"/static/{name}", static(name)) for name in STATIC),
        Route("/api/state", state),
        Route("/api/action", action, methods=["POST"]),
        Route("/api/undo", stepper("undo"), methods=["POST"]),
        Route("/api/redo", stepper("redo"), methods=["POST"]),
        Route("/api/goto", stepper("goto"), methods=["POST"]),
        Route("/api/coach", ask, methods=["POST"]),
        Route("/api/coach/{job}", job),
        Route("/api/export/position", export("position")),
        Route("/api/export/plan", export("plan")),
        *game_routes(session, coach, book),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))] if allowed_hosts else []
    middleware.append(Middleware(SameOrigin))
    return Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: refused})


def _timed_protocol(timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline on each request: a client that has not sent
    a whole request (head and body) ``timeout`` seconds after it connected, or
    after the last response, is cut off.  uvicorn's own timeout covers only a connection
    idle after a response, and any byte received cancels it, so a client sending a byte
    a second held its connection for ever (a body read then ends in ClientDisconnect,
    answered 408 by :func:`read_json`)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedH11(H11Protocol):
        deadline: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(timeout, self._cut)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def _cut(self) -> None:
            self.deadline = None
            if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is h11.DONE:  # the whole request is in
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

    return TimedH11


def make_server(app: Starlette, request_timeout: float = REQUEST_TIMEOUT) -> uvicorn.Server:
    """A uvicorn server for the app: the h11 protocol with a deadline per request
    (:func:`_timed_protocol`), ``MAX_CONNECTIONS`` at once, heads of ``MAX_HEADERS``
    bytes at most, and SIGHUP (a closed terminal) stopping it as SIGINT and SIGTERM do."""
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            """uvicorn's, with SIGHUP too (unless started ignored, as under nohup): raised
            in the event loop, it was lost there, and the server went on serving."""
            hup = getattr(signal, "SIGHUP", None)
            if (hup is None or threading.current_thread() is not threading.main_thread()
                    or signal.getsignal(hup) == signal.SIG_IGN):
                with super().capture_signals():
                    yield
                return
            old = signal.signal(hup, self.handle_exit)
            try:
                with super().capture_signals():
                    yield
            finally:
                signal.signal(hup, old)
                if signal.SIGHUP in self._captured_signals:  # raised again, as uvicorn does the others
                    signal.raise_signal(hup)

    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1,
                            http=_timed_protocol(request_timeout), limit_concurrency=MAX_CONNECTIONS,
                            h11_max_incomplete_event_size=MAX_HEADERS)
    return Server(config)


def serve(app: Starlette, sock: socket.socket) -> None:
    """Run the app on uvicorn over a socket already listening, until Ctrl-C; raises
    KeyboardInterrupt then, so the command exits 130.

    uvicorn shuts down on the signal and raises it again afterwards, but inside
    ``asyncio.run``, whose own SIGINT handler may turn it into a cancelled task that ends
    normally (it does when the coach's worker is busy), so the server's return is taken
    as the interruption it always is: nothing else stops it."""
    make_server(app).run(sockets=[sock])
    raise KeyboardInterrupt


def game_routes(session: Session, coach: Coach, book: Book | None) -> list[Route]:
    """The routes that change which game is played: a book's list and its puzzles
    (``rove play DIR``), and a link's game played again (a reload, a shared address)."""

    def replace(started: Any) -> None:
        session.load(started)
        coach.reset()

    async def listing(request: Request) -> Response:
        if book is None:
            raise ApiError(404, "this game is not a book's: `rove play DIR` opens a book's export folder")
        return JSONResponse(book.to_json())

    def puzzle(number: Any) -> None:
        if book is None:
            raise ApiError(404, "this game is not a book's: `rove play DIR` opens a book's export folder")
        if not isinstance(number, int) or isinstance(number, bool) or book.entry(number) is None:
            raise ApiError(400, f"the book has no puzzle {number!r}; give one of its numbers")
        try:
            replace(book.started(number, session.started.open_deck))
        except InputError as exc:
            raise ApiError(422, str(exc)) from None

    async def open_puzzle(request: Request) -> Response:
        puzzle((await read_json(request)).get("number"))
        coach.changed()
        return JSONResponse(session.view())

    async def line(request: Request) -> Response:
        data = await read_json(request)
        plan = data.get("plan", [])
        if not isinstance(plan, list):
            raise ApiError(400, "give the line as {\"plan\": [\"play c06+\", \"C N2\", ...]}")
        actions = [parse_action(a) for a in plan]
        if data.get("puzzle") is not None:
            if data["puzzle"] != session.started.puzzle:
                puzzle(data["puzzle"])
        elif isinstance(data.get("position"), str):
            if data["position"] != session.start_text():
                try:
                    replace(shared_started(data["position"], session.started))
                except InputError as exc:
                    raise ApiError(422, str(exc)) from None
        with refusals("the line does not replay here"):
            session.follow(actions)
        coach.changed()
        return JSONResponse(session.view())

    return [Route("/api/book", listing), Route("/api/book/open", open_puzzle, methods=["POST"]),
            Route("/api/line", line, methods=["POST"])]
