//! The mission heuristic: admissible, consistent lower bounds on the points (and, at
//! that many points, the abilities) still needed for the current mission.
//!
//! The same bound as `rove.solve.heuristic.Heuristic`, computed the same way: a pattern
//! placement with `D` unfilled cells needs at least `D` actions that bring a module in,
//! and only Brain, Coil, Motor and Gripper can do that without a point; so at least
//! `D - (those abilities left)` points remain.  No action lowers the bound by more than
//! the points it costs, which keeps A* with duplicate detection exact.

use std::cell::RefCell;

use smallvec::SmallVec;

use crate::deck::{Ability, ArrowKind, Deck, PatternRows, MAX_ROWS_SIDE};
use crate::grid::{bounds, pack, unpack, Cell, NB};
use crate::key::translation;
use crate::state::State;
use crate::tables::{TableCache, TableStats};

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
/// slots, 16 bytes each, allocated zeroed (the pages a short search never touches cost
/// nothing); an evicted entry is only computed again (the values are a pure function of
/// the key).
const MEMO_SLOTS: usize = 1 << 20;
/// Layouts of up to this many modules, each within 16 cells of the bounding box's
/// corner, have a one-word memo key (8 bits a module, the spent set, the mission);
/// larger ones are computed every time.
const MEMO_MODULES: usize = 6;

pub struct Heuristic {
    /// Per module: [distances while active (it may flip first), distances while spent].
    dist: Vec<[Table; 2]>,
    /// Per slot: [key + 1 (0: empty), points | abilities << 32].
    memo: RefCell<Vec<[u64; 2]>>,
    /// The exact move-only distance tables, when this heuristic uses them (see
    /// [`Heuristic::with_tables`]).
    tables: Option<RefCell<TableCache>>,
    /// Modules whose ability, while unspent, cannot change the layout: Sensors (a use
    /// draws a card and flips the Sensor; the tables count the flip as free).
    inert: u32,
}

/// The points bound of a position from which no sequence of moves completes the
/// mission: more than any state can obtain, small enough that sums do not overflow.
pub const UNREACHABLE_NEED: i32 = 1 << 20;

/// The memo's slots, all empty, in huge pages where the system gives them (see
/// [`crate::pages`]): allocated zeroed and advised before any is written.
fn memo_table() -> Vec<[u64; 2]> {
    let memo = vec![[0u64; 2]; MEMO_SLOTS];
    crate::pages::advise_huge(&memo);
    memo
}

/// The memo slot of a key (Fibonacci hashing: the key's high bits are the layout).
fn memo_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
}

