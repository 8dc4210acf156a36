"""The platform contract: names and defaults rlark-widgets and RLinf agree on, written once.

Site facts (the cluster and node-category labels, the device prefix, StorageClasses, reserved
environment names, the RLinf checkout, the Job's API group/version/kind and the Worker pod
labels) are not here: each RLark environment defines them, so they come from the site profile
(``rlark/site.py``; docs/architecture.md, "Facts have one home"). What stays is RLinf's and Ray's (``RLINF_NODE_RANK``, the
node-rank label) and ours (the annotation keys the Job builder writes and the monitor and run
record read). A second copy of any of them would let the two sides drift, so
``tests/test_contract.py`` fails when one of these literals, or a value of the shipped example
site profile, appears anywhere else in the package.
"""

from __future__ import annotations

import re

#: Annotation keys the Job builder writes and the monitor and run record read (ours).
ANNOTATION_PREFIX = "rlark.io/"
CONFIG_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-config"
NUM_NODES_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-num-nodes"
OVERRIDES_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-overrides"
PLANNED_BY_ANNOTATION = f"{ANNOTATION_PREFIX}planned-by"
CHECKPOINT_DIR_ANNOTATION = f"{ANNOTATION_PREFIX}checkpoint-dir"
SAVE_INTERVAL_ANNOTATION = f"{ANNOTATION_PREFIX}save-interval"
MAX_STEPS_ANNOTATION = f"{ANNOTATION_PREFIX}max-steps"
#: The role label the local backend gives each Ray node it starts (ours: RLark's is the site's).
ROLE_LABEL = f"{ANNOTATION_PREFIX}role"
#: The run (the Job object's uid) a Worker pod belongs to, when the platform labels pods by run
#: (ours; pods are otherwise matched to their run through their ownerReferences).
RUN_LABEL = f"{ANNOTATION_PREFIX}run"
#: The checkpoint a run resumes from (``runner.resume_dir``), when the config sets one.
RESUME_DIR_ANNOTATION = f"{ANNOTATION_PREFIX}resume-dir"

#: RLinf's label namespace on Ray nodes.
RLINF_NAMESPACE = "rlinf.io/"
#: Ray's own variable for the head address, which RLark sets on every Worker.
RAY_ADDRESS_ENV = "RAY_ADDRESS"
#: RLinf's node rank: an environment variable on every Worker and a label on its Ray node.
RANK_ENV = "RLINF_NODE_RANK"
RANK_LABEL = f"{RLINF_NAMESPACE}node-rank"
#: Set on every Worker before Ray starts, whatever the site: a user value would break the layout.
RESERVED_ENV = frozenset({RANK_ENV, RAY_ADDRESS_ENV})

#: KubeRay's resources (``ray.io/v1`` RayJob, RayCluster) and what its operator writes on them.
KUBERAY_GROUP = "ray.io"
KUBERAY_API_VERSION = f"{KUBERAY_GROUP}/v1"
#: Labels the KubeRay operator puts on every Ray pod: its RayCluster, head or worker, its group.
KUBERAY_CLUSTER_LABEL = f"{KUBERAY_GROUP}/cluster"
KUBERAY_NODE_TYPE_LABEL = f"{KUBERAY_GROUP}/node-type"
KUBERAY_GROUP_LABEL = f"{KUBERAY_GROUP}/group"
#: The annotation that lets a pod template keep its own command instead of KubeRay's.
KUBERAY_OVERWRITE_CMD_ANNOTATION = f"{KUBERAY_GROUP}/overwrite-container-cmd"
#: The annotation that keeps a RayCluster's run script (a RayCluster has no entrypoint); the
#: pods' role and Worker-index labels are the site profile's Worker labels, as on RLark.
RUN_SCRIPT_ANNOTATION = f"{ANNOTATION_PREFIX}run-script"

#: Our name: the package's distribution, and the value of the label on every RayJob/RayCluster
#: this tool exports (Kubernetes' recommended managed-by label), by which ``list`` finds its own.
DISTRIBUTION = "rlark-widgets"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"

#: A Kubernetes DNS label (RFC 1123): Job names and volume names.
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
#: The mount the Job form's StorageClass and output directory define on every role.
OUTPUT_MOUNT = "output"
#: What the run script launches when no single RLinf entry script is known for the task type.
ENTRY_PLACEHOLDER = "REPLACE_WITH_RLINF_ENTRY_SCRIPT"
