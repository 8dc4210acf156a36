"""Every RLinf config error and finding reads in Chinese too, with its English unchanged.

The invalid inputs are the tables of ``test_rlinf_errors.py`` (RLinf's own rejections), so a
new case there is checked here as well. Each message and fix must be a :class:`Text` whose
Chinese contains Chinese, leaves no ``{placeholder}`` unformatted and still names every value
the English names (ranks, paths, labels), nested RLinf messages included.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_rlinf_errors import (
    CLUSTER_ERRORS,
    PLACEMENT_ERRORS,
    REASONING_ERRORS,
    YAML_CLUSTER_ERRORS,
    cluster,
    env_group,
    expand,
    franka_group,
    group,
    lookup,
)

from rlark_widgets.findings import Finding
from rlark_widgets.i18n import Text, render
from rlark_widgets.rlinf import (
    ConfigLoadError,
    GpuLayout,
    RLinfConfigError,
    expand_placement,
    inspect_config,
    load_config,
    load_text,
    parse_cluster,
)
from rlark_widgets.rlinf.report import MODE_LESSONS
from rlark_widgets.safe_yaml import YamlStructureError, check_structure

CJK = re.compile(r"[\u4e00-\u9fff]")
PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")


def _leaf_values(text: Text) -> list[str]:
    """The language-neutral values a message formats, including those of nested messages."""
    values = []
    for value in text.params.values():
        values.extend(_leaf_values(value) if isinstance(value, Text) else [str(value)])
    return values


def assert_bilingual(text: Text | str) -> str:
    """Check one message in Chinese and return it (for exact assertions)."""
    assert isinstance(text, Text), f"not a Text: {text!r}"
    zh = render(text, "zh")
    assert CJK.search(zh), zh
    assert not PLACEHOLDER.search(zh), zh
    for value in _leaf_values(text):
        assert value in zh, f"{value!r} missing from {zh!r}"
    return zh


def assert_error_bilingual(error: RLinfConfigError | None) -> None:
    assert isinstance(error, RLinfConfigError)
    assert_bilingual(error.text)
    assert_bilingual(error.fix_text)
    finding = error.to_finding().to_dict(lang="zh")
    assert finding["message"] == render(error.text, "zh")
    assert finding["fix"] == render(error.fix_text, "zh")


def assert_finding_bilingual(finding: Finding) -> None:
    assert_bilingual(finding.text)
    assert_bilingual(finding.fix_text)


# --- RLinf's rejections: the tables of test_rlinf_errors.py -----------------------------------
@pytest.mark.parametrize(("mapping", "phrase", "path"), CLUSTER_ERRORS)
def test_cluster_errors_in_chinese(mapping: dict, phrase: str, path: str) -> None:
    with pytest.raises(RLinfConfigError) as info:
        parse_cluster(mapping)
    assert phrase in info.value.message  # the English is still RLinf's
    assert_error_bilingual(info.value)


@pytest.mark.parametrize(("text", "phrase", "path"), YAML_CLUSTER_ERRORS)
def test_cluster_errors_from_yaml_in_chinese(text: str, phrase: str, path: str) -> None:
    with pytest.raises(RLinfConfigError) as info:
        parse_cluster(load_text(text).cluster_section)
    assert phrase in info.value.message
    assert_error_bilingual(info.value)


@pytest.mark.parametrize(
    ("placement", "gpus", "num_nodes", "node_groups", "phrase", "path"), PLACEMENT_ERRORS
)
def test_placement_errors_in_chinese(
    placement: dict, gpus: Any, num_nodes: int, node_groups: list | None, phrase: str, path: str
) -> None:
    error = expand(placement, gpus, num_nodes, node_groups).error
    assert phrase in error.message
    assert_error_bilingual(error)


@pytest.mark.parametrize(("placement", "gpus", "num_nodes", "values", "phrase"), REASONING_ERRORS)
def test_reasoning_errors_in_chinese(
    placement: dict, gpus: int, num_nodes: int, values: dict, phrase: str
) -> None:
    error = expand(placement, gpus, num_nodes, task_type="reasoning", lookup=lookup(values)).error
    assert phrase in error.message
    assert_error_bilingual(error)


def test_missing_cluster_section_in_chinese() -> None:
    with pytest.raises(RLinfConfigError) as info:
        parse_cluster(None)
    assert_error_bilingual(info.value)


def test_wrapped_rlinf_message_is_translated_inside_the_wrapper() -> None:
    """A rank error quoted by the node-group error renders in Chinese, not as English inside."""
    with pytest.raises(RLinfConfigError) as info:
        parse_cluster(cluster(num_nodes=2, node_groups=[group("g", "0-2")]))
    assert info.value.message == (
        "Error parsing node_ranks 0-2 in node group 'g'. End rank 2 in rank config string "
        '"0-2" must be within the available node ranks [0, 1].'
    )
    assert render(info.value.text, "zh") == (
        "解析节点组 'g' 的 node_ranks 0-2 时出错。rank 配置字符串 \"0-2\" 中的结束 rank 2 "
        "必须在可用的 node rank [0, 1] 之内。"
    )


# --- Findings: accepted by the parser, reported to the user ------------------------------------
def test_startup_findings_in_chinese() -> None:
    robot = franka_group("arm", 1, [1])
    robot["hardware"]["configs"][0]["robot_ip"] = "ROBOT_IP"
    spec = parse_cluster(
        cluster(
            num_nodes=2,
            node_groups=[
                env_group([{"node_ranks": 0, "python_interpreter_path": "/path/to/python"}], 0),
                robot,
            ],
        )
    )
    assert sorted(f.rule_id for f in spec.findings) == [
        "CFG-INTERPRETER-PLACEHOLDER",
        "CFG-ROBOT-IP",
    ]
    for finding in spec.findings:
        assert_finding_bilingual(finding)


def test_loader_findings_in_chinese() -> None:
    config = load_text(
        "defaults: [base]\nlog: ${oc.env:RLARK_TEST_UNSET_VAR}\n"
        "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 1:5\n"
    )
    rules = sorted(f.rule_id for f in config.findings)
    assert rules == ["CFG-NOT-COMPOSED", "CFG-UNRESOLVED", "CFG-YAML-SEXAGESIMAL"]
    for finding in config.findings:
        assert_finding_bilingual(finding)


@pytest.mark.parametrize("task_type", [None, "chess"])
def test_task_type_findings_in_chinese(task_type: str | None) -> None:
    runner = f"runner: {{task_type: {task_type}}}\n" if task_type else ""
    config = load_text(runner + "cluster: {num_nodes: 1, component_placement: {actor: all}}\n")
    report = inspect_config(config, 8, search_gpus=False)
    [finding] = [f for f in report.findings if f.rule_id == "CFG-TASK-TYPE"]
    assert_finding_bilingual(finding)


@pytest.mark.parametrize("mode", sorted(MODE_LESSONS))
def test_mode_lessons_in_chinese(mode: str) -> None:
    assert_bilingual(MODE_LESSONS[mode])


def test_mode_finding_in_chinese() -> None:
    config = load_text(
        "runner: {task_type: embodied}\ncluster: {num_nodes: 1, component_placement: {actor: all}}\n"
    )
    findings = inspect_config(config, 8, search_gpus=False).findings
    # an uploaded text is launched by no RLinf doc: its entry script is inferred, and said so
    assert sorted(f.rule_id for f in findings) == ["CFG-LAUNCHER", "PLC-MODE"]
    for finding in findings:
        assert_finding_bilingual(finding)


# --- Reading the config file -------------------------------------------------------------------
def _load_error(tmp_path: Path, content: str | bytes, **kwargs: Any) -> ConfigLoadError:
    file = tmp_path / "conf.yaml"
    if isinstance(content, bytes):
        file.write_bytes(content)
    else:
        file.write_text(content)
    with pytest.raises(ConfigLoadError) as info:
        load_config(file, **kwargs)
    return info.value


ALIAS_BOMB = "a: &a [x, x]\nb: [" + ", ".join(["*a"] * 201) + "]\n"
SEARCHPATH = "hydra:\n  searchpath:\n    - file://${oc.env:EMBODIED_PATH}/config/\n"


@pytest.mark.parametrize(
    ("content", "kwargs", "phrase"),
    [
        pytest.param("cluster: [oops\n", {}, "not valid YAML at line", id="syntax"),
        pytest.param(b"\xff\xfe", {}, "is not UTF-8 text", id="not-utf8"),
        pytest.param("a: 1\n" * 100, {"max_bytes": 10}, "are refused", id="too-big"),
        pytest.param(ALIAS_BOMB, {}, "alias bomb", id="alias-bomb"),
        pytest.param(
            "defaults:\n  - env: nowhere\n", {}, "cannot find the config group", id="no-group"
        ),
        pytest.param("a: 1\n", {"overrides": ["=x"]}, "override", id="bad-override"),
        pytest.param(
            "defaults:\n  - env: nowhere\n" + SEARCHPATH, {}, "is not set", id="no-env-var"
        ),
    ],
)
def test_load_errors_in_chinese(
    tmp_path: Path, content: str | bytes, kwargs: dict, phrase: str
) -> None:
    error = _load_error(tmp_path, content, **kwargs)
    assert phrase in error.message
    assert_error_bilingual(error)


def test_the_likely_value_used_for_a_missing_variable_is_said_in_chinese(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EMBODIED_PATH", raising=False)
    folder = tmp_path / "examples" / "embodiment" / "config"
    folder.mkdir(parents=True)
    (folder / "demo.yaml").write_text(SEARCHPATH)
    (guessed,) = [f for f in load_config(folder / "demo.yaml").findings]
    assert guessed.rule_id == "CFG-ENV-GUESSED"
    assert_finding_bilingual(guessed)
    likely = (tmp_path / "examples" / "embodiment").resolve()
    assert f"EMBODIED_PATH={likely}" in render(guessed.text, "zh")


@pytest.mark.parametrize(
    ("text", "source"),
    [
        pytest.param("- a\n- b\n", "list.yaml", id="not-a-mapping"),
        pytest.param(ALIAS_BOMB, "bomb.yaml", id="alias-bomb"),
    ],
)
def test_uploaded_text_errors_in_chinese(text: str, source: str) -> None:
    with pytest.raises(ConfigLoadError) as info:
        load_text(text, source)
    assert_error_bilingual(info.value)


def test_no_config_file_in_chinese(tmp_path: Path) -> None:
    with pytest.raises(ConfigLoadError) as info:
        load_config(tmp_path / "absent.yaml")
    assert_error_bilingual(info.value)


def test_alias_error_keeps_english_and_carries_text() -> None:
    with pytest.raises(YamlStructureError) as info:
        check_structure(ALIAS_BOMB)
    assert str(info.value) == (
        "The YAML uses more than 200 aliases (*name); it looks like an alias bomb and is refused."
    )
    assert assert_bilingual(info.value.text) == (
        "该 YAML 使用了超过 200 个别名（*name），疑似别名炸弹，已拒绝读取。"
    )


# --- Labels -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("layout", "english", "chinese"),
    [
        ("8", "8 per node", "每个节点 8 块"),
        ("0:8", "node 0: 8", "节点 rank 0：8"),
        ("0:8,1:4", "node 0: 8, node 1: 4", "节点 rank 0：8，节点 rank 1：4"),
        (
            "0:8,1:4,2:2",
            "node 0: 8, node 1: 4, node 2: 2",
            "节点 rank 0：8，节点 rank 1：4，节点 rank 2：2",
        ),
    ],
)
def test_gpu_layout_description_in_both_languages(layout: str, english: str, chinese: str) -> None:
    described = GpuLayout.parse(layout).describe()
    assert f"GPUs assumed: {described}" == f"GPUs assumed: {english}"  # callers format it as-is
    assert assert_bilingual(described) == chinese


def test_large_gpu_layout_renders_without_deep_recursion() -> None:
    layout = GpuLayout.parse({rank: 8 for rank in range(5000)})
    zh = render(layout.describe(), "zh")
    assert zh.startswith("节点 rank 0：8，节点 rank 1：8") and zh.endswith("节点 rank 4999：8")


def test_expansion_json_stays_english() -> None:
    """The golden comparison reads ``to_json``: English whatever the messages carry."""
    exp = expand_placement(parse_cluster(cluster({"actor": "0:1:2"})), 8)
    assert exp.to_json()["error"] == exp.error.message
    assert not CJK.search(exp.to_json()["error"])
