"""Mission patterns as decision variables: the synthesis half of the mission generator.

Imported only by ``rove.generators.missions`` (OR-Tools is never loaded at ``import rove``).

The model is ``RoveModel`` with goal ``free`` (play from a start state, nothing required
of the end) plus a pattern read off its last state: ``sel[i]`` says module ``i``'s final
cell is a pattern cell and ``name[i]`` that it is the one named cell.  A pattern built
that way is matched by the final layout by construction, so a solution is a pattern and
a plan that completes it.  What the generator needs of the pattern is added as families
of clauses, each over the pair offsets the model already has:

* size and name: ``lo <= sum(sel) <= hi``, exactly one ``name``, ``name -> sel``;
* one piece: the selected cells are king-connected, like the missions people draw (by
  cuts, as layout validity is: every split of the modules with selected ones on both
  sides is crossed by an adjacent selected pair; there are 2^(n-1) splits, so above
  ``CUT_LIMIT`` modules, as for layouts, a tree instead: every selected module but the
  named one has an adjacent selected parent one step nearer the named one);
* "not matched by layout ``L``" (a CEGAR cut): a named pattern's translation is fixed
  by its named module, so it matches ``L`` iff every selected module's offset from the
  named one is an offset between occupied cells of ``L`` measured from that module's
  cell in ``L``; the cut says some selected module is elsewhere;
* "not alike pattern ``Q``" (no two missions alike up to translation): the same test
  read the other way, plus "or the sizes differ".

Cuts are sound for the generator: a layout reached by a plan of ``c`` points matches
only patterns whose optimal cost is at most ``c``, so when ``c < A`` (the minimum cost
asked) no pattern it matches can be an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from ..grid import Cell
from ..solve.cpsat_model import CUT_LIMIT, Lit, RoveModel
from ..spec import ANY, Pattern


class PatternVariables:
    """The pattern read off the last state of ``mdl`` (see the module docstring)."""

    def __init__(self, mdl: RoveModel, lo: int, hi: int) -> None:
        self.mdl = mdl
        m, n, codes = mdl.m, mdl.n, mdl.codes
        self.T = mdl.T
        self.n = n
        self.sel = [m.new_bool_var(f"sel_{codes[i]}") for i in range(n)]
        self.name = [m.new_bool_var(f"name_{codes[i]}") for i in range(n)]
        self.size = m.new_int_var(lo, hi, "pattern_size")
        #: the named module when ``fix`` pinned it (cuts then need clauses for it alone)
        self.named: int | None = None
        self._size_and_name()

    def _size_and_name(self) -> None:
        m = self.mdl.m
        m.add(self.size == sum(self.sel))
        m.add_exactly_one(self.name)
        for s, nm in zip(self.sel, self.name):
            m.add_implication(nm, s)

    def connected(self) -> None:
        """The selected cells form one king-connected piece (see the module docstring)."""
        mdl, n = self.mdl, self.n
        both = {}
        for a, b in combinations(range(n), 2):
            e = both[a, b] = mdl.m.new_bool_var(f"seladj_{mdl.codes[a]}{mdl.codes[b]}")
            mdl.m.add_implication(e, self.sel[a])
            mdl.m.add_implication(e, self.sel[b])
            mdl.imply(e, mdl.adj(self.T, a, b))
        if n > CUT_LIMIT:  # the cuts below would be 2^(n-1) families: gigabytes at 26 modules
            self._tree(both)
            return
        for r in range(0, n - 1):
            for extra in combinations(range(1, n), r):
                inside = {0, *extra}
                outside = [b for b in range(n) if b not in inside]
                crossing = [both[min(a, b), max(a, b)] for a in inside for b in outside]
                for a in inside:
                    for b in outside:
                        mdl.m.add_bool_or([~self.sel[a], ~self.sel[b], *crossing])

    def _tree(self, both: dict[tuple[int, int], Any]) -> None:
        """Connectivity of the selected cells by depth labels, in n^2 variables: the named
        module is the root (depth 0), every other selected module has a selected adjacent
        parent (``both``) whose depth is one less, so each one's chain of parents ends at
        the root."""
        m, n = self.mdl.m, self.n
        depth = [m.new_int_var(0, n - 1, f"seldepth_{self.mdl.codes[i]}") for i in range(n)]
        for i in range(n):
            m.add(depth[i] == 0).only_enforce_if(self.name[i])
            parents = []
            for p in range(n):
                if p == i:
                    continue
                par = m.new_bool_var(f"selpar_{i}_{p}")
                m.add_implication(par, both[min(i, p), max(i, p)])
                m.add(depth[i] == depth[p] + 1).only_enforce_if(par)
                parents.append(par)
            # a selected module that is not the named one has a parent; others have none
            m.add(sum(parents) == 1).only_enforce_if([self.sel[i], ~self.name[i]])
            m.add(sum(parents) == 0).only_enforce_if(~self.sel[i])
            m.add(sum(parents) == 0).only_enforce_if(self.name[i])

    def fix(self, size: int | None = None, named: int | None = None) -> None:
        """Pin the size or the named module (the generator's random choices)."""
        if size is not None:
            self.mdl.m.add(self.size == size)
        if named is not None:
            self.mdl.m.add(self.name[named] == 1)
            self.named = named

    def _outside(self, n: int, offsets: set[Cell], tag: str) -> list[Lit]:
        """Literals "module ``i`` is selected and not at any of ``offsets`` from ``n``"."""
        mdl = self.mdl
        out = []
        for i in range(mdl.n):
            if i == n:
                continue
            b = mdl.m.new_bool_var(f"{tag}_out_{mdl.codes[n]}{mdl.codes[i]}")
            mdl.m.add_implication(b, self.sel[i])
            for vx, vy in offsets:
                mdl.clause([mdl.neg(b), mdl.neg(mdl.rel(self.T, n, i, vx, vy))])
            out.append(b)
        return out

    def not_matched_by(self, cells: Sequence[Cell], tag: str) -> None:
        """Cut: the pattern does not match the layout ``cells`` (a cell per module).

        With the named module pinned (``fix``) only its clause can bind, so only it is
        written: the same cut in a sixth of the variables."""
        mdl = self.mdl
        for n in range(mdl.n) if self.named is None else (self.named,):
            nx, ny = cells[n]
            offsets = {(x - nx, y - ny) for j, (x, y) in enumerate(cells) if j != n}
            mdl.clause([mdl.neg(self.name[n]), *self._outside(n, offsets, f"{tag}{n}")])

    def not_alike(self, pattern: Pattern, tag: str) -> None:
        """The pattern differs from ``pattern`` (named, no must-be-empty cells) up to
        translation."""
        mdl = self.mdl
        (code, (ax, ay)), = pattern.named.items()
        n = mdl.deck.index[code]
        if self.named is not None and n != self.named:
            return  # another named module: never alike
        offsets = {(x - ax, y - ay) for x, y in pattern.occupied if (x, y) != (ax, ay)}
        other_size = mdl.m.new_bool_var(f"{tag}_size")
        mdl.m.add(self.size != pattern.size).only_enforce_if(other_size)
        mdl.clause([mdl.neg(self.name[n]), other_size, *self._outside(n, offsets, tag)])

    def decode(self, solver: Any) -> Pattern:
        """The pattern of a solution, moved to (0, 0)."""
        mdl = self.mdl

        def val(v: Any) -> int:
            return v if isinstance(v, int) else solver.value(v)

        cells: dict[Cell, str] = {}
        for i in range(mdl.n):
            if solver.boolean_value(self.sel[i]):
                cell = (val(mdl.X[self.T][i]), val(mdl.Y[self.T][i]))
                cells[cell] = mdl.codes[i] if solver.boolean_value(self.name[i]) else ANY
        return Pattern.from_cells(cells).normalized()
