"""The journey of issue #24 in a real browser (Chromium, real Voila, the local backend, real Ray):
two configs, two Jobs, submit, stop, resubmit, another config, attach, switch language, reload.
At each stop every panel shows only the current config's and the current run's data.
"""

from __future__ import annotations

import re

import pytest
from test_app_browser import shot, tab, voila_url, workspace  # noqa: F401 (fixtures)
from test_app_lifecycle_browser import click_when_enabled, open_app

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIRST, SECOND = "local_rehearsal_2node", "realworld_peginsertion_rlpd_cnn_async_2arms"
JOB = "journey-a"


def monitor_text(page) -> str:
    """Everything the Submit & monitor step shows (its tab panel)."""
    return page.locator(".widget-tab-contents, .lm-TabPanel-stackedPanel").last.inner_text()


def load(page, example: str, nodes: int) -> None:
    tab(page, "1 Import")
    page.locator(".widget-dropdown select").first.select_option(example)
    page.get_by_role("button", name="Load example").click()
    page.get_by_text(f"{example} — task type embodied, {nodes} Ray node(s)").wait_for()


def acknowledge(page) -> None:
    tab(page, "5 Job")
    boxes = page.get_by_label("I understand")
    for index in range(boxes.count()):
        boxes.nth(index).check()


def test_two_configs_two_jobs_submit_stop_resubmit_attach_language_reload(
    page,
    voila_url: str,  # noqa: F811
) -> None:
    open_app(page, voila_url, 1280)
    page.set_default_timeout(120_000)
    load(page, FIRST, 2)
    tab(page, "2 Cluster")
    page.get_by_placeholder("0:8,1:4 (overrides the slider)").fill("0:2,1:2")
    page.get_by_role("button", name="Apply").click()
    tab(page, "5 Job")
    name = page.get_by_placeholder("from the config name", exact=True)
    name.fill(JOB)
    name.press("Enter")
    page.wait_for_timeout(1_500)
    acknowledge(page)

    # Submit, Stop (its feedback at once), Submit again: a new run, no events of the first.
    tab(page, "6 Submit & monitor")
    click_when_enabled(page, "Submit")
    page.get_by_text(f"Submitted: {JOB}.").first.wait_for(timeout=180_000)
    page.get_by_text("Ray members").first.wait_for(timeout=180_000)
    click_when_enabled(page, "Stop")
    page.get_by_text(f"Stopping Job '{JOB}'…").first.wait_for(timeout=5_000)
    page.get_by_text("Stopped Job").first.wait_for(timeout=120_000)
    click_when_enabled(page, "Submit")
    page.get_by_text(f"Submitted: {JOB}.").first.wait_for(timeout=180_000)
    click_when_enabled(page, "Stop")
    page.get_by_text("Stopped Job").first.wait_for(timeout=120_000)
    shot(page, "journey-1-resubmitted-and-stopped")

    # Another config: its Job name is its own, nothing of the first Job's run is shown.
    load(page, SECOND, 3)
    page.get_by_text(f"The Job name '{JOB}' was typed for the previous config").wait_for()
    tab(page, "5 Job")
    assert page.get_by_placeholder("from the config name", exact=True).input_value() == ""
    tab(page, "6 Submit & monitor")
    shown = monitor_text(page)
    assert JOB not in shown and "Ray members" not in shown and "Continue elsewhere" not in shown
    assert page.locator(".js-plotly-plot:visible").count() == 0  # no curves, no Worker chart
    for label in ("Stop", "Delete", "Refresh"):
        assert page.get_by_role("button", name=label).first.is_disabled()

    # Watch the first config's Job: its own roles, never drawn on this config's Topology.
    page.get_by_role("button", name="List runs").click()
    runs = page.locator(".widget-select select").first
    option = runs.locator("option", has_text=JOB).first
    option.wait_for(state="attached")
    runs.select_option(value=option.get_attribute("value"))
    page.get_by_role("button", name="Watch this run").click()
    page.get_by_text(f"Watching {JOB}.").first.wait_for()
    page.get_by_text(re.compile(r"workers: \d+/1 Workers")).first.wait_for(timeout=60_000)
    assert "franka: " not in monitor_text(page)  # no count of this config's roles
    tab(page, "3 Topology")
    page.wait_for_function(
        "() => { const p = document.querySelector('.js-plotly-plot');"
        " return p && p.data && p.data[0].y.length === 3; }",
        timeout=120_000,
    )
    rows = page.evaluate("() => document.querySelector('.js-plotly-plot').data[0].y")
    assert not any("Ray" in r or "Worker" in r for r in rows), rows
    shot(page, "journey-2-attached-from-another-config")

    # Switch language: the watched run's texts re-render; nothing else comes back.
    page.get_by_role("button", name="中文").click()
    tab(page, "6 提交与监控")
    page.get_by_text(f"正在监控 {JOB}。").first.wait_for()
    assert "franka" not in monitor_text(page)
    shot(page, "journey-3-zh")

    # Reload: a new kernel watches nothing until told; the Job is listed, not shown as current.
    page.reload()
    page.wait_for_selector(".widget-tab", timeout=180_000)
    tab(page, "6 Submit & monitor")
    assert JOB not in monitor_text(page)
    assert page.locator(".js-plotly-plot:visible").count() == 0
    page.get_by_role("button", name="List runs").click()
    page.locator(".widget-select select").first.locator("option", has_text=JOB).first.wait_for(
        state="attached"
    )
    shot(page, "journey-4-reloaded")
