"""Entry point of the oracle process: :mod:`harness` answering one JSON line per request.

Started by :mod:`client` with the oracle's own interpreter (``.oracle-venv``, which holds
``rlinf==0.3.0`` from the package index), so a test pays RLinf's import time once instead of
once per example. Nothing of rlark_widgets is imported here.
"""

from __future__ import annotations

from harness import main

if __name__ == "__main__":
    main()
