//! Node limits and the hooks a search polls: node counts decide `unknown`, so results
//! do not depend on the machine; the hooks add a wall-clock safety net, Ctrl-C and
//! progress reports without the search knowing about Python.

/// Why a search stopped before it could answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The node limit or a table's size cap was reached: `unknown`.
    Limit,
    /// The caller's time limit was reached: `unknown`.
    Deadline,
    /// The user interrupted the run.
    Interrupted,
}

/// What the caller says when polled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Poll {
    Continue,
    Limit,
    Interrupt,
}

/// Calls out of a running search.
pub trait Hooks {
    /// Asked at the first node and every [`POLL_EVERY`] nodes after it.
    fn poll(&mut self) -> Poll {
        Poll::Continue
    }
    /// A line reached more completed missions than any before it.
    fn deepest(&mut self, _done: i32) {}
}

/// Hooks that never stop a search and ignore progress.
pub struct NoHooks;

impl Hooks for NoHooks {}

pub const POLL_EVERY: u64 = 1024;

/// Entries a transposition or lost table may hold.  A* stops with `unknown` when its
/// table is full (it needs every entry to rebuild the plan); the game search stops
/// recording losses, which costs time, never correctness.
pub const DEFAULT_TABLE_CAP: usize = 30_000_000;

#[derive(Clone, Debug)]
pub struct Budget {
    pub max_nodes: u64,
    pub nodes: u64,
    pub table_cap: usize,
}

impl Budget {
    pub fn new(max_nodes: u64) -> Self {
        Budget {
            max_nodes,
            nodes: 0,
            table_cap: DEFAULT_TABLE_CAP,
        }
    }

    /// Count one expanded node; stop at the node limit or when the hooks say so.
    pub fn tick(&mut self, hooks: &mut dyn Hooks) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes >= self.max_nodes {
            return Err(Stop::Limit);
        }
        if self.nodes == 1 || self.nodes.is_multiple_of(POLL_EVERY) {
            match hooks.poll() {
                Poll::Continue => {}
                Poll::Limit => return Err(Stop::Deadline),
                Poll::Interrupt => return Err(Stop::Interrupted),
            }
        }
        Ok(())
    }
}
