"""Reading a command line of plain options (`--flag`, `--name VALUE`, `--name=VALUE`), typer-free.

`direct()` (cli/app.py) and the no-op install (cli/fast_install.py) read their command lines
with it; anything else (an unknown token, a value missing, `--flag=x`) is None: typer reads
that line and reports it.
"""

from __future__ import annotations


def plain_values(rest: list[str], decls: dict[str, str], kinds: dict[str, type], defaults: dict) -> dict | None:
    """{name: value} for `rest` given each option's spellings (`decls`: spelling -> name) and kind
    (bool: a flag; str: takes a value); None when a token is not one of them."""
    values = dict(defaults)
    i = 0
    while i < len(rest):
        tok, val = rest[i], None
        if tok.startswith("--") and "=" in tok:
            tok, val = tok.split("=", 1)
        name = decls.get(tok)
        if name is None:
            return None  # not ours to judge: typer reports it
        if kinds[name] is bool:
            if val is not None:
                return None
            values[name] = True
        else:
            if val is None:
                if i + 1 >= len(rest):
                    return None
                i += 1
                val = rest[i]
            values[name] = val
        i += 1
    return values
