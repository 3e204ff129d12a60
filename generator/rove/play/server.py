"""The HTTP side of ``rove play``: a Starlette app over one session, run on uvicorn.

The API (docs/FORMATS.md, "rove play"): JSON in and out; every error is a 4xx with
``{"error": message}``.  Requests with a body must say ``Content-Type:
application/json`` (so another site's page cannot post to it without the browser
asking first), bodies are capped at ``MAX_BODY`` bytes, and only the host names of
the loopback interface are answered unless ``--host`` chose another.  The server
writes no file and opens no path it is sent: the page's files are read from the
package once, by fixed names, and an export is a download the browser saves.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..actions import Action
from ..engine import IllegalAction
from ..errors import InputError
from .book import Book, shared_started
from .coach import Coach
from .session import NothingThere, Session

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The host names the app answers when it serves on the loopback interface (a page of
another site that resolves its own name to 127.0.0.1 is refused).  Defined here, where
the app uses it: :mod:`.run` starts the server, so the server must not import it back."""

MAX_BODY = 16 * 1024
"""Largest request body taken (an action is a few dozen bytes)."""
STATIC = {"play.js": "text/javascript", "play.css": "text/css"}


class ApiError(HTTPException):
    """A request the API refuses; the handler turns it into ``{"error": ...}``."""


def _page_files() -> dict[str, bytes]:
    root = resources.files("rove.play") / "static"
    return {name: (root / name).read_bytes() for name in ("index.html", *STATIC)}


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is an empty object); ApiError otherwise."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise ApiError(413, f"the body is larger than {MAX_BODY:,} bytes; an action is a short JSON object")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the body is larger than {MAX_BODY:,} bytes; an action is a short JSON object")
    if not body.strip():
        return {}
    if ctype != "application/json":
        raise ApiError(415, "send the body as JSON with 'Content-Type: application/json'")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ApiError(400, f"the body is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object, like {\"action\": \"B E2\"}")
    return data


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
        try:
            session.play(a)
        except IllegalAction as exc:
            raise ApiError(422, f"illegal: {exc}") from None
        except NothingThere as exc:
            raise ApiError(409, str(exc)) from None
        coach.changed()
        return view()

    def stepper(what: str) -> Any:
        async def step(request: Request) -> Response:
            data = await read_json(request)
            try:
                if what == "undo":
                    session.undo()
                elif what == "redo":
                    session.redo()
                else:
                    to = data.get("step")
                    if not isinstance(to, int) or isinstance(to, bool):
                        raise ApiError(400, "give the step to go to as {\"step\": N} (0: the start)")
                    session.goto(to)
            except NothingThere as exc:
                raise ApiError(409, str(exc)) from None
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
    return Starlette(routes=routes, middleware=middleware, exception_handlers={HTTPException: refused})


def serve(app: Starlette, sock: socket.socket) -> None:
    """Run the app on uvicorn over a socket already listening, until Ctrl-C; raises
    KeyboardInterrupt then, so the command exits 130.

    uvicorn shuts down on the signal and raises it again afterwards, but inside
    ``asyncio.run``, whose own SIGINT handler may turn it into a cancelled task that ends
    normally (it does when the coach's worker is busy), so the server's return is taken
    as the interruption it always is: nothing else stops it."""
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
    uvicorn.Server(config).run(sockets=[sock])
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
        try:
            session.follow(actions)
        except IllegalAction as exc:
            raise ApiError(422, f"the line does not replay here: {exc}") from None
        except NothingThere as exc:
            raise ApiError(409, str(exc)) from None
        coach.changed()
        return JSONResponse(session.view())

    return [Route("/api/book", listing), Route("/api/book/open", open_puzzle, methods=["POST"]),
            Route("/api/line", line, methods=["POST"])]
