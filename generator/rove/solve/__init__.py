"""Solvers: exact search and the CP-SAT model, both proven by the rules engine."""
