"""The scripted family compiled into the fast engine (docs/architecture.md): its parameter
space (space.py), its play (plan.py) and the tactics they share (tactics.py)."""
