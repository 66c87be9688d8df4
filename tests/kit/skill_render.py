"""Render a SKILL.md the way the host (Claude Code) does before the model sees it.

- The YAML frontmatter is dropped (the host reads it; the model gets the body).
- `${CLAUDE_SKILL_DIR}` is replaced by the skill's folder everywhere in the body, before
  anything else (Claude Code 2.1.332 does this, in `@` lines and `!` lines alike; checked
  by tests/host/test_release_host.py).
- A line that is only `@<path>` is replaced by that file's text (`~` expanded): the
  host's file include, so a test can see the spine in the rendered skill.
- Each inline shell context `` !`cmd` `` (at line start or after whitespace) and each
  fenced block opened by ```` ```! ```` is run with `bash -c` from the project folder;
  its stdout (trailing newlines trimmed) replaces it. A command that exits non-zero makes
  the render fail (RenderError), as the host refuses to load such a skill; that is why
  content writes `|| true`.
- `include_stderr=True` appends stderr to the substituted text, for hosts that show it.

Test helper only: it runs the commands it finds, so feed it test fixtures, never
untrusted files.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

INLINE_RE = re.compile(r"(?:(?<=\s)|^)!`([^`\n]+)`", re.MULTILINE)
FENCE_OPEN = "```!"
FENCE_CLOSE = "```"
INCLUDE_RE = re.compile(r"^@(\S+)\s*$")


class RenderError(Exception):
    pass


@dataclass
class Rendered:
    text: str
    commands: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


def _strip_frontmatter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + len("\n---\n"):]
    return text


def _run(cmd: str, cwd: Path, env: dict | None, timeout: float, include_stderr: bool, log: Rendered) -> str:
    r = subprocess.run(["bash", "-c", cmd], cwd=str(cwd), env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RenderError(f"shell context `{cmd}` exited {r.returncode}: {r.stderr.strip()[:300]}")
    out = r.stdout
    if include_stderr and r.stderr:
        out = out + r.stderr
    out = out.rstrip("\n")
    log.commands.append(cmd)
    log.outputs.append(out)
    return out


def _expand_include(line: str) -> str:
    m = INCLUDE_RE.match(line)
    if not m:
        return line
    path = Path(os.path.expanduser(m.group(1)))
    try:
        return path.read_text(encoding="utf-8").rstrip("\n")
    except OSError:
        return line  # the host leaves an unresolvable mention as text


def render_skill(text: str, cwd: Path, env: dict | None = None, timeout: float = 30.0,
                 include_stderr: bool = False, expand_includes: bool = True, skill_dir: Path | None = None) -> Rendered:
    """Render skill `text` (a SKILL.md's content) from project folder `cwd`."""
    body = _strip_frontmatter(text)
    if skill_dir is not None:
        body = body.replace("${CLAUDE_SKILL_DIR}", str(skill_dir))
    result = Rendered("")
    out_lines: list[str] = []
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == FENCE_OPEN:
            j = i + 1
            while j < len(lines) and lines[j].strip() != FENCE_CLOSE:
                j += 1
            if j == len(lines):
                raise RenderError("unclosed ```! block")
            out_lines.append(_run("\n".join(lines[i + 1:j]), cwd, env, timeout, include_stderr, result))
            i = j + 1
            continue
        if expand_includes and INCLUDE_RE.match(line):
            out_lines.append(_expand_include(line))
        else:
            out_lines.append(INLINE_RE.sub(lambda m: _run(m.group(1), cwd, env, timeout, include_stderr, result), line))
        i += 1
    result.text = "\n".join(out_lines)
    return result


def render_file(path: Path, cwd: Path, **kw) -> Rendered:
    kw.setdefault("skill_dir", Path(path).parent)
    return render_skill(Path(path).read_text(encoding="utf-8"), cwd, **kw)
