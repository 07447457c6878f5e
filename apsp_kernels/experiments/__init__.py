"""Experiment drivers, one module per paper: sweeps that notebooks call (no algorithm code)."""
