"""Chinese output is Chinese (#24 item 17): the words that stayed English are said in zh.

jsonschema's sentences, the strategy column's ``Flexible``, the Job and Worker phases and a
failed rehearsal's reason (written in English by the rehearsal's own process) each read in
Chinese; the English output keeps its words.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from test_kubernetes_backend import demo_job
from test_local_start_failures import RAY_TIMEOUT, _failed_job

from rlark_widgets.backends.local.rehearsal import verdict
from rlark_widgets.cli import main
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.site import example_site

#: jsonschema's English, which a zh finding quoted as it was.
JSONSCHEMA_ENGLISH = re.compile(
    r"is a required property|is not of type|were unexpected|was unexpected|is less than the "
    r"minimum|is too short|is too long|does not match|should be non-empty|is not one of"
)
CJK = re.compile(r"[\u4e00-\u9fff]")


def _broken(change) -> dict:
    manifest = copy.deepcopy(demo_job().to_manifest())
    change(manifest)
    return manifest


CHANGES = {
    "required": lambda m: m["spec"]["tasks"][0].pop("replicas"),
    "type": lambda m: m["spec"]["tasks"][0].__setitem__("replicas", "two"),
    "minimum": lambda m: m["spec"]["tasks"][1].__setitem__("replicas", 0),
    "additionalProperties": lambda m: m["spec"].__setitem__("colour", "blue"),
    "minItems": lambda m: m["spec"].__setitem__("tasks", []),
}


@pytest.mark.parametrize("violation", list(CHANGES))
def test_schema_findings_read_in_chinese(violation: str) -> None:
    findings = [
        f
        for f in schema_findings(_broken(CHANGES[violation]), example_site())
        if f.rule_id == "JOB-SCHEMA"
    ]
    assert findings, violation
    for finding in findings:
        zh = finding.text.render("zh")
        assert CJK.search(zh.split("：", 1)[-1]), zh  # the detail too, not only the frame
        assert not JSONSCHEMA_ENGLISH.search(zh), zh


def test_schema_findings_keep_their_english() -> None:
    (finding,) = schema_findings(_broken(CHANGES["minimum"]), example_site())
    assert (
        finding.message == "Does not match the RLark Job schema: 0 is less than the minimum of 1."
    )
    assert finding.text.render("zh") == "不符合 RLark Job 的 schema：0 小于最小值 1。"
    (missing,) = schema_findings(_broken(CHANGES["required"]), example_site())
    assert missing.text.render("zh").endswith("缺少必填字段 replicas。")
    (extra,) = schema_findings(_broken(CHANGES["additionalProperties"]), example_site())
    assert extra.text.render("zh").endswith("schema 中没有这些字段：colour。")


def test_the_strategy_column_is_chinese(capsys, rlinf_configs_dir: Path) -> None:
    config = str(rlinf_configs_dir / "examples/embodiment/config/maniskill_ppo_openvlaoft.yaml")
    main(["--lang", "zh", "inspect", config, "--no-compose"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    strategies = {row[2] for row in rows if row and row[0] in ("actor", "env", "rollout")}
    assert strategies == {"灵活（Flexible）"}
    main(["inspect", config, "--no-compose"])
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert {row[2] for row in rows if row and row[0] in ("actor", "env", "rollout")} == {"Flexible"}


def test_phases_are_chinese_in_the_status_report(tmp_path: Path) -> None:
    snap = _failed_job(tmp_path, RAY_TIMEOUT).snapshot("busy")
    zh = summary_lines(snap, {"header": 1, "workers": 1}, lang="zh")
    assert zh[0] == "local 上的 Job busy（演练，不是训练）：已失败"
    assert zh[2:4] == [
        "  header：1/1 个 Worker（已成功 1 个）",
        "  workers：1/1 个 Worker（已失败 1 个）",
    ]
    assert not re.search(r"\b(Failed|Succeeded|Running|Pending|Stopped)\b", "\n".join(zh))
    en = summary_lines(snap, {"header": 1, "workers": 1})
    assert en[0].endswith(": Failed") and en[3] == "  workers: 1/1 Workers (1 Failed)"


def test_a_failed_rehearsal_reason_reads_in_chinese() -> None:
    reason = "cannot reach the Ray head at '10.0.0.1:6379': refused"
    lines = [f"[rehearsal]  3.0s REHEARSAL FAILED: {reason}"]
    report = {
        "status": "failed",
        "message": reason,
        "said": {"en": reason, "zh": "无法连接 Ray head '10.0.0.1:6379'：refused"},
    }
    said = verdict(lines, report)
    assert said is not None and not said.passed
    assert (
        said.said.render("zh")
        == "演练失败（REHEARSAL FAILED）：无法连接 Ray head '10.0.0.1:6379'：refused"
    )  # type: ignore[union-attr]
    assert str(said.said) == f"REHEARSAL FAILED: {reason}"
    # a report of another run (another message) is not used: the log's words stay
    other = verdict(lines, {**report, "message": "something else"})
    assert other is not None and reason in other.said.render("zh")  # type: ignore[union-attr]
