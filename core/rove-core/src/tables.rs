//! Exact move-only distance tables (ROVE's endgame tablebases).
//!
//! Once no ability can change the layout any more, the only way to complete a mission
//! is to move modules, one point a move, until the layout matches the pattern.  The
//! fewest moves from a layout is then a function of the layout alone (up to
//! translation, as pattern matching is), of the arrows each module moves by (its side,
//! given the spent set; a Sensor still unspent may flip at any moment, see
//! [`free_flips`]) and of the pattern.  A [`Table`] holds that number for *every*
//! layout of the deck's modules: one byte a layout, filled by one backward
//! breadth-first search from the layouts that match (the chess tablebases' retrograde
//! analysis).
//!
//! **Index.**  A layout of `n` modules is valid when its cells form one king-connected
//! group, so up to translation it is a *shape* (a fixed polyplet: 3,832 of them for six
//! cells) and a labelling of the shape's cells by the modules (`n!` of them): the index
//! is `shape * n! + rank`, with the shapes in a fixed order (by their occupancy mask) and
//! the labelling ranked by its Lehmer code.  Six modules give 2,759,040 layouts: a table
//! is 2.7 MB.  Tables are built for 2 to [`MAX_TABLE_MODULES`] modules only.
//!
//! **Backward search.**  Moves are not reversible in general (a jump needs a module to
//! jump over, a short or push arrow goes one cell, spent sides may move by other arrows,
//! a push drags a chain), so the search asks for *predecessors*: the layouts from which
//! one legal move reaches a given one.  [`predecessors`] generates them arrow kind by
//! arrow kind as the inverse of `rules::module_moves`; the unit tests hold it to the
//! forward successor generation on random layouts of every arrow kind.
//!
//! **When.**  A search switches a table on only after it has asked for its distances
//! [`ACTIVATE_AFTER`] times (see there): the bound, hence the nodes and the answer, of a
//! solve never depend on which tables earlier solves left resident.
//!
//! **Memory.**  A [`TableCache`] keeps at most [`MAX_RESIDENT`] tables (so at most
//! `MAX_RESIDENT * 2,759,040` bytes, 66 MB, for six modules) and drops the least
//! recently used one to make room; its layout index adds the shape moves (2 bytes per
//! shape, cell slot and frame cell: 4.6 MB for six modules).  A table is a pure function of its key, so eviction
//! costs a rebuild, never a different answer (nor a different node count).
//!
//! **Shared.**  A table depends on the modules' arrows, the pattern and the spent bits
//! that change arrows, never on the cards' points, so decks that differ only in their
//! numbers (`rove tune`'s candidates, a check's deck beside its variants) need the same
//! tables.  Every cache of the process finds them in one store, [`SHARED_KEPT`] at most,
//! keyed by exactly those inputs: a table built for one deck is not built again for the
//! next.  A table is a pure function of that key, so sharing changes no distance, and a
//! search's bound never depends on which tables are resident (see **When**).

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use crate::deck::{ArrowKind, Deck, Pattern, MAX_MODULES};
use crate::grid::{pack, unpack, valid, Cell, Layout, NB};

/// Tables are built for layouts of at most this many modules (seven would take 119 MB
/// a table).
pub const MAX_TABLE_MODULES: usize = 6;
/// Tables a cache keeps at once.
pub const MAX_RESIDENT: usize = 24;
/// Tables the process-wide store keeps for other caches to find (see **Shared**).
pub const SHARED_KEPT: usize = 24;
/// The byte of a layout from which no sequence of moves reaches the pattern.
pub const UNREACHABLE: u8 = u8::MAX;
/// Distances are stored up to this value; a layout further away stores it too (a
/// lower bound, still sound for pruning).  No table met so far comes near it.
pub const MAX_STORED: u8 = u8::MAX - 1;

/// Side of the square a shape's occupancy mask covers (shapes of up to 6 cells fit).
const GRID: i32 = 8;

/// Every layout of `n` modules up to translation, indexed.
pub struct LayoutIndex {
    n: usize,
    /// Per shape, its cells as (x, y) offsets from its bounding box's corner, in mask
    /// order (row by row, then by column: the packed cells' order).
    shapes: Vec<[(i8, i8); MAX_TABLE_MODULES]>,
    by_mask: FxHashMap<u64, u32>,
    /// `factorial[k]` = k!
    factorial: [u32; MAX_TABLE_MODULES + 1],
    /// Per shape, cell slot and frame cell (see [`FRAME`]): where the module on that
    /// slot may go with the layout staying valid, as the shape that results and where
    /// its corner lies (see [`LayoutIndex::moved`]); 0 where the layout would not be
    /// valid.  Validity and the new shape depend on the cells alone, never on which
    /// module stands where, so the backward search of every table looks them up here
    /// instead of testing each candidate layout.
    moves: Vec<u16>,
}

/// Frame cells run from -1 to GRID on each axis around a shape's bounding box (a
/// module that moves and keeps touching the others lands at most one cell outside).
const FRAME: i32 = GRID + 2;

impl LayoutIndex {
    /// The index of `n`-module layouts (2 <= n <= MAX_TABLE_MODULES).
    pub fn new(n: usize) -> Self {
        assert!(
            (2..=MAX_TABLE_MODULES).contains(&n),
            "tables hold 2 to {MAX_TABLE_MODULES} modules"
        );
        // grow the fixed polyplets cell by cell, each normalised to its bounding box
        let mut masks: Vec<u64> = vec![1];
        for _ in 1..n {
            let mut next: Vec<u64> = Vec::new();
            for &m in &masks {
                let cells = mask_cells(m);
                for &(x, y) in &cells {
                    for d in 0..8 {
                        let (nx, ny) = (x + crate::grid::DX[d], y + crate::grid::DY[d]);
                        if cells.contains(&(nx, ny)) {
                            continue;
                        }
                        let mut grown = cells.clone();
                        grown.push((nx, ny));
                        next.push(normalised_mask(&grown));
                    }
                }
            }
            next.sort_unstable();
            next.dedup();
            masks = next;
        }
        let mut shapes = Vec::with_capacity(masks.len());
        let mut by_mask = FxHashMap::default();
        for (i, &m) in masks.iter().enumerate() {
            let mut cells = [(0i8, 0i8); MAX_TABLE_MODULES];
            for (k, (x, y)) in mask_cells(m).into_iter().enumerate() {
                cells[k] = (x as i8, y as i8);
            }
            shapes.push(cells);
            by_mask.insert(m, i as u32);
        }
        let mut factorial = [1u32; MAX_TABLE_MODULES + 1];
        for k in 1..=MAX_TABLE_MODULES {
            factorial[k] = factorial[k - 1] * k as u32;
        }
        let mut index = LayoutIndex {
            n,
            shapes,
            by_mask,
            factorial,
            moves: Vec::new(),
        };
        index.moves = index.shape_moves();
        index
    }

