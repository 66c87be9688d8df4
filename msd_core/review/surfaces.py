"""A phase's threat-model surfaces, derived from the files it touched (msd_core.review.scope).

Each file that exists is read (at most MAX_READ bytes; binary and linked files are skipped)
and matched against SURFACES: one row per surface, with the kind it is in the threat model

  entry     where outside input arrives: HTTP routes and handlers, command-line entry points,
            message, socket and webhook handlers, uploads
  boundary  where data crosses to something that trusts it: a shell or process, SQL, the file
            system by a computed path, HTML output, deserialisation, outbound requests,
            authentication and sessions, crypto, the environment
  asset     what the phase holds that an attacker wants: secrets and keys, credentials,
            personal data, data stores and their schemas

and how it is recognised: a pattern on the file's path, on its lines, or both. Every hit is
evidence a reviewer can open: `path:line` and the line (trimmed), the first MAX_HITS per file
and surface. Patterns look for the common spellings across Python, JavaScript/TypeScript, Go,
Ruby, PHP, Java and Rust; a surface they miss is still the reviewer's to find, which the
review's guardrails say. Nothing here judges whether a surface is safe. Standard library only.
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_READ = 512 * 1024
MAX_HITS = 3
MAX_EVIDENCE = 12  # per surface, over all files
MAX_LINE = 160

# (surface, kind, what it is, path pattern or None, line pattern or None)
SURFACES = (
    ("http-route", "entry", "an HTTP route or request handler", r"(^|/)(routes?|api|controllers?|handlers?|endpoints?)/",
     r"@(?:app|router|bp|blueprint|api)\.(?:route|get|post|put|patch|delete)\b|\b(?:app|router)\.(?:get|post|put|patch|delete|use)\s*\("
     r"|\bHandleFunc\s*\(|\bexport\s+(?:async\s+)?function\s+(?:GET|POST|PUT|PATCH|DELETE)\b|@(?:Get|Post|Put|Delete|Request)Mapping\b"
     r"|\bAPIRouter\s*\(|\bFastAPI\s*\(|\bFlask\s*\(|\burl\(r?['\"]|\bpath\(['\"]"),
    ("cli-entry", "entry", "a command-line entry point", None,
     r"if\s+__name__\s*==\s*['\"]__main__['\"]|\bargparse\.ArgumentParser\b|@click\.command\b|\btyper\.Typer\s*\("
     r"|\bprocess\.argv\b|\bfunc\s+main\s*\(\s*\)|\bcobra\.Command\b|\bos\.Args\b|\bstd::env::args\b"),
    ("message-handler", "entry", "a socket, queue, webhook or event handler", r"webhook",
     r"\bWebSocket\b|\bsocket\.on\s*\(|\b(?:consume|subscribe)\s*\(|\bwebhook\b|@(?:app\.)?(?:task|celery)\b|\bonmessage\b"),
    ("upload", "entry", "a file upload", None, r"\b(?:multer|UploadFile|request\.files|FormFile|multipart)\b"),
    ("shell", "boundary", "a shell command or child process", None,
     r"\bsubprocess\.|\bos\.(?:system|popen|exec\w*)\s*\(|\bchild_process\b|\bexecSync\s*\(|\bspawn\s*\(|\bexec\.Command\s*\("
     r"|\bRuntime\.getRuntime\(\)\.exec\b|\bshell_exec\s*\(|\bCommand::new\s*\("),
    ("sql", "boundary", "SQL or a database query", r"(^|/)(migrations?|schema|db|models?)/|\.sql$",
     r"\b(?:SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b|\.execute\s*\(|\.raw\s*\(|\bdb\.(?:query|exec)\s*\("
     r"|\bknex\b|\bprisma\.\w+\.|\bsequelize\b|\bgorm\.|\bsqlx::|\bActiveRecord\b"),
    ("file-path", "boundary", "a file system path built at run time", None,
     r"\bos\.path\.join\s*\(|\bpath\.(?:join|resolve)\s*\(|\bfilepath\.Join\s*\(|\bsend_file\s*\(|\bsendFile\s*\(|\bPath\s*\(.*\)\s*/"
     r"|\bopen\s*\(\s*(?:f['\"]|[a-z_]+\s*\+)|\bfs\.(?:readFile|writeFile|createReadStream)\w*\s*\("),
    ("html-output", "boundary", "HTML built from data (injection risk)", r"\.(?:html|jinja2?|j2|hbs|ejs|erb)$",
     r"\binnerHTML\b|\bdangerouslySetInnerHTML\b|\bv-html\b|\|\s*safe\b|\bmark_safe\s*\(|\brender_template_string\s*\("
     r"|\bdocument\.write\s*\(|\bhtml\.Unescape|\btemplate\.HTML\s*\("),
    ("deserialise", "boundary", "deserialisation or code evaluation", None,
     r"\bpickle\.loads?\s*\(|\byaml\.load\s*\((?!.*SafeLoader)|\bmarshal\.loads?\s*\(|\beval\s*\(|\bexec\s*\(|\bnew\s+Function\s*\("
     r"|\bunserialize\s*\(|\bObjectInputStream\b|\bMarshal\.load\b"),
    ("outbound", "boundary", "an outbound network request", None,
     r"\brequests\.(?:get|post|put|delete|request)\s*\(|\bhttpx\.|\burllib\.request\b|\bfetch\s*\(|\baxios\b|\bhttp\.(?:Get|Post|NewRequest)\b"
     r"|\breqwest::|\bHttpClient\b|\bcurl_exec\s*\("),
    ("auth", "boundary", "authentication, sessions or access checks", r"(^|/)(auth|login|session|permissions?|acl)[^/]*$",
     r"\b(?:jwt|JWT|bcrypt|argon2|passport|oauth|OAuth|session\[|req\.session|set_cookie|setCookie|login_required|authorize"
     r"|isAuthenticated|verify_password|check_password|hasPermission|@PreAuthorize)\b"),
    ("crypto", "boundary", "cryptography or random tokens", None,
     r"\bhashlib\.|\bhmac\.|\bcrypto\.(?:create|random|subtle)|\bsecrets\.token|\bCipher\b|\bAES\b|\bmd5\b|\bsha1\b|\bMath\.random\s*\("),
    ("environment", "boundary", "environment variables and configuration read at run time", None,
     r"\bos\.environ\b|\bos\.getenv\s*\(|\bprocess\.env\b|\bos\.Getenv\s*\(|\bstd::env::var\b|\bENV\["),
    ("secret", "asset", "a secret, key or credential", r"(^|/)\.env(\.|$)|\.(?:pem|key|p12|pfx)$|(^|/)(secrets?|credentials?)[^/]*$",
     r"(?i:\b(?:api[_-]?key|secret[_-]?key|client[_-]?secret|private[_-]?key|access[_-]?token|password)\b\s*[:=])"
     r"|-----BEGIN [A-Z ]*PRIVATE KEY"),
    ("personal-data", "asset", "personal data", None,
     r"(?i:\b(?:email|phone|address|birth(?:day|date)|ssn|passport|credit[_ ]?card|iban)\b\s*[:=(])"),
    ("data-store", "asset", "a data store, its schema or migrations", r"(^|/)(migrations?|schema|models?)/|\.(?:sql|prisma)$",
     r"\bCREATE\s+TABLE\b|\bmodels\.Model\b|\b@Entity\b|\bSchema\s*\(|\bdefine_table\b"),
)
KINDS = ("entry", "boundary", "asset")

_compiled = None


def _rules():
    global _compiled
    if _compiled is None:
        _compiled = [(name, kind, what, re.compile(pp, re.I) if pp else None, re.compile(lp) if lp else None)
                     for name, kind, what, pp, lp in SURFACES]
    return _compiled


def _shown(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + "..."


def file_surfaces(path: str, text: str | None) -> list[dict]:
    """[{"surface", "kind", "what", "evidence": ["path:line  text" | "path (by its path)"]}] for one file."""
    out = []
    lines = text.splitlines() if text else []
    for name, kind, what, by_path, by_line in _rules():
        evidence = []
        if by_path is not None and by_path.search(path):
            evidence.append(f"{path} (by its path)")
        if by_line is not None:
            for n, line in enumerate(lines, 1):
                if by_line.search(line):
                    evidence.append(f"{path}:{n}  {_shown(line)}")
                    if len(evidence) >= MAX_HITS:
                        break
        if evidence:
            out.append({"surface": name, "kind": kind, "what": what, "evidence": evidence})
    return out


def threat_model(root: Path, scope) -> dict:
    """{"entry": [...], "boundary": [...], "asset": [...], "files": [{"path", "surfaces"}], "unread": [...]}:
    each kind lists its surfaces with the files that show them; `files` maps each file to its surface names."""
    from msd_core.review.project_files import read_text

    by_kind: dict[str, dict[str, dict]] = {k: {} for k in KINDS}
    files, unread = [], []
    for entry in scope.files:
        if not entry["exists"]:
            continue
        path = entry["path"]
        text = read_text(root, path, MAX_READ)
        if text is None:
            unread.append(path)
        found = file_surfaces(path, text)
        files.append({"path": path, "surfaces": [f["surface"] for f in found]})
        for f in found:
            slot = by_kind[f["kind"]].setdefault(f["surface"], {"surface": f["surface"], "what": f["what"], "files": [],
                                                                   "evidence": []})
            slot["files"].append(path)
            slot["evidence"] += f["evidence"]
    out = {k: sorted(v.values(), key=lambda s: s["surface"]) for k, v in by_kind.items()}
    for k in KINDS:
        for s in out[k]:
            s["evidence"] = s["evidence"][:MAX_EVIDENCE]
    out["files"] = files
    if unread:
        out["unread"] = unread
    return out
