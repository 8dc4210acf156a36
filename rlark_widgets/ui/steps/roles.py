"""Step 4, Roles: RLark roles from a template, one editable row per role, and the plan."""

from __future__ import annotations

import ipywidgets as w

from ...contract import RANK_ENV
from ...i18n import Text, render
from ...rlark.job import Role
from ...rlark.planner import TEMPLATE_TITLES, job_role_reasons
from ...rlark.text_fields import format_mounts
from ...rlinf.ranks import format_ranks
from ..html import CSS, banner, esc, sentences, table
from ..labels import Labels
from ..session import Session, role_text
from .fields import ROW_STYLE, STYLE, WIDE

MOUNTS_HELP = Text(
    "NAME storage STORAGECLASS /path, or NAME hostPath /node/dir /path; ro: read-only. The "
    "Job step's StorageClass and Output mount set the mount 'output' on every role."
)


class RolesStep:
    """Step 4: the editable role table, templates, Re-plan, and the live node-rank map."""

    HEADERS = (RANK_ENV, Text("role/worker"), Text("components"), Text("GPUs used"))

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
        t.on(self.template, lambda c: self._template(c["new"]))
        replan.on_click(lambda _: session.replan())
        add.on_click(lambda _: session.add_role())
        session.observe(lambda _: self.render(), ["revision", "mount_drafts"])
        session.observe(lambda _: self._relabel(), ["lang"])
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

    def _template(self, name: str) -> None:
        self.s.template = name
        self.s.replan()

    def _relabel(self) -> None:
        self.row_labels.apply()
        self.render_plan()

    def _row(self, index: int, role: Role) -> w.Widget:
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
            w.BoundedIntText(
                value=role.gpus,
                min=0,
                max=64,
                style={"description_width": "95px"},  # "GPUs/Worker" whole, in both languages
                layout=w.Layout(width="190px"),
            ),
            description=Text("GPUs/Worker"),
        )
        selector = t(
            w.Text(
                value=role_text(role, "node_selector"),
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
                value=role_text(role, "devices"),
                placeholder=f"{self.s.site.device_prefix}…=1",
                layout=w.Layout(width="360px"),
                style=ROW_STYLE,
            ),
            description=Text("devices"),
        )
        env = t(
            w.Textarea(
                value=role_text(role, "env"),
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
                placeholder=Text("image (needed for Kubernetes and the console)").render(
                    self.s.lang
                ),
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

        name.observe(lambda c: s.update_role(index, name=c["new"].strip()), "value")
        head.observe(lambda c: s.update_role(index, head=c["new"]), "value")
        replicas.observe(lambda c: s.update_role(index, replicas=c["new"]), "value")
        gpus.observe(lambda c: s.update_role(index, gpus=c["new"]), "value")
        for field, widget in (("node_selector", selector), ("devices", devices), ("env", env)):
            widget.observe(lambda c, field=field: s.set_role_text(index, field, c["new"]), "value")
        prepare.observe(lambda c: s.update_role(index, prepare_script=c["new"]), "value")
        image.observe(lambda c: s.update_role(index, image=c["new"].strip()), "value")
        mounts.observe(lambda c: s.set_role_mounts(index, c["new"]), "value")
        up.on_click(lambda _: s.move_role(index, -1))
        down.on_click(lambda _: s.move_role(index, 1))
        remove.on_click(lambda _: s.remove_role(index))
        for editor in (name, selector, devices, env, prepare, image, mounts):
            editor.continuous_update = False
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

    def _mounts(self, role: Role) -> tuple[w.Textarea, w.HTML]:
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
        per_node = self.s.report.expansion.per_node if self.s.report else {}
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
            + esc(
                Text("(RLINF_NODE_RANK = Workers of the roles above + worker index)").render(lang)
            )
            + table(self.HEADERS, rows, lang)
        )
        explanations = [render(e, lang) for e in plan.explanations]
        reasons = [
            (name, sentences([render(why, lang) for why in whys], lang))
            for name, whys in job_role_reasons(plan, job.roles)
        ]
        self.why.value = (
            CSS
            + f"<div class='rlk'><b>{esc(Text('Why this plan').render(lang))}</b><ul>"
            + "".join(f"<li>{esc(e)}</li>" for e in explanations)
            + "".join(f"<li><b>{esc(name)}</b> — {esc(why)}</li>" for name, why in reasons)
            + "</ul></div>"
        )
