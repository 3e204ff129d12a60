"""Everything rove makes up, each proven by the rules engine before anyone sees it.

* :mod:`.deals`: fresh deals as the setup rules shuffle them (and the 2 x 3 start);
* :mod:`.missions`: new mission cards with proven costs (``rove generate missions``),
  synthesised with the CP-SAT pattern model of :mod:`.patterns`.

The book's puzzle kinds, which are graded as well as proven, are :mod:`rove.book.puzzles`:
the book is built on these generators, so none of them imports the book.
"""
