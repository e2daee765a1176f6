"""The Balkan Wars' player policies: the attacker's scripted family and its presets."""
