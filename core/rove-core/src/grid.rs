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

/// A layout with its adjacency as bit masks, for the many questions successor
/// generation asks of one layout.
pub struct Layout<'a> {
    cells: &'a [Cell],
    /// Per module, the modules adjacent to it.
    adj: [u32; 32],
}

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
        Layout { cells, adj }
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

    /// The empty cells where module `t` alone may be put with the layout staying
    /// valid, sorted by packed value: the neighbours of the other modules (a valid cell
    /// touches one of them) that `can_place` accepts.
    pub fn relocation(&self, t: usize) -> Cells {
        let cells = self.cells;
        if cells.len() == 1 {
            // alone on the grid: anywhere is valid; generation stops at two cells
            let mut out: Cells = NB.iter().flat_map(|&o| [cells[0] + o, cells[0] + 2 * o]).collect();
            out.sort_unstable();
            out.dedup();
            return out;
        }
        let mut out = Cells::new();
        for (j, &c) in cells.iter().enumerate() {
            if j == t {
                continue;
            }
            for &o in &NB {
                let cand = c + o;
                if !out.contains(&cand) && self.can_place(t, cand) {
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
        let got = Layout::new(&cells).relocation(1);
        assert_eq!(got.as_slice(), &[pack(1, -1), pack(1, 1)]);
        for c in got {
            let mut moved = cells;
            moved[1] = c;
            assert!(valid(&moved));
        }
    }
}
