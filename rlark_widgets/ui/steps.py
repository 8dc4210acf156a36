"""The app's steps as thin ipywidgets views over the Session (no logic a test cannot reach).

Each view builds its widgets once, observes the session traits it shows, and forwards every
click to one session method.
"""

from __future__ import annotations

import ipywidgets as w

from ..examples import example_configs, example_inventories
from ..findings import Severity
from ..rlark.inventory import CATEGORIES
from ..rlinf.ranks import format_ranks
from .html import CSS, banner, copy_button, download_link, findings_html, table, yaml_html
from .session import Session, finding_key

FULL = w.Layout(width="100%")
WIDE = w.Layout(width="420px")
STYLE = {"description_width": "150px"}


def text(
    description: str, value: str = "", placeholder: str = "", area: bool = False, **kwargs
) -> w.Widget:
    cls = w.Textarea if area else w.Text
    return cls(
        value=value,
        description=description,
        placeholder=placeholder,
        style=STYLE,
        layout=w.Layout(width="640px", height="90px" if area else None),
        **kwargs,
    )


class ImportStep:
    """Step 1: a bundled example, a path, or an upload; overrides and searchpath variables."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.example = w.Dropdown(
            options=list(example_configs()),
            value=session.example,
            description="Bundled example",
            style=STYLE,
            layout=WIDE,
        )
        load_example = w.Button(description="Load example", button_style="primary", icon="download")
        self.path = text(
            "Config file", session.config_path, "/path/to/RLinf/examples/embodiment/config/x.yaml"
        )
        load_path = w.Button(description="Load file", icon="folder-open")
        self.upload = w.FileUpload(accept=".yaml,.yml", multiple=False, description="Upload YAML")
        self.overrides = text(
            "Overrides", session.overrides_text, "cluster.num_nodes=2 (one per line)", area=True
        )
        self.env = text(
            "Search paths",
            session.env_text,
            "EMBODIED_PATH=/path/to/RLinf/examples/embodiment",
            area=True,
        )
        self.summary = w.HTML()
        load_example.on_click(lambda _: self._sync() or session.load_example(self.example.value))
        load_path.on_click(lambda _: self._sync() or session.load_path(self.path.value))
        self.upload.observe(self._uploaded, "value")
        session.observe(lambda _: self.render(), ["revision"])
        self.widget = w.VBox(
            [
                w.HTML("<h3>Import your RLinf config</h3>"),
                w.HBox([self.example, load_example]),
                w.HBox([self.path, load_path]),
                self.upload,
                self.overrides,
                self.env,
                self.summary,
            ]
        )
        self.render()

    def _sync(self) -> None:
        self.s.overrides_text, self.s.env_text = self.overrides.value, self.env.value

    def _uploaded(self, change) -> None:
        files = change["new"]
        if files:
            item = files[0]
            self._sync()
            self.s.load_upload(item["name"], bytes(item["content"]))

    def render(self) -> None:
        report = self.s.report
        if report is None:
            self.summary.value = ""
            return
        e = report.expansion
        rows = [
            (c.name, c.world_size, c.strategy.removesuffix("PlacementStrategy"))
            for c in sorted(e.components.values(), key=lambda c: c.name)
        ]
        config_findings = [f for f in report.findings if f.rule_id.startswith(("CFG", "PLC"))]
        self.summary.value = CSS + (
            f"<div class='rlk'><b>{self.s.config.name}</b> — task type {e.task_type or '?'}, "
            f"{e.num_nodes or '?'} Ray node(s), mode {e.placement_mode or '-'}</div>"
            + (table(("component", "processes", "strategy"), rows) if rows else "")
            + findings_html(config_findings)
        )


class ClusterStep:
    """Step 2: backend, GPUs per node, and the inventory with node categories."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.backend = w.ToggleButtons(
            options=[("Local (Ray on this machine)", "local"), ("Kubernetes", "kubernetes")],
            value=session.backend_name,
            description="Backend",
            style=STYLE,
        )
        self.context = text("Kube context", session.k8s_context, "current context")
        self.namespace = text("Namespace", session.k8s_namespace)
        self.gpus = w.IntSlider(
            value=session.gpus_per_node,
            min=0,
            max=16,
            description="GPUs per node",
            style=STYLE,
            continuous_update=False,
            layout=WIDE,
        )
        self.gpu_map = text("Per-node GPUs", session.gpu_map_text, "0:8,1:4 (overrides the slider)")
        apply_map = w.Button(description="Apply", icon="check")
        self.inventory = w.Dropdown(
            options=[("none", "")] + [(n, n) for n in example_inventories()],
            value=session.inventory_name,
            description="Inventory",
            style=STYLE,
            layout=WIDE,
        )
        self.category = w.ToggleButtons(
            options=[("all", "")] + [(f"{k} {v}", k) for k, v in CATEGORIES.items()],
            value="",
            description="Category",
            style=STYLE,
        )
        self.table = w.HTML()
        self.backend.observe(lambda c: setattr(session, "backend_name", c["new"]), "value")
        self.context.observe(lambda c: setattr(session, "k8s_context", c["new"]), "value")
        self.namespace.observe(lambda c: setattr(session, "k8s_namespace", c["new"]), "value")
        self.gpus.observe(lambda c: session.set_gpus(per_node=c["new"]), "value")
        apply_map.on_click(lambda _: session.set_gpus(per_node_map=self.gpu_map.value))
        self.inventory.observe(lambda c: session.set_inventory(c["new"]), "value")
        self.category.observe(lambda _: self.render(), "value")
        session.observe(lambda _: self.render(), ["inventory"])
        self.widget = w.VBox(
            [
                w.HTML("<h3>Cluster</h3>"),
                self.backend,
                w.HBox([self.context, self.namespace]),
                self.gpus,
                w.HBox([self.gpu_map, apply_map]),
                self.inventory,
                self.category,
                self.table,
            ]
        )
        self.render()

    def render(self) -> None:
        inventory = self.s.inventory
        if inventory is None:
            self.table.value = banner(
                "No inventory: node selections cannot be matched. Choose one (or the "
                "Kubernetes backend's live nodes) to see matched-node counts."
            )
            return
        nodes = [
            n
            for n in inventory.nodes
            if not self.category.value or n.category == self.category.value
        ]
        self.table.value = CSS + table(
            ("node", "cluster", "category", "GPUs", "devices", "ready", "schedulable"),
            (
                (
                    n.name,
                    n.cluster or "-",
                    f"{n.category} {CATEGORIES.get(n.category or '', '')}",
                    n.gpus,
                    ", ".join(f"{k.removeprefix('rlinf.io/')}: {v}" for k, v in n.devices.items())
                    or "-",
                    "yes" if n.ready else "NO",
                    "yes" if n.schedulable else "no",
                )
                for n in nodes
            ),
        )


