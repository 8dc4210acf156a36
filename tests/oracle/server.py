"""Run RLinf's own placement code (the shared rlinf-oracle) for many configs in one process.

Started by :mod:`tests.oracle.client` with the oracle's own interpreter (``.oracle-venv``, which
holds ``rlinf==0.3.0``); it imports ``oracle_expand.py`` once and answers one JSON line per
request line ``{"argv": [...]}`` with the oracle's JSON output, so a test pays RLinf's import
time once instead of once per example. Nothing of rlark_widgets is imported here.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys


def main() -> None:
    spec = importlib.util.spec_from_file_location("oracle_expand", sys.argv[1])
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    for line in sys.stdin:
        request = json.loads(line)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                oracle.main(request["argv"])
                answer = json.loads(out.getvalue())
            except BaseException as exc:  # an oracle crash is an answer, not the end of the server
                answer = {"ok": False, "oracle_crash": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
