"""Secrets in text: the shapes and names that give a credential away, and their redaction.

This is the scanner under the SEC rules (``rlark_widgets.rlark.secrets`` turns its hits into
findings for a Job) and under every redaction: findings, previews, logs and records. It sits
below :mod:`rlark_widgets.findings` so that every finding, whoever makes it, is redacted.

The seeds forbid passwords, private keys, access tokens and object-storage keys in env vars,
prepare/run scripts and the Job YAML (保护敏感信息). Besides shapes and names, passwords handed
to commands (``curl -u``, ``sshpass -p``, ``mysql -pPASS``, a ``.netrc``) and base64 that
wraps a key or a token are found.

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

import base64
import binascii
import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector

from .i18n import Text

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
        return length_preview(self.end - self.start)

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


def _looks_like_key(value: str) -> bool:
    """Random, and not snake_case words: one run of 16+ characters between separators."""
    return _looks_random(value) and any(
        len(part) >= MIN_GENERIC_LENGTH and _char_classes(part) >= 2
        for part in re.split(r"[_.\-]", value)
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

# Base64 runs (possibly wrapped over lines) long enough to hide a key or a token inside.
_BASE64_RUN = re.compile(
    r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{24,}={0,2}"
    r"(?:[ \t]*(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/]{4,}={0,2})*(?![A-Za-z0-9+/])"
)
# What a decoded private key holds: PEM armour, PuTTY's header or OpenSSH's binary magic.
PRIVATE_KEY_MARKERS = (b"PRIVATE KEY", b"PuTTY-User-Key-File-", b"openssh-key-v1\x00")
#: Base64 inside base64 is unwrapped this many times, no more.
MAX_BASE64_DEPTH = 2


def decoded(value: str) -> bytes | None:
    compact = re.sub(r"\s|\\n", "", value)
    compact += "=" * (-len(compact) % 4)
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def _wraps_secret(value: str, depth: int) -> bool:
    """A base64 value that decodes to a private key, or to text holding a secret."""
    data = decoded(value)
    if data is None:
        return False
    if any(marker in data for marker in PRIVATE_KEY_MARKERS):
        return True
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return any(True for _ in _spans(text, depth + 1))


_VALUE_CHARS = r"[^\s\"'`;&|<>]+"
_QUOTED_OR_BARE = rf"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)'|(?P<value>{_VALUE_CHARS}))"
_COMMAND_TAIL = r"[^\n;&|]*?"

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
        Text("Tencent Cloud SecretId"),
        re.compile(rf"{_NOT_TOKEN}AKID[A-Za-z0-9]{{32}}{_END_TOKEN}"),
    ),
    _Detector(Text("npm token"), re.compile(rf"{_NOT_TOKEN}npm_[A-Za-z0-9]{{36}}{_END_TOKEN}")),
    _Detector(
        Text("Stripe key"),
        re.compile(rf"{_NOT_TOKEN}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{{16,}}{_END_TOKEN}"),
    ),
    _Detector(
        # registry logins written into the reference: 'user:password@registry.example.com/x:1'
        Text("password in an image reference"),
        re.compile(
            r"(?<![\w.:/@%-])[A-Za-z0-9._-]+:(?P<value>[^\s@/'\"]+)@(?=[A-Za-z0-9.-]+(?::\d+)?/)"
        ),
        group="value",
    ),
    _Detector(
        # a DSN passed through a URL or a form: 'postgresql%3A%2F%2Fuser%3Apass%40db'
        Text("URL with credentials"),
        re.compile(
            r"(?<![\w+.%-])(?i:[a-z][\w+.-]*%3A%2F%2F)(?:(?!%3A|%40|%2F)[^\s/?#'\"@])*%3A"
            r"(?P<value>(?:(?!%40|%2F)[^\s/?#'\"@])+)%40"
        ),
        group="value",
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

# Passwords that shell commands and credential files take positionally, so no NAME= says so.
_COMMAND_PASSWORDS: tuple[re.Pattern[str], ...] = (
    # .netrc: machine HOST login USER password PASS (one line or several)
    re.compile(
        rf"\b(?:machine[ \t]+\S+|default)(?:\s+(?:login|account|port|protocol)\s+\S+)*"
        rf"\s+password\s+{_QUOTED_OR_BARE}"
    ),
    re.compile(rf"\blogin\s+\S+\s+password\s+{_QUOTED_OR_BARE}"),
    # wandb login [--relogin] [--host=URL] KEY
    re.compile(rf"\bwandb[ \t]+login\b(?:[ \t]+--?[\w-]+(?:=\S+)?)*[ \t]+{_QUOTED_OR_BARE}"),
    # aws configure set [--profile P] aws_secret_access_key KEY (also a profile's dotted name)
    re.compile(
        r"\baws[ \t]+configure[ \t]+set\b(?:[ \t]+--\S+[ \t]+\S+)*[ \t]+(?:[\w-]+\.)*"
        rf"(?:aws_)?(?:secret_access_key|session_token)[ \t]+{_QUOTED_OR_BARE}"
    ),
    # curl/wget -u USER:PASS, --user USER:PASS, --proxy-user, -U (proxy)
    re.compile(
        r"(?<![\w-])(?:-u|-U|--user|--proxy-user)(?:[ \t]+|=)?[\"']?[^\s:\"'$]+:"
        r"(?P<value>[^\s\"'@;&|]+)"
    ),
    # sshpass -p PASS / -pPASS
    re.compile(rf"\bsshpass\b{_COMMAND_TAIL}(?<![\w-])-p[ \t]*{_QUOTED_OR_BARE}"),
    # mysql -pPASS (the password is glued to -p), also mysqldump, mysqladmin, mariadb
    re.compile(
        rf"\b(?:mysql\w*|mariadb\w*)\b{_COMMAND_TAIL}(?<![\w-])-p"
        rf"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)'|(?P<value>{_VALUE_CHARS}))"
    ),
    # docker/podman/helm login -p PASS
    re.compile(
        rf"\b(?:docker|podman|buildah|skopeo|helm|oras|nerdctl)\b[^\n;&|]*?\blogin\b"
        rf"{_COMMAND_TAIL}(?<![\w-])-p[ \t]+{_QUOTED_OR_BARE}"
    ),
    # redis-cli -a PASS, ldapsearch/ldapadd ... -w PASS, smbclient -U USER%PASS
    re.compile(rf"\bredis-cli\b{_COMMAND_TAIL}(?<![\w-])-a[ \t]+{_QUOTED_OR_BARE}"),
    re.compile(rf"\bldap\w+\b{_COMMAND_TAIL}(?<![\w-])-w[ \t]+{_QUOTED_OR_BARE}"),
    re.compile(r"(?<![\w-])-U[ \t]*[\"']?[^\s%\"']+%(?P<value>[^\s\"';&|]+)"),
    # openssl ... -passin pass:PASS / -passout pass:PASS / -k PASS
    re.compile(r"(?<![\w-])-pass(?:in|out)?[ \t]+[\"']?pass:(?P<value>[^\s\"';&|]+)"),
    # mongo/mongosh/az/oc/cf ... -p PASS, htpasswd -b FILE USER PASS
    re.compile(
        rf"\b(?:mongo\w*|az|oc|cf|influx)\b{_COMMAND_TAIL}(?<![\w-])-p[ \t]+{_QUOTED_OR_BARE}"
    ),
    re.compile(
        rf"\bhtpasswd\b{_COMMAND_TAIL}(?<![\w-])-\w*b\w*(?:[ \t]+-\w+)*[ \t]+\S+[ \t]+\S+[ \t]+"
        rf"{_QUOTED_OR_BARE}"
    ),
    # echo PASS | docker login --password-stdin (and any other --password-stdin)
    re.compile(
        r"\b(?:echo|printf)[ \t]+(?:-\w+[ \t]+)*[\"']?(?P<value>[^\s\"'|$]+)[\"']?[ \t]*\|"
        r"[^|\n]*--password-stdin"
    ),
    # echo USER:PASS | chpasswd, echo PASS | sudo -S, echo PASS | passwd --stdin
    re.compile(
        r"\becho[ \t]+(?:-\w+[ \t]+)*[\"']?[^\s:\"']+:(?P<value>[^\s\"']+)[\"']?[ \t]*\|[ \t]*"
        r"(?:sudo[ \t]+)?chpasswd\b"
    ),
    re.compile(
        r"\becho[ \t]+(?:-\w+[ \t]+)*[\"']?(?P<value>[^\s\"'|]+)[\"']?[ \t]*\|[ \t]*"
        r"(?:sudo[ \t]+-S\b|(?:sudo[ \t]+)?passwd\b[^\n|]*--stdin)"
    ),
)


def _command_password_spans(text: str, priority: int) -> Iterator[tuple[int, Text, int, int]]:
    for pattern in _COMMAND_PASSWORDS:
        for m in pattern.finditer(text):
            group = next(g for g in ("dq", "sq", "value") if m.groupdict().get(g) is not None)
            if is_literal(m.group(group)):
                yield priority, Text("password in a command"), *m.span(group)


# scheme://user:password@host; the password may contain '@', the host may not.
_URL_CREDENTIALS = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@'\"]*:(?P<value>[^\s/?#'\"]+)@[^\s/?#'\"@]+"
)

# NAME=value, NAME: value, "NAME": "value", --name value, --name=value. Only the name and the
# separator are consumed: a non-secret value (PARAMS="password=x") is scanned again for names,
# and a value is read (by _VALUE) only after a secret-looking name, which keeps the scan linear.
# shlex.quote writes a single quote inside a quoted word as '"'"' (JSON escapes its '"'), and
# quoting that word again (a RayJob's entrypoint is the run script under `bash -lc`) writes
# '"'"'"'"'"'"'"'"': a run of quotes from ' to ', so an override 'x.password='"'"'VALUE'"'"''
# still binds VALUE to the name at any depth of quoting.
_SHELL_QUOTE_GLUE = r"'[\\\"']{3,}'"
_ASSIGNMENT = re.compile(
    r"(?<![\w$./-])(?P<dash>--?)?(?P<q>[\"']?)(?P<name>[A-Za-z_][\w./-]*)(?P=q)"
    rf"(?:[ \t]*(?P<sep>[:=])(?!=)[ \t]*(?:{_SHELL_QUOTE_GLUE})?|(?(dash)[ \t]+|(?!)))"
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
    # When set, the value must pass it in the manifest too: the name alone is not enough.
    value_gate: Callable[[str], bool] | None = None


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
    _NameKind(
        re.compile(r"(?:PASSWORD|PASSWD|PASSPHRASE|(?:^|_)PASS|SSHPASS|(?:^|_)PWD)$"),
        Text("password assignment"),
    ),
    # Short names of the seeds' object-storage and cloud consoles: 'ak', 'sk', 'auth'.
    _NameKind(re.compile(r"^(?:AK|SK|AUTH)$"), Text("access key pair"), min_length=6),
    _NameKind(
        re.compile(r"(?:TOKEN|SECRET|API_?KEY|ACCESS_KEY|PRIVATE_KEY|AUTH_KEY|CREDENTIALS?)$"),
        Text("generic API token"),
        gated=True,
    ),
    # 'wandb_key', 'oss_key': but 'unnorm_key: libero_90_no_noops' and 'sort_key' are words,
    # so the name alone is never enough, in the manifest either: the value must look like a key.
    _NameKind(re.compile(r"_KEY$"), Text("generic API token"), value_gate=_looks_like_key),
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


def length_preview(length: int) -> Text:
    """Only the length: even a few characters of a short secret help guess it."""
    return Text("…(1 char)") if length == 1 else Text("…({count} chars)", count=length)


def _line_index(text: str) -> list[int]:
    return [m.start() for m in re.finditer("\n", text)]


def _hit(kind: Text, path: str, span: tuple[int, int], newlines: list[int]) -> SecretHit:
    start, end = span
    line = bisect.bisect_left(newlines, start) + 1
    return SecretHit(kind, path, start, end, line)


def _spans(text: str, depth: int = 0) -> Iterator[tuple[int, Text, int, int]]:
    """Every raw (priority, kind, start, end); lower priority wins an overlap: shapes first."""
    for priority, det in enumerate(_DETECTORS):
        for m in det.pattern.finditer(text):
            if det.accept is None or det.accept(m.group(det.group)):
                yield priority, det.kind, *m.span(det.group)
    url_priority = len(_DETECTORS)
    if depth < MAX_BASE64_DEPTH:
        for m in _BASE64_RUN.finditer(text):
            if _wraps_secret(m.group(0), depth):
                yield url_priority, Text("base64-wrapped secret"), *m.span()
    for m in _URL_CREDENTIALS.finditer(text):
        if is_literal(m.group("value")):
            yield url_priority, Text("URL with credentials"), *m.span("value")
    yield from _command_password_spans(text, url_priority)
    yield from _assignment_spans(text, url_priority + 1)
    yield from _env_entry_spans(text, url_priority + 1)
    yield from _paired_secret_spans(text, url_priority + 2)
    yield from _library_spans(text, url_priority + 3)  # the net under our own, named kinds


#: detect-secrets' detectors left out: the entropy ones flag digests, commit hashes and image
#: layers on their own (here entropy only gates a secret-looking name), a public IP is no
#: credential, and its keyword detector is replaced by the name rules above, which the
#: manifest applies more strictly (any literal under a secret name).
#: Its npm pattern ('//.+/:_authToken=') is quadratic on one long line; the npm token shape is
#: ours instead.
_LIBRARY_LEFT_OUT = frozenset(
    {
        "Base64 High Entropy String",
        "Hex High Entropy String",
        "Public IP (ipv4)",
        "Secret Keyword",
        "NPM tokens",
    }
)


@cache
def _library_detectors() -> tuple[RegexBasedDetector, ...]:
    """detect-secrets' shape detectors (AWS, Azure, Stripe, Slack, PyPI, Twilio, ...)."""
    plugins: Mapping[str, type[object]] = get_mapping_from_secret_type_to_class()
    return tuple(
        plugin()
        for kind, plugin in sorted(plugins.items())
        if kind not in _LIBRARY_LEFT_OUT and issubclass(plugin, RegexBasedDetector)
    )


