//! Successor generation: every legal action and the state after it.
//!
//! A mirror of `rove.engine.successors`, in the same order (card plays, then moves
//! module by module and arrow by arrow, then ability uses), so that both engines agree
//! successor for successor; the property tests in `tests/test_core.py` hold them to it.
//! The Python engine stays the referee: every plan the core finds is replayed there.

use crate::deck::{Ability, ArrowKind, Deck, HAND_LIMIT, MAX_MODULES};
use crate::grid::{adjacent, unpack, valid, Cell, Layout, DX, DY, NB};
use crate::state::{AbilityArg, Action, CardId, State, Status};
use smallvec::SmallVec;

/// Take the top card of the draw pile, recycling the discard pile as the rules say.
fn take(deck: &Deck, s: &mut State) -> Option<CardId> {
    if s.draw.is_empty() && !s.discard.is_empty() {
        std::mem::swap(&mut s.draw, &mut s.discard);
    }
    if s.draw.is_empty() {
        return None;
    }
    let card = s.draw.take_first()?;
    if s.draw.is_empty() && !s.discard.is_empty() && deck.rules.recycle_when_empty {
        std::mem::swap(&mut s.draw, &mut s.discard);
    }
    Some(card)
}

/// Draw one card when the hand has room and a card can be had.
fn draw_one(deck: &Deck, s: &mut State) -> bool {
    if s.hand.len() < HAND_LIMIT {
        if let Some(c) = take(deck, s) {
            s.hand.push(c);
            return true;
        }
    }
    false
}

fn discard_current(s: &mut State) {
    if let Some(c) = s.card.take() {
        s.discard.push(c);
    }
    s.points = 0;
}

/// The completion procedure as a unit: discard, reveal, draw 1; then check the newly
/// revealed mission when the rules complete on reveal.
fn complete(deck: &Deck, s: &mut State) {
    loop {
        discard_current(s);
        s.done += 1;
        s.completed
            .push(s.mission.take().expect("a mission to complete"));
        if s.goal_mission {
            s.status = Status::Goal;
            return;
        }
        if s.done >= deck.missions_to_win {
            s.status = Status::Won;
            return;
        }
        let Some(next) = take(deck, s) else {
            s.status = Status::Lost;
            return;
        };
        s.mission = Some(next);
        draw_one(deck, s);
        if !(deck.rules.auto_complete_on_reveal
            && deck.cards[next as usize].mission.matches(s.cells()))
        {
            return;
        }
    }
}

/// The check after every action: complete the current mission if the layout matches.
pub fn check_mission(deck: &Deck, s: &mut State) {
    if s.status == Status::Playing {
        if let Some(m) = s.mission {
            if deck.cards[m as usize].mission.matches(s.cells()) {
                complete(deck, s);
            }
        }
    }
}

/// A position's own mission counts as just revealed.
pub fn reveal_check(deck: &Deck, s: &mut State) {
    if deck.rules.auto_complete_on_reveal {
        check_mission(deck, s);
    }
}

fn play(deck: &Deck, s: &State, c: CardId, bonus: bool) -> State {
    let mut s = *s;
    discard_current(&mut s);
    s.hand.remove(c);
    let card = &deck.cards[c as usize];
    let pts = if bonus { card.bonus } else { card.base };
    if pts == 0 {
        s.discard.push(c);
    } else {
        s.card = Some(c);
        s.points = pts;
    }
    s
}

/// Move module `i` by `dist` steps of `off`; a push (`dist` 1) also moves the chain of
/// modules in its way one step on.
fn apply_arrow(cells: &mut [Cell], i: usize, off: Cell, dist: i32, push: bool) {
    let land = cells[i] + off * dist;
    if push {
        // the chain's modules, nearest first, then each one step on
        let mut chain = [0usize; MAX_MODULES];
        let mut len = 0;
        let mut c = land;
        while let Some(j) = cells.iter().position(|&d| d == c) {
            chain[len] = j;
            len += 1;
            c += off;
        }
        for &j in &chain[..len] {
            cells[j] += off;
        }
    }
    cells[i] = land;
}

