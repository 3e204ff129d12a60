// rove play: the page.  It draws what the server's view says and sends the actions the
// server listed as legal; it never decides a rule itself.  The colours come from the
// server (the card PDFs' own palette), and so do the modules' arrows, drawn as SVG by
// the card PDFs' own glyph code; the patterns follow the cards' marks ('#' grey, a named
// module dark with its code, '_' a dashed cell with a cross).
"use strict";

const NS = "http://www.w3.org/2000/svg";
const CELL = 76;
let view = null;
let selected = null;       // module code whose actions are shown
let selectedCard = null;   // hand card whose plays are shown
let hintLevel = 0;         // the last hint level asked for this version
let job = null;            // the coach job being polled
let busy = false;
let origin = [0, 0];       // the grid cell drawn at the board's top-left corner
let book = null;           // the book's list (rove play DIR), else null
let bookHint = 0;          // the book's hint levels shown for this puzzle
const COMMANDS = ["u", "r", "h", "w", "e"];  // letters that are commands, not modules

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, parent = null, text = null) {
  const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, v);
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// ---------------------------------------------------------------- talking to the server

async function call(method, url, body) {
  // every POST is JSON, with its content type (an empty object when there is nothing to say)
  const opts = {method, headers: {}};
  if (method !== "GET") {  // the server refuses a change without the JSON content type
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body === undefined ? {} : body);
  }
  const res = await fetch(url, opts);
  const data = await res.json().catch(() => ({error: `${res.status} ${res.statusText}`}));
  if (!res.ok) throw new Error(data.error || `${res.status}`);
  return data;
}

async function change(url, body) {
  if (busy) return;
  busy = true;
  try {
    const v = await call("POST", url, body);
    selected = null;
    selectedCard = null;
    say("");
    render(v);
  } catch (err) {
    say(err.message);
  } finally {
    busy = false;
  }
}

const act = (notation) => change("/api/action", {action: notation});

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function say(text) { $("message").textContent = text; }

// ---------------------------------------------------------------- drawing

function drawPattern(parent, cells, size, pal, highlight) {
  // a pattern as the cards draw it: '#' grey, a named module dark with its code, '_' a
  // dashed cell with a cross (must be empty)
  const cols = Math.max(...cells.map((c) => c[0])) + 1, rows = Math.max(...cells.map((c) => c[1])) + 1;
  const svg = el("svg:svg", {width: cols * size, height: rows * size, viewBox: `0 0 ${cols * size} ${rows * size}`,
                             class: "pattern"}, parent);
  const values = new Map(cells.map(([x, y, v]) => [`${x},${y}`, v]));
  const pad = size * 0.07, s = size - 2 * pad, r = size * 0.14;
  for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) {
    const v = values.get(`${x},${y}`);
    const at = {x: x * size + pad, y: y * size + pad, width: s, height: s, rx: r};
    if (v === undefined) {
      el("svg:rect", {...at, fill: "none", stroke: pal.grid_line, "stroke-dasharray": "2 3"}, svg);
    } else if (v === "#") {
      el("svg:rect", {...at, fill: pal.any_fill, stroke: pal.ink, "stroke-width": 1.2}, svg);
    } else if (v === "_") {
      el("svg:rect", {...at, fill: "#fff", stroke: pal.ink, "stroke-dasharray": "3 2", "stroke-width": 1.2}, svg);
      const k = s * 0.28, x0 = at.x, y0 = at.y;
      el("svg:path", {d: `M${x0 + k},${y0 + k}L${x0 + s - k},${y0 + s - k}M${x0 + k},${y0 + s - k}L${x0 + s - k},${y0 + k}`,
                      stroke: pal.ink, "stroke-width": 1.6, "stroke-linecap": "round"}, svg);
    } else {
      el("svg:rect", {...at, fill: highlight || pal.ink, stroke: highlight || pal.ink}, svg);
      el("svg:text", {x: at.x + s / 2, y: at.y + s * 0.72, "text-anchor": "middle", "font-size": s * 0.62,
                      "font-weight": "bold", fill: "#fff"}, svg, v);
    }
  }
  return svg;
}

