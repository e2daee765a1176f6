"""Pig race, a small second game (a few rules, one policy) that proves the layers above
the engine take any registered game (docs/architecture.md §9). Registered from outside the
package, as any other game would be, by tests/bollesim_pig-0.dist-info (`pig =
toygame.game`): `bollesim --game pig ...` with tests/ on the path."""
