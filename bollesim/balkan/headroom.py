"""The Balkan Wars' headroom report, declared (bollesim/strong/headroom.py): the
attacker's skill ladder (random, the family `assault` at its defaults and at its best
known point, the apprentice, the lookahead), the outcomes the clairvoyant bounds with
which of its win objectives, V, and the close assault's trigger sweeps, beside the
apprentice's with the trigger imposed (its `imposed_losses`, the game's Trigger.strong:
`--restricted` reads a sweep of experiments/balkan_close_assault_strong.toml).
`bollesim --game balkan-wars headroom` plays it (bollesim/cli/headroom.py).

Not declared, for want of anything to declare: presets (the family has no named points
but its defaults, the baseline) and a cut (no flag rules out a win before the end: a
broken defender can break on any bound)."""

from __future__ import annotations

from bollesim.strong.headroom import Headroom, Player

HEADROOM = Headroom(
    # The family's searches played seed 1 and held out seed 2, the apprentice trained on
    # 1000 and 1001: these engagements are new to them.
    seed=3,
    beginner="random",
    strong=Player("apprentice (the strong player)", "apprentice"),
    expert="lookahead",  # over `assault` at the best known point, its default base
    expert_knob="rollouts",
    # 32, 128 and 512 rollouts: a quarter of its default to four times it. Its cost hardly
    # grows with them (the first round's 16 an option ends most decisions: 2,000
    # engagements took 39, 47 and 56 s at 1x, 2x and 4x, load 8.5), so the rungs span
    # more search rather than fewer of it, and 1x to 4x played alike (docs/balkan-wars.md).
    expert_factors=(0.25, 1, 4),
    points="experiments/balkan_best_points.toml",
    bounds={"won": "attack won", "light": "light losses",
            "lost": "no attack broke"},  # lost: 1 - no attack broke
    inherited={"won_light": "light"},
    inherited_note="The bound of the attack won with light losses is the light losses': "
                   "every game won with light losses has light losses.",
    # The order the clairvoyant searches options in, after the objective's flags: more of
    # the defender's stands lost, fewer of the attacker's.
    nearer=(("defender_stands_lost", 1), ("attacker_stands_lost", -1)),
    penalised={"won": "attack won", "lost": "no attack broke"},
    value_policy="apprentice",
    value_seed=11,  # not the report's
    value_trees=(10, 100),
    spec="experiments/balkan_close_assault.toml",
    family="assault",  # the trigger is the family's own parameter
    family_triggers={"assault": "losses"},
    question="When to close assault",
    imposed="with its close-assault trigger imposed",
    chance="the move and fire dice",
    baseline_called=("the baseline", "the baseline"),
)
