"""Operation Bøllebank's player policies, one module per family (bollesim/game/policy.py)."""
