"""The local rehearsal honours readOnly mounts: a write there fails as it fails in a Pod (#23, class 4).

The rehearsal once wrote its checkpoints into a hostPath mounted ``readOnly: true`` (the mount
maps to the very directory on this machine). Now the plan records which mount each written path
is on, and the rehearsal refuses the write with the Pod's ``Read-only file system`` before
anything is written or any Ray node is started.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_local_backend import ONE_NODE, OUTPUT, planned

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.mounts import MountMap
from rlark_widgets.backends.local.rehearsal import main as rehearse
from rlark_widgets.backends.local.spec import build_plan
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.site import example_site


def _plan_file(tmp_path: Path, mounts: list[Mount]) -> tuple[Path, dict]:
    job, report = planned("readonly", ONE_NODE, mounts=mounts)
    where = JobDir.of(tmp_path / "ws", job.name)
    where.root.mkdir(parents=True)
    options = LocalBackend(tmp_path / "ws", site=example_site()).options
    plan = build_plan(job, where, options, None, None, MountMap.for_job(job, where.root))
    path = where.file("plan.json")
    path.write_text(json.dumps(plan))
    return path, plan


@pytest.mark.parametrize("kind", ["hostPath", "storage"])
def test_a_rehearsal_write_on_a_read_only_mount_fails_and_writes_nothing(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "node-dir"
    source.mkdir()
    (source / "keep.txt").write_text("keep")
    output = Mount(
        "output",
        kind,
        str(source) if kind == "hostPath" else "oss-rlinf",
        "/mnt/output",
        read_only=True,
    )
    plan_path, plan = _plan_file(tmp_path, [output])
    assert plan["paths"]["checkpoints"]["read_only_mount"] == "/mnt/output"
    assert rehearse(["rehearsal", str(plan_path)]) == 1
    report = json.loads(Path(plan["report"]).read_text())
    assert report["status"] == "failed"
    assert "Read-only file system" in report["message"] and "readOnly: true" in report["message"]
    assert sorted(p.name for p in source.iterdir()) == ["keep.txt"]
    assert not (plan_path.parent / "mounts").exists()
    assert "REHEARSAL FAILED" in capsys.readouterr().out


def test_a_writable_mount_is_not_flagged(tmp_path: Path) -> None:
    _, plan = _plan_file(
        tmp_path, [OUTPUT, Mount("data", "storage", "oss-rlinf", "/mnt/data", read_only=True)]
    )
    assert all(p is None or p["read_only_mount"] is None for p in plan["paths"].values())
