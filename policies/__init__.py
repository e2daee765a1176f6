"""Every game's player policies, one package per game (its Game.policies), one module per
family (bollesim/game/policy.py).

    policies/bollebank/      Operation Bøllebank
    policies/balkan_wars/    the Balkan Wars battle rules
"""
