//! The zero-point optima of many missions from one start, by one search: the states a
//! start reaches by ability uses alone (no point spent, no card played), searched once
//! for all the missions asked for.
//!
//! `rove check` asks, for each start arrangement, the optimal cost of each of the
//! deck's missions with every ability available.  Most of those optima cost no point:
//! the mission is a few ability uses away.  A* finds each of them by a search by
//! abilities used among the states its bound says may still complete the mission at
//! no point, and the missions of one start search largely the same states again.
//! [`walk`] searches them once: an A* over ability uses whose bound is the smallest of
//! the open missions' bounds, checking every open mission at every state it generates.
//! (A plain breadth-first walk by abilities used, without the bounds, expands far
//! more: a mission four abilities away needs every state three away expanded.)
//!
//! # Why the walk's plans are optimal
//!
//! Plans cost (points, cards, abilities), compared lexicographically.  The walk's plans
//! are made of ability uses alone, by [`ability_successors_into`] (the ability uses of
//! the successor generator A* uses), so a plan of `k` steps costs (0, 0, k).  A plan
//! cheaper than that in the lexicographic order spends no point (so makes no move),
//! plays no card (so is made of ability uses alone) and uses fewer abilities: the walk
//! need only prove that no shorter ability-only plan completes the mission.
//!
//! Its states carry no mission: ability uses do not depend on it but through the
//! completion check (and, under `auto_complete_on_reveal: false`, through the no-ops
//! kept while a revealed mission that matches waits for an action: only at a start that
//! matches, and those missions are not settled here).  A state that matches a mission
//! ends that mission's plan; the same state goes on for the other missions.  A mission
//! `m`'s plan to a matching state is legal from the start with mission `m` and
//! completes it at its last step (the first that matches: an earlier match would be an
//! even shorter plan the walk would prefer).
//!
//! The bound of a state for mission `m`, `d_m`, is infinite when the heuristic's point
//! bound is positive (no plan from the state completes `m` without a point: the point
//! bound is admissible) or when the state matches `m` (a plan for `m` ends at its first
//! matching state, so none goes on through it); otherwise the heuristic's ability
//! bound (any plan spending no point uses at least that many abilities), raised to 1
//! (the state does not match, so one more ability use at least).  So `d_m` is an
//! admissible bound on the abilities still needed by a zero-point plan for `m` through
//! the state, and the smallest `d_m` over the open missions is one for any of them.
//! Raising the bound to 1 is what makes the walk cheaper than the A* solves even for a
//! single mission: A*'s bound is often 0 on a state one use short of the mission, so it
//! expands the whole last level; the walk pops those states last (deeper first among
//! equal keys) and stops at the first that completes the mission.
//!
//! The walk is A* with duplicate detection on A*'s canonical keys and that bound (with
//! the plain heuristic, the reference bound, which never rises during a search), node
//! entries re-opened when reached by fewer abilities as in A*.  An entry's key is a
//! lower bound of its node's f = g + bound (pushed with the least bound, 1; as missions
//! close the smallest bound can only rise), and a node is expanded only when popped
//! with its key equal to its f; otherwise it is re-keyed.  When the popped key reaches
//! the abilities `c_m` of the best plan found for `m`, every open node's f, for `m`
//! too, is at least `c_m`; by the usual A* argument a cheaper zero-point plan would
//! leave a node of f below `c_m` open (a node on it reached by its own optimal
//! abilities: never dropped, its bound for `m` is finite while `m` is open).  So `c_m`
//! is optimal and `m` closes.  When the queue runs out every plan found is optimal, and
//! an open mission without a plan has no zero-point plan at all.
//!
//! The bounds cost an estimate per open mission, most of the walk's time, so a state
//! is pushed keyed by the least bound of any state that does not match (one use), and
//! its own bound is computed when it is popped (then it is expanded, or pushed again
//! keyed by that bound, or dropped when it is infinite): a state never popped costs no
//! estimate.  And a mission whose point bound is positive at a state stays so at every
//! state its ability uses lead to (an ability use costs no point and the bound is
//! consistent, which `tests.rs` checks), so it is not estimated again below it.
//!
//! A mission the walk does not settle is left to A*: it needs a point or a card, or the
//! walk reached its node limit before proving it.  A plan found but not yet proven when
//! the limit stops the walk is dropped (A* decides that mission).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::budget::{Budget, Hooks, Stop};
use crate::deck::Deck;
use crate::heuristic::Heuristic;
use crate::key::{canonical_key, canonical_key_into, translation};
use crate::nodes::{Keys, NodeTable, Step};
use crate::rules::ability_successors_into;
use crate::state::{CardId, State, Status};
use crate::store::StateStore;

