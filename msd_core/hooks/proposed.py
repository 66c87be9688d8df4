"""What a file would hold after the host's Write or Edit tool ran (Claude Code 2.1.332's inputs).

- Write `{file_path, content}`: `content`, whatever was there.
- Edit `{file_path, old_string, new_string, replace_all}`: `old_string` replaced by `new_string`:
  every occurrence with `replace_all`, else the one occurrence. None (nothing to judge) when the
  host would refuse the edit itself: `old_string` empty or not in the file, or found more than
  once without `replace_all` (the host also matches after normalising quotes; such an edit is
  not judged either).

The new text added (`added`): an Edit's `new_string`, a Write's whole content; the screen then
drops the lines the file already had. Standard library only.
"""

from __future__ import annotations


def after(tool: str, tool_input: dict, old: str | None) -> str | None:
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    if tool != "Edit" or old is None:
        return None
    old_string, new_string = tool_input.get("old_string"), tool_input.get("new_string")
    if not isinstance(old_string, str) or not isinstance(new_string, str) or not old_string:
        return None
    count = old.count(old_string)
    if count == 0 or (count > 1 and tool_input.get("replace_all") is not True):
        return None
    return old.replace(old_string, new_string) if tool_input.get("replace_all") is True else old.replace(old_string, new_string, 1)


def added(tool: str, tool_input: dict) -> str | None:
    key = "content" if tool == "Write" else "new_string"
    value = tool_input.get(key)
    return value if isinstance(value, str) else None
