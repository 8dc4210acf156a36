"""``rlark-migrate inventory``: the live cluster's nodes and StorageClasses, printed or exported.

The export is the inventory file format (``--inventory`` reads it back), so a plan can be made
offline from what the cluster reported, and an admin can see exactly what the tool saw.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..backends import backend_kinds
from ..backends.base import BackendError
from ..backends.policy import BackendKind
from ..i18n import Text, render
from ..rlark.inventory import Inventory, inventory_findings, inventory_to_dict
from ..rlark.site import CONSOLE_CATEGORIES, SiteProfile
from ..rlark.yaml_io import dump_yaml
from .backend_args import backend_from_args
from .config_args import print_error, wrote_output
from .output_args import add_output_argument
from .plan_cmd import site_json
from .render import findings_text, table
from .site_args import provenance_line, site_of
from .terminal import say


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "inventory",
        help="print or export the live cluster's nodes and StorageClasses",
        description="Read the cluster's Nodes (labels, allocatable GPUs and device resources, "
        "readiness, cordons, taints) and StorageClasses through the site profile's labels, print "
        "them, and with -o write them in the inventory file format that --inventory reads.",
    )
    group = parser.add_argument_group("backend")
    group.add_argument(
        "--backend",
        choices=backend_kinds(),
        default=BackendKind.KUBERNETES.value,
        help="kubernetes: your cluster (default); local: this machine as one node",
    )
    group.add_argument(
        "--context", help="kubernetes: kubeconfig context (default: the current one)"
    )
    group.add_argument("--namespace", help="kubernetes: namespace (default: the context's)")
    group.add_argument(
        "--kubeconfig", help="kubernetes: kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"
    )
    group.add_argument("--workspace", type=Path, help=argparse.SUPPRESS)
    add_output_argument(parser, "NODES.yaml", "write the inventory file here")
    parser.add_argument("--json", action="store_true", help="print the inventory as JSON")
    parser.set_defaults(run=run)


def category_text(site: SiteProfile, value: str | None) -> Text | str:
    """A node's category as the console names it, or as reported when the site names none."""
    if value is None:
        return Text("(no {label} label)", label=site.category_label)
    console = site.console_category(value)
    if console is None:
        return Text("{value} (as reported; not in the site profile)", value=value)
    return f"{value} ({CONSOLE_CATEGORIES.get(console, console)})"


def inventory_table(inventory: Inventory, lang: str) -> str:
    site = inventory.site
    headers: list[Text | str] = [
        Text("Node"),
        Text("Cluster"),
        Text("Category"),
        "GPU",
        Text("Devices"),
        Text("State"),
    ]
    rows = []
    for node in inventory.nodes:
        if node.schedulable:
            state: Text | str = Text("usable")
        elif not node.ready:
            state = "NotReady"
        elif node.unschedulable:
            state = Text("cordoned")
        else:
            state = Text("tainted {taints}", taints=", ".join(node.taints))
        devices = ", ".join(f"{k}: {v}" for k, v in node.devices.items()) or "-"
        rows.append(
            [
                node.name,
                node.cluster or "-",
                category_text(site, node.category),
                node.gpus,
                devices,
                state,
            ]
        )
    classes = ", ".join(inventory.storage_classes) or "-"
    return "\n".join(
        [
            table(headers, rows, lang),
            Text("StorageClasses: {names}", names=classes).render(lang),
        ]
    )


def run(args: argparse.Namespace) -> int:
    site = site_of(args)
    try:
        inventory = backend_from_args(args).inventory()
    except BackendError as exc:
        print_error(exc.text, exc.fix_text, args.lang)
        return 1
    findings = inventory_findings(inventory)
    data = inventory_to_dict(inventory)
    if args.output:
        header = (
            f"# Inventory read from {inventory.source} through the site profile "
            f"'{site.name}' ({'the shipped EXAMPLE' if site.is_example else site.source}).\n"
        )
        if not wrote_output(args, header + dump_yaml(data)):
            return 1
    if args.json:
        say(
            json.dumps(
                {
                    "source": inventory.source,
                    "site": site_json(site, args.lang),
                    **data,
                    "findings": [f.to_dict(args.lang) for f in findings],
                },
                indent=2,
            )
        )
        return 0
    say(provenance_line(site, args.lang))
    say(Text("Inventory of {source}", source=inventory.source).render(args.lang))
    say(inventory_table(inventory, args.lang))
    if findings:
        say("\n" + findings_text(findings, args.lang))
    if args.output:
        say(render(Text("Wrote {file}.", file=args.output), args.lang))
    return 0
