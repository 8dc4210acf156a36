"""The app's speed: one edit re-rendered in the kernel, the big topology figure, and Voila's
time to the first interactive widget against a bare one-button notebook (the floor).

Run: ``.venv/bin/python benchmarks/bench_app.py`` (needs /usr/bin/chromium for the Voila part).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from common import REPO, Result, best_time, print_table  # noqa: E402
from servers import app_url, voila_command  # noqa: E402  (the page `make app` serves: no CDN links)

from rlark_widgets.rlark.yaml_io import dump_yaml  # noqa: E402
from rlark_widgets.rlinf import expand_placement, parse_cluster  # noqa: E402
from rlark_widgets.ui.session import Session  # noqa: E402
from rlark_widgets.viz.topology import node_rows, topology_figure  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def edit_rerender_seconds() -> float:
    """A 32-node x 8-GPU config: one role edit re-plans nothing but rebuilds Job, findings, YAML, figure."""
    text = dump_yaml(
        {
            "cluster": {
                "num_nodes": 32,
                "component_placement": {"actor": "all", "rollout": "0-127", "env": "128-255:0-511"},
            },
            "runner": {"task_type": "embodied"},
        }
    )
    session = Session()
    session.load_upload("synthetic-32.yaml", text.encode())
    gpus = iter(range(1000))

    def edit():
        session.update_role(1, gpus=8 + next(gpus) % 2)
        rows = node_rows(
            session.report.expansion, [(r.name, r.replicas) for r in session.job.roles]
        )
        topology_figure(rows)

    return best_time(edit, rounds=5)[0]


def big_topology() -> tuple[float, int]:
    expansion = expand_placement(
        parse_cluster(
            {
                "num_nodes": 256,
                "component_placement": {
                    "actor": "all",
                    "rollout": "0-1023",
                    "env": "0-1023:0-2047",
                },
            }
        ),
        8,
    )
    rows = node_rows(expansion, [("header", 1), ("workers", 255)])
    build = best_time(lambda: topology_figure(rows), rounds=5)[0]
    return build, len(topology_figure(rows).to_json())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def time_to_interactive(notebook: Path, selector: str) -> float:
    """Seconds from starting Voila to the notebook's first widget in Chromium."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    start = time.monotonic()
    argv, env = voila_command(notebook, port)
    server = subprocess.Popen(
        argv,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page()
            while True:
                try:
                    page.goto(app_url(port, env), timeout=120_000)
                    break
                except Exception:
                    if time.monotonic() - start > 120:
                        raise
                    time.sleep(0.2)
            page.wait_for_selector(selector, timeout=180_000)
            elapsed = time.monotonic() - start
            browser.close()
            return elapsed
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def run() -> list[Result]:
    build, size = big_topology()
    results = [
        Result(
            "re-render after one role edit, 32 nodes x 8 GPUs (kernel)",
            edit_rerender_seconds() * 1000,
            "ms",
            300.0,
            "Job, rules, YAML and topology figure",
        ),
        Result(
            "topology figure, 256 nodes x 8 GPUs: build",
            build * 1000,
            "ms",
            500.0,
            "aggregated by role",
        ),
        Result("topology figure, 256 nodes x 8 GPUs: serialised", size / 1e6, "MB", 2.0),
    ]
    if CHROMIUM.exists():
        rounds = int(os.environ.get("RLARK_BENCH_ROUNDS", "2"))
        bare = min(
            time_to_interactive(REPO / "benchmarks/bare.ipynb", ".widget-button")
            for _ in range(rounds)
        )
        app = min(
            time_to_interactive(REPO / "notebooks/app.ipynb", ".widget-tab") for _ in range(rounds)
        )
        results.append(
            Result(
                "Voila time to first widget: app / bare notebook",
                app / bare,
                "x",
                1.5,
                f"app {app:.1f} s, bare {bare:.1f} s, best of {rounds}",
            )
        )
    return results


if __name__ == "__main__":
    print_table("App benchmark", run())
