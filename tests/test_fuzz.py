"""Fuzz tests (issues #8 and #15, "Bad input"): random and mutated input never ends in a
traceback, and what the user wrote is what is submitted.

Seven targets, each fed through the entry points a user reaches:

1. ``cluster-yaml``: config documents (real configs mutated as data or damaged as text, and
   random shapes under ``cluster:``) through ``load_text`` -> ``inspect_config`` ->
   ``expand_placement``;
2. ``placement``: placement strings and rank lists through the grammar and ``parse_cluster`` ->
   ``expand_placement``;
3. ``job-check``: Job YAML (the golden Jobs mutated, random documents, and Jobs using every
   field the schema allows, with unknown fields, sshKeys, labels and claim names) through
   ``rlark-migrate check``;
4. ``inventory``: inventory files through ``load_inventory`` and the rules that read them;
5. ``job-secrets``: a token planted in any key or value of such a Job (or a new label, sshKey
   or unknown field) is found by ``check`` and echoed by none of its output, in either
   language or as JSON;
6. ``job-roundtrip`` (differential): a Job that ``check`` passes is submitted to the
   Kubernetes emulator, and the object it stores equals the Job as written, byte for byte in
   the normal form of ``rlark_widgets.rlark.written.normal_text``;
7. ``argv`` (issue #23, class 6): generated command lines for every subcommand and option, read
   from the parser itself, with paths that are directories, FIFOs, missing, empty or garbage
   (unreadable too, unless the tests run as root, whom file modes do not bind) and numbers that
   are NaN, infinite, negative or huge: exit code 0-3, no traceback, no run over ``RUN_LIMIT``.

Every failure must be a typed error or a finding with a message and the path it concerns.
``HYPOTHESIS_PROFILE=fuzz`` (``make fuzz``) runs 10,000 examples per target; the counts are
printed at the end of the run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from fuzz_strategies import (
    GOLDEN_JOBS,
    PLANTED_TOKEN,
    all_job_documents,
    config_documents,
    differential_job_documents,
    inventory_documents,
    placement_texts,
    planted,
    rank_lists,
    schema_jobs,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from kube_emulator import NAMESPACE
from test_cli_jobs import write_kubeconfig
from test_job_roundtrip import stored

from rlark_widgets.cli import build_parser, main
from rlark_widgets.cli.numbers import NumberType
from rlark_widgets.examples import example_configs, example_inventories
from rlark_widgets.findings import Finding, Severity
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.inventory import InventoryError, load_inventory
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlark.written import normal_text
from rlark_widgets.rlark.yaml_io import parse_job_yaml
from rlark_widgets.rlinf import (
    ClusterConfigError,
    ConfigLoadError,
    PlacementError,
    RLinfConfigError,
    expand_placement,
    inspect_config,
    load_text,
    parse_cluster,
)
from rlark_widgets.rlinf.expansion import PLACEMENT_CLASS_BY_TASK
from rlark_widgets.rlinf.grammar import GrammarError, parse_rank_map
from rlark_widgets.rlinf.ranks import RankRangeError, RankSyntaxError, parse_rank_config

COUNTS: Counter[str] = Counter()
OUTCOMES: dict[str, Counter[str]] = defaultdict(Counter)
FUZZ = settings(
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
TASK_TYPES = [*PLACEMENT_CLASS_BY_TASK, None, "unknown"]


class CountReport:
    """Prints how many examples each target ran (Hypothesis may stop early; say so)."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        wanted = settings().max_examples
        terminalreporter.section("fuzz targets")
        for target, test in TARGETS.items():
            count = COUNTS[target]
            if not count:
                continue
            explicit = len(getattr(test, "hypothesis_explicit_examples", ()))
            outcomes = ", ".join(f"{n:,} {k}" for k, n in OUTCOMES[target].most_common())
            line = (
                f"fuzz target {target}: {count:,} examples "
                f"({count - explicit:,} generated + {explicit} regression; {outcomes})"
            )
            if count - explicit < wanted:
                line += (
                    f"; fewer than max_examples={wanted:,}: Hypothesis stopped early "
                    "(search space exhausted, or a failure reported above)"
                )
            terminalreporter.write_line(line)


