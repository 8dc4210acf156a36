"""The app's steps as thin ipywidgets views over the Session (no logic a test cannot reach).

Each view builds its widgets once, observes the session traits it shows, and forwards every
click to one session method. Labels are bound through :class:`~.labels.Labels` and HTML is
rendered in ``session.lang``, so the language toggle re-labels the same widgets.
"""

from __future__ import annotations

import ipywidgets as w

from ..examples import example_configs, example_inventories
from ..findings import Severity
from ..i18n import Text, render
from ..rlark.inventory import CATEGORIES
from ..rlark.planner import TEMPLATE_TITLES
from ..rlinf.ranks import format_ranks
from .html import (
    CSS,
    banner,
    copy_button,
    download_link,
    esc,
    findings_html,
    sentences,
    table,
    yaml_html,
)
from .labels import Labels, Message
from .session import Session, finding_key, format_mounts

WIDE = w.Layout(width="420px")
MOUNTS_HELP = Text(
    "NAME storage STORAGECLASS /path, or NAME hostPath /node/dir /path; ro: read-only. The "
    "Job step's StorageClass and Output mount set the mount 'output' on every role."
)
STYLE = {"description_width": "150px"}
ROW_STYLE = {"description_width": "55px"}


def text_input(
    labels: Labels,
    description: Message,
    value: str = "",
    placeholder: Message = "",
    area: bool = False,
    **kwargs,
) -> w.Widget:
    cls = w.Textarea if area else w.Text
    widget = cls(
        value=value,
        style=STYLE,
        layout=w.Layout(width="640px", height="90px" if area else None),
        **kwargs,
    )
    hint = {"placeholder": placeholder} if placeholder else {}  # else ipywidgets' own blank
    return labels(widget, description=description, **hint)


def category_label(key: str, lang: str) -> str:
    """The console's node categories are Chinese (云算力 …); English shows the key beside them."""
    name = CATEGORIES.get(key, "")
    return name if lang == "zh" and name else f"{key} {name}".strip()


