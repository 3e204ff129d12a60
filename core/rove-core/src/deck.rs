//! A spec compiled for play: modules, cards and patterns as small integers.
//!
//! The Python side (`rove.solve.core`) builds a [`Deck`] from `rove.engine.Deck` once per
//! solve; everything here mirrors that class, field for field, so that the two engines
//! generate the same successors in the same order.

use crate::grid::{Cell, STRIDE};

pub use crate::limits::MAX_MODULES;
/// Cards in hand after which draws stop (the rules' hand limit).
pub const HAND_LIMIT: usize = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ability {
    Brain,
    Coil,
    Gripper,
    Laser,
    Motor,
    Sensor,
}

impl Ability {
    /// Abilities that can bring a module into a given cell without a movement point.
    pub fn fills(self) -> bool {
        matches!(
            self,
            Ability::Brain | Ability::Coil | Ability::Motor | Ability::Gripper
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrowKind {
    Standard,
    Short,
    Jump,
    Push,
}

/// One arrow direction of a module's side: the kind and a direction index (N=0 .. NW=7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub kind: ArrowKind,
    pub dir: u8,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub ability: Ability,
    /// Per side (0 active, 1 spent), every (kind, direction) in the engine's order.
    pub arrows: [Vec<Arrow>; 2],
}

impl Module {
    /// Whether flipping changes the arrows (then a flip alone is not a no-op).
    pub fn flip_matters(&self) -> bool {
        self.arrows[0] != self.arrows[1]
    }
}

/// What a pattern cell asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatCell {
    Any,
    Empty,
    Named(u8),
}

/// A pattern as packed offsets, matched by translation.
///
/// With a named module the translation is fixed by that module's cell; an anonymous
/// pattern tries each module's cell as the image of its first occupied cell.
#[derive(Clone, Debug)]
pub struct Pattern {
    anchor_module: Option<usize>,
    anchor_off: Cell,
    named: Vec<(usize, Cell)>,
    anys: Vec<Cell>,
    empties: Vec<Cell>,
    /// The heuristic's view: every occupied cell (any or named) in the pattern's order,
    /// and every named cell.
    pub occupied: Vec<Cell>,
    pub all_named: Vec<(usize, Cell)>,
    pub empty_cells: Vec<Cell>,
    /// The same cells as row bit masks, for scanning every placement at once.
    pub rows: Option<PatternRows>,
}

/// A pattern's occupied and must-be-empty cells as one bit mask per row of its
/// bounding box (bit `x - x0` of row `y - y0`).
#[derive(Clone, Debug)]
pub struct PatternRows {
    /// The bounding box's top-left corner, as a packed offset.
    pub corner: Cell,
    pub width: i32,
    pub occupied: Vec<u32>,
    pub empty: Vec<u32>,
}

/// Patterns wider or taller than this scan placement by placement.
pub const MAX_ROWS_SIDE: i32 = 16;

impl PatternRows {
    fn new(cells: &[(i32, i32, PatCell)]) -> Option<Self> {
        let x0 = cells.iter().map(|c| c.0).min()?;
        let y0 = cells.iter().map(|c| c.1).min()?;
        let width = cells.iter().map(|c| c.0).max()? - x0 + 1;
        let height = cells.iter().map(|c| c.1).max()? - y0 + 1;
        if width > MAX_ROWS_SIDE || height > MAX_ROWS_SIDE {
            return None;
        }
        let mut occupied = vec![0u32; height as usize];
        let mut empty = vec![0u32; height as usize];
        for &(x, y, what) in cells {
            let rows = if what == PatCell::Empty {
                &mut empty
            } else {
                &mut occupied
            };
            rows[(y - y0) as usize] |= 1 << (x - x0);
        }
        Some(PatternRows {
            corner: x0 + y0 * STRIDE,
            width,
            occupied,
            empty,
        })
    }
}

impl Pattern {
    /// Compile pattern cells given as (x, y, what), in the pattern's own order.
    pub fn new(cells: &[(i32, i32, PatCell)]) -> Result<Self, String> {
        let mut named = Vec::new();
        let mut anys = Vec::new();
        let mut empties = Vec::new();
        let mut occupied = Vec::new();
        for &(x, y, what) in cells {
            let off = x + y * STRIDE;
            match what {
                PatCell::Any => {
                    anys.push(off);
                    occupied.push(off);
                }
                PatCell::Empty => empties.push(off),
                PatCell::Named(m) => {
                    named.push((m as usize, off));
                    occupied.push(off);
                }
            }
        }
        if occupied.is_empty() {
            return Err("a pattern needs at least one occupied cell".into());
        }
        let all_named = named.clone();
        let (anchor_module, anchor_off) = if named.is_empty() {
            (None, anys.remove(0))
        } else {
            let (m, off) = named.remove(0);
            (Some(m), off)
        };
        Ok(Pattern {
            anchor_module,
            anchor_off,
            named,
            anys,
            empties: empties.clone(),
            occupied,
            all_named,
            empty_cells: empties,
            rows: PatternRows::new(cells),
        })
    }