@pytest.fixture(scope="module", autouse=True)
def count_report(request: pytest.FixtureRequest) -> None:
    manager = request.config.pluginmanager
    if not manager.has_plugin("fuzz-counts"):
        manager.register(CountReport(), "fuzz-counts")


@pytest.fixture(scope="module")
def work_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def ran(target: str, outcome: str) -> None:
    COUNTS[target] += 1
    OUTCOMES[target][outcome] += 1


# --- what every failure must carry ---------------------------------------------------------------
def check_finding(finding: Finding) -> None:
    assert isinstance(finding, Finding)
    assert finding.rule_id and isinstance(finding.severity, Severity)
    assert finding.path, f"{finding.rule_id} has no path: {finding.message}"
    assert finding.message.strip(), finding


def check_error(error: RLinfConfigError, path_prefix: str | tuple[str, ...] = "") -> None:
    assert error.message.strip() and error.path, repr(error)
    assert error.path.startswith(path_prefix), (error.path, path_prefix)
    check_finding(error.to_finding())


# --- 1. config documents under `cluster:` --------------------------------------------------------
gpu_layouts = st.one_of(
    st.integers(0, 8),
    st.dictionaries(st.integers(0, 4), st.integers(0, 8), min_size=1, max_size=4),
)


#: Where a placement error may point: the placement, the task type RLinf refuses, the parallel
#: size it was computed with, or a section RLinf reads that the config lacks.
PLACEMENT_PATH = re.compile(
    r"cluster\.component_placement|runner\.task_type$|.*_parallel_size$"
    r"|((actor_|critic_)?inference|actor|critic|rollout)(\.model)?$|algorithm(\.recompute_logprobs)?$"
)
#: Fuzzing found these; each once ended in an exception or a memory blow-up.
HUGE_CLUSTER = "cluster:\n  num_nodes: 1000000000000\n  component_placement: {actor: all}\n"
BAD_PARALLEL_SIZE = (
    "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\n"
    "runner: {task_type: reasoning}\n"
    "actor: {model: {tensor_model_parallel_size: [2]}}\n"
)


def check_placement_error(error: RLinfConfigError) -> None:
    assert isinstance(error, PlacementError), repr(error)
    assert PLACEMENT_PATH.match(error.path), error.path
    check_error(error)


@FUZZ
@given(text=config_documents, gpus=gpu_layouts, task_type=st.sampled_from(TASK_TYPES))
@example(text=HUGE_CLUSTER, gpus=8, task_type="embodied")
@example(text="cluster: null\nrunner:\n  task_type: false\n", gpus=0, task_type="embodied")
@example(text=BAD_PARALLEL_SIZE, gpus=8, task_type="reasoning")
@example(text=BAD_PARALLEL_SIZE.replace("[2]", "'F2'"), gpus=8, task_type="reasoning")
@example(text=BAD_PARALLEL_SIZE.replace("[2]", "-2"), gpus=8, task_type="reasoning")
def test_config_documents_give_typed_errors_or_findings(
    text: str, gpus: Any, task_type: str | None
) -> None:
    try:
        config = load_text(text)
    except ConfigLoadError as error:
        check_error(error)
        return ran("cluster-yaml", "unreadable")
    report = inspect_config(config, gpus, search_gpus=False)
    for finding in report.findings:
        check_finding(finding)
    json.dumps(report.to_json())  # what `inspect --json` prints
    if report.cluster is None:
        # RLinf's validate_cfg refuses an unknown runner.task_type before it reads the cluster.
        check_error(report.expansion.error, ("cluster", "runner.task_type"))
        return ran("cluster-yaml", "cluster rejected")
    expansion = expand_placement(report.cluster, gpus, task_type=task_type, lookup=config.get)
    if expansion.error is not None:
        check_placement_error(expansion.error)
    ran("cluster-yaml", "placement rejected" if expansion.error else "expanded")


