"""The console sheet and the request to the platform admin, against the seed's own pages.

seeds/create-training-job.zh.txt describes the console's create-Job pages field by field; the
sheet must list those fields in that order with those labels (Chinese, and English beside the
console's label), each value copyable alone, each finding beside the field it concerns.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rlark_widgets.cli import main
from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.pipeline import PlanRequest, plan_job
from rlark_widgets.rlark.admin_request import build_admin_request
from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Mount
from rlark_widgets.rlark.sheet import CHECKLIST, STEP_TITLES, build_sheet
from rlark_widgets.rlark.sheet_render import label, to_html, to_markdown
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import GpuLayout, load_config

SEED = Path(__file__).resolve().parent / "data" / "seeds" / "create-training-job.zh.txt"
#: Every field of the console's Step 1-3, as the seed names it, in the seed's order.
SEED_FIELDS = {
    "Step 1": ["任务名称", "任务类型", "角色"],
    "Step 2": [
        "集群",
        "节点选择",
        "已选节点数",
        "每个 Worker 的 GPU 数",
        "设备资源",
        "镜像",
        "准备脚本（Ray 启动前）",
        "环境变量",
        "主机目录",
        "对象存储",
    ],
    "Step 3": [
        "选择 Head 节点",
        "跨集群网络域",
        "SSH 公钥注入",
        "运行脚本（Ray 集群检查后，由 Head Task 执行）",
        "TensorBoard 日志目录",
    ],
}


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def seed() -> str:
    return SEED.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def planned():
    """The bundled 2-node config, with a hostPath mount and no image (the sheet asks for it)."""
    settings = JobSettings(
        mounts=[Mount("data", "hostPath", "/data/demos", "/mnt/data", read_only=True)],
        output_storage="oss-rlinf",
        output_mount="/mnt/output",
        tensorboard_log_dir="/mnt/output/tb",
    )
    inventory = load_inventory(example_inventories()["gpu-cloud"], site=example_site())
    config = load_config(example_configs()["local_rehearsal_2node"])
    return plan_job(
        PlanRequest(config, GpuLayout.parse(8), inventory, settings=settings, site=example_site())
    )


def _sheet(planned):
    return build_sheet(planned)


def test_every_label_is_the_seeds_in_the_seeds_order(seed: str) -> None:
    """The seed's fields, searched step by step from each step's heading, come in this order."""
    flat = _flat(seed)
    for step, fields in SEED_FIELDS.items():
        position = flat.index(_flat(step))
        for name in fields:
            found = flat.find(_flat(name), position)
            assert found > position, f"{step}: {name} not after the previous field in the seed"
            position = found
    checklist = flat.index(_flat("在任务 YAML 预览中至少核对"))
    for (console, _), _rules in CHECKLIST:
        for part in console.split("："):
            found = flat.find(_flat(part), checklist)
            assert found > checklist, f"Step 4: {part}"
            checklist = found


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_sheet_lists_every_field_in_order_in_both_languages(planned, lang: str) -> None:
    sheet = _sheet(planned)
    text = to_markdown(sheet, lang)
    roles = [r.name for r in planned.job.roles]
    expected = [label(STEP_TITLES[0], lang)]
    names = [f.label for f in sheet.sections[0].fields]
    assert [n[0] for n in names] == SEED_FIELDS["Step 1"]
    role_labels = [f.label for f in sheet.sections[1].fields]
    assert [n[0].split(" · ")[-1] for n in role_labels] == SEED_FIELDS["Step 2"]
    step3 = [f.label for f in sheet.sections[-1].fields]
    assert [n[0] for n in step3] == SEED_FIELDS["Step 3"]
    expected += [label(n, lang) for n in names]
    for _ in roles:
        expected.append(f"{label(STEP_TITLES[1], lang)}")
        expected += [label(n, lang) for n in role_labels]
    expected += [label(STEP_TITLES[2], lang)] + [label(n, lang) for n in step3]
    expected += [label(STEP_TITLES[3], lang)] + [label(item, lang) for item, _ in CHECKLIST]
    position = 0
    for name in expected:
        found = text.find(name, position)
        assert found >= position, f"{name!r} missing or out of order ({lang})"
        position = found + len(name)
    if lang == "en":
        assert "Selected node count (已选节点数)" in text and "Image (镜像)" in text
    else:
        assert "Image (镜像)" not in text and "**镜像**" in text and "示例" in text


def test_each_value_is_copyable_alone_and_findings_sit_beside_their_field(planned) -> None:
    sheet = _sheet(planned)
    fields = sheet.fields()
    values = sum(len(f.values) for f in fields)
    page = to_html(sheet, "zh")
    assert page.count("navigator.clipboard.writeText") == values
    assert page.startswith("<!DOCTYPE html>") and "控制台填写单" in page
    header = sheet.sections[1]
    by_label = {f.label[0]: f for f in header.fields}
    assert by_label["节点选择"].values == [
        f"{k}={v}" for k, v in planned.job.roles[0].node_selector.items()
    ]
    assert by_label["已选节点数"].values == ["1"]
    assert by_label["存储挂载 · 主机目录"].values == ["/data/demos -> /mnt/data (ro)"]
    assert by_label["存储挂载 · 对象存储"].values == ["oss-rlinf -> /mnt/output"]
    image = by_label["镜像"]
    assert image.values == [] and "JOB-IMAGE" in {f.rule_id for f in image.findings}
    assert all(f.path.startswith("spec.tasks[0]") for f in image.findings)
    hostpath = [f for f in by_label["存储挂载 · 主机目录"].findings if f.rule_id == "JOB-HOSTPATH"]
    assert hostpath
    # Step 4: the image item is flagged, the name item is checked
    items = {item.label[0]: item for item in sheet.checklist}
    assert items["metadata.name"].checked
    assert not next(i for k, i in items.items() if k.startswith("主容器镜像")).checked
    md = to_markdown(sheet, "zh")
    assert "- [x] metadata.name" in md and "- [ ] 主容器镜像" in md


def test_the_sheet_and_request_from_the_cli(tmp_path: Path, capsys) -> None:
    config = str(example_configs()["local_rehearsal_2node"])
    inventory = str(example_inventories()["gpu-cloud"])
    out = tmp_path / "sheet.html"
    assert (
        main(
            [
                "sheet",
                "--config",
                config,
                "--inventory",
                inventory,
                "--format",
                "html",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "任务名称" in out.read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["sheet", "--config", config, "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert "Job name (任务名称)" in text and "EXAMPLE" in text
    job_file = tmp_path / "job.yaml"
    assert main(["plan", config, "--image", "r/x:v1", "-o", str(job_file)]) in (0, 1)
    capsys.readouterr()
    assert main(["sheet", str(job_file), "--lang", "zh"]) == 0
    text = capsys.readouterr().out
    assert "```text\nr/x:v1\n```" in text and "自定义任务" in text
    assert (
        main(["admin-request", "--config", config, "--inventory", inventory, "--lang", "zh"]) == 0
    )
    text = capsys.readouterr().out
    assert "Worker 分组" in text and "全局匹配" in text and "每个 Worker 8 张 GPU" in text


def test_the_admin_request_states_what_the_seeds_say(tmp_path: Path) -> None:
    """Groups and counts, GPUs and devices, host data, robots and cameras, storage, questions."""
    config = load_config(example_configs()["realworld_peginsertion_rlpd_cnn_async_2arms"])
    settings = JobSettings(
        image="r/x:v1", mounts=[Mount("demos", "hostPath", "/data/demos", "/mnt/demos")]
    )
    planned = plan_job(
        PlanRequest(config, GpuLayout.parse(4), None, settings=settings, site=example_site())
    )
    request = build_admin_request(planned)
    en, zh = request.render("en"), request.render("zh")
    assert "RLark node selection request for Job" in en and "RLark 节点选择申请" in zh
    for role in planned.job.roles:
        assert f"Role '{role.name}'" in en and f"角色 '{role.name}'" in zh
    assert "/data/demos" in en and "主机目录 /data/demos" in zh
    assert re.search(r"RLINF_NODE_RANK 1 \(role 'franka'\): 1 x Franka with 0 camera", en)
    assert "RLINF_NODE_RANK 2（角色 'franka'）：1 台 Franka，0 个相机" in zh
    assert "which StorageClass" in en and "CPU、内存或 /dev/shm" in zh
    assert "which labels select exactly those nodes" in en  # no inventory: the labels are asked
    assert "What is the exact device resource name" in en  # PLN-DEVICE-NAME: never guessed
    assert "Values of this RLark environment" in en and "云算力 / 端算力 / 端真机" in zh
    with_inventory = plan_job(
        PlanRequest(
            load_config(example_configs()["local_rehearsal_2node"]),
            GpuLayout.parse(8),
            load_inventory(example_inventories()["gpu-cloud"], site=example_site()),
            site=example_site(),
        )
    )
    text = build_admin_request(with_inventory).render("en")
    assert "Planned node selection: rlark.io/cluster=gpu-a" in text
    assert "global match of the complete selection" in text
    assert "(label names from the EXAMPLE site profile)" in text
