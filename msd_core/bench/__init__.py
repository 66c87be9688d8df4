"""Offline benchmarks that report, never gate."""
