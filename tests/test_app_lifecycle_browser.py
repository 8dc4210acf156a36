"""The app's state lifecycle in a real browser (Chromium, real Voila).

Journeys without Ray: a per-node GPU map typed for one config is cleared, with a note, when
another is loaded; a renamed role's explanation follows; Stop and Delete stay disabled (and look
it) until a Job is submitted; the Import summary names its file.
The whole Ray journey (run, stop, run again) is a Session test (tests/test_app_lifecycle.py);
figure sizes at 1,280 and 1,920 px are tests/test_app_layout_browser.py's.
"""

from __future__ import annotations

import re

import pytest
from test_app_browser import shot, tab, voila_url, workspace  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_app(page, url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1400})
    page.set_default_timeout(60_000)
    page.goto(url, timeout=180_000)
    page.wait_for_selector(".widget-tab", timeout=180_000)


def test_a_gpu_map_then_another_config_clears_it_with_a_note(page, voila_url: str) -> None:  # noqa: F811
    open_app(page, voila_url, 1280)
    tab(page, "2 Cluster")
    box = page.get_by_placeholder("0:8,1:4 (overrides the slider)")
    box.fill("0:2,1:2")
    page.get_by_role("button", name="Apply").click()
    tab(page, "1 Import")
    page.locator(".widget-dropdown select").first.select_option("maniskill_ppo_openvlaoft")
    page.get_by_role("button", name="Load example").click()
    page.get_by_text("The per-node GPU map (0:2,1:2) was typed for the previous config").wait_for()
    tab(page, "2 Cluster")
    assert page.get_by_placeholder("0:8,1:4 (overrides the slider)").input_value() == ""
    shot(page, "gpu-map-cleared")


def test_a_renamed_role_is_explained_under_its_new_name(page, voila_url: str) -> None:  # noqa: F811
    open_app(page, voila_url, 1280)
    tab(page, "4 Roles")
    name = page.locator(".widget-text:has(label:text('name')) input").nth(1)
    old = name.input_value()
    name.fill("learners")
    name.press("Enter")
    page.locator("li:has(b:text-is('learners'))").first.wait_for()
    assert page.locator(f"li:has(b:text-is('{old}'))").count() == 0
    shot(page, "why-renamed")


#: A button's look: its computed opacity and cursor.
LOOK = "b => [Number(getComputedStyle(b).opacity), getComputedStyle(b).cursor]"


def test_stop_and_delete_wait_for_a_job(page, voila_url: str) -> None:  # noqa: F811
    """...and look disabled (#24 item 18: the coloured Stop and Delete looked clickable)."""
    open_app(page, voila_url, 1280)
    tab(page, "6 Submit & monitor")
    for label in ("Stop", "Delete", "Refresh"):
        button = page.get_by_role("button", name=label).first
        assert button.is_disabled()
        opacity, cursor = button.evaluate(LOOK)
        assert opacity <= 0.5 and cursor == "not-allowed", (label, opacity, cursor)
    opacity, cursor = page.get_by_role("button", name="List runs").first.evaluate(LOOK)
    assert opacity == 1 and cursor != "not-allowed"


def test_the_summary_names_the_imported_file(page, voila_url: str) -> None:  # noqa: F811
    """#24 item 18: the Import summary says which file it describes, in both languages."""
    open_app(page, voila_url, 1280)
    tab(page, "1 Import")
    page.locator(".widget-dropdown select").first.select_option("maniskill_ppo_openvlaoft")
    page.get_by_role("button", name="Load example").click()
    page.get_by_text("Imported: the bundled example maniskill_ppo_openvlaoft.yaml").wait_for()
    page.get_by_role("button", name="中文").click()
    page.get_by_text("已导入：自带示例 maniskill_ppo_openvlaoft.yaml").wait_for()


EXAMPLE = "local_rehearsal_2node"
OVERRIDES_32 = "\n".join(
    [
        "cluster.num_nodes=32",
        "cluster.component_placement.actor=all",
        "cluster.component_placement.rollout=all",
        "cluster.component_placement.env=all",
    ]
)
ENABLED = (
    "name => [...document.querySelectorAll('button')].some("
    "b => b.textContent.trim() === name && !b.disabled && b.offsetParent !== null)"
)


def click_when_enabled(page, name: str) -> None:
    page.wait_for_function(f"({ENABLED})({name!r})", timeout=300_000)
    page.locator("button:visible", has_text=name).first.click()


