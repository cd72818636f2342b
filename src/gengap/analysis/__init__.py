"""Analyses of stored per-example rows that call no model."""