    /// The [`LayoutIndex::moves`] table: every shape, slot and frame cell tried once.
    fn shape_moves(&self) -> Vec<u16> {
        let n = self.n;
        assert!(
            self.shapes.len() < 1 << 12,
            "a shape and its corner fit 16 bits"
        );
        let per_shape = MAX_TABLE_MODULES * (FRAME * FRAME) as usize;
        let mut moves = vec![0u16; self.shapes.len() * per_shape];
        let mut cells = [(0i32, 0i32); MAX_TABLE_MODULES];
        for (s, shape) in self.shapes.iter().enumerate() {
            for slot in 0..n {
                for ey in -1..GRID + 1 {
                    for ex in -1..GRID + 1 {
                        let mut touches = false;
                        let mut free = true;
                        for (k, &(x, y)) in shape[..n].iter().enumerate() {
                            let (x, y) = (i32::from(x), i32::from(y));
                            if k != slot {
                                free &= (x, y) != (ex, ey);
                                touches |= (x - ex).abs() <= 1 && (y - ey).abs() <= 1;
                            }
                            cells[k] = (x, y);
                        }
                        if !free || !touches {
                            continue;
                        }
                        cells[slot] = (ex, ey);
                        let mut packed = [0 as Cell; MAX_TABLE_MODULES];
                        for (p, &(x, y)) in packed.iter_mut().zip(&cells[..n]) {
                            *p = pack(x, y);
                        }
                        if !valid(&packed[..n]) {
                            continue;
                        }
                        let x0 = cells[..n].iter().map(|c| c.0).min().unwrap_or(0);
                        let y0 = cells[..n].iter().map(|c| c.1).min().unwrap_or(0);
                        let x1 = cells[..n].iter().map(|c| c.0).max().unwrap_or(0);
                        let y1 = cells[..n].iter().map(|c| c.1).max().unwrap_or(0);
                        if x1 - x0 >= GRID || y1 - y0 >= GRID {
                            continue;
                        }
                        let Some(&to) = self.by_mask.get(&normalised_mask(&cells[..n])) else {
                            continue;
                        };
                        let at = s * per_shape
                            + slot * (FRAME * FRAME) as usize
                            + ((ey + 1) * FRAME + ex + 1) as usize;
                        moves[at] =
                            ((to + 1) << 4 | ((x0 + 1) as u32) << 2 | (y0 + 1) as u32) as u16;
                    }
                }
            }
        }
        moves
    }

    /// The index of the layout `index` (decoded into `xy`, frame cells relative to its
    /// corner, and `slot`, each module's place in its shape) becomes when module `i`
    /// goes to frame cell `to`: None when that layout is not valid.
    #[inline]
    fn moved(
        &self,
        shape: u32,
        xy: &[(i32, i32)],
        slot: &[usize],
        i: usize,
        to: (i32, i32),
    ) -> Option<u32> {
        if !(-1..GRID + 1).contains(&to.0) || !(-1..GRID + 1).contains(&to.1) {
            return None;
        }
        let per_shape = MAX_TABLE_MODULES * (FRAME * FRAME) as usize;
        let entry = u32::from(
            self.moves[shape as usize * per_shape
                + slot[i] * (FRAME * FRAME) as usize
                + ((to.1 + 1) * FRAME + to.0 + 1) as usize],
        );
        if entry == 0 {
            return None;
        }
        let (x0, y0) = ((entry >> 2 & 3) as i32 - 1, (entry & 3) as i32 - 1);
        let mut pos = [0u32; MAX_TABLE_MODULES];
        for (j, &(x, y)) in xy.iter().enumerate() {
            let (x, y) = if j == i { to } else { (x, y) };
            pos[j] = ((x - x0) + GRID * (y - y0)) as u32;
        }
        Some(((entry >> 4) - 1) * self.factorial[self.n] + self.rank(&pos[..self.n]))
    }

    /// The Lehmer code of a labelling: per module, how many later modules stand on
    /// cells earlier in mask order (its cell's place among the cells not yet taken).
    #[inline]
    fn rank(&self, pos: &[u32]) -> u32 {
        let n = pos.len();
        let mut later = 0u64;
        let mut rank = 0u32;
        for j in (0..n).rev() {
            let smaller = (later & ((1u64 << pos[j]) - 1)).count_ones();
            rank += smaller * self.factorial[n - 1 - j];
            later |= 1 << pos[j];
        }
        rank
    }

    /// The layout of an index as frame cells (x, y) relative to its corner, and each
    /// module's slot in its shape; returns the shape.
    fn decode(&self, index: u32, xy: &mut [(i32, i32)], slot: &mut [usize]) -> u32 {
        let n = self.n;
        let fact = self.factorial[n];
        let s = index / fact;
        let shape = &self.shapes[s as usize];
        let mut rank = index % fact;
        // decode the Lehmer code: module j takes the `digit`-th free slot
        let mut free: [u8; MAX_TABLE_MODULES] = [0, 1, 2, 3, 4, 5];
        let mut left = n;
        for j in 0..n {
            let f = self.factorial[n - 1 - j];
            let digit = (rank / f) as usize;
            rank %= f;
            let k = free[digit] as usize;
            free.copy_within(digit + 1..left, digit);
            left -= 1;
            slot[j] = k;
            xy[j] = (i32::from(shape[k].0), i32::from(shape[k].1));
        }
        s
    }

