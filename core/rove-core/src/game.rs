//! Whole-deal winnability: exact depth-first search with lost tables.
//!
//! "Thoughtful" in the solitaire-solver sense: the whole draw order is known.  The same
//! two searches as `rove.solve.winnable`, run as a portfolio:
//!
//! 1. a greedy dive through every legal action, completing actions first and then those
//!    that bring the layout closest to the mission; it finds most wins in a few hundred
//!    nodes, and has a fixed share of the node limit;
//! 2. mission by mission, iterative deepening on the points spent on the current
//!    mission, so the cheapest completions (which keep cards, points and abilities for
//!    later missions) are tried first; the last depth is every point the state can still
//!    obtain for the mission, so exhausting it is a proof.
//!
//! The work is split by nodes only, so where the portfolio switches does not depend on
//! the machine's speed.  States shown to lose go to a lost table ([`crate::lost`]) with
//! the points allowance they lost under.
//!
//! **Why the cuts are sound.**  A child is cut when the points its mission still needs
//! (`Heuristic::points_needed`) exceed the points it may still spend on it (the cap or
//! allowance) or every point it can still obtain before the mission completes
//! (`heuristic::points_obtainable`).  Both sides are bounds in the right direction:
//!
//! * *needed* is a lower bound on the moves (one point each) any completion makes.
//!   Where the heuristic uses a distance table ([`crate::tables`]: every unspent
//!   module, if any, is a Sensor, so nothing but moves changes the layout until the
//!   mission completes), it is the fewest moves from the layout to one matching the
//!   mission, by the arrows the modules have and may get from a Sensor's flip: a
//!   completion needs the layout to match after some action, and card plays, draws
//!   and Sensor uses leave it as it is.  A layout from which no move sequence matches
//!   is cut whatever points remain.
//! * *obtainable* is an upper bound on the points that can still be spent on this
//!   mission: the current card's points left, plus each card in hand at its bonus
//!   (bonus > base points, the spec says so), plus, per Sensor draw left, the deck's
//!   largest bonus.  Until the mission completes no card is drawn but by a Sensor (a
//!   completion's draw comes after it), so a card played now reaches the hand again
//!   only by such a draw, which the last term already counts (whatever it draws,
//!   recycled discards included).

use crate::budget::{Budget, Hooks, Stop};
use crate::deck::Deck;
use crate::heuristic::{points_obtainable, Heuristic};
use crate::lost::LostTable;
use crate::rules::useful_successors_into;
use crate::state::{Action, CardId, State, Status};

/// An allowance larger than any number of points a game can spend.
pub const INF: i32 = 1 << 30;
/// The greedy dive gets at least this many nodes,
pub const GREEDY_NODES: u64 = 2000;
/// and this share of the node limit.
pub const GREEDY_SHARE: f64 = 0.05;

/// The deepest line so far: missions done and the mission it could not complete (a lost
/// deal's blocker).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deepest {
    pub done: Option<i32>,
    pub mission: Option<CardId>,
}

struct GameSearch<'a> {
    deck: &'a Deck,
    h: &'a Heuristic,
    hooks: &'a mut dyn Hooks,
    budget: Budget,
    /// states shown to lose, each with the points allowance it lost under (a mission's
    /// first state shown to lose whatever is spent on it is stored with [`INF`])
    lost: LostTable,
    deepest: Deepest,
    /// successor lists no node is using: one per depth is enough, and reusing them
    /// saves an allocation of a few kilobytes per node
    buffers: Vec<Vec<(Action, State)>>,
}

/// A child's place in the order its node tries them (smallest first).
type Order = (i32, i32, bool, bool);
/// A child worth trying: (its place in the order, index in the successor list, points).
type Child = (Order, usize, i32);

impl<'a> GameSearch<'a> {
    fn new(
        deck: &'a Deck,
        h: &'a Heuristic,
        hooks: &'a mut dyn Hooks,
        budget: Budget,
        options: Options,
        deepest: Deepest,
    ) -> Self {
        let lost = LostTable::new(deck, options.dominance, budget.table_cap);
        GameSearch {
            deck,
            h,
            hooks,
            budget,
            lost,
            deepest,
            buffers: Vec::new(),
        }
    }

    fn note_depth(&mut self, s: &State) {
        if s.done > self.deepest.done.unwrap_or(-1) {
            self.deepest = Deepest {
                done: Some(s.done),
                mission: s.mission,
            };
            self.hooks.deepest(s.done);
        }
    }

    fn is_lost(&self, s: &State, allowance: i32) -> bool {
        self.lost.is_lost(self.deck, s, allowance)
    }

    fn record_loss(&mut self, s: &State, allowance: i32) {
        self.lost.record(self.deck, s, allowance);
    }

