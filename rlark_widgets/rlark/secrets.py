"""Secret detection for RLark Jobs (rules SEC-SECRET and SEC-SSH-PRIVATE).

The seeds forbid passwords, private keys, access tokens and object-storage keys in env vars,
prepare/run scripts and the Job YAML (保护敏感信息): a manifest is stored, shown, diffed and kept
in the run record, so anything in it is as good as published. This module finds such values,
reports them as :class:`~rlark_widgets.findings.Finding` objects that say *where* without ever
repeating the secret, and redacts text before it reaches previews, logs or records.

Design choices, so that errors (which block submission) stay trustworthy:

* A value is only flagged when it has a recognisable shape (``AKIA…``, ``ghp_…``, a PEM block,
  a JWT, credentials in a URL…) or when it is a *literal* bound to a secret-looking name
  (``DB_PASSWORD=…``, ``accessKeySecret: …``). Free-floating high-entropy strings (digests,
  commit hashes, UUIDs, base64 images) are never flagged on their own.
* References are not secrets: ``$X``, ``${X}``, ``$(cmd)``, ``${oc.env:X}``, ``{{ x }}``,
  ``<placeholder>``, masks (``***``, ``xxxx``), ``null`` and flag-like values (``true``,
  ``off``, ``0``, ``1``: ``HF_HUB_DISABLE_IMPLICIT_TOKEN=1`` is a switch), file paths
  (``/run/secrets/db``) and our own ``«redacted:…»`` markers.
* Known default passwords such as ``changeme`` or ``minio123`` *are* flagged: they still
  authenticate against a default-configured service, and the fix (inject it from a Secret)
  is the same.
* Generic ``*_TOKEN`` / ``*_SECRET`` / ``*_API_KEY`` assignments in text need a value of at
  least 16 characters, two character classes and Shannon entropy >= 3.5 bits/char, so words
  (``pad_token: <pad>``, ``API_KEY=your-api-key-here``) pass. Env vars and mapping entries of
  the manifest are stricter: any literal under a secret-looking name is reported, because the
  name alone says the value is a credential.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rlark_widgets.findings import Finding, Severity
from rlark_widgets.i18n import Text

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

# Generic assignments need this much evidence that the value is random, not a word.
MIN_GENERIC_LENGTH = 16
MIN_GENERIC_ENTROPY = 3.5


@dataclass(frozen=True)
class SecretHit:
    """One secret found in one text: its kind, where it is, and a preview that never leaks it.

    ``start``/``end`` are offsets into the scanned text (the secret value only, so ``redact``
    keeps ``password=`` and the surrounding script readable); ``line`` is 1-based. Only the
    secret's length is kept, so no part of it can reach a message.
    """

    label: Text  # the kind, in the reader's language; str(label) is the English kind
    path: str
    start: int
    end: int
    line: int = 1

    @property
    def kind(self) -> str:
        """The English kind: a stable name for tests and ``«redacted:<kind>»`` markers."""
        return str(self.label)

    @property
    def preview_text(self) -> Text:
        return _preview(self.end - self.start)

    @property
    def preview(self) -> str:
        return str(self.preview_text)

    @property
    def location(self) -> Text:
        """The path and the 1-based line: what a reader needs to find it in a script."""
        return Text("{path} line {line}", path=self.path or "<text>", line=self.line)

    @property
    def where(self) -> str:
        return str(self.location)


@dataclass(frozen=True)
class _Detector:
    """A value shape: the regex, which group is the secret, and an optional extra check."""

    kind: Text
    pattern: re.Pattern[str]
    group: int | str = 0
    accept: Callable[[str], bool] | None = None


def shannon_entropy(value: str) -> float:
    """Bits per character; random tokens score ~4-6, words and repeated digits far less."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _char_classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
        )
    )


def _looks_random(value: str) -> bool:
    """The entropy gate for secrets recognised only by their name (generic tokens)."""
    return (
        len(value) >= MIN_GENERIC_LENGTH
        and _char_classes(value) >= 2
        and shannon_entropy(value) >= MIN_GENERIC_ENTROPY
    )


def _mixed_key(value: str) -> bool:
    """``sk-`` keys must mix digits, upper and lower case (``sk-learn-…`` words do not)."""
    return _char_classes(value) == 3


