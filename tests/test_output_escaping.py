"""Output cannot lie (issue #23, class 7): what a config, a Job or a run carries is shown, never
obeyed, on the terminal, in a figure and in the app's HTML.

Hostile text (ESC sequences, C0/C1 controls, bidi overrides, zero-width characters, Plotly and
HTML markup such as ``<a href=javascript:...>``, ``<br>``, ``&lt;`` and ``$...$``) is written
into every string field of a Job and, one field at a time, of a config; ``inspect``, ``plan``,
``check``, ``sheet`` and ``export`` run in-process (``main(argv)``, English and Chinese) and no
invisible character reaches stdout or stderr, while the value is shown in its escaped form
(:func:`rlark_widgets.visible_text.visible`), and a YAML document (``export``) reads back to
exactly the value written. Every figure the tool draws is built from names carrying that text,
and no ``<`` or ``$`` of theirs reaches a text, label, legend, hover or title unescaped
(:func:`rlark_widgets.viz.markup.figure_text`). A scan fails when a module of the CLI prints
without the one terminal writer (``rlark_widgets/cli/terminal.py``).

``HYPOTHESIS_PROFILE=fuzz`` (``make fuzz``) runs the long rounds.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import html
import io
import json
import os
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlark_widgets.cli import main
from rlark_widgets.findings import Finding, Severity
from rlark_widgets.i18n import Text
from rlark_widgets.monitor.gpus import GpuUse
from rlark_widgets.monitor.history import HistoryPoint
from rlark_widgets.monitor.scalars import ScalarSeries
from rlark_widgets.monitor.snapshot import Checkpoint, JobSnapshot, Progress
from rlark_widgets.rlark.planner import plan_roles
from rlark_widgets.rlark.yaml_io import dump_yaml
from rlark_widgets.rlinf import inspect_config, load_text
from rlark_widgets.ui.html import banner, esc, findings_html, log_html, table, yaml_html
from rlark_widgets.visible_text import CATEGORIES, INVISIBLE, KEPT, visible
from rlark_widgets.viz.chain import chain_figure
from rlark_widgets.viz.flow import flow_figure
from rlark_widgets.viz.markup import figure_text
from rlark_widgets.viz.monitor_charts import checkpoint_figure, members_figure, worker_status_figure
from rlark_widgets.viz.run_charts import GPU_BAR_LIMIT, gpu_figure, scalar_figure
from rlark_widgets.viz.topology import DETAIL_LIMIT, NodeRow, node_rows, topology_figure

REPO = Path(__file__).resolve().parents[1]
GOLDEN_JOB = REPO / "tests/golden/two-node-franka.job.yaml"
LANGS = ("en", "zh")
FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"


def rounds(short: int, long: int = 2_000) -> settings:
    """``short`` examples in the normal suite (its time budget), ``long`` under make fuzz."""
    return settings(
        max_examples=long if FUZZ else short,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


PIECES = [
    "\x1b[8m",  # conceal: the image that hides every finding after it
    "\x1b[2J\x1b[H",
    "\x1b]8;;javascript:alert(1)\x07link\x1b]8;;\x07",
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "\x1bP+q\x1b\\",
    "\x9b31m",
    "\r",
    "\x08\x08",
    "\x00",
    "\x7f",
    "\x85",
    "\u202e",
    "\u2066",
    "\u2069",
    "\u200b",
    "\u200e",
    "\ufeff",
    "\u2028",
    "\U000e0041",
    "<a href=javascript:alert(1)>x</a>",
    "<br>",
    "<b>",
    "<span style='font-size:99px'>",
    "&lt;",
    "&amp;",
    "$x^2$",
    "</pre>",
]
hostile = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.characters(categories=tuple(CATEGORIES - {"Cs"})),
        st.sampled_from("<>&$"),
    ),
    min_size=1,
    max_size=4,
).map("".join)
#: A few hostile texts, given out in turn to the fields of one document.
hostiles = st.lists(hostile, min_size=1, max_size=5)
EVERYTHING = "".join(PIECES)


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def assert_inert(printed: str, where: object) -> None:
    """Nothing in ``printed`` can act on a terminal: no invisible character, raw."""
    found = INVISIBLE.search(printed)
    assert found is None, (where, printed[max(0, found.start() - 80) : found.end() + 20])


# --- the class itself ---------------------------------------------------------------------------
def test_the_invisible_class_is_unicode_s_control_format_and_separator_characters() -> None:
    """The spelled-out class is exactly the Unicode categories it names, less KEPT (this fails
    when a newer Unicode adds a format character the regex does not list)."""
    derived = {
        code
        for code in range(sys.maxunicode + 1)
        if chr(code) not in KEPT and unicodedata.category(chr(code)) in CATEGORIES
    }
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    matched = {ord(char) for char in INVISIBLE.findall(every)}
    assert matched == derived
    assert visible("img\x1b[8m\u202e\r\n\t") == "img\\x1b[8m\\u202e\\x0d\n\t"


@rounds(50, 10_000)
@given(text=st.text())
def test_visible_shows_every_character_it_replaces(text: str) -> None:
    shown = visible(text)
    assert INVISIBLE.search(shown) is None
    assert visible(shown) == shown  # its own output is already inert
    if INVISIBLE.search(text) is None:
        assert shown == text  # nothing else changes: Chinese, emoji, backslashes stay


# --- one terminal writer ------------------------------------------------------------------------
def _printing(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "print":
            yield node.lineno, "print()"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "sys" and node.attr in {"stdout", "stderr", "__stdout__"}:
                yield node.lineno, f"sys.{node.attr}"
            if (node.value.id, node.attr) in {("os", "write"), ("click", "echo")}:
                yield node.lineno, f"{node.value.id}.{node.attr}"
        if isinstance(node, ast.Attribute) and node.attr in {"write", "writelines", "flush"}:
            receiver = ast.unparse(node.value)
            if "stream" in receiver or "std" in receiver:
                yield node.lineno, f"{receiver}.{node.attr}"
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(n.split(".")[0] == "click" for n in names):
                yield node.lineno, "import click"


def test_no_cli_module_prints_without_the_terminal_writer() -> None:
    cli = REPO / "rlark_widgets/cli"
    direct = [
        f"{path.name}:{line}: {what}"
        for path in sorted(cli.glob("*.py"))
        if path.name != "terminal.py"
        for line, what in _printing(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert direct == [], "print through rlark_widgets/cli/terminal.py: " + ", ".join(direct)


def test_the_scan_sees_a_direct_print() -> None:
    source = "import sys\nprint('x')\nsys.stdout.write('y')\nself.stream.write('z')\n"
    found = sorted(what for _, what in _printing(ast.parse(source)))
    assert found == ["print()", "self.stream.write", "sys.stdout", "sys.stdout.write"]


def test_a_usage_error_repeats_the_typed_value_inert() -> None:
    code, out, err = run_cli("inspect", "x.yaml", "--gpus-per-node", "8\x1b[8m\u202e")
    assert code == 2 and out == ""
    assert_inert(err, "argparse")
    assert "8\\x1b[8m\\u202e" in err


# --- a Job: every string field at once ----------------------------------------------------------
STRUCTURAL = {"apiVersion", "kind"}  # without these no Job is read, and nothing else is shown
NAMED_BY_MOUNTS = {"containers", "volumes", "volumeMounts"}  # their `name` ties the Job together


def _string_paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _string_paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _string_paths(value, (*path, index))
    elif isinstance(node, str):
        yield path


def _plantable(path: tuple[Any, ...]) -> bool:
    if path[-1] in STRUCTURAL:
        return False
    return not (path[-1] == "name" and len(path) > 2 and path[-3] in NAMED_BY_MOUNTS)


def _set(document: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        document = document[part]
    document[path[-1]] = value


def planted_job(texts: list[str]) -> tuple[dict[str, Any], dict[tuple[Any, ...], str]]:
    """The golden Job with ``~N`` and a hostile text after every plantable string, and a label
    and an annotation whose keys are hostile; returns the document and what each path holds."""
    document = yaml.safe_load(GOLDEN_JOB.read_text(encoding="utf-8"))
    planted: dict[tuple[Any, ...], str] = {}
    for index, path in enumerate(p for p in _string_paths(document) if _plantable(p)):
        value = f"{_get(document, path)}~{index}{texts[index % len(texts)]}"
        _set(document, path, value)
        planted[path] = value
    document["metadata"].setdefault("labels", {})["team" + texts[0]] = "a"
    document["metadata"].setdefault("annotations", {})["note" + texts[-1]] = "b"
    return document, planted


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


def _job_file(texts: list[str], folder: Path) -> tuple[Path, str]:
    """The planted Job, written by our YAML writer; and its name."""
    document, planted = planted_job(texts)
    job_file = folder / "job.yaml"
    job_file.write_text(dump_yaml(document), encoding="utf-8")
    return job_file, planted[("metadata", "name")]


@rounds(4, 500)
@given(texts=hostiles, lang=st.sampled_from(LANGS))
def test_a_job_s_every_string_is_printed_inert_by_check_sheet_and_export(
    texts: list[str], lang: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    job_file, name = _job_file(texts, tmp_path_factory.mktemp("job"))
    for argv in (
        ["check", str(job_file)],
        ["sheet", str(job_file)],
        ["sheet", str(job_file), "--format", "html"],
        ["export", str(job_file)],
    ):
        code, out, err = run_cli(*argv, "--lang", lang)
        assert_inert(out + err, (argv, lang))
        if argv[0] == "export":  # a YAML document: it reads back to what the user wrote
            assert yaml.safe_load(out)["metadata"]["name"] == name
        elif "html" in argv:  # the sheet's HTML escapes it for the page, too
            assert visible(html.escape(name)) in out, (argv, lang)
        else:  # the Job name is quoted by JOB-NAME, and heads the sheet
            assert visible(name) in out + err, (argv, lang)
    code, out, _ = run_cli("check", str(job_file), "--json", "--lang", lang)
    assert_inert(out, ("check --json", lang))  # json.dumps escapes what it must
    messages = [f["message"] for f in json.loads(out)["findings"]]
    assert any(name in m or repr(name)[1:-1] in m for m in messages), (lang, messages)


def test_an_exported_file_keeps_every_value_exactly(tmp_path: Path) -> None:
    job_file, name = _job_file([EVERYTHING], tmp_path)
    written = tmp_path / "rayjob.yaml"
    code, out, err = run_cli("export", str(job_file), "-o", str(written))
    assert_inert(out + err, "export -o")
    assert yaml.safe_load(written.read_text(encoding="utf-8"))["metadata"]["name"] == name


# --- a config: one string field at a time -------------------------------------------------------
CONFIG: dict[str, Any] = {
    "cluster": {
        "num_nodes": 3,
        "component_placement": {
            "actor": 0,
            "rollout": {"node_group": "4090", "placement": "0:0-1"},
            "env": {"node_group": "franka", "placement": "0-1"},
        },
        "node_groups": [
            {"label": "4090", "node_ranks": "0"},
            {
                "label": "franka",
                "node_ranks": "1-2",
                "hardware": {
                    "type": "Franka",
                    "configs": [
                        {"node_rank": 1, "robot_ip": "10.0.0.1"},
                        {"node_rank": 2, "robot_ip": "10.0.0.2"},
                    ],
                },
            },
        ],
    },
    "runner": {
        "task_type": "embodied",
        "logger": {"log_path": "/mnt/output/logs", "experiment_name": "sac"},
    },
}
#: Every string value, and the component names (keys a user chooses and the tables print).
CONFIG_SLOTS = [("value", p) for p in _string_paths(CONFIG)] + [
    ("key", ("cluster", "component_placement", name))
    for name in CONFIG["cluster"]["component_placement"]
]


#: Fields these commands do not print (the experiment name reaches only the Job's YAML, as part
#: of its checkpoint directory; test_an_image_ending_in_conceal_hides_no_finding reads that).
QUIET = {("runner", "logger", "experiment_name")}


def planted_config(slot: tuple[str, tuple[Any, ...]], text: str) -> dict[str, Any]:
    how, path = slot
    document = copy.deepcopy(CONFIG)
    parent = _get(document, path[:-1])
    if how == "key":
        parent[path[-1] + text] = parent.pop(path[-1])
    else:
        parent[path[-1]] = parent[path[-1]] + text
    return document


def _config_outputs(document: dict[str, Any], folder: Path, image: str, lang: str) -> Iterator[str]:
    config = folder / "config.yaml"
    config.write_text(dump_yaml(document), encoding="utf-8")
    for argv in (
        ["inspect", str(config), "--no-compose"],
        ["plan", str(config), "--no-compose", "--image", image],
        ["check", "--config", str(config), "--no-compose", "--image", image],
        ["sheet", "--config", str(config), "--no-compose", "--image", image],
    ):
        code, out, err = run_cli(*argv, "--lang", lang)
        assert_inert(out + err, (argv, lang))
        yield out + err
    code, out, _ = run_cli("inspect", str(config), "--no-compose", "--json")
    assert_inert(out, "inspect --json")
    json.loads(out)


@pytest.mark.parametrize(
    ("slot", "lang"),
    [(slot, LANGS[index % 2]) for index, slot in enumerate(CONFIG_SLOTS)],  # both, in turn
    ids=lambda v: v if isinstance(v, str) else ".".join(map(str, v[1])) + f":{v[0]}",
)
def test_each_config_field_is_printed_inert(slot, lang: str, tmp_path: Path) -> None:
    text = "~" + EVERYTHING
    printed = "\n".join(_config_outputs(planted_config(slot, text), tmp_path, "rlinf:v1", lang))
    if slot[1] in QUIET:
        assert "~\\x1b[8m" not in printed, slot
    else:
        assert visible(text) in printed, slot  # it is shown, escaped


@rounds(5, 1_000)
@given(slot=st.sampled_from(CONFIG_SLOTS), text=hostile, lang=st.sampled_from(LANGS))
def test_a_hostile_config_field_and_image_are_printed_inert(
    slot, text: str, lang: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    image = "registry.example.com/rlinf:v1" + text  # the issue's: an image ending in ESC[8m
    folder = tmp_path_factory.mktemp("config")
    for printed in _config_outputs(planted_config(slot, text), folder, image, lang):
        assert printed  # every command answers, inert (checked as it runs)


def test_an_image_ending_in_conceal_hides_no_finding(tmp_path: Path) -> None:
    """The issue's case: every finding after the image is still readable, and the Job written
    to a file keeps the image exactly as given."""
    config, job = tmp_path / "config.yaml", tmp_path / "job.yaml"
    config.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    image = "registry.example.com/rlinf:v1\x1b[8m"
    argv = ["plan", str(config), "--no-compose", "--image", image, "-o", str(job)]
    code, out, err = run_cli(*argv)
    assert_inert(out + err, "plan")
    printed = out + err
    assert "registry.example.com/rlinf:v1\\x1b[8m" in printed
    assert "[error]" in printed.split("\\x1b[8m", 1)[1] or "[warning]" in printed
    images = {
        c["image"]
        for t in yaml.safe_load(job.read_text(encoding="utf-8"))["spec"]["tasks"]
        for c in t["template"]["spec"]["containers"]
    }
    assert images == {image}


# --- YAML: what the user wrote is what is written -----------------------------------------------
@rounds(50, 10_000)
@given(value=st.text(), key=st.text())
def test_job_yaml_escapes_invisible_characters_and_reads_back_exactly(value: str, key: str) -> None:
    document = {"v": value, key: [value, {"s": "中文" + value + "\n"}]}
    text = dump_yaml(document)
    assert INVISIBLE.search(text) is None
    assert yaml.safe_load(text) == document


# --- figures: one escaper -----------------------------------------------------------------------
#: Our own markup in figure text: line breaks and the hover's empty side box.
OURS = ("<br>", "<extra></extra>")
NOT_SHOWN = {"template", "stackgroup", "legendgroup", "uid", "coloraxis"}


def _figure_strings(node: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for k, value in node.items():
            if k not in NOT_SHOWN:
                yield from _figure_strings(value, k)
    elif isinstance(node, list | tuple):
        for value in node:
            yield from _figure_strings(value, key)
    elif isinstance(node, str):
        yield key, node


def assert_figure_escaped(figure: Any, names: list[str], where: str) -> None:
    strings = list(_figure_strings(figure.to_dict()))
    for key, text in strings:
        stripped = text
        for tag in OURS:
            stripped = stripped.replace(tag, "")
        assert "<" not in stripped and ">" not in stripped, (where, key, text)
        assert "$" not in stripped and INVISIBLE.search(text) is None, (where, key, text)
    joined = "\n".join(text for _, text in strings)
    for name in names:
        assert figure_text(name) in joined, (where, name)


@st.composite
def hostile_names(draw: st.DrawFn) -> dict[str, str]:
    text = draw(hostile)
    return {
        what: f"{what}{draw(hostile) if index % 2 else text}"
        for index, what in enumerate(("actor", "group", "role0", "role1", "state", "tag", "gpu"))
    }


def _report(names: dict[str, str]) -> Any:
    document = copy.deepcopy(CONFIG)
    placement = document["cluster"]["component_placement"]
    placement[names["actor"]] = placement.pop("actor")
    placement["rollout"]["node_group"] = names["group"]
    document["cluster"]["node_groups"][0]["label"] = names["group"]
    return inspect_config(load_text(yaml.safe_dump(document)), 8, search_gpus=False)


@rounds(4, 2_000)
@given(names=hostile_names(), lang=st.sampled_from(LANGS))
def test_every_figure_shows_names_escaped(names: dict[str, str], lang: str) -> None:
    report = _report(names)
    assert report.ok, [f.message for f in report.findings]
    plan = plan_roles(report)
    roles = [(names["role0"], 1), (names["role1"], 2)]
    rows = node_rows(report.expansion, roles, dict(plan.gpu_layout.per_node))
    rows[1].state = names["state"]
    role_names = [names["role0"], names["role1"]]
    shown = {
        "topology": (
            topology_figure(rows, lang=lang),
            [*role_names, names["actor"], names["state"]],
        ),
        "flow": (flow_figure(report.expansion, roles, lang), [*role_names, names["group"]]),
        "chain": (
            chain_figure(
                report.expansion,
                [(0, names["role0"], 0), (1, names["role1"], 0), (2, names["role1"], 1)],
                lang,
            ),
            [*role_names, names["actor"]],
        ),
    }
    many = [NodeRow(rank, role_names[rank % 2], rank % 2, 2) for rank in range(DETAIL_LIMIT + 1)]
    shown["aggregate"] = (topology_figure(many, lang=lang), role_names)
    history = [
        HistoryPoint(
            100.0 + t, 3, t, ((names["role0"], "Running", 1), (names["role1"], "Pending", 2))
        )
        for t in range(3)
    ]
    shown["workers"] = (worker_status_figure(history, lang), role_names)
    shown["members"] = (members_figure(history, lang), [])
    snapshot = JobSnapshot("j", "local", 130.0, expected_workers=3)
    snapshot.checkpoints = [Checkpoint(2, "/x/global_step_2", 110.0)]
    snapshot.progress = Progress(True, 3, 120.0, max_steps=6, save_interval=2)
    shown["checkpoints"] = (checkpoint_figure(snapshot, 100.0, lang), [])
    series = {names["tag"]: ScalarSeries(names["tag"], [1, 2], [0.5, 0.25], [1.0, 2.0])}
    shown["scalars"] = (scalar_figure(series, [names["tag"]], lang), [names["tag"]])
    gpus = [GpuUse(f"{names['role0']}/0", 0, names["gpu"], 50.0, 1.0, 2.0)]
    shown["gpus"] = (gpu_figure(gpus, None, lang), [names["role0"], names["gpu"]])
    fleet = [
        GpuUse(f"{names['role1']}/{i}", 0, names["gpu"], 50.0, 1.0, 2.0)
        for i in range(GPU_BAR_LIMIT + 1)
    ]
    shown["gpu heatmap"] = (gpu_figure(fleet, None, lang), [names["role1"]])
    for where, (figure, expected) in shown.items():
        assert_figure_escaped(figure, expected, where)


def test_figure_text_escapes_values_and_keeps_our_markup() -> None:
    text = Text("{node}<br>GPU {gpu}", node="<a href=javascript:x>$x$\u202e", gpu=0)
    assert figure_text(text) == "&lt;a href=javascript:x&gt;&#36;x&#36;\\u202e<br>GPU 0"


# --- the app's HTML: one escaper ----------------------------------------------------------------
@rounds(10, 2_000)
@given(value=hostile)
def test_app_html_escapes_every_value(value: str) -> None:
    finding = Finding(
        "JOB-X", Severity.ERROR, "spec." + value, Text("bad {v}", v=value), Text("{v}", v=value)
    )
    pieces = [
        table(["h"], [[value]]),
        banner(value),
        findings_html([finding]),
        yaml_html(f"image: {value}\n"),
        log_html(value),
    ]
    shown = esc(value)
    for page in pieces:
        assert INVISIBLE.search(page) is None, page
        assert "<a href" not in page and "<span style=" not in page, page
        assert shown in page, page
