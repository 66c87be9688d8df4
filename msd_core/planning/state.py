"""STATE.md: read a section or field, and patch exactly the lines asked for.

Sections and lines are found under msd's labels and the older spellings alike
(msd_core.planning.state_labels: `Position` / `Current Position`, `Left off` / `Stopped at`, …);
a patch edits the line under the label the file has. Reading accepts every shape seen in real projects: with or without YAML frontmatter,
`Field: value`, `**Field:** value` and `**Field**: value` lines (optionally as list
items), headings of any level, missing sections, CRLF or LF, a BOM. Headings and
fields inside fenced code blocks are ignored.

Patch operations (docs/CONTRACTS.md `msd_run state patch`), applied in the order given:

  position TEXT       value of the `Phase:` line under "Position"
  status TEXT         value of the `Status:` line under "Position", and the
                      frontmatter `status` key when the file has one
  add-decision TEXT   `- TEXT` appended to the "Decisions" section (after its last
                      line of text); a lone placeholder (`None yet.`, `None.`, `- None`)
                      is replaced instead; after a numbered list the item is numbered
                      `N+1. TEXT`; after a table it follows one blank line
  add-blocker TEXT    the same under "Blockers/Concerns" (any heading starting "Blockers")
  resolve-blocker T   removes the one line of the Blockers section that contains T
                      (case-insensitive); when no text is left, `None yet.` is written;
                      more than one matching line is refused as ambiguous (exit 2)
  set-session TEXT    `Left off:` = TEXT and `Last worked:` = now (UTC, `YYYY-MM-DD HH:MM`)
                      under "Session"; frontmatter `stopped_at` too when present
  resume-file PATH    `Handoff:` = PATH under "Session" (`None` clears it);
                      PATH is one line of text, a project-relative path by convention
  field NAME VALUE    an existing top-level frontmatter key's value (scalars only)

A section, line or key that does not exist is reported in `not_found` and nothing is
invented. Every other byte of the file is kept: new lines use the line ending of the
file (CRLF stays CRLF), values are replaced in place with the line's own prefix.

Standard library only.
"""

from __future__ import annotations

import json
import re
import time

from msd_core.errors import UsageError
from msd_core.planning.frontmatter import locate, split_frontmatter
from msd_core.planning.state_labels import field_names, section_names

_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*\r?\n?$")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)")
_GENERIC_FIELD_RE = re.compile(
    r"^[ \t]*(?:[-*][ \t]+)?(?:\*\*(?P<bname>[^*\n:]{1,60}?)(?::\*\*|\*\*:)|(?P<name>[A-Za-z][\w /()-]{0,40}?):)[ \t]*(?P<val>.*?)\r?\n?$"
)
# any labelled line, with the groups _field_re gives: field_line compares the label itself,
# so reading several fields compiles one pattern instead of one per field
_ANY_LABEL_RE = re.compile(
    r"^(?P<pre>[ \t]*(?:[-*][ \t]+)?(?:\*\*(?P<bname>[^*\n:]+?)(?::\*\*|\*\*:)|(?P<name>[^*\n:]+?):)[ \t]*)"
    r"(?P<val>.*?)(?P<eol>\r?\n)?$"
)
PLACEHOLDERS = {"none yet.", "none yet", "none.", "none", "- none", "- none.", "- none yet.", "(none)", "n/a", "_none_", "- (none)"}
MAX_VALUE_CHARS = 2000


class Section:
    """A heading: title, level, start (index of the heading line), end (one past its last
    line, sub-sections included)."""

    __slots__ = ("title", "level", "start", "end")

    def __init__(self, title: str, level: int, start: int, end: int):
        self.title, self.level, self.start, self.end = title, level, start, end


