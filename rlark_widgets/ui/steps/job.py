"""Step 5, Job: the Job fields, its YAML and every finding, with warnings to acknowledge."""

from __future__ import annotations

import ipywidgets as w

from ...findings import Severity
from ...i18n import Text
from ..html import CSS, banner, copy_button, download_link, esc, findings_html, yaml_html
from ..labels import Labels
from ..session import Session, finding_key
from .fields import STYLE, text_input

#: The form's boxes stretch to their column (a fixed 640 px ran 52 px under the YAML panel at
#: 1,280 px; 100% overflowed by the widgets' own margin).
FILL = "auto"


class JobStep:
    """Step 5: the Job form, the YAML preview (copy, download), findings and acknowledgements."""

    FIELDS = (
        ("name", Text("Job name"), Text("from the config name")),
        ("namespace", Text("Namespace"), "default"),
        (
            "image",
            Text("Image"),
            Text("needed for Kubernetes and the console; the local rehearsal runs none"),
        ),
        ("output_storage", "StorageClass", Text("object storage for outputs")),
        ("output_mount", Text("Output mount"), "/mnt/output"),
        ("tensorboard_log_dir", Text("TensorBoard dir"), "/mnt/output/tensorboard"),
        ("network_domain", Text("Network domain"), Text("optional")),
        ("rlinf_commit", Text("RLinf commit"), Text("for the run record")),
        ("image_digest", Text("Image digest"), "sha256:…"),
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
                t,
                label,
                session.job_field_text(key),
                placeholder,
                width=FILL,
                continuous_update=False,
            )
            field.observe(lambda c, key=key: session.set_job_field(key, c["new"]), "value")
            self.inputs[key] = field
        # what the session clears for a new config (the Job name) leaves no stale text in a box
        session.observe(lambda _: self.sync_fields(), ["settings", "facts"])
        self.prepare = text_input(
            t,
            Text("Prepare script"),
            session.job_field_text("prepare_script"),
            "source /opt/venv/bin/activate",
            area=True,
            width=FILL,
        )
        self.prepare.continuous_update = False
        self.prepare.observe(lambda c: session.set_job_field("prepare_script", c["new"]), "value")
        self.ssh = text_input(
            t,
            Text("SSH public keys"),
            session.job_field_text("ssh_keys"),
            Text("registered key names, one per line"),
            area=True,
            width=FILL,
        )
        self.ssh.continuous_update = False
        self.ssh.observe(lambda c: session.set_job_field("ssh_keys", c["new"]), "value")
        self.export = t.choice(
            w.ToggleButtons, self.EXPORTS, session.export_format, Text("Export"), style=STYLE
        )
        t.on(self.export, lambda c: session.set_export_format(c["new"]))
        self.yaml = w.HTML()
        self.tools = w.HTML()
        self.export_notes = w.HTML()
        self.errors, self.warnings, self.infos = w.HTML(), w.VBox(), w.HTML()
        self.sheet, self.admin = w.HTML(), w.HTML()
        self.extras = w.Accordion(children=[self.sheet, self.admin], selected_index=None)
        self.extras.observe(lambda _: self.render_extras(), "selected_index")
        # not on "acknowledged": the checkbox already shows it, and re-rendering would drop focus
        session.observe(lambda _: self.render(), ["revision", "backend_name", "lang"])
        form = w.VBox(
            [*self.inputs.values(), self.prepare, self.ssh],
            layout=w.Layout(width="46%", margin="0 16px 0 0"),
        )
        form.add_class("rlk-job-form")
        preview = w.VBox(
            [self.export, self.tools, self.yaml, self.export_notes], layout=w.Layout(width="50%")
        )
        preview.add_class("rlk-job-preview")
        self.widget = w.VBox(
            [
                t.heading(Text("Job")),
                w.HBox([form, preview]),
                t.heading(Text("Errors (block Submit)"), "h4"),
                self.errors,
                t.heading(Text("Warnings (need your yes)"), "h4"),
                self.warnings,
                t.heading(Text("Lessons"), "h4"),
                self.infos,
                self.extras,
            ]
        )
        self.render()

    def sync_fields(self) -> None:
        """Each form box shows the session's value (a box being typed in already does)."""
        for key, field in self.inputs.items():
            text = self.s.job_field_text(key)
            if field.value.strip() != text.strip():
                field.value = text

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
        not_blocking = [f for f in s.findings if f.severity is Severity.ERROR and f not in blocking]
        note = Text(
            "{count} error(s) do not block a submission to the {backend} backend: {rules}",
            count=len(not_blocking),
            backend=s.backend_name,
            rules=", ".join(sorted({f.rule_id for f in not_blocking})),
        )
        self.errors.value = (
            CSS
            + findings_html(blocking, lang=lang)
            + (  # each with its message and fix: they block the submit to a cluster
                banner(note.render(lang), "note") + findings_html(not_blocking, lang=lang)
                if not_blocking
                else ""
            )
        )
        rows = []
        for finding in s.warnings():
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
        for index, title in enumerate(
            (Text("Console sheet"), Text("Request to the platform admin"))
        ):
            self.extras.set_title(index, title.render(lang))
        self.render_extras()

    def render_extras(self) -> None:
        """The open panel only: the sheet and the request are built when someone reads them."""
        s, lang = self.s, self.s.lang
        if self.extras.selected_index == 0:
            self.sheet.value = s.console_sheet_html() or banner(Text("No Job yet.").render(lang))
        elif self.extras.selected_index == 1:
            text = s.admin_request_text()
            self.admin.value = (
                copy_button(text, Text("Copy").render(lang)) + f"<pre>{esc(text)}</pre>"
                if text
                else banner(Text("No Job yet.").render(lang))
            )
