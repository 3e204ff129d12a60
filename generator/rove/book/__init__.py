"""Verified puzzle books (``rove book``): generated puzzles, proven by the solvers, graded."""
