"""Strong play for any game, written once against the decision points a game declares
(bollesim/game/positions.py): the lookahead player and the kernels it plays in, the
apprentice, its choices learned (apprentice.py, train.py), the analysis of luck and
errors (analysis.py, docs/analyse.md), the clairvoyant and penalised bounds with their
value estimate V, and what a game declares for its headroom report (headroom.py)."""