/// Whether module `i` may use one arrow for `dist` cells with the layout staying valid.
fn arrow_legal(
    cells: &[Cell],
    layout: &Layout,
    i: usize,
    kind: ArrowKind,
    off: Cell,
    dist: i32,
) -> bool {
    let start = cells[i];
    let land = start + off * dist;
    match kind {
        ArrowKind::Push => {
            if dist != 1 {
                return false;
            }
            if !cells.contains(&land) {
                return layout.can_place(i, land);
            }
            // a chain moved: the whole layout decides
            let mut new = [0; MAX_MODULES];
            new[..cells.len()].copy_from_slice(cells);
            apply_arrow(&mut new[..cells.len()], i, off, dist, true);
            valid(&new[..cells.len()])
        }
        ArrowKind::Short if dist != 1 => false,
        ArrowKind::Jump if dist < 2 || !(1..dist).any(|k| cells.contains(&(start + off * k))) => {
            false
        }
        // can_place also refuses an occupied landing cell
        _ => layout.can_place(i, land),
    }
}

/// Every legal move of module `i`: (direction, distance, whether it pushes a chain),
/// in the engine's order.
///
/// A landing cell must touch another module, so it lies in the others' bounding box
/// grown by one; the box is convex and holds the start, so distances stop where the
/// line leaves it.
fn module_moves(
    deck: &Deck,
    cells: &[Cell],
    spent: u32,
    i: usize,
    layout: &Layout,
    out: &mut SmallVec<[(u8, i32, bool); 32]>,
) {
    let side = (spent >> i & 1) as usize;
    let (sx, sy) = unpack(cells[i]);
    let (mut x0, mut x1, mut y0, mut y1) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for (j, &c) in cells.iter().enumerate() {
        if j != i {
            let (x, y) = unpack(c);
            x0 = x0.min(x - 1);
            x1 = x1.max(x + 1);
            y0 = y0.min(y - 1);
            y1 = y1.max(y + 1);
        }
    }
    if cells.len() == 1 {
        (x0, x1, y0, y1) = (sx - 2, sx + 2, sy - 2, sy + 2);
    }
    let first = out.len();
    for arrow in &deck.modules[i].arrows[side] {
        let d = arrow.dir as usize;
        let off = NB[d];
        let mut k = if arrow.kind == ArrowKind::Jump { 2 } else { 1 };
        let last = if matches!(arrow.kind, ArrowKind::Short | ArrowKind::Push) {
            1
        } else {
            i32::MAX
        };
        while k <= last {
            let (x, y) = (sx + DX[d] * k, sy + DY[d] * k);
            if !(x0 <= x && x <= x1 && y0 <= y && y <= y1) {
                break;
            }
            let fresh = !out[first..]
                .iter()
                .any(|&(d2, k2, _)| (d2, k2) == (arrow.dir, k));
            if fresh && arrow_legal(cells, layout, i, arrow.kind, off, k) {
                // a push moves a chain only when its landing cell is taken
                let push = arrow.kind == ArrowKind::Push && cells.contains(&(cells[i] + off));
                out.push((arrow.dir, k, push));
            }
            k += 1;
        }
    }
}

/// Every use of `actor`'s ability that keeps the layout valid.  Brain putting a module
/// back on its own cell is included (the caller drops no-ops, see `is_noop`).
fn layout_abilities(
    deck: &Deck,
    cells: &[Cell],
    layout: &Layout,
    actor: usize,
    out: &mut SmallVec<[AbilityArg; 64]>,
) {
    let n = cells.len();
    match deck.modules[actor].ability {
        Ability::Sensor => out.push(AbilityArg::Draw),
        Ability::Laser => {
            for a in 0..n {
                for b in a + 1..n {
                    out.push(AbilityArg::Swap(a as u8, b as u8));
                }
            }
        }
        Ability::Motor => {
            for (t, &from) in cells.iter().enumerate() {
                for (d, &o) in NB.iter().enumerate() {
                    if layout.can_place(t, from + o) {
                        out.push(AbilityArg::Shift {
                            target: t as u8,
                            dir: d as u8,
                        });
                    }
                }
            }
        }
        Ability::Brain => {
            let centre = cells[actor];
            for t in (0..n).filter(|&t| t != actor) {
                for &o in &NB {
                    let land = centre + o;
                    if land == cells[t] || layout.can_place(t, land) {
                        out.push(AbilityArg::Place {
                            target: t as u8,
                            to: land,
                        });
                    }
                }
            }
        }
        Ability::Coil => {
            for land in layout.relocation(actor) {
                out.push(AbilityArg::To(land));
            }
        }
        Ability::Gripper => {}
    }
}

