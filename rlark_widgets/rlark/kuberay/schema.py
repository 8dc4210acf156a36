"""KubeRay's own CRDs (v1.7.0, shipped unchanged) and validation of RayJob/RayCluster manifests.

The schema is one we did not write: a manifest that passes here is one a real API server with
KubeRay installed accepts, field for field.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, cast

import yaml

from ...contract import KUBERAY_API_VERSION
from ...findings import Finding, Severity
from ...i18n import Text
from ..json_schema import Draft202012Validator, field_path

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

API_VERSION = KUBERAY_API_VERSION
GROUP, VERSION = API_VERSION.split("/")
PLURALS = {"RayJob": "rayjobs", "RayCluster": "rayclusters"}
#: KubeRay's CRD files are named ``<group>_<plural>.yaml``.
CRD_FILES = {kind: f"{GROUP}_{plural}.yaml" for kind, plural in PLURALS.items()}
KINDS = tuple(CRD_FILES)
SOURCE = "KubeRay v1.7.0 CRDs (ray-operator/config/crd/bases)"


def crd_text(kind: str) -> str:
    return resources.files(__package__).joinpath("data", CRD_FILES[kind]).read_text("utf-8")


@cache
def crd(kind: str) -> dict[str, Any]:
    return cast(dict[str, Any], yaml.safe_load(crd_text(kind)))


def kind_schema(kind: str) -> dict[str, Any]:
    """The served ``v1`` version's openAPIV3Schema of ``kind``."""
    version = next(v for v in crd(kind)["spec"]["versions"] if v["name"] == VERSION)
    return cast(dict[str, Any], version["schema"]["openAPIV3Schema"])


@cache
def _validator(kind: str) -> Validator:
    return Draft202012Validator(kind_schema(kind))


def is_kuberay(manifest: Any) -> bool:
    """Whether a parsed manifest claims to be a KubeRay object (``apiVersion: ray.io/...``)."""
    return isinstance(manifest, dict) and str(manifest.get("apiVersion", "")).startswith(
        f"{GROUP}/"
    )


def kuberay_schema_findings(manifest: dict[str, Any]) -> list[Finding]:
    """One KRAY-SCHEMA finding per violation of KubeRay's schema, at the manifest's field."""
    kind = manifest.get("kind")
    if manifest.get("apiVersion") != API_VERSION or kind not in KINDS:
        return [
            Finding(
                "KRAY-SCHEMA",
                Severity.ERROR,
                "kind",
                Text(
                    "'{api_version}' kind '{kind}' is not a KubeRay object this tool knows.",
                    api_version=str(manifest.get("apiVersion")),
                    kind=str(kind),
                ),
                Text("Use apiVersion ray.io/v1 with kind RayJob or RayCluster."),
                SOURCE,
            )
        ]
    errors = sorted(
        _validator(kind).iter_errors(manifest), key=lambda e: [str(p) for p in e.absolute_path]
    )
    return [
        Finding(
            "KRAY-SCHEMA",
            Severity.ERROR,
            field_path(error.absolute_path) or "(document)",
            # jsonschema's own explanation stays as it says it (English), quoted in ours
            Text(
                "Does not match KubeRay's {kind} schema: {detail}.", kind=kind, detail=error.message
            ),
            Text(
                "Correct the field as KubeRay's CRD describes it (`kubectl explain {plural}.spec`).",
                plural=PLURALS[kind],
            ),
            SOURCE,
        )
        for error in errors
    ]
