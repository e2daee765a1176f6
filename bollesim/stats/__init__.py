"""Statistics of result rows: rates with intervals, paired comparisons of two runs or
cells, and an experiment's sensitivity to the rulebook's readings."""
