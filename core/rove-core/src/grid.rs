//! Packed cells and layout primitives: validity and where one module may be put.
//!
//! A cell is `x + y * STRIDE` in one integer, exactly as the Python engine packs it, so
//! that both engines order cells (and so successors) the same way.

use smallvec::SmallVec;

/// One packed cell (or a packed offset between two cells).
pub type Cell = i32;

/// A short list of cells, inline (no allocation) up to 32.
pub type Cells = SmallVec<[Cell; 32]>;

pub const STRIDE: i32 = 1024;
const HALF: i32 = STRIDE / 2;

/// Unit steps clockwise from north: N NE E SE S SW W NW (the canonical order).
pub const DX: [i32; 8] = [0, 1, 1, 1, 0, -1, -1, -1];
pub const DY: [i32; 8] = [-1, -1, 0, 1, 1, 1, 0, -1];
/// The same steps as packed offsets: the king-adjacent neighbours.
pub const NB: [Cell; 8] = [
    -STRIDE,
    1 - STRIDE,
    1,
    1 + STRIDE,
    STRIDE,
    STRIDE - 1,
    -1,
    -1 - STRIDE,
];

pub fn pack(x: i32, y: i32) -> Cell {
    x + y * STRIDE
}

pub fn unpack(c: Cell) -> (i32, i32) {
    let y = (c + HALF).div_euclid(STRIDE);
    (c - y * STRIDE, y)
}

/// King adjacency (a cell is not adjacent to itself).
///
/// `d = (dx + 1) + (dy + 1) * STRIDE` is in `0..=2 * STRIDE + 2` with a low part of at
/// most 2 exactly when both steps are in -1..=1 (cells keep |x| below STRIDE / 2).
#[inline]
pub fn adjacent(a: Cell, b: Cell) -> bool {
    let d = b - a + STRIDE + 1;
    (0..=2 * STRIDE + 2).contains(&d) && (d & (STRIDE - 1)) <= 2 && d != STRIDE + 1
}

/// Distinct cells forming one king-connected group.
pub fn valid(cells: &[Cell]) -> bool {
    let n = cells.len();
    for i in 0..n {
        if cells[i + 1..].contains(&cells[i]) {
            return false;
        }
    }
    // flood fill over indices: with at most 16 modules a bit mask holds the visited set
    let mut seen: u32 = 1;
    let mut stack = [0usize; 32];
    let mut top = 1;
    while top > 0 {
        top -= 1;
        let c = cells[stack[top]];
        for (j, &d) in cells.iter().enumerate() {
            if seen >> j & 1 == 0 && adjacent(c, d) {
                seen |= 1 << j;
                stack[top] = j;
                top += 1;
            }
        }
    }
    seen.count_ones() as usize == n
}

/// The empty cells where module `t` alone may be put with the layout staying valid,
/// sorted by packed value.
pub fn relocation_cells(cells: &[Cell], t: usize) -> Cells {
    Layout::new(cells).relocation(t)
}

/// A layout with its adjacency as bit masks, for the many questions successor
/// generation asks of one layout.
pub struct Layout<'a> {
    cells: &'a [Cell],
    /// Per module, the modules adjacent to it.
    adj: [u32; 32],
    /// The packed cell one up and one left of the bounding box: the origin of the
    /// scratch grid `relocation` marks neighbourhoods on.
    origin: Cell,
    /// The scratch grid's width and height (the box grown by one on each side), or 0
    /// when the box is too large for it.
    width: i32,
    height: i32,
}

/// The scratch grid's cells: a box of up to 34 x 34, room for any valid layout of up
/// to 16 modules (which spans at most 16 cells a side) with a border.
const SCRATCH: usize = 34 * 34;
/// The scratch grid's mark for an occupied cell (group masks use the bits below it).
const OCCUPIED: u16 = 1 << 15;

