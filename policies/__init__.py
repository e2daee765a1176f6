"""Scripted player policies, one module per family (see bollesim/policy.py)."""
