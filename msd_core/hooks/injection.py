"""Instructions aimed at the agent in text about to be saved into `.planning/`, and their quarantine.

Text an agent brings in (a fetched page, a search result, a README, a document the user points
to) can carry orders for whatever model reads it later; saved as a plan or research note, they
would be read as the project's own words. PATTERNS is the documented screen, kept small and
specific: each names a shape such text takes and almost no planning text does (tested on every
file of the real `.planning/` corpus: tests/hooks/test_injection_screen.py). Hidden characters
(Unicode tag characters outside flag emoji, bidirectional overrides) count as well.

Only the lines a write adds are screened (an Edit's new text, a Write's lines the file did not
have), so a file already holding such text can still be edited elsewhere. A hit is not saved:
the text goes to `.planning/.msd/quarantine/<time>-<path>.md` under a note saying what matched
and where, and the write is refused with that note. Standard library only.
"""

from __future__ import annotations

# (name, what it is, pattern): matched case-insensitively, one line at a time
PATTERNS = (
    ("override", "an order to drop the agent's instructions",
     r"\b(?:ignore|disregard|forget)\s+(?:(?:all|any|the|of|these|those)\s+)*(?:(?:previous|prior|above|earlier|preceding|your|former|original)\s+)+"
     r"(?:instructions?|directions|directives|rules|guidelines|guardrails|prompts?)\b"),
    ("addressed", "text addressed to an AI reading it",
     r"\b(?:if\s+you\s+are|attention|note\s+to|message\s+to|instructions?\s+for)\s*:?\s+(?:an?\s+|the\s+|any\s+)?"
     r"(?:ai|llms?|large\s+language\s+models?|language\s+models?|ai\s+assistants?|ai\s+agents?|coding\s+agents?|chatbots?)\b"
     r"(?:\s+(?:reading|processing|parsing|summari[sz]ing|that\s+reads)\b|\s*[,:])"),
    ("role", "an attempt to give the agent a new role",
     r"\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored|dan)\b"
     r"|\byou\s+are\s+now\s+(?:an?\s+|the\s+)?(?:different|new|evil|rogue|free)\s+(?:ai|assistant|model|agent|persona)\b"
     r"|\byou\s+are\s+now\s+(?:in\s+)?(?:god|jailbreak|dan)\s+mode\b"),
    ("secrecy", "an order to hide something from the user",
     r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert|show|mention\s+(?:this|it)\s+to)\s+the\s+user\s+"
     r"(?:about|that)\s+(?:this|these)\s+(?:instruction|instructions|message|step|change|command)s?\b"
     r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b"),
    ("prompt-leak", "a request for the agent's hidden instructions",
     r"\b(?:reveal|print|output|repeat|show|leak|dump)\s+your\s+(?:full\s+|entire\s+|exact\s+)?"
     r"(?:system\s+prompt|hidden\s+instructions|initial\s+instructions|original\s+instructions)\b"),
    ("exfiltrate", "an order to send secrets somewhere",
     r"\b(?:send|post|upload|exfiltrate|forward|transmit|email|copy)\s+(?:the\s+)?(?:all|any|every|your|the\s+user's)\s+(?:of\s+the\s+)?"
     r"(?:secrets|credentials|api\s+keys?|private\s+keys?|passwords|env(?:ironment)?\s+variables|\.env(?:\s+files?)?)\s+"
     r"(?:to|at|via)\s+(?:https?://|\S+@\S+)"),
    ("chat-markup", "chat-template markup that fakes a new message",
     r"^\s*(?:<\|im_start\|>|<\|(?:system|user|assistant)\|>|\[INST\]|<<SYS>>|</?(?:system|system-reminder|assistant|human)>\s*$)"),
)
HIDDEN = "hidden characters (Unicode tags or bidirectional overrides) that hide text from a person"
MAX_SCREEN_CHARS = 4 << 20
MAX_FINDINGS = 5

