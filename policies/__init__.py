"""Scripted player policies, one module per family (see bollesim/game/policy.py)."""
