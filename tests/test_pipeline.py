"""submit_checked: preflight, the one blocking rule, then one submission (kmock's emulator)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import pytest
from test_kubernetes_backend import demo_job

from rlark_widgets.backends import open_backend
from rlark_widgets.backends.base import BackendError
from rlark_widgets.pipeline import given_job, submit_checked

if TYPE_CHECKING:
    from kube_emulator import Cluster


def test_a_clean_job_is_submitted_once(kube: Cluster) -> None:
    backend = kube.backend(cluster="gpu-a")
    planned = given_job(demo_job())
    first, second = submit_checked(backend, planned), submit_checked(backend, planned)
    assert first.blocking == [] and first.result is not None and first.result.created
    assert second.result is not None and not second.result.created  # never a duplicate
    assert kube.job("demo")["metadata"]["name"] == "demo"


def test_an_error_blocks_before_anything_is_created(kube: Cluster) -> None:
    backend = kube.backend(cluster="gpu-a")
    job = demo_job()
    job.roles[1] = replace(job.roles[1], image="")  # JOB-IMAGE: an error on a cluster
    submission = submit_checked(backend, given_job(job))
    assert submission.result is None
    assert "JOB-IMAGE" in {f.rule_id for f in submission.blocking}
    assert all(f in submission.findings for f in submission.blocking)
    with pytest.raises(KeyError):
        kube.job("demo")


def test_open_backend_names_the_two_backends(tmp_path) -> None:
    assert open_backend("local", workspace=tmp_path, run_timeout=5).options.run_timeout == 5
    with pytest.raises(BackendError, match="Unknown backend 'slurm'"):
        open_backend("slurm")
