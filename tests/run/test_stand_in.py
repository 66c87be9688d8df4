"""msd_core.lean.stand_in: a standard module imported without what it needs on one branch only,
and the real module loaded as soon as anything asks for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> dict:
    """Run `code` in a fresh interpreter (nothing loaded yet) and return the JSON it prints."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=str(REPO),
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_msd_run_loads_pathlib_and_argparse_without_urllib_or_ipaddress():
    out = _fresh("import sys, json, msd_core.run.dispatch\n"
                 "print(json.dumps({m: m in sys.modules for m in ('pathlib', 'argparse', 'urllib.parse', "
                 "'ipaddress')}))")
    assert out == {"pathlib": True, "argparse": True, "urllib.parse": False, "ipaddress": False}


def test_the_real_modules_load_when_asked_for_afterwards():
    out = _fresh(
        "import sys, json, msd_core.run.dispatch\n"
        "from pathlib import Path\n"
        "uri = Path('/tmp/a b/ü').as_uri()\n"  # pathlib's one use of urllib.parse
        "loaded_by_uri = 'urllib.parse' in sys.modules\n"
        "import urllib.parse, urllib, gettext\n"
        "print(json.dumps({'uri': uri, 'loaded_by_uri': loaded_by_uri,\n"
        "  'split': urllib.parse.urlsplit('http://[::1]:8/x').hostname,\n"
        "  'same': urllib.parse is sys.modules['urllib.parse'] and urllib.parse.__file__ is not None,\n"
        "  'gettext_real': hasattr(gettext, 'GNUTranslations'),\n"
        "  'argparse_gettext': msd_core.run.dispatch.argparse._('x')}))")
    assert out == {"uri": "file:///tmp/a%20b/%C3%BC", "loaded_by_uri": True, "split": "::1", "same": True,
                   "gettext_real": True, "argparse_gettext": "x"}


def test_a_stand_in_lacking_a_name_falls_back_to_the_real_module():
    out = _fresh(
        "import sys, json\n"
        "from msd_core.lean.stand_in import import_with\n"
        "m = import_with('pathlib', {'urllib.parse': {}})\n"  # pathlib needs quote_from_bytes: ImportError, retried
        "print(json.dumps({'ok': m.Path('/x').as_uri(), 'real': hasattr(sys.modules.get('urllib.parse'), 'urlsplit')"
        " if sys.version_info < (3, 13) else True}))")
    assert out == {"ok": "file:///x", "real": True}


def test_an_already_loaded_module_is_left_alone():
    out = _fresh(
        "import sys, json, urllib.parse\n"
        "real = sys.modules['urllib.parse']\n"
        "from msd_core.lean.stand_in import import_pathlib\n"
        "import_pathlib()\n"
        "print(json.dumps({'same': sys.modules['urllib.parse'] is real}))")
    assert out == {"same": True}
