"""The CLI and the app plan through one pipeline: the same inputs give the same Job and findings.

Every bundled example and 20 corpus configs are planned twice: by ``rlark-migrate plan`` (its
options) and by the app's Session (its fields). The Job YAML must be the same text and the
findings the same IDs, paths and severities, in the same order (REC-* included: both pass the
run-record facts).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus import CORPUS, PRIMARY

from rlark_widgets.cli import main
from rlark_widgets.examples import example_configs
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlinf import rlinf_repo_env
from rlark_widgets.ui.session import Session

IMAGE = "registry.example.com/rlinf:v0.3.0"
#: 20 corpus configs spread over the whole sorted list (examples and tests, every task type).
CORPUS_SAMPLE = PRIMARY[:: max(1, len(PRIMARY) // 20)][:20]
CASES = [*(str(path) for path in example_configs().values()), *CORPUS_SAMPLE]


def _through_cli(config: str, repo: str | None, tmp_path: Path, capsys) -> tuple[str, list]:
    job_file = tmp_path / "job.yaml"
    repo_args = ["--rlinf-repo", repo] if repo else []
    argv = ["plan", config, *repo_args, "--json", "--image", IMAGE, "-o", str(job_file)]
    argv += ["--storage", "oss-rlinf:/mnt/output", "--output-dir", "/mnt/output"]
    main(argv)
    out = json.loads(capsys.readouterr().out)
    findings = [(f["rule_id"], f["path"], f["severity"]) for f in out["findings"]]
    return (job_file.read_text(encoding="utf-8") if job_file.exists() else ""), findings


def _through_session(config: str, repo: str | None) -> tuple[str, list]:
    s = Session(workspace=Path("/nonexistent-workspace"))
    if repo:
        s.env_text = "\n".join(f"{k}={v}" for k, v in rlinf_repo_env(repo).items())
    s.settings = JobSettings(image=IMAGE, output_storage="oss-rlinf", output_mount="/mnt/output")
    assert s.load_path(config), s.error
    findings = [(f.rule_id, f.path, f.severity.value) for f in s.findings]
    return s.job_yaml, findings


@pytest.mark.parametrize("case", CASES, ids=lambda c: Path(c).stem)
def test_cli_and_app_plan_the_same_job(case: str, tmp_path: Path, capsys) -> None:
    bundled = Path(case).is_absolute()
    if not bundled and not CORPUS.is_dir():
        pytest.skip(f"no RLinf corpus at {CORPUS}")
    config = case if bundled else str(CORPUS / case)
    repo = None if bundled else str(CORPUS)
    cli_yaml, cli_findings = _through_cli(config, repo, tmp_path, capsys)
    app_yaml, app_findings = _through_session(config, repo)
    assert app_yaml == cli_yaml
    assert app_findings == cli_findings
    assert cli_findings, "every plan has findings (at least the run-record ones)"


def test_the_sample_and_the_run_record_facts_reach_both() -> None:
    assert len(CASES) == len(example_configs()) + 20 or not CORPUS.is_dir()
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.load_example()
    assert "REC-RLINF-COMMIT" in {f.rule_id for f in s.findings}
    assert s.set_job_field("rlinf_commit", "a3816b59")
    assert "REC-RLINF-COMMIT" not in {f.rule_id for f in s.findings}
