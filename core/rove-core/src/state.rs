//! The game state and the plan steps, as compact values.

use crate::grid::Cell;
pub use crate::limits::MAX_CARDS;
use crate::limits::MAX_MODULES;

/// A card, as its index in the deck.
pub type CardId = u8;

/// An ordered list of cards (a hand or a pile) held inline, so that a state is a plain
/// value: copying one allocates nothing.  Slots past `len` stay zero, so the derived
/// equality and hash see only the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cards {
    len: u8,
    items: [CardId; MAX_CARDS - 1],
}

impl Default for Cards {
    fn default() -> Self {
        Cards {
            len: 0,
            items: [0; MAX_CARDS - 1],
        }
    }
}

impl Cards {
    pub fn new() -> Self {
        Self::default()
    }

    /// The cards of a slice; None when it holds more than a list can.
    pub fn from_slice(cards: &[CardId]) -> Option<Self> {
        let mut out = Cards::new();
        if cards.len() > out.items.len() {
            return None;
        }
        out.items[..cards.len()].copy_from_slice(cards);
        out.len = cards.len() as u8;
        Some(out)
    }

    pub fn as_slice(&self) -> &[CardId] {
        &self.items[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, c: CardId) {
        self.items[self.len as usize] = c;
        self.len += 1;
    }

    /// Take the first card (the top of a draw pile).
    pub fn take_first(&mut self) -> Option<CardId> {
        if self.len == 0 {
            return None;
        }
        let first = self.items[0];
        let n = self.len as usize;
        self.items.copy_within(1..n, 0);
        self.items[n - 1] = 0;
        self.len -= 1;
        Some(first)
    }

    /// Drop every copy of card `c`.
    pub fn remove(&mut self, c: CardId) {
        let mut kept = Cards::new();
        for &x in self.as_slice() {
            if x != c {
                kept.push(x);
            }
        }
        *self = kept;
    }

    pub fn contains(&self, c: CardId) -> bool {
        self.as_slice().contains(&c)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Playing,
    Won,
    Lost,
    /// The mission of a `goal: mission` position is complete.
    Goal,
}

impl Status {
    /// Every status, by its code (the order they are declared in).
    const BY_CODE: [Status; 4] = [Status::Playing, Status::Won, Status::Lost, Status::Goal];

    /// The status as a small number (0 playing, 1 won, 2 lost, 3 goal): the code the
    /// binding hands Python and the packed store keeps.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The status of a code (None: no status has it).
    pub fn from_code(code: u8) -> Option<Status> {
        Self::BY_CODE.get(usize::from(code)).copied()
    }
}

/// Everything that changes during play; the same fields as `rove.engine.State`.
///
/// `card` is the current movement card (`None`: none, or a bare budget); `points` the
/// points left on it.  `draw` is top first, `discard` bottom first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub cells: [Cell; MAX_MODULES],
    pub n: u8,
    pub spent: u32,
    pub hand: Cards,
    pub draw: Cards,
    pub discard: Cards,
    pub card: Option<CardId>,
    pub points: i32,
    pub mission: Option<CardId>,
    pub done: i32,
    pub completed: Cards,
    pub status: Status,
    /// `goal: mission` (else `goal: game`).
    pub goal_mission: bool,
}

impl State {
    /// The layout: one cell per module.
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.n as usize]
    }

    pub fn is_spent(&self, i: usize) -> bool {
        self.spent >> i & 1 == 1
    }
}

#[cfg(test)]
impl State {
    /// A mission puzzle for tests: `cells`, the spent set and points on no card, empty
    /// hand and piles, the goal being `mission` alone.
    pub fn bare(cells: &[Cell], spent: u32, points: i32, mission: u8) -> State {
        let mut s = State {
            cells: [0; MAX_MODULES],
            n: cells.len() as u8,
            spent,
            hand: Cards::new(),
            draw: Cards::new(),
            discard: Cards::new(),
            card: None,
            points,
            mission: Some(mission),
            done: 0,
            completed: Cards::new(),
            status: Status::Playing,
            goal_mission: true,
        };
        s.cells[..cells.len()].copy_from_slice(cells);
        s
    }
}

/// What an ability use does, beyond flipping its module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AbilityArg {
    /// Sensor: draw a card.
    Draw,
    /// Laser: two modules trade cells.
    Swap(u8, u8),
    /// Motor: a module moves one cell in a direction.
    Shift { target: u8, dir: u8 },
    /// Brain: a module goes to a cell next to Brain.
    Place { target: u8, to: Cell },
    /// Coil: Coil goes to a cell.
    To(Cell),
}

/// One plan step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Play {
        card: CardId,
        bonus: bool,
    },
    Move {
        module: u8,
        dir: u8,
        dist: i32,
    },
    /// `module` flips; `via` is the module whose ability Gripper triggers.
    Ability {
        module: u8,
        via: Option<u8>,
        arg: AbilityArg,
    },
}

impl Action {
    /// (points, cards, abilities) this step costs: the order in which plans are compared.
    pub fn cost(&self) -> (i32, i32, i32) {
        match self {
            Action::Move { .. } => (1, 0, 0),
            Action::Play { .. } => (0, 1, 0),
            Action::Ability { .. } => (0, 0, 1),
        }
    }

    pub fn is_move(&self) -> bool {
        matches!(self, Action::Move { .. })
    }
}
