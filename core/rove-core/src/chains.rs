//! Mission chains on the move-only distance tables: what a bound that counts points
//! across missions can see (the measurements of `bench/tablebase_payoff.py`).
//!
//! Both functions work on one fixed spent set and count moves only (no ability is
//! used, and unlike the search's tables no Sensor flip is free: the spent set never
//! changes), one point a move, so their answers are exact optima of the no-ability
//! game on the deck's layouts, not bounds of the game with abilities:
//!
//! * [`pair_costs`]: per ordered pair of mission cards (a, b), the fewest moves from
//!   *any* layout matching a to one matching b: the cost of b when all that is known of
//!   the layout it starts from is that it completed a.  A bound that forgets the layout
//!   between missions (tables indexed by mission and spent set only) can charge a
//!   mission no more than this (with the spent set the line has then).
//! * [`chain_cost`]: the fewest moves to complete a sequence of missions one after the
//!   other from a given layout, each mission started from the very layout the previous
//!   one was completed in: the backward search of the last mission's table, then of
//!   each earlier mission's with its matching layouts seeded by the later table's
//!   distance (the chess tablebases' retrograde analysis, one mission a layer).
//!
//! **Why a chain's cost is a lower bound on a line's moves.**  A line that uses no
//! ability completes mission k at some layout `Y_k` matching it and then moves on to
//! mission k+1 from `Y_k`; the moves it makes between `Y_{k-1}` and `Y_k` are at least
//! the fewest moves between them, and the chain's value minimises over every choice of
//! the `Y_k` (the rules force the *first* matching layout on the way, which is one of
//! the choices), so it is at most the line's moves.  A line that does use abilities is
//! not bounded by a chain of its spent set: an ability may save moves.

use crate::deck::Deck;
use crate::grid::Cell;
use crate::tables::{LayoutIndex, Table, UNREACHABLE};

/// Per ordered pair (a, b) of the deck's cards, the fewest moves by the sides `spent`
/// gives from a layout matching a's mission to one matching b's (None: no layout
/// matching a reaches b).  `out[a][b]`; 0 where one layout matches both.  Builds one
/// table per card (a few seconds each on six modules).
pub fn pair_costs(deck: &Deck, index: &LayoutIndex, spent: u32) -> Vec<Vec<Option<u32>>> {
    let matching: Vec<Vec<u32>> = deck
        .cards
        .iter()
        .map(|c| {
            let seeds = Table::seeds(index, &c.mission);
            (0..seeds.len() as u32)
                .filter(|&k| seeds[k as usize] == 0)
                .collect()
        })
        .collect();
    let mut out = vec![vec![None; deck.cards.len()]; deck.cards.len()];
    for (b, card) in deck.cards.iter().enumerate() {
        let table = Table::search(deck, index, spent, Table::seeds(index, &card.mission));
        for (a, layouts) in matching.iter().enumerate() {
            let best = layouts
                .iter()
                .map(|&k| table.get(k))
                .min()
                .unwrap_or(UNREACHABLE);
            out[a][b] = (best != UNREACHABLE).then_some(u32::from(best));
        }
    }
    out
}

/// The table of the fewest moves from every layout to complete `missions` (card
/// indices) in that order, by the sides `spent` gives, no ability used: the first
/// mission's layer (see the module's doc).  Empty `missions`: every layout 0.
pub fn chain_table(deck: &Deck, index: &LayoutIndex, missions: &[u8], spent: u32) -> Table {
    let mut later: Option<Table> = None;
    for &m in missions.iter().rev() {
        let mut seeds = Table::seeds(index, &deck.cards[m as usize].mission);
        if let Some(t) = &later {
            for (k, s) in seeds.iter_mut().enumerate() {
                if *s == 0 {
                    *s = t.get(k as u32);
                }
            }
        }
        later = Some(Table::search(deck, index, spent, seeds));
    }
    later.unwrap_or_else(|| Table::search(deck, index, spent, vec![0; index.len()]))
}