# --- 2. placement strings and rank lists ---------------------------------------------------------
@st.composite
def placement_clusters(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A valid cluster whose one placement (and maybe one node group's ranks) is fuzzed."""
    num_nodes = draw(st.integers(1, 4))
    placement = draw(placement_texts())
    groups = [{"label": "gpu", "node_ranks": f"0-{num_nodes - 1}"}]
    if num_nodes > 1:
        groups.append(
            {
                "label": "arm",
                "node_ranks": f"1-{num_nodes - 1}",
                "hardware": {"type": "Franka", "configs": [{"node_rank": num_nodes - 1}]},
            }
        )
    if draw(st.integers(0, 3)) == 0:
        groups[0]["node_ranks"] = draw(rank_lists())
    group = draw(st.sampled_from([None, "gpu", "arm", "node", "cluster", "gpu,arm"]))
    spec: Any = placement if group is None else {"node_group": group, "placement": placement}
    cluster = {
        "num_nodes": num_nodes,
        "component_placement": {"actor": spec},
        "node_groups": groups,
    }
    return cluster, placement


@FUZZ
@given(
    case=placement_clusters(),
    gpus=gpu_layouts,
    task_type=st.sampled_from(TASK_TYPES),
    total=st.integers(0, 24),
)
@example(  # found by fuzzing: the process list was built (memory blow-up) before any check
    case=(
        {"num_nodes": 1, "component_placement": {"actor": "0:0-1000000000000"}},
        "0:0-1000000000000",
    ),
    gpus=8,
    task_type="embodied",
    total=8,
)
def test_placement_strings_give_typed_errors_with_paths(
    case: tuple[dict[str, Any], str], gpus: Any, task_type: str | None, total: int
) -> None:
    mapping, placement = case
    for ranks_text in placement.split(":"):  # each side is a rank list
        for available in (None, range(total)):
            with contextlib.suppress(RankSyntaxError, RankRangeError):
                ranks = parse_rank_config(ranks_text, available, "process")
                assert ranks == sorted(set(ranks))
    with contextlib.suppress(GrammarError):
        parse_rank_map(placement, total, "Accelerator")
    try:
        spec = parse_cluster(mapping)
    except ClusterConfigError as error:
        check_error(error, "cluster.node_groups[0].node_ranks")
        return ran("placement", "node_ranks rejected")
    expansion = expand_placement(spec, gpus, task_type=task_type)
    if expansion.error is None:
        return ran("placement", "expanded")
    check_placement_error(expansion.error)
    ran("placement", "placement rejected")


# --- 3. Job YAML through `rlark-migrate check` ---------------------------------------------------
def _example(name: str) -> str:
    return str(example_configs()[name])


CHECK_VARIANTS = [
    [],
    ["--json"],
    ["--config", _example("realworld_peginsertion_rlpd_cnn_async_2arms"), "--no-compose"],
    ["--config", _example("qwen2.5-7b-grpo-megatron"), "--no-compose", "--json"],
    ["--inventory", str(example_inventories()["gpu-cloud"]), "--cluster", "gpu-a"],
    ["--inventory", str(example_inventories()["mixed-robots"]), "--json"],
]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


FRANKA_JOB = GOLDEN_JOBS[-1].read_text()


@FUZZ
@given(text=all_job_documents, variant=st.sampled_from(CHECK_VARIANTS))
# Found by fuzzing: values of the wrong type reached the rules (AttributeError, TypeError), a
# spec that is no mapping broke the Job reader, and 10**12 replicas made a rule loop for hours.
@example(text=FRANKA_JOB.replace("hostname: franka-pc-0", "hostname: 7"), variant=[])
@example(text=FRANKA_JOB.replace("- name: franka\n", "- name: [franka]\n"), variant=[])
@example(
    text="apiVersion: rlark.io/v1alpha1\nkind: Job\nmetadata: {name: a}\nspec: 4\n", variant=[]
)
@example(text=FRANKA_JOB.replace("head: false", "head: !!bool maybe"), variant=[])
@example(  # found by `make fuzz`: an idle-GPU rule listed every one of 10**40 requested GPUs
    text=FRANKA_JOB.replace("nvidia.com/gpu: 1\n", f"nvidia.com/gpu: {10**40}\n"),
    variant=CHECK_VARIANTS[2],
)
@example(
    text=FRANKA_JOB.replace("replicas: 1\n", "replicas: 1000000000000\n"), variant=CHECK_VARIANTS[2]
)
def test_check_answers_every_job_yaml_with_findings_or_an_error_line(
    text: str, variant: list[str], work_dir: Path
) -> None:
    job_file = work_dir / "job.yaml"
    job_file.write_text(text, encoding="utf-8")
    code, out, err = run_cli("check", str(job_file), *variant)
    assert "Traceback" not in out + err
    assert code in (0, 1), (code, err)
    if err:  # the file is not a Job manifest: one line that names it
        assert code == 1 and err.startswith(f"error: {job_file}: "), err
        return ran("job-check", "not a manifest")
    if "--json" in variant:
        answer = json.loads(out)
        assert answer["ok"] is (code == 0)
        assert all(f["path"] and f["message"] for f in answer["findings"]), answer
    else:
        assert out.strip() and ("[error]" in out) is (code == 1), out
    ran("job-check", "findings" if code else "passed")


# --- 4. inventory files --------------------------------------------------------------------------
INVENTORY_PATHS = ("nodes", "storageClasses")


@FUZZ
@given(text=inventory_documents, job=st.sampled_from(GOLDEN_JOBS))
# Found by fuzzing: a storage class without a name (KeyError), and counts that are no whole
# number >= 0 (accepted as -1 or truncated to 2, or OverflowError for .inf).
@example(text="nodes: []\nstorageClasses: [{provisioner: csi}]\n", job=GOLDEN_JOBS[0])
@example(text="nodes: [{name: a, allocatable: {nvidia.com/gpu: -1}}]\n", job=GOLDEN_JOBS[0])
@example(text="nodes: [{name: a, allocatable: {nvidia.com/gpu: 2.5}}]\n", job=GOLDEN_JOBS[0])
@example(text="nodes: [{name: a, allocatable: {rlinf.io/x: .inf}}]\n", job=GOLDEN_JOBS[0])
# Found by `make fuzz`: a YAML tag on a value it cannot hold (ValueError out of PyYAML).
@example(text="nodes: [{name: a, allocatable: {!!int nvidia.com/gpu: 8}}]\n", job=GOLDEN_JOBS[0])
def test_inventories_load_or_say_what_is_wrong(text: str, job: Path, work_dir: Path) -> None:
    file = work_dir / "nodes.yaml"
    file.write_text(text, encoding="utf-8")
    try:
        inventory = load_inventory(file, site=example_site())
    except InventoryError as error:  # the message starts with the entry, or names the file
        assert error.message.startswith(INVENTORY_PATHS) or file.name in error.message, str(error)
        return ran("inventory", "rejected")
    names = [node.name for node in inventory.nodes]
    assert all(names) and len(set(names)) == len(names)
    for node in inventory.nodes:
        assert isinstance(node.gpus, int) and node.gpus >= 0, node
        assert all(isinstance(v, int) and v >= 0 for v in node.devices.values()), node
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in node.labels.items())
        # any category value is kept as reported (the site profile names the known ones)
        assert node.category == node.labels.get(inventory.site.category_label)
    findings = given_job(
        parse_job_yaml(job.read_text(), site=example_site()),
        inventory=inventory,
        target_cluster=next(iter(inventory.clusters), None),
        site=example_site(),
    ).findings
    for finding in findings:
        check_finding(finding)
    ran("inventory", "loaded")


# --- 5. a secret planted anywhere in a Job -------------------------------------------------------
@FUZZ
@given(data=schema_jobs().flatmap(planted), lang=st.sampled_from(["en", "zh"]))
def test_a_planted_secret_is_found_and_never_echoed(data, lang: str, work_dir: Path) -> None:
    document, where = data
    job_file = work_dir / "planted.yaml"
    job_file.write_text(yaml.safe_dump(document), encoding="utf-8")
    printed = ""
    for extra in ([], ["--json"]):
        code, out, err = run_cli("check", str(job_file), "--lang", lang, *extra)
        printed += out + err
        assert code == 1 and "Traceback" not in out + err, (where, err)
    assert "SEC-SECRET" in printed or "SEC-SSH-PRIVATE" in printed, where
    assert PLANTED_TOKEN not in printed, where
    ran("job-secrets", "found")


# --- 6. differential: what `check` passes is what `submit` stores -------------------------------
SUBMITTED = Counter()


@settings(  # one emulator for all examples: each example uses its own Job name
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ]
)
@given(text=differential_job_documents)
def test_submit_stores_exactly_what_check_passed(text: str, kube, tmp_path: Path) -> None:
    document = yaml.safe_load(text)
    SUBMITTED["n"] += 1
    name = f"fz{SUBMITTED['n']}"
    if isinstance(document, dict) and isinstance(document.get("metadata"), dict):
        document["metadata"]["name"] = name  # one name per example on the shared emulator
    job_file = tmp_path / "job.yaml"
    job_file.write_text(yaml.safe_dump(document), encoding="utf-8")
    config = write_kubeconfig(tmp_path / "kubeconfig", kube.url, NAMESPACE)
    code, out, err = run_cli("check", str(job_file))
    assert "Traceback" not in out + err
    if code != 0:
        assert not kube.exists("jobs", name)
        return ran("job-roundtrip", "refused by check")
    code, out, err = run_cli(
        "submit", str(job_file), "--backend", "kubernetes", "--kubeconfig", str(config)
    )
    assert "Traceback" not in out + err
    if not kube.exists("jobs", name):
        assert code == 1, out + err
        return ran("job-roundtrip", "refused by preflight")
    kept = stored(kube, name)
    assert normal_text(kept) == normal_text(document), (normal_text(kept), text)
    kube.custom.delete_namespaced_custom_object("rlark.io", "v1alpha1", NAMESPACE, "jobs", name)
    ran("job-roundtrip", "stored as written")


