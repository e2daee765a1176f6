"""What each die of a Balkan Wars engagement is for: the n-th die of one purpose in one
bound is a fixed function of (game, bound, purpose, n) (bollesim/rng.py's keyed stream),
so a choice that changes how many dice one step throws re-deals no other step's dice."""

MOVE = 0  # the attacker's general's move die (Move Sequence 1)
FIRE_A, FIRE_D = 1, 2  # the attacker's bound's firefight: attacker's dice, defender's
ASSAULT_A, ASSAULT_D = 3, 4  # the attacker's close assault
REPLY_D, REPLY_A = 5, 6  # the defender's bound's firefight: defender's dice, attacker's
COUNTER_D, COUNTER_A = 7, 8  # the defender's close assault
PURPOSES = 9