    /// A winning plan from the first state of a mission, or None when none exists.
    ///
    /// The mission is tried with a growing cap on the points spent on it (the lower
    /// bound, one more, then all), so the cheapest completions are tried first.  The
    /// last cap is all the points the state can still obtain, so a None is a proof.
    fn win_from(&mut self, s: &State) -> Result<Option<Vec<Action>>, Stop> {
        match s.status {
            Status::Won => return Ok(Some(Vec::new())),
            Status::Playing => {}
            _ => return Ok(None),
        }
        if self.is_lost(s, INF) {
            return Ok(None);
        }
        self.note_depth(s);
        let need = self.h.points_needed(self.deck, s);
        let top = points_obtainable(self.deck, s);
        let mut caps = vec![need.min(top), (need + 1).min(top), top];
        caps.sort_unstable();
        caps.dedup();
        for cap in caps {
            if let Some(plan) = self.mission(s, cap)? {
                return Ok(Some(plan));
            }
        }
        self.record_loss(s, INF);
        Ok(None)
    }

    /// A winning plan that spends at most `cap` points before this mission completes.
    fn mission(&mut self, s: &State, cap: i32) -> Result<Option<Vec<Action>>, Stop> {
        if self.is_lost(s, cap) {
            return Ok(None);
        }
        self.budget.tick(self.hooks)?;
        let successors = self.successors(s);
        let got = match self.children(&successors, cap, |a, s2, need| {
            if s2.done > s.done {
                Some((0, 0, false, false))
            } else {
                // no completion within the cap, or none at all (see "Why the cuts are sound")
                need().map(|need| (1, need, is_ability(a), is_play(a)))
            }
        }) {
            Err(win) => Ok(Some(vec![win])),
            Ok(children) => self.first_win(&successors, children, |search, s2, cost| {
                if s2.done > s.done {
                    search.win_from(s2)
                } else {
                    search.mission(s2, cap - cost)
                }
            }),
        };
        self.settle(s, cap, successors, got)
    }

    /// A winning plan from `s` spending at most `allowance` points, or None.
    fn run(&mut self, s: &State, allowance: i32) -> Result<Option<Vec<Action>>, Stop> {
        match s.status {
            Status::Won => return Ok(Some(Vec::new())),
            Status::Playing => {}
            _ => return Ok(None),
        }
        if self.is_lost(s, allowance) {
            return Ok(None);
        }
        self.budget.tick(self.hooks)?;
        self.note_depth(s);
        let successors = self.successors(s);
        // completing missions first, then the closest to the mission, moves before abilities
        let got = match self.children(&successors, allowance, |a, s2, need| {
            need().map(|need| (-s2.done, need, is_ability(a), is_play(a)))
        }) {
            Err(win) => Ok(Some(vec![win])),
            Ok(children) => self.first_win(&successors, children, |search, s2, cost| {
                search.run(s2, allowance - cost)
            }),
        };
        self.settle(s, allowance, successors, got)
    }

    /// The children of a node worth trying, spending at most `allowance` points, each
    /// in its place in the order `order` gives it (None: cut); or a successor that wins
    /// the game at once.  `order` gets the action, the child and its points bound, to
    /// call when it needs it: the child's [`Heuristic::points_needed`], None when that
    /// exceeds what the child may still spend (the allowance left after the action) or
    /// can still obtain (see "Why the cuts are sound").
    fn children(
        &self,
        successors: &[(Action, State)],
        allowance: i32,
        mut order: impl FnMut(&Action, &State, &dyn Fn() -> Option<i32>) -> Option<Order>,
    ) -> Result<Vec<Child>, Action> {
        let mut children: Vec<Child> = Vec::new();
        for (i, (a, s2)) in successors.iter().enumerate() {
            let cost = i32::from(a.is_move());
            if cost > allowance {
                continue;
            }
            if s2.status == Status::Won {
                return Err(*a);
            }
            if s2.status != Status::Playing {
                continue;
            }
            let need = || {
                let need = self.h.points_needed(self.deck, s2);
                (need <= allowance - cost && need <= points_obtainable(self.deck, s2))
                    .then_some(need)
            };
            if let Some(place) = order(a, s2, &need) {
                children.push((place, i, cost));
            }
        }
        Ok(children)
    }

    /// The plan through the first child, in the children's order, from which `search`
    /// (given the child's state and the points its action cost) finds a win.
    fn first_win(
        &mut self,
        successors: &[(Action, State)],
        mut children: Vec<Child>,
        mut search: impl FnMut(&mut Self, &State, i32) -> Result<Option<Vec<Action>>, Stop>,
    ) -> Result<Option<Vec<Action>>, Stop> {
        children.sort_by_key(|c| c.0);
        for (_, i, cost) in children {
            let (a, s2) = &successors[i];
            if let Some(sub) = search(self, s2, cost)? {
                return Ok(Some(prepend(*a, sub)));
            }
        }
        Ok(None)
    }

    /// A node's search is over: its successor list goes back to `buffers`, and a node
    /// with no win is recorded lost for `allowance`.
    fn settle(
        &mut self,
        s: &State,
        allowance: i32,
        successors: Vec<(Action, State)>,
        got: Result<Option<Vec<Action>>, Stop>,
    ) -> Result<Option<Vec<Action>>, Stop> {
        self.buffers.push(successors);
        if matches!(got, Ok(None)) {
            self.record_loss(s, allowance);
        }
        got
    }

