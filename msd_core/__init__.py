"""msd-core: spec-driven development framework for coding agents."""

__version__ = "0.1.0"
