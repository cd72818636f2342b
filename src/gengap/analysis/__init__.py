"""Analyses of per-example rows: score curves along an axis, the generalization valley."""
