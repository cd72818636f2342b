"""The analysis stage: statistics computed from the per-example rows (intervals, gaps, groups, shift, transfer, seeds, IRT)."""