# --- 7. generated argv for every subcommand: exit 0-3, no traceback, no hang -------------------
PARSER = build_parser()
SUBCOMMANDS = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices
#: What a number option is given: nothing a wait, a sleep or a count can take as it is.
NUMBERS = ("nan", "inf", "-inf", "-1", "0", "1e308", str(10**30), "1", "0.5", "abc")
#: What a path option is given; "unreadable" needs a user whom file modes bind (not root).
PATH_KINDS = ("directory", "fifo", "missing", "empty", "garbage", "unreadable")
TEXTS = ("demo", "", "a=b", "0:8,1:four", "-", "x" * 300)
#: How an option reads a path: its type, or what its metavar (or a positional's name) says.
PATHY = re.compile(r"FILE|DIR|\.yaml|\.zip|SCRIPT")
#: Seconds a run may take: a config load with Hydra takes one; a hang takes all of them.
RUN_LIMIT = 20.0


def _takes_path(action: argparse.Action) -> bool:
    return (
        action.type is Path
        or bool(PATHY.search(str(action.metavar or "")))
        or (not action.option_strings and action.dest == "config")
    )


def _options(command: str) -> list[argparse.Action]:
    return [
        a
        for a in SUBCOMMANDS[command]._actions
        if not isinstance(a, argparse._HelpAction) and a.dest not in ("lang", "site")
    ]


