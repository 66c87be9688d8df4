"""Who works on which phase: `.planning/claims.json`, committed with the planning files.

    {
      "claims": [
        {"phase": "3", "by": "Ada Lovelace", "email": "ada@example.com", "branch": "ada/payments", "at": "2026-03-01T10:00:00Z"}
      ]
    }

One claim per person and phase (a person is their git `user.email`, or `user.name` without
one): `claim` adds or refreshes the caller's claim, `release` removes it (`everyone`: every
claim on the phase). The file is written one claim per line, sorted by phase and person, so
git's own line merge rarely meets a conflict even where msd's merge driver is not set up;
`merge_texts` is the driver's merge: by claim, a claim released on one side stays released,
one both sides wrote keeps the newer time.

A claim is stale when it is older than `team.claim_stale_days` (config, default 14) or its
branch no longer exists (neither a local branch nor a remote-tracking one of that name; asked
of git only when there are claims). `view` lists every claim with `stale` and `mine`;
`held_by_others` the phases another person holds (stale claims hold nothing).

Standard library only.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from msd_core.errors import OperationFailed, UsageError

FILE = "claims.json"
MAX_BYTES = 1 << 20
FIELDS = ("phase", "by", "email", "branch", "at")
STAMP = "%Y-%m-%dT%H:%M:%SZ"
_STAMP_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$")


def path(root: Path) -> Path:
    return Path(root) / ".planning" / FILE


def who(claim: dict) -> str:
    return (claim.get("email") or claim.get("by") or "").strip().lower()


def key_of(claim: dict) -> tuple[str, str]:
    return (str(claim.get("phase", "")), who(claim))


def parse(text: str, where: str = FILE) -> list[dict]:
    """The claims of a claims.json text; UsageError (exit 2) naming the problem."""
    if not text.strip():
        return []
    from msd_core.files.bounded import loads_json

    try:
        data = loads_json(text, where)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{where} is not valid JSON ({exc})",
                         hint="fix it by hand or delete it; claims are re-made with `msd_run claim`") from None
    items = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise UsageError(f"{where} has no \"claims\" list", hint="fix it by hand or delete it")
    out = []
    for item in items:
        if not isinstance(item, dict) or not all(isinstance(item.get(k, ""), str) for k in FIELDS) \
                or not item.get("phase") or not who(item):
            raise UsageError(f"{where}: a claim needs text fields phase, by or email (found {json.dumps(item)[:80]})")
        out.append({k: item.get(k, "") for k in FIELDS})
    return out


def dumps(claims: list[dict]) -> str:
    from msd_core.planning.roadmap import phase_sort_key

    ordered = sorted(claims, key=lambda c: (phase_sort_key(c["phase"]), who(c)))
    lines = [json.dumps({k: c.get(k, "") for k in FIELDS}, ensure_ascii=False) for c in ordered]
    body = ",\n".join("    " + line for line in lines)
    return "{\n  \"claims\": [\n" + (body + "\n" if body else "") + "  ]\n}\n"


def load(root: Path) -> list[dict]:
    from msd_core.files.safe_read import read_regular

    p = path(root)
    try:
        raw = read_regular(p, MAX_BYTES, follow_symlinks=False)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OperationFailed(f"cannot read {p}: {exc.strerror or exc}") from None
    return parse(raw.decode("utf-8", errors="replace"), str(p))


def now_stamp() -> str:
    return time.strftime(STAMP, time.gmtime())


def _epoch(stamp: str) -> float | None:
    """Seconds since 1970 of a `YYYY-MM-DDTHH:MM:SSZ` stamp (civil-date arithmetic: calendar and
    time.strptime would load datetime on msd_run's hot path)."""
    m = _STAMP_RE.match(stamp or "")
    if not m:
        return None
    y, mo, d, h, mi, sec = (int(x) for x in m.groups())
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and sec < 61):
        return None
    y -= mo <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days * 86400 + h * 3600 + mi * 60 + sec


def age_seconds(claim: dict, now: float | None = None) -> float | None:
    at = _epoch(claim.get("at", ""))
    return None if at is None else (time.time() if now is None else now) - at


def identity(root: Path) -> dict:
    """{"by", "email"} from git config; UsageError when git knows neither."""
    from msd_core.git.runner import git

    values = {}
    for key, name in (("user.name", "by"), ("user.email", "email")):
        proc = git(["config", "--get", key], root, check=False)
        values[name] = proc.stdout.strip() if proc.returncode == 0 else ""
    if not values["by"] and not values["email"]:
        raise UsageError("git does not know who you are, so a claim cannot name you",
                         hint='run `git config user.name "Your Name"` and `git config user.email you@example.com`')
    return values


