"""Secret findings for RLark Jobs (SEC-SECRET, SEC-SSH-PRIVATE, SEC-REDACTED).

A manifest is stored, shown, diffed and kept in the run record, so anything in it is as good as
published. This module scans what the user wrote, all of it (every key and value, sshKeys,
labels, unknown fields, the file's comments), reports each secret as a finding that says
*where* without repeating it, and takes every value it flags out of all other findings.
The scanner itself, and the text redaction, are :mod:`rlark_widgets.secret_text`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..findings import Finding, Severity
from ..i18n import Text
from ..secret_text import (
    PRIVATE_KEY_MARKERS,
    SecretHit,
    decoded,
    find_secrets,
    is_literal,
    length_preview,
    named_literal,
    redact,
    shannon_entropy,
    value_scrubber,
)

#: The scanner's own names, for callers that check Jobs (they read it here, with the rules).
__all__ = [
    "SecretHit",
    "find_secrets",
    "is_literal",
    "redact",
    "shannon_entropy",
    "value_scrubber",
]

SECRET_RULE = "SEC-SECRET"
SSH_PRIVATE_RULE = "SEC-SSH-PRIVATE"
SECRET_SOURCE = "seeds/create-training-job.zh.txt (保护敏感信息)"
SSH_SOURCE = "seeds/create-training-job.zh.txt (SSH 公钥)"
SECRET_FIX = Text(
    "Remove it from the Job and inject the credential the way your RLark environment allows "
    "(a Kubernetes Secret or the platform's credential store); never in env values, scripts "
    "or annotations."
)
SSH_FIX = Text(
    "Remove the private key from the Job and treat it as leaked (rotate it); select or register "
    "the matching PUBLIC key (ssh-ed25519/ssh-rsa/ecdsa-sha2-*) on the SSH key page instead."
)

# --- the Job manifest ---------------------------------------------------------------------------
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def _join(path: str, key: str) -> str:
    if not _IDENTIFIER.match(key):  # annotation keys such as 'rlark.io/owner'
        return f'{path}["{key}"]'
    return f"{path}.{key}" if path else key


def _strings(
    node: Any, path: str, name: str | None = None
) -> Iterator[tuple[str, str, str | None]]:
    """(path, text, name the text is bound to) for every string or number in the manifest.

    The name is the mapping key, or for env-style ``{name: N, value: V}`` entries, ``N``.
    """
    if isinstance(node, str):
        yield path, node, name
    elif isinstance(node, int | float) and not isinstance(node, bool):
        yield path, str(node), name
    elif isinstance(node, Mapping):
        env_name = node.get("name") if isinstance(node.get("name"), str) else None
        for key, value in node.items():
            bound = env_name if key == "value" and env_name else str(key)
            child = _join(path, str(key))
            yield child, str(key), None  # keys are what the user wrote too (annotation keys)
            yield from _strings(value, child, bound)
    elif isinstance(node, list | tuple):
        for i, item in enumerate(node):
            yield from _strings(item, f"{path}[{i}]")


def _finding(hit: SecretHit, text: str, name: str | None = None) -> Finding:
    values = {
        "kind": hit.label,
        "where": hit.location if "\n" in text else (hit.path or "<text>"),
        "preview": hit.preview_text,
    }
    message = (
        Text(
            "{kind} (in {name}) found at {where}: {preview}. The Job YAML is stored and shown, "
            "so it must not carry credentials.",
            name=name,
            **values,
        )
        if name
        else Text(
            "{kind} found at {where}: {preview}. The Job YAML is stored and shown, so it must "
            "not carry credentials.",
            **values,
        )
    )
    return Finding(
        rule_id=SECRET_RULE,
        severity=Severity.ERROR,
        path=hit.path,
        text=message,
        fix_text=SECRET_FIX,
        source=SECRET_SOURCE,
    )


def secret_findings(manifest: Mapping[str, Any]) -> list[Finding]:
    """One SEC-SECRET error per secret in the manifest: env values, scripts, annotations, all.

    A string with no recognisable secret is still an error when it is a literal bound to a
    secret-looking name (env ``DB_PASSWORD=hunter2``, annotation ``api-token: abc``).
    """
    findings: list[Finding] = []
    for path, text, name in _strings(manifest, ""):
        hits = find_secrets(text, path)
        bound = name if name and path.endswith(".value") and name != "value" else None
        findings.extend(_finding(hit, text, bound) for hit in hits)
        if not hits and (named := named_literal(text, path, name)):
            findings.append(_finding(named, text, name))
    return findings


_COMMENT = re.compile(r"(?:^|[ \t])#(?P<comment>[^\n]*)", re.MULTILINE)


def comment_secret_findings(text: str) -> list[Finding]:
    """SEC-SECRET for secrets in the YAML's comments: no value holds them, but the file is
    what is shared, diffed and kept. (Only lines with no quotes: a '#' in a string is not a
    comment.)"""
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "'" in line or '"' in line:
            continue
        match = _COMMENT.search(line)
        if match is None:
            continue
        comment = match.group("comment")
        for hit in find_secrets(comment, f"(comment, line {number})"):
            findings.append(_finding(hit, comment))
    return findings


REDACTED_RULE = "SEC-REDACTED"
REDACTION_MARK = "«redacted:"


def redaction_placeholder_findings(document: Mapping[str, Any]) -> list[Finding]:
    """SEC-REDACTED: a value that is one of our redaction markers would run as that text.

    ``plan -o`` and previews redact secrets; a Job read back from such a file would start with
    ``HF_TOKEN=«redacted:...»``, which fails late and obscurely on the cluster.
    """
    paths = sorted({path for path, text, _ in _strings(document, "") if REDACTION_MARK in text})
    return [
        Finding(
            rule_id=REDACTED_RULE,
            severity=Severity.ERROR,
            path=path,
            text=Text(
                "{path} holds a redaction placeholder («redacted:…»): this Job was written with "
                "a secret taken out, and would run with the placeholder as the value.",
                path=path or "<document>",
            ),
            fix_text=Text(
                "Replace the placeholder with a reference the Worker resolves at run time (a "
                "Kubernetes Secret, the platform's credential store, or $NAME read from the "
                "environment); never paste the secret back in."
            ),
            source=SECRET_SOURCE,
        )
        for path in paths
    ]


def secret_values(document: Any) -> set[str]:
    """Every value in ``document`` the scanner flags, so no other output can repeat it."""
    values: set[str] = set()
    for path, text, name in _strings(document, ""):
        hits = find_secrets(text, path)
        values.update(text[h.start : h.end] for h in hits)
        if not hits and (named := named_literal(text, path, name)):
            values.add(text[named.start : named.end])
    return {v for v in values if v.strip()}


def redact_findings(findings: Sequence[Finding], document: Any) -> list[Finding]:
    """``findings`` with every value the scanner flags in ``document`` taken out of their
    paths, messages and fixes (both languages render the same redacted values)."""
    values = secret_values(document)
    if not values:
        return list(findings)
    scrub = value_scrubber(values)
    return [f.redacted(scrub) for f in findings]


def redact_document(node: Any, name: str | None = None) -> Any:
    """A manifest with every secret redacted, for JSON output (the YAML text goes through
    :func:`redact`): strings are redacted with the key or env name they are bound to."""
    if isinstance(node, str):
        return redact(node, name)
    if isinstance(node, Mapping):
        env_name = node.get("name") if isinstance(node.get("name"), str) else None
        return {
            redact(str(k)): redact_document(v, env_name if k == "value" and env_name else str(k))
            for k, v in node.items()
        }
    if isinstance(node, list | tuple):
        return [redact_document(item) for item in node]
    return node


_PUBLIC_SSH_KEY = re.compile(
    r"^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-[\w-]+|sk-(?:ssh|ecdsa)-[\w@.-]+) "
)
_PRIVATE_SSH_MARKERS = ("PRIVATE KEY", "PuTTY-User-Key-File-")


def document_secret_findings(document: Mapping[str, Any]) -> list[Finding]:
    """Every secret finding for what the user wrote: all of it, keys and unknown fields too.

    ``spec.sshKeys`` gets the general scan (a token there is a token) and the SSH-specific
    message for private keys, which replaces the general one at the same place.
    """
    spec = document.get("spec") if isinstance(document, Mapping) else None
    keys = spec.get("sshKeys") if isinstance(spec, Mapping) else None
    ssh = ssh_key_findings(keys if isinstance(keys, list) else [])
    ssh_paths = {f.path for f in ssh}
    general = [f for f in secret_findings(document) if f.path not in ssh_paths]
    return [*general, *ssh, *redaction_placeholder_findings(document)]


def ssh_key_findings(keys: Sequence[str], path: str = "spec.sshKeys") -> list[Finding]:
    """SEC-SSH-PRIVATE errors for private keys where public keys or registered names belong.

    The seeds' SSH field writes *public* keys into every Pod's ``authorized_keys``; a private
    key there hands the login to whoever can read the Job. Public keys and key names pass.
    """
    findings: list[Finding] = []
    for i, key in enumerate(keys):
        if not isinstance(key, str):
            continue  # the schema reports the type
        stripped = key.strip()
        private = any(m in stripped for m in _PRIVATE_SSH_MARKERS) or any(
            m in (decoded(stripped) or b"") for m in PRIVATE_KEY_MARKERS
        )
        if _PUBLIC_SSH_KEY.match(stripped) or not private:
            continue
        findings.append(
            Finding(
                rule_id=SSH_PRIVATE_RULE,
                severity=Severity.ERROR,
                path=f"{path}[{i}]",
                text=Text(
                    "{field} holds a private key ({preview}); SSH keys must be public keys or "
                    "names of registered keys.",
                    field=f"{path}[{i}]",
                    preview=length_preview(len(stripped)),
                ),
                fix_text=SSH_FIX,
                source=SSH_SOURCE,
            )
        )
    return findings
