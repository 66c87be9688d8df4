"""How a phase's plans run: waves and their concurrency, the regression gate, test-command detection."""
