"""``rlark-migrate --lang`` and the monitor's words in Chinese (issue #7).

The CLI renders every heading, table header, status line and finding in the chosen language
(``--lang`` before or after the command, else ``$RLARK_LANG``); English stays byte-identical,
and JSON keeps its keys with messages in the chosen language. The diagnosis chain and the
status summary render every link in Chinese with no placeholder left.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from kube_emulator import NAMESPACE
from test_cli_jobs import write_kubeconfig
from test_diagnosis import BROKEN_LINKS, NOW, healthy, worker
from test_kubernetes_backend import demo_job

from rlark_widgets.cli import main
from rlark_widgets.cli.render import table, width
from rlark_widgets.cli.waiting import ProgressLine, wait_for
from rlark_widgets.i18n import Text
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.snapshot import CHECKPOINTS, FAILED, JobPhase, Progress
from rlark_widgets.monitor.summary import summary_lines
from rlark_widgets.rlark.yaml_io import render_job_yaml
from rlark_widgets.rlinf import inspect_config, load_config
from rlark_widgets.rlinf.topology import GpuLayout

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "rlark_widgets/examples/configs"
SINGLE = EXAMPLES / "maniskill_ppo_openvlaoft.yaml"
ROBOTS = EXAMPLES / "realworld_peginsertion_rlpd_cnn_async_2arms.yaml"
CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


@pytest.fixture(autouse=True)
def english_by_default(monkeypatch) -> None:
    """Tests choose the language; the caller's $RLARK_LANG must not leak in."""
    monkeypatch.delenv("RLARK_LANG", raising=False)


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_chinese(text: str) -> None:
    assert CJK.search(text), text
    assert not PLACEHOLDER.search(text), text


def findings_of(config: Path):
    return inspect_config(load_config(config), GpuLayout.uniform(8)).findings


# --- --lang, $RLARK_LANG and English unchanged --------------------------------------------------
@pytest.mark.parametrize("config", [SINGLE, ROBOTS], ids=lambda p: p.stem)
@pytest.mark.parametrize("where", ["before", "after"])
def test_inspect_in_chinese_has_chinese_headings_and_findings(capsys, config: Path, where: str):
    argv = ["inspect", str(config)]
    argv = ["--lang", "zh", *argv] if where == "before" else [*argv, "--lang", "zh"]
    _, out, _ = cli(capsys, *argv)
    for heading in (
        "组件",
        "各节点（按 RLINF_NODE_RANK 排列的 Ray 节点）",
        "检查结果",
        "RLinf 任务类型（runner.task_type）：",
    ):
        assert heading in out
    findings = findings_of(config)
    assert findings
    for finding in findings:
        assert finding.message_in("zh") in out and finding.message not in out
    assert_chinese(out)


def test_rlark_lang_is_the_default_and_the_flag_wins(capsys, monkeypatch):
    _, flagged, _ = cli(capsys, "inspect", str(ROBOTS), "--lang", "zh")
    monkeypatch.setenv("RLARK_LANG", "zh_CN.UTF-8")
    _, from_env, _ = cli(capsys, "inspect", str(ROBOTS))
    _, english, _ = cli(capsys, "inspect", str(ROBOTS), "--lang", "en")
    monkeypatch.delenv("RLARK_LANG")
    _, default, _ = cli(capsys, "inspect", str(ROBOTS))
    assert from_env == flagged and "节点组" in from_env
    assert english == default and "Node groups" in english


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", str(ROBOTS)],
        ["plan", str(SINGLE)],
        ["plan", str(ROBOTS), "--json"],
        ["inspect", str(SINGLE), "--json"],
    ],
    ids=["inspect", "plan", "plan-json", "inspect-json"],
)
def test_english_is_unchanged_by_the_flag(capsys, argv: list[str]):
    assert cli(capsys, *argv, "--lang", "en") == cli(capsys, *argv)