    pub fn n(&self) -> usize {
        self.n
    }

    pub fn shapes(&self) -> usize {
        self.shapes.len()
    }

    /// Layouts in the index: shapes times labellings.
    pub fn len(&self) -> usize {
        self.shapes.len() * self.factorial[self.n] as usize
    }

    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// The index of a valid layout (None: not a valid layout of `n` modules).
    pub fn index(&self, cells: &[Cell]) -> Option<u32> {
        let n = self.n;
        if cells.len() != n {
            return None;
        }
        let mut xy = [(0i32, 0i32); MAX_TABLE_MODULES];
        let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
        for (j, &c) in cells.iter().enumerate() {
            let (x, y) = unpack(c);
            xy[j] = (x, y);
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x1 - x0 >= GRID || y1 - y0 >= GRID {
            return None;
        }
        let mut pos = [0u32; MAX_TABLE_MODULES];
        let mut mask = 0u64;
        for j in 0..n {
            pos[j] = ((xy[j].0 - x0) + GRID * (xy[j].1 - y0)) as u32;
            mask |= 1 << pos[j];
        }
        if mask.count_ones() as usize != n {
            return None;
        }
        let shape = *self.by_mask.get(&mask)?;
        Some(shape * self.factorial[n] + self.rank(&pos[..n]))
    }

    /// The layout of an index, with its bounding box's corner at (0, 0).
    pub fn layout(&self, index: u32, out: &mut [Cell]) {
        let n = self.n;
        let mut xy = [(0i32, 0i32); MAX_TABLE_MODULES];
        let mut slot = [0usize; MAX_TABLE_MODULES];
        self.decode(index, &mut xy[..n], &mut slot[..n]);
        for (cell, &(x, y)) in out.iter_mut().zip(&xy[..n]) {
            *cell = pack(x, y);
        }
    }
}

fn mask_cells(m: u64) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    let mut left = m;
    while left != 0 {
        let b = left.trailing_zeros() as i32;
        left &= left - 1;
        out.push((b % GRID, b / GRID));
    }
    out
}

fn normalised_mask(cells: &[(i32, i32)]) -> u64 {
    let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
    cells
        .iter()
        .fold(0u64, |m, &(x, y)| m | 1 << ((x - x0) + GRID * (y - y0)))
}

/// Call `f` with the index of every layout from which one move of some module (by the
/// arrows of its side under `spent`) gives the layout `at`: [`predecessors`], on the
/// index's precomputed shape moves (the same layouts, each given as often).  A push
/// that drags a chain goes through [`predecessors`]' own test.
pub fn predecessor_indices(
    deck: &Deck,
    spent: u32,
    index: &LayoutIndex,
    at: u32,
    mut f: impl FnMut(u32),
) {
    let n = index.n();
    let mut xy = [(0i32, 0i32); MAX_TABLE_MODULES];
    let mut slot = [0usize; MAX_TABLE_MODULES];
    let shape = index.decode(at, &mut xy[..n], &mut slot[..n]);
    let mut occupied = 0u64;
    for &(x, y) in &xy[..n] {
        occupied |= 1 << (x + GRID * y);
    }
    let occ = |x: i32, y: i32| {
        (0..GRID).contains(&x) && (0..GRID).contains(&y) && occupied >> (x + GRID * y) & 1 == 1
    };
    for i in 0..n {
        let side = (spent >> i & 1) as usize;
        let (hx, hy) = xy[i];
        for arrow in &deck.modules[i].arrows[side] {
            let (dx, dy) = (
                crate::grid::DX[arrow.dir as usize],
                crate::grid::DY[arrow.dir as usize],
            );
            match arrow.kind {
                ArrowKind::Short => {
                    if let Some(p) = index.moved(shape, &xy[..n], &slot[..n], i, (hx - dx, hy - dy))
                    {
                        f(p);
                    }
                }
                ArrowKind::Standard | ArrowKind::Jump => {
                    let jump = arrow.kind == ArrowKind::Jump;
                    let mut over = false;
                    for k in 1..FRAME + 1 {
                        let from = (hx - dx * k, hy - dy * k);
                        if !(-1..GRID + 1).contains(&from.0) || !(-1..GRID + 1).contains(&from.1) {
                            break;
                        }
                        if !jump || over {
                            if let Some(p) = index.moved(shape, &xy[..n], &slot[..n], i, from) {
                                f(p);
                            }
                        }
                        over |= occ(from.0, from.1);
                    }
                }
                ArrowKind::Push => {
                    let from = (hx - dx, hy - dy);
                    if let Some(p) = index.moved(shape, &xy[..n], &slot[..n], i, from) {
                        f(p);
                    }
                    if occ(from.0, from.1) {
                        continue;
                    }
                    let mut cells = [0 as Cell; MAX_MODULES];
                    for (c, &(x, y)) in cells.iter_mut().zip(&xy[..n]) {
                        *c = pack(x, y);
                    }
                    push_chains(&cells[..n], i, NB[arrow.dir as usize], |p| {
                        if let Some(p) = index.index(p) {
                            f(p);
                        }
                    });
                }
            }
        }
    }
}

/// The push predecessors of `cells` by module `i`'s push arrow `off` that dragged a
/// chain: the `m >= 1` modules in a row after `i`'s cell each came from one cell further
/// back, and `i` from one cell behind its own (see [`predecessors`]); the valid ones
/// only.  The caller has checked that the cell behind `i` is empty.
fn push_chains(cells: &[Cell], i: usize, off: Cell, mut f: impl FnMut(&[Cell])) {
    let n = cells.len();
    let mut chain = [0 as Cell; MAX_MODULES];
    chain[..n].copy_from_slice(cells);
    chain[i] = cells[i] - off;
    let mut c = cells[i] + off;
    while let Some(j) = cells.iter().position(|&d| d == c) {
        chain[j] = c - off;
        if valid(&chain[..n]) {
            f(&chain[..n]);
        }
        c += off;
    }
}

