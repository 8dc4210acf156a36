"""The Job CRD shipped with the package, made for a site profile, and schema validation.

The file holds the example site's names (group, version, kind, the GPU resource and device
prefix of ``resources.limits``); :func:`crd` puts the profile's in their place, so a site with
its own Job API group gets a CRD and a validation in its own names.
"""

from __future__ import annotations

import copy
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

import yaml

from ..findings import Finding, Severity
from ..i18n import Text
from .device_names import limits_name_pattern
from .json_schema import Draft202012Validator, field_path
from .schema_words import schema_detail, unknown_fields
from .site import SiteProfile

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

CRD_RESOURCE = "jobs.yaml"
UNKNOWN_FIELD_RULE = "JOB-UNKNOWN-FIELD"
SiteKey = tuple[str, str, str, str, str, str]


def _key(site: SiteProfile) -> SiteKey:
    names = (site.api_group, site.api_version_name, site.kind, site.plural)
    return (*names, site.gpu_resource, site.device_prefix)


@cache
def _crd_for(key: SiteKey) -> dict[str, Any]:
    group, version, kind, plural, gpu, prefix = key
    document: dict[str, Any] = yaml.safe_load(
        resources.files(__package__).joinpath("data").joinpath(CRD_RESOURCE).read_text("utf-8")
    )
    document["metadata"]["name"] = f"{plural}.{group}"
    spec = document["spec"]
    spec["group"] = group
    spec["names"].update(plural=plural, singular=kind.lower(), kind=kind)
    spec["versions"][0]["name"] = version
    schema = spec["versions"][0]["schema"]["openAPIV3Schema"]
    schema["properties"]["apiVersion"]["enum"] = [f"{group}/{version}"]
    schema["properties"]["kind"]["enum"] = [kind]
    task = schema["properties"]["spec"]["properties"]["tasks"]["items"]
    container = task["properties"]["template"]["properties"]["spec"]["properties"]["containers"]
    limits = container["items"]["properties"]["resources"]["properties"]["limits"]
    limits["propertyNames"] = {"pattern": limits_name_pattern(gpu, prefix)}
    limits["description"] = f"{gpu} and {prefix}* device resources (no CPU or memory fields)."
    return document


def crd(site: SiteProfile) -> dict[str, Any]:
    """The CRD in the site's names (a fresh copy: callers may edit it)."""
    return copy.deepcopy(_crd_for(_key(site)))


def crd_text(site: SiteProfile) -> str:
    """The CRD as YAML, with a header saying whose names it uses (an example's, or the site's)."""
    header = (
        "# CustomResourceDefinition for RLark Jobs as rlark-widgets models them (this tool's schema, see docs/architecture.md);\n"
        "# RLark's own schema is not published. "
        + (
            "Names from the EXAMPLE site profile: pass --site FILE for your site's.\n"
            if site.is_example
            else f"Names from site profile '{site.name}'.\n"
        )
    )
    return header + yaml.safe_dump(_crd_for(_key(site)), sort_keys=False, allow_unicode=True)


def job_schema(site: SiteProfile) -> dict[str, Any]:
    return cast(dict[str, Any], crd(site)["spec"]["versions"][0]["schema"]["openAPIV3Schema"])


@cache
def _validator_for(key: SiteKey) -> Validator:
    return Draft202012Validator(_crd_for(key)["spec"]["versions"][0]["schema"]["openAPIV3Schema"])


def _validator(site: SiteProfile) -> Validator:
    return _validator_for(_key(site))


def wrongly_typed(manifest: Any, site: SiteProfile) -> list[str]:
    """Fields whose value has the wrong type (a list where a name goes): no Job can be read."""
    return [
        field_path(error.absolute_path) or "(document)"
        for error in _validator(site).iter_errors(manifest)
        if error.validator == "type"
    ]


def _unknown_field(path: str, name: str) -> Finding:
    where = f"{path}.{name}" if path else name
    return Finding(
        UNKNOWN_FIELD_RULE,
        Severity.INFO,
        where,
        Text(
            "{field} is not in rlark-widgets' Job schema (RLark's own is not published): it is "
            "kept as written and not checked.",
            field=where,
        ),
        Text(
            "Nothing to do if the console wrote it; if you added it, check its name and place "
            "against the console's YAML preview."
        ),
        f"seeds/create-training-job.zh.txt Step 4 (任务 YAML 预览); {CRD_RESOURCE}",
    )


def schema_findings(
    manifest: Any, site: SiteProfile, *, unknown_as_info: bool = False
) -> list[Finding]:
    """One SCHEMA finding per violation, pointing at the Job field (``spec.tasks[1].replicas``).

    ``unknown_as_info``: fields our schema does not know (RLark's console YAML may carry some)
    are one info each, not schema errors, so ``check`` can read what the console will submit.
    """
    findings = []
    for error in sorted(
        _validator(site).iter_errors(manifest), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        if "propertyNames" in error.absolute_schema_path:  # a limits key: JOB-DEVICE-NAME says why
            continue
        if unknown_as_info and error.validator == "additionalProperties":
            base = field_path(error.absolute_path)
            findings += [_unknown_field(base, name) for name in unknown_fields(error)]
            continue
        findings.append(
            Finding(
                "JOB-SCHEMA",
                Severity.ERROR,
                field_path(error.absolute_path) or "(document)",
                Text("Does not match the RLark Job schema: {detail}.", detail=schema_detail(error)),
                Text(
                    "Correct the field as the CRD describes it (`rlark-migrate crd` prints the "
                    "schema)."
                ),
                f"rlark-widgets CRD {_key(site)[3]}.{_key(site)[0]} (this tool's schema)",
            )
        )
    return findings
