//! Packed cells and layout primitives: validity and where one module may be put.
//!
//! A cell is `x + y * STRIDE` in one integer, exactly as the Python engine packs it, so
//! that both engines order cells (and so successors) the same way.

use crate::limits::MAX_MODULES;
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

/// The bounding box of some cells: (least x, greatest x, least y, greatest y).
pub fn bounds(cells: &[Cell]) -> (i32, i32, i32, i32) {
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for &c in cells {
        let (x, y) = unpack(c);
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    (x0, x1, y0, y1)
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

/// Side of the square window of cells `Layout` keeps occupancy for.
const WIN: i32 = 16;

/// Occupancy around a layout: a `WIN` x `WIN` window of cells whose corner is two cells
/// up and left of the layout's bounding box, so every cell next to a module is inside.
struct Window {
    /// The packed cell of the window's corner.
    origin: Cell,
    /// Per window cell, the modules king-adjacent to it.
    near: [u32; (WIN * WIN) as usize],
    /// Per window cell, whether a module stands on it (one bit a cell).
    occupied: [u64; (WIN * WIN / 64) as usize],
}

impl Window {
    /// The window of a layout whose bounding box leaves two free cells on each side.
    fn new(cells: &[Cell]) -> Option<Window> {
        let (x0, x1, y0, y1) = bounds(cells);
        if x1 - x0 + 4 >= WIN || y1 - y0 + 4 >= WIN {
            return None;
        }
        let mut w = Window {
            origin: pack(x0 - 2, y0 - 2),
            near: [0; (WIN * WIN) as usize],
            occupied: [0; 4],
        };
        for (j, &c) in cells.iter().enumerate() {
            let i = w.index(c).expect("a module is inside its window");
            w.occupied[i / 64] |= 1 << (i % 64);
            for &o in &NB {
                let k = w
                    .index(c + o)
                    .expect("a module's neighbour is inside its window");
                w.near[k] |= 1 << j;
            }
        }
        Some(w)
    }

    /// The window index of a cell (None: outside, so next to no module).
    #[inline]
    fn index(&self, cell: Cell) -> Option<usize> {
        // `d` packs (dx, dy); its low part is dx exactly when 0 <= dx < STRIDE / 2
        let d = cell - self.origin;
        let (dx, dy) = (d & (STRIDE - 1), d >> STRIDE.trailing_zeros());
        (d >= 0 && dx < WIN && dy < WIN).then_some((dx + dy * WIN) as usize)
    }
}

/// A layout with, per module, how the other modules fall apart without it, and which
/// modules touch each cell around it: the many placement questions successor
/// generation asks of one layout then need neither a scan of the cells nor a flood fill.
pub struct Layout<'a> {
    cells: &'a [Cell],
    /// Per module `t`, the connected groups the other modules form without `t`, as bit
    /// masks (one group unless `t` holds the layout together); `groups[t][..count[t]]`.
    groups: [[u32; 4]; MAX_MODULES],
    count: [u8; MAX_MODULES],
    /// Per module `t`, more groups than `groups` holds: `can_place` floods instead.
    many: u32,
    adj: [u32; MAX_MODULES],
    /// None when the layout is too spread out for the window: `can_place` scans.
    window: Option<Window>,
}

impl<'a> Layout<'a> {
    pub fn new(cells: &'a [Cell]) -> Self {
        let n = cells.len();
        let window = Window::new(cells);
        let mut adj = [0u32; MAX_MODULES];
        match &window {
            Some(w) => {
                for (j, &c) in cells.iter().enumerate() {
                    adj[j] = w.near[w.index(c).expect("inside")];
                }
            }
            None => {
                for i in 0..n {
                    for j in i + 1..n {
                        if adjacent(cells[i], cells[j]) {
                            adj[i] |= 1 << j;
                            adj[j] |= 1 << i;
                        }
                    }
                }
            }
        }
        let mut layout = Layout {
            cells,
            groups: [[0; 4]; MAX_MODULES],
            count: [0; MAX_MODULES],
            many: 0,
            adj,
            window,
        };
        let all = (1u32 << n) - 1;
        for t in 0..n {
            let others = all & !(1 << t);
            let mut left = others;
            let mut k = 0usize;
            while left != 0 {
                let group = layout.flood(left & left.wrapping_neg(), others);
                if k == 4 {
                    layout.many |= 1 << t;
                    break;
                }
                layout.groups[t][k] = group;
                k += 1;
                left &= !group;
            }
            layout.count[t] = k as u8;
        }
        layout
    }

    /// The modules of `within` reachable from `seed` through modules of `within`.
    fn flood(&self, seed: u32, within: u32) -> u32 {
        let mut group = seed;
        let mut frontier = seed;
        while frontier != 0 {
            let i = frontier.trailing_zeros() as usize;
            frontier &= frontier - 1;
            let fresh = self.adj[i] & within & !group;
            group |= fresh;
            frontier |= fresh;
        }
        group
    }

    /// Whether module `t` alone may be put on `cell` with the layout staying valid:
    /// the cell is empty and, with `t` there, all modules form one group, i.e. the cell
    /// touches every group the others form without `t`.  The same answer as
    /// `relocation(t).contains(&cell)`, without listing every such cell.
    pub fn can_place(&self, t: usize, cell: Cell) -> bool {
        let cells = self.cells;
        let n = cells.len();
        if n == 1 {
            return self.relocation(t).contains(&cell);
        }
        let touching = match &self.window {
            Some(w) => match w.index(cell) {
                None => return false,
                Some(i) if w.occupied[i / 64] >> (i % 64) & 1 == 1 => return false,
                Some(i) => w.near[i] & !(1 << t),
            },
            None => {
                let mut touching = 0u32;
                for (j, &c) in cells.iter().enumerate() {
                    if c == cell {
                        return false;
                    }
                    if j != t && adjacent(cell, c) {
                        touching |= 1 << j;
                    }
                }
                touching
            }
        };
        if touching == 0 {
            return false;
        }
        if self.many >> t & 1 == 1 {
            let others = ((1u32 << n) - 1) & !(1 << t);
            return self.flood(touching, others) == others;
        }
        self.groups[t][..self.count[t] as usize]
            .iter()
            .all(|&g| g & touching != 0)
    }

    /// The empty cells where module `t` alone may be put with the layout staying
    /// valid, sorted by packed value: the neighbours of the other modules (a valid cell
    /// touches one of them) that `can_place` accepts.
    pub fn relocation(&self, t: usize) -> Cells {
        let cells = self.cells;
        if cells.len() == 1 {
            // alone on the grid: anywhere is valid; generation stops at two cells
            let mut out: Cells = NB
                .iter()
                .flat_map(|&o| [cells[0] + o, cells[0] + 2 * o])
                .collect();
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

    /// Layouts too spread out for the occupancy window (a line of up to 16 modules with
    /// kinks) take the scanning path: it gives the same cells as the brute force.
    #[test]
    fn spread_layouts_place_like_the_brute_force() {
        for n in [12usize, 14, 16] {
            for kink in 0..n {
                let cells: Vec<Cell> = (0..n as i32)
                    .map(|x| pack(x, if x as usize > kink { 1 } else { 0 }))
                    .collect();
                let layout = Layout::new(&cells);
                assert!(layout.window.is_none() || n == 12);
                for t in [0, kink, n - 1] {
                    for y in -2..=3 {
                        for x in -2..=n as i32 + 1 {
                            let c = pack(x, y);
                            let mut moved = cells.clone();
                            moved[t] = c;
                            let want = !cells.contains(&c) && valid(&moved);
                            assert_eq!(
                                layout.can_place(t, c),
                                want,
                                "n={n} kink={kink} t={t} ({x}, {y})"
                            );
                        }
                    }
                }
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