/// Apply a layout ability of `actor` to `cells` (Sensor: nothing to move).
fn apply_ability(cells: &mut [Cell], actor: usize, arg: AbilityArg) {
    match arg {
        AbilityArg::Draw => {}
        AbilityArg::Swap(a, b) => cells.swap(a as usize, b as usize),
        AbilityArg::Shift { target, dir } => cells[target as usize] += NB[dir as usize],
        AbilityArg::Place { target, to } => cells[target as usize] = to,
        AbilityArg::To(to) => cells[actor] = to,
    }
}

/// Whether a layout ability leaves the layout as it was.  On a valid layout (distinct
/// cells) only Brain can: by putting a module back on its own cell; a swap, a shift and
/// a Coil relocation (to an empty cell) always move something.
fn is_noop(cells: &[Cell], arg: AbilityArg) -> bool {
    matches!(arg, AbilityArg::Place { target, to } if cells[target as usize] == to)
}

/// Every legal ability use and the state right after it (before the mission check).
///
/// No-ops (nothing changes but a flip that does not change arrows) are skipped unless
/// `include_noops`, or unless the current mission matches and waits for the next action
/// (`auto_complete_on_reveal: false`): then even a no-op completes it.
fn ability_uses(
    deck: &Deck,
    s: &State,
    layout: &Layout,
    include_noops: bool,
    out: &mut Vec<(Action, State)>,
) {
    let cells = s.cells();
    let n = cells.len();
    let mut include_noops = include_noops;
    if !include_noops && !deck.rules.auto_complete_on_reveal {
        if let Some(m) = s.mission {
            include_noops = deck.cards[m as usize].mission.matches(cells);
        }
    }
    let mut uses: SmallVec<[AbilityArg; 64]> = SmallVec::new();
    for g in 0..n {
        if s.is_spent(g) {
            continue;
        }
        let spent = s.spent | 1 << g;
        let module = &deck.modules[g];
        let keep_noop = include_noops || module.flip_matters();
        let mut actors = [0usize; MAX_MODULES];
        let mut count = 0;
        if module.ability == Ability::Gripper {
            for t in 0..n {
                if t != g
                    && adjacent(cells[g], cells[t])
                    && deck.modules[t].ability != Ability::Gripper
                    && !(deck.rules.gripper_active_only && s.is_spent(t))
                {
                    actors[count] = t;
                    count += 1;
                }
            }
        } else {
            actors[0] = g;
            count = 1;
        }
        for &actor in &actors[..count] {
            uses.clear();
            layout_abilities(deck, cells, layout, actor, &mut uses);
            let via = (actor != g).then_some(actor as u8);
            for &arg in &uses {
                let act = Action::Ability {
                    module: g as u8,
                    via,
                    arg,
                };
                if arg == AbilityArg::Draw {
                    let mut s2 = *s;
                    s2.spent = spent;
                    if draw_one(deck, &mut s2) || keep_noop {
                        out.push((act, s2));
                    }
                    continue;
                }
                if !keep_noop && is_noop(cells, arg) {
                    continue;
                }
                // built in place in the output: a state is a few hundred bytes
                out.push((act, *s));
                let s2 = &mut out.last_mut().expect("just pushed").1;
                apply_ability(&mut s2.cells[..n], actor, arg);
                s2.spent = spent;
            }
        }
    }
}

/// Every legal action with the state after it (mission checks included), in the
/// Python engine's order.
pub fn successors(deck: &Deck, s: &State, include_noops: bool) -> Vec<(Action, State)> {
    let mut out = Vec::with_capacity(64);
    successors_into(deck, s, include_noops, &mut out);
    out
}

/// `successors`, appended to `out`: a search reuses one buffer per depth instead of
/// allocating a list of a few kilobytes per node.
pub fn successors_into(
    deck: &Deck,
    s: &State,
    include_noops: bool,
    out: &mut Vec<(Action, State)>,
) {
    successors_with(deck, s, include_noops, Plays::All, out);
}

/// Which card plays a successor list holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plays {
    All,
    /// none for base points when the bonus is there (see [`useful_successors`])
    Useful,
    None,
}