    /// The useful successors of `s` in a reused buffer (hand it back to `buffers`), with
    /// their heuristic estimates' memory already on its way (see `Heuristic::prefetch`).
    fn successors(&mut self, s: &State) -> Vec<(Action, State)> {
        let mut out = self.buffers.pop().unwrap_or_default();
        useful_successors_into(self.deck, s, &mut out);
        for (_, s2) in &out {
            self.h.prefetch(s2);
        }
        out
    }
}

fn is_ability(a: &Action) -> bool {
    matches!(a, Action::Ability { .. })
}

fn is_play(a: &Action) -> bool {
    matches!(a, Action::Play { .. })
}

fn prepend(a: Action, mut rest: Vec<Action>) -> Vec<Action> {
    rest.insert(0, a);
    rest
}

/// What a whole-deal solve found.
#[derive(Clone, Debug)]
pub struct GameResult {
    /// A winning plan, or None when the deal is proven lost.
    pub plan: Option<Vec<Action>>,
    /// Whether the plan is proven to spend the fewest points (only with `optimal`).
    pub optimal: bool,
}

/// Which searches decide a deal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The greedy dive on a share of the nodes, then the deepening search (the default).
    Portfolio,
    /// The greedy dive alone, on the whole budget (for tests of each search).
    Greedy,
    /// The mission-by-mission deepening search alone.
    Deepening,
    /// Branch and bound on the points spent: after each win, look again for one that
    /// spends fewer points until none is left.
    Cheapest,
}

/// How the searches may prune, beyond what the rules allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Lost states also show the states they dominate lost (see [`crate::lost`]).
    pub dominance: bool,
}

impl Options {
    /// The Python reference search's algorithm: the same nodes, node for node.
    pub const REFERENCE: Options = Options { dominance: false };
}

impl Default for Options {
    fn default() -> Self {
        Options { dominance: true }
    }
}

/// Decide a whole deal with `strategy`.
///
/// `deepest` is updated as lines reach further, even when the search stops early.
/// `h` is the deck's heuristic (its memo may be warm from earlier solves of the deck).
#[allow(clippy::too_many_arguments)] // the deal, the search's settings and its two outputs
pub fn solve_game(
    deck: &Deck,
    h: &Heuristic,
    start: &State,
    budget: &mut Budget,
    strategy: Strategy,
    options: Options,
    hooks: &mut dyn Hooks,
    deepest: &mut Deepest,
) -> Result<GameResult, Stop> {
    if matches!(strategy, Strategy::Greedy | Strategy::Deepening) {
        let mut search = GameSearch::new(deck, h, hooks, budget.clone(), options, *deepest);
        let got = if strategy == Strategy::Greedy {
            search.run(start, INF)
        } else {
            search.win_from(start)
        };
        budget.nodes = search.budget.nodes;
        *deepest = search.deepest;
        return got.map(|plan| GameResult {
            plan,
            optimal: false,
        });
    }
    if strategy == Strategy::Portfolio {
        // A short greedy dive (finds most wins in a few hundred nodes), then the
        // mission-by-mission deepening search, which saves resources and proves losses.
        // Either one's None is a proof.
        let share = ((budget.max_nodes as f64 * GREEDY_SHARE) as u64).max(GREEDY_NODES);
        let mut quick_budget = Budget::new(budget.max_nodes.min(share));
        quick_budget.table_cap = budget.table_cap;
        let mut quick = GameSearch::new(deck, h, hooks, quick_budget, options, *deepest);
        let got = quick.run(start, INF);
        budget.nodes += quick.budget.nodes;
        *deepest = quick.deepest;
        match got {
            Ok(plan) => {
                return Ok(GameResult {
                    plan,
                    optimal: false,
                })
            }
            Err(Stop::Limit) if budget.nodes < budget.max_nodes => {}
            Err(stop) => return Err(stop),
        }
        let mut search = GameSearch::new(deck, h, hooks, budget.clone(), options, *deepest);
        let got = search.win_from(start);
        budget.nodes = search.budget.nodes;
        *deepest = search.deepest;
        return got.map(|plan| GameResult {
            plan,
            optimal: false,
        });
    }
    let mut search = GameSearch::new(deck, h, hooks, budget.clone(), options, *deepest);
    let outcome = (|| {
        let Some(mut plan) = search.run(start, INF)? else {
            return Ok(GameResult {
                plan: None,
                optimal: false,
            });
        };
        loop {
            let spent = plan.iter().filter(|a| a.is_move()).count() as i32;
            if spent == 0 {
                return Ok(GameResult {
                    plan: Some(plan),
                    optimal: true,
                });
            }
            match search.run(start, spent - 1) {
                Ok(None) => {
                    return Ok(GameResult {
                        plan: Some(plan),
                        optimal: true,
                    })
                }
                Ok(Some(better)) => plan = better,
                Err(Stop::Interrupted) => return Err(Stop::Interrupted),
                Err(_) => {
                    return Ok(GameResult {
                        plan: Some(plan),
                        optimal: false,
                    })
                }
            }
        }
    })();
    budget.nodes = search.budget.nodes;
    *deepest = search.deepest;
    outcome
}
