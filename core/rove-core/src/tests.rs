//! Unit tests on a small hand-built deck.  The core is held to the Python engine by the
//! property and differential tests in `tests/test_core.py`; these check the crate on
//! its own, with answers worked out by hand.

use crate::astar::solve_mission;
use crate::budget::{Budget, NoHooks, Stop};
use crate::closure::walk;
use crate::deck::{Ability, Arrow, ArrowKind, Card, Deck, Module, PatCell, Pattern, Rules};
use crate::game::{solve_game, Deepest, Options, Strategy};
use crate::grid::{pack, Cell};
use crate::heuristic::{points_obtainable, Heuristic};
use crate::key::{canonical_key, canonical_key_into, mission_key, mission_key_into};
use crate::nodes::NodeTable;
use crate::rules::{successors, useful_successors};
use crate::state::{AbilityArg, Action, Cards, State, Status};
use crate::store::StateStore;

fn arrows(kind: ArrowKind, dirs: &[u8]) -> Vec<Arrow> {
    dirs.iter().map(|&dir| Arrow { kind, dir }).collect()
}

fn module(ability: Ability, kind: ArrowKind, dirs: &[u8]) -> Module {
    let a = arrows(kind, dirs);
    Module {
        ability,
        arrows: [a.clone(), a],
    }
}

const ORTHO: [u8; 4] = [0, 2, 4, 6];

fn pattern(text: &str, codes: &str) -> Pattern {
    let mut cells = Vec::new();
    for (y, row) in text.lines().enumerate() {
        for (x, ch) in row.split(' ').enumerate() {
            let what = match ch {
                "." => continue,
                "#" => PatCell::Any,
                "_" => PatCell::Empty,
                c => PatCell::Named(codes.find(c).expect("a module code") as u8),
            };
            cells.push((x as i32, y as i32, what));
        }
    }
    Pattern::new(&cells).expect("a pattern")
}

/// Three modules: Brain (standard, orthogonal), Sensor (standard, orthogonal), Motor
/// (push, orthogonal); every card worth 1 point, 2 with its bonus.
fn deck(missions: &[&str]) -> Deck {
    let codes = "BSM";
    let modules = vec![
        module(Ability::Brain, ArrowKind::Standard, &ORTHO),
        module(Ability::Sensor, ArrowKind::Standard, &ORTHO),
        module(Ability::Motor, ArrowKind::Push, &ORTHO),
    ];
    let cards = missions
        .iter()
        .map(|m| Card {
            base: 1,
            bonus: 2,
            mission: pattern(m, codes),
            movement: pattern("# # #", codes),
        })
        .collect();
    Deck::new(modules, cards, 2, Rules::default()).expect("a deck")
}

fn state(cells: &[(i32, i32)], spent: u32, points: i32, mission: u8) -> State {
    let packed: Vec<Cell> = cells.iter().map(|&(x, y)| pack(x, y)).collect();
    State::bare(&packed, spent, points, mission)
}

#[test]
fn patterns_match_by_translation_with_named_and_empty_cells() {
    let p = pattern("B #\n_ .", "BSM");
    // B at (5,5), something at (6,5), nothing at (5,6)
    assert!(p.matches(&[pack(5, 5), pack(6, 5), pack(7, 5)]));
    assert!(!p.matches(&[pack(5, 5), pack(6, 5), pack(5, 6)]));
    assert!(!p.matches(&[pack(5, 5), pack(4, 5), pack(3, 5)]));
    let anonymous = pattern("#\n#", "BSM");
    assert!(anonymous.matches(&[pack(0, 0), pack(1, 0), pack(1, 1)]));
    assert!(!anonymous.matches(&[pack(0, 0), pack(1, 0), pack(2, 0)]));
}

#[test]
fn bare_budget_moves_and_abilities_are_generated() {
    // B S M in a row, 1 point: every action is a move or an ability use
    let d = deck(&["B\n#"]);
    let s = state(&[(0, 0), (1, 0), (2, 0)], 0, 1, 0);
    let succ = successors(&d, &s, false);
    assert!(succ.iter().any(|(a, _)| *a
        == Action::Move {
            module: 0,
            dir: 4,
            dist: 1
        }));
    // Motor pushes the whole row west: M W1 moves all three
    let push = succ
        .iter()
        .find(|(a, _)| {
            *a == Action::Move {
                module: 2,
                dir: 6,
                dist: 1,
            }
        })
        .expect("M pushes west");
    assert_eq!(push.1.cells(), &[pack(-1, 0), pack(0, 0), pack(1, 0)]);
    // the Sensor has no card to draw and flipping it changes nothing: not generated
    assert!(!succ.iter().any(|(a, _)| matches!(
        a,
        Action::Ability {
            arg: AbilityArg::Draw,
            ..
        }
    )));
    // every move spends the only point
    for (a, s2) in &succ {
        if a.is_move() {
            assert_eq!(s2.points, 0);
        }
    }
}

