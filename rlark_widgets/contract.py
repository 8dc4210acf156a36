"""The platform contract: names RLark and RLinf agree on, written once for every layer.

Labels and environment names here are read by the backends (to find Workers and their ranks),
written by the local backend (to play RLark's part) and checked by the rules; a second copy of
any of them would let the two drift apart.
"""

from __future__ import annotations

#: Labels RLark puts on every Worker pod.
JOB_LABEL = "rlark.io/job"
TASK_LABEL = "rlark.io/task"
INDEX_LABEL = "rlark.io/worker-index"
#: The run (the Job object's uid) a Worker pod belongs to, when the platform labels it; pods
#: are otherwise matched to their run through their ownerReferences.
RUN_LABEL = "rlark.io/run"
#: RLinf's node rank: an environment variable on every Worker and a label on its Ray node.
RANK_ENV = "RLINF_NODE_RANK"
RANK_LABEL = "rlinf.io/node-rank"
