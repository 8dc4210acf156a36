"""Log levels read from the headers Ray, RLinf, vLLM and Python's logging write (issue #18: filter
Worker logs by level), never from a word in the message; tracebacks keep their record's level."""

from __future__ import annotations

from rlark_widgets.monitor.log_levels import at_level, header_level, line_levels
from rlark_widgets.monitor.log_search import search

ACTOR = "(MegatronActor pid=4242, ip=10.0.0.2) "
LOG = [
    "2026-12-01 10:00:00,123\tINFO worker.py:1724 -- Connecting to existing Ray cluster at address: 127.0.0.2:6379...",
    "[2026-12-01 10:00:01,456 W 4242 4242] (raylet) node_manager.cc:1030: Memory usage is 93%",
    "INFO 12-01 10:00:03 [engine.py:42] Initializing a V1 LLM engine (v0.8.5) with config: ...",
    "W1201 10:00:04.123456  4242 tcp_store.cpp:12] [c10d] TCPStore connect retry",
    "/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:61: FutureWarning: The pynvml package is deprecated.",
    "  import pynvml  # type: ignore[import]",
    "[2026-12-01 10:00:05,000][INFO] global_step 3: 0 ERROR(s) in validation, reward 0.42",
    f"{ACTOR}[2026-12-01 10:00:06,000][ERROR] rollout step 4 failed",
    f"{ACTOR}Traceback (most recent call last):",
    f'{ACTOR}  File "/workspace/RLinf/rlinf/workers/actor/megatron_actor_worker.py", line 412, in run_training',
    f"{ACTOR}    loss = self.step(batch)",
    f"{ACTOR}RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled system error",
    "placement verified: 20 processes on 2 nodes as planned",
    "INFO:root:saving checkpoint global_step_4",
    "2026-12-01 10:00:07 | WARNING | rlinf.runner | retrying the weight sync",
    "weight sync done",
    "Traceback (most recent call last):",
    '  File "/workspace/RLinf/examples/embodiment/train_embodied_agent.py", line 40, in main',
    "ValueError: cluster.num_nodes is 2 but 1 node joined",
    "the run script exited with code 1",
]
EXPECTED = [
    "INFO",
    "WARNING",  # Ray's C++ one-letter level
    "INFO",
    "WARNING",  # glog
    "WARNING",  # a Python warning ...
    "WARNING",  # ... and its indented source line
    "INFO",  # "ERROR(s)" in the message is no level
    "ERROR",
    "ERROR",  # the logged exception's traceback keeps its record's level
    "ERROR",
    "ERROR",
    "ERROR",
    None,
    "INFO",
    "WARNING",
    None,  # a plain line ends the record
    "ERROR",  # an uncaught exception: its traceback follows no WARNING-or-worse record
    "ERROR",
    "ERROR",
    None,
]


def test_each_format_gives_its_level_and_tracebacks_continue_their_record():
    levels = line_levels(LOG)
    assert list(zip(LOG, levels, strict=True)) == list(zip(LOG, EXPECTED, strict=True))


def test_a_traceback_keeps_a_warning_records_level_and_is_error_on_its_own():
    logged = [
        "[2026-12-01 10:00:08,000][WARNING] reward model slow, retrying",
        "Traceback (most recent call last):",
        '  File "x.py", line 1, in <module>',
        "TimeoutError: 30 s",
    ]
    assert line_levels(logged) == ["WARNING"] * 4
    uncaught = [
        "INFO step 1",
        "Traceback (most recent call last):",
        '  File "x.py"',
        "KeyError: 'a'",
    ]
    assert line_levels(uncaught) == ["INFO", "ERROR", "ERROR", "ERROR"]
    assert line_levels(["  indented, no record above"]) == [None]


def test_a_level_word_inside_a_message_is_no_header():
    assert header_level("checked 3 files, 0 ERROR found") is None
    assert header_level("[INFO] ERROR budget left: 5") == "INFO"
    assert header_level("FATAL actor died") == "CRITICAL"
    assert header_level("WARN disk almost full") == "WARNING"
    assert (
        header_level("[2026-12-01 10:00:00,001 E 77 77] (gcs_server) gcs_server.cc:1: x") == "ERROR"
    )
    assert header_level("(raylet) [2026-12-01 10:00:00,001 I 77 77] raylet started") == "INFO"


def test_filtering_by_level_keeps_whole_records_for_the_cli_and_the_app():
    text = "\n".join(LOG)
    errors = at_level(text, "ERROR").splitlines()
    assert errors == [LOG[i] for i in (7, 8, 9, 10, 11, 16, 17, 18)]
    assert at_level("INFO a\nINFO b", "ERROR") == ""
    found = search({"actor/0": text}, "nccl", level="ERROR")  # the app's log panel filter
    assert [(f.number, f.level) for f in found] == [(12, "ERROR")]
    assert [f.number for f in search({"actor/0": text}, "", level="WARNING")] == [
        2,
        4,
        5,
        6,
        8,
        9,
        10,
        11,
        12,
        15,
        17,
        18,
        19,
    ]


def test_cli_logs_level_prints_a_workers_lines_at_that_level(kube, tmp_path, capsys):
    from test_cli_jobs import cli, write_kubeconfig
    from test_kubernetes_backend import NAMESPACE, running

    running(kube)
    kube.emulator.logs["demo-actor-0"] = "\x1b[36m" + "\n".join(LOG) + "\x1b[0m\n"
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    argv = ["--backend", "kubernetes", "--kubeconfig", str(config), "--worker", "actor/0"]
    code, out, _ = cli(capsys, "logs", "demo", *argv, "--level", "ERROR")
    assert code == 0 and out.splitlines() == [LOG[i] for i in (7, 8, 9, 10, 11, 16, 17, 18)]
    code, out, _ = cli(capsys, "logs", "demo", *argv, "--level", "CRITICAL")
    assert code == 0 and out == ""


def test_ray_cpp_letters_include_spdlogs_critical_and_trace():
    assert header_level("[2026-12-01 10:00:00,001 C 77 77] (raylet) check failed") == "CRITICAL"
    assert header_level("[2026-12-01 10:00:00,001 T 77 77] (raylet) tick") == "DEBUG"
    assert header_level("F1201 10:00:04.123456  4242 logging.cc:1] Check failed") == "CRITICAL"