function legalFor(module) {
  return view.legal.filter((a) => a.act !== "play" && a.module === module);
}

function drawBoard() {
  const pal = view.palette;
  const board = $("board");
  board.replaceChildren();
  const cells = Object.values(view.cells);
  // ringed cells: the selected module's moves, and its ability uses that move only itself (Coil)
  const targets = selected ? legalFor(selected).filter((a) => a.act === "move" ||
    (a.moved.length === 1 && a.moved[0] === selected && !a.via)) : [];
  const pts = cells.concat(targets.map((a) => a.cells[selected]));
  const xs = pts.map((c) => c[0]), ys = pts.map((c) => c[1]);
  const x0 = Math.min(...xs) - 1, x1 = Math.max(...xs) + 1, y0 = Math.min(...ys) - 1, y1 = Math.max(...ys) + 1;
  const W = (x1 - x0 + 1) * CELL, H = (y1 - y0 + 1) * CELL;
  board.setAttribute("viewBox", `0 0 ${W} ${H}`);
  board.setAttribute("width", W);
  board.setAttribute("height", H);
  origin = [x0, y0];
  const px = (x) => (x - x0) * CELL, py = (y) => (y - y0) * CELL;
  for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++)
    el("svg:rect", {x: px(x) + 2, y: py(y) + 2, width: CELL - 4, height: CELL - 4, rx: 6, class: "gridcell",
                    stroke: pal.grid_line}, board);
  const defs = el("svg:defs", {}, board);
  const hatch = el("svg:pattern", {id: "hatch", width: 8, height: 8, patternUnits: "userSpaceOnUse",
                                   patternTransform: "rotate(45)"}, defs);
  el("svg:rect", {width: 8, height: 8, fill: pal.spent_bg}, hatch);
  el("svg:line", {x1: 0, y1: 0, x2: 0, y2: 8, stroke: pal.spent_hatch, "stroke-width": 3}, hatch);
  const hint = view.hintModule;
  for (const [code, [x, y]] of Object.entries(view.cells)) {
    const spent = view.spent.includes(code);
    const m = view.modules[code];
    const g = el("svg:g", {class: "module" + (code === selected ? " selected" : "") + (code === hint ? " hinted" : ""),
                           "data-module": code, tabindex: 0, role: "button",
                           "aria-label": `${code} ${m.name}${spent ? " (spent)" : ""}`}, board);
    const accent = spent ? pal.spent_accent : pal.module_accent;
    el("svg:rect", {x: px(x) + 4, y: py(y) + 4, width: CELL - 8, height: CELL - 8, rx: 9,
                    fill: spent ? "url(#hatch)" : pal.module_bg, stroke: accent, "stroke-width": 2.5}, g);
    // the arrows of the side up, drawn by the card PDFs' glyph code (server side, in cell units)
    // (decorations: only the module's own square takes its clicks, never another's arrows)
    const arrows = el("svg:g", {transform: `translate(${px(x) + CELL / 2},${py(y) + CELL / 2}) scale(${CELL})`,
                                class: "deco"}, g);
    arrows.innerHTML = m.glyphs[spent ? 1 : 0];
    el("svg:circle", {cx: px(x) + CELL / 2, cy: py(y) + CELL / 2, r: CELL * 0.17, fill: accent, class: "deco"}, g);
    el("svg:text", {x: px(x) + CELL / 2, y: py(y) + CELL / 2 + 6, "text-anchor": "middle", "font-size": 17,
                    "font-weight": "bold", fill: "#fff", class: "deco"}, g, code);
    g.addEventListener("click", () => select(code));
  }
  for (const a of targets) {
    const [x, y] = a.cells[selected];
    const g = el("svg:g", {class: "target" + (a.n === view.hintAction ? " hinted" : ""), "data-action": a.n,
                           tabindex: 0, role: "button", "aria-label": a.n}, board);
    el("svg:circle", {cx: px(x) + CELL / 2, cy: py(y) + CELL / 2, r: CELL * 0.3}, g);
    el("svg:text", {x: px(x) + CELL / 2, y: py(y) + CELL / 2 + 5, "text-anchor": "middle", "font-size": 14,
                    class: "deco"}, g,
       a.act === "move" ? a.n.split(" ")[1] : "to");
    g.addEventListener("click", () => act(a.n));
  }
}

