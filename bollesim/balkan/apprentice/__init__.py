"""The apprentice of the Balkan Wars: the lookahead player's declared decisions (each arm's
order a bound, each move digit's group, the close assault), learned by the generic apprentice
(bollesim/strong/apprentice.py, train.py). declaration.py says what it sees and what
else the game declares; its shipped model is shipped.npz, made by the command in
shipped.toml."""
