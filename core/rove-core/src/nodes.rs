//! Search nodes by canonical key, shared by A* ([`crate::astar`]) and the zero-point walk
//! ([`crate::closure`]): each node's cheapest cost known so far and the step that reached
//! it at that cost, so that a plan is rebuilt from the parent links.
//!
//! Both searches detect duplicates on canonical keys (states up to translation) and
//! re-open a node reached more cheaply; a step is recorded with the translation of the
//! state it was made in, so that a plan found through translated copies of states is
//! re-based when it is replayed.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use crate::budget::Stop;
use crate::state::{Action, State};

/// A plan step and the translation of the state it was made in: translated copies of a
/// state share a key, so a step with cells is re-based when the plan is replayed.
pub type Step = (Action, i32);

/// The root's parent.
const NO_PARENT: u32 = u32::MAX;

/// The keys of a node's successors ([`NodeTable::keys_into`]), one after another in one
/// byte arena, reused node after node: a node has hundreds of successors, and a key
/// built in a buffer of its own was copied whole (a couple of hundred bytes) into a list
/// of them, a fifth of a search's time.
#[derive(Default)]
pub struct Keys {
    bytes: Vec<u8>,
    /// per successor: where its key starts and ends in `bytes`, and its hash (None: not
    /// wanted)
    spans: Vec<Option<(u32, u32, u64)>>,
}

impl Keys {
    /// The key and hash of successor `i`, if it was wanted.
    pub fn get(&self, i: usize) -> Option<(&[u8], u64)> {
        self.spans[i].map(|(a, b, hash)| (&self.bytes[a as usize..b as usize], hash))
    }
}

/// A slot of the table: a node's id, where its key starts in the arena and half its
/// key's hash (`id == EMPTY` for a free slot); twelve bytes.
#[derive(Clone, Copy)]
struct Entry {
    tag: u32,
    id: u32,
    at: u32,
}

const EMPTY: u32 = u32::MAX;
const FREE: Entry = Entry {
    tag: 0,
    id: EMPTY,
    at: 0,
};

/// The half of a hash a slot keeps: keys whose tags differ are different keys.
fn tag(hash: u64) -> u32 {
    (hash >> 32) as u32
}

/// Node id -> cheapest cost known and (parent id, action, the parent's translation).
///
/// The index is an open-addressing table with linear probing, at most half full, whose
/// slots hold a node's id, where its key starts in one arena of key bytes and half the
/// key's hash. A search probes the table once for every successor, dozens to hundreds
/// a node while abilities are unspent, and most probes find a node already known, in a
/// table of millions of slots: each probe is a cache miss or two, and they were most of
/// a long mission search's time. A slot's hash rules out other keys without reading
/// them, the key's place in the slot saves a look-up by id, a probe that goes on reads
/// the next slots of the same cache line, and a resize hashes the keys again in the
/// arena's order (one pass over memory read in sequence).
/// (The generic `hashbrown` table read its control bytes, then the slot, then the key:
/// three misses a hit where this reads two.)
pub struct NodeTable<G> {
    slots: Vec<Entry>,
    /// the slot index's bit count: a hash's top bits are its first slot
    bits: u32,
    nodes: Nodes<G>,
    /// keys the table may hold (see `budget::DEFAULT_TABLE_CAP`)
    cap: usize,
}

/// What the table knows of each node, by id.
struct Nodes<G> {
    /// every node's key, one after another, each as its length (a byte: keys are
    /// shorter than 256 bytes) and its bytes
    keys: Vec<u8>,
    best: Vec<G>,
    parents: Vec<(u32, Option<Action>, i32)>,
}

impl<G> Nodes<G> {
    /// The key kept at `at`.
    fn key(&self, at: usize) -> &[u8] {
        &self.keys[at + 1..at + 1 + usize::from(self.keys[at])]
    }

    /// Whether the key kept at `at` is `key`.
    fn holds(&self, at: u32, key: &[u8]) -> bool {
        self.key(at as usize) == key
    }

    /// A new node: its id and where its key starts, or None
    /// when the arena is beyond what a slot can point into (4 GiB of keys).
    fn push(&mut self, key: &[u8], g: G, parent: (u32, Option<Action>, i32)) -> Option<(u32, u32)> {
        let at = u32::try_from(self.keys.len()).ok()?;
        let id = u32::try_from(self.best.len())
            .ok()
            .filter(|&id| id != EMPTY)?;
        self.keys
            .push(u8::try_from(key.len()).expect("keys are shorter than 256 bytes"));
        self.keys.extend_from_slice(key);
        self.best.push(g);
        self.parents.push(parent);
        Some((id, at))
    }
}

