"""Each local run keeps its own logs (issues #14, #18): submitting a stopped Job again starts a
clean run whose logs are only its own, and the earlier run's logs stay readable by run id."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_jobs import cli
from test_local_backend import ONE_NODE, START_TIMEOUT, finished, planned, stop_and_check, wait_for
from test_run_identity import local_job

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.local.backend import LocalBackend, _clear_run
from rlark_widgets.rlark.logs import RUN_LOG
from rlark_widgets.rlark.site import example_site


def script(marker: str) -> str:
    return f'cd "$(mktemp -d)"\necho "{marker} says hello"\n'


@pytest.mark.slow
def test_a_second_run_starts_clean_and_the_first_runs_logs_stay_readable(
    tmp_path: Path, capsys
) -> None:
    backend = LocalBackend(tmp_path, run_mode="job", linger=0.5, site=example_site())
    first, _ = planned("twice", ONE_NODE, run_script=script("first run"))
    assert backend.submit(first).created
    try:
        assert wait_for(backend, "twice", finished, START_TIMEOUT).run_script_state == "succeeded"
        snap = backend.snapshot("twice")
        first_id, head = snap.run.id, snap.workers[0].key
        backend.stop("twice")
        assert "first run says hello" in backend.logs("twice", RUN_LOG)  # readable after Stop
        header_log = backend.logs("twice", head)
        assert header_log  # ray start's output

        second, _ = planned("twice", ONE_NODE, run_script=script("second run"))
        result = backend.submit(second)
        assert result.created
        assert (
            f"The previous run's logs are kept: rlark-migrate logs twice --run-id {first_id[:8]}."
            in result.message
        )
        assert wait_for(backend, "twice", finished, START_TIMEOUT).run_script_state == "succeeded"
        now = backend.logs("twice", RUN_LOG)
        assert "second run says hello" in now and "first run" not in now  # only this run's
        earlier = backend.logs("twice", RUN_LOG, run_id=first_id[:8])
        assert "first run says hello" in earlier and "second run" not in earlier
        assert backend.logs("twice", head, run_id=first_id) == header_log
        assert [r.id for r in backend.earlier_runs("twice")] == [first_id]
        assert backend.snapshot("twice").run.id != first_id

        argv = ["--workspace", str(tmp_path)]
        code, out, _ = cli(capsys, "logs", "twice", *argv, "--run", "--run-id", first_id[:8])
        assert code == 0 and "first run says hello" in out
        code, _, err = cli(capsys, "logs", "twice", *argv, "--run-id", "ffffffff")
        assert code == 1 and f"Use one of its earlier runs: {first_id[:8]} (" in err
    finally:
        stop_and_check(backend, tmp_path, "twice")


def test_a_new_run_moves_the_previous_runs_files_and_logs_under_its_id(tmp_path: Path) -> None:
    backend, where, _ = local_job(tmp_path)
    run_id = where.read("spec.json")["run_id"]
    where.logs.mkdir(parents=True)
    where.run_log.write_text("REHEARSAL PASSED\n")
    where.worker_log("header/0").write_text("Ray runtime started.\n")
    with pytest.raises(BackendError) as none_yet:
        backend.logs("again", RUN_LOG, run_id=run_id)
    assert "none (the Job has not been submitted again since its first run)" in str(
        none_yet.value.fix_text
    )
    _clear_run(where, backend.workspace)  # what submit does before it writes the new run
    kept = where.earlier_run(run_id)
    assert not where.logs.exists() and not where.file("spec.json").exists()
    assert kept.run_log.read_text() == "REHEARSAL PASSED\n"
    assert kept.read("spec.json")["run_id"] == run_id
    local_job(tmp_path)  # the next run's files
    assert backend.logs("again", "header/0") == ""  # this run has written nothing yet
    assert backend.logs("again", "header/0", run_id=run_id[:8]) == "Ray runtime started."
    assert backend.logs("again", RUN_LOG, run_id=run_id).endswith("\nREHEARSAL PASSED")


def test_run_id_is_refused_where_no_earlier_logs_are_kept(kube, tmp_path: Path, capsys) -> None:
    from test_cli_jobs import write_kubeconfig
    from test_kubernetes_backend import NAMESPACE, running

    running(kube)
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config), "--run-id", "abc"]
    code, _, err = cli(capsys, "logs", "demo", *argv)
    assert code == 2 and "which the kubernetes backend does not keep" in err
