"""Searching for strong play: the policy search (optimise) and the lookahead player."""
