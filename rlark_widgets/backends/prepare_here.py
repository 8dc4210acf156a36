"""The warning a backend that runs the Job's prepare scripts on this machine gives first.

Its own module (not the local backend's) because the app weighs it for the chosen backend
before opening one: the backend's policy (``runs_here``) says whether it applies.
"""

from __future__ import annotations

from ..findings import Finding, Severity
from ..i18n import Text
from ..rlark.job import Job

SOURCE = "rlark-widgets: local backend"


def prepare_here_finding(job: Job) -> Finding | None:
    """The warning that a local run starts the Job's prepare scripts on this machine.

    A prepare script is a script by design and is run as written, as this user, with no image
    around it: a Job YAML from someone else runs their commands here. ``submit JOB.yaml`` asks
    for a yes (``--yes``) and the app asks once per Job before starting them.
    """
    roles = [(index, role) for index, role in enumerate(job.roles) if role.prepare_script.strip()]
    if not roles:
        return None
    return Finding(
        "LOC-PREPARE-HERE",
        Severity.WARNING,
        f"spec.tasks[{roles[0][0]}].prepareScript",
        Text(
            "The local backend runs the prepare script of {roles} on this machine, as you, before"
            " Ray starts: every command in it runs here, not in a container.",
            roles=", ".join(f"'{role.name}'" for _, role in roles),
        ),
        Text(
            "Read each role's prepareScript first and go on only if you would run it yourself"
            " (rlark-migrate submit: --yes)."
        ),
        SOURCE,
    )
