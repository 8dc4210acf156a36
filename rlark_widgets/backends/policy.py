"""What a kind of backend is, as data: the one place its differences are decided.

Everything above ``backends/`` that used to ask "is this the local backend?" asks the policy
instead: which errors stop a submission, whether the backend has live nodes to plan against,
whether a stopped run keeps the Job's name, which connection options it takes, whether it runs
the Job's prepare scripts on this machine. A policy is known before a backend is opened (the
app weighs findings for the chosen backend before it connects), so it is data, not a method.
What an opened backend can do beyond the port (list its Jobs, keep earlier runs' logs...) is an
ability in :mod:`.abilities`, found on the object itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..findings import Finding, Severity
from ..i18n import Text


class BackendKind(StrEnum):
    """The backends this package ships (``--backend``, the app's Backend choice)."""

    LOCAL = "local"
    KUBERNETES = "kubernetes"
    KUBERAY = "kuberay"


class Connection(StrEnum):
    """An option that says where a backend runs; the value is the CLI option's name."""

    WORKSPACE = "workspace"  # the directory local runs live in
    RUN_TIMEOUT = "run-timeout"  # seconds a local run script may run
    CONTEXT = "context"  # the kubeconfig context
    NAMESPACE = "namespace"
    KUBECONFIG = "kubeconfig"
    EXPORT = "kind"  # what a KubeRay submission exports (RayJob or RayCluster, TTLs, claims)


def _image_only(finding: Finding) -> bool:
    """A schema error about a container's image (which a backend running no image ignores)."""
    return finding.rule_id == "JOB-SCHEMA" and finding.path.endswith(".image")


@dataclass(frozen=True)
class BackendPolicy:
    """How one kind of backend differs from the others (see the module docstring)."""

    kind: str  # the name on the command line and in the app
    summary: Text  # what it runs on, in one line (help, the app, the reference page)
    connection: tuple[Connection, ...]
    #: it can read its nodes and StorageClasses as the inventory a plan is checked against
    live_inventory: bool
    #: a stopped run keeps the Job's name, so a new run needs the old object deleted first
    stopped_run_keeps_name: bool
    #: it runs the Job's prepare scripts on this machine (a submission asks first)
    runs_here: bool
    #: it pulls the Job's images (else an image error does not stop it)
    runs_images: bool
    #: the rule-id prefixes whose errors stop a submission (None: every error does)
    stopped_by: tuple[str, ...] | None = None

    def takes(self, option: Connection) -> bool:
        return option in self.connection

    def stops(self, finding: Finding) -> bool:
        """Whether ``finding`` stops a submission to this backend."""
        if finding.severity is not Severity.ERROR:
            return False
        if not self.runs_images and _image_only(finding):
            return False
        return self.stopped_by is None or finding.rule_id.startswith(self.stopped_by)

    def blocking(self, findings: list[Finding]) -> list[Finding]:
        """The findings that stop a submission to this backend (the one blocking rule)."""
        return [f for f in findings if self.stops(f)]


_CLUSTER = (Connection.CONTEXT, Connection.NAMESPACE, Connection.KUBECONFIG)

#: The local rehearsal runs no images and selects no nodes: only errors of these families
#: stop it (the image is asked for where it matters: Kubernetes and the console sheet).
LOCAL = BackendPolicy(
    kind=BackendKind.LOCAL,
    summary=Text("real Ray nodes on this machine rehearsing the Job"),
    connection=(Connection.WORKSPACE, Connection.RUN_TIMEOUT),
    live_inventory=False,
    stopped_run_keeps_name=False,
    runs_here=True,
    runs_images=False,
    stopped_by=("CFG-", "PLN-", "JOB-SCHEMA", "SEC-", "LOC-", "VALUE-"),
)
KUBERNETES = BackendPolicy(
    kind=BackendKind.KUBERNETES,
    summary=Text("your cluster: the Job as RLark's Job resource"),
    connection=_CLUSTER,
    live_inventory=True,
    stopped_run_keeps_name=False,
    runs_here=False,
    runs_images=True,
)
KUBERAY = BackendPolicy(
    kind=BackendKind.KUBERAY,
    summary=Text("your cluster's KubeRay: the Job exported as a RayJob or RayCluster"),
    connection=(*_CLUSTER, Connection.EXPORT),
    live_inventory=True,
    stopped_run_keeps_name=True,
    runs_here=False,
    runs_images=True,
)
