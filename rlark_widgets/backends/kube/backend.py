"""The Kubernetes backend: RLark Jobs on a real cluster, through the official ``kubernetes`` client.

What each operation means (the README repeats it):

- ``submit`` creates the Job exactly once. A second call, a double click or a 409 never makes a
  duplicate and never overwrites: it reads the Job already there and says whether it is
  identical or different, and how to open or delete it. 429, 5xx and connection failures are
  retried a bounded number of times; everything else fails at once with the server's words.
- ``stop`` deletes the Job object. RLark then removes its Worker pods. The PVCs RLark created from
  ``spec.storage`` (checkpoints, logs) and the local run record stay. RLark has no pause, and a
  new submission does not resume: resuming needs ``runner.resume_dir`` set to a persisted
  ``global_step_N``.
- ``delete`` does what ``stop`` does and also deletes those PVCs: only those made for the Job
  (``k8s/ownership.made_for``: the Job's uid among their owners, or the entry's StorageClass and
  created no earlier than the Job). An existing claim the Job mounts, or a PVC of the same name
  someone made before the Job, stays. If the StorageClass's reclaimPolicy is
  Delete, the data behind the deleted ones goes too.
- ``stop`` and ``delete`` act only on a Job this tool created (``k8s/ownership.py``).
- The backend works in one namespace: the chosen one, else the kubeconfig context's, else
  ``default``. ``submit`` creates the Job there whatever ``metadata.namespace`` the plan carried
  (preflight says so with K8S-NAMESPACE).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubernetes import client

from ... import shell
from ...findings import Finding, has_errors
from ...i18n import Text
from ...monitor.snapshot import JobSnapshot, WorkerSnapshot
from ...rlark.job import Job
from ...rlark.logs import RUN_LOG
from ...rlark.written import differences, normalised
from ...rlinf import Expansion, RLinfConfig
from ..base import BackendError, SubmitResult
from ..k8s.api import Action, KubeApiError
from ..k8s.cluster_backend import ClusterBackend
from ..k8s.nodes import capacity_findings, namespace_findings, selector_findings
from ..k8s.ownership import (
    existing_claims,
    existing_claims_note,
    made_by_us,
    made_for,
    mark,
    not_made_by_us,
    without_mark,
)
from ..k8s.pods import read_worker_log
from .jobs import call_jobs
from .preflight import access_findings, crd_findings, dry_run_findings, storage_findings
from .snapshot import SnapshotReader, read_job


def _written(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What the user wrote of a Job (spec, labels, annotations) in its normal form, so
    server-side key order, defaults or metadata do not count as a difference."""
    metadata = manifest.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    written: dict[str, Any] = normalised(
        {
            "metadata": {k: metadata.get(k) for k in ("labels", "annotations")},
            "spec": manifest.get("spec"),
        }
    )
    return written