/// The most missions one walk takes (a bit each in a word).
pub const MAX_MISSIONS: usize = 64;

/// What a walk settled: per mission asked for (in the order asked), its optimal plan
/// when proven, as A*'s steps (action, translation of the state it was made in).
#[derive(Debug)]
pub struct Walk {
    pub plans: Vec<Option<Vec<Step>>>,
    /// Why the walk stopped before it settled every mission or ran out of states
    /// (`None`: it did one or the other).
    pub stopped: Option<Stop>,
    /// Whether the walk ran out of states: then a mission left without a plan has no
    /// zero-point plan (A* will say what it costs).
    pub exhausted: bool,
}

/// A mission asked for, while it is open.
struct Open {
    /// Its place in the list asked for.
    index: usize,
    card: CardId,
    /// The best plan found so far, not yet proven optimal.
    best: Option<Vec<Step>>,
}

impl Open {
    fn cost(&self) -> Option<i32> {
        self.best.as_ref().map(|p| p.len() as i32)
    }
}

/// The smallest bound `d_m` of `s` over the open missions (None: every one infinite),
/// given that it is at least `enough` (at least 1).
///
/// `d_m` is infinite when `s` matches `m` (a plan for `m` ends at the first state that
/// matches it, so none goes on through `s`) or when the heuristic's point bound is
/// positive; otherwise the heuristic's ability bound, raised to 1 (a state that does
/// not match needs at least one more action, and at no point that is an ability use).
/// The scan stops at the first `d_m` down to `enough`: that is the smallest.  The
/// mission that stopped it moves to the front, where the next scan starts (states met
/// one after another are mostly near the same missions).
fn bound(
    deck: &Deck,
    h: &Heuristic,
    s: &State,
    open: &mut [Open],
    enough: i32,
    live: &mut u64,
) -> Option<i32> {
    let enough = enough.max(1);
    let mut with = *s;
    let mut least: Option<i32> = None;
    for k in 0..open.len() {
        let (card, bit) = (open[k].card, 1u64 << open[k].index);
        if *live & bit == 0 || deck.cards[card as usize].mission.matches(s.cells()) {
            continue;
        }
        with.mission = Some(card);
        let (points, abilities) = h.estimate(deck, &with);
        if points > 0 {
            *live &= !bit;
        } else {
            let d = abilities.max(1);
            if least.is_none_or(|l| d < l) {
                least = Some(d);
                if d <= enough {
                    open.swap(0, k);
                    break;
                }
            }
        }
    }
    least
}

