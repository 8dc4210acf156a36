"""The site profile: the facts only the platform admin knows, as data (docs/architecture.md, "Facts have one home").

Label names and values, StorageClasses and device resource names are defined by each RLark
environment and must not be guessed (seeds/create-training-job.zh.txt). So the label naming the
cluster, the node-category label and its values (the console's 云算力 / 端算力 / 端真机), the
device prefix, StorageClasses, reserved environment names, the RLinf checkout in the image, the
Job's API group/version/kind and the Worker pod labels are read from a YAML file: ``--site
FILE``, ``$RLARK_SITE`` or the app's site picker. The shipped profile is an example and says so;
a value a profile leaves out is taken from the example and listed in ``example_fields``, so
every output can say which values are examples. Nothing is refused for being absent from the
example: a site may name any category value, prefix or group. A key the profile's JSON schema
(``data/site.schema.json``) does not know is refused with the nearest valid key, and a value of
the wrong type with its path: a misspelt key would otherwise fall back to the example unseen.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import yaml

from ..i18n import Text, TextError
from ..input_files import InputFileError, read_input_text
from ..safe_yaml import YamlStructureError, safe_load
from .json_schema import Draft202012Validator, field_path

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

#: The console's node categories, in its order, with their console names (seeds).
CONSOLE_CATEGORIES = {"cloud": "云算力", "edge": "端算力", "robot": "端真机"}
SITE_ENV = "RLARK_SITE"
EXAMPLE_RESOURCE = "example.yaml"
SCHEMA_RESOURCE = "site.schema.json"
FIELDS = (
    "clusterLabel",
    "nodeCategory",
    "devicePrefix",
    "gpuResource",
    "storageClasses",
    "reservedEnv",
    "reservedEnvPrefixes",
    "rlinfDir",
    "jobApi",
    "workerLabels",
)


class SiteError(TextError, ValueError):
    """A site profile that cannot be read; ``text`` names the field."""


@dataclass(frozen=True)
class SiteProfile:
    """One RLark environment's platform facts (see the module docstring)."""

    name: str
    cluster_label: str
    category_label: str
    #: console category (cloud / edge / robot) -> the label value this site uses for it
    categories: Mapping[str, str]
    device_prefix: str
    gpu_resource: str
    storage_classes: tuple[str, ...]
    reserved_env: frozenset[str]
    reserved_env_prefixes: tuple[str, ...]
    rlinf_dir: str
    api_group: str
    api_version_name: str
    kind: str
    plural: str
    job_label: str
    task_label: str
    index_label: str
    #: node paths the site hands to Workers on purpose (JOB-HOSTPATH-SYSTEM allows them and
    #: everything under them); none unless the admin lists them
    allowed_host_paths: tuple[str, ...] = ()
    #: fields whose values are the shipped example's, not the site's (all of them: the example)
    example_fields: frozenset[str] = frozenset()
    source: str = ""

    @property
    def is_example(self) -> bool:
        return bool(self.example_fields)

    @property
    def api_version(self) -> str:
        return f"{self.api_group}/{self.api_version_name}"

    @property
    def job_resource(self) -> str:
        return f"{self.plural}.{self.api_group}"

    def category_value(self, console: str) -> str | None:
        """The label value of a console category here, or None when the site names none."""
        return self.categories.get(console)

    def console_category(self, value: str | None) -> str | None:
        """The console category (cloud / edge / robot) a node's label value stands for."""
        return next((k for k, v in self.categories.items() if v == value), None)

    def is_device(self, resource: str) -> bool:
        return bool(self.device_prefix) and resource.startswith(self.device_prefix)

    def provenance(self) -> Text:
        """One line for every output that uses the profile: which values are examples."""
        if self.example_fields >= set(FIELDS):
            return Text(
                "Site profile: the shipped EXAMPLE ({source}). Its labels, categories, "
                "StorageClasses and names are examples, not RLark's: ask your platform admin for "
                "your site's values and pass them with --site FILE or $RLARK_SITE.",
                source=self.source,
            )
        if self.example_fields:
            return Text(
                "Site profile '{name}' ({source}); these values are the shipped example's, not "
                "your site's: {fields}.",
                name=self.name,
                source=self.source,
                fields=", ".join(sorted(self.example_fields)),
            )
        return Text("Site profile '{name}' ({source}).", name=self.name, source=self.source)


def _example_text() -> str:
    return (
        resources.files(__package__)
        .joinpath("data")
        .joinpath("sites")
        .joinpath(EXAMPLE_RESOURCE)
        .read_text(encoding="utf-8")
    )


@cache
def example_site() -> SiteProfile:
    """The shipped example profile (every value labelled as an example)."""
    return site_from_dict(yaml.safe_load(_example_text()), "rlark_widgets example")


def example_site_path() -> Path:
    """The shipped example's file, for pickers and ``--site`` help."""
    return Path(str(resources.files(__package__).joinpath("data", "sites", EXAMPLE_RESOURCE)))