/// The first slot of `hash` in a table of `1 << bits` slots (Fibonacci hashing: the
/// product's top bits depend on all of the hash's bits).
fn home(hash: u64, bits: u32) -> usize {
    (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// How many nodes ahead [`NodeTable::grow`] prefetches the slots it will write: enough
/// misses in flight to cover a memory load's latency.
const GROW_AHEAD: usize = 16;

/// Ask the processor to load the cache line of `x` now (a hint: nothing is read).
pub fn prefetch_at<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing, and the address is a live
    // value's.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast(),
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// What a [`NodeTable`] allocates, emptied, for the next search to fill again
/// ([`NodeTable::with_buffers`], [`NodeTable::into_buffers`]).  The expert plays hundreds
/// of mission searches a deal, and each one's table, arena and lists grew from nothing
/// and were given back: large blocks go back to the system, so every search paid again
/// for fresh zeroed pages and their faults (a fifth of the expert's time, in the kernel).
pub struct NodeBuffers<G> {
    slots: Vec<Entry>,
    keys: Vec<u8>,
    best: Vec<G>,
    parents: Vec<(u32, Option<Action>, i32)>,
}

impl<G> Default for NodeBuffers<G> {
    fn default() -> Self {
        NodeBuffers {
            slots: Vec::new(),
            keys: Vec::new(),
            best: Vec::new(),
            parents: Vec::new(),
        }
    }
}

impl<G> NodeBuffers<G> {
    /// Empty each buffer, giving back those holding more than `max_bytes` (one long
    /// search must not keep its gigabytes for the short ones after it).
    pub fn trim(&mut self, max_bytes: usize) {
        trim(&mut self.slots, max_bytes);
        trim(&mut self.keys, max_bytes);
        trim(&mut self.best, max_bytes);
        trim(&mut self.parents, max_bytes);
    }
}

/// `v` emptied, and given back when its capacity is over `max_bytes`.
pub fn trim<T>(v: &mut Vec<T>, max_bytes: usize) {
    v.clear();
    if v.capacity() * std::mem::size_of::<T>() > max_bytes {
        *v = Vec::new();
    }
}

/// `v` as `n` free slots, in its own allocation when that holds them (a new one in
/// huge pages where the system gives them: the slots are probed at random).
fn free_slots(v: &mut Vec<Entry>, n: usize) {
    if v.capacity() < n {
        *v = Vec::with_capacity(n);
        crate::pages::advise_huge(v);
    }
    v.clear();
    v.resize(n, FREE);
}

impl<G: Copy + PartialOrd> NodeTable<G> {
    /// A table holding the root, node 0, at cost `g`, with room for `cap` keys.
    pub fn new(root: &[u8], g: G, cap: usize) -> Self {
        Self::with_buffers(NodeBuffers::default(), root, g, cap)
    }

    /// [`NodeTable::new`] in the buffers of an earlier table (the same table, in memory
    /// already mapped).
    pub fn with_buffers(buffers: NodeBuffers<G>, root: &[u8], g: G, cap: usize) -> Self {
        let NodeBuffers {
            mut slots,
            mut keys,
            mut best,
            mut parents,
        } = buffers;
        keys.clear();
        best.clear();
        parents.clear();
        let nodes = Nodes {
            keys,
            best,
            parents,
        };
        let bits = 10;
        free_slots(&mut slots, 1 << bits);
        let mut table = NodeTable {
            slots,
            bits,
            nodes,
            cap,
        };
        let Slot { pos, hash, .. } = table.slot(root);
        table
            .insert(pos, hash, root, g, (NO_PARENT, None, 0))
            .expect("an empty arena");
        table
    }

    /// A new node in the free slot `pos` of its key's `hash`: its id, or None when the
    /// arena is full (see `Nodes::push`).  The table doubles once it is half full.
    fn insert(
        &mut self,
        pos: usize,
        hash: u64,
        key: &[u8],
        g: G,
        parent: (u32, Option<Action>, i32),
    ) -> Option<u32> {
        let (id, at) = self.nodes.push(key, g, parent)?;
        self.slots[pos] = Entry {
            tag: tag(hash),
            id,
            at,
        };
        if 2 * self.nodes.best.len() > self.slots.len() {
            self.grow();
        }
        Some(id)
    }

    /// The table's buffers, for [`NodeTable::with_buffers`].
    pub fn into_buffers(self) -> NodeBuffers<G> {
        NodeBuffers {
            slots: self.slots,
            keys: self.nodes.keys,
            best: self.nodes.best,
            parents: self.nodes.parents,
        }
    }

    /// The cheapest cost known for node `id`.
    pub fn best(&self, id: u32) -> G {
        self.nodes.best[id as usize]
    }

    /// The hash the table files `key` under.
    pub fn hash(key: &[u8]) -> u64 {
        FxBuildHasher.hash_one(key)
    }

    /// Ask the processor to load the first slot of `hash` now: a node's successors are
    /// hashed first, their slots loaded together, then probed one by one, so that their
    /// cache misses overlap instead of coming one after another.
    pub fn prefetch(&self, hash: u64) {
        prefetch_at(&self.slots[home(hash, self.bits)]);
    }

    /// Whether `hash`'s probe will likely find a node: its slots (prefetched by
    /// [`NodeTable::keys_into`]) are read for a tag of `hash` without comparing keys, and
    /// for each one met its key and cost are asked for, which the probe and
    /// [`Slot::known_at`] read next.  A hint only, for what to prefetch: a search asks the
    /// heuristic's memo slot of a successor's estimate only for a successor that is
    /// likely new (most of those that are found are known at their cost and never
    /// estimated), and a found successor's key and cost, read one after another, were
    /// each a cache miss the search waited on.
    pub fn prefetch_node(&self, hash: u64) -> bool {
        let mask = self.slots.len() - 1;
        let mut pos = home(hash, self.bits);
        let mut found = false;
        loop {
            let e = self.slots[pos];
            if e.id == EMPTY {
                return found;
            }
            if e.tag == tag(hash) {
                prefetch_at(&self.nodes.keys[e.at as usize]);
                prefetch_at(&self.nodes.best[e.id as usize]);
                found = true;
            }
            pos = (pos + 1) & mask;
        }
    }

    /// The canonical key and hash of each successor that `wanted` keeps (none for the
    /// others) into `out`, every slot prefetched: the successors' probes then find their
    /// slots in cache.  `key_into` appends a state's key to a byte arena.
    pub fn keys_into(
        &self,
        successors: &[(Action, State)],
        key_into: impl Fn(&State, &mut Vec<u8>),
        wanted: impl Fn(&State) -> bool,
        out: &mut Keys,
    ) {
        out.bytes.clear();
        out.spans.clear();
        for (_, s2) in successors {
            if !wanted(s2) {
                out.spans.push(None);
                continue;
            }
            let start = out.bytes.len();
            key_into(s2, &mut out.bytes);
            let hash = Self::hash(&out.bytes[start..]);
            self.prefetch(hash);
            out.spans
                .push(Some((start as u32, out.bytes.len() as u32, hash)));
        }
    }

    /// Where the state of `key` stands: one probe finds its node or the place for it.
    pub fn slot<'t>(&'t mut self, key: &'t [u8]) -> Slot<'t, G> {
        self.slot_hashed(key, Self::hash(key))
    }

    /// [`NodeTable::slot`] of a key whose [`NodeTable::hash`] is `hash`.
    pub fn slot_hashed<'t>(&'t mut self, key: &'t [u8], hash: u64) -> Slot<'t, G> {
        let mask = self.slots.len() - 1;
        let mut pos = home(hash, self.bits);
        loop {
            let e = self.slots[pos];
            if e.id == EMPTY {
                return Slot {
                    table: self,
                    key,
                    hash,
                    pos,
                    found: None,
                };
            }
            if e.tag == tag(hash) && self.nodes.holds(e.at, key) {
                return Slot {
                    table: self,
                    key,
                    hash,
                    pos,
                    found: Some(e.id),
                };
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Twice the slots, every node placed again by its key's hash, the keys read in the
    /// arena's order (node 0's first, each after the one before).  The slots written are
    /// all over the new table, so a second cursor [`GROW_AHEAD`] keys ahead asks for each
    /// node's first slot early: placed one after another, the writes waited on their
    /// cache misses one at a time (a twentieth of the expert's CPU).
    fn grow(&mut self) {
        self.bits += 1;
        let mask = (1usize << self.bits) - 1;
        free_slots(&mut self.slots, 1 << self.bits);
        let n = self.nodes.best.len();
        let mut ahead = 0;
        for _ in 0..GROW_AHEAD.min(n) {
            let key = self.nodes.key(ahead);
            self.prefetch(Self::hash(key));
            ahead += 1 + key.len();
        }
        let mut at = 0;
        for id in 0..n {
            if id + GROW_AHEAD < n {
                let key = self.nodes.key(ahead);
                self.prefetch(Self::hash(key));
                ahead += 1 + key.len();
            }
            let key = self.nodes.key(at);
            let hash = Self::hash(key);
            let mut pos = home(hash, self.bits);
            while self.slots[pos].id != EMPTY {
                pos = (pos + 1) & mask;
            }
            self.slots[pos] = Entry {
                tag: tag(hash),
                id: id as u32,
                at: at as u32,
            };
            at += 1 + key.len();
        }
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
    table: &'a mut NodeTable<G>,
    key: &'a [u8],
    hash: u64,
    /// the slot that holds the key, or the free slot where it goes
    pos: usize,
    found: Option<u32>,
}

impl<G: Copy + PartialOrd> Slot<'_, G> {
    /// Whether the state is known already at cost `g` or less (nothing to gain from it).
    pub fn known_at(&self, g: G) -> bool {
        self.found
            .is_some_and(|id| self.table.nodes.best[id as usize] <= g)
    }

    /// Record the state at cost `g`, reached from node `parent` by `action` made in a
    /// state of translation `shift`: its node id (a known node is re-opened).  A new key
    /// beyond the table's cap (or its arena's reach) is `Stop::Limit` (a search needs
    /// every entry to rebuild its plans).
    pub fn record(self, g: G, parent: u32, action: Action, shift: i32) -> Result<u32, Stop> {
        let step = (parent, Some(action), shift);
        let table = self.table;
        if let Some(id) = self.found {
            table.nodes.best[id as usize] = g;
            table.nodes.parents[id as usize] = step;
            return Ok(id);
        }
        if table.nodes.best.len() >= table.cap {
            return Err(Stop::Limit);
        }
        table
            .insert(self.pos, self.hash, self.key, g, step)
            .ok_or(Stop::Limit)
    }
}
