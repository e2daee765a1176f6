"""Batches of games: the runner, run folders, the Dask cluster, experiment specs and
sweeps, replay of a stored game and the bench."""
