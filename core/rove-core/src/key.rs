//! Canonical keys: states up to translation, for duplicate detection and the lost tables.

use smallvec::SmallVec;

use crate::deck::{Deck, MAX_MODULES};
use crate::grid::{bounds, pack, unpack};
use crate::state::{State, MAX_CARDS};

/// A key kept as a map's key (the lost tables'), held inline up to `INLINE_KEY` bytes
/// (a six-module state of a dozen-card deck takes about 40): no allocation per entry,
/// no pointer to follow when a probe compares keys.
pub type Key = SmallVec<[u8; INLINE_KEY]>;

const INLINE_KEY: usize = 48;

/// The packed offset of the bounding box's top-left corner (what keys remove).
pub fn translation(s: &State) -> i32 {
    let (x0, _, y0, _) = bounds(s.cells());
    pack(x0, y0)
}

/// A state as bytes: the layout moved so its bounding box starts at (0, 0), the spent
/// set, the hand as a set, the points, the mission and missions done; with `piles`
/// also the current card and both pile orders (needed whenever a draw can still
/// matter).  The same fields as `rove.solve.nodes.canonical_key`.
pub fn canonical_key(s: &State, piles: bool) -> KeyBuf {
    let mut out = KeyBuf::new();
    canonical_key_into(s, piles, &mut out);
    out
}

/// A state's key in a search for one mission's cheapest plan: the piles only as far as
/// the rest of the mission can tell them apart.  Within a mission the only draws are the
/// Sensor's, from the top of the draw pile; while it holds at least as many cards as the
/// Sensor draws left, none reaches the discard pile, so that pile's order and the
/// current card (which only ever goes there) change nothing a plan can do or cost: the
/// key keeps the draw pile alone.  The same fields as `rove.solve.nodes.mission_key`.
pub fn mission_key(deck: &Deck, s: &State) -> KeyBuf {
    let mut out = KeyBuf::new();
    mission_key_into(deck, s, &mut out);
    out
}

/// [`mission_key`]'s bytes appended to `out` (a search's keys of a node's successors,
/// [`crate::nodes::Keys`]).
pub fn mission_key_into(deck: &Deck, s: &State, out: &mut impl KeyOut) {
    let draws = deck.sensor_draws_left(s.spent);
    let piles = if draws > s.draw.len() {
        Piles::All
    } else if draws > 0 {
        Piles::Draw
    } else {
        Piles::None
    };
    key_bytes_into(s, piles, u32::MAX, true, out);
}

/// [`canonical_key`]'s bytes appended to `out`.
pub fn canonical_key_into(s: &State, piles: bool, out: &mut impl KeyOut) {
    key_bytes_into(
        s,
        if piles { Piles::All } else { Piles::None },
        u32::MAX,
        true,
        out,
    );
}

/// The byte that opens the piles of a `Piles::Draw` key.
const DRAW_ONLY: u8 = u8::MAX - 1;
const _: () = assert!(MAX_CARDS < DRAW_ONLY as usize);

/// Which of the card piles a key holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Piles {
    None,
    /// the draw pile
    Draw,
    /// the current card and both piles
    All,
}

/// The key of the lost tables' dominance classes: the full key (piles included) with
/// the points left out and only the `spent_kept` bits of the spent set, so states that
/// differ only in those can be compared entry by entry.
pub fn loss_key(s: &State, spent_kept: u32) -> KeyBuf {
    let mut out = KeyBuf::new();
    key_bytes_into(s, Piles::All, spent_kept, false, &mut out);
    out
}

/// A key on the stack: tables are probed far more often than they grow, and a probe
/// needs no allocation (`Key` borrows as a byte slice).
#[derive(Clone, Copy)]
pub struct KeyBuf {
    len: usize,
    bytes: [u8; KEY_BYTES],
}

/// The longest key: every field at its largest (cells, spent set, hand, points,
/// mission, missions done, current card, two piles, each list with its length).
const KEY_BYTES: usize = 4 * MAX_MODULES + 4 + 3 * (1 + MAX_CARDS) + 4 + 1 + 4 + 1;

/// Where a key's bytes are written: a [`KeyBuf`] on the stack, or the end of a byte
/// arena that holds many keys one after another (no copy of a whole buffer per key).
pub trait KeyOut {
    fn push(&mut self, byte: u8);
    fn extend(&mut self, bytes: &[u8]);
}

impl KeyBuf {
    fn new() -> Self {
        KeyBuf {
            len: 0,
            bytes: [0; KEY_BYTES],
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

impl KeyOut for KeyBuf {
    fn extend(&mut self, bytes: &[u8]) {
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }
}

impl KeyOut for Vec<u8> {
    fn extend(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn push(&mut self, byte: u8) {
        Vec::push(self, byte);
    }
}

impl PartialEq for KeyBuf {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for KeyBuf {}

impl std::fmt::Debug for KeyBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// A key's bytes, as canonical_key describes them, appended to `out`.
fn key_bytes_into(s: &State, piles: Piles, spent_kept: u32, points: bool, out: &mut impl KeyOut) {
    let shift = translation(s);
    let small = s.cells().iter().all(|&c| {
        let (x, y) = unpack(c - shift);
        x < 255 && y < 255
    });
    if !small {
        // a layout spread over 255 cells or more (never a valid one of up to 16
        // modules): a byte no small layout starts with, then 16 bits a coordinate
        // (packing keeps |x| < STRIDE / 2, so both fit whatever the layout)
        out.push(u8::MAX);
    }
    for &c in s.cells() {
        let (x, y) = unpack(c - shift);
        if small {
            out.extend(&[x as u8, y as u8]);
        } else {
            out.extend(&(x as u16).to_le_bytes());
            out.extend(&(y as u16).to_le_bytes());
        }
    }
    // the spent set's bits beyond the modules are always clear
    out.extend(&(s.spent & spent_kept).to_le_bytes()[..s.cells().len().div_ceil(8)]);
    let mut hand = [0u8; MAX_CARDS];
    let n = s.hand.len();
    hand[..n].copy_from_slice(s.hand.as_slice());
    hand[..n].sort_unstable();
    push_cards(out, &hand[..n]);
    if points {
        out.extend(&s.points.to_le_bytes());
    }
    out.push(s.mission.map_or(u8::MAX, |m| m));
    // at most one mission a card is ever completed
    out.push(s.done as u8);
    match piles {
        Piles::None => {}
        Piles::Draw => {
            // a byte no current card is (ids are below MAX_CARDS, none is u8::MAX), so
            // that no key of this kind reads as one of `Piles::All`
            out.push(DRAW_ONLY);
            push_cards(out, s.draw.as_slice());
        }
        Piles::All => {
            out.push(s.card.map_or(u8::MAX, |c| c));
            push_cards(out, s.draw.as_slice());
            push_cards(out, s.discard.as_slice());
        }
    }
}

fn push_cards(out: &mut impl KeyOut, cards: &[u8]) {
    out.push(cards.len() as u8);
    out.extend(cards);
}
