//! Search nodes by canonical key, shared by A* ([`crate::astar`]) and the zero-point walk
//! ([`crate::closure`]): each node's cheapest cost known so far and the step that reached
//! it at that cost, so that a plan is rebuilt from the parent links.
//!
//! Both searches detect duplicates on canonical keys (states up to translation) and
//! re-open a node reached more cheaply; a step is recorded with the translation of the
//! state it was made in, so that a plan found through translated copies of states is
//! re-based when it is replayed.

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use crate::budget::Stop;
use crate::key::Key;
use crate::state::Action;

/// A plan step and the translation of the state it was made in: translated copies of a
/// state share a key, so a step with cells is re-based when the plan is replayed.
pub type Step = (Action, i32);

/// The root's parent.
const NO_PARENT: u32 = u32::MAX;

/// Node id -> cheapest cost known and (parent id, action, the parent's translation).
pub struct NodeTable<G> {
    ids: FxHashMap<Key, u32>,
    best: Vec<G>,
    parents: Vec<(u32, Option<Action>, i32)>,
    /// keys the table may hold (see `budget::DEFAULT_TABLE_CAP`)
    cap: usize,
}

impl<G: Copy + PartialOrd> NodeTable<G> {
    /// A table holding the root, node 0, at cost `g`, with room for `cap` keys.
    pub fn new(root: Key, g: G, cap: usize) -> Self {
        let mut ids = FxHashMap::default();
        ids.insert(root, 0);
        NodeTable { ids, best: vec![g], parents: vec![(NO_PARENT, None, 0)], cap }
    }

    /// The cheapest cost known for node `id`.
    pub fn best(&self, id: u32) -> G {
        self.best[id as usize]
    }

    /// Where the state of `key` stands: one probe finds its node or the place for it.
    pub fn slot(&mut self, key: Key) -> Slot<'_, G> {
        let NodeTable { ids, best, parents, cap } = self;
        let full = ids.len() >= *cap;
        Slot { entry: ids.entry(key), best, parents, full }
    }

    /// The steps from the root to node `id`, by the parent links.
    pub fn path(&self, id: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut k = id;
        while k != NO_PARENT {
            let (pk, a, shift) = self.parents[k as usize];
            if let Some(a) = a {
                steps.push((a, shift));
            }
            k = pk;
        }
        steps.reverse();
        steps
    }
}

/// A state's place in a [`NodeTable`], between the look-up and the decision to record it.
pub struct Slot<'a, G> {
    entry: Entry<'a, Key, u32>,
    best: &'a mut Vec<G>,
    parents: &'a mut Vec<(u32, Option<Action>, i32)>,
    full: bool,
}

impl<G: Copy + PartialOrd> Slot<'_, G> {
    /// Whether the state is known already at cost `g` or less (nothing to gain from it).
    pub fn known_at(&self, g: G) -> bool {
        match &self.entry {
            Entry::Occupied(o) => self.best[*o.get() as usize] <= g,
            Entry::Vacant(_) => false,
        }
    }

    /// Record the state at cost `g`, reached from node `parent` by `action` made in a
    /// state of translation `shift`: its node id (a known node is re-opened).  A new key
    /// beyond the table's cap is `Stop::Limit` (a search needs every entry to rebuild
    /// its plans).
    pub fn record(self, g: G, parent: u32, action: Action, shift: i32) -> Result<u32, Stop> {
        match self.entry {
            Entry::Occupied(o) => {
                let old = *o.get();
                self.best[old as usize] = g;
                self.parents[old as usize] = (parent, Some(action), shift);
                Ok(old)
            }
            Entry::Vacant(v) => {
                if self.full {
                    return Err(Stop::Limit);
                }
                let new = self.best.len() as u32;
                v.insert(new);
                self.best.push(g);
                self.parents.push((parent, Some(action), shift));
                Ok(new)
            }
        }
    }
}