class RolesStep:
    """Step 4: the editable role table, templates, Re-plan, and the live node-rank map."""

    def __init__(self, session: Session) -> None:
        self.s = session
        self.template = w.Dropdown(
            options=[
                ("from task type", ""),
                ("RL task 强化学习任务", "rl"),
                ("data collection 数据采集任务", "data-collection"),
                ("evaluation 评测任务", "evaluation"),
                ("custom 自定义任务", "custom"),
            ],
            value=session.template,
            description="Template",
            style=STYLE,
            layout=WIDE,
        )
        replan = w.Button(
            description="Re-plan", icon="refresh", tooltip="Discard role edits and plan again"
        )
        add = w.Button(description="Add role", icon="plus")
        self.rows = w.VBox()
        self.rank_map = w.HTML()
        self.why = w.HTML()
        self.template.observe(
            lambda c: setattr(session, "template", c["new"]) or session.replan(), "value"
        )
        replan.on_click(lambda _: session.replan())
        add.on_click(lambda _: session.add_role())
        session.observe(lambda _: self.render(), ["revision"])
        self.widget = w.VBox(
            [
                w.HTML("<h3>Roles</h3>"),
                w.HBox([self.template, replan, add]),
                self.rows,
                self.rank_map,
                self.why,
            ]
        )
        self.render()

    def _row(self, index: int, role) -> w.Widget:
        s = self.s
        name = w.Text(
            value=role.name,
            description="name",
            layout=w.Layout(width="210px"),
            style={"description_width": "40px"},
        )
        head = w.Checkbox(
            value=role.head, description="Header", indent=False, layout=w.Layout(width="80px")
        )
        replicas = w.BoundedIntText(
            value=role.replicas,
            min=1,
            max=4096,
            description="Workers",
            layout=w.Layout(width="150px"),
        )
        gpus = w.BoundedIntText(
            value=role.gpus,
            min=0,
            max=64,
            description="GPUs/Worker",
            layout=w.Layout(width="170px"),
        )
        selector = w.Text(
            value=", ".join(f"{k}={v}" for k, v in role.node_selector.items()),
            description="nodes",
            placeholder="key=value, key=value",
            layout=w.Layout(width="520px"),
            style={"description_width": "40px"},
        )
        matched = s.matched_nodes(role.node_selector)
        count = w.HTML(
            "<i>no inventory</i>" if matched is None else f"<b>{len(matched)}</b> node(s) matched"
        )
        devices = w.Text(
            value=", ".join(f"{k}={v}" for k, v in role.devices.items()),
            description="devices",
            placeholder="rlinf.io/device-franka=1",
            layout=w.Layout(width="360px"),
            style={"description_width": "55px"},
        )
        env = w.Textarea(
            value="\n".join(f"{k}={v}" for k, v in role.env.items()),
            placeholder="NAME=value",
            description="env",
            layout=w.Layout(width="360px", height="54px"),
            style={"description_width": "55px"},
        )
        prepare = w.Textarea(
            value=role.prepare_script,
            description="prepare",
            placeholder="source /opt/venv/bin/activate",
            layout=w.Layout(width="520px", height="54px"),
            style={"description_width": "55px"},
        )
        up, down, remove = (
            w.Button(icon=i, layout=w.Layout(width="36px"), tooltip=t)
            for i, t in (("arrow-up", "move up"), ("arrow-down", "move down"), ("trash", "remove"))
        )

        def pairs(textvalue: str, sep: str) -> dict[str, str]:
            items = (p.split("=", 1) for p in textvalue.replace("\n", sep).split(sep) if "=" in p)
            return {k.strip(): v.strip() for k, v in items}

        name.observe(lambda c: s.update_role(index, name=c["new"].strip()), "value")
        head.observe(lambda c: s.update_role(index, head=c["new"]), "value")
        replicas.observe(lambda c: s.update_role(index, replicas=c["new"]), "value")
        gpus.observe(lambda c: s.update_role(index, gpus=c["new"]), "value")
        selector.observe(
            lambda c: s.update_role(index, node_selector=pairs(c["new"], ",")), "value"
        )
        devices.observe(
            lambda c: s.update_role(
                index, devices={k: int(v) for k, v in pairs(c["new"], ",").items() if v.isdigit()}
            ),
            "value",
        )
        env.observe(lambda c: s.update_role(index, env=pairs(c["new"], "\n")), "value")
        prepare.observe(lambda c: s.update_role(index, prepare_script=c["new"]), "value")
        up.on_click(lambda _: s.move_role(index, -1))
        down.on_click(lambda _: s.move_role(index, 1))
        remove.on_click(lambda _: s.remove_role(index))
        for field in (name, selector, devices, env, prepare):
            field.continuous_update = False
        return w.VBox(
            [
                w.HBox([name, head, replicas, gpus, up, down, remove]),
                w.HBox([selector, count]),
                w.HBox([devices, env]),
                prepare,
            ],
            layout=w.Layout(
                border="1px solid rgba(127,127,127,.35)", padding="6px", margin="4px 0"
            ),
        )

    def render(self) -> None:
        self.rows.children = [self._row(i, r) for i, r in enumerate(self.s.roles)]
        job, plan = self.s.job, self.s.plan
        if job is None or plan is None:
            self.rank_map.value = (
                banner("No roles: RLinf rejects this config (see the findings).", "bad")
                if plan
                else ""
            )
            self.why.value = ""
            return
        per_node = self.s.report.expansion.per_node
        rows = []
        for role, ranks in job.node_rank_ranges():
            for index, rank in enumerate(ranks):
                summary = per_node.get(rank)
                rows.append(
                    (
                        rank,
                        f"{role.name}/{index}",
                        ",".join(summary.components) if summary else "-",
                        format_ranks(summary.accelerators_used)
                        if summary and summary.accelerators_used
                        else "-",
                    )
                )
        self.rank_map.value = (
            CSS
            + "<b>Node-rank map</b> (role order x Workers = RLINF_NODE_RANK)"
            + table(("RLINF_NODE_RANK", "role/worker", "components", "GPUs used"), rows)
        )
        self.why.value = (
            CSS
            + "<div class='rlk'><b>Why this plan</b><ul>"
            + "".join(f"<li>{e}</li>" for e in plan.explanations)
            + "".join(f"<li><b>{r.name}</b>: {' '.join(r.why)}</li>" for r in plan.roles)
            + "</ul></div>"
        )


