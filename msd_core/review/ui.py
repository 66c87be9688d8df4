"""UI phases: whether a phase has a user interface, and whether its design contract is complete.

detect (decided from the project's files, nothing asked):
  files   the phase's planned or committed files (msd_core.review.scope) that are UI code:
          UI_EXTENSIONS, or a folder in UI_FOLDERS on the path
  words   UI words (UI_WORDS) in the phase's ROADMAP.md entry (its checklist line and its
          `### Phase N` section) and its CONTEXT.md
  stack   a frontend the project uses: a UI framework among package.json's dependencies
  A phase has a UI when its name (ROADMAP.md's or its folder's) holds a UI word, or any UI file is named, or its text names a UI word and the project
  has a frontend stack or UI files, or its text names two different UI words (a project
  that has no frontend yet). `reasons` says which held.

contract: `<NN>-UI-SPEC.md` in the phase folder, the design contract the planner reads. It
is complete when each section of SECTIONS is a `## ` heading with text under it that is not
a placeholder (`TBD`, `{{...}}`, `...`), and `States` names the loading, empty and error
states. Anything else is listed in `missing`.
Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

UI_EXTENSIONS = (".tsx", ".jsx", ".vue", ".svelte", ".html", ".htm", ".css", ".scss", ".sass", ".less",
                 ".astro", ".erb", ".hbs", ".ejs", ".njk", ".jinja", ".jinja2", ".xaml", ".storyboard", ".xib")
UI_FOLDERS = ("components", "pages", "views", "screens", "templates", "layouts", "ui", "frontend", "static", "styles",
              "widgets")
UI_WORDS = re.compile(r"\b(UI|user interface|screens?|pages?|forms?|dashboards?|buttons?|modals?|dialogs?|frontend|"
                      r"front-end|layouts?|components?|widgets?|menus?|navigation|styling|stylesheets?|responsive|"
                      r"accessib(?:le|ility)|onboarding flow|wireframes?|mockups?)\b", re.I)
UI_PACKAGES = ("react", "react-dom", "vue", "svelte", "@angular/core", "solid-js", "preact", "next", "nuxt",
               "@sveltejs/kit", "astro", "lit", "react-native", "expo", "@remix-run/react", "ember-source")
SECTIONS = ("Screens", "States", "Copy", "Layout", "Visual", "Accessibility")
STATE_WORDS = ("loading", "empty", "error")
MAX_READ = 512 * 1024
_PLACEHOLDER = re.compile(r"^\s*(?:[-*]\s*)?(?:TBD|TODO|\.\.\.|…|\{\{[^}]*\}\}|none yet)?\s*$", re.I)


def is_ui_file(path: str) -> bool:
    p = path.lower()
    if p.endswith(UI_EXTENSIONS):
        return True
    parts = p.split("/")[:-1]
    return any(part in UI_FOLDERS for part in parts)


def roadmap_entry(text: str, number: str) -> str:
    """The phase's checklist line and its `### Phase N` section of ROADMAP.md."""
    from msd_core.planning.discovery import normalize_phase

    out, inside, level = [], False, 0
    head = re.compile(r"^(#{2,4})\s*Phase\s+([0-9]+(?:\.[0-9]+)*)\b")
    check = re.compile(r"^\s*[-*]\s*\[.\]\s*(?:\*\*)?\s*Phase\s+([0-9]+(?:\.[0-9]+)*)\b")
    for line in text.splitlines():
        m = head.match(line)
        if m:
            inside, level = normalize_phase(m.group(2)) == number, len(m.group(1))
            if inside:
                out.append(line)
            continue
        if inside and re.match(rf"^#{{1,{level}}}\s", line):
            inside = False
        c = check.match(line)
        if inside or (c and normalize_phase(c.group(1)) == number):
            out.append(line)
    return "\n".join(out)


