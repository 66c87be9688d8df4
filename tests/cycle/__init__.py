"""Whole-cycle scenarios: milestones walked by running the commands the installed content names."""
