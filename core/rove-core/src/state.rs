//! The game state and the plan steps, as compact values.

use crate::deck::MAX_MODULES;
use crate::grid::Cell;

/// A card, as its index in the deck.
pub type CardId = u16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Playing,
    Won,
    Lost,
    /// The mission of a `goal: mission` position is complete.
    Goal,
}

/// Everything that changes during play; the same fields as `rove.engine.State`.
///
/// `card` is the current movement card (`None`: none, or a bare budget); `points` the
/// points left on it.  `draw` is top first, `discard` bottom first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub cells: [Cell; MAX_MODULES],
    pub n: u8,
    pub spent: u32,
    pub hand: Vec<CardId>,
    pub draw: Vec<CardId>,
    pub discard: Vec<CardId>,
    pub card: Option<CardId>,
    pub points: i32,
    pub mission: Option<CardId>,
    pub done: i32,
    pub completed: Vec<CardId>,
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

    /// This state with another layout (same length).
    pub fn with_cells(&self, cells: &[Cell]) -> State {
        let mut s = self.clone();
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
    Play { card: CardId, bonus: bool },
    Move { module: u8, dir: u8, dist: i32 },
    /// `module` flips; `via` is the module whose ability Gripper triggers.
    Ability { module: u8, via: Option<u8>, arg: AbilityArg },
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