impl<'a> Layout<'a> {
    pub fn new(cells: &'a [Cell]) -> Self {
        let mut adj = [0u32; 32];
        for i in 0..cells.len() {
            for j in i + 1..cells.len() {
                if adjacent(cells[i], cells[j]) {
                    adj[i] |= 1 << j;
                    adj[j] |= 1 << i;
                }
            }
        }
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &c in cells {
            let (x, y) = unpack(c);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let (mut width, mut height) = (x1 - x0 + 3, y1 - y0 + 3);
        if (width * height) as usize > SCRATCH {
            (width, height) = (0, 0);
        }
        Layout { cells, adj, origin: pack(x0 - 1, y0 - 1), width, height }
    }

    /// Whether module `t` alone may be put on `cell` with the layout staying valid:
    /// the cell is empty and, with `t` there, all modules form one group.  The same
    /// answer as `relocation(t).contains(&cell)`, without listing every such cell.
    pub fn can_place(&self, t: usize, cell: Cell) -> bool {
        let cells = self.cells;
        let n = cells.len();
        if n == 1 {
            return self.relocation(t).contains(&cell);
        }
        let mut touching = 0u32;
        for (j, &c) in cells.iter().enumerate() {
            if c == cell {
                return false;
            }
            if j != t && adjacent(cell, c) {
                touching |= 1 << j;
            }
        }
        if touching == 0 {
            return false;
        }
        // the others, grown from the modules the cell touches, must all be reached
        let others = ((1u32 << n) - 1) & !(1 << t);
        let mut group = touching;
        let mut frontier = touching;
        while frontier != 0 {
            let i = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let fresh = self.adj[i] & others & !group;
            group |= fresh;
            frontier |= fresh;
        }
        group == others
    }

    /// The scratch grid index of a cell within one step of the bounding box.
    #[inline]
    fn index(&self, c: Cell) -> usize {
        let (x, y) = unpack(c - self.origin);
        debug_assert!(0 <= x && x < self.width && 0 <= y && y < self.height);
        (x + y * self.width) as usize
    }

    /// The groups the modules in `members` form, as masks.
    fn groups(&self, members: u32) -> SmallVec<[u32; 8]> {
        let mut out = SmallVec::new();
        let mut remaining = members;
        while remaining != 0 {
            let mut group = remaining & remaining.wrapping_neg();
            let mut frontier = group;
            while frontier != 0 {
                let i = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let fresh = self.adj[i] & remaining & !group;
                group |= fresh;
                frontier |= fresh;
            }
            remaining &= !group;
            out.push(group);
        }
        out
    }

    /// The empty cells where module `t` alone may be put with the layout staying
    /// valid, sorted by packed value.
    ///
    /// The new cell must touch every group the other modules form without `t`, so it is
    /// the intersection of the groups' neighbourhoods, less every occupied cell (`t`'s
    /// own included).
    pub fn relocation(&self, t: usize) -> Cells {
        let cells = self.cells;
        let n = cells.len();
        if n == 1 {
            // alone on the grid: anywhere is valid; generation stops at two cells
            let mut out: Cells = NB.iter().flat_map(|&o| [cells[0] + o, cells[0] + 2 * o]).collect();
            out.sort_unstable();
            out.dedup();
            return out;
        }
        let others = ((1u32 << n) - 1) & !(1 << t);
        let groups = self.groups(others);
        let mut out = Cells::new();
        if self.width > 0 && groups.len() < 15 {
            // mark on a scratch grid which groups touch each cell: one pass over the
            // neighbours of every module, instead of a test per candidate and module
            let mut marks = [0u16; SCRATCH];
            for &c in cells {
                marks[self.index(c)] = OCCUPIED;
            }
            for (g, &members) in groups.iter().enumerate() {
                let mut rest = members;
                while rest != 0 {
                    let j = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    for &o in &NB {
                        marks[self.index(cells[j] + o)] |= 1 << g;
                    }
                }
            }
            let all = (1u16 << groups.len()) - 1;
            let mut first = groups[0];
            while first != 0 {
                let i = first.trailing_zeros() as usize;
                first &= first - 1;
                for &o in &NB {
                    let mark = &mut marks[self.index(cells[i] + o)];
                    if *mark == all {
                        out.push(cells[i] + o);
                        *mark = 0; // once
                    }
                }
            }
            out.sort_unstable();
            return out;
        }
        let mut first = groups[0];
        while first != 0 {
            let i = first.trailing_zeros() as usize;
            first &= first - 1;
            for &o in &NB {
                let cand = cells[i] + o;
                if cells.contains(&cand) || out.contains(&cand) {
                    continue;
                }
                let mut touching = 0u32;
                for (j, &c) in cells.iter().enumerate() {
                    if adjacent(cand, c) {
                        touching |= 1 << j;
                    }
                }
                if groups[1..].iter().all(|&g| touching & g != 0) {
                    out.push(cand);
                }
            }
        }
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_round_trips_negative_cells() {
        for (x, y) in [(0, 0), (-3, 2), (5, -7), (-1, -1), (400, -400)] {
            assert_eq!(unpack(pack(x, y)), (x, y));
        }
    }

    #[test]
    fn validity_needs_one_group_and_distinct_cells() {
        assert!(valid(&[pack(0, 0), pack(1, 1), pack(2, 2)]));
        assert!(!valid(&[pack(0, 0), pack(2, 0)]));
        assert!(!valid(&[pack(0, 0), pack(0, 0)]));
    }

    /// The scratch-grid path and the per-candidate path agree, and each cell they give
    /// makes a valid layout while every other empty cell nearby does not.
    #[test]
    fn relocation_is_exactly_the_valid_cells() {
        let mut seed = 12345u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            // a random connected layout of 2..8 modules grown cell by cell
            let n = 2 + (next() % 7) as usize;
            let mut cells = vec![pack(0, 0)];
            while cells.len() < n {
                let c = cells[(next() % cells.len() as u64) as usize] + NB[(next() % 8) as usize];
                if !cells.contains(&c) {
                    cells.push(c);
                }
            }
            let layout = Layout::new(&cells);
            for t in 0..n {
                let got = layout.relocation(t);
                for y in -(n as i32) - 2..=n as i32 + 2 {
                    for x in -(n as i32) - 2..=n as i32 + 2 {
                        assert_eq!(layout.can_place(t, pack(x, y)), got.contains(&pack(x, y)));
                    }
                }
                let mut want = Vec::new();
                for y in -(n as i32) - 2..=n as i32 + 2 {
                    for x in -(n as i32) - 2..=n as i32 + 2 {
                        let c = pack(x, y);
                        if cells.contains(&c) {
                            continue;
                        }
                        let mut moved = cells.clone();
                        moved[t] = c;
                        if valid(&moved) {
                            want.push(c);
                        }
                    }
                }
                want.sort_unstable();
                assert_eq!(got.as_slice(), want.as_slice(), "{cells:?} t={t}");
            }
        }
    }

    #[test]
    fn relocation_touches_every_group() {
        // A . B with t between them: only cells touching both A and B remain
        let cells = [pack(0, 0), pack(1, 0), pack(2, 0)];
        let got = relocation_cells(&cells, 1);
        assert_eq!(got.as_slice(), &[pack(1, -1), pack(1, 1)]);
        for c in got {
            let mut moved = cells;
            moved[1] = c;
            assert!(valid(&moved));
        }
    }
}
