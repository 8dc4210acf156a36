"""Values no registry or cluster accepts are refused, by class (issue #23, class 8).

Generated, each against a resolver written here apart from the code it checks:

- image references: references built from the distribution grammar pass JOB-IMAGE-REFERENCE,
  and every mutation a registry refuses (whitespace, a control character, an uppercase
  repository, a malformed digest, an empty path component) is refused, with the value escaped;
- device names: for any name, ``check`` refuses it (JOB-DEVICE-NAME) exactly when Kubernetes'
  extended resource grammar or the site's prefix does, and ``export`` writes a KubeRay manifest
  exactly when ``check`` accepts the name (so it never writes one ``check`` refuses);
- site profiles: every misspelling of every key, at every level, is refused naming the key and
  the key it most likely meant, in English and Chinese; a value of the wrong type is refused by
  its path; ``--site`` naming no file is a usage error on every command.
"""

from __future__ import annotations

import copy
import re

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_kubernetes_backend import demo_job

from rlark_widgets.cli import main
from rlark_widgets.findings import Severity
from rlark_widgets.pipeline import given_job
from rlark_widgets.rlark.kuberay import check_kuberay, export_job
from rlark_widgets.rlark.site import SiteError, example_site, example_site_path, site_from_dict

# --- image references ------------------------------------------------------------------------
_ALNUM = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6)


def _components(separators: list[str]) -> st.SearchStrategy[str]:
    """Alphanumerics joined by the grammar's separators, none at either end."""
    return st.builds(
        lambda parts, seps: parts[0] + "".join(map(str.__add__, seps, parts[1:])),
        st.lists(_ALNUM, min_size=1, max_size=3),
        st.lists(st.sampled_from(separators), min_size=2, max_size=2),
    )


_COMPONENT = _components([".", "_", "__", "-", "--"])
#: without a domain, a first component holding '.' would be read as one (distribution's rule)
_FIRST_COMPONENT = _components(["_", "__", "-", "--"])
_DOMAIN = st.sampled_from(
    ["registry.example.com", "localhost:5000", "harbor.lab.cn:443", "10.0.0.7:5000", "ghcr.io"]
)
_TAG = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True)
_HEX64 = st.text("0123456789abcdef", min_size=64, max_size=64)


@st.composite
def image_references(draw: st.DrawFn) -> str:
    """A reference the distribution grammar accepts: [domain/]path[:tag][@sha256:hex64]."""
    path = "/".join(draw(st.lists(_COMPONENT, min_size=1, max_size=3)))
    name = f"{draw(_DOMAIN)}/{path}" if draw(st.booleans()) else f"{draw(_FIRST_COMPONENT)}/{path}"
    tag = f":{draw(_TAG)}" if draw(st.booleans()) else ""
    digest = f"@sha256:{draw(_HEX64)}" if draw(st.booleans()) or not tag else ""
    return name + tag + digest


def _refused_by_a_registry(reference: str, how: str, where: int) -> str:
    """``reference`` broken in a way every registry refuses (the issue's cases, by class)."""
    at = where % (len(reference) + 1)
    if how == "whitespace":
        return reference[:at] + " " + reference[at:]
    if how == "newline":
        return reference + "\n" if where % 2 else reference[:at] + "\n" + reference[at:]
    if how == "control":
        return reference[:at] + "\x00" + reference[at:]
    if how == "uppercase":  # the repository's last component (a domain may be upper-case)
        head, slash, last = reference.rpartition("/")
        return head + slash + "R" + last
    if how == "digest":
        name = reference.split("@")[0]
        return name + "@sha256:" + "abc"[: where % 3 + 1]
    assert how == "empty-component"
    return "team//" + reference.rpartition("/")[2]


IMAGE_FIELD = "spec.tasks[0].template.spec.containers[0].image"


def _image_findings(image: str) -> list:
    job = demo_job()
    job.roles[0].image = image
    return [
        f
        for f in given_job(job, site=example_site()).findings
        if f.rule_id == "JOB-IMAGE-REFERENCE"
    ]


@given(reference=image_references())
def test_every_reference_of_the_distribution_grammar_passes(reference: str) -> None:
    assert _image_findings(reference) == []