#[test]
fn a_star_finds_the_proven_optimum() {
    // Brain must stand above another module; Brain and Motor are spent, so only moves
    // (and the Sensor's draw, with nothing to draw) remain
    let d = deck(&["B\n#"]);
    let s = state(&[(0, 0), (1, 0), (2, 0)], 0b101, 5, 0);
    let mut budget = Budget::new(u64::MAX);
    let plan = solve_mission(&d, &Heuristic::new(&d), &s, None, &mut budget, &mut NoHooks)
        .unwrap()
        .expect("solvable");
    let points: i32 = plan.iter().map(|(a, _)| a.cost().0).sum();
    assert_eq!(Some(points), reference_optimum(&d, &s));
    // replaying the plan reaches the goal
    let mut cur = s;
    for (a, _) in &plan {
        cur = successors(&d, &cur, false)
            .into_iter()
            .find(|(b, _)| b == a)
            .expect("a legal step")
            .1;
    }
    assert_eq!(cur.status, Status::Goal);
}

/// Fewest points to the goal by 0-1 breadth-first search over whole states (moves cost
/// a point, everything else nothing): no heuristic, no keys, no pruning.
fn reference_optimum(d: &Deck, s: &State) -> Option<i32> {
    let mut queue = std::collections::VecDeque::from([(*s, 0)]);
    let mut best = std::collections::HashMap::from([(*s, 0)]);
    while let Some((x, g)) = queue.pop_front() {
        if best[&x] < g {
            continue;
        }
        if x.status == Status::Goal {
            return Some(g);
        }
        for (a, y) in successors(d, &x, false) {
            let g2 = g + a.cost().0;
            if best.get(&y).is_some_and(|&old| old <= g2) {
                continue;
            }
            best.insert(y, g2);
            if a.is_move() {
                queue.push_back((y, g2));
            } else {
                queue.push_front((y, g2));
            }
        }
    }
    None
}

#[test]
fn impossible_missions_are_proven_and_limits_say_so() {
    // all abilities spent, no points: nothing can change
    let d = deck(&["B _\n# ."]);
    let s = state(&[(0, 0), (1, 0), (2, 0)], 0b111, 0, 0);
    let mut budget = Budget::new(u64::MAX);
    assert_eq!(
        solve_mission(&d, &Heuristic::new(&d), &s, None, &mut budget, &mut NoHooks),
        Ok(None)
    );
    // with points the same mission is solvable, but not within one node
    let s = state(&[(0, 0), (1, 0), (2, 0)], 0b111, 3, 0);
    let mut budget = Budget::new(1);
    assert_eq!(
        solve_mission(&d, &Heuristic::new(&d), &s, None, &mut budget, &mut NoHooks),
        Err(Stop::Limit)
    );
}

#[test]
fn heuristic_is_a_lower_bound_on_a_solved_mission() {
    let d = deck(&["# #\n. B"]);
    let s = state(&[(0, 0), (1, 0), (2, 0)], 0b111, 9, 0);
    let (need, _) = Heuristic::new(&d).estimate(&d, &s);
    let mut budget = Budget::new(u64::MAX);
    let plan = solve_mission(&d, &Heuristic::new(&d), &s, None, &mut budget, &mut NoHooks)
        .unwrap()
        .expect("solvable");
    let points: i32 = plan.iter().map(|(a, _)| a.cost().0).sum();
    assert!(
        need >= 1 && need <= points,
        "bound {need}, optimum {points}"
    );
    assert_eq!(points_obtainable(&d, &s), 9);
}

#[test]
fn keys_ignore_translation_and_hand_order() {
    let a = state(&[(0, 0), (1, 0), (2, 0)], 0, 1, 0);
    let mut b = state(&[(5, -3), (6, -3), (7, -3)], 0, 1, 0);
    assert_eq!(canonical_key(&a, true), canonical_key(&b, true));
    let mut a2 = a;
    a2.hand = Cards::from_slice(&[1, 0]).unwrap();
    b.hand = Cards::from_slice(&[0, 1]).unwrap();
    assert_eq!(canonical_key(&a2, false), canonical_key(&b, false));
    b.draw = Cards::from_slice(&[2]).unwrap();
    assert_ne!(canonical_key(&a2, true), canonical_key(&b, true));
}

