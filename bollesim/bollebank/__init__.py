"""Operation Bøllebank, the game: its codes, events, decisions and observation, the
ruleset (rules/), the fast engine (engine/), the reference engine (reference/) and the
narration of a game."""