@given(
    reference=image_references(),
    how=st.sampled_from(
        ["whitespace", "newline", "control", "uppercase", "digest", "empty-component"]
    ),
    where=st.integers(0, 200),
)
def test_every_reference_a_registry_refuses_is_refused_by_check(
    reference: str, how: str, where: int
) -> None:
    broken = _refused_by_a_registry(reference, how, where)
    (finding,) = _image_findings(broken)
    assert finding.severity is Severity.ERROR and finding.path == IMAGE_FIELD
    for lang in ("en", "zh"):
        shown = finding.text.render(lang)
        assert "\n" not in shown and "\x00" not in shown  # the value is shown escaped


# --- device names ----------------------------------------------------------------------------
# Kubernetes' own grammar, as apimachinery writes it (validation.go), apart from the code's.
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _is_qualified_name(value: str) -> bool:
    """apimachinery IsQualifiedName: [prefix/]name, prefix a DNS-1123 subdomain <= 253."""
    parts = value.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return 0 < len(name) <= 63 and bool(_QUALIFIED_NAME.fullmatch(name))


def _kubernetes_accepts_as_device(name: str, prefix: str) -> bool:
    """IsExtendedResourceName, and under the site's device prefix."""
    native = "/" not in name or "kubernetes.io/" in name
    extended = (
        not native and not name.startswith("requests.") and _is_qualified_name("requests." + name)
    )
    return extended and bool(prefix) and name.startswith(prefix)


_NAME_CHARS = "abcxyzABZ019-_./ \n\x00é"
device_names = st.one_of(
    st.from_regex(r"rlinf\.io/[A-Za-z0-9]([-A-Za-z0-9_.]{0,70}[A-Za-z0-9])?", fullmatch=True),
    st.builds(lambda s: "rlinf.io/" + s, st.text(_NAME_CHARS, max_size=70)),
    st.builds(
        lambda domain, name: f"{domain}/{name}",
        st.text("abcz09-.Aé", min_size=0, max_size=20),
        st.text(_NAME_CHARS, max_size=10),
    ),
    st.sampled_from(
        ["cpu", "memory", "requests.rlinf.io/x", "rlinf.io.kubernetes.io/x", "example.com/fpga"]
    ),
    st.text(_NAME_CHARS, max_size=30),
)
LIMITS = "spec.tasks[2].template.spec.containers[0].resources.limits"


@given(name=device_names)
def test_check_and_export_agree_on_every_device_name(name: str) -> None:
    site = example_site()
    job = demo_job()
    job.roles[2].devices = {name: 1}
    expected = _kubernetes_accepts_as_device(name, site.device_prefix)
    refused = [f for f in given_job(job, site=site).findings if f.rule_id == "JOB-DEVICE-NAME"]
    assert (not refused) == expected, (name, refused)
    assert not [f for f in given_job(job, site=site).findings if f.rule_id == "JOB-SCHEMA"]
    exported = export_job(job, site=site)
    if refused:
        assert exported.manifest is None
        assert [(f.rule_id, f.path) for f in exported.findings] == [("JOB-DEVICE-NAME", LIMITS)]
    else:
        assert exported.manifest is not None
        spec = exported.manifest["spec"]["rayClusterSpec"]
        limits = [
            g["template"]["spec"]["containers"][0]["resources"]["limits"]
            for g in spec["workerGroupSpecs"]
            if g["template"]["spec"]["containers"][0].get("resources")
        ]
        assert any(limit.get(name) == 1 for limit in limits)
        assert not [f for f in check_kuberay(exported.manifest, site=site) if f.rule_id in (
            "JOB-DEVICE-NAME", "KRAY-SCHEMA")]  # fmt: skip


# --- site profiles ---------------------------------------------------------------------------
PROFILE = {
    k: v for k, v in yaml.safe_load(example_site_path().read_text()).items() if k != "example"
}
PROFILE["allowedHostPaths"] = ["/data/shared"]


