"""Host tests (a package, so its conftest never shadows tests/conftest.py as `conftest`).

Its folder goes on sys.path so `import hostkit` and `import model_server` work from any test,
script or helper (scripts/bench_host_tokens.py does the same).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
