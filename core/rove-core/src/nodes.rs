//! Search nodes by canonical key, shared by A* ([`crate::astar`]) and the zero-point walk
//! ([`crate::closure`]): each node's cheapest cost known so far and the step that reached
//! it at that cost, so that a plan is rebuilt from the parent links.
//!
//! Both searches detect duplicates on canonical keys (states up to translation) and
//! re-open a node reached more cheaply; a step is recorded with the translation of the
//! state it was made in, so that a plan found through translated copies of states is
//! re-based when it is replayed.

use std::hash::BuildHasher;

use hashbrown::hash_table::{Entry, HashTable};
use rustc_hash::FxBuildHasher;

use crate::budget::Stop;
use crate::state::Action;

/// A plan step and the translation of the state it was made in: translated copies of a
/// state share a key, so a step with cells is re-based when the plan is replayed.
pub type Step = (Action, i32);

/// The root's parent.
const NO_PARENT: u32 = u32::MAX;

/// Node id -> cheapest cost known and (parent id, action, the parent's translation).
///
/// The hash table holds a node's id and where its key starts in one arena of key
/// bytes (eight bytes a slot), and each node's hash is kept by id.  A search probes the
/// table once for every successor, dozens to hundreds a node while abilities are
/// unspent, and most probes find a node already known: small slots keep more of the
/// table in cache, the key's place in the slot saves a look-up by id before the
/// comparison, and the stored hashes let a resize re-place slots without reading a key.
pub struct NodeTable<G> {
    ids: HashTable<(u32, u32)>,
    nodes: Nodes<G>,
    /// keys the table may hold (see `budget::DEFAULT_TABLE_CAP`)
    cap: usize,
}

/// What the table knows of each node, by id.
struct Nodes<G> {
    /// every node's key, one after another, each as its length (a byte: keys are
    /// shorter than 256 bytes) and its bytes
    keys: Vec<u8>,
    hashes: Vec<u64>,
    best: Vec<G>,
    parents: Vec<(u32, Option<Action>, i32)>,
}

impl<G> Nodes<G> {
    /// Whether the key kept at `at` is `key`.
    fn holds(&self, at: u32, key: &[u8]) -> bool {
        let at = at as usize;
        usize::from(self.keys[at]) == key.len() && &self.keys[at + 1..at + 1 + key.len()] == key
    }

    /// A new node: its id and where its key starts, or None
    /// when the arena is beyond what a slot can point into (4 GiB of keys).
    fn push(&mut self, key: &[u8], hash: u64, g: G, parent: (u32, Option<Action>, i32)) -> Option<(u32, u32)> {
        let at = u32::try_from(self.keys.len()).ok()?;
        self.keys.push(u8::try_from(key.len()).expect("keys are shorter than 256 bytes"));
        self.keys.extend_from_slice(key);
        self.hashes.push(hash);
        self.best.push(g);
        self.parents.push(parent);
        Some((self.best.len() as u32 - 1, at))
    }
}

impl<G: Copy + PartialOrd> NodeTable<G> {
    /// A table holding the root, node 0, at cost `g`, with room for `cap` keys.
    pub fn new(root: &[u8], g: G, cap: usize) -> Self {
        let nodes = Nodes { keys: Vec::new(), hashes: Vec::new(), best: Vec::new(), parents: Vec::new() };
        let mut table = NodeTable { ids: HashTable::new(), nodes, cap };
        let hash = FxBuildHasher.hash_one(root);
        let root_slot = table.nodes.push(root, hash, g, (NO_PARENT, None, 0)).expect("an empty arena");
        let NodeTable { ids, nodes, .. } = &mut table;
        ids.insert_unique(hash, root_slot, |&(id, _)| nodes.hashes[id as usize]);
        table
    }

    /// The cheapest cost known for node `id`.
    pub fn best(&self, id: u32) -> G {
        self.nodes.best[id as usize]
    }

    /// Where the state of `key` stands: one probe finds its node or the place for it.
    pub fn slot<'t>(&'t mut self, key: &'t [u8]) -> Slot<'t, G> {
        let hash = FxBuildHasher.hash_one(key);
        let full = self.ids.len() >= self.cap;
        let NodeTable { ids, nodes, .. } = self;
        let entry = ids.entry(hash, |&(_, at)| nodes.holds(at, key), |&(id, _)| nodes.hashes[id as usize]);
        Slot { entry, key, hash, nodes, full }
    }

    /// The steps from the root to node `id`, by the parent links.
    pub fn path(&self, id: u32) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut k = id;
        while k != NO_PARENT {
            let (pk, a, shift) = self.nodes.parents[k as usize];
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
    entry: Entry<'a, (u32, u32)>,
    key: &'a [u8],
    hash: u64,
    nodes: &'a mut Nodes<G>,
    full: bool,
}

impl<G: Copy + PartialOrd> Slot<'_, G> {
    /// Whether the state is known already at cost `g` or less (nothing to gain from it).
    pub fn known_at(&self, g: G) -> bool {
        match &self.entry {
            Entry::Occupied(o) => self.nodes.best[o.get().0 as usize] <= g,
            Entry::Vacant(_) => false,
        }
    }

    /// Record the state at cost `g`, reached from node `parent` by `action` made in a
    /// state of translation `shift`: its node id (a known node is re-opened).  A new key
    /// beyond the table's cap (or its arena's reach) is `Stop::Limit` (a search needs
    /// every entry to rebuild its plans).
    pub fn record(self, g: G, parent: u32, action: Action, shift: i32) -> Result<u32, Stop> {
        let step = (parent, Some(action), shift);
        match self.entry {
            Entry::Occupied(o) => {
                let old = o.get().0 as usize;
                self.nodes.best[old] = g;
                self.nodes.parents[old] = step;
                Ok(old as u32)
            }
            Entry::Vacant(v) => {
                if self.full {
                    return Err(Stop::Limit);
                }
                let slot = self.nodes.push(self.key, self.hash, g, step).ok_or(Stop::Limit)?;
                v.insert(slot);
                Ok(slot.0)
            }
        }
    }
}
