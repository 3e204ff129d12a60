//! A* for the cheapest plan that completes the current mission.
//!
//! Costs are (points, cards, abilities), compared lexicographically.  The heuristic is
//! consistent, so with duplicate detection on canonical keys the first completion that
//! no open node can beat is optimal.  The order of the open list (f, then more points
//! so far first, then first pushed) is the Python search's, so both expand the same nodes.

use std::collections::{BTreeMap, VecDeque};

use crate::budget::{Budget, Hooks, Stop};
use crate::deck::{Deck, HAND_LIMIT};
use crate::heuristic::{points_obtainable, Heuristic};
use crate::key::{mission_key, mission_key_into, translation};
pub use crate::nodes::Step;
use crate::nodes::{trim, Keys, NodeBuffers, NodeTable};
use crate::rules::mission_successors_into;
use crate::state::{Action, State, Status};
use crate::store::StateStore;

type Cost = (i32, i32, i32);

/// An open-list entry: the order (f, -points so far, push order) packed into two words
/// whose comparison is the triple's, 16 bytes in all ([`OpenList`] keeps the first
/// word and the points once a bucket, and the push order alone per entry).  The open
/// list holds hundreds of thousands of entries; when it was a binary heap, a pop's
/// sift-down touched one at every level, and at 48 bytes an entry (the order, the node,
/// its cost, the flag beside it) those reads were a fifth of a search's time, cache
/// misses.  What a popped entry needs besides its order (its
/// node, its cost, whether its path is fresh: see [`wasted_play`]) is kept by push order
/// in [`Pushed`], as the state is.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Open(u64, u64);

/// Bits of each packed field: f's points, cards and abilities, the points so far, the
/// push order.  Far beyond any deal (a game pays a few dozen points); a value outside
/// them stops the search as `unknown`, never misorders it.
const F_POINTS: u32 = 22;
const F_CARDS: u32 = 20;
const F_ABILITIES: u32 = 22;
const G_POINTS: u32 = 24;

impl Open {
    fn new(f: Cost, g_points: i32, at: usize) -> Result<Open, Stop> {
        let fits = |v: i32, bits: u32| u64::try_from(v).ok().filter(|&v| v < 1 << bits);
        let (Some(a), Some(b), Some(c), Some(g), Ok(at)) = (
            fits(f.0, F_POINTS),
            fits(f.1, F_CARDS),
            fits(f.2, F_ABILITIES),
            fits(g_points, G_POINTS),
            u32::try_from(at),
        ) else {
            return Err(Stop::Limit);
        };
        // more points so far first: their complement orders them
        Ok(Open(
            a << (F_CARDS + F_ABILITIES) | b << F_ABILITIES | c,
            ((1 << G_POINTS) - 1 - g) << 32 | u64::from(at),
        ))
    }

    fn f(self) -> Cost {
        let mask = |bits: u32| (1u64 << bits) - 1;
        (
            (self.0 >> (F_CARDS + F_ABILITIES)) as i32,
            (self.0 >> F_ABILITIES & mask(F_CARDS)) as i32,
            (self.0 & mask(F_ABILITIES)) as i32,
        )
    }

    fn at(self) -> usize {
        (self.1 & u64::from(u32::MAX)) as usize
    }
}

/// The open list: entries in [`Open`]'s order, by buckets of the same f and points so
/// far, each one first in, first out (push order rises, so a bucket pushed at its back
/// stays in order).  The same order as a binary heap of [`Open`], whose pops read one
/// entry a level of a heap of up to millions, each a cache miss; here a push and a pop
/// touch the ends of one bucket, and the buckets are few (the f values a search meets).
#[derive(Default)]
struct OpenList {
    buckets: BTreeMap<(u64, u32), VecDeque<u32>>,
    /// emptied buckets, for the next ones
    spare: Vec<VecDeque<u32>>,
}

impl OpenList {
    fn push(&mut self, o: Open) {
        let spare = &mut self.spare;
        self.buckets
            .entry((o.0, (o.1 >> 32) as u32))
            .or_insert_with(|| spare.pop().unwrap_or_default())
            .push_back(o.1 as u32);
    }

    fn pop(&mut self) -> Option<Open> {
        let mut first = self.buckets.first_entry()?;
        let at = first
            .get_mut()
            .pop_front()
            .expect("no bucket is left empty");
        let (f, g) = *first.key();
        if first.get().is_empty() {
            self.spare.push(first.remove());
        }
        Some(Open(f, u64::from(g) << 32 | u64::from(at)))
    }