    fn matches_at(&self, cells: &[Cell], base: Cell) -> bool {
        self.named.iter().all(|&(m, off)| cells[m] == base + off)
            && self.anys.iter().all(|&off| cells.contains(&(base + off)))
            && !self
                .empties
                .iter()
                .any(|&off| cells.contains(&(base + off)))
    }

    /// Whether some translation of the pattern matches the layout.
    pub fn matches(&self, cells: &[Cell]) -> bool {
        match self.anchor_module {
            Some(m) => self.matches_at(cells, cells[m] - self.anchor_off),
            None => cells
                .iter()
                .any(|&c| self.matches_at(cells, c - self.anchor_off)),
        }
    }
}

/// The named rule options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    pub auto_complete_on_reveal: bool,
    /// `recycle: when_empty` (false: `on_demand`).
    pub recycle_when_empty: bool,
    /// `gripper_target: active_only` (false: `active_or_spent`).
    pub gripper_active_only: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            auto_complete_on_reveal: true,
            recycle_when_empty: false,
            gripper_active_only: false,
        }
    }
}

/// A card's movement side and mission side.
#[derive(Clone, Debug)]
pub struct Card {
    pub base: i32,
    pub bonus: i32,
    pub mission: Pattern,
    pub movement: Pattern,
}

#[derive(Clone, Debug)]
pub struct Deck {
    pub modules: Vec<Module>,
    pub cards: Vec<Card>,
    pub missions_to_win: i32,
    pub rules: Rules,
    pub max_bonus: i32,
    /// the bits of the Sensors and of the Grippers: `sensor_draws_left` runs for every
    /// successor a mission search keys, so it counts bits rather than walk the modules
    sensors: u32,
    grippers: u32,
}

impl Deck {
    /// The spent bits of modules whose flip changes their arrows: the bits a dominance
    /// cut must keep apart (spending such a module changes how it moves).
    pub fn flip_mask(&self) -> u32 {
        self.modules
            .iter()
            .enumerate()
            .filter(|(_, m)| m.flip_matters())
            .fold(0, |k, (i, _)| k | 1 << i)
    }

    /// The bits of modules whose ability never changes the layout: Sensors (a use draws a
    /// card and flips the Sensor, which may change its arrows, never where a module is).
    pub fn layout_free(&self) -> u32 {
        self.sensors
    }

    pub fn new(
        modules: Vec<Module>,
        cards: Vec<Card>,
        missions_to_win: i32,
        rules: Rules,
    ) -> Result<Self, String> {
        if modules.is_empty() || modules.len() > MAX_MODULES {
            return Err(format!(
                "the core handles 1 to {MAX_MODULES} modules, not {}",
                modules.len()
            ));
        }
        if cards.len() > crate::limits::MAX_CARDS {
            return Err(format!(
                "the core handles at most {} cards",
                crate::limits::MAX_CARDS
            ));
        }
        let max_bonus = cards.iter().map(|c| c.bonus).max().unwrap_or(0);
        let bits = |ability: Ability| {
            modules
                .iter()
                .enumerate()
                .filter(|(_, m)| m.ability == ability)
                .fold(0, |k, (i, _)| k | 1 << i)
        };
        let (sensors, grippers) = (bits(Ability::Sensor), bits(Ability::Gripper));
        Ok(Deck {
            modules,
            cards,
            missions_to_win,
            rules,
            max_bonus,
            sensors,
            grippers,
        })
    }

    pub fn n(&self) -> usize {
        self.modules.len()
    }

    /// Cards the Sensor ability can still draw: once per unspent Sensor, and once more per
    /// unspent Gripper, which may trigger a Sensor even when it is spent (under
    /// `gripper_target: active_only` only while some Sensor is active).  The same count
    /// as `rove.engine.sensor_draws_left`.
    pub fn sensor_draws_left(&self, spent: u32) -> usize {
        if self.sensors == 0 {
            return 0;
        }
        let sensors = (self.sensors & !spent).count_ones() as usize;
        if self.rules.gripper_active_only && sensors == 0 {
            return 0;
        }
        sensors + (self.grippers & !spent).count_ones() as usize
    }
}