# What an ASCII line must hold (lowercased) for each pattern to match it: a pattern is compiled and
# run only on a line that passes its gate, so a plain planning document costs no regex compile (the
# hook is a fresh process per guarded write). Each gate names words every match of the pattern
# contains; a non-ASCII line skips the gates (re.I folds some non-ASCII letters to ASCII ones).
GATES = {
    "override": (("ignore", "disregard", "forget"),),
    "addressed": (("you", "attention", "note", "message", "instruction"), ("ai", "llm", "language", "chatbot", "agent", "assistant")),
    "role": (("you",), ("now",)),
    "secrecy": (("user",), ("not", "don't", "never", "without")),
    "prompt-leak": (("your",), ("prompt", "instructions")),
    "exfiltrate": (("http", "@"), ("to", "at", "via")),
    "chat-markup": (("<", "[inst]"),),
}

_compiled: dict = {}


def _pattern(name: str, rx: str):
    got = _compiled.get(name)
    if got is None:
        import re  # only for a line past its gate: most writes never import it

        got = _compiled[name] = re.compile(rx, re.I | re.M)
    return got


def _may_match(name: str, low: str | None) -> bool:
    """Whether the pattern `name` can match the line (`low`: the ASCII line lowercased; None: not ASCII)."""
    return low is None or all(any(word in low for word in words) for words in GATES[name])


def _hidden(line: str) -> bool:
    """Tag characters (U+E0000-E007F) outside a flag emoji sequence, or bidirectional overrides."""
    for i, ch in enumerate(line):
        o = ord(ch)
        if 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069:
            return True
        if 0xE0000 <= o <= 0xE007F:
            j = i
            while j > 0 and 0xE0000 <= ord(line[j - 1]) <= 0xE007F:
                j -= 1
            if not (j > 0 and ord(line[j - 1]) == 0x1F3F4):  # 🏴 + tag letters + cancel tag: a subdivision flag
                return True
    return False


def screen(text: str, old: str | None = None) -> list[tuple[int, str, str, str]]:
    """[(line number, pattern name, what it is, the line)] of the lines `text` adds to `old`."""
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_SCREEN_CHARS]
    kept = set(old.splitlines()) if isinstance(old, str) and old else set()
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line in kept:
            continue
        name = what = None
        low = line.lower() if line.isascii() else None
        if low is None and _hidden(line):
            name, what = "hidden", HIDDEN
        if name is None:
            for pname, pwhat, rx in PATTERNS:
                if _may_match(pname, low) and _pattern(pname, rx).search(line):
                    name, what = pname, pwhat
                    break
        if name:
            out.append((n, name, what, line.strip()))
            if len(out) >= MAX_FINDINGS:
                break
    return out


def describe(findings: list) -> str:
    parts = []
    for n, name, what, line in findings[:3]:
        shown = line if len(line) <= 100 else line[:97] + "..."
        parts.append(f"line {n}: {what} ({name}): {shown!r}")
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    return "; ".join(parts) + more


def quarantine(planning: str, rel: str, text: str, findings: list, session: str | None, agent: str | None) -> str | None:
    """Keep the refused text for the user: `.planning/.msd/quarantine/<UTC time>-<path>.md`, a
    note on top. Returns its path relative to the project, or None when it cannot be written."""
    import os
    import re
    import time

    from msd_core.files.atomic import write_new_file

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", rel.replace("/", "__"))[:120]
    folder = os.path.join(planning, ".msd", "quarantine")
    stem = f"{stamp}-{flat}"
    stem = stem[:-3] if stem.endswith(".md") else stem
    note = ["<!-- msd quarantine: this text was NOT saved where the agent meant to save it -->",
            f"- target: .planning/{rel}", f"- when: {stamp}"]
    if session:
        note.append(f"- session: {session}" + (f" (subagent {agent})" if agent else ""))
    note.append("- why: it holds instructions aimed at an AI agent, which msd does not save as planning text:")
    for n, pname, what, line in findings:
        note.append(f"  - line {n}: {what} ({pname}): {line[:200]}")
    note += ["- to keep it anyway: check it, then copy what you want yourself, or run "
             f"`msd guard allow .planning/{rel}` and ask the agent to write it again", "", "---", ""]
    try:
        from pathlib import Path

        # a new name for each refusal: two in the same second keep both texts (`<stem>-2.md`)
        name = write_new_file(Path(folder), stem, ".md", ("\n".join(note) + text).encode("utf-8"),
                              anchor=Path(planning).parent)
    except Exception:  # noqa: BLE001 - a read-only project: the write is still refused, with no copy
        return None
    return f".planning/.msd/quarantine/{name}"
