//! `rove._core`: the PyO3 binding of rove-core.
//!
//! It converts at the boundary only, once per call: a deck (compiled by
//! `rove.solve.core` from `rove.engine.Deck`), a state as a tuple, and back plans as
//! tuples of small integers that the Python side turns into `Action`s and replays
//! through the rules engine.  Searches run with the GIL released; they poll for Ctrl-C
//! and the wall-clock limit every few thousand nodes.

// PyO3 0.22's #[pyfunction] expansion converts PyErr into itself, which current clippy
// reports at every function returning PyResult.
#![allow(clippy::useless_conversion)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use rove_core::astar;
use rove_core::budget::{Budget, Hooks, Poll, Stop};
use rove_core::chains;
use rove_core::closure;
use rove_core::deck::{
    Ability, Arrow, ArrowKind, Card, Deck, Module, PatCell, Pattern, Rules, MAX_MODULES,
};
use rove_core::game::{self, Deepest, Strategy};
use rove_core::heuristic::{points_obtainable, Heuristic};
use rove_core::rules::{reveal_check, successors as core_successors};
use rove_core::state::{AbilityArg, Action, Cards, State, Status, MAX_CARDS};
use rove_core::tables::{LayoutIndex, Table, TableCache, TableStats, ACTIVATE_AFTER};

/// A compiled deck, kept by the Python side while its deck lives, with the deck's
/// mission heuristic: its memo (estimates are a pure function of the deck and the
/// layout, spent set and mission) stays warm from one solve to the next, and its table
/// is allocated once per deck, not once per solve (the expert player runs hundreds of
/// short mission searches a deal).
/// The heuristic keeps the deck's distance tables too (built on demand, at most
/// `rove_core::tables::MAX_RESIDENT` of them), switched on or off solve by solve.
#[pyclass(frozen, module = "rove._core", name = "Deck")]
struct PyDeck {
    inner: Deck,
    heuristic: Mutex<Heuristic>,
}

impl PyDeck {
    /// Run `f` as one solve with the deck's heuristic (a distance table switched on
    /// once asked for `tables` times, 0: never); a solve running at the same time on another thread has it, so this
    /// one gets a fresh one (same values, cold memo, no table built yet).
    fn with_heuristic<T>(&self, tables: u64, f: impl FnOnce(&Heuristic) -> T) -> T {
        let run = |h: &Heuristic| {
            h.start_solve(tables);
            f(h)
        };
        match self.heuristic.try_lock() {
            Ok(h) => run(&h),
            Err(_) => run(&Heuristic::with_tables(&self.inner)),
        }
    }
}

type PyArrow = (u8, u8);
/// (status, steps as (action, translation), nodes)
type MissionAnswer = (&'static str, Option<Vec<(PyObject, i32)>>, u64);
/// (plans per mission as steps (action, translation) or None, nodes, exhausted)
type WalkAnswer = (Vec<Option<Vec<(PyObject, i32)>>>, u64, bool);
/// (status, plan, optimal, nodes, deepest done, deepest mission, (table probes, tables
/// used, tables built))
type GameAnswer = (
    &'static str,
    Option<Vec<PyObject>>,
    bool,
    u64,
    i32,
    i32,
    (u64, u64, u64),
);
type PyCell = (i32, i32, i32);

fn ability(code: u8) -> PyResult<Ability> {
    Ok(match code {
        0 => Ability::Brain,
        1 => Ability::Coil,
        2 => Ability::Gripper,
        3 => Ability::Laser,
        4 => Ability::Motor,
        5 => Ability::Sensor,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown ability code {code}"
            )))
        }
    })
}

fn arrows(list: &[PyArrow]) -> PyResult<Vec<Arrow>> {
    list.iter()
        .map(|&(kind, dir)| {
            let kind = match kind {
                0 => ArrowKind::Standard,
                1 => ArrowKind::Short,
                2 => ArrowKind::Jump,
                3 => ArrowKind::Push,
                _ => return Err(PyValueError::new_err(format!("unknown arrow kind {kind}"))),
            };
            if dir > 7 {
                return Err(PyValueError::new_err(format!("unknown direction {dir}")));
            }
            Ok(Arrow { kind, dir })
        })
        .collect()
}

