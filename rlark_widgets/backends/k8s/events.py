"""TensorBoard event files of a Job on a cluster, read through the head Worker (as checkpoints are).

The same for an RLark Job and a KubeRay RayJob/RayCluster: the directories come from the Job
(as the KubeRay object is read back into one), the bytes from an exec in its head pod.

RLinf writes ``<runner.logger.log_path>/tensorboard/`` (rlinf-cluster-spec §5): next to the
experiment's ``checkpoints/`` for the reasoning runner, one level up for the embodied one; the
Job's ``spec.tensorboard.logDir`` wins when set. One exec in the head pod prints every event
file's bytes past what this machine already holds (base64), which are appended to a local
mirror; the mirror is then read like a local run's directory (:mod:`..events`), so a refresh
moves and parses only the new events.
"""

from __future__ import annotations

import base64
import hashlib
import re
import tempfile
from pathlib import Path, PurePosixPath

from ...rlark.job import Job
from ..base import expectations
from ..events import EVENT_GLOB
from .api import KubeApi
from .checkpoints import run_in_head

#: Arguments: the mirror's sizes as KEY=SIZE pairs, then the directories to search. Prints
#: "== KEY OFFSET" and the base64 of the file from OFFSET per event file; KEY is the index of its
#: directory among the arguments and its path below it (paths differ between pod and mirror).
TAIL_SCRIPT = (
    'known=""; i=0; for a in "$@"; do case "$a" in *=*) known="$known $a";; esac; done; '
    'for d in "$@"; do case "$d" in *=*) continue;; esac; i=$((i + 1)); [ -d "$d" ] || continue; '
    "find \"$d\" -type f -name 'events.out.tfevents.*' | sort | while read -r f; do "
    'key="$i/${f#"$d"/}"; o=0; for k in $known; do [ "${k%=*}" = "$key" ] && o="${k##*=}"; done; '
    's=$(stat -c %s "$f"); [ "$s" -ge "$o" ] || o=0; echo "== $key $o"; '
    'tail -c +$((o + 1)) "$f" | base64 | tr -d "\\n"; echo; done; done'
)
HEADER = re.compile(r"^== (\d+/\S+) (\d+)$")


def tensorboard_dirs(job: Job) -> list[str]:
    """Where RLinf's event files of ``job`` are, most specific first (container paths)."""
    if job.tensorboard_log_dir:
        return [job.tensorboard_log_dir]
    directory = expectations(job).checkpoint_dir
    if not directory:
        return []
    experiment = PurePosixPath(directory).parent
    return [str(experiment / "tensorboard"), str(experiment.parent / "tensorboard")]


def tensorboard_root(job: Job) -> str | None:
    """One directory TensorBoard can be pointed at to find the run's events (it searches
    below): ``spec.tensorboard.logDir``, else the directory holding both candidates."""
    if job.tensorboard_log_dir:
        return job.tensorboard_log_dir
    directory = expectations(job).checkpoint_dir
    return str(PurePosixPath(directory).parent.parent) if directory else None


def mirror_dir(server: str, namespace: str, job: str) -> Path:
    """This machine's copy of a Job's event files (one per API server, namespace and Job)."""
    key = hashlib.sha256(f"{server}/{namespace}/{job}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "rlark-events" / key


def apply_tails(mirror: Path, output: str) -> None:
    """Write each file's new bytes from :data:`TAIL_SCRIPT`'s output into the mirror; files
    the pod no longer has leave the mirror (it holds exactly the pod's files)."""
    lines = output.splitlines()
    listed = set()
    for header, body in zip(lines[::2], lines[1::2], strict=False):
        match = HEADER.match(header.strip())
        if match is None or ".." in match[1].split("/"):
            continue
        path, offset = mirror / match[1], int(match[2])
        listed.add(path)
        data = base64.b64decode(body.strip())
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "r+b" if offset and path.is_file() else "wb") as out:
            out.seek(offset)
            out.write(data)
            out.truncate()
    for path in mirror.rglob(EVENT_GLOB) if mirror.is_dir() else []:
        if path not in listed:
            path.unlink()


def fetch_events(api: KubeApi, namespace: str, pod: str, job: Job) -> Path | None:
    """Bring the head pod's event files of ``job`` up to date in the mirror; the mirrored
    directory that holds them (None when the pod has none yet)."""
    mirror = mirror_dir(api.host, namespace, job.name)
    known = [
        f"{path.relative_to(mirror).as_posix()}={path.stat().st_size}"
        for path in sorted(mirror.rglob(EVENT_GLOB))
    ]
    output = run_in_head(api, namespace, pod, TAIL_SCRIPT, [*known, *tensorboard_dirs(job)])
    apply_tails(mirror, output)
    found = sorted(p for p in mirror.iterdir() if p.is_dir()) if mirror.is_dir() else []
    return next((d for d in found if any(d.rglob(EVENT_GLOB))), None)
