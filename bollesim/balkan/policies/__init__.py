"""Balkan Wars policies: the attacker's scripted family and its presets."""
