"""rove: rules engine, solvers, puzzle books and print-and-play cards for ROVE."""

__version__ = "0.1.0"
