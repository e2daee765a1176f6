"""The apprentice: the lookahead player's order decisions, learned (docs/apprentice.md).

features.py says what it sees, model.py how it decides inside the engine, train.py how it
learns from the lookahead player's choices."""
