"""Operation Bøllebank as the layers above its engine see it (bollesim.game.declaration)."""

from bollesim.bollebank.result import RESULT
from bollesim.game.declaration import Game, Trigger

GAME = Game(
    name="bollebank",
    title="Operation Bøllebank",
    result=RESULT,
    policies="policies.bollebank",
    baseline="historical",
    scripted="plan",  # compiled into the fast engine's kernel (engine/player.py)
    # The headline question: when to give the first Fire order (§5.2), by turn (every turn
    # of the game, §4) or by RoE (8..25, 25 = never, as the parameter declares); the strong
    # player takes the same question with the first Fire order imposed (expert.py).
    triggers=(
        Trigger("fire_at_turn", "t", lambda rules: range(1, rules.turn_limit + 1),
                strong="imposed_turn"),
        Trigger("fire_at_roe", "k", strong="imposed_roe"),
    ),
    # The what-if page opens at the showcase report's setting least often lost (drawing on
    # to three tank chits, the policies' default, loses 84% of games under any trigger,
    # experiments/first_fire.toml).
    opening={
        "policy": "fire_at_roe", "params": {"k": 8, "stop_at_tanks": 0},
        "note": "the showcase's best setting against defeat (results/showcase/report.md, "
                "experiments/first_fire.toml): the first Fire order as soon as the RoE allows "
                "it (k = 8), drawing only the one pair a turn that §5.3 requires "
                "(stop_at_tanks = 0)",
    },
    engine="bollesim.bollebank.play",
    positions="bollesim.bollebank.positions",
    headroom="bollesim.bollebank.headroom",
    rules="bollesim.bollebank.rules.rulebook",
    show="bollesim.bollebank.rules.show",
    form="bollesim.bollebank.rules.form",
    odds="bollesim.bollebank.rules.odds",
    narration="bollesim.bollebank.narrated",
    space="bollesim.bollebank.scripted.space",
    # The lookahead player's choices, learned: within two points of it, about 200 times faster
    # (docs/apprentice.md).
    strong="apprentice",
    # The what-if page's "find a change" searches these unless told otherwise: the weapon
    # tracks (R-TRACK), the T2 deadline (I-DEADLINE), the last turn (§4), the first Fire
    # order's RoE (§2.1.4) and the airstrikes (I-AIR), experiments/tune_operational_half.toml's.
    experiment="experiments/first_fire.toml",
    find_keys=("tracks.tank_to_hit", "tracks.atgm_to_hit", "tracks.hmg_to_hit",
               "game.deadline_start", "game.turn_limit", "roe.fire_allowed",
               "interpretations.airstrikes_per_game"),
)