class ImportStep:
    """Step 1: a bundled example, a path, or an upload; overrides and searchpath variables."""

    HEADERS = (Text("component"), Text("processes"), Text("strategy"))

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.example = t(
            w.Dropdown(
                options=list(example_configs()), value=session.example, style=STYLE, layout=WIDE
            ),
            description=Text("Bundled example"),
        )
        load_example = t(
            w.Button(button_style="primary", icon="download"), description=Text("Load example")
        )
        self.path = text_input(
            t,
            Text("Config file"),
            session.config_path,
            "/path/to/RLinf/examples/embodiment/config/x.yaml",
        )
        load_path = t(w.Button(icon="folder-open"), description=Text("Load file"))
        self.upload = t(
            w.FileUpload(accept=".yaml,.yml", multiple=False), description=Text("Upload YAML")
        )
        self.overrides = text_input(
            t,
            Text("Overrides"),
            session.overrides_text,
            Text("cluster.num_nodes=2 (one per line)"),
            area=True,
        )
        self.env = text_input(
            t,
            Text("Search paths"),
            session.env_text,
            "EMBODIED_PATH=/path/to/RLinf/examples/embodiment",
            area=True,
        )
        self.summary = w.HTML()
        load_example.on_click(lambda _: self._sync() or session.load_example(self.example.value))
        load_path.on_click(lambda _: self._sync() or session.load_path(self.path.value))
        self.upload.observe(self._uploaded, "value")
        session.observe(lambda _: self.render(), ["revision", "lang"])
        self.widget = w.VBox(
            [
                t.heading(Text("Import your RLinf config")),
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
        report, lang = self.s.report, self.s.lang
        if report is None:
            self.summary.value = ""
            return
        e = report.expansion
        rows = [
            (c.name, c.world_size, c.strategy.removesuffix("PlacementStrategy"))
            for c in sorted(e.components.values(), key=lambda c: c.name)
        ]
        config_findings = [f for f in report.findings if f.rule_id.startswith(("CFG", "PLC"))]
        line = Text(
            "{name} — task type {task_type}, {nodes} Ray node(s), mode {mode}",
            name=self.s.config.name,
            task_type=e.task_type or "?",
            nodes=e.num_nodes or "?",
            mode=e.placement_mode or "-",
        )
        self.summary.value = CSS + (
            f"<div class='rlk'><b>{esc(line.render(lang))}</b></div>"
            + (table(self.HEADERS, rows, lang) if rows else "")
            + findings_html(config_findings, lang=lang)
        )


class ClusterStep:
    """Step 2: backend, GPUs per node, and the inventory with node categories."""

    BACKENDS = (
        (Text("Local (Ray on this machine)"), "local"),
        ("Kubernetes", "kubernetes"),
        ("KubeRay", "kuberay"),
    )
    HEADERS = (
        Text("node"),
        Text("cluster"),
        Text("category"),
        "GPUs",
        Text("devices"),
        Text("ready"),
        Text("schedulable"),
    )

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.backend = t.choice(
            w.ToggleButtons, self.BACKENDS, session.backend_name, Text("Backend"), style=STYLE
        )
        self.context = text_input(
            t, Text("Kube context"), session.k8s_context, Text("current context")
        )
        self.namespace = text_input(t, Text("Namespace"), session.k8s_namespace)
        self.gpus = t(
            w.IntSlider(
                value=session.gpus_per_node,
                min=0,
                max=16,
                style=STYLE,
                continuous_update=False,
                layout=WIDE,
            ),
            description=Text("GPUs per node"),
        )
        self.gpu_map = text_input(
            t, Text("Per-node GPUs"), session.gpu_map_text, Text("0:8,1:4 (overrides the slider)")
        )
        apply_map = t(w.Button(icon="check"), description=Text("Apply"))
        self.inventory = t.choice(
            w.Dropdown,
            [(Text("none"), ""), *((n, n) for n in example_inventories())],
            session.inventory_name,
            Text("Inventory"),
            style=STYLE,
            layout=WIDE,
        )
        self.category = t.choice(
            w.ToggleButtons,
            [
                (Text("all"), ""),
                *((lambda lang, key=key: category_label(key, lang), key) for key in CATEGORIES),
            ],
            "",
            Text("Category"),
            style=STYLE,
        )
        self.table = w.HTML()
        t.on(self.backend, lambda c: setattr(session, "backend_name", c["new"]))
        self.context.observe(lambda c: setattr(session, "k8s_context", c["new"]), "value")
        self.namespace.observe(lambda c: setattr(session, "k8s_namespace", c["new"]), "value")
        self.gpus.observe(lambda c: session.set_gpus(per_node=c["new"]), "value")
        apply_map.on_click(lambda _: session.set_gpus(per_node_map=self.gpu_map.value))
        t.on(self.inventory, lambda c: session.set_inventory(c["new"]))
        t.on(self.category, lambda _: self.render())
        session.observe(lambda _: self.render(), ["inventory", "lang"])
        self.widget = w.VBox(
            [
                t.heading(Text("Cluster")),
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
        inventory, lang = self.s.inventory, self.s.lang
        if inventory is None:
            self.table.value = banner(
                Text(
                    "No inventory: node selections cannot be matched. Choose one (or the "
                    "Kubernetes backend's live nodes) to see matched-node counts."
                ).render(lang)
            )
            return
        nodes = [
            n
            for n in inventory.nodes
            if not self.category.value or n.category == self.category.value
        ]
        yes, no = Text("yes").render(lang), Text("no").render(lang)
        self.table.value = CSS + table(
            self.HEADERS,
            (
                (
                    n.name,
                    n.cluster or "-",
                    category_label(n.category or "", lang),
                    n.gpus,
                    ", ".join(f"{k.removeprefix('rlinf.io/')}: {v}" for k, v in n.devices.items())
                    or "-",
                    yes if n.ready else Text("NO").render(lang),
                    yes if n.schedulable else no,
                )
                for n in nodes
            ),
            lang,
        )


class RolesStep:
    """Step 4: the editable role table, templates, Re-plan, and the live node-rank map."""

    HEADERS = ("RLINF_NODE_RANK", Text("role/worker"), Text("components"), Text("GPUs used"))

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.row_labels = Labels(session, follow=False)  # the rows are rebuilt on every edit
        self.template = t.choice(
            w.Dropdown,
            [
                (Text("from task type"), ""),
                *((title, key) for key, title in TEMPLATE_TITLES.items()),
            ],
            session.template,
            Text("Template"),
            style=STYLE,
            layout=WIDE,
        )
        replan = t(
            w.Button(icon="refresh"),
            description=Text("Re-plan"),
            tooltip=Text("Discard role edits and plan again"),
        )
        add = t(w.Button(icon="plus"), description=Text("Add role"))
        self.rows = w.VBox()
        self.rank_map = w.HTML()
        self.why = w.HTML()
        t.on(self.template, lambda c: setattr(session, "template", c["new"]) or session.replan())
        replan.on_click(lambda _: session.replan())
        add.on_click(lambda _: session.add_role())
        session.observe(lambda _: self.render(), ["revision", "mount_drafts"])
        session.observe(lambda _: self.row_labels.apply() or self.render_plan(), ["lang"])
        self.widget = w.VBox(
            [
                t.heading(Text("Roles")),
                w.HBox([self.template, replan, add]),
                t(w.HTML(), value=lambda lang: f"<small>{esc(MOUNTS_HELP.render(lang))}</small>"),
                self.rows,
                self.rank_map,
                self.why,
            ]
        )
        self.render()

    def _row(self, index: int, role) -> w.Widget:
        s, t = self.s, self.row_labels
        name = t(
            w.Text(value=role.name, layout=w.Layout(width="210px"), style=ROW_STYLE),
            description=Text("name"),
        )
        head = w.Checkbox(
            value=role.head, description="Header", indent=False, layout=w.Layout(width="80px")
        )
        replicas = t(
            w.BoundedIntText(value=role.replicas, min=1, max=4096, layout=w.Layout(width="150px")),
            description=Text("Workers"),
        )
        gpus = t(
            w.BoundedIntText(value=role.gpus, min=0, max=64, layout=w.Layout(width="170px")),
            description=Text("GPUs/Worker"),
        )
        selector = t(
            w.Text(
                value=", ".join(f"{k}={v}" for k, v in role.node_selector.items()),
                placeholder="key=value, key=value",
                layout=w.Layout(width="520px"),
                style=ROW_STYLE,
            ),
            description=Text("nodes"),
        )
        matched = s.matched_nodes(role.node_selector)
        count = t(
            w.HTML(),
            value=lambda lang: (
                f"<i>{esc(Text('no inventory').render(lang))}</i>"
                if matched is None
                else Text("{count} node(s) matched", count=f"<b>{len(matched)}</b>").render(lang)
            ),
        )
        devices = t(
            w.Text(
                value=", ".join(f"{k}={v}" for k, v in role.devices.items()),
                placeholder="rlinf.io/device-franka=1",
                layout=w.Layout(width="360px"),
                style=ROW_STYLE,
            ),
            description=Text("devices"),
        )
        env = t(
            w.Textarea(
                value="\n".join(f"{k}={v}" for k, v in role.env.items()),
                placeholder="NAME=value",
                layout=w.Layout(width="360px", height="54px"),
                style=ROW_STYLE,
            ),
            description=Text("env"),
        )
        prepare = t(
            w.Textarea(
                value=role.prepare_script,
                placeholder="source /opt/venv/bin/activate",
                layout=w.Layout(width="520px", height="54px"),
                style=ROW_STYLE,
            ),
            description=Text("prepare"),
        )
        image = t(
            w.Text(
                value=role.image,
                placeholder="registry.example.com/rlinf:v0.3.0-cuda12.4",
                layout=w.Layout(width="520px"),
                style=ROW_STYLE,
            ),
            description=Text("image"),
        )
        mounts, mounts_note = self._mounts(role)
        up, down, remove = (
            t(w.Button(icon=icon, layout=w.Layout(width="36px")), tooltip=tip)
            for icon, tip in (
                ("arrow-up", Text("move up")),
                ("arrow-down", Text("move down")),
                ("trash", Text("remove")),
            )
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
        image.observe(lambda c: s.update_role(index, image=c["new"].strip()), "value")
        mounts.observe(lambda c: s.set_role_mounts(index, c["new"]), "value")
        up.on_click(lambda _: s.move_role(index, -1))
        down.on_click(lambda _: s.move_role(index, 1))
        remove.on_click(lambda _: s.remove_role(index))
        for field in (name, selector, devices, env, prepare, image, mounts):
            field.continuous_update = False
        return w.VBox(
            [
                w.HBox([name, head, replicas, gpus, up, down, remove]),
                w.HBox([selector, count]),
                image,
                w.HBox([devices, env]),
                prepare,
                w.HBox([mounts, mounts_note]),
            ],
            layout=w.Layout(
                border="1px solid rgba(127,127,127,.35)", padding="6px", margin="4px 0"
            ),
        )

    def _mounts(self, role) -> tuple[w.Textarea, w.HTML]:
        """A role's mounts, one per line; text that did not read stays, with why beside it."""
        draft = self.s.mount_drafts.get(role.name)
        area = self.row_labels(
            w.Textarea(
                value=draft[0] if draft else format_mounts(role.mounts),
                layout=w.Layout(width="520px", height="54px"),
                style=ROW_STYLE,
            ),
            description=Text("mounts"),
            placeholder=Text("output storage oss-rlinf /mnt/output (one per line)"),
        )
        note = self.row_labels(
            w.HTML(layout=w.Layout(width="340px")),
            value=lambda lang: (
                CSS + banner(Text("Not applied: {problem}", problem=draft[1]).render(lang), "bad")
                if draft
                else ""
            ),
        )
        return area, note

    def render(self) -> None:
        self.row_labels.clear()
        self.rows.children = [self._row(i, r) for i, r in enumerate(self.s.roles)]
        self.render_plan()

    def render_plan(self) -> None:
        """The node-rank map and "why this plan", in the session's language."""
        job, plan, lang = self.s.job, self.s.plan, self.s.lang
        if job is None or plan is None:
            self.rank_map.value = (
                banner(
                    Text("No roles: RLinf rejects this config (see the findings).").render(lang),
                    "bad",
                )
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
            + f"<b>{esc(Text('Node-rank map').render(lang))}</b> "
            + esc(Text("(role order x Workers = RLINF_NODE_RANK)").render(lang))
            + table(self.HEADERS, rows, lang)
        )
        explanations = [render(e, lang) for e in plan.explanations]
        reasons = [
            (r.name, sentences([render(why, lang) for why in r.why], lang)) for r in plan.roles
        ]
        self.why.value = (
            CSS
            + f"<div class='rlk'><b>{esc(Text('Why this plan').render(lang))}</b><ul>"
            + "".join(f"<li>{esc(e)}</li>" for e in explanations)
            + "".join(f"<li><b>{esc(name)}</b> — {esc(why)}</li>" for name, why in reasons)
            + "</ul></div>"
        )


class JobStep:
    """Step 5: the Job form, the YAML preview (copy, download), findings and acknowledgements."""

    FIELDS = (
        ("name", Text("Job name"), Text("from the config name")),
        ("namespace", Text("Namespace"), "default"),
        ("image", Text("Image"), "registry.example.com/rlinf:v0.3.0-cuda12.4"),
        ("storage_class", "StorageClass", Text("object storage for outputs")),
        ("output_dir", Text("Output mount"), "/mnt/output"),
        ("tensorboard", Text("TensorBoard dir"), "/mnt/output/tensorboard"),
        ("network_domain", Text("Network domain"), Text("optional")),
    )

    EXPORTS = (
        (Text("RLark Job"), "rlark"),
        ("KubeRay RayJob", "RayJob"),
        ("KubeRay RayCluster", "RayCluster"),
    )

    def __init__(self, session: Session) -> None:
        self.s = session
        t = self.labels = Labels(session)
        self.inputs = {}
        for key, label, placeholder in self.FIELDS:
            field = text_input(
                t, label, session.job_fields.get(key, ""), placeholder, continuous_update=False
            )
            field.observe(lambda c, key=key: session.set_job_field(key, c["new"]), "value")
            self.inputs[key] = field
        self.prepare = text_input(
            t,
            Text("Prepare script"),
            session.job_fields.get("prepare_script", ""),
            "source /opt/venv/bin/activate",
            area=True,
        )
        self.prepare.continuous_update = False
        self.prepare.observe(lambda c: session.set_job_field("prepare_script", c["new"]), "value")
        self.ssh = text_input(
            t,
            Text("SSH public keys"),
            session.job_fields.get("ssh_keys", ""),
            Text("registered key names, one per line"),
            area=True,
        )
        self.ssh.continuous_update = False
        self.ssh.observe(lambda c: session.set_job_field("ssh_keys", c["new"]), "value")
        self.export = t.choice(
            w.ToggleButtons,
            self.EXPORTS,
            session.export_format,
            Text("Export"),
            style=STYLE,
        )
        t.on(self.export, lambda c: session.set_export_format(c["new"]))
        self.yaml = w.HTML()
        self.tools = w.HTML()
        self.export_notes = w.HTML()
        self.errors, self.warnings, self.infos = w.HTML(), w.VBox(), w.HTML()
        # not on "acknowledged": the checkbox already shows it, and re-rendering would drop focus
        session.observe(lambda _: self.render(), ["revision", "backend_name", "lang"])
        form = w.VBox(
            [*self.inputs.values(), self.prepare, self.ssh],
            layout=w.Layout(width="46%", margin="0 16px 0 0"),
        )
        self.widget = w.VBox(
            [
                t.heading(Text("Job")),
                w.HBox(
                    [
                        form,
                        w.VBox(
                            [self.export, self.tools, self.yaml, self.export_notes],
                            layout=w.Layout(width="50%"),
                        ),
                    ]
                ),
                t.heading(Text("Errors (block Submit)"), "h4"),
                self.errors,
                t.heading(Text("Warnings (need your yes)"), "h4"),
                self.warnings,
                t.heading(Text("Lessons"), "h4"),
                self.infos,
            ]
        )
        self.render()

    def render(self) -> None:
        s, lang = self.s, self.s.lang
        exported = s.export_format != "rlark"
        shown = s.export_yaml if exported else s.job_yaml
        suffix = f".{s.export_format.lower()}.yaml" if exported else ".yaml"
        self.yaml.value = (
            CSS + yaml_html(shown) if shown else banner(Text("No Job yet.").render(lang))
        )
        self.tools.value = (
            (
                copy_button(shown, Text("Copy YAML").render(lang))
                + " "
                + download_link(shown, f"{s.job.name}{suffix}", Text("Download YAML").render(lang))
            )
            if s.job and shown
            else ""
        )
        self.export_notes.value = (
            CSS
            + banner(
                Text(
                    "KubeRay {kind}: the same plan as ray.io/v1, checked against KubeRay's CRD."
                    " Apply it with kubectl, or choose the KubeRay backend and Submit.",
                    kind=s.export_format,
                ).render(lang),
                "note",
            )
            + findings_html(s.export_findings, lang=lang)
            if exported
            else ""
        )
        blocking = s.blocking()
        local_only = [f for f in s.findings if f.severity is Severity.ERROR and f not in blocking]
        note = Text(
            "{count} cluster-only error(s) do not block the local rehearsal: {rules}",
            count=len(local_only),
            rules=", ".join(sorted({f.rule_id for f in local_only})),
        )
        self.errors.value = (
            CSS
            + findings_html(blocking, lang=lang)
            + (banner(note.render(lang), "note") if local_only else "")
        )
        rows = []
        for finding in [f for f in s.findings if f.severity is Severity.WARNING]:
            key = finding_key(finding)
            box = w.Checkbox(
                value=key in s.acknowledged,
                description=Text("I understand").render(lang),
                indent=False,
                layout=w.Layout(width="130px"),
            )
            box.observe(lambda c, key=key: s.acknowledge([key]) if c["new"] else None, "value")
            rows.append(w.HBox([box, w.HTML(CSS + findings_html([finding], lang=lang))]))
        self.warnings.children = rows or [
            w.HTML(f"<i>{esc(Text('No warnings.').render(lang))}</i>")
        ]
        self.infos.value = CSS + findings_html(s.findings, (Severity.INFO,), lang)