class StateDoc:
    def __init__(self, text: str):
        self.text = text
        self.lines: list[str] = re.findall(r"[^\n]*\n|[^\n]+$", text)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.fm_lines: tuple[int, int] | None = None  # [first, last) content lines of the frontmatter
        loc = locate(text)
        body_start_line = 0
        if loc and loc[1] >= 0:
            first = text.count("\n", 0, loc[0])
            last = text.count("\n", 0, loc[1])
            self.fm_lines = (first, last)
            body_start_line = text.count("\n", 0, loc[2]) if loc[2] < len(text) else len(self.lines)
        self.body_start = body_start_line
        self.sections: list[Section] = []
        self._code = set()
        fenced = None
        for i in range(body_start_line, len(self.lines)):
            line = self.lines[i]
            m = _FENCE_RE.match(line)
            if fenced:
                self._code.add(i)
                if m and m.group(1) == fenced:
                    fenced = None
                continue
            if m:
                fenced = m.group(1)
                self._code.add(i)
                continue
            h = _HEADING_RE.match(line)
            if h:
                self.sections.append(Section(h.group(2).strip(), len(h.group(1)), i, len(self.lines)))
        for idx, sec in enumerate(self.sections):
            for later in self.sections[idx + 1:]:
                if later.level <= sec.level:
                    sec.end = later.start
                    break

    # ------------------------------------------------------------- reading
    def frontmatter(self) -> tuple[dict | None, str | None]:
        data, _body, err = split_frontmatter(self.text)
        return data, err

    def find_section(self, name: str) -> Section | None:
        """The section `name` under any of its names (state_labels), exact matches first."""
        wants = [w for w in (_norm_title(n) for n in section_names(name)) if w]
        if not wants:
            return None
        for test in (lambda t, w: t == w, lambda t, w: t.startswith(w), lambda t, w: w in t):
            for want in wants:
                for sec in self.sections:
                    if test(_norm_title(sec.title), want):
                        return sec
        return None

    def section_text(self, sec: Section) -> str:
        return "".join(self.lines[sec.start + 1: sec.end])

    def own_end(self, sec: Section) -> int:
        """End of the section's own lines (before its first sub-heading)."""
        for other in self.sections:
            if sec.start < other.start < sec.end:
                return other.start
        return sec.end

    def fields(self, sec: Section) -> dict[str, str]:
        out: dict[str, str] = {}
        for i in range(sec.start + 1, self.own_end(sec)):
            if i in self._code:
                continue
            m = _GENERIC_FIELD_RE.match(self.lines[i])
            if m:
                name = (m.group("bname") or m.group("name")).strip()
                out.setdefault(name, m.group("val").strip())
        return out

    def field_line(self, sec: Section, name: str) -> tuple[int, re.Match] | None:
        """The first line of `sec` labelled `name` under any of its labels (state_labels)."""
        names = field_names(name)
        if all(_plain_label(n) for n in names):
            return self._plain_field_line(sec, name, {n.lower() for n in names})
        rx = _field_re(name)
        for i in range(sec.start + 1, self.own_end(sec)):
            if i in self._code:
                continue
            m = rx.match(self.lines[i])
            if m:
                return i, m
        return None

    def _plain_field_line(self, sec: Section, name: str, wants: set[str]) -> tuple[int, re.Match] | None:
        """field_line for plain labels: any line _field_re(name) matches is a line _ANY_LABEL_RE
        matches with the label itself in its `bname` or `name` group (a plain label starts with
        a letter or digit and holds no `*`, `:` or line break), so the label is compared
        instead; a label that is not ASCII (re.I folds some characters lower() does not) is
        checked with _field_re itself."""
        rx = _ANY_LABEL_RE
        exact = None
        for i in range(sec.start + 1, self.own_end(sec)):
            if i in self._code:
                continue
            line = self.lines[i]
            m = rx.match(line)
            if not m:
                continue
            label = m.group("bname") or m.group("name")
            if label.isascii():
                if label.lower() in wants:
                    return i, m
                continue
            exact = exact or _field_re(name)
            m = exact.match(line)
            if m:
                return i, m
        return None

    def fm_key_line(self, key: str) -> tuple[int, re.Match] | None:
        if not self.fm_lines:
            return None
        rx = re.compile(rf"^(?P<pre>{re.escape(key)}[ \t]*:[ \t]*)(?P<val>.*?)(?P<eol>\r?\n)?$")
        for i in range(*self.fm_lines):
            m = rx.match(self.lines[i])
            if m:
                return i, m
        return None


