"""Planning files that merge through git: the merge drivers git runs for STATE.md, ROADMAP.md,
REQUIREMENTS.md and claims.json, entry by entry, and STATE.md's derived lines re-derived from
the merged tree."""
