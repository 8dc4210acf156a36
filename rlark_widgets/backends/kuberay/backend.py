"""The KubeRay backend: the same plan as a RayJob or RayCluster, on any Kubernetes with KubeRay.

- ``submit`` exports the Job (``rlark_widgets.rlark.kuberay``) and creates it exactly once; a
  second call or a 409 never makes a duplicate and never overwrites, as on the RLark backend.
- ``stop`` suspends it (``spec.suspend: true``): KubeRay deletes the RayCluster's pods and keeps
  the object, so its status and YAML stay readable. A later resume starts from scratch.
- ``delete`` deletes the object; KubeRay then deletes its RayCluster and pods. PVCs are the
  user's (KubeRay creates none), so nothing deletes them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kubernetes import client

from ... import shell
from ...findings import Finding, Severity, has_errors
from ...i18n import Text
from ...monitor.snapshot import JobSnapshot, WorkerSnapshot
from ...rlark.job import Job
from ...rlark.kuberay import PLURALS, Export, ExportOptions, export_job, read_kuberay
from ...rlark.kuberay.schema import GROUP, VERSION
from ...rlinf import Expansion, RLinfConfig
from ..base import BackendError, SubmitResult
from ..k8s.api import Action, KubeApiError
from ..k8s.cluster_backend import ClusterBackend
from ..k8s.differences import spec_differences
from ..k8s.nodes import namespace_findings
from ..k8s.ownership import existing_claims_note, made_by_us, not_made_by_us
from ..k8s.pods import read_worker_log
from .preflight import (
    access_findings,
    claim_findings,
    crd_findings,
    dry_run_findings,
    node_findings,
)
from .snapshot import KubeRaySnapshotReader


def node_groups_of(config: RLinfConfig | None) -> bool | None:
    """Whether an RLinf config has ``cluster.node_groups`` (None: no config to tell)."""
    if config is None:
        return None
    return bool(config.get("cluster.node_groups"))


class KubeRayBackend(ClusterBackend):
    """RayJob/RayCluster on Kubernetes: inventory, preflight, submit once, snapshot, logs, stop."""

    name = "kuberay"

    def __init__(
        self,
        api_client: client.ApiClient | None = None,
        *,
        options: ExportOptions | None = None,
        **connection: Any,
    ) -> None:
        """As the Kubernetes backend (``connection``: namespace, kubeconfig, cluster, timeout,
        retry, site, checkpoint_root: :class:`..k8s.cluster_backend.ClusterBackend`);
        ``options`` say what to export (kind, TTLs, claims)."""
        super().__init__(api_client, **connection)
        self.options = options or ExportOptions()
        self.reader = KubeRaySnapshotReader(self.api, self.namespace, self.checkpoint_root)

    @property
    def kind(self) -> str:
        return self.options.kind

    def export_options(self) -> ExportOptions:
        """What a submission exports (the :class:`~..abilities.SubmitsExport` ability)."""
        return self.options

    # --- the cluster -------------------------------------------------------------------------
    def export(self, job: Job, node_groups: bool | None = None) -> Export:
        """The manifest as it is sent: in this backend's namespace (the Job is not changed)."""
        placed = dataclasses.replace(job, namespace=self.namespace)
        options = self.options
        if node_groups is not None:
            options = dataclasses.replace(options, node_groups=node_groups)
        return export_job(placed, options, site=self.site)

    def preflight(self, job: Job, config: RLinfConfig | None = None) -> list[Finding]:
        """The manifest ``submit`` would create (same namespace, same groups: ``config`` decides
        whether every rank gets its own), checked by the server and against the nodes.

        The export's own findings are not repeated here: the pipeline weighs them
        (:func:`~rlark_widgets.pipeline.weighed_findings`), as ``export`` and ``check`` show them.
        """
        exported = self.export(job, node_groups_of(config))
        findings = namespace_findings(job, self.namespace)
        if exported.manifest is None:
            return findings
        crd = crd_findings(self.api, self.kind)
        access = access_findings(self.api, self.namespace, self.kind)
        findings += crd + access
        if not has_errors(crd + access + exported.findings):
            findings += dry_run_findings(self.api, exported.manifest)
            findings += claim_findings(self.api, exported.manifest)
        return findings + node_findings(exported.manifest, self.inventory(), self.cluster)

    # --- submit once --------------------------------------------------------------------------
    def _where(self, kind: str, name: str) -> Text:
        return Text(
            "namespace '{namespace}' on {host} ({command})",
            namespace=self.namespace,
            host=self.api.host,
            command=shell.command(
                "kubectl", "-n", self.namespace, "get", f"{PLURALS[kind]}.{GROUP}", name
            ),
        )

    def submit(
        self, job: Job, expansion: Expansion | None = None, config: RLinfConfig | None = None
    ) -> SubmitResult:
        """Export and create once; ``config`` (the RLinf config) tells whether ranks matter."""
        exported = self.export(job, node_groups_of(config))
        errors = [f for f in exported.findings if f.severity is Severity.ERROR]
        if exported.manifest is None or errors:
            first = errors[0]
            raise BackendError(first.text, first.fix_text)
        manifest, kind = exported.manifest, self.kind
        with self._submit_lock:
            try:
                self.api.call(
                    Action("create", f"{PLURALS[kind]}.{GROUP}", self.namespace, job.name),
                    self.api.custom.create_namespaced_custom_object,
                    GROUP,
                    VERSION,
                    self.namespace,
                    PLURALS[kind],
                    manifest,
                )
            except KubeApiError as exc:
                if exc.status != 409:
                    raise
                return self._already_there(kind, job.name, manifest, exc.maybe_applied)
        message = Text(
            "Created {kind} '{name}' in namespace '{namespace}'.",
            kind=kind,
            name=job.name,
            namespace=self.namespace,
        )
        note = existing_claims_note(job)
        if note is not None:
            message = Text("{done} Note: {note}", done=message, note=note)
        return SubmitResult(job.name, True, message, self._where(kind, job.name))

    def _already_there(
        self, kind: str, name: str, manifest: dict[str, Any], ours: bool
    ) -> SubmitResult:
        found = self.reader.find(name)
        if found is None:
            raise BackendError(
                Text(
                    "{kind} '{name}' existed a moment ago in namespace '{namespace}' and is gone"
                    " now.",
                    kind=kind,
                    name=name,
                    namespace=self.namespace,
                ),
                Text("Submit again."),
            )
        there, current = found
        where = self._where(there, name)
        differences = (
            list(spec_differences(manifest["spec"], current.get("spec"), server_may_add=True))
            if there == kind
            else ["kind"]
        )
        if not differences:
            message = (
                Text(
                    "Created {kind} '{name}' in namespace '{namespace}' (the first answer was"
                    " lost; the server has it exactly as submitted).",
                    kind=kind,
                    name=name,
                    namespace=self.namespace,
                )
                if ours
                else Text(
                    "{kind} '{name}' already exists in namespace '{namespace}' and is identical:"
                    " not submitted again, no duplicate made. Open it with `{status}`.",
                    kind=kind,
                    name=name,
                    namespace=self.namespace,
                    status=f"rlark-migrate status {name} --backend kuberay",
                )
            )
            return SubmitResult(name, ours, message, where)
        shown = ", ".join(differences[:3]) + (" ..." if len(differences) > 3 else "")
        message = Text(
            "A different {kind} named '{name}' already exists in namespace '{namespace}' (it"
            " differs at {paths}). It was NOT overwritten. Open it with `{status}`, delete it"
            " first (`{delete}`), or choose another name.",
            kind=there,
            name=name,
            namespace=self.namespace,
            paths=shown,
            status=f"rlark-migrate status {name} --backend kuberay",
            delete=f"rlark-migrate delete {name} --backend kuberay",
        )
        return SubmitResult(name, False, message, where)

    # --- watching -----------------------------------------------------------------------------
    def list_jobs(self) -> list[str]:
        """The RayJobs and RayClusters this tool created in the namespace, oldest first."""
        return list(dict.fromkeys(o["metadata"]["name"] for o in self.reader.ours()))

    def job(self, name: str) -> Job | None:
        """The submitted object read back as a Job (None when there is none)."""
        found = self.reader.find(name)
        if found is None:
            return None
        kind, obj = found
        try:
            return read_kuberay(obj, self.site).job
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            raise BackendError(
                Text(
                    "The {kind} '{name}' in namespace '{namespace}' does not have the shape"
                    " `rlark-migrate export` writes.",
                    kind=kind,
                    name=name,
                    namespace=self.namespace,
                ),
                Text(
                    "Look at it with `{command}`.",
                    command=shell.command(
                        "kubectl",
                        "-n",
                        self.namespace,
                        "get",
                        f"{PLURALS[kind]}.{GROUP}",
                        name,
                        "-o",
                        "yaml",
                    ),
                ),
            ) from None

    def submitted(self, name: str) -> dict[str, Any] | None:
        """The RayJob/RayCluster as the cluster holds it, without status and server metadata."""
        found = self.reader.find(name)
        if found is None:
            return None
        obj = found[1]
        metadata = obj.get("metadata") or {}
        kept = {k: metadata[k] for k in ("name", "namespace", "annotations") if k in metadata}
        return {
            "apiVersion": obj["apiVersion"],
            "kind": obj["kind"],
            "metadata": kept,
            "spec": obj["spec"],
        }

    def snapshot(self, name: str) -> JobSnapshot:
        return self.reader.read(name)

    def logs(
        self,
        name: str,
        worker: str,
        tail: int = 200,
        *,
        workers: list[WorkerSnapshot] | None = None,
    ) -> str:
        """Log tail of one Worker, named by its key (``role/index``) or its pod name; ``workers``:
        from a snapshot just taken (None: its pods are listed here)."""
        workers = self.reader.workers_of(name) if workers is None else workers
        return read_worker_log(self.api, self.namespace, name, workers, worker, tail)

    # --- ending -------------------------------------------------------------------------------
    def _nothing(self, name: str, verb: Text) -> Text:
        return Text(
            "No RayJob or RayCluster '{name}' in namespace '{namespace}': nothing to {verb}.",
            name=name,
            namespace=self.namespace,
            verb=verb,
        )

    def _refuse_foreign(self, kind: str, name: str, found: dict[str, Any]) -> None:
        """A RayJob or RayCluster this tool did not create is neither stopped nor deleted."""
        if not made_by_us(found):
            command = shell.command(
                "kubectl", "-n", self.namespace, "delete", f"{PLURALS[kind]}.{GROUP}", name
            )
            raise not_made_by_us(kind, name, self.namespace, command)

    def stop(self, name: str) -> Text:
        """Suspend: KubeRay deletes the pods and keeps the object (status, YAML) readable."""
        found = self.reader.find(name)
        if found is None:
            return self._nothing(name, Text("stop"))
        kind = found[0]
        self._refuse_foreign(kind, name, found[1])
        self.api.call(
            Action("patch", f"{PLURALS[kind]}.{GROUP}", self.namespace, name),
            self.api.custom.patch_namespaced_custom_object,
            GROUP,
            VERSION,
            self.namespace,
            PLURALS[kind],
            name,
            {"spec": {"suspend": True}},
        )
        return Text(
            "Suspended {kind} '{name}' in namespace '{namespace}': KubeRay deletes its Ray pods"
            " and keeps the object. PVCs and the run record stay. Starting it again starts from"
            " scratch; to resume, set runner.resume_dir to a persisted global_step_N.",
            kind=kind,
            name=name,
            namespace=self.namespace,
        )

    def removes(self, name: str) -> Text:
        """What :meth:`delete` removes: the object, and with it KubeRay's RayCluster and pods."""
        found = self.reader.find(name)
        kind = found[0] if found is not None else "RayJob"
        return Text(
            "{kind} '{name}' in namespace '{namespace}', and with it the RayCluster and Ray pods"
            " KubeRay made for it. The PVCs it mounts are yours and stay.",
            kind=kind,
            name=name,
            namespace=self.namespace,
        )

    def delete(self, name: str) -> Text:
        """Delete the object (KubeRay removes its RayCluster and pods); PVCs are the user's."""
        found = self.reader.find(name)
        if found is None:
            return self._nothing(name, Text("delete"))
        kind = found[0]
        self._refuse_foreign(kind, name, found[1])
        try:
            self.api.call(
                Action("delete", f"{PLURALS[kind]}.{GROUP}", self.namespace, name),
                self.api.custom.delete_namespaced_custom_object,
                GROUP,
                VERSION,
                self.namespace,
                PLURALS[kind],
                name,
            )
        except KubeApiError as exc:
            if exc.status != 404:
                raise
        return Text(
            "Deleted {kind} '{name}' in namespace '{namespace}'; KubeRay removes its pods. The"
            " PVCs it mounted are yours and stay (list them with `{command}`).",
            kind=kind,
            name=name,
            namespace=self.namespace,
            command=shell.command("kubectl", "-n", self.namespace, "get", "pvc"),
        )