/// Call `f` with every layout from which one move of some module (by the arrows of its
/// side under `spent`) gives `cells`, a valid layout.  A layout may be given more than
/// once.  The inverse of `rules::module_moves` + `apply_arrow`:
///
/// * standard: the module came from `k >= 1` cells back along the arrow (any cell, the
///   cells between are not looked at); short: from one cell back; jump: from `k >= 2`
///   cells back with a module on some cell strictly between;
/// * push: from one cell back, either onto an empty cell (then like short) or pushing a
///   chain: the `m >= 1` modules on the cells right after its landing cell, in a row,
///   each came from one cell further back (the forward chain is every module in a row
///   from the landing cell, and the cell after the last one was empty, as it is here
///   once the chain steps back);
///
/// and in each case the earlier layout is valid (the move's own legality then holds:
/// the landing cell was empty, or held the chain, and the result is `cells`, valid).
pub fn predecessors(deck: &Deck, spent: u32, cells: &[Cell], mut f: impl FnMut(&[Cell])) {
    let n = cells.len();
    let mut prev = [0 as Cell; MAX_MODULES];
    let occupied = |c: Cell| cells.contains(&c);
    // where each module alone may go with the layout staying valid (the cell empty and
    // touching every group the others form without it)
    let layout = Layout::new(cells);
    let mut single = |i: usize, from: Cell, f: &mut dyn FnMut(&[Cell])| {
        if layout.can_place(i, from) {
            prev[..n].copy_from_slice(cells);
            prev[i] = from;
            f(&prev[..n]);
        }
    };
    for i in 0..n {
        let side = (spent >> i & 1) as usize;
        let here = cells[i];
        // a module's earlier cell touches one of the others: it lies in their bounding
        // box grown by one (convex, and holding `here`)
        let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
        for (j, &c) in cells.iter().enumerate() {
            if j != i {
                let (x, y) = unpack(c);
                (x0, x1, y0, y1) = (x0.min(x - 1), x1.max(x + 1), y0.min(y - 1), y1.max(y + 1));
            }
        }
        let inside = |c: Cell| {
            let (x, y) = unpack(c);
            x0 <= x && x <= x1 && y0 <= y && y <= y1
        };
        for arrow in &deck.modules[i].arrows[side] {
            let off = NB[arrow.dir as usize];
            match arrow.kind {
                ArrowKind::Short => single(i, here - off, &mut f),
                ArrowKind::Standard | ArrowKind::Jump => {
                    let mut k = if arrow.kind == ArrowKind::Jump { 2 } else { 1 };
                    loop {
                        let from = here - off * k;
                        if !inside(from) {
                            break;
                        }
                        if arrow.kind == ArrowKind::Standard
                            || (1..k).any(|m| occupied(here - off * m))
                        {
                            single(i, from, &mut f);
                        }
                        k += 1;
                    }
                }
                ArrowKind::Push => {
                    let from = here - off;
                    single(i, from, &mut f);
                    if occupied(from) {
                        continue;
                    }
                    push_chains(cells, i, off, &mut f);
                }
            }
        }
    }
}

/// The fewest moves from every layout to one matching a pattern.
pub struct Table {
    dist: Vec<u8>,
}

impl Table {
    /// Build by backward search from every matching layout, a use of each Sensor still
    /// unspent counted as free (see [`free_flips`]): the tables of the spent sets with
    /// those flips made are built first.
    pub fn build(deck: &Deck, index: &LayoutIndex, pattern: &Pattern, spent: u32) -> Table {
        let mut seeds = Table::seeds(index, pattern);
        for m in bits(free_flips(deck, spent)) {
            Table::build(deck, index, pattern, spent | 1 << m).lower(&mut seeds);
        }
        Table::search(deck, index, spent, seeds)
    }

    /// 0 for every layout matching `pattern`, [`UNREACHABLE`] for the others.
    pub(crate) fn seeds(index: &LayoutIndex, pattern: &Pattern) -> Vec<u8> {
        let n = index.n();
        let mut cells = [0 as Cell; MAX_MODULES];
        (0..index.len() as u32)
            .map(|k| {
                index.layout(k, &mut cells[..n]);
                if pattern.matches(&cells[..n]) {
                    0
                } else {
                    UNREACHABLE
                }
            })
            .collect()
    }

    /// Lower `seeds` to this table's distances where they are smaller: this table is
    /// the spent set after a free flip, which leaves the layout where it is.
    fn lower(&self, seeds: &mut [u8]) {
        for (s, &d) in seeds.iter_mut().zip(&self.dist) {
            *s = (*s).min(d);
        }
    }

    /// The backward search from `seeds` (each layout's distance if no move is made
    /// first: 0 where the layout matches, a flipped table's distance, or
    /// [`UNREACHABLE`]) by the moves `spent` gives, one point each.  The seeds differ,
    /// so layouts wait in one bucket per distance (Dial's algorithm), settled in
    /// increasing order; with only 0 and [`UNREACHABLE`] seeds this is the plain
    /// breadth-first search.
    pub(crate) fn search(deck: &Deck, index: &LayoutIndex, spent: u32, mut dist: Vec<u8>) -> Table {
        let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); usize::from(MAX_STORED) + 1];
        for (k, &d) in dist.iter().enumerate() {
            if d != UNREACHABLE {
                buckets[usize::from(d)].push(k as u32);
            }
        }
        let mut level = 0usize;
        while level < buckets.len() {
            let frontier = std::mem::take(&mut buckets[level]);
            if frontier.is_empty() {
                level += 1;
                continue;
            }
            // a layout further than MAX_STORED stores MAX_STORED (a lower bound)
            let next = (level + 1).min(usize::from(MAX_STORED));
            for &k in &frontier {
                if usize::from(dist[k as usize]) != level {
                    continue; // settled at a smaller distance since it was queued
                }
                predecessor_indices(deck, spent, index, k, |j| {
                    if usize::from(dist[j as usize]) > next {
                        dist[j as usize] = next as u8;
                        buckets[next].push(j);
                    }
                });
            }
        }
        Table { dist }
    }

    /// The stored byte of a layout index.
    pub fn get(&self, index: u32) -> u8 {
        self.dist[index as usize]
    }

    /// Bytes the table takes.
    pub fn bytes(&self) -> usize {
        self.dist.len()
    }

    /// How many layouts hold each stored value (for tests and benchmarks).
    pub fn histogram(&self) -> [u64; 256] {
        let mut h = [0u64; 256];
        for &d in &self.dist {
            h[d as usize] += 1;
        }
        h
    }
}