/// `successors_into` with only the card plays `plays` keeps, the others never built:
/// a search that dropped them from the full list afterwards moved every later
/// successor (the moves and abilities after the plays, a few hundred bytes each) once
/// for each play dropped.
fn successors_with(
    deck: &Deck,
    s: &State,
    include_noops: bool,
    plays: Plays,
    out: &mut Vec<(Action, State)>,
) {
    if s.status != Status::Playing {
        return;
    }
    let cells = s.cells();
    // where each module alone may go: asked by moves, Motor, Brain and Coil alike
    let layout = Layout::new(cells);
    for (idx, &c) in s.hand.as_slice().iter().enumerate() {
        if plays == Plays::None {
            break;
        }
        if s.hand.as_slice()[..idx].contains(&c) {
            continue;
        }
        let matched = deck.cards[c as usize].movement.matches(cells);
        for bonus in [true, false] {
            if bonus && !matched || !bonus && matched && plays == Plays::Useful {
                continue;
            }
            let mut s2 = play(deck, s, c, bonus);
            check_mission(deck, &mut s2);
            out.push((Action::Play { card: c, bonus }, s2));
        }
    }
    if s.points >= 1 {
        let mut moves: SmallVec<[(u8, i32, bool); 32]> = SmallVec::new();
        for i in 0..cells.len() {
            moves.clear();
            module_moves(deck, cells, s.spent, i, &layout, &mut moves);
            for &(dir, dist, push) in &moves {
                // built in place in the output: a state is a few hundred bytes
                out.push((
                    Action::Move {
                        module: i as u8,
                        dir,
                        dist,
                    },
                    *s,
                ));
                let s2 = &mut out.last_mut().expect("just pushed").1;
                apply_arrow(
                    &mut s2.cells[..cells.len()],
                    i,
                    NB[dir as usize],
                    dist,
                    push,
                );
                s2.points -= 1;
                if s2.points == 0 {
                    discard_current(s2);
                }
                check_mission(deck, s2);
            }
        }
    }
    abilities_into(deck, s, &layout, include_noops, out);
}

/// The ability uses among `successors` (the same states, in the same order), mission
/// checks included, appended to `out`.
fn abilities_into(
    deck: &Deck,
    s: &State,
    layout: &Layout,
    include_noops: bool,
    out: &mut Vec<(Action, State)>,
) {
    let first_ability = out.len();
    ability_uses(deck, s, layout, include_noops, out);
    for (_, s2) in &mut out[first_ability..] {
        check_mission(deck, s2);
    }
}

/// The ability uses among `useful_successors`, into `out` (cleared first): the
/// successors a walk that spends no point and plays no card follows, without
/// generating the moves and plays it would drop (a bare budget's moves are most of a
/// start's successors).  `useful_successors` drops card plays only, so these are its
/// ability successors exactly, in its order.
pub fn ability_successors_into(deck: &Deck, s: &State, out: &mut Vec<(Action, State)>) {
    out.clear();
    if s.status == Status::Playing {
        abilities_into(deck, s, &Layout::new(s.cells()), false, out);
    }
}

/// Successors without dominated card plays: base points when the bonus is there.
///
/// The bonus play does all the base play does, with more points; the one difference is
/// that a card played for base runs out, and so reaches the discard pile, sooner.  That
/// matters only if Sensor draws can empty both piles and take it back into the hand
/// before the bonus line would have discarded it, so while the piles hold fewer cards
/// than the Sensor draws left, both plays are kept.
pub fn useful_successors(deck: &Deck, s: &State) -> Vec<(Action, State)> {
    let mut out = Vec::with_capacity(64);
    useful_successors_into(deck, s, &mut out);
    out
}

/// `useful_successors`, into `out` (cleared first).
pub fn useful_successors_into(deck: &Deck, s: &State, out: &mut Vec<(Action, State)>) {
    mission_successors_into(deck, s, true, out);
}

/// `useful_successors` into `out` (cleared first), without its card plays unless
/// `plays` (A* drops them where a play would waste the current card).
pub fn mission_successors_into(
    deck: &Deck,
    s: &State,
    plays: bool,
    out: &mut Vec<(Action, State)>,
) {
    out.clear();
    let piles = s.draw.len() + s.discard.len();
    let plays = if !plays {
        Plays::None
    } else if piles >= deck.sensor_draws_left(s.spent) {
        Plays::Useful
    } else {
        Plays::All
    };
    successors_with(deck, s, false, plays, out);
}