def _norm_title(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", title.lower().replace("*", "")).strip()


def _plain_label(name: str) -> bool:
    return bool(name) and name.isascii() and name[0].isalnum() and not any(c in name for c in "*:\r\n")


def _field_re(name: str) -> re.Pattern:
    n = "(?:" + "|".join(re.escape(x) for x in field_names(name)) + ")"
    return re.compile(
        rf"^(?P<pre>[ \t]*(?:[-*][ \t]+)?(?:\*\*{n}(?::\*\*|\*\*:)|{n}:)[ \t]*)(?P<val>.*?)(?P<eol>\r?\n)?$",
        re.I,
    )


# ------------------------------------------------------------------ get


def state_summary(text: str) -> dict:
    """`state get` without a section: frontmatter, section titles, Current Position fields."""
    doc = StateDoc(text)
    fm, err = doc.frontmatter()
    pos = doc.find_section("Current Position")
    out = {
        "frontmatter": fm,
        "sections": [("#" * s.level) + " " + s.title for s in doc.sections],
        "position": doc.fields(pos) if pos else None,
    }
    if err:
        out["frontmatter_error"] = err
    return out


def state_get(text: str, name: str) -> dict | None:
    """One section (text + its fields), else a field of any section, else a frontmatter key."""
    doc = StateDoc(text)
    sec = doc.find_section(name)
    if sec:
        return {"section": sec.title, "level": sec.level, "fields": doc.fields(sec), "content": doc.section_text(sec).strip("\r\n")}
    for sec in doc.sections:
        hit = doc.field_line(sec, name)
        if hit:
            return {"field": name, "section": sec.title, "value": hit[1].group("val").strip()}
    fm, _ = doc.frontmatter()
    if isinstance(fm, dict) and name in fm:
        return {"field": name, "section": None, "value": fm[name]}
    return None


# ------------------------------------------------------------------ patch


def _clean(value: str, what: str) -> str:
    """`value` as one clean line; `what`: the patch it is for (its parameter's name, e.g. add_blocker)."""
    said = f"the {what.replace('_', ' ')} value"
    if not isinstance(value, str):
        raise UsageError(f"{said} must be text", about=what)
    if "\n" in value or "\r" in value:
        raise UsageError(f"{said} must be a single line", about=what)
    if any(ord(c) < 32 and c != "\t" for c in value):
        raise UsageError(f"{said} contains control characters", about=what)
    if len(value) > MAX_VALUE_CHARS:
        raise UsageError(f"{said} is longer than {MAX_VALUE_CHARS} characters", about=what)
    return value.strip()


def _yaml_scalar(value: str) -> str:
    if re.fullmatch(r"[A-Za-z][\w .,/()+-]*", value) and value.lower() not in (
        "true", "false", "yes", "no", "on", "off", "null", "none", "y", "n"
    ) and not value.endswith((" ", ":")):
        return value
    return json.dumps(value, ensure_ascii=False)


class Patcher:
    def __init__(self, text: str):
        self.text = text
        self.changed: list[dict] = []
        self.not_found: list[dict] = []

    def _doc(self) -> StateDoc:
        return StateDoc(self.text)

    def _replace_line(self, doc: StateDoc, i: int, new_line: str) -> None:
        lines = list(doc.lines)
        lines[i] = new_line
        self.text = "".join(lines)

    def _insert(self, doc: StateDoc, i: int, new_lines: list[str]) -> None:
        lines = list(doc.lines)
        if i > 0 and not lines[i - 1].endswith("\n"):
            lines[i - 1] += doc.newline
        lines[i:i] = new_lines
        self.text = "".join(lines)

    def _set_field(self, what: str, section: str, field: str, value: str) -> bool:
        doc = self._doc()
        sec = doc.find_section(section)
        if not sec:
            self.not_found.append({"op": what, "section": section})
            return False
        hit = doc.field_line(sec, field)
        if not hit:
            self.not_found.append({"op": what, "section": sec.title, "field": field})
            return False
        i, m = hit
        pre = m.group("pre")
        if not pre.endswith((" ", "\t")):
            pre += " "
        old = m.group("val")
        self._replace_line(doc, i, pre + value + (m.group("eol") or ""))
        self.changed.append({"op": what, "line": i + 1, "old": old, "new": value})
        return True

    def _set_fm(self, what: str, key: str, value: str, *, required: bool) -> bool:
        doc = self._doc()
        hit = doc.fm_key_line(key)
        if not hit:
            if required:
                self.not_found.append({"op": what, "frontmatter": key} if doc.fm_lines else {"op": what, "frontmatter": None})
            return False
        i, m = hit
        old = m.group("val")
        nxt = doc.lines[i + 1] if i + 1 < doc.fm_lines[1] else ""
        if old.strip() in ("", "|", ">", "|-", ">-") and nxt[:1] in (" ", "\t", "-"):
            self.not_found.append({"op": what, "frontmatter": key, "reason": "not a scalar; not changed"})
            return False
        self._replace_line(doc, i, m.group("pre") + _yaml_scalar(value) + (m.group("eol") or ""))
        self.changed.append({"op": what, "line": i + 1, "frontmatter": key, "old": old, "new": value})
        return True

    def _append_item(self, what: str, section: str, text: str) -> None:
        doc = self._doc()
        sec = doc.find_section(section)
        if not sec:
            self.not_found.append({"op": what, "section": section})
            return
        end = doc.own_end(sec)
        body = [i for i in range(sec.start + 1, end) if doc.lines[i].strip()]
        new = f"- {text}{doc.newline}"
        if len(body) == 1 and doc.lines[body[0]].strip().lower() in PLACEHOLDERS:
            i = body[0]
            old = doc.lines[i].rstrip("\r\n")
            self._replace_line(doc, i, new)
            self.changed.append({"op": what, "line": i + 1, "old": old, "new": new.rstrip("\r\n")})
            return
        if body:
            last = doc.lines[body[-1]].lstrip()
            num = re.match(r"(\d+)\.[ \t]", last)
            if num:  # continue a numbered list
                new = f"{int(num.group(1)) + 1}. {text}{doc.newline}"
            at = body[-1] + 1
            block = [doc.newline, new] if last.startswith("|") else [new]  # a table ends at a blank line
            self._insert(doc, at, block)
            at += block.index(new)
        else:  # empty section: the item goes after one blank line, followed by one
            at = sec.start + 1
            block = [doc.newline, new]
            if at < len(doc.lines) and doc.lines[at].strip() == "" and at + 1 <= end:
                at += 1
                block = [new]
            if at >= len(doc.lines) or doc.lines[at].strip():
                block.append(doc.newline)
            self._insert(doc, at, block)
            at += block.index(new)
        self.changed.append({"op": what, "line": at + 1, "new": new.rstrip("\r\n")})

    def position(self, text: str) -> None:
        self._set_field("position", "Current Position", "Phase", _clean(text, "position"))

    def status(self, text: str) -> None:
        value = _clean(text, "status")
        body = self._set_field("status", "Current Position", "Status", value)
        fm = self._set_fm("status", "status", value, required=False)
        if fm and not body:  # the frontmatter carried it: not a miss
            self.not_found = [n for n in self.not_found if n.get("op") != "status"]

    def add_decision(self, text: str) -> None:
        self._append_item("add-decision", "Decisions", _clean(text, "add_decision"))

    def add_blocker(self, text: str) -> None:
        self._append_item("add-blocker", "Blockers", _clean(text, "add_blocker"))

    def resolve_blocker(self, text: str) -> None:
        needle = _clean(text, "resolve_blocker").lower()
        if not needle:
            raise UsageError("give part of the blocker's text", about="resolve_blocker")
        doc = self._doc()
        sec = doc.find_section("Blockers")
        if not sec:
            self.not_found.append({"op": "resolve-blocker", "section": "Blockers"})
            return
        end = doc.own_end(sec)
        hits = [i for i in range(sec.start + 1, end) if needle in doc.lines[i].lower() and i not in doc._code]
        if not hits:
            self.not_found.append({"op": "resolve-blocker", "section": sec.title, "text": text})
            return
        if len(hits) > 1:
            raise UsageError(f"{len(hits)} lines of {sec.title!r} match {text!r}; give more of the text", about="resolve_blocker")
        i = hits[0]
        old = doc.lines[i].rstrip("\r\n")
        remaining = [j for j in range(sec.start + 1, end) if j != i and doc.lines[j].strip()]
        lines = list(doc.lines)
        if remaining:
            del lines[i]
        else:
            lines[i] = "None yet." + (doc.newline if lines[i].endswith("\n") else "")
        self.text = "".join(lines)
        self.changed.append({"op": "resolve-blocker", "line": i + 1, "old": old, "new": None if remaining else "None yet."})

    def set_session(self, text: str, now: str | None = None) -> None:
        value = _clean(text, "set_session")
        stamp = now or time.strftime("%Y-%m-%d %H:%M", time.gmtime())
        self._set_field("set-session", "Session Continuity", "Last session", stamp)
        self._set_field("set-session", "Session Continuity", "Stopped at", value)
        self._set_fm("set-session", "stopped_at", value, required=False)

    def resume_file(self, path: str) -> None:
        value = _clean(path, "resume_file")
        if not value:
            raise UsageError("give a path (or None to clear it)", about="resume_file")
        self._set_field("resume-file", "Session Continuity", "Resume file", value)

    def field(self, name: str, value: str) -> None:
        key = _clean(name, "field")
        if not re.fullmatch(r"[A-Za-z_][\w-]*", key):
            raise UsageError(f"{name!r} is not a frontmatter key name", about="field")
        self._set_fm("field", key, _clean(value, "field"), required=True)


def apply_patch(text: str, ops: list[tuple]) -> tuple[str, list[dict], list[dict]]:
    """Apply ops [(name, *args)] in order; returns (new_text, changed, not_found)."""
    p = Patcher(text)
    for op, *args in ops:
        getattr(p, op.replace("-", "_"))(*args)
    return p.text, p.changed, p.not_found