#[test]
fn keys_in_an_arena_are_the_keys_alone() {
    // the searches key successors into one byte arena: each key's bytes there are its
    // own key's, whatever came before it
    let d = deck(&["# #\n. B"]);
    let a = state(&[(0, 0), (1, 0), (2, 0)], 0, 1, 0);
    let mut b = state(&[(5, -3), (6, -4), (7, -3)], 0b101, 2, 0);
    b.hand = Cards::from_slice(&[1, 0]).unwrap();
    b.draw = Cards::from_slice(&[2]).unwrap();
    let mut arena = vec![7u8];
    for (s, piles) in [(&a, true), (&b, false), (&b, true)] {
        let start = arena.len();
        canonical_key_into(s, piles, &mut arena);
        assert_eq!(&arena[start..], canonical_key(s, piles).as_slice());
        let start = arena.len();
        mission_key_into(&d, s, &mut arena);
        assert_eq!(&arena[start..], mission_key(&d, s).as_slice());
    }
}

#[test]
fn bonus_play_dominates_the_base_play() {
    // the layout is a row of three, so each card's bonus pattern matches
    let d = deck(&["B\n#\n#", "S\n#"]);
    let mut s = state(&[(0, 0), (1, 0), (2, 0)], 0b111, 0, 0);
    s.hand = Cards::from_slice(&[1]).unwrap();
    let plays: Vec<_> = useful_successors(&d, &s)
        .into_iter()
        .map(|(a, _)| a)
        .collect();
    assert_eq!(
        plays,
        vec![Action::Play {
            card: 1,
            bonus: true
        }]
    );
    let all: Vec<_> = successors(&d, &s, false)
        .into_iter()
        .map(|(a, _)| a)
        .collect();
    assert_eq!(
        all,
        vec![
            Action::Play {
                card: 1,
                bonus: true
            },
            Action::Play {
                card: 1,
                bonus: false
            }
        ]
    );
}

#[test]
fn whole_deals_are_won_or_proven_lost() {
    // two missions to win; the second is revealed from the draw pile
    let d = deck(&["B S", "S\nB"]);
    let mut s = state(&[(0, 0), (1, 0), (2, 0)], 0, 0, 1);
    s.goal_mission = false;
    s.draw = Cards::from_slice(&[0]).unwrap();
    // "S above B": from B S M, abilities free
    let mut budget = Budget::new(u64::MAX);
    let mut deepest = Deepest::default();
    let got = solve_game(
        &d,
        &Heuristic::new(&d),
        &s,
        &mut budget,
        Strategy::Portfolio,
        Options::default(),
        &mut NoHooks,
        &mut deepest,
    )
    .unwrap();
    let plan = got.plan.expect("winnable");
    assert!(!plan.is_empty());
    // nothing to play and nothing left to use: lost, and proven so by both searches
    let mut stuck = s;
    stuck.spent = 0b111;
    for strategy in [Strategy::Greedy, Strategy::Deepening, Strategy::Portfolio] {
        let mut budget = Budget::new(u64::MAX);
        let got = solve_game(
            &d,
            &Heuristic::new(&d),
            &stuck,
            &mut budget,
            strategy,
            Options::default(),
            &mut NoHooks,
            &mut deepest,
        )
        .unwrap();
        assert!(got.plan.is_none(), "{strategy:?}");
    }
}

