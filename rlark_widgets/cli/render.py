"""Plain-text rendering for the terminal: aligned tables and findings with their fixes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..findings import Finding, Severity
from ..rlinf import ConfigReport
from ..rlinf.ranks import format_ranks

SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def findings_text(findings: Sequence[Finding]) -> str:
    if not findings:
        return "No findings."
    lines = []
    for f in sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity]):
        lines.append(f"[{f.severity.value}] {f.rule_id} at {f.path or '-'}: {f.message}")
        if f.fix:
            lines.append(f"    fix: {f.fix}")
    return "\n".join(lines)


def report_text(report: ConfigReport) -> str:
    config, expansion, cluster = report.config, report.expansion, report.cluster
    out = [
        f"{config.name}  ({config.source})",
        f"task type: {expansion.task_type or '(not set)'}   placement: {expansion.placement_class}"
        f" ({expansion.placement_mode or '-'})   nodes: {expansion.num_nodes or '-'}"
        f"   GPUs assumed: {report.layout.describe()}",
    ]
    if config.overrides:
        out.append("overrides: " + " ".join(config.overrides))
    if report.min_gpus_per_node is not None or report.failing_gpus_per_node:
        smallest = report.min_gpus_per_node
        failing = report.failing_gpus_per_node
        line = f"smallest uniform GPUs per node that RLinf accepts: {smallest if smallest else 'none in 1-16'}"
        if failing:
            line += f"; rejected with {format_ranks(failing)}"
        out.append(line)
    if cluster is not None and cluster.node_groups:
        out += [
            "",
            "Node groups",
            table(
                ("label", "node ranks", "hardware", "env configs"),
                (
                    (
                        g.label,
                        format_ranks(g.node_ranks),
                        g.hardware_type or ("none (ignored)" if g.ignore_hardware else "GPUs"),
                        len(g.env_configs),
                    )
                    for g in cluster.node_groups
                ),
            ),
        ]
    if expansion.ok:
        out += [
            "",
            "Components",
            table(
                ("component", "processes", "strategy", "placement"),
                (
                    (
                        c.name,
                        c.world_size,
                        c.strategy.removesuffix("PlacementStrategy"),
                        c.path.split(".", 2)[-1],
                    )
                    for c in sorted(expansion.components.values(), key=lambda c: c.name)
                ),
            ),
        ]
        out += [
            "",
            "Per node (Ray nodes by RLINF_NODE_RANK)",
            table(
                (
                    "node",
                    "groups",
                    "GPUs used",
                    "min GPUs",
                    "idle GPUs",
                    "processes",
                    "components",
                    "robots",
                ),
                (
                    (
                        n.node_rank,
                        ",".join(n.labels) or "-",
                        format_ranks(n.accelerators_used) if n.accelerators_used else "-",
                        n.min_accelerators_needed,
                        len(n.idle_accelerators),
                        n.processes,
                        ",".join(n.components),
                        ",".join(n.other_hardware_used) or "-",
                    )
                    for n in expansion.per_node.values()
                ),
            ),
        ]
        if cluster is not None:
            unused = [r for r in range(cluster.num_nodes) if r not in expansion.per_node]
            if unused:
                out.append(
                    f"nodes with no component process: {format_ranks(unused)}"
                    " (still needed: RLinf waits for all num_nodes nodes)"
                )
    out += ["", "Findings", findings_text(report.findings)]
    return "\n".join(out)


def plan_text(plan) -> str:
    """Roles, the node-rank map and explanations of a plan."""
    report = plan.report
    out = [
        f"{report.config.name}: {plan.total_workers} Worker(s) for cluster.num_nodes "
        f"{report.cluster.num_nodes if report.cluster else '?'}   template: {plan.template}"
        + (f"   target cluster: {plan.target_cluster}" if plan.target_cluster else "")
    ]
    if not plan.roles:
        return "\n".join(out + ["No roles: RLinf rejects this config (see findings)."])
    out += [
        "",
        "Roles",
        table(
            (
                "role",
                "head",
                "workers",
                "RLINF_NODE_RANK",
                "GPUs/worker",
                "devices/worker",
                "node selector",
                "matched",
            ),
            (
                (
                    r.name,
                    "yes" if r.head else "",
                    r.replicas,
                    format_ranks(r.node_ranks),
                    r.gpus,
                    ", ".join(f"{k}: {v}" for k, v in r.devices.items()) or "-",
                    ", ".join(f"{k}={v}" for k, v in r.node_selector.items()) or "-",
                    "-" if r.matched_nodes is None else len(r.matched_nodes),
                )
                for r in plan.roles
            ),
        ),
    ]
    per_node = report.expansion.per_node
    out += [
        "",
        "Node-rank map",
        table(
            ("RLINF_NODE_RANK", "role/worker", "components", "GPUs used"),
            (
                (
                    rank,
                    f"{role}/{index}",
                    ",".join(per_node[rank].components) if rank in per_node else "-",
                    format_ranks(per_node[rank].accelerators_used)
                    if rank in per_node and per_node[rank].accelerators_used
                    else "-",
                )
                for rank, role, index in plan.rank_map()
            ),
        ),
    ]
    out += ["", "Why"] + [f"- {e}" for e in plan.explanations]
    for role in plan.roles:
        out += [f"- {role.name}: " + " ".join(role.why)]
    return "\n".join(out)
