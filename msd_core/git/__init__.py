"""git operations msd decides in code: scoped commits, run records, wave merges."""
