"""The content packaged for a host's plugin system (Claude Code: `msd plugin build OUT`)."""