function cardPane(parent, id, opts = {}) {
  const c = view.cards[id];
  const pal = view.palette;
  const div = el("div", {class: "card " + (opts.side || "movement"), "data-card": id}, parent);
  if (opts.side === "mission") {
    el("div", {class: "head", style: `background:${pal.mission_accent}`}, div, `Mission ${id}`);
    el("div", {class: "name"}, div, c.title);
    drawPattern(div, c.mission, opts.size || 26, pal, pal.mission_accent);
  } else {
    el("div", {class: "head", style: `background:${pal.movement_accent}`}, div, id);
    el("div", {class: "pts"}, div, `${c.points} · bonus ${c.bonus}`);
    drawPattern(div, c.movement, opts.size || 16, pal);
  }
  return div;
}

function drawSide() {
  const pal = view.palette;
  document.documentElement.style.setProperty("--module-accent", pal.module_accent);
  // the mission and the current card
  const mission = $("mission");
  mission.replaceChildren();
  if (view.mission) cardPane(mission, view.mission, {side: "mission"});
  else el("p", {}, mission, "no mission");
  el("p", {class: "small"}, mission, `missions done: ${view.done} of ${view.goal === "game" ? view.missions_to_win : 1}`);
  const cur = $("current");
  cur.replaceChildren();
  el("h2", {}, cur, "Current card");
  if (view.current) {
    if (view.current.card) cardPane(cur, view.current.card);
    el("p", {class: "points", id: "points"}, cur, `${view.current.points} point${view.current.points === 1 ? "" : "s"} left`);
  } else el("p", {class: "points", id: "points"}, cur, over() || (view.hand.length ? "no points: play a card"
                                                                     : "no points and no card in hand"));
  // the hand
  const hand = $("hand");
  hand.replaceChildren();
  view.hand.forEach((h, i) => {
    const d = cardPane(hand, h.id);
    d.classList.toggle("ready", h.bonus_ready);
    d.classList.toggle("selected", h.id === selectedCard);
    d.setAttribute("tabindex", 0);
    d.setAttribute("role", "button");
    d.title = `${i + 1}: play ${h.id}` + (h.bonus_ready ? " (its pattern matches: bonus available)" : "");
    d.addEventListener("click", () => { selectedCard = h.id === selectedCard ? null : h.id; selected = null; draw(); });
  });
  const plays = $("plays");
  plays.replaceChildren();
  if (selectedCard) {
    const c = view.cards[selectedCard];
    for (const a of view.legal.filter((x) => x.act === "play" && x.card === selectedCard)) {
      const b = el("button", {"data-action": a.n, class: a.n === view.hintAction ? "hinted" : null}, plays,
                   a.bonus ? `Play ${a.card} for its bonus: ${plural(c.bonus, "point")}`
                           : `Play ${a.card} for ${plural(c.points, "point")}`);
      b.addEventListener("click", () => act(a.n));
    }
  }
  // the piles, as the rules let a player see them
  const piles = $("piles");
  piles.replaceChildren();
  el("h2", {}, piles, "Piles");
  const dr = view.draw;
  el("p", {}, piles, `Draw pile: ${dr.count} card${dr.count === 1 ? "" : "s"}` +
     (dr.top ? `; on top, mission side up: ${dr.top} (${view.cards[dr.top].title})` : ""));
  if (dr.cards) el("p", {class: "small"}, piles, `order (open): ${dr.cards.join(" ")}`);
  el("p", {}, piles, `Discard pile: ${view.discard.length ? view.discard.join(" ") : "empty"}`);
  if (view.completed.length) el("p", {class: "small"}, piles, `completed: ${view.completed.join(" ")}`);
  // the selected module: its ability uses
  const sel = $("selection");
  sel.replaceChildren();
  if (selected) {
    const m = view.modules[selected];
    const spent = view.spent.includes(selected);
    el("h2", {}, sel, `${selected} ${m.name}${spent ? " (spent)" : ""}`);
    el("p", {class: "small"}, sel, `${m.ability}: ${m.text}`);
    const moves = legalFor(selected).filter((a) => a.act === "move");
    el("p", {class: "small"}, sel, moves.length ? `moves: ${moves.map((a) => a.n.split(" ")[1]).join(" ")} (click a ringed cell)`
      : over() || (view.current && view.current.points ? "no legal move" : "no points to move with: play a card"));
    const abilities = legalFor(selected).filter((a) => a.act === "ability");
    const box = el("div", {class: "abilities"}, sel);
    for (const a of abilities) {
      const b = el("button", {"data-action": a.n, class: a.n === view.hintAction ? "hinted" : null}, box, a.n);
      b.addEventListener("click", () => act(a.n));
      b.addEventListener("mouseenter", () => preview(a));
      b.addEventListener("mouseleave", () => drawBoard());
    }
    if (!abilities.length && !spent && !over()) el("p", {class: "small"}, sel, "no ability use changes anything here");
  }
  // status, plan, buttons
  const status = $("status");
  const text = {playing: "", won: "You won!", lost: "Lost", stuck: "Lost: stuck", goal: "Mission complete!"}[view.status];
  status.textContent = text;
  status.className = "status " + view.status;
  const plan = $("plan");
  plan.replaceChildren();
  const start = el("li", {class: view.cursor === 0 ? "at" : "", value: 0, "data-step": 0}, plan, "start");
  start.addEventListener("click", () => change("/api/goto", {step: 0}));
  [...view.plan, ...view.redo].forEach((n, i) => {
    const li = el("li", {class: (i + 1 === view.cursor ? "at" : "") + (i >= view.cursor ? " undone" : ""),
                         value: i + 1, "data-step": i + 1}, plan, n);
    li.addEventListener("click", () => change("/api/goto", {step: i + 1}));
  });
  $("counts").textContent = `(${plural(view.points_spent, "point")} spent, ${plural(view.cards_played, "card")} played)`;
  $("undo").disabled = !view.can_undo;
  $("restart").disabled = !view.can_undo;
  $("redo").disabled = !view.can_redo;
  $("ask-verdict").textContent = view.goal === "mission" ? "Still optimal?" : "Still winnable?";
  $("ask-expert").hidden = view.goal !== "game";
  $("book-hint").hidden = !entry();
  $("keys").textContent = keyHelp();
  // at the end: what the exports keep (there is no position left, so the start is exported)
  const end = $("end");
  end.hidden = view.status === "playing";
  if (view.status !== "playing") {
    end.textContent = `${over()}: Export start and Export plan keep this game ` +
      "(`rove replay START PLAN` plays it through); Restart plays it again.";
  }
  $("export-position").textContent = view.status === "playing" ? "Export position" : "Export start";
}

