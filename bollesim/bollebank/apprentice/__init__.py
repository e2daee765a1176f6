"""The apprentice of Operation Bøllebank: the lookahead player's order decisions, learned
(docs/apprentice.md) by the generic apprentice (bollesim/strong/apprentice.py, train.py).

features.py says what it sees, declaration.py what else the game declares (its base,
restricted play, its teacher, its shipped model: shipped.npz, made by the command in
shipped.toml)."""
