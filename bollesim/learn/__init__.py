"""Learned players' machinery that knows no game: gradient-boosted trees exported to flat
arrays and evaluated in compiled code (forest.py)."""
