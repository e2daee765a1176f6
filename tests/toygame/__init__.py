"""Pig race, a small second game (a few rules, one policy) that proves the layers above
the engine take any declared game (docs/architecture.md §9). Chosen per process:
BOLLESIM_GAME=pig with tests/ on the path."""
