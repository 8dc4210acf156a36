"""A Kubernetes cluster with the KubeRay operator, for tests: the RLark emulator plus KubeRay.

The API server serves KubeRay's v1.7.0 CRDs (shipped in the package) and refuses what their
``openAPIV3Schema`` refuses (422 with field causes), as a real one with KubeRay installed does.
``KubeRayCluster`` then acts as the KubeRay operator and the kubelets: it creates the RayCluster's
pods from the groups' templates, labelled as KubeRay labels them (``ray.io/cluster``,
``ray.io/node-type``, ``ray.io/group``), the head service, RayJob status, Ray's dashboard behind
that service, and pod phases, all through the official client.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kmock
import pytest
from kube_emulator import NAMESPACE, Cluster, LoopThread, RLarkEmulator, seed_nodes

from rlark_widgets.backends.k8s.api import RetryPolicy
from rlark_widgets.backends.kuberay import KubeRayBackend
from rlark_widgets.rlark.kuberay import kuberay_schema_findings

RAYJOBS, RAYCLUSTERS = "ray.io/v1/rayjobs", "ray.io/v1/rayclusters"
SERVICES = "v1/services"
RAY_CONTAINER = 0  # KubeRay's Ray container is the first one


def operator_pods(
    cluster_spec: dict[str, Any], cluster: str
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pod, its group's spec) as the KubeRay operator makes them for a RayCluster spec: one per
    head and replica, from the group's template, KubeRay's labels on top of the template's."""
    groups = [("head", "headgroup", 1, cluster_spec["headGroupSpec"])]
    groups += [
        ("worker", g["groupName"], int(g.get("replicas", g.get("minReplicas", 0))), g)
        for g in cluster_spec.get("workerGroupSpecs") or []
    ]
    pods = []
    for node_type, group, replicas, spec in groups:
        for index in range(replicas):
            template = copy.deepcopy(spec["template"])
            metadata = template.get("metadata") or {}
            labels = {
                **(metadata.get("labels") or {}),
                "ray.io/cluster": cluster,
                "ray.io/node-type": node_type,
                "ray.io/group": group,
                "ray.io/is-ray-node": "yes",
            }
            suffix = "head" if node_type == "head" else f"{group}-worker-{index}"
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{cluster}-{suffix}",
                    "labels": labels,
                    "annotations": dict(metadata.get("annotations") or {}),
                },
                "spec": template["spec"],
                "status": {"phase": "Pending"},
            }
            pods.append((pod, spec))
    return pods


class KubeRayEmulator(RLarkEmulator):
    """The RLark emulator plus the KubeRay CRDs (validated), Services and the service proxy."""

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.created: list[tuple[bool, dict[str, Any]]] = []  # (dry run, body) of ray.io creates
        self.resources[RAYJOBS] = kmock.ResourceInfo(kind="RayJob", namespaced=True)
        self.resources[RAYCLUSTERS] = kmock.ResourceInfo(kind="RayCluster", namespaced=True)
        self.resources[SERVICES] = kmock.ResourceInfo(kind="Service", namespaced=True)

    def _admit(self, request: kmock.Request) -> None:
        super()._admit(request)
        if request.resource.group == "ray.io":
            dry_run = request.params.get("dryRun") == "All"
            self.created.append((dry_run, copy.deepcopy(request.data)))
            errors = kuberay_schema_findings(request.data)
            if errors:
                causes = [
                    {"reason": "FieldValueInvalid", "field": f.path, "message": f.message}
                    for f in errors
                ]
                name = request.data["metadata"].get("name")
                kind = request.data.get("kind")
                raise kmock.KubernetesError(
                    422, "Invalid", f'{kind}.ray.io "{name}" is invalid', {"causes": causes}
                )