/// Settle, from `start`, every mission of `missions` (card indices) whose optimum
/// spends no point and plays no card, with one search (see the module's doc); `h` is
/// the deck's heuristic, used with its plain bound (a distance table switched on during
/// the walk would make bounds rise).  `start`'s own mission is ignored.  A mission
/// whose pattern matches `start`'s layout is not settled: in a `goal: mission`
/// position it is already complete (or, under `auto_complete_on_reveal: false`, waits
/// for any action, a no-op included); the caller's A* answers it at once.  Nodes are
/// counted in `budget`; a stop by the budget or the hooks is returned as `stopped`,
/// with the missions proven by then.  At most [`MAX_MISSIONS`] missions.
pub fn walk(
    deck: &Deck,
    h: &Heuristic,
    start: &State,
    missions: &[CardId],
    budget: &mut Budget,
    hooks: &mut dyn Hooks,
) -> Walk {
    assert!(
        missions.len() <= MAX_MISSIONS,
        "a walk takes at most {MAX_MISSIONS} missions"
    );
    let mut plans: Vec<Option<Vec<Step>>> = vec![None; missions.len()];
    let mut s0 = *start;
    s0.mission = None;
    let mut open: Vec<Open> = missions
        .iter()
        .enumerate()
        .filter(|&(_, &m)| !deck.cards[m as usize].mission.matches(s0.cells()))
        .map(|(index, &card)| Open {
            index,
            card,
            best: None,
        })
        .collect();
    if start.status != Status::Playing {
        return Walk {
            plans,
            stopped: None,
            exhausted: true,
        };
    }
    let may_draw = deck.sensor_draws_left(s0.spent) > 0;
    // node id -> fewest abilities known, and the step that reached it
    let mut nodes: NodeTable<i32> =
        NodeTable::new(canonical_key(&s0, may_draw).as_slice(), 0, budget.table_cap);
    // (f, abilities used negated: deeper first among equal f, push order, node id);
    // the state is the one pushed in that order
    let mut heap: BinaryHeap<Reverse<(i32, i32, u32, u32)>> = BinaryHeap::new();
    let mut pushed = StateStore::new();
    // per push order: the entry's bound (None: infinite) and the number of open
    // missions it was computed for (0: not computed yet; missions only close, so a bound
    // computed for as many open missions as now is current)
    let mut bounds: Vec<(Option<i32>, usize)> = Vec::new();
    // per push order: the missions (bits by their place in the list asked) whose point
    // bound may still be 0 there; a point bound never falls along an ability use (it
    // costs no point, and the bound is consistent), so a state's children inherit it
    let mut lives: Vec<u64> = Vec::new();
    heap.push(Reverse((0, 0, 0, 0)));
    pushed.push(&s0);
    bounds.push((None, 0));
    lives.push(u64::MAX);
    let mut successors = Vec::with_capacity(256);
    let mut keys = Keys::default();
    while let Some(Reverse((f, minus_g, at, id))) = heap.pop() {
        let g = -minus_g;
        // every open node's f is at least this key: the plans found that cost no more
        // are optimal
        let mut k = 0;
        while k < open.len() {
            if open[k].cost().is_some_and(|c| c <= f) {
                let done = open.swap_remove(k);
                plans[done.index] = done.best;
            } else {
                k += 1;
            }
        }
        if open.is_empty() {
            return Walk {
                plans,
                stopped: None,
                exhausted: false,
            };
        }
        if nodes.best(id) < g {
            continue; // reached by fewer abilities since
        }
        let s = pushed.get(at as usize);
        let (known, for_open) = &mut bounds[at as usize];
        if *for_open != open.len() {
            // the key is a lower bound of g + the bound: a mission at it settles the scan
            (*known, *for_open) = (
                bound(deck, h, &s, &mut open, f - g, &mut lives[at as usize]),
                open.len(),
            );
        }
        let Some(hs) = *known else {
            continue; // no open mission can be completed from here without a point
        };
        if g + hs > f {
            heap.push(Reverse((g + hs, minus_g, at, id))); // keyed by its bound now
            continue;
        }
        if let Err(stop) = budget.tick(hooks) {
            return Walk {
                plans,
                stopped: Some(stop),
                exhausted: false,
            };
        }
        let live = lives[at as usize];
        let shift = translation(&s);
        ability_successors_into(deck, &s, &mut successors);
        let g2 = g + 1;
        nodes.keys_into(
            &successors,
            |s2, out| canonical_key_into(s2, may_draw, out),
            |s2| s2.status == Status::Playing,
            &mut keys,
        );
        for (i, &(a, s2)) in successors.iter().enumerate() {
            let Some((key, hash)) = keys.get(i) else {
                continue;
            };
            let cells = s2.cells();
            for m in open.iter_mut() {
                if m.cost().is_none_or(|c| g2 < c)
                    && deck.cards[m.card as usize].mission.matches(cells)
                {
                    let mut plan = nodes.path(id);
                    plan.push((a, shift));
                    m.best = Some(plan);
                }
            }
            // no open mission can do better through s2
            let cap = open
                .iter()
                .map(|m| m.cost().unwrap_or(i32::MAX))
                .max()
                .unwrap_or(i32::MAX);
            let slot = nodes.slot_hashed(key, hash);
            if slot.known_at(g2) {
                continue;
            }
            // keyed by the least bound of a state that does not match (its own bound is
            // computed if it is popped)
            if g2 + 1 >= cap {
                continue;
            }
            let Ok(id2) = slot.record(g2, id, a, shift) else {
                return Walk {
                    plans,
                    stopped: Some(Stop::Limit),
                    exhausted: false,
                };
            };
            heap.push(Reverse((g2 + 1, -g2, pushed.len() as u32, id2)));
            pushed.push(&s2);
            bounds.push((None, 0));
            lives.push(live);
        }
    }
    // the queue ran out: every plan found is optimal
    for m in open {
        plans[m.index] = m.best;
    }
    Walk {
        plans,
        stopped: None,
        exhausted: true,
    }
}
