"""What each random draw of the game is for: the purposes that key its luck.

The game's chance stream is keyed (rng.py): the n-th draw of one purpose in one turn is
a fixed function of (game, turn, purpose, n). So a choice that changes how many dice are
rolled, or which chits are drawn, this turn does not shift the numbers drawn in later
turns, nor those of the other purposes of this one. What those numbers decide still
depends on the state they fall on (the chits left in the pool, the vehicle a hit lands
on), so a choice can lead to a different game: two policies compared on the same seeds
share their luck as far as their choices allow (docs/architecture.md §3), and a
clairvoyant player (clairvoyant.py) picks among futures. Both engines draw through these
ids.
"""

NAMES = (
    "chit",            # §5: a chit drawn from the enemy weapon pool
    "radio",           # §5.1: the die of a radio link with damage
    "light damage",    # §7.2.1: which light damage a random unit marker does
    "commander",       # §7.1.3: a vehicle whose commander is killed acts on 1-4
    "night vision",    # §7.2.1: a move with Night Vision damage
    "marker",          # §6.2: an enemy-action marker drawn from its pool
    "marker side",     # §6.2: the side a 7-8-9 marker lands on
    "un fire",         # §6.3: the die of an indirect or misaligned-sights Fire order
    "tank status",     # §7.1: hot or cold barrel
    "target",          # §7.1: a target drawn among tied vehicles
    "tank attack",     # §7.1.2: the 2d6 of an attack; ATTACK + the weapon (codes.TANK ..)
    "atgm attack",
    "hmg attack",
    "tank location",   # §7.1.3, §7.2: a heavy damage's location; LOCATION + the weapon
    "atgm location",
    "hmg location",
    "art location",
    "hmg commander",   # §7.1.2: an unbuttoned commander under HMG fire is killed on a 6
    "artillery",       # §7.2: the 2d6 of an artillery attack
    "ru",              # §7.2: the random unit marker drawn for the vehicles hit
)
N_PURPOSES = len(NAMES)
(CHIT, RADIO, LIGHT_DAMAGE, COMMANDER, NIGHT_VISION, MARKER, MARKER_SIDE, UN_FIRE,
 TANK_STATUS, TARGET, ATTACK, _, _, LOCATION, _, _, _, HMG_COMMANDER, ARTILLERY,
 RU) = range(N_PURPOSES)