class KubeRayCluster(Cluster):
    """An emulated cluster with KubeRay: seeded as the RLark one, driven as KubeRay would."""

    emulator_class = KubeRayEmulator

    def backend(self, **options: Any) -> KubeRayBackend:  # type: ignore[override]
        options = {
            "namespace": NAMESPACE,
            "checkpoint_root": self.output_dir,
            "timeout": 2.0,
            "retry": RetryPolicy(backoff=0.01, cap=0.05),
            "site": self.site,
            **options,
        }
        self.backends.append(KubeRayBackend(self.api_client(), **options))
        return self.backends[-1]

    def object(self, kind: str, name: str) -> dict[str, Any] | None:
        resource = RAYJOBS if kind == "RayJob" else RAYCLUSTERS
        found = self.emulator.live(resource, NAMESPACE, name)
        return copy.deepcopy(found) if found is not None else None

    def _patch_status(self, kind: str, name: str, status: dict[str, Any]) -> None:
        plural = "rayjobs" if kind == "RayJob" else "rayclusters"
        self.custom.patch_namespaced_custom_object_status(
            "ray.io", "v1", NAMESPACE, plural, name, {"status": status}
        )

    def operate(self, name: str, suffix: str = "x7k2p") -> str:
        """What the operator does first: for a RayJob its RayCluster (``<name>-<suffix>``,
        owned by the RayJob, with its labels and KubeRay's origin labels) and status; then the
        RayCluster's head service and Pending pods, owned by the RayCluster (its uid). Returns
        the RayCluster's name."""
        job = self.object("RayJob", name)
        if job is not None:
            cluster, spec = f"{name}-{suffix}", job["spec"]["rayClusterSpec"]
            owner = {"apiVersion": "ray.io/v1", "kind": "RayJob", "name": name}
            owner |= {"uid": job["metadata"]["uid"], "controller": True}
            labels = dict(job["metadata"].get("labels") or {})
            labels |= {"ray.io/originated-from-crd": "RayJob"}
            labels |= {"ray.io/originated-from-cr-name": name}
            made = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "spec": spec}
            made["metadata"] = {"name": cluster, "labels": labels, "ownerReferences": [owner]}
            self.custom.create_namespaced_custom_object(
                "ray.io", "v1", NAMESPACE, "rayclusters", made
            )
            status = {"rayClusterName": cluster, "jobDeploymentStatus": "Initializing"}
            self._patch_status("RayJob", name, status)
        else:
            cluster, spec = name, self.object("RayCluster", name)["spec"]
        made_cluster = self.object("RayCluster", cluster)
        pod_owner = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": cluster}
        pod_owner |= {"uid": made_cluster["metadata"]["uid"], "controller": True}
        service = {"metadata": {"name": f"{cluster}-head-svc"}, "spec": {"ports": []}}
        service["spec"]["ports"].append({"name": "dashboard", "port": 8265})
        made_services = {
            svc.metadata.name for svc in self.core.list_namespaced_service(NAMESPACE).items
        }
        if service["metadata"]["name"] not in made_services:  # a RayCluster made again keeps it
            self.core.create_namespaced_service(NAMESPACE, service, _preload_content=False)
        for pod, _ in operator_pods(spec, cluster):
            pod["metadata"]["ownerReferences"] = [pod_owner]
            for container in pod["spec"]["containers"]:  # a pod's Quantities are strings
                limits = container.get("resources", {}).get("limits", {})
                limits.update({k: str(v) for k, v in limits.items()})
            self.core.create_namespaced_pod(NAMESPACE, pod, _preload_content=False)
        return cluster

    def ray_pods(self, cluster: str) -> list[dict[str, Any]]:
        answer = self.core.list_namespaced_pod(
            NAMESPACE, label_selector=f"ray.io/cluster={cluster}", _preload_content=False
        )
        return sorted(json.loads(answer.data)["items"], key=lambda p: p["metadata"]["name"])

    def run_ray(self, name: str, cluster: str) -> dict[str, str]:
        """Every pod Running on a node its selector matches; the RayJob RUNNING. Pod -> IP."""
        ips = {}
        for number, pod in enumerate(self.ray_pods(cluster)):
            pod_name = pod["metadata"]["name"]
            ips[pod_name] = f"10.245.{number}.{number + 2}"
            self.run(pod_name, ips[pod_name], self._node_for(pod, number))
        if self.object("RayJob", name) is not None:
            status = {"jobDeploymentStatus": "Running", "jobStatus": "RUNNING"}
            self._patch_status("RayJob", name, status)
        else:
            self._patch_status("RayCluster", name, {"state": "ready"})
        return ips

    def _node_for(self, pod: dict, index: int) -> str:
        selector = pod["spec"].get("nodeSelector") or {}
        nodes = [
            n["metadata"]["name"]
            for n in seed_nodes()
            if all(n["metadata"]["labels"].get(k) == v for k, v in selector.items())
        ]
        return nodes[index % len(nodes)] if nodes else "a800-0"

    def ray_members(self, cluster: str, dead: tuple[str, ...] = ()) -> None:
        """The head service's dashboard lists a Ray node per running pod (``dead`` pod names)."""
        rows = [
            {
                "node_id": uuid.uuid4().hex * 2,
                "node_ip": pod["status"]["podIP"],
                "is_head_node": pod["metadata"]["labels"]["ray.io/node-type"] == "head",
                "state": "DEAD" if pod["metadata"]["name"] in dead else "ALIVE",
                "resources_total": {"CPU": 96.0},
                "labels": {"ray.io/node_id": "x"},
            }
            for pod in self.ray_pods(cluster)
        ]
        self.emulator.dashboards[f"{cluster}-head-svc"] = rows

    def earlier_pod(self, cluster: str, group: str, terminating: bool) -> str:
        """A Ray pod of ``cluster``'s name left by an earlier RayCluster (another owner uid;
        Failed, exit 137), in ``group``; ``terminating``: being deleted (a finalizer holds it)."""
        labels = {"ray.io/cluster": cluster, "ray.io/node-type": "worker", "ray.io/group": group}
        owner = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": cluster}
        return self.dead_pod(f"{cluster}-{group}-worker-old", labels, owner, [], terminating)

    def finish(self, name: str, job_status: str) -> None:
        deployment = "Complete" if job_status == "SUCCEEDED" else "Failed"
        self._patch_status(
            "RayJob", name, {"jobStatus": job_status, "jobDeploymentStatus": deployment}
        )


@pytest.fixture
def kuberay(kube_loop: LoopThread, tmp_path: Path) -> Iterator[KubeRayCluster]:
    """A fresh seeded cluster with KubeRay per test (its own emulator and port)."""
    cluster = KubeRayCluster(kube_loop, tmp_path / "output")
    yield cluster
    cluster.close()
