//! Packed cells and layout primitives: validity and where one module may be put.
//!
//! A cell is `x + y * STRIDE` in one integer, exactly as the Python engine packs it, so
//! that both engines order cells (and so successors) the same way.

/// One packed cell (or a packed offset between two cells).
pub type Cell = i32;

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
pub fn adjacent(a: Cell, b: Cell) -> bool {
    a != b && NB.contains(&(b - a))
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
///
/// The new cell must touch every group the other modules form without `t`, so it is
/// the intersection of the groups' neighbourhoods, less every occupied cell (`t`'s own
/// included).
pub fn relocation_cells(cells: &[Cell], t: usize) -> Vec<Cell> {
    let n = cells.len();
    if n == 1 {
        // alone on the grid: anywhere is valid; generation stops at two cells
        let mut out: Vec<Cell> = NB.iter().flat_map(|&o| [cells[0] + o, cells[0] + 2 * o]).collect();
        out.sort_unstable();
        out.dedup();
        return out;
    }
    // group label of every other module
    let mut group = [u8::MAX; 32];
    let mut groups = 0u8;
    for start in 0..n {
        if start == t || group[start] != u8::MAX {
            continue;
        }
        group[start] = groups;
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            for j in 0..n {
                if j != t && group[j] == u8::MAX && adjacent(cells[i], cells[j]) {
                    group[j] = groups;
                    stack.push(j);
                }
            }
        }
        groups += 1;
    }
    let first = (0..n).find(|&i| i != t).expect("two modules or more");
    let mut out = Vec::with_capacity(16);
    for i in (0..n).filter(|&i| i != t && group[i] == group[first]) {
        for &o in &NB {
            let cand = cells[i] + o;
            if cells.contains(&cand) || out.contains(&cand) {
                continue;
            }
            let touches_all = (0..groups).all(|g| {
                (0..n).any(|j| j != t && group[j] == g && adjacent(cand, cells[j]))
            });
            if touches_all {
                out.push(cand);
            }
        }
    }
    out.sort_unstable();
    out
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

    #[test]
    fn relocation_touches_every_group() {
        // A . B with t between them: only cells touching both A and B remain
        let cells = [pack(0, 0), pack(1, 0), pack(2, 0)];
        let got = relocation_cells(&cells, 1);
        assert_eq!(got, vec![pack(1, -1), pack(1, 1)]);
        for c in got {
            let mut moved = cells;
            moved[1] = c;
            assert!(valid(&moved));
        }
    }
}