#: The library's twenty regexes cost ~2 µs a character together, so lines longer than this (a
#: generated 4 MB value) are left to the detectors above; the rest is read in whole pieces.
MAX_LIBRARY_LINE = 20_000
_LONG_LINE = re.compile(rf"[^\n]{{{MAX_LIBRARY_LINE + 1},}}")


def _library_pieces(text: str) -> Iterator[tuple[int, str]]:
    """(offset, piece) of ``text`` between its overlong lines; each piece starts a line."""
    start = 0
    for long in _LONG_LINE.finditer(text):
        yield start, text[start : long.start()]
        start = long.end()
    yield start, text[start:]


def _library_spans(text: str, priority: int) -> Iterator[tuple[int, Text, int, int]]:
    """The library's hits, as spans of the secret (its first non-empty group, else the match)."""
    for offset, piece in _library_pieces(text):
        for detector in _library_detectors():
            for pattern in detector.denylist:
                for m in pattern.finditer(piece):
                    if _inside_word(piece, *m.span()):
                        continue  # 'MAKIA…XY' is a word that holds the shape, not a key
                    group = next((i for i in range(1, (m.lastindex or 0) + 1) if m.group(i)), 0)
                    if is_literal(m.group(group)):
                        start, end = m.span(group)
                        kind = Text("{kind} (detect-secrets)", kind=detector.secret_type)
                        yield priority, kind, offset + start, offset + end