#[test]
fn lost_table_covers_dominated_states_only() {
    use crate::lost::LostTable;
    let d = deck(&["B #", "# B"]);
    let mut lost_state = state(&[(0, 0), (1, 0), (2, 0)], 0b001, 2, 0);
    lost_state.card = Some(1);
    lost_state.draw = Cards::from_slice(&[0, 1]).unwrap(); // more cards than Sensor draws left
    let mut table = LostTable::new(&d, true, 1000);
    table.record(&d, &lost_state, 3);
    fn with(s: &State, spent: u32, points: i32) -> State {
        let mut out = *s;
        (out.spent, out.points) = (spent, points);
        out
    }
    assert!(table.is_lost(&d, &lost_state, 3));
    assert!(table.is_lost(&d, &lost_state, 2), "less allowance");
    assert!(!table.is_lost(&d, &lost_state, 4), "more allowance");
    assert!(
        table.is_lost(&d, &with(&lost_state, 0b011, 2), 3),
        "more spent"
    );
    assert!(
        !table.is_lost(&d, &with(&lost_state, 0b000, 2), 3),
        "fewer spent"
    );
    assert!(
        table.is_lost(&d, &with(&lost_state, 0b001, 1), 3),
        "fewer points"
    );
    assert!(
        !table.is_lost(&d, &with(&lost_state, 0b001, 3), 3),
        "more points"
    );
    // A Sensor draw could empty the draw pile: points no longer dominate.
    let mut short = lost_state;
    short.draw = Cards::from_slice(&[0]).unwrap();
    table.record(&d, &short, 3);
    assert!(table.is_lost(&d, &short, 3));
    assert!(!table.is_lost(&d, &with(&short, 0b001, 1), 3));
    assert!(
        table.is_lost(&d, &with(&short, 0b011, 1), 3),
        "Sensor spent too"
    );
    // Without dominance only the same spent set and points count.
    let mut exact = LostTable::new(&d, false, 1000);
    exact.record(&d, &lost_state, 3);
    assert!(exact.is_lost(&d, &lost_state, 2));
    assert!(!exact.is_lost(&d, &with(&lost_state, 0b011, 2), 3));
    assert!(!exact.is_lost(&d, &with(&lost_state, 0b001, 1), 3));
    assert_eq!(exact.len(), 1);
}

/// With every ability spent, the heuristic with the tables switched on is the exact
/// mission cost: A* with it spends the optimum's points, and expands fewer nodes
/// than the plain heuristic; with the tables off (after 0) it is the plain bound.
#[test]
fn tables_make_the_all_spent_cost_exact() {
    let d = deck(&["# #\n. B", "B _\n# ."]);
    let tabled = Heuristic::with_tables(&d);
    for (cells, mission) in [
        ([(0, 0), (1, 0), (2, 0)], 0u8),
        ([(0, 0), (1, 1), (2, 2)], 0),
        ([(1, 0), (0, 1), (1, 2)], 1),
    ] {
        let s = state(&cells, 0b111, 9, mission);
        let want = reference_optimum(&d, &s);
        tabled.start_solve(0);
        assert_eq!(tabled.estimate(&d, &s), Heuristic::new(&d).estimate(&d, &s));
        tabled.start_solve(1);
        let (need, abilities) = tabled.estimate(&d, &s);
        assert_eq!((Some(need), abilities), (want, 0), "{cells:?}");
        let mut plain_budget = Budget::new(u64::MAX);
        let plain = solve_mission(
            &d,
            &Heuristic::new(&d),
            &s,
            None,
            &mut plain_budget,
            &mut NoHooks,
        )
        .unwrap()
        .expect("solvable");
        tabled.start_solve(1);
        let mut budget = Budget::new(u64::MAX);
        let plan = solve_mission(&d, &tabled, &s, None, &mut budget, &mut NoHooks)
            .unwrap()
            .expect("solvable");
        let points = |p: &[(Action, i32)]| p.iter().map(|(a, _)| a.cost().0).sum::<i32>();
        assert_eq!((Some(points(&plan)), points(&plain)), (want, want.unwrap()));
        assert!(budget.nodes <= plain_budget.nodes);
        assert_eq!(tabled.table_stats().used, 1);
    }
}

/// The cost of a plan, in the order plans are compared.
fn plan_cost(plan: &[(Action, i32)]) -> (i32, i32, i32) {
    plan.iter().fold((0, 0, 0), |g, (a, _)| {
        let c = a.cost();
        (g.0 + c.0, g.1 + c.1, g.2 + c.2)
    })
}

/// Play `plan` from `s` through the successor generator; the state it ends in.  Only
/// the last step may end the mission.
fn play_plan(d: &Deck, s: &State, plan: &[(Action, i32)]) -> State {
    let mut cur = *s;
    for (i, (a, _)) in plan.iter().enumerate() {
        assert_eq!(
            cur.status,
            Status::Playing,
            "the mission ended before step {i}"
        );
        cur = successors(d, &cur, false)
            .into_iter()
            .find(|(b, _)| b == a)
            .expect("a legal step")
            .1;
    }
    cur
}

