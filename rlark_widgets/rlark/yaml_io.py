"""Job YAML: stable key order, block scalars for scripts, and a safe parse back to a Job."""

from __future__ import annotations

from typing import Any

import yaml

from ..i18n import Text, TextError
from ..safe_yaml import YamlStructureError, safe_load
from ..visible_text import has_invisible
from .job import MAIN_CONTAINER, Job
from .schema import wrongly_typed
from .site import SiteProfile


class JobYamlError(TextError, ValueError):
    """Text that is not a readable Job manifest (``text`` says where)."""


class _JobDumper(yaml.SafeDumper):
    """Safe dumper that writes multi-line strings (scripts) as ``|`` block scalars, and a string
    holding an invisible character (:mod:`rlark_widgets.visible_text`) double-quoted with that
    character escaped: the YAML on a terminal or in a file shows it, and reads back to exactly
    the value (PyYAML would write a bidi override raw, and NEL in single quotes reads back as a
    line break)."""

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not has_invisible(text):
            return super().write_double_quoted(text, split)
        allow_unicode, self.allow_unicode = self.allow_unicode, False
        try:
            return super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = allow_unicode


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = '"' if has_invisible(data) else "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_JobDumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_JobDumper, sort_keys=False, allow_unicode=True, width=100)


def render_job_yaml(job: Job) -> str:
    """The Job as the YAML a user previews, copies and submits."""
    return dump_yaml(job.to_manifest())


def load_manifest(text: str) -> dict[str, Any]:
    """Parse manifest text safely (no object construction); one mapping document."""
    try:
        data = safe_load(text)
    except YamlStructureError as exc:
        raise JobYamlError(exc.text, exc.fix_text) from None
    except yaml.MarkedYAMLError as exc:
        raise JobYamlError(_syntax_error(str(exc.problem), exc.problem_mark)) from None
    except yaml.YAMLError as exc:
        raise JobYamlError(_syntax_error(str(exc), None)) from None
    if not isinstance(data, dict):
        raise JobYamlError(
            Text("The Job YAML must be one mapping with apiVersion, kind, metadata and spec.")
        )
    return data


def _syntax_error(problem: str, mark: yaml.Mark | None) -> Text:
    """PyYAML's problem (English, as PyYAML says it) and, when known, where it is."""
    if mark is None:
        return Text("The Job YAML is not valid YAML: {problem}.", problem=problem)
    return Text(
        "The Job YAML is not valid YAML at line {line}, column {column}: {problem}.",
        line=mark.line + 1,
        column=mark.column + 1,
        problem=problem,
    )


def parse_job_yaml(text: str, site: SiteProfile) -> Job:
    """Read Job YAML back into a Job (the schema's findings say what else is wrong with it)."""
    return job_from_manifest(load_manifest(text), site)


def job_from_manifest(manifest: dict[str, Any], site: SiteProfile) -> Job:
    """A parsed manifest as a Job, keeping every field the schema allows.

    A value of the wrong type is refused here: the rules read a Job's fields as their types.
    """
    wrong = wrongly_typed(manifest, site)
    if wrong:
        raise JobYamlError(
            Text(
                "The Job YAML has a value of the wrong type at {path}; check it against the CRD.",
                path=wrong[0],
            )
        )
    conflict = _storage_class_conflict(manifest)
    if conflict:
        raise JobYamlError(
            conflict,
            Text("Give each StorageClass its own storage name, or use one StorageClass."),
        )
    for index, task in enumerate(manifest.get("spec", {}).get("tasks") or []):
        containers = task.get("template", {}).get("spec", {}).get("containers") or []
        if containers and not any(c.get("name") == MAIN_CONTAINER for c in containers):
            raise JobYamlError(
                Text(
                    "spec.tasks[{index}].template.spec.containers has no container named main; "
                    "RLark starts the Worker in it.",
                    index=index,
                ),
                Text("Name the container that runs the Worker main."),
            )
    try:
        return Job.from_manifest(manifest, site)
    except (KeyError, TypeError, ValueError, StopIteration, AttributeError, OverflowError) as exc:
        raise JobYamlError(
            Text(
                "The Job YAML does not have the Job shape ({detail}); check it against the CRD.",
                detail=repr(exc),
            )
        ) from None


def _storage_class_conflict(manifest: dict[str, Any]) -> Text | None:
    """A storage name listed twice with two StorageClasses: a Job holds one class per name, so
    reading it would keep one of them silently. (Called once the types match the schema.)"""
    first: dict[str, tuple[int, str]] = {}
    for index, entry in enumerate(manifest.get("spec", {}).get("storage", [])):
        if "name" not in entry:
            continue
        name, storage_class = entry["name"], entry.get("storageClassName", "")
        earlier, earlier_class = first.setdefault(name, (index, storage_class))
        if earlier_class != storage_class:
            return Text(
                "spec.storage[{index}]: storage '{name}' is StorageClass '{storage_class}' here "
                "and '{earlier_class}' in spec.storage[{earlier}]; one storage name has one "
                "StorageClass.",
                index=index,
                name=name,
                storage_class=storage_class,
                earlier_class=earlier_class,
                earlier=earlier,
            )
    return None
