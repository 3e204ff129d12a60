//! The mission heuristic: admissible, consistent lower bounds on the points (and, at
//! that many points, the abilities) still needed for the current mission.
//!
//! The same bound as `rove.solve.search.Heuristic`, computed the same way: a pattern
//! placement with `D` unfilled cells needs at least `D` actions that bring a module in,
//! and only Brain, Coil, Motor and Gripper can do that without a point; so at least
//! `D - (those abilities left)` points remain.  No action lowers the bound by more than
//! the points it costs, which keeps A* with duplicate detection exact.

use std::cell::RefCell;

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;
use smallvec::SmallVec;

use crate::deck::{Ability, ArrowKind, Deck, MAX_MODULES};
use crate::grid::{unpack, Cell, NB};
use crate::key::translation;
use crate::state::State;

/// Move-distance tables reach this far in each axis; offsets beyond count as 1.
const RADIUS: i32 = 10;
const SIDE: usize = (2 * RADIUS + 1) as usize;
/// A table entry for an offset that no sequence of steps reaches (counts as 1).
const UNREACHED: u8 = u8::MAX;

/// Fewest moves that carry a module by each offset on an empty grid.
type Table = [[u8; SIDE]; SIDE];

/// The estimate depends on the layout up to translation, the spent set and the
/// mission only, and searches meet the same ones again and again (card plays and draws
/// leave them unchanged), so estimates are kept in a direct-mapped cache of this many
/// slots: small enough to stay in the processor's cache, and an evicted entry is only
/// computed again (the values are a pure function of the key).
const MEMO_SLOTS: usize = 1 << 17;

/// The layout up to translation (a byte per coordinate), the spent set, the mission.
type MemoKey = ([u8; 2 * MAX_MODULES], u32, u8);
type MemoEntry = (MemoKey, (i32, i32));

pub struct Heuristic {
    /// Per module: [distances while active (it may flip first), distances while spent].
    dist: Vec<[Table; 2]>,
    memo: RefCell<Vec<Option<MemoEntry>>>,
}

impl Heuristic {
    pub fn new(deck: &Deck) -> Self {
        let mut pushes: Vec<Cell> = Vec::new();
        for m in &deck.modules {
            for side in &m.arrows {
                for a in side {
                    if a.kind == ArrowKind::Push && !pushes.contains(&NB[a.dir as usize]) {
                        pushes.push(NB[a.dir as usize]);
                    }
                }
            }
        }
        let dist = deck
            .modules
            .iter()
            .map(|m| {
                let active = move_distances(&m.arrows[0], &pushes);
                let spent = move_distances(&m.arrows[1], &pushes);
                // active: it may flip first, so the better of both sides, over the offsets
                // the active side reaches
                let mut merged = active;
                for (row, srow) in merged.iter_mut().zip(spent.iter()) {
                    for (v, &w) in row.iter_mut().zip(srow.iter()) {
                        if *v != UNREACHED && w != UNREACHED && w < *v {
                            *v = w;
                        }
                    }
                }
                [merged, spent]
            })
            .collect();
        Heuristic { dist, memo: RefCell::new(vec![None; MEMO_SLOTS]) }
    }

    fn lookup(&self, module: usize, side: usize, off: Cell) -> i32 {
        let (dx, dy) = unpack(off);
        if dx.abs() > RADIUS || dy.abs() > RADIUS {
            return 1;
        }
        let v = self.dist[module][side][(dy + RADIUS) as usize][(dx + RADIUS) as usize];
        if v == UNREACHED {
            1
        } else {
            v as i32
        }
    }

    /// (points, abilities): lower bounds for the lexicographically best completion.
    ///
    /// For each placement T of the pattern: `defect` = the most of (cells to fill,
    /// must-empty cells to clear, a misplaced named module), each action mending at most
    /// one of each; `need` = defect less what the abilities left can mend.  Points >= min
    /// need.  When a plan spends exactly that many points, its placement has need == min
    /// need and the abilities it uses mend the rest: abilities >= defect_T - points.
    pub fn estimate(&self, deck: &Deck, s: &State) -> (i32, i32) {
        let Some(mission) = s.mission else {
            return (0, 0);
        };
        let shift = translation(s);
        let mut cells = [0u8; 2 * MAX_MODULES];
        for (i, &c) in s.cells().iter().enumerate() {
            let (x, y) = unpack(c - shift);
            if x > 255 || y > 255 {
                return self.compute(deck, s, mission); // too spread out for the memo's key
            }
            (cells[2 * i], cells[2 * i + 1]) = (x as u8, y as u8);
        }
        let key = (cells, s.spent, mission);
        let mut hasher = FxHasher::default();
        key.hash(&mut hasher);
        let slot = hasher.finish() as usize & (MEMO_SLOTS - 1);
        if let Some((k, got)) = &self.memo.borrow()[slot] {
            if *k == key {
                return *got;
            }
        }
        let got = self.compute(deck, s, mission);
        self.memo.borrow_mut()[slot] = Some((key, got));
        got
    }