def _digit_and_letter(value: str) -> bool:
    """A bare ``Bearer <x>`` needs both, so prose ("Bearer authentication") is not a token."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


_NOT_TOKEN = r"(?<![A-Za-z0-9_])"
_END_TOKEN = r"(?![A-Za-z0-9_])"
_PEM_LABEL = r"(?P<label>[A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?)"
# A PEM block up to its END line; a truncated one takes the base64 lines that follow it. The
# body never crosses another '-----', so many BEGIN lines cannot make the scan quadratic.
PEM_PRIVATE_KEY = re.compile(
    rf"-----BEGIN {_PEM_LABEL}-----"
    r"(?:(?:[^-]|-(?!----))*-----END (?P=label)-----|(?:(?:\s|\\n)*[A-Za-z0-9+/=]{16,})*)"
)

_DETECTORS: tuple[_Detector, ...] = (
    _Detector(Text("PEM private key"), PEM_PRIVATE_KEY),
    _Detector(
        Text("AWS access key"),
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ),
    _Detector(
        Text("Alibaba Cloud AccessKey ID"),
        re.compile(rf"{_NOT_TOKEN}LTAI[A-Za-z0-9]{{12,24}}{_END_TOKEN}"),
    ),
    _Detector(
        Text("GitHub token"),
        re.compile(
            rf"{_NOT_TOKEN}(?:gh[pousr]_[A-Za-z0-9]{{36,251}}|github_pat_[A-Za-z0-9_]{{22,251}}){_END_TOKEN}"
        ),
    ),
    _Detector(Text("GitLab token"), re.compile(rf"{_NOT_TOKEN}glpat-[A-Za-z0-9_-]{{20,}}")),
    _Detector(
        Text("Slack token"), re.compile(rf"{_NOT_TOKEN}xox[abprs]-[0-9]{{6,}}-[0-9A-Za-z-]{{6,}}")
    ),
    _Detector(
        Text("Slack webhook URL"),
        re.compile(
            r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}"
        ),
    ),
    _Detector(
        Text("HuggingFace token"), re.compile(rf"{_NOT_TOKEN}hf_[A-Za-z0-9]{{30,}}{_END_TOKEN}")
    ),
    _Detector(
        Text("OpenAI-style API key"),
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}"),
        accept=_mixed_key,
    ),
    _Detector(
        Text("Google API key"), re.compile(rf"{_NOT_TOKEN}AIza[0-9A-Za-z_-]{{35}}{_END_TOKEN}")
    ),
    _Detector(
        Text("JWT"),
        re.compile(
            rf"{_NOT_TOKEN}eyJ[A-Za-z0-9_-]{{5,}}\.eyJ[A-Za-z0-9_-]{{5,}}\.[A-Za-z0-9_-]{{10,}}"
        ),
    ),
    _Detector(
        Text("bearer token"),
        re.compile(
            r"(?i:authorization)[ \t]*[:=][ \t]*[\"']?(?i:bearer|token|basic)[ \t]+"
            r"(?P<value>[A-Za-z0-9._~+/-]{8,}=*)"
        ),
        group="value",
    ),
    _Detector(
        Text("bearer token"),
        re.compile(r"\b[Bb]earer[ \t]+(?P<value>[A-Za-z0-9._~+/-]{20,}=*)"),
        group="value",
        accept=_digit_and_letter,
    ),
)

# scheme://user:password@host; the password may contain '@', the host may not.
_URL_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@'\"]*:(?P<value>[^\s/?#'\"]+)@[^\s/?#'\"@]+"
)

# NAME=value, NAME: value, "NAME": "value", --name value, --name=value. Only the name and the
# separator are consumed: a non-secret value (PARAMS="password=x") is scanned again for names,
# and a value is read (by _VALUE) only after a secret-looking name, which keeps the scan linear.
_ASSIGNMENT = re.compile(
    r"(?<![\w$./-])(?P<dash>--?)?(?P<q>[\"']?)(?P<name>[A-Za-z_][\w./-]*)(?P=q)"
    r"(?:[ \t]*(?P<sep>[:=])(?!=)[ \t]*|(?(dash)[ \t]+|(?!)))"
)
# An unquoted value ends where the shell would end it (';', '&', '|', '<', '>'), which also
# splits query strings ('?user=a&password=b').
_VALUE = re.compile(r"\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s'\"`;&|<>]+)")

# A Kubernetes env entry written out as YAML or JSON ('name: DB_PASSWORD' then 'value: …', the
# order of Job.to_manifest and of sorted-key dumps): the value is judged by the env name, as in
# secret_findings, so a rendered job.yaml or record is redacted like the manifest is checked.
_ENV_ENTRY = re.compile(
    r"[\"']?\bname[\"']?[ \t]*:[ \t]*[\"']?(?P<name>[A-Za-z_][\w.-]*)[\"']?[ \t]*"
    r"(?P<sep>,\s*|\r?\n[ \t]*)[\"']?value[\"']?[ \t]*:[ \t]*"
)
_ENV_VALUE = re.compile(
    r"\"(?P<dq>(?:[^\"\\\n]|\\.)*)\"|'(?P<sq>(?:[^'\n]|'')*)'|(?P<bare>[^\s\"'|>][^\n]*)"
)


@dataclass(frozen=True)
class _NameKind:
    """A secret-looking name ending, what its value is, and the evidence a value needs."""

    pattern: re.Pattern[str]  # matched against the end of the normalised name
    kind: Text
    gated: bool = False  # the value must also look random (names that are only generic)
    min_length: int = 1


# First match wins.
_NAME_KINDS: tuple[_NameKind, ...] = (
    _NameKind(
        re.compile(r"(?:^|_)AWS_SECRET(?:_ACCESS)?_KEY$"),
        Text("AWS secret access key"),
        min_length=8,
    ),
    _NameKind(
        re.compile(
            r"(?:SECRET_ACCESS_KEY|ACCESS_KEY_SECRET|SECRET_KEY|SECRETKEY|ACCOUNT_KEY|STORAGE_KEY|SAS_TOKEN)$"
        ),
        Text("object-storage secret"),
        min_length=8,
    ),
    _NameKind(re.compile(r"(?:PASSWORD|PASSWD|PASSPHRASE)$"), Text("password assignment")),
    _NameKind(
        re.compile(r"(?:TOKEN|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?)$"),
        Text("generic API token"),
        gated=True,
    ),
)

_REFERENCE = re.compile(
    r"""^(?:\$|\{\{|%\(|«redacted:|<[^<>]*>$|(?i:x{3,}|null|none|true|false|yes|no|on|off|0|1|~|redacted)$)"""
)
_PATH_LIKE = re.compile(r"^(?:/|\./|\.\./|~/|file://)")


def _normalise_name(name: str) -> str:
    """``spring.datasource.password``, ``example.com/db-password``, ``accessKeySecret`` -> UPPER_SNAKE."""
    last = re.split(r"[./]", name)[-1]
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", last).replace("-", "_").upper()


def _classify_name(name: str) -> _NameKind | None:
    normalised = _normalise_name(name)
    return next((k for k in _NAME_KINDS if k.pattern.search(normalised)), None)


def is_literal(value: str) -> bool:
    """A value that is itself the credential: not empty, a reference, a placeholder or a path."""
    value = value.strip()
    return bool(
        value
        and any(c.isalnum() for c in value)
        and not _REFERENCE.match(value)
        and not _PATH_LIKE.match(value)
    )


def _preview(length: int) -> Text:
    """Only the length: even a few characters of a short secret help guess it."""
    return Text("…(1 char)") if length == 1 else Text("…({count} chars)", count=length)


def _line_index(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


def _hit(kind: Text, path: str, span: tuple[int, int], newlines: list[int]) -> SecretHit:
    start, end = span
    line = bisect.bisect_left(newlines, start) + 1
    return SecretHit(kind, path, start, end, line)


def _spans(text: str) -> Iterator[tuple[int, Text, int, int]]:
    """Every raw (priority, kind, start, end); lower priority wins an overlap: shapes first."""
    for priority, det in enumerate(_DETECTORS):
        for m in det.pattern.finditer(text):
            if det.accept is None or det.accept(m.group(det.group)):
                yield priority, det.kind, *m.span(det.group)
    url_priority = len(_DETECTORS)
    for m in _URL_CREDENTIALS.finditer(text):
        if is_literal(m.group("value")):
            yield url_priority, Text("URL with credentials"), *m.span("value")
    yield from _assignment_spans(text, url_priority + 1)
    yield from _env_entry_spans(text, url_priority + 1)


def _env_entry_spans(text: str, priority: int) -> Iterator[tuple[int, Text, int, int]]:
    """Literal values of env entries with secret-looking names, in rendered YAML or JSON."""
    for m in _ENV_ENTRY.finditer(text):
        found = _classify_name(m.group("name"))
        value_match = _ENV_VALUE.match(text, m.end()) if found else None
        if found is None or value_match is None:
            continue
        group = next(g for g in ("dq", "sq", "bare") if value_match.group(g) is not None)
        start, end = value_match.span(group)
        if group == "bare":  # a plain scalar: up to a comment, or to ',' / '}' in flow style
            bare = re.split(r"[ \t]+#", value_match.group(group))[0]
            if "," in m.group("sep"):
                bare = re.split(r"[,}]", bare)[0]
            end = start + len(bare.rstrip())
        if is_literal(text[start:end]):
            yield priority, found.kind, start, end


def _assignment_spans(text: str, priority: int) -> Iterator[tuple[int, Text, int, int]]:
    """Literal values of secret-looking names; a secret name's value is not rescanned for names.

    Not rescanning keeps pathological inputs ('password=password=…') linear; values of other
    names are rescanned, so 'PARAMS="password=x"' is still found.
    """
    pos = 0
    while m := _ASSIGNMENT.search(text, pos):
        pos = m.end()
        found = _classify_name(m.group("name"))
        value_match = _VALUE.match(text, m.end()) if found else None
        if found is None or value_match is None:
            continue
        group = next(g for g in ("dq", "sq", "bare") if value_match.group(g) is not None)
        start, end = value_match.span(group)
        if group == "bare":
            if m.group("dash") and not m.group("sep") and text.startswith("-", start):
                continue  # '--password --user x': the next flag is not a value
            # '{password: x}' or 'f(token=x)': trailing closers are syntax, not the value.
            end = start + len(value_match.group(group).rstrip(",)]}"))
        pos = value_match.end()
        value = text[start:end]
        if not is_literal(value) or len(value) < found.min_length:
            continue
        if found.gated and not _looks_random(value):
            continue
        yield priority, found.kind, start, end


def find_secrets(text: str, path: str = "") -> list[SecretHit]:
    """All secrets in ``text``, in text order, without overlaps (the most specific kind wins)."""
    starts: list[int] = []
    kept: list[tuple[int, int, Text]] = []  # (start, end, kind): sorted and disjoint
    for _, kind, start, end in sorted(_spans(text), key=lambda s: (s[0], s[2], s[2] - s[3])):
        i = bisect.bisect_left(starts, start)
        if (i == 0 or kept[i - 1][1] <= start) and (i == len(kept) or end <= kept[i][0]):
            starts.insert(i, start)
            kept.insert(i, (start, end, kind))
    newlines = _line_index(text) if kept else []
    return [_hit(kind, path, (start, end), newlines) for start, end, kind in kept]


def _named_literal(text: str, path: str, name: str | None) -> SecretHit | None:
    """The whole of ``text`` as a hit when it is a literal bound to a secret-looking name."""
    found = _classify_name(name) if name else None
    if found is None or not is_literal(text):
        return None
    start = len(text) - len(text.lstrip())
    return _hit(found.kind, path, (start, len(text.rstrip())), _line_index(text))


def redact(text: str, name: str | None = None) -> str:
    """``text`` with every secret replaced by ``«redacted:<kind>»``, for previews, logs, records.

    Pass ``name`` when ``text`` is the value of a variable or key (``redact(v, "DB_PASSWORD")``):
    a literal under a secret-looking name is then redacted whole, as secret_findings reports it.
    """
    hits = find_secrets(text)
    if not hits and (named := _named_literal(text, "", name)):
        hits = [named]
    for hit in reversed(hits):
        text = f"{text[: hit.start]}«redacted:{hit.kind}»{text[hit.end :]}"
    return text


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
            yield from _strings(value, _join(path, str(key)), bound)
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
        if not hits and (named := _named_literal(text, path, name)):
            findings.append(_finding(named, text, name))
    return findings


_PUBLIC_SSH_KEY = re.compile(
    r"^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-[\w-]+|sk-(?:ssh|ecdsa)-[\w@.-]+) "
)
_PRIVATE_SSH_MARKERS = ("PRIVATE KEY", "PuTTY-User-Key-File-")


def ssh_key_findings(keys: Sequence[str], path: str = "spec.sshKeys") -> list[Finding]:
    """SEC-SSH-PRIVATE errors for private keys where public keys or registered names belong.

    The seeds' SSH field writes *public* keys into every Pod's ``authorized_keys``; a private
    key there hands the login to whoever can read the Job. Public keys and key names pass.
    """
    findings: list[Finding] = []
    for i, key in enumerate(keys):
        stripped = key.strip()
        if _PUBLIC_SSH_KEY.match(stripped) or not any(m in stripped for m in _PRIVATE_SSH_MARKERS):
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
                    preview=_preview(len(stripped)),
                ),
                fix_text=SSH_FIX,
                source=SSH_SOURCE,
            )
        )
    return findings