    /// Empty the list, keeping its buckets' buffers.
    fn clear(&mut self) {
        while let Some((_, mut q)) = self.buckets.pop_first() {
            q.clear();
            self.spare.push(q);
        }
    }
}

/// What a pushed entry needs when it is popped, by push order: the state (packed), its
/// node, the cost it was pushed with and whether its path is fresh.
struct Pushed {
    states: StateStore,
    meta: Vec<(u32, Cost, bool)>,
}

impl Pushed {
    fn push(&mut self, s: &State, id: u32, g: Cost, fresh: bool) {
        self.states.push(s);
        self.meta.push((id, g, fresh));
    }

    fn len(&self) -> usize {
        self.meta.len()
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

/// The estimate `(points, abilities)` of a state reached on a `fresh` path: at least one
/// point.  A card's play changes neither the layout nor what an ability can do, so a
/// plan that completes the mission with no move after a play is beaten by the same plan
/// without that play (one card fewer, the same points; a Sensor draw the larger hand
/// refuses changes no layout either, and is left out too).  No optimal plan goes on from
/// a fresh path without a move, so counting one keeps A* optimal, where the plain
/// estimate of 0 had it expand, ahead of every one-point plan, each state reached by
/// plays and abilities in search of a completion without a point (nearly half the
/// nodes of a first mission's search with every ability unspent).  The same bound as
/// `rove.solve.nodes.played_for_a_move`, which the tests hold this search to node for
/// node.
fn played_for_a_move(estimate: (i32, i32), fresh: bool) -> (i32, i32) {
    if fresh && estimate.0 == 0 {
        (1, 0)
    } else {
        estimate
    }
}

/// The cards a plan from `s` still plays, at least, when it spends `points` more points
/// (the estimate's): one when those are more than the current card has left, as only a
/// card's play brings points.  A* orders plans by points, then cards: without this
/// bound a search whose start has no points expanded every state the abilities reach at
/// the cheapest number of points with no card played yet, though no such state
/// completes the mission without a play (two thirds of what the bound above leaves of
/// a first mission's search with every ability unspent).  Admissible on the points'
/// tie, where it counts: a plan that spends exactly `points` more plays a card when the
/// current one holds fewer.  The same bound as `rove.solve.nodes.cards_needed`, which
/// the tests hold this search to node for node.
fn cards_needed(points: i32, s: &State) -> i32 {
    i32::from(points > s.points)
}

/// What a search allocates, kept on its thread from one search to the next: the expert
/// plays hundreds of mission searches a deal, and a search that grew its buffers from
/// nothing and gave them back paid for fresh zeroed pages every time (a fifth of the
/// expert's CPU was the kernel's page faults).  Buffers beyond [`KEEP_BYTES`] are given
/// back, so one long search does not keep its gigabytes.
#[derive(Default)]
struct Scratch {
    nodes: NodeBuffers<Cost>,
    open: OpenList,
    states: StateStore,
    meta: Vec<(u32, Cost, bool)>,
    successors: Vec<(Action, State)>,
    keys: Keys,
}

/// The largest buffer a thread keeps between searches (larger ones are given back).
const KEEP_BYTES: usize = 64 << 20;

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
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
    let mut scratch = SCRATCH.take();
    let got = search(deck, h, start, max_points, budget, hooks, &mut scratch);
    scratch.nodes.trim(KEEP_BYTES);
    scratch.states.trim(KEEP_BYTES);
    trim(&mut scratch.meta, KEEP_BYTES);
    SCRATCH.set(scratch);
    got
}

/// [`solve_mission`] in the buffers of `scratch` (each one taken, and given back
/// emptied or not, whatever the search's outcome).
fn search(
    deck: &Deck,
    h: &Heuristic,
    start: &State,
    max_points: Option<i32>,
    budget: &mut Budget,
    hooks: &mut dyn Hooks,
    scratch: &mut Scratch,
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
    let mut nodes: NodeTable<Cost> = NodeTable::with_buffers(
        std::mem::take(&mut scratch.nodes),
        mission_key(deck, start).as_slice(),
        (0, 0, 0),
        budget.table_cap,
    );
    let mut open = std::mem::take(&mut scratch.open);
    open.clear();
    // every state pushed, by push order (a node reached again more cheaply is pushed
    // again, as the state it was reached as), packed, with its node, cost and flag
    let mut pushed = Pushed {
        states: std::mem::take(&mut scratch.states),
        meta: std::mem::take(&mut scratch.meta),
    };
    pushed.states.trim(usize::MAX);
    pushed.meta.clear();
    // one successor list and one key arena, reused node after node (early nodes have
    // hundreds of successors)
    let successors = &mut scratch.successors;
    let keys = &mut scratch.keys;
    let mut run = || -> Result<Option<(u32, Action, i32)>, Stop> {
        open.push(Open::new((h0, cards_needed(h0, start), a0), 0, 0)?);
        pushed.push(start, 0, (0, 0, 0), false);
        let mut incumbent: Option<Cost> = None;
        let mut goal: Option<(u32, Action, i32)> = None;
        while let Some(entry) = open.pop() {
            if incumbent.is_some_and(|inc| entry.f() >= inc) {
                break;
            }
            let at = entry.at();
            let (id, g, fresh) = pushed.meta[at];
            let s = pushed.states.get(at);
            if nodes.best(id) < g {
                continue; // a cheaper copy was expanded
            }
            budget.tick(hooks)?;
            let shift = translation(&s);
            // a play that would waste the current card is not generated at all
            mission_successors_into(deck, &s, !wasted_play(deck, &s, fresh), successors);
            // every successor's key and hash first, its slot asked for at once (see
            // `NodeTable::prefetch`); `None` for those that complete the mission or
            // leave play
            nodes.keys_into(
                successors,
                |s2, out| mission_key_into(deck, s2, out),
                |s2| s2.status == Status::Playing && s2.done <= done0,
                keys,
            );
            // then for each successor its node's key and cost when the table likely holds
            // it, else its estimate's memo slot (`Heuristic::prefetch`): only hints, so
            // a wrong guess costs a cache miss and changes nothing else
            for (i, (_, s2)) in successors.iter().enumerate() {
                if let Some((_, hash)) = keys.get(i) {
                    if !nodes.prefetch_node(hash) {
                        h.prefetch(s2);
                    }
                }
            }
            for (i, (a, s2)) in successors.iter().enumerate() {
                let g2 = add(g, a);
                if matches!(s2.status, Status::Goal | Status::Won) || s2.done > done0 {
                    // the mission is complete (in a whole game: the next one is revealed)
                    if g2.0 <= cap && incumbent.is_none_or(|inc| g2 < inc) {
                        incumbent = Some(g2);
                        goal = Some((id, *a, shift));
                    }
                    continue;
                }
                if s2.status != Status::Playing {
                    continue;
                }
                let Some((key, hash)) = keys.get(i) else {
                    continue;
                };
                let slot = nodes.slot_hashed(key, hash);
                if slot.known_at(g2) {
                    continue;
                }
                let fresh2 = still_fresh(a, &s, s2, fresh);
                let (h2, ha2) = played_for_a_move(h.estimate(deck, s2), fresh2);
                if h2 > points_obtainable(deck, s2) {
                    continue;
                }
                let f2 = (g2.0 + h2, g2.1 + cards_needed(h2, s2), g2.2 + ha2);
                if f2.0 > cap || incumbent.is_some_and(|inc| f2 >= inc) {
                    continue;
                }
                let id2 = slot.record(g2, id, *a, shift)?;
                open.push(Open::new(f2, g2.0, pushed.len())?);
                pushed.push(s2, id2, g2, fresh2);
            }
        }
        Ok(goal)
    };
    let got = run();
    let steps = got.map(|goal| {
        goal.map(|(parent, action, shift)| {
            let mut steps = nodes.path(parent);
            steps.push((action, shift));
            steps
        })
    });
    scratch.nodes = nodes.into_buffers();
    open.clear();
    scratch.open = open;
    scratch.states = pushed.states;
    scratch.meta = pushed.meta;
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_entries_order_as_their_triples() {
        // every pair of a small grid of values, the field order included: more points so
        // far comes first, as -points does in the triple
        let vals = [0, 1, 2, 7, (1 << 20) - 1];
        let mut entries = Vec::new();
        for &a in &vals {
            for &b in &vals[..4] {
                for &c in &vals {
                    for &g in &vals {
                        for at in [0usize, 1, 5] {
                            entries.push((
                                ((a, b, c), -g, at as u64),
                                Open::new((a, b, c), g, at).unwrap(),
                            ));
                        }
                    }
                }
            }
        }
        for (x, px) in &entries {
            assert_eq!(px.f(), x.0);
            assert_eq!(px.at() as u64, x.2);
            for (y, py) in &entries {
                assert_eq!(x.cmp(y), px.cmp(py), "{x:?} against {y:?}");
            }
        }
        // a value beyond its bits stops the search (unknown) rather than misordering it
        assert!(Open::new((1 << F_POINTS, 0, 0), 0, 0).is_err());
        assert!(Open::new((0, 0, 0), -1, 0).is_err());
        assert!(Open::new((0, 0, 0), 0, 1 << 32).is_err());
    }
}