function over() {
  // what the table says once no move is left to make: "" while the game goes on
  return {playing: "", won: "the game is won", lost: "the game is over: lost", goal: "the mission is complete",
          stuck: "stuck: no mission can be completed from here (undo to try another line)"}[view.status] ?? "";
}

function keyHelp() {
  // only the keys that work on this table: Expert on deals, the book's hints on a book's puzzle,
  // and a module whose letter is a command is picked with Shift (which picks any module)
  const clash = Object.keys(view.cells).filter((c) => COMMANDS.includes(c.toLowerCase())).sort();
  const keys = ["Keys: click a module, then a marked cell or an ability", "1-9 pick a hand card (then click a play)",
    "a module's letter picks it" + (clash.length ? `; Shift+letter picks any module (${clash.map((c) => "Shift+" + c)
      .join(", ")}: their letters are commands)` : " (Shift+letter too)"),
    "u/r undo/redo", "Home/End start/latest", "h hint", "w verdict"];
  if (view.goal === "game") keys.push("e expert");
  keys.push("Esc clears");
  return keys.join("; ") + ".";
}

function preview(a) {
  // the layout after an ability use, shown faintly over the board
  drawBoard();
  const board = $("board");
  const [x0, y0] = origin;
  for (const code of a.moved) {
    const [x, y] = a.cells[code];
    const g = el("svg:g", {class: "ghost"}, board);
    el("svg:rect", {x: (x - x0) * CELL + 8, y: (y - y0) * CELL + 8, width: CELL - 16, height: CELL - 16, rx: 9}, g);
    el("svg:text", {x: (x - x0) * CELL + CELL / 2, y: (y - y0) * CELL + CELL / 2 + 6, "text-anchor": "middle",
                    "font-size": 17}, g, code);
  }
}

