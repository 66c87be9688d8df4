"""Instructions aimed at the agent in text about to be saved into `.planning/`, and their quarantine.

Text an agent brings in (a fetched page, a search result, a README, a document the user points
to) can carry orders for whatever model reads it later; saved as a plan or research note, they
would be read as the project's own words. The screen looks for text *addressed to the agent*
(orders to drop its instructions, said plainly or in other words; text addressed to an AI
reader, in prose or in an HTML comment; "new instructions for the assistant"; role changes;
secrecy from the user; prompt leaks; exfiltration; chat-template turn markers and `<system>`
tags), not for words *about* such attacks: a match is let through when it is only mentioned
(_mentioned): inside fenced code (a fence left open shields nothing), inside inline code, inside
quotes within a sentence of its own, after words that discuss an attack earlier in its sentence
(CUES: "an attacker may ...", "payloads such as ..."), or just after a negation (NEGATIONS: "the
bot must never reveal ..."). None of that excuses a match the normalising below had to uncover.
Tested on every file of the real `.planning/` corpus and on the labelled cases of
tests/hooks/guard_corpus/injection.json (`scripts/bench_guards.py --accuracy` counts them).

Before matching, each line is normalised (normalise()): invisible characters (zero-width space,
joiners, word joiner, soft hyphen, BOM, bidirectional controls) removed, NFKC, look-alike
Cyrillic and Greek letters read as the Latin ones (CONFUSABLE); letters spaced out
(`i g n o r e  a l l`) are closed up and runs of blanks read as one; the lines of a paragraph are
matched together (an order split over two lines). A phrase that shows only once a paragraph's
letters are run together (a word split at a line's end, letters spaced out) is `obfuscated`;
long base64 runs are decoded (bounded: MAX_DECODED runs of at most MAX_RUN characters) and the
text screened (`encoded`). Hidden characters count on their own: Unicode tag characters outside
flag emoji, bidirectional overrides, and isolates or embeddings left open on their line (closed
isolates are ordinary i18n text).

Only the lines a write adds are screened (an Edit's new text, a Write's lines the file did not
have), so a file already holding such text can still be edited elsewhere. A hit is not saved:
the text goes to `.planning/.msd/quarantine/<time>-<path>.md` under a note saying what matched
and where, and the write is refused with that note. Standard library only; `re` patterns are
compiled only where a paragraph holds one of their anchors (ROWS).
"""

from __future__ import annotations

_AI = (r"(?:ai|llms?|large\s+language\s+models?|language\s+models?|(?:ai|coding|autonomous)\s+(?:assistants?|agents?|models?)"
       r"|assistants?|agents?|models?|chatbots?|bots?|claude|chatgpt|gpt(?:-\d)?|copilot|gemini|cursor)")
# who a comment is addressed to: no bare singular "model" or "agent" (`<!-- model: x -->` is a setting)
_ADDRESSEE = (r"(?:ai|llms?|large\s+language\s+models?|language\s+models?|(?:ai|coding|autonomous)\s+(?:assistants?|agents?|models?)"
              r"|assistants?|agents|chatbots?|claude|chatgpt|gpt(?:-\d)?|copilot|gemini|cursor)")
_NOUNS = r"(?:instructions?|directions|directives|rules|guidelines|guardrails|guidance|prompts?|system\s+prompt|orders|programming|policies)"
_BEFORE = r"(?:previous|prior|above|earlier|preceding|your|former|original|initial|system|developer|safety)"
_ENDS = r"(?:void|null|obsolete|cancell?ed|revoked|superseded|overridden|replaced|lifted|suspended|invalid|no\s+longer\s+valid)"

# What the screen looks for. Each row: (name, anchors, where, pattern). A paragraph is lowercased
# and normalised; the pattern is tried (re.match, no re.I) only where one of the row's anchors
# starts a word (so a plain planning note compiles and runs no pattern), and only where `where`
# allows: "any", "line" (nothing but markdown marks before it on its line), "sentence" (a line's
# or a sentence's start), "after-noun" (one of _NOUNS just before it) or "imperative" (its sentence
# starts with an order, IMPERATIVE, or holds a word of stealth, STEALTH); "+a|b" after it: only in a
# text holding "a" or "b". Every match of a pattern starts with one of its anchors (tested).
_VERBS_OFF = ("ignore", "disregard", "forget", "set aside", "pay no attention", "stop following", "stop obeying", "do not follow",
              "do not obey", "don't follow", "don't obey", "no longer follow", "no longer obey")
