//! A* for the cheapest plan that completes the current mission.
//!
//! Costs are (points, cards, abilities), compared lexicographically.  The heuristic is
//! consistent, so with duplicate detection on canonical keys the first completion that
//! no open node can beat is optimal.  The order of the open list (f, then deeper first,
//! then first pushed) is the Python search's, so both expand the same nodes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::budget::{Budget, Hooks, Stop};
use crate::deck::{Deck, HAND_LIMIT};
use crate::heuristic::{points_obtainable, Heuristic};
use crate::key::{mission_key, mission_key_into, translation};
pub use crate::nodes::Step;
use crate::nodes::{Keys, NodeTable};
use crate::rules::useful_successors_into;
use crate::state::{Action, State, Status};
use crate::store::StateStore;

type Cost = (i32, i32, i32);

/// An open-list entry, ordered by (f, -points so far, push order) alone: the push
/// order is unique, so nothing else takes part in a comparison.  The state it opens
/// is the one pushed in that order (`StateStore::get`) and `id` its node: the heap moves
/// small entries only.  `fresh`: the entry's path played the current card and since then
/// only used abilities that drew nothing (see [`wasted_play`]).
struct Open {
    order: (Cost, i32, u64),
    id: u32,
    g: Cost,
    fresh: bool,
}

impl PartialEq for Open {
    fn eq(&self, other: &Self) -> bool {
        self.order == other.order
    }
}

impl Eq for Open {}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order.cmp(&other.order)
    }
}

fn add(g: Cost, a: &Action) -> Cost {
    let c = a.cost();
    (g.0 + c.0, g.1 + c.1, g.2 + c.2)
}

/// Whether a card played in `s` wastes the current one, on a `fresh` path: the same
/// path without the current card's play (its abilities drew nothing, so they work
/// without it), then the new card, is one card cheaper and keeps the current card in
/// the hand, and every plan that goes on from the wasteful line goes on from that one,
/// action for action.  Only a Sensor draw at the hand limit could refuse the larger
/// hand, which the hand-size bound rules out; the piles differ by the current card
/// alone, in the wasteful line's discard pile.  The argument is
/// `rove.solve.nodes.wasted_play`'s, whose test this is.
fn wasted_play(deck: &Deck, s: &State, fresh: bool) -> bool {
    fresh && s.hand.len() + deck.sensor_draws_left(s.spent) <= HAND_LIMIT
}

/// Whether the path through `a` (from `s` to `s2`) is fresh: a play makes it so, an
/// ability that drew nothing keeps it, anything else ends it.
fn still_fresh(a: &Action, s: &State, s2: &State, fresh: bool) -> bool {
    match a {
        Action::Play { .. } => true,
        Action::Ability { .. } => fresh && s2.hand == s.hand,
        Action::Move { .. } => false,
    }
}

/// The cheapest plan from `start` that completes its mission, spending at most
/// `max_points` points when given.  `Ok(None)` is a proof that no such plan exists.
/// `h` is the deck's heuristic (its memo may be warm from earlier solves of the deck).
pub fn solve_mission(
    deck: &Deck,
    h: &Heuristic,
    start: &State,
    max_points: Option<i32>,
    budget: &mut Budget,
    hooks: &mut dyn Hooks,
) -> Result<Option<Vec<Step>>, Stop> {
    let cap = max_points.unwrap_or(i32::MAX);
    match start.status {
        Status::Goal | Status::Won => return Ok(Some(Vec::new())),
        Status::Lost => return Ok(None),
        Status::Playing => {}
    }
    let done0 = start.done;
    let (h0, a0) = h.estimate(deck, start);
    if h0 > points_obtainable(deck, start) || h0 > cap {
        return Ok(None);
    }
    let mut nodes: NodeTable<Cost> = NodeTable::new(mission_key(deck, start).as_slice(), (0, 0, 0), budget.table_cap);
    let mut open: BinaryHeap<Reverse<Open>> = BinaryHeap::new();
    // every state pushed, by push order (a node reached again more cheaply is pushed
    // again, as the state it was reached as), packed
    let mut pushed = StateStore::new();
    pushed.push(start);
    open.push(Reverse(Open { order: ((h0, 0, a0), 0, 0), id: 0, g: (0, 0, 0), fresh: false }));
    let mut incumbent: Option<Cost> = None;
    let mut goal: Option<(u32, Action, i32)> = None;
    // one successor list, reused node after node (early nodes have hundreds)
    let mut successors = Vec::with_capacity(256);
    let mut keys = Keys::default();
    while let Some(Reverse(Open { order: (f, _, at), id, g, fresh })) = open.pop() {
        if incumbent.is_some_and(|inc| f >= inc) {
            break;
        }
        let s = pushed.get(at as usize);
        if nodes.best(id) < g {
            continue; // a cheaper copy was expanded
        }
        budget.tick(hooks)?;
        let shift = translation(&s);
        useful_successors_into(deck, &s, &mut successors);
        if wasted_play(deck, &s, fresh) {
            successors.retain(|(a, _)| !matches!(a, Action::Play { .. }));
        }
        // every successor's key and hash first, its slot asked for at once (see
        // `NodeTable::prefetch`); `None` for those that complete the mission or leave play
        nodes.keys_into(&successors, |s2, out| mission_key_into(deck, s2, out),
                        |s2| s2.status == Status::Playing && s2.done <= done0, &mut keys);
        // the estimates' memo slots too, as the whole-deal search does (`Heuristic::prefetch`)
        for (i, (_, s2)) in successors.iter().enumerate() {
            if keys.has(i) {
                h.prefetch(s2);
            }
        }
        for (i, &(a, s2)) in successors.iter().enumerate() {
            let g2 = add(g, &a);
            if matches!(s2.status, Status::Goal | Status::Won) || s2.done > done0 {
                // the mission is complete (in a whole game: the next one is revealed)
                if g2.0 <= cap && incumbent.is_none_or(|inc| g2 < inc) {
                    incumbent = Some(g2);
                    goal = Some((id, a, shift));
                }
                continue;
            }
            if s2.status != Status::Playing {
                continue;
            }
            let Some((key, hash)) = keys.get(i) else { continue };
            let slot = nodes.slot_hashed(key, hash);
            if slot.known_at(g2) {
                continue;
            }
            let (h2, ha2) = h.estimate(deck, &s2);
            if h2 > points_obtainable(deck, &s2) {
                continue;
            }
            let f2 = (g2.0 + h2, g2.1, g2.2 + ha2);
            if f2.0 > cap || incumbent.is_some_and(|inc| f2 >= inc) {
                continue;
            }
            let id2 = slot.record(g2, id, a, shift)?;
            let fresh2 = still_fresh(&a, &s, &s2, fresh);
            open.push(Reverse(Open { order: (f2, -g2.0, pushed.len() as u64), id: id2, g: g2, fresh: fresh2 }));
            pushed.push(&s2);
        }
    }
    let Some((parent, action, shift)) = goal else {
        return Ok(None);
    };
    let mut steps = nodes.path(parent);
    steps.push((action, shift));
    Ok(Some(steps))
}