def _key_paths(data: dict, base: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key of the profile, at every level (``("jobApi", "group")``)."""
    paths = []
    for key, value in data.items():
        paths.append((*base, key))
        if isinstance(value, dict):
            paths += _key_paths(value, (*base, key))
    return paths


KEY_PATHS = _key_paths(PROFILE)


def _siblings(path: tuple[str, ...]) -> dict:
    data = PROFILE
    for key in path[:-1]:
        data = data[key]
    return data


@st.composite
def misspellings(draw: st.DrawFn) -> tuple[tuple[str, ...], str]:
    """A key and one typing slip of it: a letter dropped, doubled, swapped, re-cased or struck
    next to it, never another valid key at that level."""
    path = draw(st.sampled_from(KEY_PATHS))
    key = path[-1]
    at = draw(st.integers(0, len(key) - 1))
    slip = draw(st.sampled_from(["drop", "double", "swap", "case", "strike", "append"]))
    if slip == "drop":
        wrong = key[:at] + key[at + 1 :]
    elif slip == "double":
        wrong = key[:at] + key[at] + key[at:]
    elif slip == "swap":
        at = min(at, len(key) - 2)
        wrong = key[:at] + key[at + 1] + key[at] + key[at + 2 :]
    elif slip == "case":
        wrong = key[:at] + key[at].swapcase() + key[at + 1 :]
    elif slip == "strike":
        wrong = key[:at] + draw(st.sampled_from("aeiosnrt")) + key[at + 1 :]
    else:
        wrong = key + draw(st.sampled_from(["s", "_", "1"]))
    assume(wrong and wrong not in _siblings(path))
    return path, wrong


def _with_key_renamed(path: tuple[str, ...], wrong: str) -> dict:
    profile = copy.deepcopy(PROFILE)
    data = profile
    for key in path[:-1]:
        data = data[key]
    data[wrong] = data.pop(path[-1])
    return profile


def _dotted(parts: tuple[str, ...]) -> str:
    return ".".join(parts)


@given(misspelt=misspellings())
def test_every_misspelt_key_is_refused_naming_it_and_the_key_it_meant(misspelt) -> None:
    path, wrong = misspelt
    with pytest.raises(SiteError) as raised:
        site_from_dict(_with_key_renamed(path, wrong), "site.yaml")
    wrong_path, meant = _dotted((*path[:-1], wrong)), _dotted(path)
    assert raised.value.text.render() == (
        f"{wrong_path} is not a site-profile key: did you mean {meant}?"
    )
    assert (
        raised.value.text.render("zh") == f"{wrong_path} 不是站点配置中的键：是不是想写 {meant}？"
    )
    assert raised.value.fix_text.render() == (
        f"Rename {wrong_path} to {meant} (keys are case-sensitive)."
    )


def test_a_key_like_none_lists_the_keys_of_its_level() -> None:
    with pytest.raises(SiteError) as raised:
        site_from_dict({"jobApi": {**PROFILE["jobApi"], "zzz": 1}})
    assert raised.value.text.render() == (
        "jobApi.zzz is not a site-profile key; the keys here are: group, version, kind, plural."
    )


_WRONG = {
    "string": st.one_of(st.integers(), st.lists(st.text(max_size=3), max_size=2), st.booleans()),
    "list": st.one_of(
        st.text(max_size=5),
        st.integers(),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    ),
    "mapping": st.one_of(st.text(max_size=5), st.integers(), st.lists(st.integers(), max_size=2)),
}
EXPECTED = {
    "string": "a non-empty string is needed.",
    "list": "a list of names is needed.",
    "mapping": "a mapping is needed.",
}


def _kind(value: object) -> str:
    return "mapping" if isinstance(value, dict) else "list" if isinstance(value, list) else "string"


@given(path=st.sampled_from(KEY_PATHS), data=st.data())
def test_a_value_of_the_wrong_type_is_refused_by_its_path(path, data) -> None:
    kind = _kind(_siblings(path)[path[-1]])
    wrong = data.draw(_WRONG[kind], label="value")
    assume(not (kind == "list" and wrong is None))
    profile = copy.deepcopy(PROFILE)
    _siblings_in(profile, path)[path[-1]] = wrong
    with pytest.raises(SiteError) as raised:
        site_from_dict(profile, "site.yaml")
    assert raised.value.text.render() == f"{_dotted(path)}: {EXPECTED[kind]}"


def _siblings_in(profile: dict, path: tuple[str, ...]) -> dict:
    data = profile
    for key in path[:-1]:
        data = data[key]
    return data


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # capsys is read each time
@given(
    command=st.sampled_from(
        [["rules"], ["crd"], ["check", "x.yaml"], ["list"], ["plan", "c.yaml"]]
    ),
    where=st.sampled_from(["missing", "directory"]),
    lang=st.sampled_from(["en", "zh"]),
    before=st.booleans(),
)
def test_a_site_that_names_no_profile_is_a_usage_error_on_every_command(
    command, where, lang, before, tmp_path_factory, capsys
) -> None:
    folder = tmp_path_factory.mktemp("site")
    site = str(folder / "MISSING.yaml") if where == "missing" else str(folder)
    site_args = ["--site", site]
    argv = [*site_args, *command] if before else [*command, *site_args]
    assert main(["--lang", lang, *argv]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "Traceback" not in said.err
    assert "--site" in said.err and site in said.err
