"""The app in English and Chinese (issue #7): the header toggle re-labels every view in place.

Driven through the session and the widgets, without a browser: after ``set_language("zh")``
every label, title, option, heading and finding is Chinese, what the user typed and edited is
still there, the figures are the same widgets with Chinese titles, and English comes back
unchanged.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import ipywidgets as w
import pytest
from test_app_session import session

from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.findings import Finding, Severity
from rlark_widgets.i18n import Text
from rlark_widgets.monitor.diagnosis import diagnose
from rlark_widgets.monitor.history import HistoryPoint
from rlark_widgets.monitor.snapshot import JobSnapshot, RayMember, WorkerSnapshot
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session, finding_key

CJK = re.compile(r"[\u4e00-\u9fff]")
# Terms that stay in Latin script in Chinese, and data shown as it is (examples, inventories).
LATIN = {
    "Header",
    "StorageClass",
    "Kubernetes",
    "KubeRay",  # product and resource names stay in Latin script
    "KubeRay RayJob",
    "KubeRay RayCluster",
    "English",
    *example_configs(),
    *example_inventories(),
}


def widgets(root: w.Widget) -> Iterator[w.Widget]:
    yield root
    for child in getattr(root, "children", ()):
        yield from widgets(child)


def visible_texts(app: App) -> list[str]:
    """Every label a reader sees: descriptions, tooltips, options, tab titles, HTML text.

    Placeholders are left out: most are example values (paths, KEY=VALUE) in any language.
    """
    texts = list(app.tabs.titles)
    for widget in widgets(app.widget):
        if widget is app.language:
            continue
        texts += [getattr(widget, a, "") for a in ("description", "tooltip")]
        texts += list(getattr(widget, "_options_labels", ()))
        if isinstance(widget, w.HTML) and "yaml" not in widget.value:
            text = re.sub(r"<style>.*?</style>|<[^>]+>", " ", widget.value, flags=re.S)
            texts.append(html.unescape(text).strip())
    return [t for t in texts if t]


def not_chinese(app: App) -> set[str]:
    return {t for t in visible_texts(app) if not CJK.search(t) and t not in LATIN}


@pytest.fixture
def app() -> App:
    """The Franka example with the Topology tab opened (its figures drawn)."""
    app = App(session())
    app.tabs.selected_index = 2
    return app


def test_chinese_relabels_every_view_and_keeps_typed_text_and_figures(app: App) -> None:
    s, roles, job = app.session, app.steps[3], app.steps[4]
    english = visible_texts(app)
    job.inputs["name"].value = "arm-run"  # typed in the Job form
    role_name = roles.rows.children[1].children[0].children[0]
    role_name.value = "arms"  # an edited role field
    grid = app.topology.grid.widget

    s.set_language("zh")

    assert not not_chinese(app), not_chinese(app)
    assert app.tabs.titles[0] == "1 导入" and job.inputs["name"].description == "Job 名称"
    assert app.steps[0].overrides.placeholder == "cluster.num_nodes=2（每行一个）"
    assert job.inputs["name"].value == "arm-run" and s.job.name == "arm-run"
    assert [r.name for r in s.roles] == ["header", "arms"]
    assert roles.rows.children[1].children[0].children[0].value == "arms"
    assert app.topology.grid.widget is grid  # updated in place: zoom and hover state survive
    assert grid.layout.title.text == "Ray 节点 × GPU"
    assert list(grid.data[0].x) == ["GPU 0", "设备"]
    assert list(grid.data[0].y) == [
        "节点 rank 0 · header",
        "节点 rank 1 · arms",
        "节点 rank 2 · arms",
    ]

    s.set_language("en")
    job.inputs["name"].value = ""  # back to the config's name, as before the edit
    role_name = roles.rows.children[1].children[0].children[0]
    role_name.value = "franka"
    assert visible_texts(app) == english
    assert grid.layout.title.text == "Ray nodes x GPUs" and list(grid.data[0].x)[1] == "devices"


def test_findings_are_shown_in_the_chosen_language(app: App) -> None:
    s, job = app.session, app.steps[4]
    s.set_language("zh")
    warnings = [row.children[1].value for row in job.warnings.children if isinstance(row, w.HBox)]
    shown = job.errors.value + "".join(warnings) + job.infos.value
    listed = [f for f in s.findings if f.severity is not Severity.ERROR or f in s.blocking()]
    assert len(warnings) == len([f for f in listed if f.severity is Severity.WARNING])
    for finding in listed:
        message = finding.message_in("zh")
        assert CJK.search(message) and html.escape(message) in shown, finding.rule_id
    assert ">错误</span><b>CFG-ROBOT-IP" in shown and ">警告</span><b>PLN-DEVICE-NAME" in shown
    assert "IP 地址" in shown and "not an IP address" not in shown


def test_selection_widgets_relabel_without_acting_as_a_click(app: App) -> None:
    """Options change on the toggle; the inventory, backend and template must not re-plan."""
    s, cluster = app.session, app.steps[1]
    cluster.inventory.value = "mixed-robots"
    cluster.backend.value = "kubernetes"
    s.update_role(1, gpus=1)
    revision = s.revision
    s.set_language("zh")
    assert cluster.inventory.value == "mixed-robots" and s.inventory_name == "mixed-robots"
    assert cluster.backend.value == "kubernetes" and s.backend_name == "kubernetes"
    assert s.roles[1].gpus == 1 and s.revision == revision  # no re-plan discarded the edit
    assert cluster.backend.options[0] == ("本地（在本机运行 Ray）", "local")
    assert cluster.category.options[1] == ("云算力", "cloud")
    s.set_language("en")
    assert cluster.category.options[1] == ("cloud 云算力", "cloud")


def test_the_header_toggle_and_the_session_agree(app: App) -> None:
    app.language.value = "zh"
    assert app.session.lang == "zh" and "迁移到 RLark" in app.header.children[0].value
    app.session.set_language("en")
    assert app.language.value == "en" and "Move an RLinf workload" in app.header.children[0].value


def test_an_error_and_the_status_follow_the_language() -> None:
    s = session()
    assert not s.load_path("/no/such/config.yaml")
    english = s.error
    s.set_language("zh")
    assert s.error.startswith("导入出错：") and "修复：" in s.error
    s.set_language("en")
    assert s.error == english and english.startswith("Import: No RLinf config file")
    assert not s.move_role(7, -1)
    s.set_language("zh")
    assert s.error == "角色出错：不存在第 8 个角色；该 Job 只有 2 个角色。"


class RefusingBackend:
    """A backend whose preflight finds two errors (LOC- IDs: the local backend blocks on those)."""

    name = "local"

    def preflight(self, job, config=None) -> list[Finding]:
        return [
            Finding("LOC-X1", Severity.ERROR, "spec", Text("no Worker"), Text("Apply")),
            Finding("LOC-X2", Severity.ERROR, "spec", Text("no Ray member")),
        ]


def test_preflight_errors_are_listed_in_the_chosen_language() -> None:
    s = session("maniskill_ppo_openvlaoft")
    s.acknowledge([finding_key(f) for f in s.unacknowledged()])
    s._backend = RefusingBackend()
    assert s.submit(wait=True) and s.status == ""  # the step's "Preflight…" goes with it
    assert s.error == "Submit: Preflight failed: no Worker; no Ray member Fix: Apply"
    s.set_language("zh")
    assert s.error == "提交出错：预检未通过：无 Worker；无 Ray 成员 修复：应用"
    assert s.status == ""


def test_language_comes_from_rlark_lang_and_unknown_falls_back(monkeypatch) -> None:
    monkeypatch.setenv("RLARK_LANG", "zh_CN.UTF-8")
    s = Session(workspace=Path("/nonexistent-workspace"))
    assert s.lang == "zh"
    s.set_language("fr")
    assert s.lang == "en"


def test_monitor_summary_hint_and_charts_in_chinese(app: App) -> None:
    s, monitor = app.session, app.steps[5]
    assert "Submit is disabled:" in monitor.status.value
    workers = [WorkerSnapshot("header", 0, 0, "h", "Running")] + [
        WorkerSnapshot("franka", i, i + 1, f"f{i}", "Pending") for i in range(2)
    ]
    members = [RayMember("0", "10.0.0.1", "ALIVE", True, 0)]
    snap = JobSnapshot("job", "local", 100.0, expected_workers=3, workers=workers, members=members)
    s.history, s.diagnosis, s.submitted_at = [HistoryPoint.of(snap)], diagnose(snap), 90.0
    s.snapshot = snap
    s.set_language("zh")
    assert "提交已禁用" in monitor.status.value and "Ray 成员" in monitor.summary.value
    titles = [f.widget.layout.title.text for f in (monitor.members, monitor.workers)]
    assert titles == ["Ray 成员：存活与预期", "各角色的 Worker"]
    assert monitor.checkpoints.widget.layout.title.text == "Checkpoint 进度"
    assert [t.name for t in monitor.members.widget.data] == ["预期（num_nodes）", "存活"]
