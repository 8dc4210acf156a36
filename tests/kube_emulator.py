"""A realistic RLark cluster for tests: kmock's Kubernetes emulator over real HTTP.

``RLarkEmulator`` closes kmock's gaps and adds what an API server
with RLark installed does: 201 on create, labelSelector/fieldSelector filtering, server-side
metadata, dry runs that store nothing, CRD schema validation (422 with field causes),
SelfSubjectAccessReviews, the Ray dashboard behind the pod proxy, pod logs, and exec (a real
``sh`` over the websocket protocol, against a local directory standing in for the volume).
Faults (an error status, a slow answer, or a connection dropped without an answer) are checked
before anything is stored, as on a real server, where a refused create creates nothing.

``Cluster`` seeds 8 GPU nodes in two clusters, 2 edge and 2 robot nodes (one NotReady, one
tainted, one cordoned), two StorageClasses, and drives Worker lifecycles the way RLark and the
kubelet would: pods created per Worker with RLark's labels, then status patches and events,
all through the official client.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import Any

import aiohttp.web
import kmock
import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from rlark_widgets.backends.k8s.api import RetryPolicy
from rlark_widgets.backends.kube.backend import KubernetesBackend
from rlark_widgets.rlark.schema import schema_findings
from rlark_widgets.rlark.site import SiteProfile, example_site

NAMESPACE = "research"
JOBS = "rlark.io/v1alpha1/jobs"
RESOURCES = {
    JOBS: ("Job", True),
    "v1/pods": ("Pod", True),
    "v1/events": ("Event", True),
    "v1/nodes": ("Node", False),
    "v1/persistentvolumeclaims": ("PersistentVolumeClaim", True),
    "v1/services": ("Service", True),  # someone else's objects, which delete must leave alone
    "v1/configmaps": ("ConfigMap", True),
    "storage.k8s.io/v1/storageclasses": ("StorageClass", False),
    "authorization.k8s.io/v1/selfsubjectaccessreviews": ("SelfSubjectAccessReview", False),
}
OUTPUT_MOUNT = "/mnt/output"


def status_body(code: int, reason: str, message: str) -> dict:
    """A Kubernetes Status object, as the API server sends with every error."""
    return {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": code} | {
        "reason": reason,
        "message": message,
    }


def _labels_match(labels: dict[str, str], selector: str) -> bool:
    """Equality-based selectors: ``a=b``, ``a==b``, ``a!=b``, ``a``, ``!a`` (comma = and)."""
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            key, value = term.split("!=", 1)
            ok = labels.get(key) != value
        elif "=" in term:
            key, value = term.replace("==", "=").split("=", 1)
            ok = labels.get(key) == value
        elif term.startswith("!"):
            ok = term[1:] not in labels
        else:
            ok = term in labels
        if not ok:
            return False
    return True


def _fields_match(obj: dict, selector: str) -> bool:
    """Field selectors as dotted paths with ``=`` (what the backend uses)."""
    for term in filter(None, (t.strip() for t in selector.split(","))):
        path, value = term.split("=", 1)
        current: Any = obj
        for part in path.split("."):
            current = current.get(part) if isinstance(current, dict) else None
        if str(current) != value:
            return False
    return True


@dataclass
class Fault:
    """Answer matching requests with ``status`` (or wait ``delay`` s, then serve normally);
    ``drop`` closes the connection instead of answering (a proxy or the server going away)."""

    match: Callable[[kmock.Request], bool]
    status: int | None = None
    body: dict | None = None
    headers: dict[str, str] | None = None
    delay: float = 0.0
    after: bool = False  # hold the answer after serving (the server acted; the answer is late)
    drop: bool = False
    times: int = 1
    hits: int = 0


@dataclass
class Access:
    """Which (verb, resource, namespace) the SelfSubjectAccessReview denies."""

    denied: set[tuple[str, str, str]] = field(default_factory=set)

    def allowed(self, attrs: dict) -> bool:
        return (attrs.get("verb"), attrs.get("resource"), attrs.get("namespace")) not in self.denied


class RLarkEmulator(kmock.KubernetesEmulator):
    """kmock's emulator with the behaviour of an API server that has RLark's CRD installed."""

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.faults: list[Fault] = []
        self.access = Access()
        self.dashboards: dict[str, list[dict]] = {}  # head pod -> Ray /api/v0/nodes rows
        self.summaries: dict[str, dict] = {}  # head pod -> a recorded /nodes?view=summary answer
        self.logs: dict[str, str] = {}
        self.volumes: dict[str, Path] = {}  # container path -> local directory (for exec)
        self.served = 0
        self.site = example_site()  # whose Job resource the API server validates
        for name, (kind, namespaced) in RESOURCES.items():
            self.resources[name] = kmock.ResourceInfo(kind=kind, namespaced=namespaced)
        self[lambda r: (r.subresource or "").startswith("proxy/")] << self._dashboard
        self[lambda r: r.subresource == "log"] << self._log

    def live(self, resource: str | kmock.resource, namespace: str | None, name: str) -> dict | None:
        """The stored object, or None when it never existed or was deleted."""
        key = (kmock.resource(resource), namespace, name)
        if key not in self.objects or self.objects[key].deleted:
            return None
        return self.objects[key].raw

    async def _handle(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        self.served += 1
        # kmock keeps every request and re-filters that whole history for each new one (quadratic:
        # minutes for a 1,000-pod Job). Nothing here asserts on history: keep only this request.
        del self._requests[:-1]
        fault = next((f for f in self.faults if f.hits < f.times and f.match(request)), None)
        if fault is None:
            return await self._serve(request)
        fault.hits += 1
        if fault.after:
            answer = await self._serve(request)
            await asyncio.sleep(fault.delay)
            return answer
        await asyncio.sleep(fault.delay)
        if fault.drop:  # no status line at all: the client sees the connection closed
            request._raw_request.transport.abort()
            return aiohttp.web.Response()
        if fault.status is None:
            return await self._serve(request)
        response = kmock.Response(status=fault.status, payload=fault.body, headers=fault.headers)
        return await response(request)

    async def _serve(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        if request.subresource == "exec":
            return await self._exec(request)
        if request.action == kmock.action.CREATE and request.resource is not None:
            if request.resource.plural == "selfsubjectaccessreviews":
                return await self._review(request)
            self._admit(request)
            if request.params.get("dryRun") == "All":
                if self.live(request.resource, request.namespace, request.data["metadata"]["name"]):
                    raise kmock.KubernetesError(409, "AlreadyExists", "already exists")
                return await kmock.Response(status=201, payload=request.data)(request)
        return await super()._handle(request)

    def _admit(self, request: kmock.Request) -> None:
        """Server-set metadata and, for RLark Jobs, the CRD's schema (422 with field causes)."""
        metadata = request.data.setdefault("metadata", {})
        if request.namespace:
            metadata["namespace"] = request.namespace
        metadata.setdefault("uid", str(uuid.uuid4()))
        metadata.setdefault("creationTimestamp", datetime.now(UTC).isoformat())
        if request.resource.group == self.site.api_group:
            errors = schema_findings(request.data, self.site)
            if errors:
                causes = [
                    {"reason": "FieldValueInvalid", "field": f.path, "message": f.message}
                    for f in errors
                ]
                name = metadata.get("name")
                raise kmock.KubernetesError(
                    422,
                    "Invalid",
                    f'{self.site.kind}.{self.site.api_group} "{name}" is invalid',
                    {"causes": causes},
                )

    async def _serve_create(self, request: kmock.Request) -> kmock.Response:
        return kmock.Response(status=201, payload=await super()._serve_create(request))

    async def _serve_list(self, request: kmock.Request) -> dict:
        answer = await super()._serve_list(request)
        labels, fields = request.params.get("labelSelector"), request.params.get("fieldSelector")
        answer["items"] = [
            item
            for item in answer["items"]
            if (not labels or _labels_match(item["metadata"].get("labels") or {}, labels))
            and (not fields or _fields_match(item, fields))
        ]
        return answer

    async def _review(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        attrs = request.data["spec"].get("resourceAttributes") or {}
        allowed = self.access.allowed(attrs)
        review = dict(request.data, status={"allowed": allowed})
        if not allowed:
            review["status"]["reason"] = "no RBAC policy matched"
        return await kmock.Response(status=201, payload=review)(request)

    def _dashboard(self, request: kmock.Request) -> Any:
        pod = (request.name or "").split(":")[0]
        if request.subresource == "proxy/nodes" and request.params.get("view") == "summary":
            return self._node_summary(pod)
        if pod not in self.dashboards:
            message = (
                f"error trying to reach service: dial tcp {pod}:8265: connect: connection refused"
            )
            return kmock.Response(
                status=503, payload=status_body(503, "ServiceUnavailable", message)
            )
        rows = self.dashboards[pod]
        result = {"total": len(rows), "num_after_truncation": len(rows), "num_filtered": len(rows)}
        result |= {"result": rows, "partial_failure_warning": "", "warnings": None}
        return {"result": True, "msg": "", "data": {"result": result}}

    def _node_summary(self, pod: str) -> Any:
        """Ray's ``/nodes?view=summary``: a recorded answer when one was given for the head,
        else the members' rows with no GPU device (logical GPUs, as Ray reports them)."""
        if pod in self.summaries:
            return self.summaries[pod]
        if pod not in self.dashboards:
            return kmock.Response(
                status=503, payload=status_body(503, "ServiceUnavailable", "connection refused")
            )
        summary = [
            {
                "ip": row["node_ip"],
                "gpus": [],
                "raylet": {
                    "nodeId": row["node_id"],
                    "state": row["state"],
                    "isHeadNode": row["is_head_node"],
                    "labels": row["labels"],
                    "resourcesTotal": row["resources_total"],
                },
            }
            for row in self.dashboards[pod]
        ]
        return {"result": True, "msg": "Node summary fetched.", "data": {"summary": summary}}

    def _log(self, request: kmock.Request) -> kmock.Response:
        pod = self.live("v1/pods", request.namespace, request.name)
        if pod is None:
            return kmock.Response(status=404, payload=status_body(404, "NotFound", "pod not found"))
        waiting = [
            s["state"]["waiting"]
            for s in pod.get("status", {}).get("containerStatuses") or []
            if "waiting" in s.get("state", {})
        ]
        if waiting or request.name not in self.logs:
            why = waiting[0].get("message", "") if waiting else "ContainerCreating"
            message = f'container "main" in pod "{request.name}" is waiting to start: {why}'
            return kmock.Response(status=400, payload=status_body(400, "BadRequest", message))
        lines = self.logs[request.name].splitlines()
        tail = int(request.params.get("tailLines", len(lines)))
        text = "\n".join(lines[-tail:] if tail else []) + "\n"
        return kmock.Response(
            status=200, payload=text.encode(), headers={"Content-Type": "text/plain"}
        )

    async def _exec(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        """Run the command here, container paths mapped to ``volumes``, over the v4 channels."""
        command = [self._local(arg) for arg in request._raw_request.query.getall("command")]
        done = await asyncio.to_thread(subprocess.run, command, capture_output=True, timeout=10)
        socket = aiohttp.web.WebSocketResponse(protocols=("v4.channel.k8s.io",))
        await socket.prepare(request._raw_request)
        await socket.send_bytes(b"\x01" + done.stdout)
        status: dict[str, Any] = {"metadata": {}, "status": "Success"}
        if done.returncode:
            causes = [{"reason": "ExitCode", "message": str(done.returncode)}]
            status = {
                "status": "Failure",
                "reason": "NonZeroExitCode",
                "details": {"causes": causes},
            }
        await socket.send_bytes(b"\x03" + json.dumps(status).encode())
        await socket.close()
        return socket

    def _local(self, arg: str) -> str:
        for prefix, local in self.volumes.items():
            if arg == prefix or arg.startswith(prefix + "/"):
                return str(local) + arg[len(prefix) :]
        return arg


def requests_to(
    method: str, plural: str, subresource: str | None = None
) -> Callable[[kmock.Request], bool]:
    """Match requests by HTTP method, resource plural and subresource (never dry runs);
    ``subresource="proxy"`` matches any path through the pod proxy."""
    return lambda r: (
        r.method == method
        and r.resource is not None
        and r.resource.plural == plural
        and (
            r.subresource == subresource
            or (subresource == "proxy" and (r.subresource or "").startswith("proxy/"))
        )
        and "dryRun" not in r.params
    )


def any_request(request: kmock.Request) -> bool:
    """Every request (an outage of the whole API server)."""
    return True


# --- the seeded cluster ------------------------------------------------------------------------
def _node(
    name: str, cluster: str, category: str, allocatable: dict, site: SiteProfile, **extra: Any
) -> dict:
    labels = {
        "kubernetes.io/hostname": name,
        site.cluster_label: cluster,
        site.category_label: site.category_value(category) or category,
        **extra.pop("labels", {}),
    }
    gpus = allocatable.pop("nvidia.com/gpu", None)
    if gpus is not None:
        allocatable[site.gpu_resource] = gpus
    allocatable = {
        (site.device_prefix + k.removeprefix("rlinf.io/") if k.startswith("rlinf.io/") else k): v
        for k, v in allocatable.items()
    }
    ready = "False" if extra.pop("not_ready", False) else "True"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": extra,
        "status": {
            "allocatable": {"cpu": "96", "memory": "1Ti", **allocatable},
            "conditions": [{"type": "Ready", "status": ready}],
        },
    }


def seed_nodes(site: SiteProfile | None = None) -> list[dict]:
    """8 GPU nodes in clusters gpu-a and gpu-b, 2 edge and 2 robot nodes in cluster lab, all
    labelled in ``site``'s names (the example profile's by default)."""
    site = site or example_site()
    a800, h100 = {"gpu.model": "a800"}, {"gpu.model": "h100"}

    def gpu() -> dict:
        return {"nvidia.com/gpu": "8"}

    return [
        *(_node(f"a800-{i}", "gpu-a", "cloud", gpu(), site, labels=a800) for i in range(4)),
        _node("b-a800-0", "gpu-b", "cloud", gpu(), site, labels=a800),
        _node("b-a800-1", "gpu-b", "cloud", gpu(), site, labels=a800),
        _node("b-h100-0", "gpu-b", "cloud", gpu(), site, labels=h100, not_ready=True),
        _node(
            "b-h100-1",
            "gpu-b",
            "cloud",
            gpu(),
            site,
            labels=h100,
            taints=[{"key": "nvidia.com/gpu", "value": "xid-79", "effect": "NoSchedule"}],
        ),
        _node("edge-0", "lab", "edge", {"nvidia.com/gpu": "1"}, site),
        _node("edge-1", "lab", "edge", {"nvidia.com/gpu": "1"}, site, unschedulable=True),
        _node("robot-0", "lab", "robot", {"rlinf.io/device-franka": "1"}, site),
        _node("robot-1", "lab", "robot", {"rlinf.io/device-franka": "1"}, site),
    ]


class LoopThread:
    """An asyncio loop in a daemon thread, where the emulators and their servers live."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class Cluster:
    """One emulated cluster on its own port: seeded, and driven like RLark and kubelets would."""

    emulator_class: type[RLarkEmulator] = RLarkEmulator  # a subclass serves more CRDs

    def __init__(self, loop: LoopThread, output_dir: Path, site: SiteProfile | None = None) -> None:
        self.loop, self.output_dir = loop, output_dir
        self.site = site or example_site()
        self.jobs = f"{self.site.api_version}/{self.site.plural}"

        async def start() -> tuple[RLarkEmulator, kmock.Server]:
            emulator = self.emulator_class()
            await emulator.__aenter__()
            server = kmock.Server(emulator, host="127.0.0.1")
            await server.__aenter__()
            return emulator, server

        self.emulator, self.server = loop.run(start())
        self.emulator.site = self.site
        self.emulator.resources[self.jobs] = kmock.ResourceInfo(
            kind=self.site.kind, namespaced=True
        )
        self.backends: list[KubernetesBackend] = []
        self.url = str(self.server.url).rstrip("/")
        self.emulator.volumes[OUTPUT_MOUNT] = output_dir
        self.core = client.CoreV1Api(self.api_client())
        self.custom = client.CustomObjectsApi(self.core.api_client)
        for node in seed_nodes(self.site):
            self.emulator.objects["v1/nodes", None, node["metadata"]["name"]] = node
        for name in ("oss-rlinf", "cpfs-shared"):
            storage_class = {"metadata": {"name": name}, "provisioner": "csi.example.com"}
            self.emulator.objects["storage.k8s.io/v1/storageclasses", None, name] = storage_class

    def close(self) -> None:
        for backend in self.backends:
            backend.close()
        self.core.api_client.close()

        async def stop() -> None:
            await self.server.__aexit__(None, None, None)
            await self.emulator.__aexit__(None, None, None)

        self.loop.run(stop())

    def api_client(self) -> client.ApiClient:
        configuration = client.Configuration(host=self.url)
        configuration.retries = False
        return client.ApiClient(configuration)

    def backend(self, **options: Any) -> KubernetesBackend:
        """A backend on this cluster; fast retries, and the output volume mounted locally."""
        options = {
            "namespace": NAMESPACE,
            "checkpoint_root": self.output_dir,
            "timeout": 2.0,
            "retry": RetryPolicy(backoff=0.01, cap=0.05),
            "site": self.site,
            **options,
        }
        self.backends.append(KubernetesBackend(self.api_client(), **options))
        return self.backends[-1]

    # --- faults ---------------------------------------------------------------------------------
    def fail(
        self,
        method: str,
        plural: str,
        status: int,
        message: str = "",
        times: int = 1,
        headers: dict[str, str] | None = None,
        subresource: str | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with an error Status (nothing stored)."""
        reason = HTTPStatus(status).phrase.replace(" ", "")
        body = status_body(status, reason, message or f"injected {status}")
        match = requests_to(method, plural, subresource)
        fault = Fault(match, status, body, headers, times=times)
        self.emulator.faults.append(fault)
        return fault

    def slow(
        self,
        method: str,
        plural: str,
        seconds: float,
        times: int = 1,
        after: bool = False,
        subresource: str | None = None,
    ) -> Fault:
        """Hold the next ``times`` matching requests for ``seconds`` before (or ``after``) serving."""
        match = requests_to(method, plural, subresource)
        fault = Fault(match, delay=seconds, after=after, times=times)
        self.emulator.faults.append(fault)
        return fault

    def drop(
        self,
        method: str | None = None,
        plural: str | None = None,
        times: int = 1,
        subresource: str | None = None,
    ) -> Fault:
        """Close the connection of the next ``times`` matching requests without an answer
        (every request when no ``method`` is given: the API server is gone for a while)."""
        match = any_request if method is None else requests_to(method, plural or "", subresource)
        fault = Fault(match, drop=True, times=times)
        self.emulator.faults.append(fault)
        return fault

    # --- RLark and the kubelet -------------------------------------------------------------------
    def job(self, name: str) -> dict:
        return copy.deepcopy(self.emulator.objects[self.jobs, NAMESPACE, name].raw)

    def pods(self, job: str) -> list[dict]:
        answer = self.core.list_namespaced_pod(
            NAMESPACE, label_selector=f"{self.site.job_label}={job}", _preload_content=False
        )
        return sorted(json.loads(answer.data)["items"], key=lambda p: p["metadata"]["name"])

    def set_job_status(self, name: str, phase: str, running: bool = False) -> None:
        tasks = [
            {
                "name": t["name"],
                "replicas": t["replicas"],
                "pending": 0 if running else t["replicas"],
            }
            | {"running": t["replicas"] if running else 0, "failed": 0}
            for t in self.job(name)["spec"]["tasks"]
        ]
        body = {"status": {"phase": phase, "tasks": tasks}}
        site = self.site
        self.custom.patch_namespaced_custom_object_status(
            site.api_group, site.api_version_name, NAMESPACE, site.plural, name, body
        )

    def start_workers(self, name: str) -> list[str]:
        """Create one Pending pod per Worker, labelled, ranked and owned by the Job as RLark does."""
        rank, names = 0, []
        job = self.job(name)
        owner = {
            "apiVersion": "rlark.io/v1alpha1",
            "kind": "Job",
            "name": name,
            "uid": job["metadata"]["uid"],
            "controller": True,
        }
        for task in self.job(name)["spec"]["tasks"]:
            for index in range(task["replicas"]):
                spec = copy.deepcopy(task["template"]["spec"])
                main = spec["containers"][0]
                main["env"] = [
                    *main.get("env", []),
                    {"name": "RLINF_NODE_RANK", "value": str(rank)},
                ]
                limits = main.get("resources", {}).get("limits", {})
                limits.update({k: str(v) for k, v in limits.items()})  # Quantities are strings
                labels = {self.site.job_label: name, self.site.task_label: task["name"]}
                labels[self.site.index_label] = str(index)
                pod = {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "spec": spec,
                    "status": {"phase": "Pending"},
                }
                pod["metadata"] = {
                    "name": f"{name}-{task['name']}-{index}",
                    "labels": labels,
                    "ownerReferences": [owner],
                }
                self.core.create_namespaced_pod(NAMESPACE, pod, _preload_content=False)
                names.append(pod["metadata"]["name"])
                rank += 1
        self.set_job_status(name, "Pending")
        return names

    def _node_for(self, pod: dict, index: int) -> str:
        selector = pod["spec"].get("nodeSelector") or {}
        nodes = [
            n["metadata"]["name"]
            for n in seed_nodes(self.site)
            if all(n["metadata"]["labels"].get(k) == v for k, v in selector.items())
        ]
        return nodes[index % len(nodes)]

    def run(self, pod_name: str, ip: str, node: str) -> None:
        """Bind the pod to ``node`` and mark its main container running."""
        self.core.patch_namespaced_pod(
            pod_name, NAMESPACE, {"spec": {"nodeName": node}}, _preload_content=False
        )
        running = {"name": "main", "ready": True, "restartCount": 0, "state": {"running": {}}}
        status = {"phase": "Running", "podIP": ip, "containerStatuses": [running]}
        self.core.patch_namespaced_pod_status(
            pod_name, NAMESPACE, {"status": status}, _preload_content=False
        )

    def run_all(self, name: str) -> dict[str, str]:
        """Every Worker Running on a node its selector matches; returns pod name -> IP."""
        ips = {}
        for number, pod in enumerate(self.pods(name)):
            labels = pod["metadata"]["labels"]
            ips[pod["metadata"]["name"]] = (
                f"10.244.{number}.{int(labels[self.site.index_label]) + 2}"
            )
            node = self._node_for(pod, int(labels[self.site.index_label]))
            self.run(pod["metadata"]["name"], ips[pod["metadata"]["name"]], node)
        self.set_job_status(name, "Running", running=True)
        return ips

    def end_workers(self, name: str) -> None:
        """Every Worker's main container exits 0 (the pods Succeeded), as after the run ends."""
        done = {"name": "main", "ready": False, "restartCount": 0}
        done["state"] = {"terminated": {"exitCode": 0, "reason": "Completed"}}
        for pod in self.pods(name):
            body = {"status": {"phase": "Succeeded", "containerStatuses": [done]}}
            self.core.patch_namespaced_pod_status(
                pod["metadata"]["name"], NAMESPACE, body, _preload_content=False
            )

    def unschedulable(self, pod_name: str, message: str) -> None:
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": message,
        }
        self.core.patch_namespaced_pod_status(
            pod_name,
            NAMESPACE,
            {"status": {"phase": "Pending", "conditions": [condition]}},
            _preload_content=False,
        )
        self.event(pod_name, "FailedScheduling", message)

    def waiting(
        self,
        pod_name: str,
        reason: str,
        message: str,
        node: str = "a800-0",
        last: dict | None = None,
    ) -> None:
        """The main container waits (ImagePullBackOff, or CrashLoopBackOff after ``last`` death)."""
        self.core.patch_namespaced_pod(
            pod_name, NAMESPACE, {"spec": {"nodeName": node}}, _preload_content=False
        )
        status = {"name": "main", "ready": False, "restartCount": 3 if last else 0}
        status["state"] = {"waiting": {"reason": reason, "message": message}}
        if last:
            status["lastState"] = {"terminated": last}
        body = {
            "status": {"phase": "Pending" if not last else "Running", "containerStatuses": [status]}
        }
        self.core.patch_namespaced_pod_status(pod_name, NAMESPACE, body, _preload_content=False)
        self.event(pod_name, "BackOff" if last else "Failed", message)

    def event(self, pod_name: str, reason: str, message: str, type: str = "Warning") -> None:
        event = {
            "metadata": {"name": f"{pod_name}.{uuid.uuid4().hex[:10]}"},
            "involvedObject": {"kind": "Pod", "name": pod_name, "namespace": NAMESPACE},
            "reason": reason,
            "message": message,
            "type": type,
            "count": 1,
            "lastTimestamp": datetime.now(UTC).isoformat(),
        }
        self.core.create_namespaced_event(NAMESPACE, event, _preload_content=False)

    def ray(
        self,
        name: str,
        dead: tuple[int, ...] = (),
        absent: tuple[int, ...] = (),
        ranked: bool = True,
    ) -> None:
        """The head's dashboard lists a Ray node per running Worker (``dead``/``absent`` ranks);
        ``ranked`` nodes carry the ``rlinf.io/node-rank`` label (started with ``--labels``)."""
        rows, head = [], None
        for pod in self.pods(name):
            main = pod["spec"]["containers"][0]
            rank = int(next(e["value"] for e in main["env"] if e["name"] == "RLINF_NODE_RANK"))
            head = pod["metadata"]["name"] if rank == 0 else head
            if rank in absent:
                continue
            rows.append(
                {
                    "node_id": uuid.uuid4().hex * 2,
                    "node_ip": pod["status"]["podIP"],
                    "is_head_node": rank == 0,
                    "state": "DEAD" if rank in dead else "ALIVE",
                    "state_message": None,
                    "node_name": pod["status"]["podIP"],
                    "resources_total": {"CPU": 96.0, "GPU": 8.0},
                    "labels": {"ray.io/node_id": "x"}
                    | ({"rlinf.io/node-rank": str(rank)} if ranked else {}),
                }
            )
        self.emulator.dashboards[head] = rows

    def checkpoint(
        self, directory: str, step: int, actor: bool = True, age: float | None = None
    ) -> Path:
        """Write ``global_step_N`` (with ``actor/``) where the Job's output volume is mounted;
        ``age``: seconds ago it was written (an earlier run's)."""
        local = self.output_dir / Path(directory).relative_to(OUTPUT_MOUNT) / f"global_step_{step}"
        (local / "actor" if actor else local).mkdir(parents=True, exist_ok=True)
        if age is not None:
            then = time.time() - age
            for item in [*local.rglob("*"), local]:
                os.utime(item, (then, then))
        return local

    def earlier_pod(self, job: str, task: str, index: int, rank: int, terminating: bool) -> str:
        """A pod left by an earlier run of ``job`` (another owner uid; Failed, exit 137), with
        the same task and index as this run's; ``terminating``: being deleted (a finalizer
        holds it, as the kubelet would until the container is gone)."""
        labels = {"rlark.io/job": job, "rlark.io/task": task, "rlark.io/worker-index": str(index)}
        owner = {"apiVersion": "rlark.io/v1alpha1", "kind": "Job", "name": job}
        env = [{"name": "RLINF_NODE_RANK", "value": str(rank)}]
        return self.dead_pod(f"{job}-{task}-{index}-old", labels, owner, env, terminating)

    def dead_pod(
        self, name: str, labels: dict, owner: dict, env: list[dict], terminating: bool
    ) -> str:
        """A Failed pod (exit 137) owned by another uid of ``owner``'s kind and name;
        ``terminating``: being deleted (a finalizer holds it)."""
        metadata = {
            "name": name,
            "labels": labels,
            "ownerReferences": [owner | {"uid": str(uuid.uuid4())}],
            "finalizers": ["rlark.io/test-hold"] if terminating else [],
        }
        main = {"name": "main", "image": "registry.example.com/rlinf:v1", "env": env}
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": metadata}
        pod["spec"] = {"containers": [main]}
        self.core.create_namespaced_pod(NAMESPACE, pod, _preload_content=False)
        died = {"exitCode": 137, "reason": "Error"}
        status = {"name": "main", "ready": False, "restartCount": 0}
        status["state"] = {"terminated": died}
        body = {"status": {"phase": "Failed", "containerStatuses": [status]}}
        self.core.patch_namespaced_pod_status(name, NAMESPACE, body, _preload_content=False)
        if terminating:
            self.core.delete_namespaced_pod(name, NAMESPACE, _preload_content=False)
        return name

    def claims(self, name: str, owned: bool = False) -> list[str]:
        """The PVCs RLark creates from the Job's spec.storage (those with a StorageClass; an
        entry without one names an existing claim); ``owned``: with the Job as their owner. A
        name someone's PVC already holds is not created (409) and not returned."""
        claims = []
        job = self.job(name)
        owner = {
            "apiVersion": "rlark.io/v1alpha1",
            "kind": "Job",
            "name": name,
            "uid": job["metadata"]["uid"],
        }
        for entry in job["spec"].get("storage") or []:
            if not entry.get("storageClassName"):
                continue
            metadata: dict[str, Any] = {"name": entry["claimName"]}
            if owned:
                metadata["ownerReferences"] = [owner]
            pvc = {"metadata": metadata, "spec": {"storageClassName": entry["storageClassName"]}}
            try:
                self.core.create_namespaced_persistent_volume_claim(
                    NAMESPACE, pvc, _preload_content=False
                )
            except ApiException as exc:
                if exc.status != 409:
                    raise
                continue
            claims.append(entry["claimName"])
        return claims

    def exists(self, plural: str, name: str) -> bool:
        """Whether the namespace holds a live object ``name`` of resource ``plural``."""
        resource = next(r for r in RESOURCES if r.endswith(f"/{plural}"))
        return self.emulator.live(resource, NAMESPACE, name) is not None


# --- pytest fixtures ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kube_loop() -> Iterator[LoopThread]:
    loop = LoopThread()
    yield loop
    loop.close()


@pytest.fixture
def kube(kube_loop: LoopThread, tmp_path: Path) -> Iterator[Cluster]:
    """A fresh seeded cluster per test (its own emulator and port; the loop is shared)."""
    cluster = Cluster(kube_loop, tmp_path / "output")
    yield cluster
    cluster.close()