def test_help_documents_lang(capsys):
    for argv in (["--help"], ["check", "--help"], ["status", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert "--lang {en,zh}" in out and "RLARK_LANG" in out


# --- plan and check ------------------------------------------------------------------------------
def test_plan_in_chinese(capsys, tmp_path: Path):
    job = tmp_path / "job.yaml"
    code, out, _ = cli(capsys, "plan", str(SINGLE), "--lang", "zh", "-o", str(job))
    code_en, english, _ = cli(capsys, "plan", str(SINGLE))
    for heading in ("角色", "RLINF_NODE_RANK 对应关系", "规划理由", "检查结果", "个 Worker，对应"):
        assert heading in out
    assert "Why" not in out and "Roles" not in out and "Why" in english
    assert_chinese(out)
    assert code == code_en and job.exists()


def test_plan_json_keeps_keys_and_renders_messages(capsys):
    _, english, _ = cli(capsys, "plan", str(ROBOTS), "--json")
    _, chinese, _ = cli(capsys, "plan", str(ROBOTS), "--json", "--lang", "zh")
    en, zh = json.loads(english), json.loads(chinese)
    assert en.keys() == zh.keys() and en["job"] == zh["job"]
    assert [f.keys() for f in en["findings"]] == [f.keys() for f in zh["findings"]]
    assert [f["rule_id"] for f in en["findings"]] == [f["rule_id"] for f in zh["findings"]]
    for text in [f["message"] for f in zh["findings"]] + zh["explanations"]:
        assert_chinese(text)
    for role in zh["roles"]:
        assert all(CJK.search(why) for why in role["why"])


def test_check_in_chinese_text_and_json(capsys, tmp_path: Path):
    job = tmp_path / "job.yaml"
    cli(capsys, "plan", str(ROBOTS), "-o", str(job))
    code, out, _ = cli(capsys, "check", str(job), "--config", str(ROBOTS), "--lang", "zh")
    code_en, english, _ = cli(capsys, "check", str(job), "--config", str(ROBOTS))
    assert code == code_en and len(out.splitlines()) == len(english.splitlines()) > 0
    assert re.search(r"^\[(错误|警告|提示)\] [A-Z]+-[A-Z-]+ 位于 ", out, re.M)
    assert_chinese(out)
    _, data, _ = cli(capsys, "check", str(job), "--config", str(ROBOTS), "--json", "--lang", "zh")
    findings = json.loads(data)["findings"]
    assert findings and all(set(f) >= {"rule_id", "message", "fix"} for f in findings)
    assert all(CJK.search(f["message"]) for f in findings)


def test_usage_and_load_errors_in_chinese(capsys, tmp_path: Path):
    code, _, err = cli(capsys, "--lang", "zh", "inspect")
    assert code == 2 and "rlark-migrate: 错误：请给出 CONFIG" in err
    code, _, err = cli(capsys, "--lang", "zh", "inspect", str(SINGLE), "--env", "NOEQUALS")
    assert code == 2 and "--env：“NOEQUALS”不是 NAME=VALUE 格式" in err
    broken = tmp_path / "broken.yaml"
    broken.write_text("cluster: [unclosed\n")
    code, _, err = cli(capsys, "--lang", "zh", "inspect", str(broken))
    assert code == 1 and err.startswith("错误：")
    assert_chinese(err)


# --- job commands against the Kubernetes emulator ------------------------------------------------
def test_submit_and_status_in_chinese(kube, tmp_path: Path, capsys):
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    job_file = tmp_path / "demo.yaml"
    job_file.write_text(render_job_yaml(demo_job()))
    backend = ("--backend", "kubernetes", "--kubeconfig", str(kubeconfig), "--lang", "zh")

    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert code == 0 and "已提交：demo。" in out
    assert "下一步：rlark-migrate status demo --backend kubernetes --watch" in out
    code, out, _ = cli(capsys, "submit", str(job_file), *backend)
    assert "未重复提交：demo。" in out

    kube.start_workers("demo")
    kube.run_all("demo")
    code, out, _ = cli(capsys, "status", "demo", *backend)
    assert "kubernetes 上的 Job demo" in out and "header：1/1 个 Worker（运行中 1 个）" in out
    assert "Ray 成员：0/3 存活" in out and "Ray head 正在启动（提交后已过" in out  # not a fault yet
    assert_chinese(out)
    _, data, _ = cli(capsys, "status", "demo", *backend, "--json")
    diagnosis = json.loads(data)["diagnosis"]
    assert set(diagnosis) == {"link", "ok", "title", "detail", "fix", "training"}
    assert CJK.search(diagnosis["title"]) and CJK.search(diagnosis["fix"])

    code, out, _ = cli(capsys, "record", "demo", *backend, "-o", str(tmp_path / "record"))
    assert code == 0 and "运行记录已写入" in out
    recorded = json.loads((tmp_path / "record" / "diagnosis.json").read_text())
    assert not CJK.search(recorded["title"])  # records stay English whatever --lang says


def test_unreachable_cluster_error_in_chinese(tmp_path: Path, capsys):
    config = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")
    code, _, err = cli(
        capsys,
        "status",
        "x",
        "--backend",
        "kubernetes",
        "--kubeconfig",
        str(config),
        "--lang",
        "zh",
    )
    assert code == 1 and err.startswith("错误：") and "Traceback" not in err


# --- diagnosis and summary ------------------------------------------------------------------------
ENDED = [
    {"phase": JobPhase.STOPPED, "members": []},
    {"run_script_state": "succeeded", "rehearsal": True, "members": []},
    {"run_script_state": "succeeded", "members": [], "checkpoints": []},
]
HEALTHY = [
    {},
    {"rehearsal": True},
    {"checkpoints": [], "progress": Progress(config_saved=True, last_step=3, last_step_time=NOW)},
]
OTHER_CASES = [
    {"workers": [worker(0), worker(1, FAILED), worker(2)]},  # no reason, no exit code
    {"run_script_state": "failed", "run_script_exit_code": None},
    {"members": [*healthy().members, healthy().members[1]]},  # 4 alive, 3 expected
]
CASES = [changes for changes, _, _ in BROKEN_LINKS] + ENDED + HEALTHY + OTHER_CASES


@pytest.mark.parametrize("changes", CASES)
def test_every_diagnosis_renders_in_chinese(changes: dict):
    snap = healthy(**changes)
    result = diagnose(snap)
    zh = result.to_dict("zh")
    assert_chinese(zh["title"])
    if result.fix_text:
        assert_chinese(zh["fix"])
    english = result.to_dict()
    assert english.keys() == zh.keys() and english["title"] == result.title
    assert (english["link"], english["ok"]) == (zh["link"], zh["ok"]) == (result.link, result.ok)
    lines = summary_lines(snap, {"header": 1, "workers": 2}, result, "zh")
    assert all(CJK.search(line) for line in lines), lines
    assert_chinese("\n".join(lines))
    assert summary_lines(snap, {"header": 1, "workers": 2}, result) == summary_lines(
        snap, {"header": 1, "workers": 2}, result, "en"
    )


def test_unread_progress_and_missing_parts_render_in_chinese():
    snap = healthy(progress=Progress(config_saved=True))
    snap.lack(CHECKPOINTS, Text("the head Worker is not running"))
    result = diagnose(snap)
    assert result.link == "steps-advancing" and result.detail.startswith("checkpoints: ")
    lines = summary_lines(snap, {"header": 1, "workers": 2}, result, "zh")
    assert any(line.startswith("  无法读取：") for line in lines)
    assert_chinese("\n".join(lines))


def test_summary_english_is_unchanged():
    snap = healthy()
    assert summary_lines(snap, {"header": 1, "workers": 2}) == [
        "Job job on kubernetes: unknown phase",
        "  header: 1/1 Workers (1 Running)",
        "  workers: 2/2 Workers (2 Running)",
        "  Ray members: 3/3 alive",
        "  Latest checkpoint: global_step_40, 30 s ago (/mnt/output/ckpt/global_step_40)",
        "OK Training: step 42, latest checkpoint global_step_40.",
    ]
    assert summary_lines(snap, {"header": 1, "workers": 2}, lang="zh") == [
        "kubernetes 上的 Job job：状态未知",
        "  header：1/1 个 Worker（运行中 1 个）",
        "  workers：2/2 个 Worker（运行中 2 个）",
        "  Ray 成员：3/3 存活",
        "  最新 checkpoint：global_step_40，30 秒前（/mnt/output/ckpt/global_step_40）",
        "OK 训练中：第 42 步，最新 checkpoint 为 global_step_40。",
    ]


# --- waiting and tables ---------------------------------------------------------------------------
def test_wait_messages_and_progress_line_in_chinese():
    snaps = iter([healthy(members=[]), healthy()])
    stream = io.StringIO()
    outcome = wait_for(
        lambda: next(snaps), "members", 60, interval=0, line=ProgressLine(stream, 0), lang="zh"
    )
    assert outcome.reached and re.fullmatch(r"\d+ 秒后达到 'members'。", outcome.message)
    assert stream.getvalue().startswith(
        "[   0 秒] 等待 members：Ray 成员 0/3，3 个 Worker 运行中 - "
    )
    assert_chinese(stream.getvalue())
    timed_out = wait_for(
        lambda: healthy(members=[]), "members", 0, line=ProgressLine(stream), lang="zh"
    )
    assert timed_out.timed_out and timed_out.message.startswith("等待 'members' 0 秒后超时：")
    assert_chinese(timed_out.message)


def test_tables_align_chinese_by_terminal_columns():
    rendered = table((Text("node"), Text("GPUs used")), [(0, "[0, 1]"), (12, "-")], "zh")
    assert rendered == "节点  已用 GPU\n----  --------\n0     [0, 1]\n12    -"
    assert width("节点 GPU") == 8
    assert table(("a", "bb"), [("ccc", "d")]) == "a    bb\n---  --\nccc  d"
