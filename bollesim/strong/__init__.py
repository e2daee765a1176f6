"""Strong play for any game, written once against the decision points a game declares
(bollesim/game/positions.py): the lookahead player and the kernels it plays in, the
clairvoyant and penalised bounds with their value estimate V, and what a game declares
for its headroom report (headroom.py)."""
