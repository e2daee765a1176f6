"""What each die of a Balkan Wars engagement is for: the n-th die of one purpose in one
bound is a fixed function of (game, bound, purpose, n) (bollesim/rng.py's keyed stream),
so a choice that changes how many dice one step throws re-deals no other step's dice."""

MOVE = 0  # the attacker's commanding general's move die (Move Sequence 1)
FIRE_A, FIRE_D = 1, 2  # the attacker's bound's firefights: attacker's dice, defender's
ASSAULT_A, ASSAULT_D = 3, 4  # the attacker's close assaults
REPLY_D, REPLY_A = 5, 6  # the defender's bound's firefights: defender's dice, attacker's
COUNTER_D, COUNTER_A = 7, 8  # the defender's close assaults
MOVE_D = 9  # the defender's commanding general's move die (Move Sequence 1)
SUBORDINATE_A, SUBORDINATE_D = 10, 11  # the subordinate generals' move dice, in their order
PURPOSES = 12
