"""``rove play``: play a position in the browser, with the solvers as a coach.

* :mod:`.session`: one game being played: the start, the moves made (undo, redo), what
  the page may see, and the legal actions, all from :mod:`rove.engine`;
* :mod:`.coach`: the analyses (still winnable? still optimal? hints, the expert's move)
  in a worker thread with node budgets; a move makes a running analysis stale;
* :mod:`.server`: the Starlette app (the HTTP API of docs/FORMATS.md) and running it on
  uvicorn; :mod:`.run`: the command's options, binding, start-up order;
* :mod:`.svgcanvas`: the card PDFs' glyph code drawing the modules' arrows as SVG;
* ``static/``: the page (HTML, JavaScript and CSS), which draws the table as SVG and asks
  the server about every rule: it never decides legality itself.
"""