class JobStep:
    """Step 5: the Job form, the YAML preview (copy, download), findings and acknowledgements."""

    FIELDS = (
        ("name", "Job name", "from the config name"),
        ("namespace", "Namespace", "default"),
        ("image", "Image", "registry.example.com/rlinf:v0.3.0-cuda12.4"),
        ("storage_class", "StorageClass", "object storage for outputs"),
        ("output_dir", "Output mount", "/mnt/output"),
        ("tensorboard", "TensorBoard dir", "/mnt/output/tensorboard"),
        ("network_domain", "Network domain", "optional"),
    )

    def __init__(self, session: Session) -> None:
        self.s = session
        self.inputs = {}
        for key, label, placeholder in self.FIELDS:
            field = text(
                label, session.job_fields.get(key, ""), placeholder, continuous_update=False
            )
            field.observe(lambda c, key=key: session.set_job_field(key, c["new"]), "value")
            self.inputs[key] = field
        self.prepare = text(
            "Prepare script",
            session.job_fields.get("prepare_script", ""),
            "source /opt/venv/bin/activate",
            area=True,
        )
        self.prepare.continuous_update = False
        self.prepare.observe(lambda c: session.set_job_field("prepare_script", c["new"]), "value")
        self.ssh = text(
            "SSH public keys",
            session.job_fields.get("ssh_keys", ""),
            "registered key names, one per line",
            area=True,
        )
        self.ssh.continuous_update = False
        self.ssh.observe(lambda c: session.set_job_field("ssh_keys", c["new"]), "value")
        self.yaml = w.HTML()
        self.tools = w.HTML()
        self.errors, self.warnings, self.infos = w.HTML(), w.VBox(), w.HTML()
        # not on "acknowledged": the checkbox already shows it, and re-rendering would drop focus
        session.observe(lambda _: self.render(), ["revision", "backend_name"])
        form = w.VBox(
            [*self.inputs.values(), self.prepare, self.ssh],
            layout=w.Layout(width="46%", margin="0 16px 0 0"),
        )
        self.widget = w.VBox(
            [
                w.HTML("<h3>Job</h3>"),
                w.HBox([form, w.VBox([self.tools, self.yaml], layout=w.Layout(width="50%"))]),
                w.HTML("<h4>Errors (block Submit)</h4>"),
                self.errors,
                w.HTML("<h4>Warnings (need your yes)</h4>"),
                self.warnings,
                w.HTML("<h4>Lessons</h4>"),
                self.infos,
            ]
        )
        self.render()

    def render(self) -> None:
        s = self.s
        self.yaml.value = CSS + yaml_html(s.job_yaml) if s.job_yaml else banner("No Job yet.")
        self.tools.value = (
            (
                copy_button(s.job_yaml)
                + " "
                + download_link(s.job_yaml, f"{s.job.name}.yaml", "Download YAML")
            )
            if s.job
            else ""
        )
        blocking = s.blocking()
        local_only = [f for f in s.findings if f.severity is Severity.ERROR and f not in blocking]
        self.errors.value = (
            CSS
            + findings_html(blocking)
            + (
                banner(
                    f"{len(local_only)} cluster-only error(s) do not block the local rehearsal: "
                    + ", ".join(sorted({f.rule_id for f in local_only})),
                    "note",
                )
                if local_only
                else ""
            )
        )
        rows = []
        for finding in [f for f in s.findings if f.severity is Severity.WARNING]:
            key = finding_key(finding)
            box = w.Checkbox(
                value=key in s.acknowledged,
                description="I understand",
                indent=False,
                layout=w.Layout(width="130px"),
            )
            box.observe(lambda c, key=key: s.acknowledge([key]) if c["new"] else None, "value")
            rows.append(w.HBox([box, w.HTML(CSS + findings_html([finding]))]))
        self.warnings.children = rows or [w.HTML("<i>No warnings.</i>")]
        self.infos.value = CSS + findings_html(s.findings, (Severity.INFO,))
