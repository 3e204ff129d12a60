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

use crate::deck::MAX_MODULES;
use crate::grid::Cell;
use crate::state::{CardId, Cards, State, Status, MAX_CARDS};

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

    /// Keep `s`; it is [`StateStore::get`] of the length before the push.  The bytes
    /// are laid out in a buffer on the stack and appended at once: a search pushes a
    /// state for every entry of its open list, and appending them field by field (a
    /// capacity check and a length update each) was a twentieth of its time.
    pub fn push(&mut self, s: &State) {
        let mut buf = [0u8; MAX_PACKED];
        let mut w = Writer {
            buf: &mut buf,
            at: 0,
        };
        w.put(&[s.n]);
        for &c in s.cells() {
            w.put(&c.to_le_bytes());
        }
        w.put(&s.spent.to_le_bytes());
        for cards in [&s.hand, &s.draw, &s.discard, &s.completed] {
            w.put(&[cards.len() as u8]);
            w.put(cards.as_slice());
        }
        w.put(&[s.card.unwrap_or(NONE)]);
        w.put(&s.points.to_le_bytes());
        w.put(&[s.mission.unwrap_or(NONE)]);
        w.put(&s.done.to_le_bytes());
        w.put(&[s.status.code(), u8::from(s.goal_mission)]);
        let len = w.at;
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(&buf[..len]);
    }

    /// The state pushed `i`-th, equal to the one pushed.
    pub fn get(&self, i: usize) -> State {
        let mut r = Reader {
            bytes: &self.bytes,
            at: self.starts[i],
        };
        let n = r.byte();
        let mut cells = [0 as Cell; MAX_MODULES];
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

/// The most bytes a packed state takes: the module count, four bytes a cell, the spent
/// set, four card lists with their lengths, the current card, the points, the mission,
/// the missions done, the status and the goal.
const MAX_PACKED: usize = 1 + 4 * MAX_MODULES + 4 + 4 * (1 + MAX_CARDS) + 1 + 4 + 1 + 4 + 2;

/// A cursor writing a packed state's bytes into a buffer.
struct Writer<'a> {
    buf: &'a mut [u8; MAX_PACKED],
    at: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.buf[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
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