    fn compute(&self, deck: &Deck, s: &State, mission: u8) -> (i32, i32) {
        let pat = &deck.cards[mission as usize].mission;
        let (fill, anyuse) = abilities_left(deck, s.spent);
        let cells = s.cells();
        let size = pat.occupied.len() as i32;
        let has_named = i32::from(!pat.all_named.is_empty());
        let far_defect = size.max(has_named);
        let mut best = (size - fill).max(has_named - anyuse).max(0);
        let mut candidates: SmallVec<[(i32, i32); 32]> = SmallVec::new();
        candidates.push((best, far_defect));
        // Every placement that puts a pattern cell on a module: base = cell - offset.  A
        // base met k times covers k pattern cells (modules sit on distinct cells), so it
        // has size - k holes; sorting groups them.  The result does not depend on the
        // order the placements are taken in (best only falls, and a placement that ends
        // level with the final best is kept whenever it is met).
        let mut bases: SmallVec<[Cell; 128]> = SmallVec::new();
        for &c in cells {
            for &o in &pat.occupied {
                bases.push(c - o);
            }
        }
        bases.sort_unstable();
        let mut i = 0;
        while i < bases.len() {
            let base = bases[i];
            let mut j = i + 1;
            while j < bases.len() && bases[j] == base {
                j += 1;
            }
            let holes = size - (j - i) as i32;
            i = j;
            let blocks = pat.empty_cells.iter().filter(|&&off| cells.contains(&(base + off))).count() as i32;
            let wrong = i32::from(pat.all_named.iter().any(|&(m, off)| cells[m] != base + off));
            let mut need = (holes - fill).max(blocks - fill).max(wrong - anyuse).max(0);
            if need <= best && anyuse == 0 && need > 0 {
                need = need.max(self.distance_bound(s, base, pat.occupied.as_slice(), &pat.all_named));
            }
            if need <= best {
                best = need;
                candidates.push((need, holes.max(blocks).max(wrong)));
            }
        }
        let abilities = candidates
            .iter()
            .filter(|&&(need, _)| need == best)
            .map(|&(_, defect)| (defect - best).max(0))
            .min()
            .unwrap_or(0);
        (best, abilities)
    }

    /// With no ability left to relocate modules, each unfilled cell needs a module that
    /// can get there, and the named module must travel to its cell: each takes at least
    /// its own (obstacle-free) move distance.
    fn distance_bound(&self, s: &State, base: Cell, occupied: &[Cell], named: &[(usize, Cell)]) -> i32 {
        let cells = s.cells();
        let side = |m: usize| (s.spent >> m & 1) as usize;
        let mut bound = 0;
        for &off in occupied {
            let target = base + off;
            if cells.contains(&target) {
                continue;
            }
            let mut d = 99;
            for (m, &c) in cells.iter().enumerate() {
                let e = self.lookup(m, side(m), target - c);
                if e < d {
                    d = e;
                    if d <= bound {
                        break;
                    }
                }
            }
            bound = bound.max(d);
        }
        for &(m, off) in named {
            let target = base + off;
            if cells[m] != target {
                bound = bound.max(self.lookup(m, side(m), target - cells[m]));
            }
        }
        bound
    }

    pub fn points_needed(&self, deck: &Deck, s: &State) -> i32 {
        self.estimate(deck, s).0
    }
}

/// (uses that can fill a cell, uses that can change the layout at all).
pub fn abilities_left(deck: &Deck, spent: u32) -> (i32, i32) {
    let mut fill = 0;
    let mut anyuse = 0;
    for (i, m) in deck.modules.iter().enumerate() {
        if spent >> i & 1 == 1 {
            continue;
        }
        if m.ability.fills() {
            fill += 1;
            anyuse += 1;
        } else if m.ability == Ability::Laser {
            anyuse += 1;
        }
    }
    (fill, anyuse)
}

/// An upper bound on the points this state can still get for this mission.
///
/// A Sensor draw can find a card even when both piles are empty now: a card played
/// from the hand (or the current one) reaches the discard pile once it runs out, and
/// can be drawn and played again.
pub fn points_obtainable(deck: &Deck, s: &State) -> i32 {
    let mut total = s.points + s.hand.as_slice().iter().map(|&c| deck.cards[c as usize].bonus).sum::<i32>();
    let draws = deck.sensor_draws_left(s.spent) as i32;
    if draws > 0 && (!s.draw.is_empty() || !s.discard.is_empty() || !s.hand.is_empty() || s.card.is_some()) {
        total += draws * deck.max_bonus;
    }
    total
}

/// Breadth-first move counts within the radius: the module's own arrows (standard and
/// jump any distance, short and push one cell; a jump needs two or more) plus one-cell
/// pushes in any direction some module can push.  Obstacles and connectivity only make
/// real paths longer, so these are lower bounds.
fn move_distances(arrows: &[crate::deck::Arrow], pushes: &[Cell]) -> Table {
    let mut steps: Vec<Cell> = pushes.to_vec();
    for a in arrows {
        let off = NB[a.dir as usize];
        match a.kind {
            ArrowKind::Short | ArrowKind::Push => steps.push(off),
            ArrowKind::Standard | ArrowKind::Jump => {
                let first = if a.kind == ArrowKind::Jump { 2 } else { 1 };
                steps.extend((first..=2 * RADIUS).map(|k| off * k));
            }
        }
    }
    steps.sort_unstable();
    steps.dedup();
    let mut table = [[UNREACHED; SIDE]; SIDE];
    let idx = |c: Cell| {
        let (x, y) = unpack(c);
        ((y + RADIUS) as usize, (x + RADIUS) as usize)
    };
    let (r0, c0) = idx(0);
    table[r0][c0] = 0;
    let mut frontier = vec![0];
    let mut level = 0u8;
    while !frontier.is_empty() {
        level += 1;
        let mut next = Vec::new();
        for &c in &frontier {
            for &st in &steps {
                let d = c + st;
                let (x, y) = unpack(d);
                if x.abs() > RADIUS || y.abs() > RADIUS {
                    continue;
                }
                let (r, col) = idx(d);
                if table[r][col] == UNREACHED {
                    table[r][col] = level;
                    next.push(d);
                }
            }
        }
        frontier = next;
    }
    table
}