fn pattern(cells: &[PyCell], n: usize) -> PyResult<Pattern> {
    let cells: Vec<(i32, i32, PatCell)> = cells
        .iter()
        .map(|&(x, y, what)| {
            let what = match what {
                -1 => PatCell::Any,
                -2 => PatCell::Empty,
                m if m >= 0 && (m as usize) < n => PatCell::Named(m as u8),
                _ => return Err(PyValueError::new_err(format!("bad pattern cell {what}"))),
            };
            Ok((x, y, what))
        })
        .collect::<PyResult<_>>()?;
    Pattern::new(&cells).map_err(PyValueError::new_err)
}

#[pymethods]
impl PyDeck {
    /// modules: (ability, active arrows, spent arrows) with arrows as (kind, direction);
    /// cards: (base, bonus, mission cells, movement cells) with cells as (x, y, what),
    /// what = module index, -1 any, -2 must be empty; rules: (auto_complete_on_reveal,
    /// recycle when_empty, gripper_target active_only).
    #[new]
    fn new(
        modules: Vec<(u8, Vec<PyArrow>, Vec<PyArrow>)>,
        cards: Vec<(i32, i32, Vec<PyCell>, Vec<PyCell>)>,
        missions_to_win: i32,
        rules: (bool, bool, bool),
    ) -> PyResult<Self> {
        let n = modules.len();
        let modules = modules
            .iter()
            .map(|(ab, active, spent)| {
                Ok(Module {
                    ability: ability(*ab)?,
                    arrows: [arrows(active)?, arrows(spent)?],
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let cards = cards
            .iter()
            .map(|(base, bonus, mission, movement)| {
                Ok(Card {
                    base: *base,
                    bonus: *bonus,
                    mission: pattern(mission, n)?,
                    movement: pattern(movement, n)?,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let rules = Rules {
            auto_complete_on_reveal: rules.0,
            recycle_when_empty: rules.1,
            gripper_active_only: rules.2,
        };
        let inner =
            Deck::new(modules, cards, missions_to_win, rules).map_err(PyValueError::new_err)?;
        let heuristic = Mutex::new(Heuristic::with_tables(&inner));
        Ok(PyDeck { inner, heuristic })
    }
}

// ----------------------------------------------------------------------------- states

fn opt_card(v: i32) -> Option<u8> {
    (v >= 0).then_some(v as u8)
}

/// A state from the tuple `rove.solve.core.state_tuple` makes:
/// (cells, spent, hand, draw, discard, card, points, mission, done, completed, status, goal_mission).
fn state_from(t: &Bound<'_, PyTuple>, deck: &Deck) -> PyResult<State> {
    if t.len() != 12 {
        return Err(PyValueError::new_err("a state is a 12-tuple"));
    }
    let cells: Vec<i32> = t.get_item(0)?.extract()?;
    if cells.len() != deck.n() || cells.len() > MAX_MODULES {
        return Err(PyValueError::new_err(
            "the state's layout does not fit the deck",
        ));
    }
    let mut packed = [0; MAX_MODULES];
    packed[..cells.len()].copy_from_slice(&cells);
    let code = t.get_item(10)?.extract::<u8>()?;
    let status = Status::from_code(code)
        .ok_or_else(|| PyValueError::new_err(format!("unknown status {code}")))?;
    let cards = deck.cards.len();
    let card_list = |i: usize| -> PyResult<Cards> {
        let v: Vec<u8> = t.get_item(i)?.extract()?;
        if v.iter().any(|&c| c as usize >= cards) {
            return Err(PyValueError::new_err("a card index is out of range"));
        }
        Cards::from_slice(&v)
            .ok_or_else(|| PyValueError::new_err("a pile holds more cards than the core handles"))
    };
    let card = opt_card(t.get_item(5)?.extract()?);
    let mission = opt_card(t.get_item(7)?.extract()?);
    if card.is_some_and(|c| c as usize >= cards) || mission.is_some_and(|c| c as usize >= cards) {
        return Err(PyValueError::new_err("a card index is out of range"));
    }
    Ok(State {
        cells: packed,
        n: cells.len() as u8,
        spent: t.get_item(1)?.extract()?,
        hand: card_list(2)?,
        draw: card_list(3)?,
        discard: card_list(4)?,
        card,
        points: t.get_item(6)?.extract()?,
        mission,
        done: t.get_item(8)?.extract()?,
        completed: card_list(9)?,
        status,
        goal_mission: t.get_item(11)?.extract()?,
    })
}

fn state_to(py: Python<'_>, s: &State) -> PyObject {
    let status = s.status.code();
    let items: Vec<PyObject> = vec![
        PyTuple::new_bound(py, s.cells()).into_any().unbind(),
        s.spent.into_py(py),
        PyTuple::new_bound(py, s.hand.as_slice())
            .into_any()
            .unbind(),
        PyTuple::new_bound(py, s.draw.as_slice())
            .into_any()
            .unbind(),
        PyTuple::new_bound(py, s.discard.as_slice())
            .into_any()
            .unbind(),
        s.card.map_or(-1, i32::from).into_py(py),
        s.points.into_py(py),
        s.mission.map_or(-1, i32::from).into_py(py),
        s.done.into_py(py),
        PyTuple::new_bound(py, s.completed.as_slice())
            .into_any()
            .unbind(),
        status.into_py(py),
        s.goal_mission.into_py(py),
    ];
    PyTuple::new_bound(py, items).into_any().unbind()
}

/// An action as (act, module, card, bonus, dir, dist, via, target, swap, to): indices,
/// None where a field does not apply; `to` is a packed cell.
fn action_to(py: Python<'_>, a: &Action) -> PyObject {
    let none = py.None();
    let (act, module, card, bonus, dir, dist) = match *a {
        Action::Play { card, bonus } => (
            "play",
            none.clone_ref(py),
            card.into_py(py),
            bonus.into_py(py),
            none.clone_ref(py),
            none.clone_ref(py),
        ),
        Action::Move { module, dir, dist } => (
            "move",
            module.into_py(py),
            none.clone_ref(py),
            none.clone_ref(py),
            dir.into_py(py),
            dist.into_py(py),
        ),
        Action::Ability { module, arg, .. } => {
            let dir = match arg {
                AbilityArg::Shift { dir, .. } => dir.into_py(py),
                _ => none.clone_ref(py),
            };
            (
                "ability",
                module.into_py(py),
                none.clone_ref(py),
                none.clone_ref(py),
                dir,
                none.clone_ref(py),
            )
        }
    };
    let (via, target, swap, to) = match *a {
        Action::Ability { via, arg, .. } => {
            let via = via.map_or(none.clone_ref(py), |v| v.into_py(py));
            match arg {
                AbilityArg::Draw => (
                    via,
                    none.clone_ref(py),
                    none.clone_ref(py),
                    none.clone_ref(py),
                ),
                AbilityArg::Swap(x, y) => (
                    via,
                    none.clone_ref(py),
                    (x, y).into_py(py),
                    none.clone_ref(py),
                ),
                AbilityArg::Shift { target, .. } => (
                    via,
                    target.into_py(py),
                    none.clone_ref(py),
                    none.clone_ref(py),
                ),
                AbilityArg::Place { target, to } => {
                    (via, target.into_py(py), none.clone_ref(py), to.into_py(py))
                }
                AbilityArg::To(to) => (via, none.clone_ref(py), none.clone_ref(py), to.into_py(py)),
            }
        }
        _ => (
            none.clone_ref(py),
            none.clone_ref(py),
            none.clone_ref(py),
            none,
        ),
    };
    let items: Vec<PyObject> = vec![
        act.into_py(py),
        module,
        card,
        bonus,
        dir,
        dist,
        via,
        target,
        swap,
        to,
    ];
    PyTuple::new_bound(py, items).into_any().unbind()
}

// ----------------------------------------------------------------------------- hooks

/// Set once by [`shutdown`]: the process is ending, so every compiled search stops.
static SHUTDOWN: AtomicBool = AtomicBool::new(false);

/// Stop every running compiled search at its next poll (within `POLL_EVERY` nodes), and
/// every later one at its first, with KeyboardInterrupt; for a process that is ending.
///
/// A search in a worker thread takes the GIL at each poll; once the interpreter is
/// finalizing, taking it ends the thread with a forced unwind that cannot cross this
/// library's frames, and the process aborts ("FATAL: exception not rethrown").  A caller
/// that stops its searches with this and joins its threads before it exits never meets
/// that: the polls below read the flag without the GIL.
#[pyfunction]
fn shutdown() {
    SHUTDOWN.store(true, Ordering::SeqCst);
}

/// Polled by a running search (without the GIL): the wall-clock limit, Ctrl-C, and
/// progress reports to a Python callable.
struct PyHooks {
    deadline: Option<Instant>,
    progress: Option<PyObject>,
    error: Option<PyErr>,
}

impl PyHooks {
    fn new(seconds: Option<f64>, progress: Option<PyObject>) -> Self {
        let deadline = seconds.map(|s| Instant::now() + Duration::from_secs_f64(s.clamp(0.0, 1e9)));
        PyHooks {
            deadline,
            progress,
            error: None,
        }
    }

    /// The error to raise for a search that stopped on `stop`, if it is one.
    fn raise(&mut self, stop: Stop) -> Option<PyErr> {
        match stop {
            Stop::Interrupted => Some(
                self.error
                    .take()
                    .unwrap_or_else(|| PyKeyboardInterrupt::new_err(())),
            ),
            _ => None,
        }
    }
}

impl Hooks for PyHooks {
    fn poll(&mut self) -> Poll {
        if self.error.is_some() || SHUTDOWN.load(Ordering::SeqCst) {
            return Poll::Interrupt;
        }
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Poll::Limit;
        }
        Python::with_gil(|py| match py.check_signals() {
            Ok(()) => Poll::Continue,
            Err(err) => {
                self.error = Some(err);
                Poll::Interrupt
            }
        })
    }

    fn deepest(&mut self, done: i32) {
        if SHUTDOWN.load(Ordering::SeqCst) {
            return;
        }
        if let Some(cb) = &self.progress {
            Python::with_gil(|py| {
                if let Err(err) = cb.call1(py, (done,)) {
                    self.error.get_or_insert(err);
                }
            });
        }
    }
}

// ----------------------------------------------------------------------------- functions

/// Every legal action and the state after it, in the Python engine's order (the
/// property tests compare the two).
#[pyfunction]
#[pyo3(signature = (deck, state, include_noops = false))]
fn successors(
    py: Python<'_>,
    deck: &PyDeck,
    state: &Bound<'_, PyTuple>,
    include_noops: bool,
) -> PyResult<Vec<(PyObject, PyObject)>> {
    let s = state_from(state, &deck.inner)?;
    Ok(core_successors(&deck.inner, &s, include_noops)
        .iter()
        .map(|(a, s2)| (action_to(py, a), state_to(py, s2)))
        .collect())
}

/// Generate every successor of each state `rounds` times inside the core and return
/// how many were made: the benchmarks' measure of the core's own generation rate,
/// without the cost of handing states to Python.
#[pyfunction]
fn generate_all(
    py: Python<'_>,
    deck: &PyDeck,
    states: Vec<Bound<'_, PyTuple>>,
    rounds: u32,
) -> PyResult<u64> {
    let states = states
        .iter()
        .map(|t| state_from(t, &deck.inner))
        .collect::<PyResult<Vec<_>>>()?;
    Ok(py.allow_threads(|| {
        let mut made = 0u64;
        for _ in 0..rounds {
            for s in &states {
                made += core_successors(&deck.inner, s, false).len() as u64;
            }
        }
        made
    }))
}

/// A state after its own mission's reveal check (for tests of the card flow).
#[pyfunction]
fn revealed(py: Python<'_>, deck: &PyDeck, state: &Bound<'_, PyTuple>) -> PyResult<PyObject> {
    let mut s = state_from(state, &deck.inner)?;
    reveal_check(&deck.inner, &mut s);
    Ok(state_to(py, &s))
}

/// (points, abilities): the mission heuristic's lower bounds, and the points bound.
#[pyfunction]
fn estimate(deck: &PyDeck, state: &Bound<'_, PyTuple>) -> PyResult<(i32, i32, i32)> {
    let s = state_from(state, &deck.inner)?;
    let (p, a) = deck.with_heuristic(0, |h| h.estimate(&deck.inner, &s));
    Ok((p, a, points_obtainable(&deck.inner, &s)))
}

/// A* for the cheapest plan completing the current mission (`tables` as for
/// `solve_game`).
///
/// Returns (status, steps, nodes): status "solved" with steps as (action, translation),
/// "unsolvable" (proven), or "limit" (nodes, time or table size).
#[pyfunction]
#[pyo3(signature = (deck, state, max_points, max_nodes, seconds = None, tables = 0))]
fn solve_mission(
    py: Python<'_>,
    deck: &PyDeck,
    state: &Bound<'_, PyTuple>,
    max_points: Option<i32>,
    max_nodes: u64,
    seconds: Option<f64>,
    tables: u64,
) -> PyResult<MissionAnswer> {
    let s = state_from(state, &deck.inner)?;
    let mut hooks = PyHooks::new(seconds, None);
    let mut budget = Budget::new(max_nodes);
    let got = py.allow_threads(|| {
        deck.with_heuristic(tables, |h| {
            astar::solve_mission(&deck.inner, h, &s, max_points, &mut budget, &mut hooks)
        })
    });
    match got {
        Ok(Some(steps)) => {
            let steps = steps
                .iter()
                .map(|(a, shift)| (action_to(py, a), *shift))
                .collect();
            Ok(("solved", Some(steps), budget.nodes))
        }
        Ok(None) => Ok(("unsolvable", None, budget.nodes)),
        Err(stop) => match hooks.raise(stop) {
            Some(err) => Err(err),
            None => Ok(("limit", None, budget.nodes)),
        },
    }
}

/// The zero-point walk from a start (`rove_core::closure::walk`): one search of the
/// states reached by ability uses alone for every mission of `missions` (card
/// indices).  Returns (plans, nodes, exhausted): per mission, in the order asked, its
/// optimal plan as steps (action, translation) when the walk proved one, else None
/// (left to A*); `exhausted` when the walk ran out of states (a mission without a plan
/// then needs a point or a card).  Stops at `max_nodes` or `seconds` with what it
/// proved by then.
#[pyfunction]
#[pyo3(signature = (deck, state, missions, max_nodes, seconds = None))]
fn zero_point_walk(
    py: Python<'_>,
    deck: &PyDeck,
    state: &Bound<'_, PyTuple>,
    missions: Vec<u8>,
    max_nodes: u64,
    seconds: Option<f64>,
) -> PyResult<WalkAnswer> {
    let s = state_from(state, &deck.inner)?;
    if missions
        .iter()
        .any(|&m| m as usize >= deck.inner.cards.len())
    {
        return Err(PyValueError::new_err("a card index is out of range"));
    }
    if missions.len() > closure::MAX_MISSIONS {
        return Err(PyValueError::new_err(format!(
            "a walk takes at most {} missions",
            closure::MAX_MISSIONS
        )));
    }
    let mut hooks = PyHooks::new(seconds, None);
    let mut budget = Budget::new(max_nodes);
    // the plain bound (tables never switched on): a table switched on mid-walk would
    // make bounds rise, which the walk's proof does not allow
    let got = py.allow_threads(|| {
        deck.with_heuristic(0, |h| {
            closure::walk(&deck.inner, h, &s, &missions, &mut budget, &mut hooks)
        })
    });
    if let Some(err) = got.stopped.and_then(|stop| hooks.raise(stop)) {
        return Err(err);
    }
    let plans = got
        .plans
        .iter()
        .map(|p| {
            p.as_ref().map(|steps| {
                steps
                    .iter()
                    .map(|(a, shift)| (action_to(py, a), *shift))
                    .collect()
            })
        })
        .collect();
    Ok((plans, budget.nodes, got.exhausted))
}

/// The whole-deal search with a strategy (portfolio, greedy, deepening or cheapest).
/// Returns (status, plan, optimal, nodes, deepest done, deepest mission); status as
/// for `solve_mission`.  `progress` is called with the
/// missions done whenever a line gets further than any before.  `reference=True` runs
/// the Python reference search's algorithm (no dominance in the lost tables): the same
/// nodes as `rove.solve.winnable.solve_game_python`.  `tables=N` (N > 0, never with
/// `reference`) raises the bounds with the exact distance tables, each switched on
/// once the solve has asked for it N times (`rove_core::tables::ACTIVATE_AFTER` is the
/// product's N); the last field of
/// the answer is what they did: distances asked for, tables switched on, tables built.
#[pyfunction]
#[pyo3(signature = (deck, state, strategy, max_nodes, seconds = None, progress = None, reference = false, tables = 0))]
#[allow(clippy::too_many_arguments)] // one per keyword argument of the Python function
fn solve_game(
    py: Python<'_>,
    deck: &PyDeck,
    state: &Bound<'_, PyTuple>,
    strategy: &str,
    max_nodes: u64,
    seconds: Option<f64>,
    progress: Option<PyObject>,
    reference: bool,
    tables: u64,
) -> PyResult<GameAnswer> {
    let strategy = match strategy {
        "portfolio" => Strategy::Portfolio,
        "greedy" => Strategy::Greedy,
        "deepening" => Strategy::Deepening,
        "cheapest" => Strategy::Cheapest,
        other => return Err(PyValueError::new_err(format!("unknown strategy {other:?}"))),
    };
    let s = state_from(state, &deck.inner)?;
    let mut hooks = PyHooks::new(seconds, progress);
    let mut budget = Budget::new(max_nodes);
    let mut deepest = Deepest::default();
    let options = if reference {
        game::Options::REFERENCE
    } else {
        game::Options::default()
    };
    let tables = if reference { 0 } else { tables };
    let mut used = TableStats::default();
    let got = py.allow_threads(|| {
        deck.with_heuristic(tables, |h| {
            let got = game::solve_game(
                &deck.inner,
                h,
                &s,
                &mut budget,
                strategy,
                options,
                &mut hooks,
                &mut deepest,
            );
            used = h.table_stats();
            got
        })
    });
    let (done, mission) = (
        deepest.done.unwrap_or(-1),
        deepest.mission.map_or(-1, i32::from),
    );
    if let Some(err) = hooks.error.take() {
        return Err(err);
    }
    match got {
        Ok(result) => {
            let status = if result.plan.is_some() {
                "solved"
            } else {
                "unsolvable"
            };
            let plan = result
                .plan
                .map(|p| p.iter().map(|a| action_to(py, a)).collect());
            Ok((
                status,
                plan,
                result.optimal,
                budget.nodes,
                done,
                mission,
                (used.probes, used.used, used.built),
            ))
        }
        Err(stop) => match hooks.raise(stop) {
            Some(err) => Err(err),
            None => Ok((
                "limit",
                None,
                false,
                budget.nodes,
                done,
                mission,
                (used.probes, used.used, used.built),
            )),
        },
    }
}

/// The exact distance table's answer for a state's layout, spent set and mission: the
/// fewest moves to a layout matching the mission, by the arrows the spent set gives
/// (None: no sequence of moves gets there), from the deck's own tables (built on
/// demand, kept).  Raises ValueError when the deck has more modules than tables hold
/// or the state has no mission.
#[pyfunction]
fn table_distance(deck: &PyDeck, state: &Bound<'_, PyTuple>) -> PyResult<Option<u32>> {
    let s = state_from(state, &deck.inner)?;
    let mission = s
        .mission
        .ok_or_else(|| PyValueError::new_err("the state has no mission"))?;
    deck.with_heuristic(0, |h| {
        h.table_distance(&deck.inner, mission, s.spent, s.cells())
    })
    .ok_or_else(|| PyValueError::new_err("distance tables hold layouts of 2 to 6 modules"))
}

/// Build one distance table from scratch (for the benchmarks): (layouts, how many
/// layouts hold each distance 0..=254, unreachable ones).  The GIL is released.
#[pyfunction]
fn build_table(
    py: Python<'_>,
    deck: &PyDeck,
    mission: usize,
    spent: u32,
) -> PyResult<(usize, Vec<u64>, u64)> {
    if !TableCache::supports(&deck.inner) {
        return Err(PyValueError::new_err(
            "distance tables hold layouts of 2 to 6 modules",
        ));
    }
    let card = deck
        .inner
        .cards
        .get(mission)
        .ok_or_else(|| PyValueError::new_err("no such card"))?;
    let hist = py.allow_threads(|| {
        let index = LayoutIndex::new(deck.inner.n());
        Table::build(&deck.inner, &index, &card.mission, spent).histogram()
    });
    let total = hist.iter().sum::<u64>() as usize;
    let mut counts = hist[..255].to_vec();
    while counts.len() > 1 && counts.last() == Some(&0) {
        counts.pop();
    }
    Ok((total, counts, hist[255]))
}

/// Per ordered pair of cards (a, b), the fewest moves by the sides `spent` gives from a
/// layout matching a's mission to one matching b's (None: none reaches), no ability
/// used (`rove_core::chains::pair_costs`).  The GIL is released.
#[pyfunction]
fn pair_costs(py: Python<'_>, deck: &PyDeck, spent: u32) -> PyResult<Vec<Vec<Option<u32>>>> {
    if !TableCache::supports(&deck.inner) {
        return Err(PyValueError::new_err(
            "distance tables hold layouts of 2 to 6 modules",
        ));
    }
    Ok(py.allow_threads(|| {
        chains::pair_costs(&deck.inner, &LayoutIndex::new(deck.inner.n()), spent)
    }))
}

/// The fewest moves from the layout `cells` ((x, y) per module, in module order) to
/// complete the missions `missions` (card indices) one after the other, by the sides
/// `spent` gives, no ability used (None: moves cannot do it;
/// `rove_core::chains::chain_cost`).  The GIL is released.
#[pyfunction]
fn chain_cost(
    py: Python<'_>,
    deck: &PyDeck,
    missions: Vec<u8>,
    spent: u32,
    cells: Vec<(i32, i32)>,
) -> PyResult<Option<u32>> {
    if !TableCache::supports(&deck.inner) {
        return Err(PyValueError::new_err(
            "distance tables hold layouts of 2 to 6 modules",
        ));
    }
    if cells.len() != deck.inner.n() {
        return Err(PyValueError::new_err("one cell per module"));
    }
    if missions
        .iter()
        .any(|&m| usize::from(m) >= deck.inner.cards.len())
    {
        return Err(PyValueError::new_err("no such card"));
    }
    let packed: Vec<rove_core::grid::Cell> = cells
        .iter()
        .map(|&(x, y)| rove_core::grid::pack(x, y))
        .collect();
    if !rove_core::grid::valid(&packed) {
        return Err(PyValueError::new_err("not a valid layout"));
    }
    Ok(py.allow_threads(|| {
        chains::chain_cost(
            &deck.inner,
            &LayoutIndex::new(deck.inner.n()),
            &missions,
            spent,
            &packed,
        )
    }))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDeck>()?;
    m.add_function(wrap_pyfunction!(successors, m)?)?;
    m.add_function(wrap_pyfunction!(revealed, m)?)?;
    m.add_function(wrap_pyfunction!(generate_all, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(solve_mission, m)?)?;
    m.add_function(wrap_pyfunction!(solve_game, m)?)?;
    m.add_function(wrap_pyfunction!(zero_point_walk, m)?)?;
    m.add_function(wrap_pyfunction!(table_distance, m)?)?;
    m.add_function(wrap_pyfunction!(build_table, m)?)?;
    m.add_function(wrap_pyfunction!(pair_costs, m)?)?;
    m.add_function(wrap_pyfunction!(chain_cost, m)?)?;
    m.add_function(wrap_pyfunction!(shutdown, m)?)?;
    m.add("MAX_MODULES", MAX_MODULES)?;
    m.add("MAX_CARDS", MAX_CARDS)?;
    m.add("TABLES_AFTER", ACTIVATE_AFTER)?;
    m.add(
        "BUILD",
        format!(
            "rove-core {} ({}, {}-{}, abi3 CPython 3.11+)",
            env!("CARGO_PKG_VERSION"),
            if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
            std::env::consts::ARCH,
            std::env::consts::OS,
        ),
    )?;
    Ok(())
}
