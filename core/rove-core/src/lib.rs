//! The compiled search core of rove.
//!
//! A mirror of the Python rules engine on compact integer states (packed cells, a spent
//! bit mask, cards as small integers) with the searches that need its speed: A* for
//! `goal: mission` and the whole-deal search for `goal: game`.  The Python engine stays
//! the single source of truth: the binding (`rove-py`) hands every plan back to it to
//! be replayed, and the tests hold the core's successors to the engine's.
//!
//! * [`limits`]: the size limits (modules, cards), a leaf
//! * [`grid`]: packed cells, validity, where a module may be put
//! * [`deck`]: a spec compiled for play (modules, cards, patterns, rule options)
//! * [`state`]: game states and plan steps
//! * [`store`]: states a search keeps for later, packed
//! * [`rules`]: successor generation and the card flow
//! * [`heuristic`]: the admissible mission bound and the points bound
//! * [`key`]: canonical keys (states up to translation)
//! * [`budget`]: node limits and the hooks a search polls
//! * [`pages`]: huge pages for the large tables read at random
//! * [`nodes`]: search nodes by canonical key, with the parent links plans come from
//! * [`astar`]: optimal mission plans
//! * [`closure`]: the states a start reaches by ability uses alone, walked once for
//!   many missions (their zero-point optima)
//! * [`lost`]: the whole-deal search's lost table, with dominance
//! * [`game`]: whole-deal winnability
//! * [`tables`]: exact move-only distance tables (endgame tables)
//! * [`chains`]: mission pairs and chains on those tables (what a bound across missions
//!   can see)

pub mod astar;
pub mod budget;
pub mod chains;
pub mod closure;
pub mod deck;
pub mod game;
pub mod grid;
pub mod heuristic;
pub mod key;
pub mod limits;
pub mod lost;
pub mod nodes;
pub mod pages;
pub mod rules;
pub mod state;
pub mod store;
pub mod tables;

#[cfg(test)]
mod tests;
