"""Strong play for any game, written once against the decision points a game declares
(bollesim/game/positions.py): the lookahead player and the kernels it plays in, the
apprentice, its choices learned (apprentice.py, train.py), and the analysis of luck and
errors (analysis.py, docs/analyse.md)."""