def _claims(job: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(claim, StorageClass) of each entry of the Job's spec.storage."""
    storage = (job.get("spec") or {}).get("storage") or []
    return [
        (e["claimName"], e.get("storageClassName") or "") for e in storage if e.get("claimName")
    ]


class KubernetesBackend(ClusterBackend):
    """RLark on Kubernetes: inventory, preflight, submit once, snapshot, logs, stop, delete."""

    name = "kubernetes"

    def __init__(self, api_client: client.ApiClient | None = None, **connection: Any) -> None:
        """``connection``: namespace, kubeconfig (``config_file``, ``context``), the intended
        ``cluster``, timeout, retry, site and ``checkpoint_root``
        (:class:`..k8s.cluster_backend.ClusterBackend`)."""
        super().__init__(api_client, **connection)
        self.reader = SnapshotReader(self.api, self.namespace, self.checkpoint_root)

    def manifest(self, job: Job) -> dict[str, Any]:
        """The Job as it is sent: our manifest, in this backend's namespace (the Job is not changed)."""
        manifest = mark(job.to_manifest())
        manifest["metadata"]["namespace"] = self.namespace
        return manifest

    def preflight(self, job: Job, config: RLinfConfig | None = None) -> list[Finding]:
        """CRD, access, dry run, node selection and capacity (``config`` changes nothing: the
        RLark Job sets every Worker's rank itself)."""
        manifest = self.manifest(job)
        crd, access = crd_findings(self.api), access_findings(self.api, self.namespace)
        findings = [*namespace_findings(job, self.namespace), *crd, *access]
        if not has_errors(crd + access):  # a dry run would only repeat the refusal
            findings += dry_run_findings(self.api, manifest)
        inventory = self.inventory()
        findings += selector_findings(job, inventory, self.cluster)
        findings += capacity_findings(job, inventory)
        findings += storage_findings(manifest, inventory)
        return findings

    # --- submit once --------------------------------------------------------------------------
    def _where(self, name: str) -> Text:
        return Text(
            "namespace '{namespace}' on {host} ({command})",
            namespace=self.namespace,
            host=self.api.host,
            command=shell.command(
                "kubectl", "-n", self.namespace, "get", self.api.site.job_resource, name
            ),
        )

    def submit(
        self, job: Job, expansion: Expansion | None = None, config: RLinfConfig | None = None
    ) -> SubmitResult:
        """Create the Job once; ``expansion`` and ``config`` are for the local rehearsal only."""
        manifest = self.manifest(job)
        with self._submit_lock:  # a double click in one session waits for the first answer
            try:
                call_jobs(
                    self.api,
                    "create",
                    self.api.custom.create_namespaced_custom_object,
                    self.namespace,
                    manifest,
                    name=job.name,
                )
            except KubeApiError as exc:
                if exc.status != 409:
                    raise
                return self._already_there(job.name, manifest, exc.maybe_applied)
        created = Text(
            "Created Job '{name}' in namespace '{namespace}'.",
            name=job.name,
            namespace=self.namespace,
        )
        note = existing_claims_note(job)
        text = created if note is None else Text("{done} Note: {note}", done=created, note=note)
        return SubmitResult(job.name, True, text, self._where(job.name))

    def _already_there(self, name: str, manifest: dict[str, Any], ours: bool) -> SubmitResult:
        """A 409: report the Job that is there, never replace it (``ours``: we may have made it)."""
        current = read_job(self.api, self.namespace, name)
        if current is None:
            raise BackendError(
                Text(
                    "Job '{name}' existed a moment ago in namespace '{namespace}' and is gone now.",
                    name=name,
                    namespace=self.namespace,
                ),
                Text("Submit again."),
            )
        where, status = self._where(name), f"rlark-migrate status {name} --backend kubernetes"
        changed = list(differences(_written(manifest), _written(current)))
        if not changed and ours:
            message = Text(
                "Created Job '{name}' in namespace '{namespace}' (the first answer was lost; the"
                " server has it exactly as submitted).",
                name=name,
                namespace=self.namespace,
            )
            return SubmitResult(name, True, message, where)
        if not changed:
            message = Text(
                "Job '{name}' already exists in namespace '{namespace}' and is identical: not"
                " submitted again, no duplicate made. Open it with `{status}`.",
                name=name,
                namespace=self.namespace,
                status=status,
            )
            return SubmitResult(name, False, message, where)
        shown = ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
        message = Text(
            "A different Job named '{name}' already exists in namespace '{namespace}' (it differs"
            " at {paths}). It was NOT overwritten. Open it with `{status}`, delete it first"
            " (`{delete}`), or choose another name.",
            name=name,
            namespace=self.namespace,
            paths=shown,
            status=status,
            delete=f"rlark-migrate delete {name} --backend kubernetes",
        )
        return SubmitResult(name, False, message, where, conflict=True)

    # --- watching -----------------------------------------------------------------------------
    def list_jobs(self) -> list[str]:
        """The names of the RLark Jobs in the namespace, oldest first."""
        answer = call_jobs(
            self.api, "list", self.api.custom.list_namespaced_custom_object, self.namespace
        )
        items = answer.get("items") or []
        items.sort(key=lambda o: (o.get("metadata") or {}).get("creationTimestamp") or "")
        return [str(o["metadata"]["name"]) for o in items if (o.get("metadata") or {}).get("name")]

    def job(self, name: str) -> Job | None:
        """The Job as the cluster holds it (None when there is none)."""
        current = read_job(self.api, self.namespace, name)
        if current is None:
            return None
        try:
            job = Job.from_manifest(current, self.api.site)
        except (KeyError, TypeError, ValueError, StopIteration):
            raise BackendError(
                Text(
                    "The object jobs.rlark.io '{name}' in namespace '{namespace}' does not have the"
                    " RLark Job shape this tool knows.",
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
                        self.api.site.job_resource,
                        name,
                        "-o",
                        "yaml",
                    ),
                ),
            ) from None
        job.labels = without_mark(job.labels)
        return job

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
        """Log tail of one of this run's Workers, named by its key (``role/index``) or its pod
        name; ``run`` is the run script's output, which is the Header Worker's log. ``workers``:
        this run's Workers from a snapshot just taken (None: its pods are listed here)."""
        workers = self.reader.workers(name) if workers is None else workers
        if worker == RUN_LOG:
            job = self.job(name)
            header = job.header.name if job is not None and job.header is not None else None
            worker = next((w.key for w in workers if w.role == header and w.index == 0), worker)
        return read_worker_log(self.api, self.namespace, name, workers, worker, tail)

    # --- ending -------------------------------------------------------------------------------
    def stop(self, name: str) -> Text:
        """Delete the Job object (RLark removes its Workers); storage and run record stay."""
        current = read_job(self.api, self.namespace, name)
        if current is not None:
            self._refuse_foreign(name, current)
        if not self._delete_job(name):
            return Text(
                "No Job '{name}' in namespace '{namespace}': nothing to stop.",
                name=name,
                namespace=self.namespace,
            )
        return Text(
            "Stopped Job '{name}' in namespace '{namespace}': RLark removes its Workers. Its storage"
            " (PVCs) and run record are kept. Submitting again starts from scratch; to resume, set"
            " runner.resume_dir to a persisted global_step_N.",
            name=name,
            namespace=self.namespace,
        )

    def removes(self, name: str) -> Text:
        """What :meth:`delete` removes: the Job object and the PVCs it owns."""
        current = read_job(self.api, self.namespace, name) or {}
        claims, _kept = self._own_claims(current)
        if not claims:
            return Text(
                "Job '{name}' in namespace '{namespace}' (it has no storage of its own).",
                name=name,
                namespace=self.namespace,
            )
        return Text(
            "Job '{name}' in namespace '{namespace}' and its storage {claims}: with a Delete"
            " reclaim policy, the checkpoints and outputs on it go too.",
            name=name,
            namespace=self.namespace,
            claims=", ".join(claims),
        )

    def delete(self, name: str) -> Text:
        """Stop, then delete the PVCs RLark created from the Job's spec.storage."""
        current = read_job(self.api, self.namespace, name)
        if current is None:
            return Text(
                "No Job '{name}' in namespace '{namespace}'. If it was stopped earlier, its PVCs"
                " remain: list them with `{command}`.",
                name=name,
                namespace=self.namespace,
                command=shell.command("kubectl", "-n", self.namespace, "get", "pvc"),
            )
        self._refuse_foreign(name, current)
        claims, kept = self._own_claims(current)
        mounted = self.job(name)
        kept = sorted({*kept, *(existing_claims(mounted) if mounted else ())})
        self._delete_job(name)
        for claim in claims:
            try:
                self.api.call(
                    Action("delete", "persistentvolumeclaims", self.namespace, claim),
                    self.api.core.delete_namespaced_persistent_volume_claim,
                    claim,
                    self.namespace,
                )
            except KubeApiError as exc:
                if exc.status != 404:
                    raise
        if claims:
            deleted = Text(
                "Deleted Job '{name}' and its storage ({claims}) in namespace '{namespace}'.",
                name=name,
                claims=", ".join(claims),
                namespace=self.namespace,
            )
        else:
            deleted = Text(
                "Deleted Job '{name}' in namespace '{namespace}'.",
                name=name,
                namespace=self.namespace,
            )
        if not kept:
            return deleted
        stay = Text(
            "The claim(s) {claims} were not created for this Job and stay.",
            claims=", ".join(kept),
        )
        return Text("{done} Note: {note}", done=deleted, note=stay)

    def _refuse_foreign(self, name: str, current: Mapping[str, Any]) -> None:
        """A Job this tool did not create is neither stopped nor deleted."""
        if not made_by_us(current):
            command = shell.command(
                "kubectl", "-n", self.namespace, "delete", self.api.site.job_resource, name
            )
            raise not_made_by_us(self.api.site.job_resource, name, self.namespace, command)

    def _own_claims(self, current: Mapping[str, Any]) -> tuple[list[str], list[str]]:
        """(the PVCs of spec.storage the Job owns, the claims it names but does not own);
        a claim with no PVC yet is neither."""
        own: list[str] = []
        kept: list[str] = []
        for claim, storage_class in _claims(current):
            try:
                pvc = self.api.call(
                    Action("get", "persistentvolumeclaims", self.namespace, claim),
                    self.api.core.read_namespaced_persistent_volume_claim,
                    claim,
                    self.namespace,
                )
            except KubeApiError as exc:
                if exc.status != 404:
                    raise
                continue
            ours = isinstance(pvc, Mapping) and made_for(pvc, current, storage_class)
            (own if ours else kept).append(claim)
        return own, kept

    def _delete_job(self, name: str) -> bool:
        try:
            call_jobs(
                self.api,
                "delete",
                self.api.custom.delete_namespaced_custom_object,
                self.namespace,
                name,
                name=name,
            )
        except KubeApiError as exc:
            if exc.status == 404:  # gone; if an earlier attempt got no clear answer, it was ours
                return exc.maybe_applied
            raise
        return True
