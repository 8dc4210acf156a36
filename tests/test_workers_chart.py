"""The Workers chart (#24 item 18): every state drawn has its legend entry, and a Job with no
Worker left (deleted) draws no empty -1..4 axes."""

from __future__ import annotations

from rlark_widgets.monitor.history import HistoryPoint
from rlark_widgets.viz.monitor_charts import worker_status_figure


def point(time: float, *phases: tuple[str, str, int]) -> HistoryPoint:
    return HistoryPoint(time, 2, 0, tuple(phases))


def test_a_state_only_the_second_role_reached_has_its_legend_entry() -> None:
    history = [
        point(0.0, ("header", "Running", 1), ("workers", "Running", 1)),
        point(5.0, ("header", "Running", 1), ("workers", "Failed", 1)),
    ]
    figure = worker_status_figure(history)
    legend = [(t.name, t.showlegend) for t in figure.data if t.showlegend]
    assert legend == [("Running", True), ("Failed", True)]
    assert figure.layout.showlegend is True
    zh = worker_status_figure(history, "zh")
    assert [t.name for t in zh.data if t.showlegend] == ["运行中", "已失败"]


def test_one_state_alone_still_has_a_legend() -> None:
    figure = worker_status_figure([point(0.0, ("workers", "Failed", 1))])
    assert [t.name for t in figure.data] == ["Failed"] and figure.layout.showlegend is True


def test_the_count_axis_starts_at_zero_with_whole_steps() -> None:
    figure = worker_status_figure([point(0.0, ("workers", "Running", 3))])
    assert figure.layout.yaxis.rangemode == "tozero" and figure.layout.yaxis.dtick == 1


def test_no_worker_left_draws_no_axes() -> None:
    for history in ([], [point(0.0), point(5.0)]):  # never any, or a deleted Job's refreshes
        figure = worker_status_figure(history)
        assert figure.data == ()
        assert figure.layout.title.text == "Workers per role: no Worker"
        assert figure.layout.xaxis.visible is False and figure.layout.yaxis.visible is False
