"""The text grammars of fields a user types: mounts, node selectors, device counts, env lines.

The app's editors and the CLI's options read the same grammars here. Only the shape is checked;
what a value means (absolute paths, a StorageClass and not a bucket, reserved names) is for the
rule catalogue. Anything that does not read raises :class:`FieldTextError` naming the field, the
item and the format: nothing is dropped silently.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import replace

from .. import shell
from ..contract import DNS_LABEL
from ..i18n import Text, TextError
from .job import Mount, MountKind

MOUNT_KINDS: dict[str, MountKind] = {"storage": "storage", "hostpath": "hostPath"}
MOUNTS_FIX = Text(
    "One mount per line: NAME storage STORAGECLASS /container/path, or NAME hostPath "
    "/node/dir /container/path; add ro for read-only."
)
PAIRS_FIX = Text("Write NAME=VALUE items, separated by commas (env: one per line).")
COUNTS_FIX = Text("Write RESOURCE=COUNT items with whole numbers, separated by commas.")


class FieldTextError(TextError, ValueError):
    """A typed field that cannot be read: ``text`` says where and why, ``fix_text`` the format."""


class MountsError(FieldTextError):
    """A line of a role's mounts that cannot be read: the role, the line, why, and the format."""

    def __init__(self, role: str, number: int, line: str, problem: Text) -> None:
        super().__init__(
            Text(
                "role '{role}', line {number} ({line}): {problem}",
                role=role,
                number=number,
                line=line.strip(),
                problem=problem,
            ),
            MOUNTS_FIX,
        )


def format_pairs(values: Mapping[str, object], separator: str = ", ") -> str:
    """``NAME=VALUE`` items as the editors show them (the inverse of the parsers below)."""
    return separator.join(f"{k}={v}" for k, v in values.items())


def parse_pairs(
    text: str | Iterable[str], where: Text | str, separator: str = ","
) -> dict[str, str]:
    """``NAME=VALUE`` items (``text`` split at ``separator``, or already split); blanks skipped.

    ``where`` names the field in the error (``role 'franka', nodes``, ``--env``).
    """
    items = text.replace("\n", separator).split(separator) if isinstance(text, str) else text
    pairs: dict[str, str] = {}
    for item in items:
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise FieldTextError(
                Text("{where}: '{item}' is not NAME=VALUE", where=where, item=item.strip()),
                PAIRS_FIX,
            )
        pairs[name.strip()] = value.strip()
    return pairs


def parse_counts(text: str, where: Text | str) -> dict[str, int]:
    """``RESOURCE=COUNT`` items with whole, non-negative counts (a role's device resources)."""
    counts: dict[str, int] = {}
    for name, value in parse_pairs(text, where).items():
        if not value.isdigit():
            # The item is quoted whole, as typed: a secret typed here (``ak=<key>``) keeps its
            # name beside it, where the one redaction of every message recognises the pair.
            raise FieldTextError(
                Text(
                    "{where}: '{item}' does not end in a whole number (a count)",
                    where=where,
                    item=f"{name}={value}",
                ),
                COUNTS_FIX,
            )
        counts[name] = int(value)
    return counts


def role_field(role: str, field: Text) -> Text:
    """How errors name a role's field: ``role 'franka', devices``."""
    return Text("role '{role}', {field}", role=role, field=field)


def format_mounts(mounts: list[Mount]) -> str:
    """A role's mounts as the editor shows them, one ``NAME KIND SOURCE PATH [ro]`` per line."""
    return "\n".join(
        shell.command(m.name, m.kind, m.source, m.mount_path, *(["ro"] if m.read_only else []))
        for m in mounts
    )


def parse_mounts(
    text: str, role: str, storage: Mapping[str, tuple[str, str]] | None = None
) -> list[Mount]:
    """The inverse of :func:`format_mounts`; blank lines and ``#`` comments are skipped.

    ``storage``: StorageClass and role of other roles' storage mounts by name, since the Job's
    ``spec.storage`` has one StorageClass per name.
    """
    mounts: list[Mount] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            raise MountsError(role, number, line, Text("a quote is not closed")) from None
        if words:
            mount = _mount(words, mounts, storage or {})
            if isinstance(mount, Text):
                raise MountsError(role, number, line, mount)
            mounts.append(mount)
    return mounts


def _mount(
    words: list[str], earlier: list[Mount], storage: Mapping[str, tuple[str, str]]
) -> Mount | Text:
    """One line's mount, or what is wrong with it."""
    if len(words) not in (4, 5):
        return Text(
            "expected NAME KIND SOURCE MOUNT_PATH and optionally ro, found {count} word(s)",
            count=len(words),
        )
    name, kind, source, path, *mode = words
    if not DNS_LABEL.fullmatch(name):
        return Text(
            "'{name}' is not a volume name (lower-case letters, digits and '-', at most 63)",
            name=name,
        )
    if any(m.name == name for m in earlier):
        return Text("the name '{name}' is used by an earlier line", name=name)
    if kind.lower() not in MOUNT_KINDS:
        return Text("the kind '{kind}' is neither storage nor hostPath", kind=kind)
    if mode and mode[0] not in ("ro", "rw"):
        return Text("the last word '{word}' is neither ro nor rw", word=mode[0])
    mount_kind = MOUNT_KINDS[kind.lower()]
    other_class, other_role = storage.get(name, (source, ""))
    if mount_kind == "storage" and other_class != source:
        return Text(
            "'{name}' is StorageClass {other} in role '{role}': one storage name has one "
            "StorageClass in the Job",
            name=name,
            other=other_class,
            role=other_role,
        )
    return Mount(name, mount_kind, source, path, read_only=mode == ["ro"])


def reseed_mounts(mounts: list[Mount], old: list[Mount], new: list[Mount]) -> list[Mount]:
    """One role's mounts after the Job-wide mounts (``output``) change from ``old`` to ``new``.

    The Job form owns the mounts it seeds: every role gets them as it now says (one storage
    name has one StorageClass in the Job). The role's other mounts stay as edited.
    """
    seeded = {m.name for m in [*old, *new]}
    return [*(replace(m) for m in new), *(m for m in mounts if m.name not in seeded)]
