//! The states a search keeps for later, packed.
//!
//! A [`State`] is a plain value sized for the largest deck the core takes: sixteen cells
//! and four card lists of forty slots, about 250 bytes.  A* and the zero-point walk keep
//! one for every entry they push on their open list, tens of them per node expanded, and
//! those copies were most of a long search's memory (2 GB at 200,000 nodes of a
//! six-module deck's mission search).  Packed, a state takes what it holds: four bytes a
//! module, one a card in its lists, and a dozen more, about 60 bytes on a six-module,
//! twelve-card deck.  Packing and unpacking cost far less than generating the
//! successors a popped state is expanded into.

use crate::grid::Cell;
use crate::state::{CardId, Cards, State, Status};

/// The byte that stands for "no card" (card ids stay below `state::MAX_CARDS`).
const NONE: u8 = u8::MAX;

/// States by the order they were pushed, packed into one byte buffer.
#[derive(Default)]
pub struct StateStore {
    bytes: Vec<u8>,
    /// where each state's bytes start
    starts: Vec<usize>,
}

impl StateStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Empty the store, giving back buffers holding more than `max_bytes` (see
    /// [`crate::nodes::NodeBuffers::trim`]).
    pub fn trim(&mut self, max_bytes: usize) {
        crate::nodes::trim(&mut self.bytes, max_bytes);
        crate::nodes::trim(&mut self.starts, max_bytes);
    }

    /// How many states were pushed.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Keep `s`; it is [`StateStore::get`] of the length before the push.
    pub fn push(&mut self, s: &State) {
        self.starts.push(self.bytes.len());
        let b = &mut self.bytes;
        b.push(s.n);
        for &c in s.cells() {
            b.extend_from_slice(&c.to_le_bytes());
        }
        b.extend_from_slice(&s.spent.to_le_bytes());
        for cards in [&s.hand, &s.draw, &s.discard, &s.completed] {
            b.push(cards.len() as u8);
            b.extend_from_slice(cards.as_slice());
        }
        b.push(s.card.unwrap_or(NONE));
        b.extend_from_slice(&s.points.to_le_bytes());
        b.push(s.mission.unwrap_or(NONE));
        b.extend_from_slice(&s.done.to_le_bytes());
        b.push(s.status.code());
        b.push(u8::from(s.goal_mission));
    }

    /// The state pushed `i`-th, equal to the one pushed.
    pub fn get(&self, i: usize) -> State {
        let mut r = Reader {
            bytes: &self.bytes,
            at: self.starts[i],
        };
        let n = r.byte();
        let mut cells = [0 as Cell; crate::deck::MAX_MODULES];
        for c in cells.iter_mut().take(n as usize) {
            *c = r.i32();
        }
        let spent = r.u32();
        let hand = r.cards();
        let draw = r.cards();
        let discard = r.cards();
        let completed = r.cards();
        let card = r.card();
        let points = r.i32();
        let mission = r.card();
        let done = r.i32();
        let status = Status::from_code(r.byte()).expect("a status the store packed");
        let goal_mission = r.byte() == 1;
        State {
            cells,
            n,
            spent,
            hand,
            draw,
            discard,
            card,
            points,
            mission,
            done,
            completed,
            status,
            goal_mission,
        }
    }
}

/// A cursor over a packed state's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let out: [u8; N] = self.bytes[self.at..self.at + N]
            .try_into()
            .expect("N bytes");
        self.at += N;
        out
    }

    fn byte(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    fn i32(&mut self) -> i32 {
        i32::from_le_bytes(self.take())
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn card(&mut self) -> Option<CardId> {
        Some(self.byte()).filter(|&c| c != NONE)
    }

    fn cards(&mut self) -> Cards {
        let len = usize::from(self.byte());
        let out = Cards::from_slice(&self.bytes[self.at..self.at + len])
            .expect("a list the store packed");
        self.at += len;
        out
    }
}