IMPERATIVE = frozenset(("install", "add", "send", "upload", "delete", "remove", "change", "modify", "push", "commit", "execute",
                        "download", "copy", "write", "replace", "disable", "email", "post", "insert", "include"))
STEALTH = ("silently", "quietly", "secretly", "covertly", "discreetly")
_NEW = ("new", "updated", "revised", "real", "actual", "additional", "important", "urgent", "secret", "hidden", "priority")
ROWS = (
    ("override", _VERBS_OFF, "any",
     r"(?:ignore|disregard|forget|set\s+aside|pay\s+no\s+attention\s+to|stop\s+(?:following|obeying)|(?:do\s+not|don't|no\s+longer)\s+(?:follow|obey))"
     r"\s+(?:(?:all|any|the|of|these|those|every)\s+)*(?:" + _BEFORE + r"\s+)+" + _NOUNS + r"\b"),
    ("override", ("ignore", "disregard", "forget", "set aside", "pay no attention"), "any",
     r"(?:ignore|disregard|forget|set\s+aside|pay\s+no\s+attention\s+to)\s+(?:(?:all|any|the|of)\s+)*" + _NOUNS
     + r"\s+(?:above|before\s+this|earlier|so\s+far|until\s+now|given\s+(?:above|earlier|before))\b"),
    ("override", ("override", "bypass", "circumvent"), "any",
     r"(?:override|bypass|circumvent)\s+your\s+(?:\w+\s+)?(?:instructions|rules|guidelines|guardrails|programming|restrictions|safety|policies|system\s+prompt)\b"),
    ("paraphrase", ("forget", "ignore", "disregard", "set aside", "discard", "pay no attention", "stop following"), "any",
     r"(?:forget|ignore|disregard|set\s+aside|discard|pay\s+no\s+attention\s+to|stop\s+following)\s+"
     r"(?:(?:everything|anything|all(?:\s+that)?|whatever|what)\s+(?:that\s+)?you(?:\s+were|\s+have\s+been|'ve\s+been|\s+had\s+been)\s+"
     r"(?:told|given|instructed|taught|asked)|(?:all\s+|any\s+)?(?:the\s+)?" + _NOUNS
     + r"\s+(?:that\s+)?you(?:\s+were|\s+have\s+been|'ve\s+been)\s+(?:given|told|taught))"),
    ("paraphrase", ("your",), "any",
     r"your\s+(?:" + _BEFORE + r"\s+)?" + _NOUNS + r"\s+(?:(?:are|is|have\s+been|has\s+been)\s+(?:now\s+)?" + _ENDS
     + r"|(?:no\s+longer|do\s+not|don't|does\s+not|doesn't)\s+apply)\b"),
    ("paraphrase", ("you were given", "you received", "you got", "you were told", "you have been given"), "after-noun",
     r"you\s+(?:were\s+given|received|got|were\s+told|have\s+been\s+given)(?:\s+\w+){0,2}?\s+"
     r"(?:(?:are|is|have\s+been|has\s+been)\s+(?:now\s+)?" + _ENDS + r"|(?:no\s+longer|do\s+not|don't|does\s+not|doesn't)\s+apply)\b"),
    ("paraphrase", ("from now on",), "any",
     r"from\s+now\s+on,?\s+(?:you|the\s+(?:assistant|agent|ai|model))\s+(?:will|must|shall|should|are\s+to|have\s+to|may)\s+(?:only\s+)?"
     r"(?:obey|follow|listen\s+to|do\s+(?:what|as)|act\s+as|ignore|answer\s+only|respond\s+only|work\s+for)\b"),
    ("paraphrase", ("your",), "any",
     r"your\s+(?:real|actual|true|new|only)\s+(?:task|job|goal|mission|instructions?|objective|purpose)\s+(?:is|are|now\s+is)\b"),
    ("addressed", ("if you are", "attention", "note to", "message to", "instruction"), "any",
     r"(?:if\s+you\s+are|attention|note\s+to|message\s+to|instructions?\s+for)\s*:?\s+(?:an?\s+|the\s+|any\s+|all\s+)?"
     r"(?:ai|llms?|large\s+language\s+models?|language\s+models?|ai\s+assistants?|ai\s+agents?|coding\s+agents?|chatbots?)\b"
     r"(?:\s+(?:reading|processing|parsing|summari[sz]ing|that\s+reads)\b|\s*[,:])"),
    ("addressed", ("dear", "hey", "hello", "hi"), "any", r"(?:dear|hey|hello|hi)\s+" + _AI + r"\s*[,:!]"),
    ("addressed", ("claude", "chatgpt", "copilot", "gemini", "assistant", "ai", "llm"), "sentence",
     r"(?:claude|chatgpt|copilot|gemini|assistant|ai|llm)\s*,\s+(?:when|if|please|you|as\s+you|before|after|now|from\s+now|ignore|"
     r"add|run|do|make|install|delete|remove|write|send|read)\b"),
    ("addressed", ("to",), "line",
     r"to\s+(?:all\s+|any\s+|the\s+)?(?:ai|llm|coding)\s+(?:agents?|assistants?|models?)(?:\s+reading\s+this(?:\s+\w+)?)?\s*:"),
    ("addressed", ("ai", "llm", "coding"), "any",
     r"(?:ai|llm|coding)\s+(?:agents?|assistants?|models?)\s+(?:reading|processing|parsing|summari[sz]ing)\s+this\s+\w+\s+"
     r"(?:must|should|shall|need\s+to|are\s+(?:required|instructed|asked)\s+to)\b"),
    ("new-instructions", _NEW, "sentence",
     r"(?:(?:important|urgent|secret|hidden|priority)\s+)?(?:new|updated|revised|real|actual|additional|important|urgent)\s+"
     r"(?:(?:system\s+)?(?:instructions?|directives?)|system\s+prompt)\s+(?:for|to)\s+(?:the\s+|any\s+|all\s+|every\s+)?" + _AI
     + r"\b\s*(?:[:\u2013\u2014-]|$)"),
    ("comment", ("<!--",), "any",
     r"<!--\s*(?:(?:note|message|instructions?|attention|reminder)\s+(?:to|for)\s+|to\s+)?(?:(?:the|all|any|dear|hey)\s+)?@?" + _ADDRESSEE
     + r"(?:\s+instructions?)?(?:\s+(?:reading|processing|parsing)\s+this(?:\s+(?:page|file|document))?)?\s*[:,]"),
    ("role", ("you are now",), "any",
     r"you\s+are\s+now\s+(?:(?:an?\s+|the\s+|in\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored|dan)\b"
     r"|(?:an?\s+|the\s+)?(?:different|new|evil|rogue|free)\s+(?:ai|assistant|model|agent|persona)\b|(?:in\s+)?(?:god|jailbreak|dan)\s+mode\b)"),
    ("role", ("act as", "behave as", "respond as"), "any", r"(?:act|behave|respond)\s+as\s+(?:an?\s+)?(?:unrestricted|unfiltered|jailbroken|uncensored)\b"),
    ("role", ("pretend", "act as if", "behave as if"), "any",
     r"(?:pretend\s+(?:that\s+)?|(?:act|behave)\s+as\s+if\s+)you\s+(?:are\s+not\s+bound|(?:have|had)\s+no\s+(?:rules|restrictions|guidelines|limits))\b"),
    ("secrecy", ("do not", "don't", "never"), "any",
     r"(?:do\s+not|don't|never)\s+(?:(?:tell|inform|notify|alert|show|mention\s+(?:this|it)\s+to)\s+the\s+user\s+"
     r"(?:about|that)\s+(?:this|these)\s+(?:instruction|instructions|message|step|change|command)s?\b|let\s+the\s+user\s+know\b)"),
    ("secrecy", ("keep",), "any", r"keep\s+(?:this|these\s+instructions|it)\s+(?:secret|hidden)\s+from\s+the\s+user\b"),
    ("secrecy", ("without",), "imperative", r"without\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b"),
    ("secrecy", ("the user",), "imperative",
     r"the\s+user\s+(?:does\s+not|doesn't|need\s+not|needn't|must\s+not|should\s+not|shouldn't)\s+(?:need\s+to\s+)?"
     r"(?:know|be\s+told|find\s+out|notice|see\s+this)\b"),
    ("prompt-leak", ("reveal", "print", "output", "repeat", "show", "leak", "dump", "display", "disclose", "share", "write out", "tell me",
                     "give me", "send me"), "any",
     r"(?:reveal|print|output|repeat|show|leak|dump|display|disclose|share|write\s+out|tell\s+me|give\s+me|send\s+me)\s+your\s+"
     r"(?:full\s+|entire\s+|exact\s+|complete\s+)?(?:system\s+prompt|(?:hidden|initial|original|secret)\s+(?:instructions|prompt|rules))\b"
     r"|repeat\s+(?:the\s+|all\s+)?(?:words|text|everything)\s+above\s+(?:verbatim|starting|word\s+for\s+word)"),
    ("exfiltrate", ("send", "post", "upload", "exfiltrate", "forward", "transmit", "email", "copy"), "any+://|@",
     r"(?:send|post|upload|exfiltrate|forward|transmit|email|copy)\s+(?:the\s+)?(?:all|any|every|your|the\s+user's)\s+(?:of\s+the\s+)?"
     r"(?:secrets|credentials|api\s+keys?|private\s+keys?|passwords|env(?:ironment)?\s+variables|\.env(?:\s+files?)?)\s+"
     r"(?:to|at|via)\s+(?:https?://|\S+@\S+)"),
    ("chat-markup", ("<|",), "any",
     r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>"),
    ("chat-markup", ("<start_of_turn>", "<end_of_turn>"), "any", r"<(?:start|end)_of_turn>"),
    ("chat-markup", ("[inst]", "[/inst]", "<<sys>>"), "line", r"\[/?inst\]|<<sys>>"),
    ("chat-markup", ("<system", "</system", "<assistant", "</assistant", "<human", "</human"), "line",
     r"</?(?:system|system[-_ ]?(?:reminder|prompt|message|instructions?)|assistant|human)\s*>"),
    ("chat-markup", ("<system",), "any", r"<(system|system[-_]?(?:reminder|prompt|message|instructions?))\s*>[^\n]*?</\1\s*>"),
)
WHAT = {
    "override": "an order to drop the agent's instructions",
    "paraphrase": "an order to drop the agent's instructions, in other words",
    "addressed": "text addressed to an AI reading it",
    "new-instructions": "new instructions for the agent",
    "comment": "an HTML comment addressed to an AI reading it",
    "role": "an attempt to give the agent a new role",
    "secrecy": "an order to hide something from the user",
    "prompt-leak": "a request for the agent's hidden instructions",
    "exfiltrate": "an order to send secrets somewhere",
    "chat-markup": "chat-template markup that fakes a new message",
}
OBFUSCATED = "an order to the agent spelled so a reader misses it (letters split, spaced or run together)"
ENCODED = "base64 text that decodes to instructions aimed at the agent"
HIDDEN = "hidden characters (Unicode tags, bidirectional overrides, or isolates left open) that hide text from a person"
MAX_SCREEN_CHARS = 4 << 20
MAX_FINDINGS = 5
MAX_DECODED = 32  # base64 runs decoded per screen at the most
MAX_RUN = 16 << 10  # a longer base64 run is not decoded
MIN_RUN = 24
SEPARATOR = "\n\x1e\n"  # between paragraphs: a record separator no pattern matches across

# Phrases looked for with a paragraph's letters run together (OBFUSCATED): token groups, each
# (alternatives, repeat): "" once, "*" any number, "+" one or more.
RUN_TOGETHER = (
    ("override", (("ignore|disregard|forget", ""), ("all|any|the|these|those", "*"),
                  ("previous|prior|above|earlier|preceding|your|former|original", "+"),
                  ("instructions?|directions|directives|rules|guidelines|prompts?", ""))),
    ("override", (("ignore|disregard|forget", ""), ("all|any|the|these|those", "*"), ("previous|prior|above|earlier|preceding", "+"))),
    ("prompt-leak", (("reveal|print|output|repeat|show|leak|dump", ""), ("your", ""), ("full|entire|exact", "*"),
                     ("system prompt|hidden instructions|initial instructions|original instructions", ""))),
    ("new-instructions", (("new|updated|revised", ""), ("instructions|directives", ""), ("for|to", ""), ("the|all|any", "*"),
                          ("ai|assistant|agent|model|llm|claude", ""))),
    ("role", (("you", ""), ("are", ""), ("now", ""), ("dan|unrestricted|jailbroken|unfiltered", ""))),
)
RUN_GATE = ("instruction", "directive", "direction", "rule", "guideline", "prompt", "youarenow", "previous", "prior", "above", "earlier")

# characters removed before matching: zero-width space/non-joiner/joiner, word joiner and the
# invisible operators, soft hyphen, BOM, Mongolian vowel separator, combining grapheme joiner,
# and the bidirectional marks and controls (their own check is _hidden)
INVISIBLE = dict.fromkeys([0x200B, 0x200C, 0x200D, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x00AD, 0xFEFF, 0x180E, 0x034F,
                           0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
# letters of other scripts that look like Latin ones (after NFKC), read as those
CONFUSABLE = {
    **dict(zip(map(ord, "аеорсухіјѕԁӏһԛԝ"), "aeopcyxijsdlhqw")), **dict(zip(map(ord, "АВЕКМНОРСТХІЈЅ"), "ABEKMHOPCTXIJS")),
    **dict(zip(map(ord, "αοιρνυκτχεϲ"), "aoipvuktxec")), **dict(zip(map(ord, "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"), "ABEZHIKMNOPTYX")),
    ord("ı"): "i", ord("İ"): "I", ord("ɑ"): "a", ord("ɡ"): "g", ord("ℓ"): "l",
}
# words that, earlier in the same sentence, make a match a report of an attack rather than one
CUES = (r"(?<![a-z])(?:attack\w*|adversar\w*|malicious|inject\w*|payloads?|jailbreak\w*|exploit\w*|phrases?|strings?|such\s+as|"
        r"e\.g|for\s+example|might|could|tries|try|trying|attempts?|refuses?|resists?|detects?|flags?|blocks?|rejects?|tests?|"
        r"testing|quot\w*|threats?|risks?|classif\w*)\b")
# words that, just before a match, negate it ("never reveal your system prompt")
NEGATIONS = r"(?<![a-z])(?:never|not|don't|doesn't|cannot|can't|won't|must\s+not|should\s+not)\s+(?:\w+\s+){0,2}$"

_compiled: dict = {}  # row index -> compiled pattern
NEEDS: dict = {}  # row index -> what the text must hold for the row to be tried (its `where` after "+")
_helpers: dict = {}


def _row(i: int):
    got = _compiled.get(i)
    if got is None:
        import re  # only where a row's anchor is found: most writes compile nothing

        got = _compiled[i] = re.compile(ROWS[i][3], re.M)
    return got


def _helper(name: str):
    got = _helpers.get(name)
    if got is None:
        import re

        got = _helpers[name] = re.compile(HELPERS[name], re.M)
    return got


HELPERS = {
    "spaced": r"(?<![A-Za-z])(?:[A-Za-z] {1,3}){3,}[A-Za-z](?![A-Za-z])",
    "spaced-gate": r" [a-z] [a-z] [a-z] ",
    "base64": r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{%d,}={0,2}(?![A-Za-z0-9+/=_-])" % MIN_RUN,
    "letters": r"[^a-z]+",
    "cues": CUES,
    "negation": NEGATIONS,
    "quotes": r"\"[^\"\n]+\"|“[^”\n]+”|‘[^’\n]+’|«[^»\n]+»|(?<![\w'])'[^'\n]+'(?![\w'])",
    "code": r"`[^`\n]+`",
    "sentence": r"[.!?](?=\s)|\n(?=[\s>]*(?:[-*+]\s|\d+[.)]\s|#|\|))",
    "fence": r"^[\s>]*(```+|~~~+)",
    "noun-before": _NOUNS + r"\s+(?:that\s+)?$",
    "unusual": "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f]",
    "lookalike": "[\u0130\u0131\u0251\u0261\u0370-\u03ff\u0400-\u052f\u2113]",
}
_MARKS = " \t>*_#-+"


def _starts(low: str, pos: int, where: str) -> bool:
    """Whether `pos` is where a row may match (ROWS: `where`)."""
    if where == "any":
        return True
    if where == "after-noun":  # "the rules you were given ...": a noun of _NOUNS just before
        return _helper("noun-before").search(low, max(0, pos - 48), pos) is not None
    if where == "imperative":
        head = max(low.rfind("\n", 0, pos), *(low.rfind(p, 0, pos) for p in (". ", "! ", "? ", ": ")), pos - 200) + 1
        sentence = low[head:pos]
        words = sentence.replace("*", " ").replace(">", " ").split()
        first = words[0] if words and words[0] not in ("-", "+") else (words[1] if len(words) > 1 else "")
        return first.strip("_") in IMPERATIVE or (any(w in sentence for w in STEALTH)
                                                  and any(w.strip("_,;") in IMPERATIVE for w in words))
    j = pos - 1
    while j >= 0 and low[j] in _MARKS:
        j -= 1
    if j < 0 or low[j] == "\n":
        return True
    return where == "sentence" and low[j] in ".!?:" and j < pos - 1


def _anchors() -> tuple[list, list]:
    """[(anchor, row indexes)] of the rows matched anywhere; {first two characters: [(anchor, row
    indexes)]} of those matched at a line's or sentence's start only."""
    got = _helpers.get("anchors")
    if got is None:
        anywhere: dict = {}
        at_start: dict = {}
        for i, row in enumerate(ROWS):
            for anchor in row[1]:
                (at_start if row[2] in ("line", "sentence") else anywhere).setdefault(anchor, []).append(i)
                if "+" in row[2]:
                    NEEDS[i] = tuple(row[2].split("+", 1)[1].split("|"))
        by_head: dict = {}  # the start-only anchors by their first two characters
        for anchor, rows in at_start.items():
            by_head.setdefault(anchor[:2], []).append((anchor, rows))
        got = _helpers["anchors"] = (list(anywhere.items()), by_head)
    return got


def _start_positions(low: str) -> list[int]:
    """Where the lines and sentences of `low` start, markdown marks skipped."""
    out = []
    for mark in ("\n", ". ", "! ", "? ", ": "):
        pos = low.find(mark)
        while pos >= 0:
            out.append(pos + len(mark))
            pos = low.find(mark, pos + 1)
    out.append(0)
    starts = []
    for pos in out:
        while pos < len(low) and low[pos] in _MARKS:
            pos += 1
        starts.append(pos)
    return starts


def _holds(low: str, i: int) -> bool:
    needs = NEEDS.get(i)
    return needs is None or any(n in low for n in needs)


def _word(low: str, pos: int, anchor: str) -> bool:
    """Whether `anchor` at `pos` stands on its own: a word (or "instruction", the start of
    "instructions"), a tag not glued to a name before it, or chat markup anywhere."""
    if anchor.startswith(("<|", "<!--", "[", "<<")):
        return True
    if anchor[0] == "<":  # a tag, not a type parameter (`Program<System>`)
        return not pos or not (low[pos - 1].isalnum() or low[pos - 1] in "$._")
    end = pos + len(anchor)
    return (not pos or not low[pos - 1].isalnum()) and (anchor == "instruction" or end >= len(low) or not low[end].isalnum())


def _hits(low: str):
    """(name, start, end) of the rows' matches in the lowercased paragraph `low`."""
    anywhere, at_start = _anchors()
    for anchor, rows in anywhere:
        pos = low.find(anchor)
        while pos >= 0:
            if _word(low, pos, anchor):
                for i in rows:
                    if _starts(low, pos, ROWS[i][2].split("+")[0]) and _holds(low, i):
                        m = _row(i).match(low, pos)
                        if m and m.end() > pos:
                            yield ROWS[i][0], m.start(), m.end()
            pos = low.find(anchor, pos + 1)
    for pos in _start_positions(low):
        for anchor, rows in at_start.get(low[pos:pos + 2], ()):
            if low.startswith(anchor, pos) and _word(low, pos, anchor):
                for i in rows:
                    if _starts(low, pos, ROWS[i][2].split("+")[0]) and _holds(low, i):
                        m = _row(i).match(low, pos)
                        if m and m.end() > pos:
                            yield ROWS[i][0], m.start(), m.end()


def _hidden(line: str) -> bool:
    """Tag characters (U+E0000-E007F) outside a flag emoji sequence, bidirectional overrides, or
    an embedding or isolate not closed on its line (closed isolates are ordinary i18n text)."""
    opened: list[str] = []
    for i, ch in enumerate(line):
        o = ord(ch)
        if o in (0x202D, 0x202E):  # left-to-right and right-to-left overrides
            return True
        if o in (0x202A, 0x202B) or 0x2066 <= o <= 0x2068:
            opened.append("e" if o < 0x2066 else "i")
        elif o in (0x202C, 0x2069):
            if not opened or opened.pop() != ("e" if o == 0x202C else "i"):
                return True
        elif 0xE0000 <= o <= 0xE007F:
            j = i
            while j > 0 and 0xE0000 <= ord(line[j - 1]) <= 0xE007F:
                j -= 1
            if not (j > 0 and ord(line[j - 1]) == 0x1F3F4):  # 🏴 + tag letters + cancel tag: a subdivision flag
                return True
    return bool(opened)


def normalise(line: str) -> str:
    """The line as the screen reads it: invisible characters out, NFKC, look-alike letters read as
    Latin ones."""
    if line.isascii():
        return line
    if _helper("unusual").search(line):
        line = line.translate(INVISIBLE)
    import unicodedata

    if not unicodedata.is_normalized("NFKC", line):
        line = unicodedata.normalize("NFKC", line)
    if _helper("lookalike").search(line):
        line = line.translate(CONFUSABLE)
    return line


def _close_up(line: str) -> str:
    import re

    return _helper("spaced").sub(lambda m: " ".join(part.replace(" ", "") for part in re.split(r" {2,}", m.group(0))), line)


def _fenced(lines: list[str]) -> set[int]:
    """Indexes of the lines inside closed code fences (the fence lines too); a fence left open
    shields nothing."""
    out, start, mark = set(), None, ""
    fence = _helper("fence")
    for i, line in enumerate(lines):
        if "```" not in line and "~~~" not in line:
            continue
        m = fence.match(line)
        if not m:
            continue
        if start is None:
            start, mark = i, m.group(1)[0] * 3
        elif m.group(1).startswith(mark) and not line.strip().lstrip(">").strip().strip(mark[0]):
            out.update(range(start, i + 1))
            start = None
    return out


def _paragraphs(lines: list[str], added: list[bool], shielded: set[int]):
    """(text, [(offset, line index)]) of each paragraph holding an added line: consecutive
    non-blank lines outside fences, their blockquote marks dropped, joined by newlines."""
    block: list[int] = []
    for i in range(len(lines) + 1):
        if i < len(lines) and i not in shielded and lines[i].strip().lstrip(">").strip():
            block.append(i)
            continue
        if block and any(added[j] for j in block):
            parts, offsets, at = [], [], 0
            for j in block:
                text = lines[j].lstrip()
                while text.startswith(">"):
                    text = text[1:].lstrip()
                offsets.append((at, j))
                parts.append(text)
                at += len(text) + 1
            yield "\n".join(parts), offsets
        block = []


def _line_at(offsets, pos: int) -> int:
    found = offsets[0][1]
    for at, j in offsets:
        if at > pos:
            break
        found = j
    return found


def _mentioned(text: str, start: int, end: int, name: str) -> bool:
    """Whether the match text[start:end] is only mentioned: inside inline code; inside quotes with
    words of the paragraph's own around them; or (an order, not markup) after words that report or
    negate it in its sentence."""
    import re

    if any(s <= start and end <= e for s, e in (m.span() for m in _helper("code").finditer(text))):
        return True
    spans = [m.span() for m in _helper("quotes").finditer(text)]
    for s, e in spans:
        if s <= start and end <= e:
            outside = "".join(text[a:b] for a, b in zip([0] + [e2 for _s2, e2 in spans], [s2 for s2, _e2 in spans] + [len(text)]))
            if len(re.findall(r"[a-z]{2,}", outside)) >= 2:
                return True
    if name in ("chat-markup", "comment"):
        return False
    head = 0
    for m in _helper("sentence").finditer(text, 0, start):
        head = m.end()
    return (_helper("cues").search(text, head, start) is not None
            or _helper("negation").search(text, max(head, start - 40), start) is not None)


def _run_together(low: str) -> str | None:
    """The name of a RUN_TOGETHER phrase that shows only with the paragraph's letters run together."""
    import re

    squashed = _helper("letters").sub("", low)
    if not any(word in squashed for word in RUN_GATE):
        return None
    spaced = " " + _helper("letters").sub(" ", low) + " "
    for name, groups in RUN_TOGETHER:
        tight = "".join(f"(?:{alt.replace(' ', '')}){rep}" for alt, rep in groups)
        loose = "".join(f"(?: (?:{alt})){rep}" for alt, rep in groups)
        if len(re.findall(tight, squashed)) > len(re.findall(loose + "(?= )", spaced)):
            return name
    return None


def _split_word(low: str) -> bool:
    """Whether one of RUN_GATE's words shows only with the paragraph's lines glued together."""
    glued = low.replace("\n", "")
    return any(glued.count(word) > low.count(word) for word in RUN_GATE if word in glued)


def _decoded(text: str) -> list[tuple[int, str]]:
    """(offset, text) of the base64 runs in `text` that decode to UTF-8 prose (bounded)."""
    import binascii

    out = []
    tried = 0
    for m in _helper("base64").finditer(text):
        run = m.group(0)
        if len(run) > MAX_RUN or run.isalpha() or run.islower() or run.isupper():
            continue
        tried += 1
        if tried > MAX_DECODED:
            break
        body = run.rstrip("=").replace("-", "+").replace("_", "/")
        try:
            decoded = binascii.a2b_base64(body + "=" * (-len(body) % 4)).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded.count(" ") >= 2 and sum(c.isprintable() or c in "\n\t" for c in decoded) >= 0.95 * len(decoded):
            out.append((m.start(), decoded))
    return out


def screen(text: str, old: str | None = None, _depth: int = 0) -> list[tuple[int, str, str, str]]:
    """[(line number, pattern name, what it is, the line)] of the lines `text` adds to `old`."""
    if not isinstance(text, str) or not text:
        return []
    text = text[:MAX_SCREEN_CHARS]
    raw = text.splitlines()
    kept = set(old.splitlines()) if isinstance(old, str) and old else set()
    added = [bool(line.strip()) and line not in kept for line in raw]
    if not any(added):
        return []
    found: dict[int, tuple[str, str]] = {}
    lines = raw
    changed: set[int] = set()  # lines the normalising changed: what matches there is not "only mentioned"
    if not text.isascii():
        lines = []
        for i, line in enumerate(raw):
            if added[i] and not line.isascii() and _helper("unusual").search(line) and _hidden(line):
                found[i] = ("hidden", HIDDEN)
            lines.append(normalise(line))
            if lines[-1] != line:
                changed.add(i)
    flat = " " + text.lower().replace("\n", " ") + " "
    # letters spaced out hold a lone letter that English prose seldom has alone (the regex, and
    # `re` itself, only then)
    spaced = any(f" {c} " in flat for c in "eortns") and _helper("spaced-gate").search(flat) is not None
    before = lines  # as normalised, letters spaced out still apart: what _run_together reads
    if spaced:
        closed = [_close_up(line) for line in lines]
        changed.update(i for i, (a, b) in enumerate(zip(lines, closed)) if a != b)
        lines = closed
    lines = [" ".join(line.split()) if "  " in line or "\t" in line else line for line in lines]  # blanks read as one space
    shielded = _fenced(lines) if ("```" in text or "~~~" in text) else set()
    paras = list(_paragraphs(lines, added, shielded))
    if not paras:
        return _listed(found, raw)
    # the paragraphs as one lowercased text (SEPARATOR between them, which no pattern crosses): each
    # anchor is looked for once per write, not once per paragraph
    heads, at = [], 0
    for para, _offsets in paras:
        heads.append(at)
        at += len(para) + len(SEPARATOR)
    doc = SEPARATOR.join(para for para, _offsets in paras).lower()
    import bisect

    for name, start, end in _hits(doc):
        k = bisect.bisect_right(heads, start) - 1
        head, offsets = heads[k], paras[k][1]
        first, last = _line_at(offsets, start - head), _line_at(offsets, max(start, end - 1) - head)
        span = range(first, last + 1)
        hit = next((j for j in span if added[j]), None)
        if hit is None or hit in found:
            continue
        if not any(j in changed for j in span) and _mentioned(doc[head:head + len(paras[k][0])], start - head, end - head, name):
            continue
        found[hit] = (name, WHAT[name])
    for k, (para, offsets) in enumerate(paras):
        if len(found) >= MAX_FINDINGS:
            break
        if any(j in found for _at, j in offsets):
            continue
        low = doc[heads[k]:heads[k] + len(para)]
        if any(j in changed for _at, j in offsets) or "\n" in low and _split_word(low):
            name = _run_together("\n".join(before[j] for _at, j in offsets).lower() if spaced else low)
            if name:
                found[next(j for _at, j in offsets if added[j])] = ("obfuscated", f"{OBFUSCATED}: {name}")
                continue
        if _depth == 0 and max(map(len, para.split()), default=0) >= MIN_RUN:
            for at, decoded in _decoded(para):
                inner = screen(decoded, None, _depth + 1)
                j = _line_at(offsets, at)
                if inner and added[j]:
                    found[j] = ("encoded", f"{ENCODED} ({inner[0][2]})")
                    break
    return _listed(found, raw)


def _listed(found: dict, raw: list[str]) -> list[tuple[int, str, str, str]]:
    return [(i + 1, name, what, raw[i].strip()) for i, (name, what) in sorted(found.items())][:MAX_FINDINGS]


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

    from msd_core.files.atomic import atomic_write_bytes, ensure_dir

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", rel.replace("/", "__"))[:120]
    folder = os.path.join(planning, ".msd", "quarantine")
    name = f"{stamp}-{flat}"
    if not name.endswith(".md"):
        name += ".md"
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

        root = Path(planning).parent
        ensure_dir(Path(folder), anchor=root)
        atomic_write_bytes(Path(folder) / name, ("\n".join(note) + text).encode("utf-8"), anchor=root)
    except Exception:  # noqa: BLE001 - a read-only project: the write is still refused, with no copy
        return None
    return f".planning/.msd/quarantine/{name}"
