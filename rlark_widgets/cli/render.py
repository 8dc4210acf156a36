"""Plain-text rendering for the terminal: aligned tables and findings with their fixes."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from unicodedata import east_asian_width

from ..contract import RANK_ENV
from ..findings import Finding, Severity
from ..i18n import Text, render
from ..rlark.planner import Plan
from ..rlinf import ClusterSpec, ConfigReport, Expansion, NodeGroupSpec
from ..rlinf.ranks import format_ranks
from ..rlinf.report import mode_name, strategy_name

SEVERITY_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
WIDE = ("W", "F")  # East Asian wide and full-width characters take two terminal columns


def width(text: str) -> int:
    """Terminal columns of ``text``: Chinese headers and cells line up with English ones."""
    return sum(2 if east_asian_width(c) in WIDE else 1 for c in text)


def table_lines(
    headers: Sequence[Text | str], rows: Iterable[Sequence[object]], lang: str = "en"
) -> Iterator[str]:
    """An aligned table, line by line (the cells are rendered once to size the columns)."""
    cells = [[render(h, lang) for h in headers], *[[render(c, lang) for c in row] for row in rows]]
    widths = [max(width(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        yield "  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths, strict=True)).rstrip()
        if index == 0:
            yield "  ".join("-" * w for w in widths)


def table(headers: Sequence[Text | str], rows: Iterable[Sequence[object]], lang: str = "en") -> str:
    return "\n".join(table_lines(headers, rows, lang))


def write_lines(lines: Iterable[str], write: Callable[[str], object], batch: int = 512) -> None:
    """Write lines as they come, a few hundred at a time."""
    pending: list[str] = []
    for line in lines:
        pending.append(line)
        if len(pending) >= batch:
            write("\n".join(pending) + "\n")
            pending.clear()
    if pending:
        write("\n".join(pending) + "\n")


def _finding_line(finding: Finding) -> Text:
    """Whole templates per severity, so the label is translated with its sentence."""
    where = finding.path or "-"
    if finding.severity is Severity.ERROR:
        return Text(
            "[error] {rule} at {path}: {message}",
            rule=finding.rule_id,
            path=where,
            message=finding.text,
        )
    if finding.severity is Severity.WARNING:
        return Text(
            "[warning] {rule} at {path}: {message}",
            rule=finding.rule_id,
            path=where,
            message=finding.text,
        )
    return Text(
        "[info] {rule} at {path}: {message}",
        rule=finding.rule_id,
        path=where,
        message=finding.text,
    )


def findings_text(findings: Sequence[Finding], lang: str = "en") -> str:
    if not findings:
        return Text("No findings.").render(lang)
    lines = []
    for f in sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity]):
        lines.append(_finding_line(f).render(lang))
        if f.fix_text:
            lines.append("    " + Text("fix: {fix}", fix=f.fix_text).render(lang))
    return "\n".join(lines)


def _summary_line(report: ConfigReport) -> Text:
    expansion = report.expansion
    return Text(
        "task type: {task_type}   placement: {placement} ({mode})   nodes: {nodes}"
        "   GPUs assumed: {gpus}",
        task_type=expansion.task_type or Text("(not set)"),
        placement=expansion.placement_class,
        mode=mode_name(expansion.placement_mode),
        nodes=expansion.num_nodes or "-",
        gpus=report.layout.describe(),
    )


def _gpu_search_line(report: ConfigReport) -> Text:
    smallest, failing = report.min_gpus_per_node, report.failing_gpus_per_node
    if not smallest:
        line = Text("smallest uniform GPUs per node that RLinf accepts: none in 1-16")
    else:
        line = Text("smallest uniform GPUs per node that RLinf accepts: {gpus}", gpus=smallest)
    if not failing:
        return line
    return Text("{line}; rejected with {failing}", line=line, failing=format_ranks(failing))


def _node_groups(cluster: ClusterSpec, lang: str) -> list[str]:
    def hardware(group: NodeGroupSpec) -> Text | str:
        if group.hardware_type:
            return group.hardware_type
        return Text("none (ignored)") if group.ignore_hardware else "GPUs"

    return [
        "",
        Text("Node groups").render(lang),
        table(
            (Text("label"), Text("node ranks"), Text("hardware"), Text("env configs")),
            (
                (g.label, format_ranks(g.node_ranks), hardware(g), len(g.env_configs))
                for g in cluster.node_groups
            ),
            lang,
        ),
    ]


def _components(expansion: Expansion, lang: str) -> list[str]:
    return [
        "",
        Text("Components").render(lang),
        table(
            (Text("component"), Text("processes"), Text("strategy"), Text("placement")),
            (
                (
                    c.name,
                    c.world_size,
                    strategy_name(c.strategy),
                    c.path.split(".", 2)[-1],
                )
                for c in sorted(expansion.components.values(), key=lambda c: c.name)
            ),
            lang,
        ),
    ]


def _per_node(expansion: Expansion, lang: str) -> Iterator[str]:
    headers = (
        Text("node"),
        Text("groups"),
        Text("GPUs used"),
        Text("min GPUs"),
        Text("idle GPUs"),
        Text("processes"),
        Text("components"),
        Text("robots"),
    )
    rows = (
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
    )
    yield ""
    yield Text("Per node (Ray nodes by RLINF_NODE_RANK)").render(lang)
    yield from table_lines(headers, rows, lang)


def report_lines(report: ConfigReport, lang: str = "en") -> Iterator[str]:
    """What ``inspect`` prints, line by line (a 1,024-node table is written as it is made)."""
    config, expansion, cluster = report.config, report.expansion, report.cluster
    yield f"{config.name}  ({config.source})"
    yield _summary_line(report).render(lang)
    if config.overrides:
        yield Text("overrides: {overrides}", overrides=" ".join(config.overrides)).render(lang)
    if report.min_gpus_per_node is not None or report.failing_gpus_per_node:
        yield _gpu_search_line(report).render(lang)
    if cluster is not None and cluster.node_groups:
        yield from _node_groups(cluster, lang)
    if expansion.ok:
        yield from _components(expansion, lang)
        yield from _per_node(expansion, lang)
        if cluster is not None:
            unused = [r for r in range(cluster.num_nodes) if r not in expansion.per_node]
            if unused:
                yield Text(
                    "nodes with no component process: {ranks}"
                    " (still needed: RLinf waits for all num_nodes nodes)",
                    ranks=format_ranks(unused),
                ).render(lang)
    yield ""
    yield Text("Findings").render(lang)
    yield findings_text(report.findings, lang)


def _plan_heading(plan: Plan) -> Text:
    report = plan.report
    values = {
        "config": report.config.name,
        "workers": plan.total_workers,
        "nodes": report.cluster.num_nodes if report.cluster else "?",
        "template": plan.template,
    }
    if plan.target_cluster:
        return Text(
            "{config}: {workers} Worker(s) for cluster.num_nodes {nodes}   template: {template}"
            "   target cluster: {cluster}",
            cluster=plan.target_cluster,
            **values,
        )
    return Text(
        "{config}: {workers} Worker(s) for cluster.num_nodes {nodes}   template: {template}",
        **values,
    )


def _roles(plan: Plan, lang: str) -> list[str]:
    headers = (
        Text("role"),
        Text("head"),
        Text("workers"),
        RANK_ENV,
        Text("GPUs/worker"),
        Text("devices/worker"),
        Text("node selector"),
        Text("matched"),
    )
    rows = (
        (
            r.name,
            Text("yes") if r.head else "",
            r.replicas,
            format_ranks(r.node_ranks),
            r.gpus,
            ", ".join(f"{k}: {v}" for k, v in r.devices.items()) or "-",
            ", ".join(f"{k}={v}" for k, v in r.node_selector.items()) or "-",
            "-" if r.matched_nodes is None else len(r.matched_nodes),
        )
        for r in plan.roles
    )
    return ["", Text("Roles").render(lang), table(headers, rows, lang)]


def _rank_map(plan: Plan, lang: str) -> list[str]:
    per_node = plan.report.expansion.per_node
    rows = (
        (
            rank,
            f"{role}/{index}",
            ",".join(per_node[rank].components) if rank in per_node else "-",
            format_ranks(per_node[rank].accelerators_used)
            if rank in per_node and per_node[rank].accelerators_used
            else "-",
        )
        for rank, role, index in plan.rank_map()
    )
    headers = (RANK_ENV, Text("role/worker"), Text("components"), Text("GPUs used"))
    return ["", Text("Node-rank map").render(lang), table(headers, rows, lang)]


def plan_text(plan: Plan, lang: str = "en") -> str:
    """Roles, the node-rank map and explanations of a plan."""
    out = [_plan_heading(plan).render(lang)]
    if not plan.roles:
        return "\n".join(
            out + [Text("No roles: RLinf rejects this config (see findings).").render(lang)]
        )
    out += _roles(plan, lang) + _rank_map(plan, lang)
    out += ["", Text("Why").render(lang)] + [f"- {render(e, lang)}" for e in plan.explanations]
    for role in plan.roles:
        out += [f"- {role.name}: " + " ".join(render(w, lang) for w in role.why)]
    return "\n".join(out)