/// [`chain_table`]'s value at the layout `cells` (None: the missions cannot all be
/// completed by moves; Some(0) for a layout the tables do not hold, no claim).
pub fn chain_cost(
    deck: &Deck,
    index: &LayoutIndex,
    missions: &[u8],
    spent: u32,
    cells: &[Cell],
) -> Option<u32> {
    let Some(at) = index.index(cells) else {
        return Some(0);
    };
    match chain_table(deck, index, missions, spent).get(at) {
        UNREACHABLE => None,
        d => Some(u32::from(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deck::{Ability, Arrow, ArrowKind, Card, Module, PatCell, Pattern, Rules};
    use crate::grid::{pack, valid, NB};
    use std::collections::{HashMap, VecDeque};

    /// Four modules with every arrow kind, spent sides moving by other arrows, and three
    /// missions of three or four cells.
    fn small_deck() -> Deck {
        let side = |kind: ArrowKind, dirs: &[u8]| {
            dirs.iter()
                .map(|&dir| Arrow { kind, dir })
                .collect::<Vec<_>>()
        };
        let modules = vec![
            Module {
                ability: Ability::Brain,
                arrows: [
                    side(ArrowKind::Standard, &[0, 2, 4, 6]),
                    side(ArrowKind::Jump, &[1, 3, 5, 7]),
                ],
            },
            Module {
                ability: Ability::Laser,
                arrows: [
                    side(ArrowKind::Short, &[0, 1, 2, 3, 4, 5, 6, 7]),
                    side(ArrowKind::Short, &[0, 4]),
                ],
            },
            Module {
                ability: Ability::Coil,
                arrows: [
                    side(ArrowKind::Jump, &[0, 1, 2, 3, 4, 5, 6, 7]),
                    side(ArrowKind::Standard, &[2, 6]),
                ],
            },
            Module {
                ability: Ability::Motor,
                arrows: [
                    side(ArrowKind::Push, &[0, 2, 4, 6]),
                    side(ArrowKind::Push, &[1, 5]),
                ],
            },
        ];
        let any = PatCell::Any;
        let pats: [&[(i32, i32, PatCell)]; 3] = [
            &[(0, 0, PatCell::Named(0)), (1, 1, any), (2, 2, any)],
            &[
                (0, 0, any),
                (0, 1, PatCell::Named(2)),
                (0, 2, any),
                (1, 2, any),
            ],
            &[
                (0, 0, PatCell::Named(3)),
                (2, 0, any),
                (1, 1, any),
                (1, 0, PatCell::Empty),
            ],
        ];
        let cards = pats
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
        Deck::new(modules, cards, 3, Rules::default()).expect("a deck")
    }

    /// Layouts up to translation, as the index's cells (corner at (0, 0)).
    fn canonical(index: &LayoutIndex, cells: &[Cell]) -> u32 {
        index.index(cells).expect("a valid layout")
    }

    /// The exact answer by forward breadth-first search over (layout, missions done)
    /// with the rules' own successors: a move to a layout matching the current mission
    /// completes it (as does a start that matches).
    fn forward_chain(
        deck: &Deck,
        index: &LayoutIndex,
        missions: &[u8],
        spent: u32,
        start: &[Cell],
    ) -> Option<u32> {
        let n = deck.n();
        let advance = |cells: &[Cell], mut done: usize| {
            while done < missions.len()
                && deck.cards[missions[done] as usize].mission.matches(cells)
            {
                done += 1;
            }
            done
        };
        let mut seen: HashMap<(u32, usize), u32> = HashMap::new();
        let mut queue = VecDeque::new();
        let d0 = advance(start, 0);
        seen.insert((canonical(index, start), d0), 0);
        queue.push_back((start.to_vec(), d0, 0u32));
        while let Some((cells, done, cost)) = queue.pop_front() {
            if done == missions.len() {
                return Some(cost);
            }
            let s = crate::state::State::bare(&cells, spent, 1, 0);
            for (a, s2) in crate::rules::successors(deck, &s, false) {
                if !matches!(a, crate::state::Action::Move { .. }) {
                    continue;
                }
                let next: Vec<Cell> = s2.cells()[..n].to_vec();
                let d = advance(&next, done);
                let key = (canonical(index, &next), d);
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(key) {
                    e.insert(cost + 1);
                    queue.push_back((next, d, cost + 1));
                }
            }
        }
        None
    }

    fn random_layout(seed: &mut u64, n: usize) -> Vec<Cell> {
        let mut next = || {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        };
        let mut cells = vec![pack(0, 0)];
        while cells.len() < n {
            let c = cells[(next() % cells.len() as u64) as usize] + NB[(next() % 8) as usize];
            if !cells.contains(&c) {
                cells.push(c);
            }
        }
        assert!(valid(&cells));
        cells
    }

    /// A chain's table is the exact forward optimum of the no-ability game through the
    /// same missions (which is why it bounds a line's moves from below), on random
    /// starts, sequences and spent sets of a small deck with every arrow kind.
    #[test]
    fn chain_cost_is_the_forward_optimum() {
        let deck = small_deck();
        let index = LayoutIndex::new(deck.n());
        let mut seed = 99u64;
        let sequences: [&[u8]; 4] = [&[0], &[1, 2], &[2, 0, 1], &[0, 1, 2]];
        let mut checked = 0;
        for (i, missions) in sequences.iter().enumerate() {
            for spent in [0u32, 0b1111, 0b0101] {
                let table = chain_table(&deck, &index, missions, spent);
                for _ in 0..6 {
                    let start = random_layout(&mut seed, deck.n());
                    let want = forward_chain(&deck, &index, missions, spent, &start);
                    let got = match table.get(canonical(&index, &start)) {
                        UNREACHABLE => None,
                        d => Some(u32::from(d)),
                    };
                    assert_eq!(got, want, "sequence {i} spent {spent:b} from {start:?}");
                    checked += u32::from(want.is_some_and(|d| d > 0));
                }
            }
        }
        assert!(checked > 20, "{checked}");
    }

    /// A pair's cost is the least chain cost of the second mission over the layouts
    /// that match the first.
    #[test]
    fn pair_costs_are_the_least_over_matching_layouts() {
        let deck = small_deck();
        let index = LayoutIndex::new(deck.n());
        for spent in [0u32, 0b1111] {
            let pairs = pair_costs(&deck, &index, spent);
            let mut cells = [0 as Cell; 4];
            for b in 0..deck.cards.len() {
                let table = chain_table(&deck, &index, &[b as u8], spent);
                for (a, row) in pairs.iter().enumerate() {
                    let mut best = UNREACHABLE;
                    for k in 0..index.len() as u32 {
                        index.layout(k, &mut cells);
                        if deck.cards[a].mission.matches(&cells) {
                            best = best.min(table.get(k));
                        }
                    }
                    assert_eq!(
                        row[b],
                        (best != UNREACHABLE).then_some(u32::from(best)),
                        "{a} -> {b} spent {spent:b}"
                    );
                }
                assert_eq!(pairs[b][b], Some(0));
            }
        }
    }
}