/// The unspent modules of `spent` whose use a table counts as free: Sensors whose flip
/// changes their arrows.  A Sensor's use draws a card and flips it; it never moves a
/// module, so the fewest points to a matching layout, where the Sensor may be flipped
/// at any moment for nothing, is still a function of the layout alone.  (A Sensor whose
/// flip keeps its arrows changes nothing a table sees: its bit is not in the key.)
pub fn free_flips(deck: &Deck, spent: u32) -> u32 {
    deck.layout_free() & deck.flip_mask() & !spent
}

/// The set bits of a mask, lowest first.
fn bits(mask: u32) -> impl Iterator<Item = u32> {
    (0..32).filter(move |b| mask >> b & 1 == 1)
}

/// What a cache did during one solve: distances asked for (of layout-inert states),
/// tables the solve switched on, and tables built for it (a table already resident
/// from an earlier solve, of the deck or of another whose modules move alike, is used
/// without a build).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    pub probes: u64,
    pub used: u64,
    pub built: u64,
}

/// A solve asks for a table's distances this many times before the table is switched on
/// for it: a table costs a few seconds to build, the cost of a few hundred thousand
/// nodes, so a search that ends sooner (most wins, the expert's short mission
/// searches) never pays for one.  Counting asks, not time or residency, keeps a solve's
/// bounds, and so its nodes and answer, a function of the solve alone.
pub const ACTIVATE_AFTER: u64 = 400_000;

/// The process's tables by what each is a function of (see **Shared** in the module's
/// documentation), with the tick of their last use, the least recently used dropped
/// past [`SHARED_KEPT`]; and the layout index of each module count, built once.
struct Shared {
    tables: FxHashMap<String, (Arc<Table>, u64)>,
    indexes: Vec<(usize, Arc<LayoutIndex>)>,
    clock: u64,
}

static SHARED: Mutex<Option<Shared>> = Mutex::new(None);

/// Run `f` on the process's store (a poisoned lock only means another thread panicked
/// while holding it; the store holds finished tables only, so it is still sound).
fn with_shared<T>(f: impl FnOnce(&mut Shared) -> T) -> T {
    let mut guard = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    let shared = guard.get_or_insert_with(|| Shared {
        tables: FxHashMap::default(),
        indexes: Vec::new(),
        clock: 0,
    });
    f(shared)
}

/// The layout index of `n` modules, built once per process.
fn shared_index(n: usize) -> Arc<LayoutIndex> {
    if let Some(found) = with_shared(|sh| {
        sh.indexes
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, i)| Arc::clone(i))
    }) {
        return found;
    }
    let built = Arc::new(LayoutIndex::new(n));
    with_shared(|sh| {
        if let Some((_, i)) = sh.indexes.iter().find(|(k, _)| *k == n) {
            return Arc::clone(i); // another thread was first
        }
        sh.indexes.push((n, Arc::clone(&built)));
        built
    })
}

/// The stored table of `key`, marked as just used.
fn shared_table(key: &str) -> Option<Arc<Table>> {
    with_shared(|sh| {
        sh.clock += 1;
        let tick = sh.clock;
        sh.tables.get_mut(key).map(|(t, used)| {
            *used = tick;
            Arc::clone(t)
        })
    })
}

/// Keep `table` under `key`, dropping the least recently used past [`SHARED_KEPT`].
fn share_table(key: String, table: &Arc<Table>) {
    with_shared(|sh| {
        sh.clock += 1;
        if sh.tables.len() >= SHARED_KEPT && !sh.tables.contains_key(&key) {
            if let Some(oldest) = sh
                .tables
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone())
            {
                sh.tables.remove(&oldest);
            }
        }
        sh.tables.insert(key, (Arc::clone(table), sh.clock));
    });
}

/// Table keys: (mission card, spent bits that change arrows), as one number below
/// [`KEYS`] (a deck the tables support has at most six modules, so 64 spent sets).
const KEYS: usize = crate::state::MAX_CARDS << MAX_TABLE_MODULES;

/// A deck's tables, built on demand, at most [`MAX_RESIDENT`] at once.
///
/// Every probe of a search goes through here (tens of millions a minute), so per key
/// the asks and the resident table's slot sit in flat arrays, not hash maps.
pub struct TableCache {
    index: Option<Arc<LayoutIndex>>,
    /// what every table of the deck depends on besides its pattern and spent bits: the
    /// modules' arrows on both sides and which of them are free to flip (the store's key)
    moves: String,
    /// resident tables: (key, table, last use)
    resident: Vec<(usize, Arc<Table>, u64)>,
    /// per key: its place in `resident` plus one (0: not resident)
    slot: Vec<u8>,
    /// spent bits of modules whose flip changes their arrows
    flip_mask: u32,
    clock: u64,
    /// this solve: asks after which a table is switched on (0: never), and per key the
    /// asks so far
    after: u64,
    asks: Vec<u64>,
    stats: TableStats,
}

impl TableCache {
    pub fn new(deck: &Deck) -> Self {
        let flip_mask = deck.flip_mask();
        let arrows: Vec<_> = deck.modules.iter().map(|m| &m.arrows).collect();
        let moves = format!("{arrows:?} flip {flip_mask} free {}", deck.layout_free());
        TableCache {
            index: None,
            moves,
            resident: Vec::new(),
            slot: vec![0; KEYS],
            flip_mask,
            clock: 0,
            after: ACTIVATE_AFTER,
            asks: vec![0; KEYS],
            stats: TableStats::default(),
        }
    }