def _text(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise SiteError(Text("{path}: a non-empty string is needed.", path=f"{path}{key}"))
    return value.strip()


def _strings(value: Any, path: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise SiteError(Text("{path}: a list of names is needed.", path=path))
    return tuple(value)


def _paths(value: Any, path: str) -> tuple[str, ...]:
    paths = _strings(value, path)
    for given in paths:
        if not given.startswith("/"):
            raise SiteError(
                Text("{path}: '{value}' is not an absolute path.", path=path, value=given)
            )
    return paths


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SiteError(Text("{path}: a mapping is needed.", path=path))
    return value


@cache
def _schema_validator() -> Validator:
    schema = resources.files(__package__).joinpath("data", SCHEMA_RESOURCE).read_text("utf-8")
    return Draft202012Validator(json.loads(schema))


def nearest_key(key: str, known: list[str]) -> str | None:
    """The valid key a misspelt one most likely meant (case and one or two edits away)."""
    by_case = [k for k in known if k.lower() == key.lower()]
    if by_case:
        return by_case[0]
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(key.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def _unknown_key(error: ValidationError) -> SiteError:
    schema, instance = (
        cast(Mapping[str, Any], error.schema),
        cast(Mapping[Any, Any], error.instance),
    )
    known = list(schema.get("properties") or {})
    key = next(str(k) for k in instance if k not in known)
    where = field_path([*error.absolute_path, key])
    nearest = nearest_key(key, known)
    if nearest is None:
        return SiteError(
            Text(
                "{field} is not a site-profile key; the keys here are: {keys}.",
                field=where,
                keys=", ".join(known),
            ),
            Text("Remove it, or use one of those keys (see the shipped example)."),
        )
    meant = field_path([*error.absolute_path, nearest])
    return SiteError(
        Text(
            "{field} is not a site-profile key: did you mean {nearest}?", field=where, nearest=meant
        ),
        Text("Rename {field} to {nearest} (keys are case-sensitive).", field=where, nearest=meant),
    )


def _schema_error(error: ValidationError) -> SiteError:
    """One schema violation in words, at the path of the key or value it concerns."""
    if error.validator == "additionalProperties":
        return _unknown_key(error)
    path = field_path(error.absolute_path) or "(site profile)"
    wanted = error.validator_value if error.validator == "type" else None
    wanted = wanted[0] if isinstance(wanted, list) else wanted
    if wanted == "string":
        return SiteError(Text("{path}: a non-empty string is needed.", path=path))
    if wanted == "array":
        return SiteError(Text("{path}: a list of names is needed.", path=path))
    if wanted == "object":
        return SiteError(Text("{path}: a mapping is needed.", path=path))
    if wanted == "boolean":
        return SiteError(Text("{path}: true or false is needed.", path=path))
    return SiteError(  # not reached with the shipped schema, which checks only keys and types
        Text(
            "{path} does not match the site-profile schema: {detail}",
            path=path,
            detail=error.message,
        )
    )


def site_from_dict(data: Any, source: str = "") -> SiteProfile:
    """A profile from its YAML mapping; fields it leaves out come from the example, flagged.

    The schema is checked first, on what the profile wrote (not on the merge with the example):
    an unknown key or a wrongly typed value is a :class:`SiteError` naming it.
    """
    data = _mapping(data, "(site profile)")
    errors = sorted(
        _schema_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        raise _schema_error(errors[0])
    if data.get("example") is True:
        missing = set(FIELDS)
        merged: dict[str, Any] = dict(data)
    else:
        base = yaml.safe_load(_example_text())
        missing = {k for k in FIELDS if k not in data}
        merged = {**base, **data}
    category = _mapping(merged.get("nodeCategory"), "nodeCategory")
    values = _mapping(category.get("values") or {}, "nodeCategory.values")
    categories = {str(k): str(v) for k, v in values.items() if v is not None and str(v)}
    api = _mapping(merged.get("jobApi"), "jobApi")
    workers = _mapping(merged.get("workerLabels"), "workerLabels")
    prefix = merged.get("devicePrefix")
    if not isinstance(prefix, str):
        raise SiteError(Text("{path}: a non-empty string is needed.", path="devicePrefix"))
    return SiteProfile(
        name=str(data.get("name") or Path(source).stem or "site"),
        cluster_label=_text(merged, "clusterLabel", ""),
        category_label=_text(category, "label", "nodeCategory."),
        categories=categories,
        device_prefix=prefix,
        gpu_resource=_text(merged, "gpuResource", ""),
        storage_classes=_strings(merged.get("storageClasses") or [], "storageClasses"),
        reserved_env=frozenset(_strings(merged.get("reservedEnv") or [], "reservedEnv")),
        reserved_env_prefixes=_strings(
            merged.get("reservedEnvPrefixes") or [], "reservedEnvPrefixes"
        ),
        rlinf_dir=_text(merged, "rlinfDir", ""),
        api_group=_text(api, "group", "jobApi."),
        api_version_name=_text(api, "version", "jobApi."),
        kind=_text(api, "kind", "jobApi."),
        plural=_text(api, "plural", "jobApi."),
        job_label=_text(workers, "job", "workerLabels."),
        task_label=_text(workers, "task", "workerLabels."),
        index_label=_text(workers, "workerIndex", "workerLabels."),
        allowed_host_paths=_paths(data.get("allowedHostPaths") or [], "allowedHostPaths"),
        example_fields=frozenset(missing),
        source=source,
    )


def load_site(path: str | Path) -> SiteProfile:
    """Read a site profile file; raises :class:`SiteError` naming the problem."""
    file = Path(path).expanduser()
    if not file.exists():
        raise SiteError(
            Text("No site profile at {file}.", file=str(file)),
            Text("Give the YAML file your platform admin filled in (see the shipped example)."),
        )
    try:
        data = safe_load(read_input_text(file))
    except InputFileError as exc:
        raise SiteError(exc.text, exc.fix_text) from None
    except (yaml.YAMLError, YamlStructureError) as exc:
        raise SiteError(
            Text(
                "{name} is not valid YAML: {detail}",
                name=file.name,
                detail=exc.text if isinstance(exc, YamlStructureError) else str(exc),
            )
        ) from None
    return site_from_dict(data, str(file))


def resolve_site(path: str | Path | None = None) -> SiteProfile:
    """``path``, else ``$RLARK_SITE``, else the shipped example (labelled as one)."""
    chosen = path or os.environ.get(SITE_ENV)
    return load_site(chosen) if chosen else example_site()
