"""Planning runtime: readers and patchers for a project's .planning/ tree (standard library on import)."""