    /// Whether the deck's layouts fit the tables.
    pub fn supports(deck: &Deck) -> bool {
        (2..=MAX_TABLE_MODULES).contains(&deck.n())
    }

    fn key(&self, mission: u8, spent: u32) -> usize {
        (mission as usize) << MAX_TABLE_MODULES | (spent & self.flip_mask) as usize
    }

    /// A new solve begins: its counts start from zero, and a table is switched on once
    /// it has been asked for `after` times (0: never; tests and benchmarks use 1).
    pub fn start_solve(&mut self, after: u64) {
        self.after = after;
        self.asks.fill(0);
        self.stats = TableStats::default();
    }

    /// This solve's figures.
    pub fn stats(&self) -> TableStats {
        self.stats
    }

    pub fn resident(&self) -> usize {
        self.resident.len()
    }

    /// A search asks for the table of `mission` under `spent`: whether it is switched on
    /// for this solve (tables enabled, and asked for at least as many times so far as
    /// `start_solve` said).  Every ask counts, whether or not its answer is then read
    /// from a memo, so that when a table comes on depends on the solve alone.
    pub fn ask(&mut self, deck: &Deck, mission: u8, spent: u32) -> bool {
        if self.after == 0 || !Self::supports(deck) {
            return false;
        }
        self.stats.probes += 1;
        let key = self.key(mission, spent);
        self.asks[key] += 1;
        let asks = self.asks[key];
        if asks == self.after {
            self.stats.used += 1;
        }
        asks >= self.after
    }

    /// The fewest moves from `cells` to a layout matching `mission`'s pattern, moving
    /// by the sides `spent` gives (None: no sequence of moves gets there; a value of
    /// [`MAX_STORED`] means at least that many).  Builds the table if it is not
    /// resident.  Some(0) (no claim) for a layout the tables do not hold.
    pub fn distance(
        &mut self,
        deck: &Deck,
        mission: u8,
        spent: u32,
        cells: &[Cell],
    ) -> Option<u32> {
        if !Self::supports(deck) {
            return Some(0);
        }
        let n = deck.n();
        let index = self.index.get_or_insert_with(|| shared_index(n));
        let Some(at) = index.index(cells) else {
            return Some(0);
        };
        let slot = self.resident_slot(deck, mission, spent);
        match self.resident[slot].1.get(at) {
            UNREACHABLE => None,
            d => Some(u32::from(d)),
        }
    }

