"""The zh output says what a Chinese researcher expects where the English is one word for two
things (issue #24 item 17): a filter is not a count, a commit is not a "提交", and a terminal
has nothing to click."""

from __future__ import annotations

from pathlib import Path

from rlark_widgets.i18n import Text
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session


def test_the_log_search_filter_is_named_as_a_filter_not_a_count(tmp_path: Path) -> None:
    session = Session(workspace=tmp_path)
    app = App(session)
    session.lang = "zh"
    assert app.steps[5].all_logs.workers.description == "搜索范围（Worker）"
    assert Text("Workers").render("zh") == "Worker 数"  # the role's count keeps its word


def test_labels_and_advice_read_right_in_chinese() -> None:
    assert Text("CRITICAL").render("zh") == "仅 CRITICAL"
    assert Text("RLinf commit").render("zh") == "RLinf commit（版本号）"
    finished = Text(
        "The Job finished, {checkpoint}; Stop releases its {count} Workers.",
        checkpoint=Text("no checkpoint"),
        count=2,
    ).render("zh")
    assert "点击" not in finished and "停止（Stop）该 Job" in finished