def test_every_numeric_option_is_checked_by_the_one_number_type() -> None:
    """An option that parses a number with plain int/float would let NaN or -1 through."""
    loose = [
        f"{command} {'/'.join(a.option_strings)}"
        for command in SUBCOMMANDS
        for a in _options(command)
        if a.type in (int, float)
        or isinstance(a.default, int | float)
        and not isinstance(a.default, bool)
        and not isinstance(a.type, NumberType)
    ]
    assert loose == []


def make_path(kind: str, where: Path, data: bytes) -> str:
    """A fresh path of ``kind`` under ``where`` (never a device: tests write only in tmp)."""
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{kind}-{len(list(where.iterdir()))}"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(data)
    elif kind == "unreadable":
        path.write_text("cluster: {num_nodes: 1}\n")
        path.chmod(0)
    return str(path)


@st.composite
def argvs(draw: st.DrawFn, where: Path) -> list[str]:
    """One command line: a subcommand, its positionals, and any of its options, badly valued."""
    command = draw(st.sampled_from(sorted(SUBCOMMANDS)))
    kinds = [k for k in PATH_KINDS if k != "unreadable" or os.geteuid() != 0]  # root reads all
    garbage = st.binary(max_size=200)

    def value(action: argparse.Action) -> str:
        if isinstance(action.type, NumberType):
            return draw(st.sampled_from(NUMBERS))
        if action.choices:
            return draw(st.sampled_from(sorted(map(str, action.choices))))
        if _takes_path(action):
            return make_path(draw(st.sampled_from(kinds)), where, draw(garbage))
        return draw(st.sampled_from(TEXTS))

    argv = [command]
    for action in _options(command):
        if not action.option_strings:  # a positional: given, or (when optional) not
            if action.nargs != "?" or draw(st.booleans()):
                argv.append(value(action))
        elif draw(st.integers(0, 3)) == 0:  # about a quarter of the options, each run
            argv.append(draw(st.sampled_from(action.option_strings)))
            if action.nargs != 0:
                argv.append(value(action))
    if "--workspace" not in argv and any(a.dest == "workspace" for a in _options(command)):
        argv += ["--workspace", str(where / "workspace")]  # never the user's own
    return argv


