"""A local run of a Job YAML starts that Job's prepare scripts here: asked first (LOC-PREPARE-HERE).

``submit JOB.yaml --backend local`` says so before anything starts and goes on only with
``--yes`` or a yes typed on a terminal; the app lists it with the warnings it asks a yes for,
once per Job. A Job planned from the user's own config (``--config``) is not asked about.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from rlark_widgets.backends.local.backend import LocalBackend
from rlark_widgets.cli import main
from rlark_widgets.examples import example_configs
from rlark_widgets.pipeline import PlanRequest, given_job, plan_job, submit_checked
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.yaml_io import parse_job_yaml, render_job_yaml
from rlark_widgets.rlinf import GpuLayout, load_config
from rlark_widgets.ui.session import Session, finding_key

FRANKA_EXAMPLE = "realworld_peginsertion_rlpd_cnn_async_2arms"


class Terminal(io.StringIO):
    """Standard input as a terminal with ``answer`` typed into it."""

    def isatty(self) -> bool:
        return True


def job_yaml(tmp_path: Path) -> tuple[Path, Path]:
    """Someone's 2-node Job whose prepare script leaves a file when it runs."""
    ran = tmp_path / "prepare-ran"
    config = load_config(example_configs()["local_rehearsal_2node"])
    settings = JobSettings(name="theirs", prepare_script=f"touch {ran}\n")
    planned = plan_job(
        PlanRequest(config, GpuLayout.parse(2), settings=settings, site=example_site())
    )
    assert planned.job is not None
    path = tmp_path / "theirs.yaml"
    path.write_text(render_job_yaml(planned.job), encoding="utf-8")
    return path, ran


def submit(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[int, str, str]:
    workspace = path.parent / "ws"
    code = main(["submit", str(path), "--backend", "local", "--workspace", str(workspace), *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("lang", "refused"),
    [
        (
            "en",
            "Not submitted: the local backend would run this Job's prepare scripts on this machine.",
        ),
        ("zh", "未提交：本地后端会在本机运行这个 Job 的准备脚本。"),
    ],
)
def test_a_job_yaml_is_not_rehearsed_without_a_yes(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    refused: str,
) -> None:
    path, ran = job_yaml(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # not a terminal: nobody to ask
    code, out, err = submit(capsys, path, "--lang", lang)
    assert code == 1 and refused in err
    assert "LOC-PREPARE-HERE" in out
    assert not ran.exists() and not (tmp_path / "ws" / "theirs").exists()


def test_a_no_on_the_terminal_submits_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ran = job_yaml(tmp_path)
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, out, err = submit(capsys, path)
    assert code == 1 and "Run these prepare scripts on this machine? [y/N]" in out
    assert "Not submitted: the local backend would run" in err
    assert not ran.exists() and not (tmp_path / "ws" / "theirs").exists()


def test_the_warning_names_every_role_with_a_prepare_script(tmp_path: Path) -> None:
    path, _ = job_yaml(tmp_path)
    planned = given_job(
        parse_job_yaml(path.read_text(encoding="utf-8"), site=example_site()), site=example_site()
    )
    backend = LocalBackend(tmp_path / "ws", site=example_site())
    asked: list[list[str]] = []

    def no(findings: list) -> bool:  # type: ignore[type-arg]
        asked.append([f.rule_id for f in findings])
        return False

    submission = submit_checked(backend, planned, no)
    assert asked == [["LOC-PREPARE-HERE"]] and submission.result is None
    (here,) = submission.declined
    assert here.severity.name == "WARNING" and here.path == "spec.tasks[0].prepareScript"
    names = ", ".join(f"'{r.name}'" for r in planned.job.roles)  # type: ignore[union-attr]
    assert here.message == (
        f"The local backend runs the prepare script of {names} on this machine, as you, before"
        " Ray starts: every command in it runs here, not in a container."
    )
    assert isinstance(here.fix_text, type(here.text))
    assert "准备脚本" in here.text.render("zh") and "--yes" in here.fix_text.render("zh")


def test_the_app_asks_once_per_job_on_the_local_backend() -> None:
    s = Session(workspace=Path("/nonexistent-workspace"))
    s.settings = JobSettings(
        image="registry.example.com/rlinf:v0.3.0", prepare_script="module load cuda"
    )
    assert s.load_example(FRANKA_EXAMPLE), s.error
    keys = [finding_key(f) for f in s.unacknowledged()]
    assert "LOC-PREPARE-HERE@spec.tasks[0].prepareScript" in keys
    s.acknowledge(keys)
    assert s.unacknowledged() == []
    s.backend_name = "kubernetes"
    assert all(f.rule_id != "LOC-PREPARE-HERE" for f in s.warnings())