def _read(path: Path) -> str:
    from msd_core.files.safe_read import read_regular

    try:
        return read_regular(path, MAX_READ, follow_symlinks=False).decode("utf-8", errors="replace")
    except OSError:
        return ""


def stack(root: Path) -> list[str]:
    text = _read(Path(root) / "package.json")
    if not text:
        return []
    from msd_core.files.bounded import loads_json

    try:
        data = loads_json(text, "package.json")
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    deps = {}
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        if isinstance(data.get(key), dict):
            deps.update(data[key])
    return [p for p in UI_PACKAGES if p in deps]


def contract_path(folder: Path) -> Path:
    from msd_core.planning.discovery import folder_prefix_of

    return Path(folder) / f"{folder_prefix_of(Path(folder).name)}-UI-SPEC.md"


def detect(root: Path, sc) -> dict:
    """Whether the phase of scope `sc` (msd_core.review.scope.Scope) has a UI (module doc)."""
    from msd_core.review.project_files import listing

    root = Path(root)
    folder = sc.folder
    files = [f["path"] for f in sc.files if is_ui_file(f["path"])]
    roadmap = _read(root / ".planning" / "ROADMAP.md")
    text = roadmap_entry(roadmap, sc.phase["number"])
    from msd_core.planning.roadmap import roadmap_phases

    names = [sc.phase.get("name") or ""] + [p.name for p in roadmap_phases(roadmap) if p.number == sc.phase["number"]]
    for ctx in sorted(Path(folder).glob("*CONTEXT.md")) if Path(folder).is_dir() else []:
        text += "\n" + _read(ctx)
    words = sorted({m.group(1).lower().rstrip("s") if m.group(1) != "UI" else "UI" for m in UI_WORDS.finditer(text)})
    frontend = stack(root)
    project_ui = frontend or (words and not files and [p for p in listing(root)[0] if is_ui_file(p)][:5])
    reasons = []
    named = sorted({m.group(1) for m in UI_WORDS.finditer(" / ".join(names))})
    if named:
        reasons.append(f"its name says {', '.join(named[:3])}")
    if files:
        reasons.append(f"the phase names {len(files)} UI file(s)")
    if words and project_ui:
        reasons.append(f"its roadmap entry or context says {', '.join(words[:4])} and the project has a frontend")
    elif len(words) >= 2:
        reasons.append(f"its roadmap entry or context says {', '.join(words[:4])}")
    contract = contract_path(folder)
    return {"phase": sc.phase, "ui": bool(reasons), "reasons": reasons, "files": files[:50], "words": words,
            "stack": frontend, "contract": contract.relative_to(root).as_posix(), "contract_exists": contract.is_file()}


def check_contract(root: Path, folder: Path) -> dict:
    """The contract's sections and what is missing (module doc); `status` complete | incomplete | absent."""
    root = Path(root)
    path = contract_path(folder)
    rel = path.relative_to(root).as_posix()
    if path.is_symlink() or not path.is_file():
        return {"file": rel, "status": "absent", "sections": [], "missing": list(SECTIONS)}
    text = _read(path)
    bodies: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^##\s+(.+?)\s*#*\s*$", line)
        if m:
            name = m.group(1).strip()
            current = next((s for s in SECTIONS if name.lower().startswith(s.lower())), None)
            if current is not None:
                bodies.setdefault(current, [])
            continue
        if current is not None and not _PLACEHOLDER.match(line):
            bodies[current].append(line)
    missing = []
    for s in SECTIONS:
        if s not in bodies:
            missing.append(f"{s}: no `## {s}` section")
        elif not bodies[s]:
            missing.append(f"{s}: empty or a placeholder")
    states = " ".join(bodies.get("States", [])).lower()
    for word in STATE_WORDS:
        if bodies.get("States") and word not in states:
            missing.append(f"States: no {word} state")
    return {"file": rel, "status": "incomplete" if missing else "complete",
            "sections": [s for s in SECTIONS if bodies.get(s)], "missing": missing}
