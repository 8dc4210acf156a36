"""What every rule shares: the context it reads, the ``@rule`` registry and the seed sources."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

from ...findings import Severity
from ...i18n import Text
from ...rlinf import ConfigReport
from ..facts import RecordFacts
from ..inventory import Inventory
from ..job import Job, Role, normal_path
from ..node_needs import NodeNeeds, node_needs
from ..site import SiteProfile

Hit = tuple[str, Text, Text]  # (path, message, fix)
SEED_JOB = "seeds/create-training-job.zh.txt"
SEED_FAQ = "seeds/rlinf-faq.zh.txt"
SEED_RLARK = "seeds/rlark-and-rlinf.zh.txt"
SPEC = "rlinf-cluster-spec.md"
CD_TARGET = re.compile(r"(?:^|[;&|(\s])cd\s+([^\s;&|)]+)")


def code_lines(script: str) -> str:
    """The script without comment lines, so '# TODO: ray status' does not count as a check."""
    return "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))


def covers(mount_path: str, path: PurePosixPath) -> bool:
    """Whether the mount at ``mount_path`` holds ``path``."""
    mount, path = normal_path(mount_path), normal_path(path)
    return mount == path or mount in path.parents


@dataclass
class RuleContext:
    """Everything a rule may look at; optional parts make rules that need them stay silent."""

    job: Job
    report: ConfigReport | None = None
    inventory: Inventory | None = None
    target_cluster: str | None = None
    facts: RecordFacts | None = None
    site: SiteProfile = field(kw_only=True)

    @cached_property
    def manifest(self) -> dict[str, Any]:
        return self.job.to_manifest()

    @cached_property
    def needs(self) -> list[NodeNeeds] | None:
        if self.report is None or not self.report.ok or self.report.cluster is None:
            return None
        return node_needs(self.report.cluster, self.report.expansion)

    def role_path(self, index: int, field_path: str = "") -> str:
        return f"spec.tasks[{index}]" + (f".{field_path}" if field_path else "")

    def roles_by_rank(self) -> Iterator[tuple[int, int, Role]]:
        """(RLINF_NODE_RANK, role index, role): the Workers of the roles before plus the index.

        Stops one rank past the config's nodes: the rules compare Workers with those nodes, and
        a typo such as 10**12 replicas must not loop over every Worker.
        """
        last = len(self.needs) if self.needs is not None else None
        rank = 0
        for index, role in enumerate(self.job.roles):
            for _ in range(role.replicas):
                if last is not None and rank > last:
                    return
                yield rank, index, role
                rank += 1


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    title: Text
    source: str
    check: Callable[[RuleContext], Iterable[Hit]] = field(repr=False, compare=False)


#: Every rule as its module registers it; :data:`..catalogue.RULES` puts them in catalogue order.
REGISTERED: list[Rule] = []
CONTAINER = "template.spec.containers[0]"


Check = Callable[["RuleContext"], Iterable[Hit]]


def rule(rule_id: str, severity: Severity, title: Text, source: str) -> Callable[[Check], Check]:
    """Register the decorated check as rule ``rule_id`` (in its module's registration order)."""

    def register(check: Check) -> Check:
        REGISTERED.append(Rule(rule_id, severity, title, source, check))
        return check

    return register
