"""Ask RLinf's own placement code (:mod:`harness`, over rlinf 0.3.0) what it makes of a config.

The oracle needs its own interpreter with ``rlinf==0.3.0`` (``make oracle`` builds
``.oracle-venv``; ``RLARK_ORACLE_PYTHON`` points elsewhere). Where either is missing the tests
that use it skip, unless ``RLARK_REQUIRE_ORACLE=1`` (CI) turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
ORACLE_PYTHON = Path(
    os.environ.get("RLARK_ORACLE_PYTHON") or REPO / ".oracle-venv" / "bin" / "python"
)


def oracle_required() -> bool:
    return os.environ.get("RLARK_REQUIRE_ORACLE") == "1"


def unavailable_reason() -> str | None:
    if not ORACLE_PYTHON.is_file():
        return f"no oracle interpreter at {ORACLE_PYTHON} (run `make oracle`)"
    if "RLARK_ORACLE_PYTHON" not in os.environ and not (REPO / ".oracle-venv/.installed").is_file():
        return "the oracle environment .oracle-venv is not complete (run `make oracle`)"
    return None


class Oracle:
    """One long-lived oracle process; :meth:`expand` is one oracle run."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [str(ORACLE_PYTHON), str(Path(__file__).with_name("server.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )

    def expand(
        self,
        config: Path,
        gpus: int | Mapping[int, int],
        *,
        compose: bool = True,
        env: Mapping[str, str] | None = None,
        extra: Sequence[str] = (),
    ) -> dict[str, Any]:
        """RLinf's expansion of ``config`` on ``gpus`` per node (or a per-node-rank map)."""
        argv = [str(config)]
        if isinstance(gpus, Mapping):
            argv += ["--gpus-per-node", str(max(gpus.values(), default=0))]
            argv += ["--gpus-per-node-map", ",".join(f"{k}:{v}" for k, v in sorted(gpus.items()))]
        else:
            argv += ["--gpus-per-node", str(gpus)]
        if compose:
            argv.append("--compose")
        for name, value in (env or {}).items():
            argv += ["--env", f"{name}={value}"]
        argv += list(extra)
        assert self._process.stdin and self._process.stdout
        self._process.stdin.write(json.dumps({"argv": argv}) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("the RLinf oracle process ended")
        return json.loads(line)

    def close(self) -> None:
        if self._process.stdin:
            self._process.stdin.close()
        self._process.wait(timeout=30)


@pytest.fixture(scope="session")
def rlinf_oracle():
    """The session's oracle, or a skip (a failure in CI) where it cannot run."""
    reason = unavailable_reason()
    if reason is not None:
        if oracle_required():
            pytest.fail(f"RLARK_REQUIRE_ORACLE=1 but {reason}")
        pytest.skip(reason)
    oracle = Oracle()
    yield oracle
    oracle.close()