function draw() {
  drawBoard();
  drawSide();
}

function render(v) {
  const moved = !view || v.version !== view.version;
  const another = !view || v.start_position !== view.start_position || v.puzzle !== view.puzzle;
  if (moved) {
    // a move, undo, redo, restart or another game: the coach's answer was of the position
    // before, so it goes (a job still running for it is no longer followed)
    hintLevel = 0;
    v.hintModule = v.hintAction = null;
    job = null;
    const box = $("coach");
    box.textContent = "";
    box.className = "coach";
    box.dataset.version = v.version;
  } else {
    v.hintModule = view.hintModule;
    v.hintAction = view.hintAction;
  }
  if (another) {
    bookHint = 0;
    $("book-hints").hidden = true;
  }
  view = v;
  $("title").textContent = v.title || "rove play";
  $("goal").textContent = `${v.spec} · goal: ${v.goal}${v.open ? " · open deck" : ""}`;
  document.title = `${v.title || "rove play"}: rove play`;
  draw();
  if (moved) {
    if ($("book").hidden) history.replaceState(null, "", "#" + linkOf(v));
    if (v.puzzle !== null && (v.status === "goal" || v.status === "won")) markSolved(v.puzzle);
  }
}

// ---------------------------------------------------------------- the game in the address

function b64(text) {
  // UTF-8 text as URL-safe base64, and back
  const bytes = new TextEncoder().encode(text);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64(code) {
  const bin = atob(code.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

function linkOf(v) {
  // a book's puzzle by its number, any other game by its start position; then the line played
  const p = new URLSearchParams();
  if (v.puzzle !== null) p.set("puzzle", v.puzzle); else p.set("pos", b64(v.start_position));
  if (v.plan.length) p.set("line", v.plan.join("~"));
  return p.toString();
}

function readLink() {
  const p = new URLSearchParams(location.hash.slice(1));
  if (!p.has("puzzle") && !p.has("pos")) return null;
  const line = p.get("line") ? p.get("line").split("~") : [];
  try {
    return p.has("puzzle") ? {puzzle: Number(p.get("puzzle")), plan: line} : {position: unb64(p.get("pos")), plan: line};
  } catch (err) {
    return {bad: "the address's position is not a rove link"};
  }
}

async function followLink(v) {
  // the game the address names, played again through the server (a reload, a shared link)
  const link = readLink();
  if (!link) return v;
  if (link.bad) { say(link.bad); return v; }
  const same = (link.puzzle !== undefined ? link.puzzle === v.puzzle : link.position === v.start_position) &&
    link.plan.join("~") === v.plan.join("~");
  if (same) return v;
  try {
    return await call("POST", "/api/line", link);
  } catch (err) {
    say(`the address's game could not be played here: ${err.message}`);
    return v;
  }
}

// ---------------------------------------------------------------- a book's puzzle list

const solvedKey = () => `rove-play-solved:${book.key}`;

function solvedSet() {
  try { return new Set(JSON.parse(localStorage.getItem(solvedKey()) || "[]")); } catch (err) { return new Set(); }
}

function markSolved(n) {
  if (!book) return;
  const s = solvedSet();
  s.add(n);
  try { localStorage.setItem(solvedKey(), JSON.stringify([...s].sort((a, b) => a - b))); } catch (err) { /* private mode */ }
}

const entry = () => (book && view && view.puzzle !== null ? book.puzzles.find((p) => p.number === view.puzzle) : null);

function showBook(on) {
  $("book").hidden = !on;
  $("game").hidden = on;
  $("bar").hidden = on;
  // the address names what is shown: the list (no game), or the game played
  history.replaceState(null, "", on ? location.pathname : "#" + linkOf(view));
  $("title").textContent = on ? book.title : view.title;
  $("goal").hidden = $("status").hidden = on;
  if (!on) return;
  $("book-title").textContent = `${book.title} (seed ${book.seed})`;
  const solved = solvedSet();
  const list = $("puzzles");
  list.replaceChildren();
  for (const p of book.puzzles) {
    const li = el("li", {"data-puzzle": p.number, class: solved.has(p.number) ? "solved" : "", value: p.number}, list);
    const b = el("button", {}, li);
    el("span", {class: "tick", "aria-label": solved.has(p.number) ? "solved" : "not solved"}, b, solved.has(p.number) ? "✓" : "");
    el("span", {class: "number"}, b, String(p.number));
    el("span", {class: "ptitle"}, b, p.title);
    el("span", {class: "kind"}, b, p.kind);
    el("span", {class: "stars", "aria-label": `${p.stars} stars`}, b, "★".repeat(p.stars));
    b.addEventListener("click", () => openPuzzle(p.number));
  }
}

async function openPuzzle(n) {
  if (view && view.puzzle === n) { showBook(false); return; }
  try {
    render(await call("POST", "/api/book/open", {number: n}));
    showBook(false);
  } catch (err) {
    say(err.message);
    showBook(false);
  }
}

function showBookHint() {
  // the book's printed hints for this puzzle (of its start, like the page it is printed on)
  const e = entry();
  if (!e) return;
  bookHint = Math.min(3, bookHint + 1);
  const box = $("book-hints");
  box.hidden = false;
  box.textContent = e.hints.slice(0, bookHint).map((h, i) => `Book hint ${i + 1} of 3: ${h}`).join(" · ");
}

function select(code) {
  selected = selected === code ? null : code;
  selectedCard = null;
  draw();
}

// ---------------------------------------------------------------- the coach

async function ask(what) {
  let level = 1;
  if (what === "hint") level = hintLevel = Math.min(3, hintLevel + 1);
  try {
    job = await call("POST", "/api/coach", {ask: what, level});
    showJob(job);
    poll(job.job);
  } catch (err) {
    $("coach").textContent = err.message;
  }
}

async function poll(id) {
  // soon at first (most answers are ready in a few milliseconds: a line already found),
  // then every 150 ms while a search runs
  for (let wait = 5; job && job.job === id && (job.status === "queued" || job.status === "running");
       wait = Math.min(150, wait * 2)) {
    await new Promise((r) => setTimeout(r, wait));
    let got;
    try { got = await call("GET", `/api/coach/${id}`); } catch (err) { $("coach").textContent = err.message; return; }
    if (!job || job.job !== id) return;  // the position changed meanwhile: render() let it go
    job = got;
    showJob(job);
  }
}

function showJob(j) {
  // an answer is shown only with the position it answers: one of an earlier position is dropped
  if (!view || j.version !== view.version) return;
  const box = $("coach");
  box.dataset.version = j.version;
  box.className = "coach " + j.status + (j.result ? " " + j.result.verdict : "");
  if (j.status === "queued" || j.status === "running") {
    box.textContent = `analysing… ${j.seconds.toFixed(1)} s` + (j.deepest !== null ? `, deepest line: ${j.deepest} missions` : "");
  } else if (j.status === "cancelled") {
    box.textContent = "";
  } else {
    box.textContent = j.result.text;
    if (view && j.version === view.version && (j.result.module || j.result.action)) {
      // point at the hint on the table: the module, and at level 2 (or the expert's
      // move) the action itself, shown by selecting its module or card
      const a = j.result.action;
      view.hintModule = j.result.module || (a && !a.startsWith("play ") ? a.split(" ")[0] : null);
      view.hintAction = a || null;
      if (a && a.startsWith("play ")) { selectedCard = a.split(" ")[1].replace(/[+-]$/, ""); selected = null; }
      else if (a) { selected = a.split(" ")[0]; selectedCard = null; }
      draw();
    }
  }
}

// ---------------------------------------------------------------- wiring

async function download(e) {
  // an export is a download the browser saves; a refusal (the game is over) is said on the page
  e.preventDefault();
  const res = await fetch(e.currentTarget.href);
  if (!res.ok) {
    const data = await res.json().catch(() => ({error: `${res.status}`}));
    say(data.error);
    return;
  }
  const name = (res.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const a = el("a", {href: URL.createObjectURL(await res.blob()), download: name ? name[1] : "rove-export"});
  a.click();
  URL.revokeObjectURL(a.href);
}

$("export-position").addEventListener("click", download);
$("export-plan").addEventListener("click", download);
$("undo").addEventListener("click", () => change("/api/undo"));
$("redo").addEventListener("click", () => change("/api/redo"));
$("restart").addEventListener("click", () => change("/api/goto", {step: 0}));
$("book-hint").addEventListener("click", showBookHint);
$("to-book").addEventListener("click", () => showBook($("book").hidden));
$("copy-link").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText(location.href); say("this game's link is copied"); }
  catch (err) { say(`copy this game's link from the address bar (${err.message})`); }
});
window.addEventListener("hashchange", async () => { if (view) render(await followLink(view)); });
$("ask-verdict").addEventListener("click", () => ask("verdict"));
$("ask-hint").addEventListener("click", () => ask("hint"));
$("ask-expert").addEventListener("click", () => ask("expert"));
document.addEventListener("keydown", (e) => {
  if (!view || e.altKey || e.metaKey || !$("book").hidden) return;
  const k = e.key;
  if (e.shiftKey && !e.ctrlKey && /^[A-Z]$/.test(k)) {
    // Shift+letter picks a module, even one whose letter is a command
    if (!view.cells[k]) return;
    select(k);
  } else if (e.ctrlKey) {
    if (k === "z") change("/api/undo"); else if (k === "y") change("/api/redo"); else return;
  } else if (k === "u" || k === "ArrowLeft") change("/api/undo");
  else if (k === "r" || k === "ArrowRight") change("/api/redo");
  else if (k === "Home") change("/api/goto", {step: 0});
  else if (k === "End") change("/api/goto", {step: view.cursor + view.redo.length});
  else if (k === "h") ask("hint");
  else if (k === "w") ask("verdict");
  else if (k === "e" && view.goal === "game") ask("expert");
  else if (k === "Escape") { selected = null; selectedCard = null; draw(); }
  else if (/^[1-9]$/.test(k) && view.hand[Number(k) - 1]) { selectedCard = view.hand[Number(k) - 1].id; selected = null; draw(); }
  else if (/^[a-z]$/.test(k) && !COMMANDS.includes(k) && view.cells[k.toUpperCase()]) select(k.toUpperCase());
  else if (k === "Enter" && document.activeElement && document.activeElement.dispatchEvent) document.activeElement.dispatchEvent(new Event("click"));
  else return;
  e.preventDefault();
});

async function begin() {
  // the server's game, or the one the address names; a book opens on its list
  try {
    const v = await call("GET", "/api/state");
    if (v.puzzle !== null) {
      book = await call("GET", "/api/book");
      $("to-book").hidden = false;
    }
    const linked = readLink() !== null;
    if (book && !linked) $("book").hidden = false;  // the list first: render() leaves the address alone
    render(await followLink(v));
    if (book && !linked) showBook(true);
  } catch (err) {
    say(err.message);
  }
}

begin();
