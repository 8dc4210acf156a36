"""Logs as a person reads them: this run's text, without terminal escapes or secrets.

Worker logs carry what ``ray start`` and RLinf print for a terminal (colour codes such as
``ESC[37m``, cursor moves, window titles); shown in a page or a record they are noise. Secrets
a script echoes are redacted exactly as in the run record (:func:`.secrets.redact`).
"""

from __future__ import annotations

import re

from .secrets import redact

#: The run script's output (on the Header's Worker), next to the Workers' ``role/index`` keys.
RUN_LOG = "run"
#: ECMA-48 escape sequences: CSI (colours, cursor), OSC (titles, links; ended by BEL or ST, or
#: cut off by the tail), DCS/SOS/PM/APC strings, the two-character ones and the 8-bit CSI; plus a
#: carriage return that redraws a line (progress bars).
ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC
    r"|\x1b[@-Z\\-_]"  # two-character sequences
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
REDRAWN = re.compile(r"[^\n]*\r(?!\n)")


def clean_log(text: str) -> str:
    """``text`` without escape sequences (a redrawn line keeps its last state), secrets redacted."""
    return redact(REDRAWN.sub("", ESCAPES.sub("", text).replace("\r\n", "\n")))