/// Starts and missions for the zero-point walk: a row, a column, a bent line, each with
/// every ability available and a bare budget.
fn walk_cases() -> (Deck, Vec<State>) {
    let d = deck(&[
        "B\n#", "S\nB", "M B", "B _\n# .", "# #\n. B", "S . M", "M\nS\nB", "B . . S",
    ]);
    let layouts = [
        [(0, 0), (1, 0), (2, 0)],
        [(0, 0), (0, 1), (0, 2)],
        [(0, 0), (1, 0), (1, 1)],
        [(2, 0), (1, 0), (0, 0)],
    ];
    let starts = layouts.iter().map(|cells| state(cells, 0, 9, 0)).collect();
    (d, starts)
}

#[test]
fn zero_point_walk_gives_the_a_star_optimum() {
    let (d, starts) = walk_cases();
    let missions: Vec<u8> = (0..d.cards.len() as u8).collect();
    let (mut settled, mut left) = (0, 0);
    for start in &starts {
        let mut budget = Budget::new(u64::MAX);
        let got = walk(
            &d,
            &Heuristic::new(&d),
            start,
            &missions,
            &mut budget,
            &mut NoHooks,
        );
        assert_eq!(got.stopped, None);
        for (&m, plan) in missions.iter().zip(&got.plans) {
            let mut s = *start;
            s.mission = Some(m);
            let mut budget = Budget::new(u64::MAX);
            let best = solve_mission(&d, &Heuristic::new(&d), &s, None, &mut budget, &mut NoHooks)
                .unwrap();
            let matches_now = d.cards[m as usize].mission.matches(s.cells());
            match plan {
                Some(plan) => {
                    settled += 1;
                    let (points, cards, abilities) = plan_cost(plan);
                    assert_eq!((points, cards), (0, 0));
                    assert!(abilities >= 1 && !matches_now);
                    assert_eq!(
                        Some(plan_cost(plan)),
                        best.as_deref().map(plan_cost),
                        "start {start:?} mission {m}"
                    );
                    assert_eq!(play_plan(&d, &s, plan).status, Status::Goal);
                }
                None => {
                    left += 1;
                    // the walk ran out of states: the optimum needs a point or a card,
                    // or the mission matched the start (A* answers it)
                    assert!(got.exhausted);
                    let cost = best.as_deref().map(plan_cost);
                    assert!(
                        matches_now || cost.is_none_or(|c| c.0 + c.1 > 0),
                        "mission {m}: {cost:?}"
                    );
                }
            }
        }
    }
    assert!(settled >= 10 && left >= 3, "settled {settled}, left {left}");
}

#[test]
fn zero_point_walk_stops_at_its_node_limit_with_exact_finds() {
    let (d, starts) = walk_cases();
    let missions: Vec<u8> = (0..d.cards.len() as u8).collect();
    let start = &starts[0];
    let mut budget = Budget::new(u64::MAX);
    let full = walk(
        &d,
        &Heuristic::new(&d),
        start,
        &missions,
        &mut budget,
        &mut NoHooks,
    );
    assert!(budget.nodes > 3, "{}", budget.nodes);
    // a walk stopped at its limit finds a subset, each at the same cost
    let mut found_some = false;
    for limit in [2, budget.nodes / 2] {
        let mut small = Budget::new(limit);
        let got = walk(
            &d,
            &Heuristic::new(&d),
            start,
            &missions,
            &mut small,
            &mut NoHooks,
        );
        assert_eq!(
            (got.stopped, got.exhausted, small.nodes),
            (Some(Stop::Limit), false, limit)
        );
        assert!(
            got.plans.iter().filter(|p| p.is_some()).count()
                < full.plans.iter().filter(|p| p.is_some()).count()
        );
        for (plan, whole) in got.plans.iter().zip(&full.plans) {
            if let Some(plan) = plan {
                found_some = true;
                assert_eq!(Some(plan_cost(plan)), whole.as_deref().map(plan_cost));
            }
        }
    }
    assert!(found_some);
}

#[test]
fn ability_successors_are_the_useful_successors_ability_uses() {
    let (d, starts) = walk_cases();
    let mut out = Vec::new();
    for start in &starts {
        for s in
            std::iter::once(*start).chain(useful_successors(&d, start).into_iter().map(|(_, s)| s))
        {
            crate::rules::ability_successors_into(&d, &s, &mut out);
            let want: Vec<_> = useful_successors(&d, &s)
                .into_iter()
                .filter(|(a, _)| matches!(a, Action::Ability { .. }))
                .collect();
            assert_eq!(out, want);
        }
    }
}