def _inside_word(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum())


# A cloud key id (AWS, Aliyun, Tencent) says the random token beside it is its secret.
_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|LTAI|AKID)[A-Za-z0-9]{12,32}(?![A-Za-z0-9])")
_PAIRED_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{24,44}(?![A-Za-z0-9/+])")


def _paired_secret_spans(text: str, priority: int) -> Iterator[tuple[int, Text, int, int]]:
    if not _KEY_ID.search(text):
        return
    for m in _PAIRED_SECRET.finditer(text):
        if _looks_random(m.group(0)) and not _KEY_ID.fullmatch(m.group(0)):
            yield priority, Text("cloud secret key beside its key id"), *m.span()


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
        value = text[start:end]
        if is_literal(value) and (found.value_gate is None or found.value_gate(value)):
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
        if found.value_gate is not None and not found.value_gate(value):
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


def named_literal(text: str, path: str, name: str | None) -> SecretHit | None:
    """The whole of ``text`` as a hit when it is a literal bound to a secret-looking name."""
    found = _classify_name(name) if name else None
    if found is None or not is_literal(text):
        return None
    if found.value_gate is not None and not found.value_gate(text.strip()):
        return None
    start = len(text) - len(text.lstrip())
    return _hit(found.kind, path, (start, len(text.rstrip())), _line_index(text))