def test_a_second_run_then_delete_then_a_32_node_config(page, voila_url: str) -> None:  # noqa: F811
    """Run to a checkpoint, Stop, Resume from global_step_2 (it starts at step 3 and writes
    global_step_4), Stop, Submit again, Stop, Refresh: no OK banner, no old checkpoint, charts
    from 0; Delete (confirmed): nothing of the Job shown or listed; a 32-node config: no
    status overlay on its rows."""
    open_app(page, voila_url, 1280)
    page.set_default_timeout(120_000)
    page.locator(".widget-dropdown select").first.select_option(EXAMPLE)
    page.get_by_role("button", name="Load example").click()
    page.get_by_text(f"{EXAMPLE} — task type embodied, 2 Ray node(s)").wait_for()
    tab(page, "2 Cluster")
    page.get_by_placeholder("0:8,1:4 (overrides the slider)").fill("0:2,1:2")
    page.get_by_role("button", name="Apply").click()
    tab(page, "5 Job")
    # Outputs on a persistent mount: a resume refuses a checkpoint under no mount.
    for placeholder, value in (
        ("object storage for outputs", "oss-rlinf"),
        ("/mnt/output", "/mnt/output"),
    ):
        box = page.get_by_placeholder(placeholder, exact=True)
        box.fill(value)
        box.press("Enter")
    page.wait_for_timeout(2_000)  # the findings re-render with the mount
    boxes = page.get_by_label("I understand")
    for index in range(boxes.count()):
        boxes.nth(index).check()
    tab(page, "6 Submit & monitor")
    click_when_enabled(page, "Submit")
    page.get_by_text("Latest checkpoint: global_step_").wait_for(timeout=300_000)
    click_when_enabled(page, "Stop")
    page.get_by_text("Stopped Job").first.wait_for()

    # Resume from the first checkpoint: the new run starts at the step after it, writes its own.
    picker = page.locator(".widget-dropdown:has(label:text('Resume from')) select")
    picker.locator("option", has_text="global_step_2").wait_for(state="attached")
    picker.select_option("global_step_2")
    click_when_enabled(page, "Resume")
    page.get_by_text("Resuming Job ").first.wait_for(timeout=120_000)
    page.get_by_text("appended to the RLinf launch line").first.wait_for()
    page.get_by_text("Resumed from global_step_2: this run starts at step 3.").wait_for(
        timeout=300_000
    )
    # The resumed run's own first checkpoint is global_step_4; on a loaded machine the app's
    # refresh can come after the next one (global_step_6), so any step past the resume point.
    page.get_by_text(re.compile(r"Latest checkpoint: global_step_(?:[4-9]|\d{2,})\b")).wait_for(
        timeout=300_000
    )
    assert picker.input_value() == "global_step_2"  # the choice is kept
    shot(page, "resumed-run")
    click_when_enabled(page, "Stop")
    page.get_by_text("Stopped Job").first.wait_for()

    click_when_enabled(page, "Submit")
    page.get_by_text("Submitted: ").first.wait_for(timeout=120_000)
    page.wait_for_timeout(5_000)
    click_when_enabled(page, "Stop")
    page.get_by_text("Stopped Job").first.wait_for()
    click_when_enabled(page, "Refresh")
    page.get_by_text("The rehearsal was stopped, no checkpoint.").first.wait_for()
    page.get_by_text("Previous run's checkpoints (not this run's): global_step_").wait_for()
    assert page.locator(".banner.good").count() == 0  # no OK banner
    assert page.get_by_text("Latest checkpoint: global_step_").count() == 0
    assert page.get_by_text("Succeeded)").count() == 0  # no Worker counted as Succeeded
    xs = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].flatMap("
        "p => p.data.flatMap(t => Array.from(t.x || [])))"
    )
    assert all(x >= 0 for x in xs if isinstance(x, int | float))  # charts start at this run
    shot(page, "second-run-stopped")

    click_when_enabled(page, "Delete")
    page.get_by_text("This cannot be undone.").wait_for()
    assert page.get_by_text("the logs, outputs and checkpoints of every run").count() == 1
    page.locator("button:visible", has_text="Delete").last.click()  # the confirmation
    page.get_by_text("Deleted Job").first.wait_for()
    # #24 item 18: the deleted Job is not watched (no warning banner, no chart of it) and is
    # not in the Runs list
    page.wait_for_timeout(8_000)  # a monitor refresh would have come by now
    assert page.get_by_text("The Job does not exist.").count() == 0
    assert page.locator(".js-plotly-plot:visible").count() == 0
    page.get_by_role("button", name="List runs").click()
    page.wait_for_timeout(3_000)
    runs = page.locator(".widget-select select").first
    assert runs.locator("option").count() == 0

    tab(page, "1 Import")
    page.locator(".widget-dropdown select").first.select_option("maniskill_ppo_openvlaoft")
    page.get_by_placeholder("cluster.num_nodes=2 (one per line)").fill(OVERRIDES_32)
    page.get_by_role("button", name="Load example").click()
    page.get_by_text("maniskill_ppo_openvlaoft — task type embodied, 32 Ray node(s)").wait_for()
    tab(page, "3 Topology")
    page.wait_for_function(
        "() => { const p = document.querySelector('.js-plotly-plot');"
        " return p && p.data && p.data[0].y.length === 32; }",
        timeout=180_000,
    )
    rows = page.evaluate("() => document.querySelector('.js-plotly-plot').data[0].y")
    assert rows[0] == "rank 0 · header" and not any("Ray" in r or "Worker" in r for r in rows)
    shot(page, "after-delete-32-nodes")
