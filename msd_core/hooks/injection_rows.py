"""What the injection screen (injection.py) looks for, as data: the rows of patterns with their
anchors, what each finding is called, the phrases looked for with letters run together, the
characters read through (invisible ones, look-alike letters), and the words that make a match
only a mention. Standard library only; nothing here is compiled until injection.py needs it.
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
