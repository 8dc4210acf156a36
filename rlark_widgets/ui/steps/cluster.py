"""Step 2, Cluster: the backend, its connection, the GPU map and the node inventory."""

from __future__ import annotations

import ipywidgets as w

from ...backends import backend_policies
from ...backends.policy import BackendKind, BackendPolicy, Connection
from ...examples import example_inventories
from ...i18n import Text
from ...rlark.inventory import NodeInfo
from ...rlark.site import CONSOLE_CATEGORIES, example_site_path
from ..html import CSS, banner, table
from ..labels import Labels
from ..session import Session
from .fields import STYLE, WIDE, category_label, text_input


class ClusterStep:
    """Step 2: backend, GPUs per node, and the inventory with node categories."""

    #: The shipped backends' button labels; a registered one is labelled by its kind.
    LABELS: dict[str, Text | str] = {
        BackendKind.LOCAL: Text("Local (Ray on this machine)"),
        BackendKind.KUBERNETES: "Kubernetes",
        BackendKind.KUBERAY: "KubeRay",
    }
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
            w.ToggleButtons,
            [(self.LABELS.get(p.kind, p.kind), p.kind) for p in backend_policies()],
            session.backend_name,
            Text("Backend"),
            style={**STYLE, "button_width": "auto"},  # whole labels ("Local (Ray on this machine)")
        )
        self.context = text_input(
            t, Text("Kube context"), session.k8s_context, Text("current context")
        )
        self.namespace = text_input(t, Text("Namespace"), session.k8s_namespace)
        self.run_timeout = text_input(
            t,
            Text("Run timeout (s)"),
            "" if session.run_timeout is None else f"{session.run_timeout:g}",
            Text("local: no limit"),
            continuous_update=False,
        )
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
        self.site = text_input(
            t,
            Text("Site profile"),
            session.site_path,
            Text("the site profile YAML your admin filled in (empty: the example)"),
            continuous_update=False,
        )
        use_site = t(w.Button(icon="check"), description=Text("Use"))
        self.site_note = w.HTML()
        self.live = live = t(w.Button(icon="cloud-download"), description=Text("Read live nodes"))
        self.category = t.choice(
            w.ToggleButtons,
            [
                (Text("all"), ""),
                *(
                    (lambda lang, key=key: category_label(key, lang), key)
                    for key in CONSOLE_CATEGORIES
                ),
            ],
            "",
            Text("Category"),
            style=STYLE,
        )
        self.table = w.HTML()
        t.on(self.backend, lambda c: setattr(session, "backend_name", c["new"]))
        self.context.observe(lambda c: setattr(session, "k8s_context", c["new"]), "value")
        self.namespace.observe(lambda c: setattr(session, "k8s_namespace", c["new"]), "value")
        self.run_timeout.observe(lambda c: session.set_run_timeout(c["new"]), "value")
        self.gpus.observe(lambda c: session.set_gpus(per_node=c["new"]), "value")
        apply_map.on_click(lambda _: session.set_gpus(per_node_map=self.gpu_map.value))
        t.on(self.inventory, lambda c: session.set_inventory(c["new"]))
        use_site.on_click(lambda _: session.set_site(self.site.value))
        live.on_click(lambda _: session.load_live_inventory())
        t.on(self.category, lambda _: self.render())
        session.observe(lambda _: self.render(), ["inventory", "lang", "site"])
        session.observe(lambda c: setattr(self.gpu_map, "value", c["new"]), "gpu_map_text")
        session.observe(lambda _: self.render_connection(), "backend_name")
        self.widget = w.VBox(
            [
                t.heading(Text("Cluster")),
                self.backend,
                w.HBox([self.context, self.namespace]),
                self.run_timeout,
                self.gpus,
                w.HBox([self.gpu_map, apply_map]),
                w.HBox([self.site, use_site]),
                self.site_note,
                w.HBox([self.inventory, live]),
                self.category,
                self.table,
            ]
        )
        self.render()
        self.render_connection()

    def render_connection(self) -> None:
        """Each connection field is open exactly when the chosen backend's policy takes it (the
        Session passes the same fields to the backend)."""
        policy: BackendPolicy = self.s.policy()
        self.context.disabled = not policy.takes(Connection.CONTEXT)
        self.namespace.disabled = not policy.takes(Connection.NAMESPACE)
        self.run_timeout.disabled = not policy.takes(Connection.RUN_TIMEOUT)
        self.live.disabled = not policy.live_inventory

    def render(self) -> None:
        inventory, lang, site = self.s.inventory, self.s.lang, self.s.site
        self.site_note.value = banner(
            site.provenance().render(lang)
            + " "
            + Text("Example file: {path}", path=str(example_site_path())).render(lang),
            "note",
        )
        if inventory is None:
            self.table.value = banner(
                Text(
                    "No inventory: node selections cannot be matched. Choose one (or the "
                    "Kubernetes backend's live nodes) to see matched-node counts."
                ).render(lang)
            )
            return
        wanted = self.category.value
        nodes = [
            n for n in inventory.nodes if not wanted or site.console_category(n.category) == wanted
        ]
        yes, no = Text("yes").render(lang), Text("no").render(lang)
        self.table.value = CSS + table(
            self.HEADERS,
            (
                (
                    n.name,
                    n.cluster or "-",
                    self.category_text(n),
                    n.gpus,
                    ", ".join(
                        f"{k.removeprefix(site.device_prefix)}: {v}" for k, v in n.devices.items()
                    )
                    or "-",
                    yes if n.ready else Text("NO").render(lang),
                    yes if n.schedulable else no,
                )
                for n in nodes
            ),
            lang,
        )

    def category_text(self, node: NodeInfo) -> str:
        """The console's name for the node's category, or the value as reported (not refused)."""
        lang, site = self.s.lang, self.s.site
        if node.category is None:
            return "-"
        kind = site.console_category(node.category)
        if kind is None:
            return Text("{value} (as reported)", value=node.category).render(lang)
        return category_label(kind, lang)
