"""The platform contract: names and defaults RLark and RLinf agree on, written once.

Labels and environment names are read by the backends (to find Workers and their ranks),
written by the local backend (to play RLark's part) and checked by the rules; annotation keys
are written by the Job builder and read by the monitor and the run record. A second copy of any
of them would let the two sides drift, so ``tests/test_contract.py`` fails when one of these
literals appears anywhere else in the package.
"""

from __future__ import annotations

import re

#: The RLark Job resource (``rlark.io/v1alpha1``, kind Job, plural ``jobs``).
API_GROUP = "rlark.io"
API_VERSION_NAME = "v1alpha1"
API_VERSION = f"{API_GROUP}/{API_VERSION_NAME}"
JOB_RESOURCE = f"jobs.{API_GROUP}"

#: Labels RLark puts on every Worker pod.
JOB_LABEL = f"{API_GROUP}/job"
TASK_LABEL = f"{API_GROUP}/task"
INDEX_LABEL = f"{API_GROUP}/worker-index"
#: The run (the Job object's uid) a Worker pod belongs to, when the platform labels it; pods
#: are otherwise matched to their run through their ownerReferences.
RUN_LABEL = f"{API_GROUP}/run"
#: The role label the local backend gives each Ray node it starts.
ROLE_LABEL = f"{API_GROUP}/role"
#: Node labels the console selects by: the cluster and the node category (云算力, 端算力, 端真机).
CLUSTER_LABEL = f"{API_GROUP}/cluster"
CATEGORY_LABEL = f"{API_GROUP}/node-category"

#: Annotation keys the Job builder writes and the monitor and run record read.
ANNOTATION_PREFIX = f"{API_GROUP}/"
CONFIG_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-config"
NUM_NODES_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-num-nodes"
OVERRIDES_ANNOTATION = f"{ANNOTATION_PREFIX}rlinf-overrides"
PLANNED_BY_ANNOTATION = f"{ANNOTATION_PREFIX}planned-by"
CHECKPOINT_DIR_ANNOTATION = f"{ANNOTATION_PREFIX}checkpoint-dir"
SAVE_INTERVAL_ANNOTATION = f"{ANNOTATION_PREFIX}save-interval"
MAX_STEPS_ANNOTATION = f"{ANNOTATION_PREFIX}max-steps"
#: The checkpoint a run resumes from (``runner.resume_dir``), when the config sets one.
RESUME_DIR_ANNOTATION = f"{ANNOTATION_PREFIX}resume-dir"

#: RLinf's resource and label namespace: device resources are ``rlinf.io/device-<robot>``.
DEVICE_PREFIX = "rlinf.io/"
#: Ray's own variable for the head address, which RLark sets on every Worker.
RAY_ADDRESS_ENV = "RAY_ADDRESS"
#: RLinf's node rank: an environment variable on every Worker and a label on its Ray node.
RANK_ENV = "RLINF_NODE_RANK"
RANK_LABEL = f"{DEVICE_PREFIX}node-rank"
#: Set by RLark itself on every Worker; a user value would be overwritten or break the layout.
RESERVED_ENV = frozenset({RANK_ENV, RAY_ADDRESS_ENV, "RAY_HEAD_IP", "RAY_NODE_IP_ADDRESS"})
RESERVED_ENV_PREFIXES = ("RLARK_",)

#: A Kubernetes DNS label (RFC 1123): Job names and volume names.
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
#: Where RLinf is checked out inside the image, unless the user says otherwise.
DEFAULT_RLINF_DIR = "/workspace/RLinf"
#: The mount the Job form's StorageClass and output directory define on every role.
OUTPUT_MOUNT = "output"
#: What the run script launches when no single RLinf entry script is known for the task type.
ENTRY_PLACEHOLDER = "REPLACE_WITH_RLINF_ENTRY_SCRIPT"