def redact(text: str, name: str | None = None) -> str:
    """``text`` with every secret replaced by ``«redacted:<kind>»``, for previews, logs, records.

    Pass ``name`` when ``text`` is the value of a variable or key (``redact(v, "DB_PASSWORD")``):
    a literal under a secret-looking name is then redacted whole, as secret_findings reports it.
    """
    hits = find_secrets(text)
    if not hits and (named := named_literal(text, "", name)):
        hits = [named]
    for hit in reversed(hits):
        text = f"{text[: hit.start]}«redacted:{hit.kind}»{text[hit.end :]}"
    return text


#: Secrets shorter than this are only replaced where they stand alone (not inside a word).
_SHORT_SECRET = 6


def value_scrubber(values: set[str]) -> Callable[[str], str]:
    """A function that replaces each of ``values`` (then every secret shape) in a text."""
    ordered = sorted(values, key=len, reverse=True)
    pattern = (
        re.compile(
            "|".join(
                re.escape(v)
                if len(v) >= _SHORT_SECRET
                else rf"(?<![A-Za-z0-9]){re.escape(v)}(?![A-Za-z0-9])"
                for v in ordered
            )
        )
        if ordered
        else None
    )

    def scrub(text: str) -> str:
        if pattern is not None:
            text = pattern.sub("«redacted:secret»", text)
        return redact(text)

    return scrub
