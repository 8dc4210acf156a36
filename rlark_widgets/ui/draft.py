"""What belongs to the loaded config and nothing else: its generation and the roles its plan gave.

A :class:`Draft` is created when a config is imported and replaced by the next import. Its
``generation`` is the config's identity (a run submitted from it carries it, so its Worker
states are drawn only on this config's Topology); ``planned`` are the roles as the plan gave
them, the baseline the user's role edits are measured from. When the plan changes under the
edits (GPUs per node, an inventory, a site profile), :func:`carry_edits` keeps every edit the
new plan leaves valid and names each one it drops.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, fields, replace
from typing import Any

from ..i18n import Listing, Text
from ..rlark.job import Role

_generations = itertools.count(1)
#: The fields of a role a user edits in the Roles step (name changes are followed, not carried).
EDITABLE = tuple(f.name for f in fields(Role) if f.name != "name")


@dataclass(frozen=True)
class Draft:
    """One imported config's identity and its planned roles."""

    planned: tuple[Role, ...] = ()
    generation: int = 0  # 0: no config imported yet

    @classmethod
    def new(cls) -> Draft:
        """The draft of a config just imported (a generation no run has yet)."""
        return cls((), next(_generations))


@dataclass(frozen=True)
class Carried:
    """The roles after a re-plan that kept the user's edits, and what was kept and dropped."""

    roles: list[Role]
    kept: list[str]  # "role.field" (or "role" for an added or removed role)
    dropped: list[Text]  # one sentence each: what the edit was and what the new plan gives

    def note(self) -> Text | str:
        """What the re-plan did to the edits (empty when there were none)."""
        parts: list[Text] = []
        if self.kept:
            parts.append(
                Text("Role edits kept after the re-plan: {edits}.", edits=", ".join(self.kept))
            )
        if self.dropped:
            parts.append(
                Text(
                    "Role edits dropped (the new plan changed what they edited): {edits}",
                    edits=Listing(self.dropped, " "),
                )
            )
        return Listing(parts, " ") if parts else ""


def carry_edits(planned: list[Role], edited: list[Role], replanned: list[Role]) -> Carried:
    """``replanned`` with the edits that turned ``planned`` into ``edited``, where they still
    apply: a field edit applies while the new plan gives that field the value the old plan
    gave (the user changed it, the plan did not); a role the user added stays while its name
    is free; a role the user removed stays removed while the new plan gives it unchanged."""
    origin = _origins(planned, edited)
    by_name = {r.name: r for r in planned}
    kept: list[str] = []
    dropped: list[Text] = []
    out: list[Role] = []
    for new in replanned:
        old = by_name.get(new.name)
        mine = next((e for e, o in origin if o is not None and o.name == new.name), None)
        if old is None:
            out.append(new)
            continue
        if mine is None:  # the user removed it
            if new == old:
                kept.append(new.name)
                continue
            dropped.append(
                Text(
                    "role {role} was removed, but the new plan changed it: it is back.",
                    role=new.name,
                )
            )
            out.append(new)
            continue
        changes: dict[str, Any] = {}
        for name in EDITABLE:
            yours, before, now = getattr(mine, name), getattr(old, name), getattr(new, name)
            if yours == before:
                continue
            if now == before:
                changes[name] = yours
                kept.append(f"{mine.name}.{name}")
            else:
                dropped.append(
                    Text(
                        "{role}.{field} (you set {yours}; the new plan gives {now}).",
                        role=mine.name,
                        field=name,
                        yours=_shown(yours),
                        now=_shown(now),
                    )
                )
        if mine.name != old.name:
            changes["name"] = mine.name
            kept.append(f"{old.name} -> {mine.name}")
        out.append(replace(new, **changes))
    taken = {r.name.lower() for r in out}
    for role, source in origin:
        if source is not None:
            continue
        if role.name.lower() in taken:
            dropped.append(
                Text("added role {role} (the new plan has a role of that name).", role=role.name)
            )
            continue
        out.append(role)
        kept.append(role.name)
    return Carried(out, kept, dropped)


def _origins(planned: list[Role], edited: list[Role]) -> list[tuple[Role, Role | None]]:
    """Each edited role with the planned role it came from (None: added by the user). Same name
    first; a role whose name is new takes the planned role at its place, once that role's name
    is gone (a rename)."""
    names = {r.name for r in edited}
    claimed = {r.name for r in edited if any(p.name == r.name for p in planned)}
    out: list[tuple[Role, Role | None]] = []
    for index, role in enumerate(edited):
        same = next((p for p in planned if p.name == role.name), None)
        if same is None and index < len(planned):
            at = planned[index]
            if at.name not in names and at.name not in claimed:
                same = at
                claimed.add(at.name)
        out.append((role, same))
    return out


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