def _within_limit(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in a thread, its output captured; a run past RUN_LIMIT is a hang."""
    result: list[tuple[int, str, str]] = []
    failure: list[BaseException] = []

    def run() -> None:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main(argv)
                except SystemExit as exc:  # argparse's usage errors
                    code = int(exc.code or 0)
            result.append((code, out.getvalue(), err.getvalue()))
        except BaseException as exc:  # noqa: BLE001 - reported below, with the argv
            failure.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(RUN_LIMIT)
    assert not worker.is_alive(), f"rlark-migrate {' '.join(argv)} ran over {RUN_LIMIT} s"
    assert not failure, f"rlark-migrate {' '.join(argv)} raised {failure[0]!r}"
    return result[0]


@FUZZ
@given(data=st.data())
@example(data=None)  # the issue's own cases, one after another
def test_every_subcommand_answers_any_argv_with_words_and_an_exit_code(
    data, work_dir: Path
) -> None:
    where = work_dir / "argv"
    alone = {  # never a real cluster, never the user's own workspace
        "KUBECONFIG": str(where / "no-kubeconfig"),
        "RLARK_WORKSPACE": str(where / "workspace"),
    }
    with mock.patch.dict(os.environ, alone):
        _answer_argvs(data, where)


def _answer_argvs(data, where: Path) -> None:
    if data is None:
        directory = make_path("directory", where, b"")
        cases = [
            ["check", directory],
            ["--site", directory, "list", "--workspace", directory],
            ["plan", directory, "--inventory", directory],
            ["export", directory],
            ["sheet", directory],
            ["status", "x", "--watch", "--interval", "nan"],
            ["submit", directory, "--timeout", "nan"],
            ["submit", directory, "--timeout", "-1"],
            # found by `make fuzz`: --follow of no Job waited forever; a kubeconfig that is not
            # UTF-8 raised UnicodeDecodeError from the client's loader
            ["logs-all", "demo", "--follow", "--workspace", directory],
            ["list", "--backend", "kuberay", "--kubeconfig", make_path("garbage", where, b"\xdbf")],
        ]
    else:
        cases = [data.draw(argvs(where), label="argv")]
    for argv in cases:
        code, out, err = _within_limit(argv)
        said = out + err
        assert "Traceback" not in said, (argv, said)
        assert 0 <= code <= 3, (argv, code, said)
        if code >= 1:  # a failure is said (an error line, findings, a JSON answer), not silent
            assert said.strip(), argv
        ran("argv", f"exit {code}")


TARGETS = {
    "cluster-yaml": test_config_documents_give_typed_errors_or_findings,
    "placement": test_placement_strings_give_typed_errors_with_paths,
    "job-check": test_check_answers_every_job_yaml_with_findings_or_an_error_line,
    "inventory": test_inventories_load_or_say_what_is_wrong,
    "job-secrets": test_a_planted_secret_is_found_and_never_echoed,
    "job-roundtrip": test_submit_stores_exactly_what_check_passed,
    "argv": test_every_subcommand_answers_any_argv_with_words_and_an_exit_code,
}