def _branches(root: Path) -> set[str] | None:
    """Every local branch name and the branch part of every remote-tracking one; None when git cannot say."""
    from msd_core.git.runner import git

    proc = git(["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes"], root, check=False)
    if proc.returncode != 0:
        return None
    out = set()
    for ref in proc.stdout.split():
        if ref.startswith("refs/heads/"):
            out.add(ref[len("refs/heads/"):])
        elif ref.startswith("refs/remotes/") and ref.count("/") >= 3:
            out.add(ref.split("/", 3)[3])
    return out


def stale_days(root: Path) -> float:
    from msd_core.config import store

    try:
        return float(store.get_value("team.claim_stale_days", root))
    except Exception:  # an unreadable config: the default
        return 14.0


def view(root: Path, claims: list[dict] | None = None, me: str | None = None, now: float | None = None) -> list[dict]:
    """Every claim with `stale` (and why), `mine` and `age_days`, in the file's order."""
    claims = load(root) if claims is None else claims
    if not claims:
        return []
    days = stale_days(root)
    branches = _branches(root) if any(c.get("branch") for c in claims) else set()
    out = []
    for c in claims:
        entry = dict(c)
        age = age_seconds(c, now)
        why = []
        if age is not None:
            entry["age_days"] = round(age / 86400, 1)
            if age > days * 86400:
                why.append(f"older than {days:g} days")
        if c.get("branch") and branches is not None and c["branch"] not in branches:
            why.append(f"branch {c['branch']} is gone")
        entry["stale"] = bool(why)
        if why:
            entry["stale_why"] = "; ".join(why)
        if me is not None:
            entry["mine"] = who(c) == me
        out.append(entry)
    return out


def held_by_others(viewed: list[dict]) -> dict[str, list[dict]]:
    """{phase number: [claims]} of the phases someone else holds (stale claims hold nothing)."""
    from msd_core.planning.discovery import normalize_phase

    out: dict[str, list[dict]] = {}
    for c in viewed:
        if not c.get("stale") and not c.get("mine"):
            out.setdefault(normalize_phase(c["phase"]) or c["phase"], []).append(c)
    return out


def describe(c: dict) -> str:
    """`phase 3 claimed by Ada (branch ada/pay, since 2026-03-01)`, `; stale: ...` when it is."""
    facts = [f"branch {c['branch']}"] if c.get("branch") else []
    facts += [f"since {c['at'][:10]}"] if c.get("at") else []
    facts += [f"stale: {c['stale_why']}"] if c.get("stale") else []
    return f"phase {c['phase']} claimed by {c.get('by') or c.get('email')}" + (f" ({', '.join(facts)})" if facts else "")


def change(root: Path, phase: str, me: dict, branch: str | None, *, release: bool = False,
           everyone: bool = False, force: bool = False) -> dict:
    """Add or refresh the caller's claim on `phase` (or release it) under the claims lock."""
    from msd_core.files.atomic import atomic_write_bytes, lock_timeout_from_env, locked
    from msd_core.files.private_dir import ensure_private_dir

    mine = who(me)
    with locked(ensure_private_dir(root) / "claims.lock", lock_timeout_from_env(), what=FILE, anchor=root):
        claims = load(root)
        before = list(claims)
        if release:
            gone = [c for c in claims if c["phase"] == phase and (everyone or who(c) == mine)]
            claims = [c for c in claims if c not in gone]
            result = {"action": "released" if gone else "not claimed", "released": gone}
        else:
            viewed = view(root, claims, mine)
            others = [c for c in viewed if c["phase"] == phase and not c.get("mine") and not c["stale"]]
            if others and not force:
                raise OperationFailed(f"{describe(others[0])}: not claimed for you",
                                      hint=f"ask them to `msd_run claim {phase} --release`, or claim it as well",
                                      remedy="force")
            claim = {"phase": phase, "by": me.get("by", ""), "email": me.get("email", ""), "branch": branch or "",
                     "at": now_stamp()}
            claims = [c for c in claims if key_of(c) != key_of(claim)] + [claim]
            result = {"action": "claimed", "claim": claim, "shared_with": others}
        if claims != before:
            atomic_write_bytes(path(root), dumps(claims).encode("utf-8"), anchor=root)
        result["written"] = claims != before
    return result


def merge_texts(base: str, ours: str, theirs: str) -> str | None:
    """claims.json merged by claim (module doc); None when a side does not parse."""
    try:
        o, a, b = (parse(t) for t in (base, ours, theirs))
    except UsageError:
        return None
    by = [{key_of(c): c for c in side} for side in (o, a, b)]
    merged = {}
    for key in list(by[1]) + [k for k in by[2] if k not in by[1]]:
        old, mine, theirs_c = by[0].get(key), by[1].get(key), by[2].get(key)
        if old is not None and (mine is None or theirs_c is None):
            kept = mine if mine is not None else theirs_c
            if kept == old:
                continue  # released on the other side
            merged[key] = kept  # refreshed here, released there: the refresh is newer
            continue
        candidates = [c for c in (mine, theirs_c) if c is not None]
        merged[key] = max(candidates, key=lambda c: c.get("at", ""))
    return dumps(list(merged.values()))