/// The memo key of a state: the layout up to translation, the spent set, the mission.
fn memo_key(s: &State, mission: u8) -> Option<u64> {
    if s.n as usize > MEMO_MODULES {
        return None;
    }
    let shift = translation(s);
    let mut key = 0u64;
    for &c in s.cells() {
        let (x, y) = unpack(c - shift);
        if x > 15 || y > 15 {
            return None;
        }
        key = key << 8 | (x as u64) << 4 | y as u64;
    }
    Some(key << 14 | u64::from(s.spent) << 8 | u64::from(mission))
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
                // offsets no sequence of steps reaches count as 1 from here on
                let mut tables = [merged, spent];
                for v in tables.iter_mut().flatten().flatten() {
                    if *v == UNREACHED {
                        *v = 1;
                    }
                }
                tables
            })
            .collect();
        let inert = deck.layout_free();
        Heuristic {
            dist,
            memo: RefCell::new(memo_table()),
            tables: None,
            inert,
        }
    }

    /// The heuristic raised by the exact distance tables ([`crate::tables`]) wherever
    /// no ability can change the layout any more (the product's searches; `new` is the
    /// reference, the Python heuristic's exact mirror).  Decks of more than
    /// [`crate::tables::MAX_TABLE_MODULES`] modules get the plain heuristic.  A table
    /// is switched on for a solve once the solve has asked for it often enough (see
    /// [`crate::tables::ACTIVATE_AFTER`]); [`Heuristic::start_solve`] starts the count.
    ///
    /// Why it stays admissible: in such a state the layout changes only by moves, one
    /// point each, until the mission completes (a completion needs the layout to
    /// match), and a Sensor's use at most changes its arrows, which the table allows at
    /// any moment for nothing; so the table's distance is a lower bound on the points
    /// still needed (exact, for the layout), and 0 one on the abilities at that many
    /// points.  It is also consistent (along a move it falls by at most one, along any
    /// other action not at all: a Sensor's use leads to the flipped table, whose
    /// distances are never smaller, as the table's own search starts from them;
    /// spent modules never come back), but a table switched on mid-search
    /// makes the bound of a state rise over time: A* re-opens a node reached more
    /// cheaply, so it stays optimal with a bound that is only admissible, and the
    /// whole-deal search only prunes with it.
    pub fn with_tables(deck: &Deck) -> Self {
        let mut h = Heuristic::new(deck);
        if TableCache::supports(deck) {
            h.tables = Some(RefCell::new(TableCache::new(deck)));
        }
        h
    }

    /// A new solve begins: table counts start from zero, and a table is switched on
    /// once the solve has asked for it `after` times (0: never, the reference bound).
    pub fn start_solve(&self, after: u64) {
        if let Some(t) = &self.tables {
            t.borrow_mut().start_solve(after);
        }
    }

    /// What the tables did in this solve (all zero without tables).
    pub fn table_stats(&self) -> TableStats {
        self.tables
            .as_ref()
            .map_or_else(TableStats::default, |t| t.borrow().stats())
    }

    /// The tables' fewest moves from `cells` to a layout matching `mission`, by the
    /// arrows `spent` gives, building the table now if needed: None without tables,
    /// Some(None) when unreachable.
    pub fn table_distance(
        &self,
        deck: &Deck,
        mission: u8,
        spent: u32,
        cells: &[Cell],
    ) -> Option<Option<u32>> {
        Some(
            self.tables
                .as_ref()?
                .borrow_mut()
                .distance(deck, mission, spent, cells),
        )
    }

    /// Whether no ability of `spent`'s unspent modules can change the layout.
    fn layout_inert(&self, deck: &Deck, spent: u32) -> bool {
        let unspent = ((1u32 << deck.n()) - 1) & !spent;
        unspent & !self.inert == 0
    }

    /// Whether a table applies to `s` in this solve: no ability can change the layout,
    /// and the table is switched on (the ask is counted either way, see
    /// [`TableCache::ask`]).
    fn table_on(&self, deck: &Deck, s: &State, mission: u8) -> bool {
        match &self.tables {
            Some(tables) => {
                self.layout_inert(deck, s.spent) && tables.borrow_mut().ask(deck, mission, s.spent)
            }
            None => false,
        }
    }

    /// The table's byte for `s` (a distance, or [`crate::tables::UNREACHABLE`]).
    fn table_byte(&self, deck: &Deck, s: &State, mission: u8) -> u8 {
        let tables = self.tables.as_ref().expect("tables");
        let d = tables
            .borrow_mut()
            .distance(deck, mission, s.spent, s.cells());
        d.map_or(crate::tables::UNREACHABLE, |d| d as u8)
    }

    fn lookup(&self, module: usize, side: usize, off: Cell) -> i32 {
        let (dx, dy) = unpack(off);
        if dx.abs() > RADIUS || dy.abs() > RADIUS {
            return 1;
        }
        self.dist[module][side][(dy + RADIUS) as usize][(dx + RADIUS) as usize] as i32
    }

    /// Start loading the memo slot of `s`'s estimate: a search about to estimate all
    /// the children of a node calls this for each of them first, so that the memory
    /// reads (the table is larger than the processor's caches) overlap.
    pub fn prefetch(&self, s: &State) {
        let Some(key) = s.mission.and_then(|m| memo_key(s, m)) else {
            return;
        };
        #[cfg(target_arch = "x86_64")]
        {
            let memo = self.memo.borrow();
            let ptr = memo[memo_slot(key)].as_ptr() as *const i8;
            // SAFETY: a prefetch is only a hint; `ptr` points into the live table.
            unsafe { std::arch::x86_64::_mm_prefetch(ptr, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// (points, abilities): lower bounds for the lexicographically best completion.
    ///
    /// For each placement T of the pattern: `defect` = the most of (cells to fill,
    /// must-empty cells to clear, a misplaced named module), each action mending at most
    /// one of each; `need` = defect less what the abilities left can mend.  Points >= min
    /// need.  When a plan spends exactly that many points, its placement has need == min
    /// need and the abilities it uses mend the rest: abilities >= defect_T - points.
    ///
    /// The memo keeps the plain bound and, once a table has been read for the key, the
    /// table's byte (both pure functions of the key), so a probe of a switched-on table
    /// costs no layout indexing when the memo holds it.
    pub fn estimate(&self, deck: &Deck, s: &State) -> (i32, i32) {
        let Some(mission) = s.mission else {
            return (0, 0);
        };
        let table_on = self.table_on(deck, s, mission);
        let Some(key) = memo_key(s, mission) else {
            let plain = self.compute(deck, s, mission);
            return if table_on {
                raised(plain, self.table_byte(deck, s, mission))
            } else {
                plain
            };
        };
        let slot = memo_slot(key);
        let [k, v] = self.memo.borrow()[slot];
        let (plain, mut byte) = if k == key + 1 {
            ((v as u32 as i32, (v >> 32) as u16 as i32), (v >> 48) as u16)
        } else {
            (self.compute(deck, s, mission), 0)
        };
        if table_on && byte == 0 {
            byte = u16::from(self.table_byte(deck, s, mission)) + 1;
        }
        let stored =
            u64::from(plain.0 as u32) | u64::from(plain.1 as u16) << 32 | u64::from(byte) << 48;
        if k != key + 1 || stored != v {
            self.memo.borrow_mut()[slot] = [key + 1, stored];
        }
        if table_on {
            raised(plain, (byte - 1) as u8)
        } else {
            plain
        }
    }

    fn compute(&self, deck: &Deck, s: &State, mission: u8) -> (i32, i32) {
        self.compute_by(deck, s, mission, true)
    }

    /// The estimate, scanning placements with row masks when `masks` and both the
    /// layout and the pattern fit them, else base by base (the same value either way).
    fn compute_by(&self, deck: &Deck, s: &State, mission: u8, masks: bool) -> (i32, i32) {
        let pat = &deck.cards[mission as usize].mission;
        let (fill, anyuse) = abilities_left(deck, s.spent);
        let cells = s.cells();
        let size = pat.occupied.len() as i32;
        let has_named = i32::from(!pat.all_named.is_empty());
        let far_defect = size.max(has_named);
        let mut best = (size - fill).max(has_named - anyuse).max(0);
        let mut candidates: SmallVec<[(i32, i32); 32]> = SmallVec::new();
        candidates.push((best, far_defect));
        // Every placement that puts a pattern cell on a module, in any order: the result
        // does not depend on it (best only falls, and a placement that ends level with
        // the final best is kept whenever it is met).
        // With no ability left a placement's need also has its move-distance bound;
        // those placements wait, to be bounded cheapest first, so that fewer are.
        let mut waiting: SmallVec<[(i32, Cell, i32); 64]> = SmallVec::new();
        let mut take = |base: Cell, holes: i32, blocks: i32| {
            let wrong = i32::from(pat.all_named.iter().any(|&(m, off)| cells[m] != base + off));
            let need = (holes - fill).max(blocks - fill).max(wrong - anyuse).max(0);
            let defect = holes.max(blocks).max(wrong);
            if need <= best && anyuse == 0 && need > 0 {
                waiting.push((need, base, defect));
            } else if need <= best {
                best = need;
                candidates.push((need, defect));
            }
        };
        match (&pat.rows, LayoutRows::new(cells)) {
            (Some(rows), Some(layout)) if masks => layout.placements(rows, size, &mut take),
            _ => {
                // base = cell - offset; a base met k times covers k pattern cells (modules
                // sit on distinct cells), so it has size - k holes; sorting groups them
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
                    let covered = (j - i) as i32;
                    i = j;
                    let blocks = pat
                        .empty_cells
                        .iter()
                        .filter(|&&off| cells.contains(&(base + off)))
                        .count() as i32;
                    take(base, size - covered, blocks);
                }
            }
        }
        waiting.sort_unstable_by_key(|w| w.0);
        for (need, base, defect) in waiting {
            if need > best {
                break;
            }
            let need =
                need.max(self.distance_bound(s, base, pat.occupied.as_slice(), &pat.all_named));
            if need <= best {
                best = need;
                candidates.push((need, defect));
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
    fn distance_bound(
        &self,
        s: &State,
        base: Cell,
        occupied: &[Cell],
        named: &[(usize, Cell)],
    ) -> i32 {
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

/// The bound raised by a switched-on table's byte: no ability can change the layout,
/// so 0 abilities is a lower bound at that many points.
fn raised(plain: (i32, i32), byte: u8) -> (i32, i32) {
    let need = if byte == crate::tables::UNREACHABLE {
        UNREACHABLE_NEED
    } else {
        i32::from(byte)
    };
    if need > plain.0 {
        (need, 0)
    } else {
        plain
    }
}

/// A layout as one bit mask per row of its bounding box, bit `x - x0 + PAD` of row
/// `y - y0`: the padding lets a pattern that overhangs the left edge shift right.
struct LayoutRows {
    corner: Cell,
    width: i32,
    rows: [u64; MAX_LAYOUT_ROWS],
    height: i32,
}

const PAD: i32 = MAX_ROWS_SIDE;
const MAX_LAYOUT_ROWS: usize = 32;

impl LayoutRows {
    /// None when the layout is too spread out for the masks.
    fn new(cells: &[Cell]) -> Option<Self> {
        let (x0, x1, y0, y1) = bounds(cells);
        let (width, height) = (x1 - x0 + 1, y1 - y0 + 1);
        if width + PAD > 64 || height > MAX_LAYOUT_ROWS as i32 {
            return None;
        }
        let mut rows = [0u64; MAX_LAYOUT_ROWS];
        for &c in cells {
            let (x, y) = unpack(c);
            rows[(y - y0) as usize] |= 1 << (x - x0 + PAD);
        }
        Some(LayoutRows {
            corner: pack(x0, y0),
            width,
            rows,
            height,
        })
    }

    /// Call `take(base, holes, blocks)` for every placement of the pattern that puts
    /// at least one of its `size` occupied cells on a module.
    fn placements(&self, pat: &PatternRows, size: i32, take: &mut impl FnMut(Cell, i32, i32)) {
        let pat_height = pat.occupied.len() as i32;
        // (sx, sy): where the pattern's bounding box corner lands, relative to the layout's
        for sy in 1 - pat_height..self.height {
            let r0 = (-sy).max(0);
            let r1 = pat_height.min(self.height - sy);
            for sx in 1 - pat.width..self.width {
                let shift = (sx + PAD) as u32;
                let (mut covered, mut blocks) = (0, 0);
                for r in r0..r1 {
                    let row = (self.rows[(sy + r) as usize] >> shift) as u32;
                    covered += (row & pat.occupied[r as usize]).count_ones() as i32;
                    blocks += (row & pat.empty[r as usize]).count_ones() as i32;
                }
                if covered > 0 {
                    take(
                        self.corner + pack(sx, sy) - pat.corner,
                        size - covered,
                        blocks,
                    );
                }
            }
        }
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
    let mut total = s.points
        + s.hand
            .as_slice()
            .iter()
            .map(|&c| deck.cards[c as usize].bonus)
            .sum::<i32>();
    let draws = deck.sensor_draws_left(s.spent) as i32;
    if draws > 0
        && (!s.draw.is_empty() || !s.discard.is_empty() || !s.hand.is_empty() || s.card.is_some())
    {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::{Arrow, Card, Module, PatCell, Pattern, Rules};

    /// Scanning placements with row masks gives exactly the base-by-base estimate, on
    /// random layouts, spent sets and patterns with named, any and must-be-empty cells.
    #[test]
    fn row_masks_estimate_like_the_base_by_base_scan() {
        let mut seed = 99u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let abilities = [
            Ability::Brain,
            Ability::Laser,
            Ability::Sensor,
            Ability::Coil,
            Ability::Gripper,
            Ability::Motor,
        ];
        let modules: Vec<Module> = abilities
            .iter()
            .enumerate()
            .map(|(i, &ability)| {
                let kind = [
                    ArrowKind::Standard,
                    ArrowKind::Short,
                    ArrowKind::Jump,
                    ArrowKind::Push,
                ][i % 4];
                let side = |d: u8| {
                    vec![
                        Arrow { kind, dir: d },
                        Arrow {
                            kind,
                            dir: (d + 4) % 8,
                        },
                    ]
                };
                Module {
                    ability,
                    arrows: [side(i as u8 % 8), side((i as u8 + 2) % 8)],
                }
            })
            .collect();
        let mut cards = Vec::new();
        for _ in 0..40 {
            let mut cells = Vec::new();
            let size = 1 + next() % 5;
            while (cells.len() as u64) < size + next() % 3 {
                let (x, y) = ((next() % 4) as i32, (next() % 3) as i32);
                if cells.iter().any(|&(a, b, _)| (a, b) == (x, y)) {
                    continue;
                }
                let what = match next() % 4 {
                    0 if !cells.is_empty() => PatCell::Empty,
                    1 => PatCell::Named((next() % 6) as u8),
                    _ => PatCell::Any,
                };
                if let PatCell::Named(m) = what {
                    if cells.iter().any(|&(_, _, w)| w == PatCell::Named(m)) {
                        continue;
                    }
                }
                cells.push((x, y, what));
            }
            if !cells.iter().any(|&(_, _, w)| w != PatCell::Empty) {
                cells.push((5, 0, PatCell::Any));
            }
            let p = Pattern::new(&cells).expect("a pattern");
            cards.push(Card {
                base: 1,
                bonus: 2,
                mission: p.clone(),
                movement: p,
            });
        }
        let deck = Deck::new(modules, cards, 7, Rules::default()).expect("a deck");
        let h = Heuristic::new(&deck);
        for _ in 0..3000 {
            let mut cells = vec![pack(0, 0)];
            while cells.len() < 6 {
                let c = cells[(next() % cells.len() as u64) as usize] + NB[(next() % 8) as usize];
                if !cells.contains(&c) {
                    cells.push(c);
                }
            }
            let spent = (next() % 64) as u32;
            let s = State::bare(&cells, spent, 0, (next() % 40) as u8);
            let m = s.mission.expect("a mission");
            assert_eq!(
                h.compute_by(&deck, &s, m, true),
                h.compute_by(&deck, &s, m, false),
                "{cells:?}"
            );
        }
    }
}