/// The zero-point walk lets a state's children inherit which missions' point bound is
/// positive: that needs the point bound never to fall along an ability use.  Checked
/// over every ability use from the walk cases' starts two uses deep, for every mission.
#[test]
fn point_bound_never_falls_along_an_ability_use() {
    let (d, starts) = walk_cases();
    let h = Heuristic::new(&d);
    let mut out = Vec::new();
    let mut checked = 0;
    for start in &starts {
        let mut level = vec![*start];
        for _ in 0..2 {
            let mut next = Vec::new();
            for s in &level {
                crate::rules::ability_successors_into(&d, s, &mut out);
                for (_, s2) in &out {
                    for m in 0..d.cards.len() as u8 {
                        let (mut a, mut b) = (*s, *s2);
                        (a.mission, b.mission) = (Some(m), Some(m));
                        assert!(
                            h.estimate(&d, &a).0 <= h.estimate(&d, &b).0,
                            "{a:?} -> {b:?}"
                        );
                        checked += 1;
                    }
                    next.push(*s2);
                }
            }
            level = next;
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn a_packed_state_unpacks_equal() {
    // whole-deal states two actions deep (cards in every list, a current card), and the
    // edge values a field may hold, with every status
    let d = deck(&["B S", "S\nB", "M B"]);
    let mut s = state(&[(0, 0), (1, 0), (2, 0)], 0, 0, 1);
    s.goal_mission = false;
    s.hand = Cards::from_slice(&[2, 0]).unwrap();
    s.draw = Cards::from_slice(&[0]).unwrap();
    s.completed = Cards::from_slice(&[1]).unwrap();
    let mut states = vec![s];
    for _ in 0..2 {
        let next: Vec<State> = states
            .iter()
            .flat_map(|x| successors(&d, x, true))
            .map(|(_, y)| y)
            .collect();
        states.extend(next);
    }
    assert!(states.iter().any(|x| x.card.is_some()));
    let mut edge = s;
    (edge.card, edge.mission, edge.points, edge.done) = (None, None, -7, i32::MAX);
    edge.cells[0] = pack(-40, 63);
    for status in [Status::Playing, Status::Won, Status::Lost, Status::Goal] {
        assert_eq!(Status::from_code(status.code()), Some(status));
        states.push(State { status, ..edge });
    }
    assert_eq!(Status::from_code(4), None);
    let mut store = StateStore::new();
    for x in &states {
        store.push(x);
    }
    assert_eq!(store.len(), states.len());
    for (i, x) in states.iter().enumerate() {
        assert_eq!(store.get(i), *x);
    }
}

#[test]
fn the_node_table_finds_every_key_it_recorded_across_its_growths() {
    // keys of several lengths, some sharing prefixes, many more than the first table holds
    let key = |i: u32| -> Vec<u8> {
        let mut k = i.to_le_bytes().to_vec();
        k.truncate(1 + (i % 4) as usize);
        k.extend(std::iter::repeat_n(7, (i % 5) as usize));
        k
    };
    let mut keys: Vec<Vec<u8>> = (0..200_000).map(key).collect();
    keys.sort();
    keys.dedup();
    let mut t: NodeTable<i32> = NodeTable::new(&keys[0], 0, usize::MAX);
    let a = Action::Play {
        card: 0,
        bonus: false,
    };
    for (i, k) in keys.iter().enumerate().skip(1) {
        let slot = t.slot(k);
        assert!(
            !slot.known_at(i32::MAX),
            "key {i} found before it was recorded"
        );
        assert_eq!(slot.record(i as i32, 0, a, 0), Ok(i as u32));
    }
    for (i, k) in keys.iter().enumerate() {
        let slot = t.slot(k);
        assert!(
            slot.known_at(i as i32) && !slot.known_at(i as i32 - 1),
            "key {i}"
        );
        assert_eq!(t.best(i as u32), i as i32);
    }
    // a known key re-recorded more cheaply keeps its id; a key beyond the cap is a Limit
    assert_eq!(t.slot(&keys[5]).record(-1, 0, a, 0), Ok(5));
    assert_eq!(t.best(5), -1);
    let mut small: NodeTable<i32> = NodeTable::new(&keys[0], 0, 1);
    assert_eq!(small.slot(&keys[1]).record(1, 0, a, 0), Err(Stop::Limit));
}
