"""`msd usage`'s answer for one project: every transcript read in full (streamed), with the
windows the host reported (msd_core.usage.cache) and the configured one."""

from __future__ import annotations

from pathlib import Path

from msd_core.usage import cache, locate, report


def project_report(root: Path, config: Path | None = None, configured_window: int | None = None) -> dict:
    """`msd usage`'s answer for the project at `root`: every transcript read in full, streamed."""
    config = config or locate.config_dir()
    windows = cache.load(root).get("windows", {}) if (Path(root) / ".planning").is_dir() else {}
    out = report.build(report.scan(Path(root), config), windows, configured_window)
    return {"project": str(root), "config_dir": str(config),
            "transcripts_folder": str(config / "projects" / locate.folder_name(str(Path(root).resolve()))), **out}
