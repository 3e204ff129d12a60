"""The node budgets and run sizes more than one layer reads, one home each.

The command line shows them in its help and uses them as its options' defaults, and the
library (``rove.check.options``, ``rove.solve.expert``, ``rove.solve.ladder``) uses the
same names, so a change here moves every place at once.  The module imports nothing:
``rove --help`` reads it at every start (docs/internals/check.md says why each figure is
what it is).
"""

from __future__ import annotations

#: nodes of mission search the expert spends on a whole game (``rove.solve.expert``)
EXPERT_GAME_NODES = 2_000_000
#: the thoughtful player's cheap exact rung, after the seer (``rove.solve.ladder``)
QUICK_SEARCH_NODES = 100_000
#: the seer's cheap rung in ``rove check``
CHECK_SEER_NODES = 5_000_000
#: nodes a mission-cost solve from a start arrangement may take in ``rove check``
CHECK_MISSION_NODES = 200_000
#: start arrangements sampled for the mission costs in ``rove check``
CHECK_STARTS = 60
#: seconds a solve may take in ``rove check``: a safety net only, never the primary limit
CHECK_TIME_LIMIT = 600.0
#: deals a difficulty plays in one batch of ``rove check``'s sequential run, between two
#: looks at the expert's interval
CHECK_BATCH = 20
#: the most deals a difficulty plays in a sequential ``rove check`` (``--max-deals``): the
#: fewest at which the last look's interval is at most 10 points wide at any rate
#: (``rove.check.verdict``), so every difficulty ends settled or that narrow
CHECK_MAX_DEALS = 420
#: deals a difficulty the thoughtful player plays in a sequential ``rove check``
#: (``--thoughtful-deals``; with ``--deals N`` it plays all N)
CHECK_THOUGHTFUL_DEALS = 30
#: ``rove solve``'s default node budget of the whole-deal search (``--node-limit``): it
#: keeps about 100 bytes a node, so the default bounds a solve to about two minutes of one
#: core and 1.1 GB (1,091,332 kB peak resident, 111 s of CPU, with --optimal on deal seed 1
#: of the bundled deck, which runs to the limit; with the seer's nodes after it, 1,132,460 kB
#: and 126 s on a bench/decks/f35.yaml deal that spends both; docs/LIMITS.md)
SOLVE_NODES = 10_000_000
#: the seer's default nodes a deal in ``rove solve`` (``--seer-node-limit``), spent only
#: where the exact search stopped at its limit: every deal that 2,000,000 left unknown on
#: bench/decks/b01.yaml (5 of 80) and on the bundled deck's first 40 a difficulty (2 of
#: 120) it wins with 2.1 to 7.6 million (6 to 27 s each, one core); on decks whose deals
#: it cannot win (bench/decks/f35.yaml) it spends all of them
SEER_NODES = 8_000_000
