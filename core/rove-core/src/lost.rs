//! The whole-deal search's lost table, with dominance.
//!
//! A state shown to lose (no win spending at most its *allowance* of points from it)
//! also shows every state it dominates to lose.  State B dominates W when every plan
//! from W can be played action for action from B and ends no worse:
//!
//! * **spent modules**: B's spent set is a subset of W's, and the two differ only on
//!   modules whose two sides carry the same arrows (an unused ability is an option,
//!   never an obligation; a flip that changes arrows is not, so those bits stay in the
//!   key). Gripper's `active_only` target rule only ever asks for *more* active modules.
//! * **points**: B holds at least W's points on the same current card.  The extra
//!   points change nothing but *when* that card reaches the discard pile: W's card is
//!   discarded on its last point, B's on the next play or completion, with no other
//!   discard in between, so the pile's order is the same.  Only a Sensor draw in that
//!   window could tell the two apart, by turning the discard pile over into the draw
//!   pile; that needs the draw pile to run out, so points count as dominance only when
//!   W's draw pile holds more cards than W's Sensor draws left.
//! * **allowance**: B was lost with at least W's allowance.
//!
//! Everything else (layout up to translation, hand, piles, current card, mission,
//! missions done) is in the key, so entries are only compared within one key.  With
//! dominance off, entries match on equal spent sets and points only: the table is then
//! exactly a map from the full canonical key to the largest allowance lost under.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::deck::Deck;
use crate::key::{loss_key, Key};
use crate::state::State;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    spent: u32,
    points: i32,
    allowance: i32,
}

pub struct LostTable {
    /// most keys hold one entry: it sits in the map itself, not behind a pointer
    map: FxHashMap<Key, SmallVec<[Entry; 1]>>,
    entries: usize,
    cap: usize,
    /// spent bits kept in the key: those of modules whose flip changes their arrows
    /// (all of them with dominance off)
    kept: u32,
    dominance: bool,
}

impl LostTable {
    pub fn new(deck: &Deck, dominance: bool, cap: usize) -> Self {
        let kept = if dominance {
            deck.flip_mask()
        } else {
            u32::MAX
        };
        LostTable {
            map: FxHashMap::default(),
            entries: 0,
            cap,
            kept,
            dominance,
        }
    }

    pub fn len(&self) -> usize {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Whether the points of a lost entry may stand for fewer points of `s`.
    fn points_dominate(&self, deck: &Deck, s: &State) -> bool {
        self.dominance && deck.sensor_draws_left(s.spent) < s.draw.len()
    }

    /// Whether `s` is shown lost for `allowance`.
    pub fn is_lost(&self, deck: &Deck, s: &State, allowance: i32) -> bool {
        let Some(list) = self.map.get(loss_key(s, self.kept).as_slice()) else {
            return false;
        };
        let more_points = self.points_dominate(deck, s);
        list.iter().any(|e| {
            e.allowance >= allowance
                && e.spent & !s.spent == 0
                && (e.points == s.points || (more_points && e.points > s.points))
                && (self.dominance || e.spent == s.spent)
        })
    }

    /// Record that `s` loses with `allowance`; entries the new one dominates go.  At the
    /// size cap new keys are dropped (a dropped entry costs time, never correctness).
    pub fn record(&mut self, deck: &Deck, s: &State, allowance: i32) {
        let key = Key::from_slice(loss_key(s, self.kept).as_slice());
        let new = Entry {
            spent: s.spent,
            points: s.points,
            allowance,
        };
        if self.entries >= self.cap && !self.map.contains_key(&key) {
            return;
        }
        // An older entry goes when every state it covers is covered by the new one: a
        // superset of spent modules, no more allowance, and the same points or fewer
        // where points dominate.  Points dominate for every state the older entry covers
        // when they do for the new one: those states share its draw pile (in the key) and
        // have spent supersets, hence no more Sensor draws left.
        let free_points = self.points_dominate(deck, s);
        let dominance = self.dominance;
        let list = self.map.entry(key).or_default();
        let before = list.len();
        list.retain(|e| {
            let covered = e.allowance <= new.allowance
                && new.spent & !e.spent == 0
                && (dominance || e.spent == new.spent)
                && (e.points == new.points || (e.points < new.points && free_points));
            !covered
        });
        list.push(new);
        self.entries = self.entries + list.len() - before;
    }
}
