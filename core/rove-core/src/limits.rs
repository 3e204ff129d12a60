//! The core's size limits: a leaf every other module may import.
//!
//! They sit apart so that the modules sized by them (`grid`, `state`, `deck`) need not
//! import one another for a constant; decks beyond them stay on the Python path.

/// Modules beyond this many are not handled by the core (the Python engine still is).
pub const MAX_MODULES: usize = 16;

/// The most cards a deck may have for the core (larger decks stay on the Python path).
pub const MAX_CARDS: usize = 40;