    /// The place in `resident` of the table of `mission` under `spent`, built now if it
    /// is not resident (the tables of its free flips first, see [`free_flips`]).
    fn resident_slot(&mut self, deck: &Deck, mission: u8, spent: u32) -> usize {
        let key = self.key(mission, spent);
        self.clock += 1;
        if self.slot[key] == 0 {
            let pattern = &deck.cards[mission as usize].mission;
            let shared_key = format!(
                "{} | {pattern:?} | spent {}",
                self.moves,
                spent & self.flip_mask
            );
            let table = match shared_table(&shared_key) {
                Some(table) => table,
                None => {
                    let index =
                        Arc::clone(self.index.get_or_insert_with(|| shared_index(deck.n())));
                    let mut seeds = Table::seeds(&index, pattern);
                    for m in bits(free_flips(deck, spent)) {
                        let flipped = self.resident_slot(deck, mission, spent | 1 << m);
                        self.resident[flipped].1.lower(&mut seeds);
                    }
                    let table = Arc::new(Table::search(deck, &index, spent, seeds));
                    self.stats.built += 1;
                    share_table(shared_key, &table);
                    table
                }
            };
            if self.resident.len() >= MAX_RESIDENT {
                // the least recently used goes (uses are distinct clock ticks)
                let oldest = (0..self.resident.len())
                    .min_by_key(|&i| self.resident[i].2)
                    .expect("a table");
                self.slot[self.resident[oldest].0] = 0;
                self.resident[oldest] = (key, table, 0);
                self.slot[key] = oldest as u8 + 1;
            } else {
                self.resident.push((key, table, 0));
                self.slot[key] = self.resident.len() as u8;
            }
        }
        let slot = self.slot[key] as usize - 1;
        self.resident[slot].2 = self.clock;
        slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::{Ability, Arrow, Card, Module, PatCell, Rules};
    use crate::rules::successors;
    use crate::state::{Action, State};

    fn rng(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Six modules, each kind of arrow on some side, with spent sides that move by
    /// other arrows than the active ones.
    fn mixed_deck(patterns: &[&[(i32, i32, PatCell)]]) -> Deck {
        let kinds = [
            ArrowKind::Standard,
            ArrowKind::Short,
            ArrowKind::Jump,
            ArrowKind::Push,
        ];
        let abilities = [
            Ability::Brain,
            Ability::Laser,
            Ability::Sensor,
            Ability::Coil,
            Ability::Gripper,
            Ability::Motor,
        ];
        let modules = abilities
            .iter()
            .enumerate()
            .map(|(i, &ability)| {
                let side = |kind: ArrowKind, d: u8| {
                    vec![
                        Arrow { kind, dir: d },
                        Arrow {
                            kind,
                            dir: (d + 4) % 8,
                        },
                        Arrow {
                            kind: ArrowKind::Short,
                            dir: (d + 2) % 8,
                        },
                    ]
                };
                Module {
                    ability,
                    arrows: [
                        side(kinds[i % 4], i as u8 % 8),
                        side(kinds[(i + 1) % 4], (i as u8 + 3) % 8),
                    ],
                }
            })
            .collect();
        let cards = patterns
            .iter()
            .map(|p| {
                let pat = Pattern::new(p).expect("a pattern");
                Card {
                    base: 1,
                    bonus: 2,
                    mission: pat.clone(),
                    movement: pat,
                }
            })
            .collect();
        Deck::new(modules, cards, 2, Rules::default()).expect("a deck")
    }

    fn random_layout(next: &mut impl FnMut() -> u64, n: usize) -> Vec<Cell> {
        let mut cells = vec![pack(0, 0)];
        while cells.len() < n {
            let c = cells[(next() % cells.len() as u64) as usize] + NB[(next() % 8) as usize];
            if !cells.contains(&c) {
                cells.push(c);
            }
        }
        cells
    }

    /// The layouts one move gives, by the rules' own successor generation.
    fn forward(deck: &Deck, cells: &[Cell], spent: u32, index: &LayoutIndex) -> Vec<u32> {
        // a mission no layout completes here is not needed: moves are generated first
        let s = State::bare(cells, spent, 1, 0);
        let mut out: Vec<u32> = successors(deck, &s, false)
            .iter()
            .filter(|(a, _)| matches!(a, Action::Move { .. }))
            .map(|(_, s2)| index.index(s2.cells()).expect("a valid layout"))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn shape_counts_are_the_fixed_polyplets() {
        // king-connected fixed polyominoes: 1, 4, 20, 110, 638, 3832 (OEIS A006770)
        for (n, want) in [(2, 4), (3, 20), (4, 110), (5, 638), (6, 3832)] {
            assert_eq!(LayoutIndex::new(n).shapes(), want);
        }
        assert_eq!(LayoutIndex::new(6).len(), 2_759_040);
    }

    /// The one connectivity rule, `grid::valid` (a flood fill), accepts exactly the
    /// index's shapes (grown cell by cell): every `n` cells of an `n` x `n` square around
    /// the origin, negative cells included, for 2 to 5 modules.
    #[test]
    fn valid_layouts_are_exactly_the_grown_shapes() {
        fn choose(from: &[Cell], n: usize, picked: &mut Vec<Cell>, f: &mut impl FnMut(&[Cell])) {
            if picked.len() == n {
                return f(picked);
            }
            for (i, &c) in from.iter().enumerate() {
                picked.push(c);
                choose(&from[i + 1..], n, picked, f);
                picked.pop();
            }
        }
        for (n, want) in [(2, 4), (3, 20), (4, 110), (5, 638)] {
            let index = LayoutIndex::new(n);
            let side = n as i32;
            let board: Vec<Cell> = (0..side * side)
                .map(|i| pack(i % side - 2, i / side - 2))
                .collect();
            let mut shapes = std::collections::BTreeSet::new();
            choose(&board, n, &mut Vec::new(), &mut |cells| {
                let at = index.index(cells);
                assert_eq!(valid(cells), at.is_some(), "{cells:?}");
                if let Some(at) = at {
                    shapes.insert(at / index.factorial[n]);
                }
            });
            assert_eq!(shapes.len(), want);
        }
    }

    #[test]
    fn index_round_trips_and_ignores_translation() {
        let index = LayoutIndex::new(5);
        let mut cells = [0 as Cell; 5];
        for k in (0..index.len() as u32).step_by(7) {
            index.layout(k, &mut cells);
            assert!(valid(&cells));
            assert_eq!(index.index(&cells), Some(k));
            let moved: Vec<Cell> = cells.iter().map(|&c| c + pack(-3, 5)).collect();
            assert_eq!(index.index(&moved), Some(k));
        }
        assert_eq!(
            index.index(&[pack(0, 0), pack(2, 0), pack(3, 0), pack(4, 0), pack(5, 0)]),
            None
        );
    }

    /// `predecessors` is exactly the inverse of the rules' moves: on random layouts and
    /// spent sets of a deck with every arrow kind on both sides, P is a predecessor of L
    /// if and only if one move from P gives L.
    #[test]
    fn predecessors_invert_the_rules_moves() {
        let deck = mixed_deck(&[&[(0, 0, PatCell::Any)]]);
        let index = LayoutIndex::new(6);
        let mut next = rng(4242);
        for _ in 0..300 {
            let spent = (next() % 64) as u32;
            let target = random_layout(&mut next, 6);
            let t = index.index(&target).expect("valid");
            let mut got: Vec<u32> = Vec::new();
            predecessors(&deck, spent, &target, |p| {
                got.push(index.index(p).expect("a valid predecessor"))
            });
            got.sort_unstable();
            got.dedup();
            for &p in &got {
                let mut cells = [0 as Cell; 6];
                index.layout(p, &mut cells);
                assert!(
                    forward(&deck, &cells, spent, &index).contains(&t),
                    "{cells:?} does not move to {target:?}"
                );
            }
            // the other direction: every successor of a random layout lists it back
            let from = random_layout(&mut next, 6);
            let f = index.index(&from).expect("valid");
            for succ in forward(&deck, &from, spent, &index) {
                let mut cells = [0 as Cell; 6];
                index.layout(succ, &mut cells);
                let mut back = Vec::new();
                predecessors(&deck, spent, &cells, |p| {
                    back.push(index.index(p).expect("valid"))
                });
                assert!(back.contains(&f), "{from:?} -> {cells:?} spent {spent:b}");
            }
        }
    }

    /// The shape moves give the predecessors [`predecessors`] tests one by one, each as
    /// often, on random layouts and spent sets of a deck with every arrow kind on both
    /// sides, for six and for four modules.
    #[test]
    fn predecessor_indices_are_the_predecessors() {
        for n in [6, 4] {
            let mut deck = mixed_deck(&[&[(0, 0, PatCell::Any)]]);
            deck.modules.truncate(n);
            let index = LayoutIndex::new(n);
            let mut next = rng(31 + n as u64);
            for _ in 0..2000 {
                let spent = (next() % (1 << n)) as u32;
                let cells = random_layout(&mut next, n);
                let at = index.index(&cells).expect("valid");
                let mut want: Vec<u32> = Vec::new();
                predecessors(&deck, spent, &cells, |p| {
                    want.push(index.index(p).expect("a valid predecessor"))
                });
                let mut got: Vec<u32> = Vec::new();
                predecessor_indices(&deck, spent, &index, at, |p| got.push(p));
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "{cells:?} spent {spent:b}");
            }
        }
    }

    /// A table's distances are a fixed point of the forward moves and the free Sensor
    /// flip: 0 exactly on the matching layouts, and otherwise the least of one more
    /// than the least successor's and, while the Sensor (module 2, whose flip changes
    /// its arrows) is unspent, the flipped table's distance for the same layout
    /// (unreachable when neither reaches), on random layouts of several patterns and
    /// spent sets.
    #[test]
    fn distances_are_the_forward_fixed_point() {
        let e = PatCell::Empty;
        let any = PatCell::Any;
        let pats: [&[(i32, i32, PatCell)]; 3] = [
            &[
                (0, 0, PatCell::Named(0)),
                (1, 0, any),
                (2, 0, PatCell::Named(3)),
                (1, 1, e),
            ],
            &[(0, 0, any), (0, 1, any), (0, 2, any), (1, 1, e), (-1, 1, e)],
            &[
                (0, 0, PatCell::Named(5)),
                (1, 1, PatCell::Named(2)),
                (2, 2, any),
                (1, 0, e),
            ],
        ];
        let deck = mixed_deck(&pats);
        assert_eq!(free_flips(&deck, 0b111011), 0b100);
        let index = LayoutIndex::new(6);
        let mut next = rng(77);
        let mut flips_mattered = 0;
        for (m, spent) in [(0u8, 0b111111u32), (1, 0b101010), (2, 0)] {
            let pattern = &deck.cards[m as usize].mission;
            let table = Table::build(&deck, &index, pattern, spent);
            let flipped = (free_flips(&deck, spent) != 0)
                .then(|| Table::build(&deck, &index, pattern, spent | 0b100));
            let hist = table.histogram();
            assert!(
                hist[0] > 0 && hist[1] > 0 && hist[3] > 0,
                "{:?}",
                &hist[..8]
            );
            for _ in 0..2000 {
                let cells = random_layout(&mut next, 6);
                let k = index.index(&cells).expect("valid");
                let d = table.get(k);
                if pattern.matches(&cells) {
                    assert_eq!(d, 0);
                    continue;
                }
                let best = forward(&deck, &cells, spent, &index)
                    .iter()
                    .map(|&j| table.get(j))
                    .min()
                    .unwrap_or(UNREACHABLE);
                let moved = if best == UNREACHABLE {
                    UNREACHABLE
                } else {
                    best + 1
                };
                let flip = flipped.as_ref().map_or(UNREACHABLE, |t| t.get(k));
                flips_mattered += i32::from(flip < moved);
                assert_eq!(d, moved.min(flip), "{cells:?} spent {spent:b}");
            }
        }
        // the free flip is the shorter way from some of the layouts drawn
        assert!(flips_mattered > 0);
    }

    #[test]
    fn decks_that_differ_in_their_numbers_only_share_their_tables() {
        // a pattern no other test asks for, so no other test's table is in the store
        let pat: &[(i32, i32, PatCell)] = &[
            (0, 0, PatCell::Any),
            (3, 2, PatCell::Any),
            (1, 3, PatCell::Any),
        ];
        let mut modules = mixed_deck(&[pat]).modules;
        modules.truncate(4);
        let cards = mixed_deck(&[pat]).cards;
        let deck = Deck::new(modules.clone(), cards.clone(), 2, Rules::default()).expect("a deck");
        let cheaper: Vec<Card> = cards
            .iter()
            .map(|c| Card {
                base: 0,
                bonus: 5,
                ..c.clone()
            })
            .collect();
        let tuned = Deck::new(modules.clone(), cheaper, 2, Rules::default()).expect("a deck");
        let cells = [pack(0, 0), pack(1, 0), pack(2, 0), pack(2, 1)];
        let mut first = TableCache::new(&deck);
        let d = first.distance(&deck, 0, 0b100, &cells);
        assert_eq!(first.stats().built, 1);
        let mut second = TableCache::new(&tuned);
        assert_eq!(second.distance(&tuned, 0, 0b100, &cells), d);
        assert_eq!(second.stats().built, 0, "the numbers do not change a table");
        // other arrows are another table
        let mut turned = modules;
        turned[0].arrows.swap(0, 1);
        let other = Deck::new(turned, cards, 2, Rules::default()).expect("a deck");
        let mut third = TableCache::new(&other);
        third.distance(&other, 0, 0b100, &cells);
        assert_eq!(third.stats().built, 1, "other arrows, another table");
    }

    #[test]
    fn the_cache_keeps_a_bounded_number_of_tables() {
        let pats: Vec<Vec<(i32, i32, PatCell)>> = (0..MAX_RESIDENT as i32 + 2)
            .map(|k| vec![(0, 0, PatCell::Any), (k % 4, 1 + k / 4, PatCell::Any)])
            .collect();
        let refs: Vec<&[(i32, i32, PatCell)]> = pats.iter().map(|p| p.as_slice()).collect();
        let mut modules = mixed_deck(&refs).modules;
        modules.truncate(3);
        let cards = mixed_deck(&refs).cards;
        let deck = Deck::new(modules, cards, 2, Rules::default()).expect("a deck");
        let mut cache = TableCache::new(&deck);
        let cells = [pack(0, 0), pack(1, 0), pack(2, 0)];
        // the Sensor (module 2) is spent: one table a mission
        let first: Vec<Option<u32>> = (0..deck.cards.len() as u8)
            .map(|m| cache.distance(&deck, m, 0b100, &cells))
            .collect();
        assert_eq!(cache.resident(), MAX_RESIDENT);
        assert_eq!(cache.stats().built, deck.cards.len() as u64);
        // evicted tables come back with the same answers
        let again: Vec<Option<u32>> = (0..deck.cards.len() as u8)
            .map(|m| cache.distance(&deck, m, 0b100, &cells))
            .collect();
        assert_eq!(first, again);
        assert_eq!(cache.resident(), MAX_RESIDENT);
        // with the Sensor unspent a table needs its flipped one first: two builds
        let built = cache.stats().built;
        let unflipped = cache.distance(&deck, 0, 0, &cells);
        assert_eq!(cache.stats().built - built, 2);
        if let Some(flipped) = first[0] {
            assert!(
                unflipped.is_some_and(|d| d <= flipped),
                "{unflipped:?} {flipped}"
            );
        }
        assert_eq!(cache.resident(), MAX_RESIDENT);
    }
}
