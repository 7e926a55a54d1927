"""Helpers shared by the production smoke test and the benchmarks."""
