//! Canonical keys: states up to translation, for duplicate detection and the lost tables.

use crate::grid::{unpack, STRIDE};
use crate::state::{State, MAX_CARDS};

/// A state as bytes: the layout moved so its bounding box starts at (0, 0), the spent
/// set, the hand as a set, the points, the mission and missions done; with `piles`
/// also the current card and both pile orders (needed whenever a draw can still
/// matter).  The same fields as `rove.solve.search.canonical_key`.
pub type Key = Box<[u8]>;

/// The packed offset of the bounding box's top-left corner (what keys remove).
pub fn translation(s: &State) -> i32 {
    let (mut x0, mut y0) = (i32::MAX, i32::MAX);
    for &c in s.cells() {
        let (x, y) = unpack(c);
        x0 = x0.min(x);
        y0 = y0.min(y);
    }
    x0 + y0 * STRIDE
}

pub fn canonical_key(s: &State, piles: bool) -> Key {
    key_bytes(s, piles, u32::MAX, true)
}

/// The key of the lost tables' dominance classes: the full key (piles included) with
/// the points left out and only the `spent_kept` bits of the spent set, so states that
/// differ only in those can be compared entry by entry.
pub fn loss_key(s: &State, spent_kept: u32) -> Key {
    key_bytes(s, true, spent_kept, false)
}

fn key_bytes(s: &State, piles: bool, spent_kept: u32, points: bool) -> Key {
    let shift = translation(s);
    let mut out = Vec::with_capacity(48);
    for &c in s.cells() {
        // packing keeps |x| < STRIDE / 2, so both fit in 16 bits whatever the layout
        let (x, y) = unpack(c - shift);
        out.extend_from_slice(&(x as u16).to_le_bytes());
        out.extend_from_slice(&(y as u16).to_le_bytes());
    }
    out.extend_from_slice(&(s.spent & spent_kept).to_le_bytes());
    let mut hand = [0u8; MAX_CARDS];
    let n = s.hand.len();
    hand[..n].copy_from_slice(s.hand.as_slice());
    hand[..n].sort_unstable();
    push_cards(&mut out, &hand[..n]);
    if points {
        out.extend_from_slice(&s.points.to_le_bytes());
    }
    out.push(s.mission.map_or(u8::MAX, |m| m));
    out.extend_from_slice(&s.done.to_le_bytes());
    if piles {
        out.push(s.card.map_or(u8::MAX, |c| c));
        push_cards(&mut out, s.draw.as_slice());
        push_cards(&mut out, s.discard.as_slice());
    }
    out.into_boxed_slice()
}

fn push_cards(out: &mut Vec<u8>, cards: &[u8]) {
    out.push(cards.len() as u8);
    out.extend_from_slice(cards);
}
