"""Verified puzzle books (``rove book``): generated puzzles, proven by the solvers, graded.

* :mod:`.puzzles`: the puzzle kinds (Mission in N, hand, deal, campaign), each proven and
  graded; built on :mod:`rove.generators` (deals, new missions) and :mod:`rove.solve`;
* :mod:`.analyse` (optimal solutions counted, the lookahead player) and :mod:`.grade`
  (features to stars); :mod:`.hints`, the three hint levels;
* :mod:`.build`: a book's mix, grades and order, its export, and its PDF through
  :mod:`rove.pdf.book`.
"""
