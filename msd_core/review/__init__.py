"""Reviews of a phase and of the project's material (docs/ARCHITECTURE.md, layer 9)."""
