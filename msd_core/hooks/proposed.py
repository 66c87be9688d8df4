"""What a file would hold after the host's Write, Edit or MultiEdit ran (Claude Code 2.1.332's inputs).

- Write `{file_path, content}`: `content`, whatever was there.
- Edit `{file_path, old_string, new_string, replace_all}` of a file that does not exist, with an empty
  `old_string`: `new_string` (Qwen Code's `edit` and Gemini CLI's `replace` create the file so, read
  in their bundles: hooks/qwen.py, gemini.py).
- Edit `{file_path, old_string, new_string, replace_all}`: `old_string` replaced by `new_string`:
  every occurrence with `replace_all`, else the one occurrence. None (nothing to judge) when the
  host would refuse the edit itself: `old_string` empty or not in the file, or found more than
  once without `replace_all` (the host also matches after normalising quotes; such an edit is
  not judged either).
- MultiEdit `{file_path, edits: [{old_string, new_string, replace_all}, ...]}`: each edit applied
  in order to what the one before left, by Edit's rule; None when any of them would be refused.
- NotebookEdit `{notebook_path, new_source, cell_id, cell_type, edit_mode}`: a notebook's JSON is
  not a planning document: None (the guard judges where it writes and screens `new_source`).

The new text added (`added`): an Edit's `new_string`, a MultiEdit's new strings, a NotebookEdit's
`new_source`, a Write's whole content; the screen then drops the lines the file already had.
Standard library only.
"""

from __future__ import annotations


def _edit(text: str, change) -> str | None:
    if not isinstance(change, dict):
        return None
    old_string, new_string = change.get("old_string"), change.get("new_string")
    if not isinstance(old_string, str) or not isinstance(new_string, str) or not old_string:
        return None
    count = text.count(old_string)
    every = change.get("replace_all") is True
    if count == 0 or (count > 1 and not every):
        return None
    return text.replace(old_string, new_string) if every else text.replace(old_string, new_string, 1)


def after(tool: str, tool_input: dict, old: str | None) -> str | None:
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    if old is None:
        created = tool == "Edit" and tool_input.get("old_string") == "" and tool_input.get("new_string")
        return created if isinstance(created, str) else None
    if tool == "Edit":
        return _edit(old, tool_input)
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        if not isinstance(edits, list) or not edits:
            return None
        text: str | None = old
        for change in edits:
            text = _edit(text, change)
            if text is None:
                return None
        return text
    return None


def added(tool: str, tool_input: dict) -> str | None:
    if tool == "MultiEdit":
        edits = tool_input.get("edits")
        parts = [e.get("new_string") for e in edits if isinstance(e, dict)] if isinstance(edits, list) else []
        parts = [p for p in parts if isinstance(p, str)]
        return "\n".join(parts) if parts else None
    key = {"Write": "content", "NotebookEdit": "new_source"}.get(tool, "new_string")
    value = tool_input.get(key)
    return value if isinstance(value, str) else None
