"""SEC rules: secrets in env values, scripts and YAML are found, located and never echoed.

Fake tokens and keys of shapes that repository scanners recognise (AKIA…, ghp_…, xoxb-…, PEM
blocks, JWTs) are assembled from pieces at import time, so the file carries none of them
verbatim; the short fake passwords are plain literals.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from rlark_widgets.findings import Severity
from rlark_widgets.rlark import secrets
from rlark_widgets.rlark.secrets import (
    SECRET_FIX,
    SECRET_SOURCE,
    find_secrets,
    redact,
    secret_findings,
    shannon_entropy,
    ssh_key_findings,
)

# --- fake credentials (realistic shapes, assembled) ----------------------------------------------
AWS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_SESSION_KEY_ID = "ASIA" + "Y34FZKBOKMUTVV7A"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
ALI_KEY_ID = "LTAI" + "5tQ9xZr8PmW2kLbN3vYc"
OSS_SECRET = "Xq7Lm2Np9Rt4" + "Vw6Yz8Bc1Df3Gh5J"
MINIO_DEFAULT = "minio" + "123"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8"
GHS = "ghs_" + "Z9y8X7w6V5u4T3s2R1q0" + "P9o8N7m6L5k4J3i2"
GITHUB_PAT = (
    "github_pat_"
    + "11ABCDEFG0"
    + "abcdefghijkl_"
    + "Mn0pQrStUvWxYz1234567890AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
)
SLACK_BOT = "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_HOOK = (
    "https://hooks.slack.com/services/" + "T0123ABCD/B0456EFGH/" + "aBcDeFgHiJkLmNoPqRsTuVwX"
)
HF = "hf_" + "AbCdEfGhIjKlMnOpQrSt" + "UvWxYz0123456789"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5q" + "Rs8tUv1wXy4z"
WANDB_KEY = "3f9a1c7e5b2d8f40" + "6a1e9c3b7d5f2a8e4c6b0d1f"
BEARER = "dGhpc2lzYWZha2V0b2tlbg" + "9f8e7d6c5b4a"
AZURE_KEY = "Zm9vYmFyYmF6cXV4" + "MTIzNDU2Nzg5MGFiY2RlZg" + "=="


def _b64url(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


JWT = ".".join(
    [
        _b64url({"alg": "HS256", "typ": "JWT"}),
        _b64url({"sub": "rlinf-bot", "iat": 1700000000}),
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
)

_KEY_BODY = "\n".join(
    ["MIIEowIBAAKCAQEA1c2x3v4b5n6m7" + "QwErTyUiOpAsDfGhJkLzXcVbNm1234567890abcd"] * 4
)


def pem(label: str, body: str = _KEY_BODY, end: bool = True) -> str:
    block = f"-----BEGIN {label}-----\n{body}\n"
    return block + (f"-----END {label}-----" if end else "")


RSA_KEY = pem("RSA PRIVATE KEY")
OPENSSH_KEY = pem("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB" * 3)
EC_KEY = pem("EC PRIVATE KEY")
PKCS8_TRUNCATED = pem("PRIVATE KEY", end=False)
GCS_KEY = pem("PRIVATE KEY").replace("\n", "\\n") + "\\n"
GCS_JSON = (
    '{"type": "service_account", "project_id": "rl-demo", "private_key_id": "0123abcd", '
    f'"private_key": "{GCS_KEY}", "client_email": "bot@rl-demo.iam.gserviceaccount.com"}}'
)
PUBLIC_SSH = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG3v4cX1y2z3QwErTyUiOpAsDfGhJkLzXcVbNm alice@laptop"
)

# (case id, text, expected kind, the exact secret span)
POSITIVES: list[tuple[str, str, str, str]] = [
    ("aws-key-id-env", f"export AWS_ACCESS_KEY_ID={AWS_KEY_ID}", "AWS access key", AWS_KEY_ID),
    (
        "aws-session-key-id-yaml",
        f"aws_access_key_id: {AWS_SESSION_KEY_ID}",
        "AWS access key",
        AWS_SESSION_KEY_ID,
    ),
    (
        "aws-secret-env",
        f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        "AWS secret access key",
        AWS_SECRET,
    ),
    (
        "aws-secret-ini",
        f'aws_secret_access_key = "{AWS_SECRET}"',
        "AWS secret access key",
        AWS_SECRET,
    ),
    ("oss-secret-env", f"OSS_ACCESS_KEY_SECRET={OSS_SECRET}", "object-storage secret", OSS_SECRET),
    (
        "alibaba-secret-yaml",
        f"ALIBABA_CLOUD_ACCESS_KEY_SECRET: '{OSS_SECRET}'",
        "object-storage secret",
        OSS_SECRET,
    ),
    (
        "oss-camel-json",
        f'{{"accessKeyId": "id", "accessKeySecret": "{OSS_SECRET}"}}',
        "object-storage secret",
        OSS_SECRET,
    ),
    (
        "alibaba-key-id",
        f'{{"accessKeyId": "{ALI_KEY_ID}"}}',
        "Alibaba Cloud AccessKey ID",
        ALI_KEY_ID,
    ),
    (
        "minio-default-secret",
        f"MINIO_SECRET_KEY={MINIO_DEFAULT}",
        "object-storage secret",
        MINIO_DEFAULT,
    ),
    ("s3cfg-secret-key", f"secret_key = {OSS_SECRET}", "object-storage secret", OSS_SECRET),
    (
        "azure-connection-string",
        f"DefaultEndpointsProtocol=https;AccountName=rl;AccountKey={AZURE_KEY};EndpointSuffix=core.windows.net",
        "object-storage secret",
        AZURE_KEY,
    ),
    ("gcs-service-account-json", GCS_JSON, "PEM private key", GCS_KEY[:-2]),
    ("pem-rsa", f"cat > ~/.ssh/id_rsa <<EOF\n{RSA_KEY}\nEOF", "PEM private key", RSA_KEY),
    ("pem-openssh", OPENSSH_KEY, "PEM private key", OPENSSH_KEY),
    ("pem-ec", f"key: |\n{EC_KEY}", "PEM private key", EC_KEY),
    (
        "pem-pkcs8-truncated",
        PKCS8_TRUNCATED + "\npython train.py",
        "PEM private key",
        PKCS8_TRUNCATED.rstrip("\n"),
    ),
    (
        "github-classic",
        f"git clone https://{GHP}@github.com/RLinf/private.git",
        "GitHub token",
        GHP,
    ),
    ("github-fine-grained", f"GH_TOKEN={GITHUB_PAT}", "GitHub token", GITHUB_PAT),
    (
        "github-app-in-url",
        f"https://x-access-token:{GHS}@github.com/RLinf/RLinf.git",
        "GitHub token",
        GHS,
    ),
    ("slack-bot-token", f"SLACK_BOT_TOKEN={SLACK_BOT}", "Slack token", SLACK_BOT),
    ("slack-webhook", f"curl -X POST -d @msg.json {SLACK_HOOK}", "Slack webhook URL", SLACK_HOOK),
    ("password-assignment", "password=hunter2xyz", "password assignment", "hunter2xyz"),
    (
        "password-cli-flag",
        "python eval.py --password S3cr3t! --user admin",
        "password assignment",
        "S3cr3t!",
    ),
    (
        "password-quoted-with-space",
        "export PGPASSWORD='p@ss w0rd'",
        "password assignment",
        "p@ss w0rd",
    ),
    ("password-yaml", 'db_password: "Tr0ub4dor&3"', "password assignment", "Tr0ub4dor&3"),
    (
        "password-dotted-key",
        "spring.datasource.password=R00tPa55",
        "password assignment",
        "R00tPa55",
    ),
    ("password-changeme", "password: changeme", "password assignment", "changeme"),
    (
        "password-nested-literal",
        "kubectl create secret generic db --from-literal=password=abc12345",
        "password assignment",
        "abc12345",
    ),
    (
        "password-in-query-string",
        "https://api.example.com/v1?user=a&password=b3cr3t&x=1",
        "password assignment",
        "b3cr3t",
    ),
    (
        "password-inside-other-value",
        'EXTRA_ARGS="--db-host db --db-password Zq9!xw"',
        "password assignment",
        "Zq9!xw",
    ),
    (
        "env-entry-yaml",
        "env:\n- name: DB_PASSWORD\n  value: hunter2 # set by hand\n",
        "password assignment",
        "hunter2",
    ),
    ("env-entry-json", '[{"name": "HF_TOKEN", "value": "abc"}]', "generic API token", "abc"),
    ("mysql-url", "DATABASE_URL=mysql://root:pw@db:3306/rl", "URL with credentials", "pw"),
    (
        "https-url-user-token",
        "git clone https://alice:tok3nV4lue@gitlab.example.com/grp/repo.git",
        "URL with credentials",
        "tok3nV4lue",
    ),
    ("redis-url-no-user", "redis://:s3cr3tPass@redis:6379/0", "URL with credentials", "s3cr3tPass"),
    ("hf-token", f"export HF_TOKEN={HF}", "HuggingFace token", HF),
    ("openai-key", f"OPENAI_API_KEY={OPENAI}", "OpenAI-style API key", OPENAI),
    ("jwt", f"--auth {JWT}", "JWT", JWT),
    (
        "bearer-header",
        f'curl -H "Authorization: Bearer {BEARER}" https://api.example.com',
        "bearer token",
        BEARER,
    ),
    ("generic-api-key-hex", f"WANDB_API_KEY={WANDB_KEY}", "generic API token", WANDB_KEY),
]

NEGATIVES: list[tuple[str, str]] = [
    ("password-env-reference", "PASSWORD=${DB_PASSWORD}"),
    ("password-empty", 'password: ""'),
    ("token-shell-reference", "export TOKEN=$HF_TOKEN"),
    ("token-command-substitution", 'export HF_TOKEN="$(cat /run/secrets/hf)"'),
    ("ssh-public-key", PUBLIC_SSH),
    ("public-repo-url", "git clone https://github.com/RLinf/RLinf.git"),
    ("ray-dashboard-url", "ray job submit --address http://localhost:8265 -- python main.py"),
    ("user-at-host", "ssh root@10.0.0.5 && git clone git@github.com:RLinf/RLinf.git"),
    ("url-user-no-password", "https://alice@example.com/repo.git"),
    ("image-digest", "image: registry.example.com/rlinf/rlinf@sha256:" + "9c3f" * 16),
    ("git-commit", "git checkout 9fceb02d0ae598e95dc970b74767f19372d61af8"),
    ("uuid", "RUN_ID=123e4567-e89b-12d3-a456-426614174000"),
    ("akia-in-word", "MAKIAIOSFODNN7EXAMPLE and AKIA1234 and AKIAIOSFODNN7EXAMPLEXY"),
    ("sk-learn", "pip install sk-learn scikit-learn task-runner-abcdefghijklmnopqrstuvwxyz"),
    ("max-tokens", "max_tokens=512 max_new_tokens: 1024"),
    ("token-words", 'token_level: true\nloss_agg_func: "token-mean"\nuse_valid_token_scale: False'),
    ("secret-sauce", "secret_sauce=1"),
    ("public-key-pem", pem("PUBLIC KEY")),
    ("rsa-public-key-pem", pem("RSA PUBLIC KEY")),
    ("certificate-pem", pem("CERTIFICATE")),
    ("omegaconf-env", "endpoint: ${oc.env:OSS_ENDPOINT}\naccess_key_secret: ${oc.env:OSS_KEY}"),
    ("password-file", "password_file: /run/secrets/db\n--password-file /run/secrets/pw"),
    ("nccl-ifname", "NCCL_SOCKET_IFNAME=eth0"),
    (
        "data-uri-png",
        "icon: data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
    ),
    ("password-placeholder", "password: <password>"),
    ("api-key-words", "API_KEY=your-api-key-here\nAPI_TOKEN=REPLACE_WITH_YOUR_TOKEN"),
    ("tokenizer-special-tokens", 'pad_token: "<pad>"\neos_token: "</s>"\nunk_token: "[UNK]"'),
    ("tokenizers-parallelism", "TOKENIZERS_PARALLELISM=false"),
    ("bearer-reference", 'curl -H "Authorization: Bearer $TOKEN" https://api.example.com'),
    ("password-null-and-mask", "password: null\npasswd: '***'\nsecret_key: xxxxxxxx"),
    ("hf-transfer", "HF_HUB_ENABLE_HF_TRANSFER=1 pip install hf_transfer"),
    ("password-comparison", 'if [ "$PASSWORD" == "" ]; then exit 1; fi'),
    ("url-password-reference", "mysql://root:${DB_PASSWORD}@db:3306/rl"),
    ("sha1-digest", "sha1: da39a3ee5e6b4b0d3255bfef95601890afd80709"),
    ("secret-key-ref", "valueFrom: {secretKeyRef: {name: hf, key: token}}"),
    ("ray-start", "ray start --head --port=6379 --dashboard-host=0.0.0.0 --block"),
    (
        "env-entry-switch",
        "- name: TOKENIZERS_PARALLELISM\n  value: 'false'\n- name: HF_HUB_DISABLE_IMPLICIT_TOKEN\n  value: '1'",
    ),
    (
        "env-entry-value-from",
        "- name: HF_TOKEN\n  valueFrom:\n    secretKeyRef: {name: hf, key: token}",
    ),
    ("flag-followed-by-flag", "python eval.py --password --user admin"),
    (
        "already-redacted",
        "password=«redacted:password assignment» && curl «redacted:Slack webhook URL»",
    ),
]


def _covered(text: str) -> list[tuple[str, str]]:
    return [(h.kind, text[h.start : h.end]) for h in find_secrets(text)]


# --- find_secrets ------------------------------------------------------------------------------
def test_corpus_sizes() -> None:
    assert len(POSITIVES) >= 25 and len(NEGATIVES) >= 25
    ids = [c[0] for c in POSITIVES] + [c[0] for c in NEGATIVES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize(
    ("text", "kind", "secret"), [c[1:] for c in POSITIVES], ids=[c[0] for c in POSITIVES]
)
def test_true_positive_is_found_with_kind_and_span(text: str, kind: str, secret: str) -> None:
    assert (kind, secret) in _covered(text)


@pytest.mark.parametrize("text", [c[1] for c in NEGATIVES], ids=[c[0] for c in NEGATIVES])
def test_near_miss_is_not_flagged(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("text", "kind", "secret"), [c[1:] for c in POSITIVES], ids=[c[0] for c in POSITIVES]
)
def test_preview_never_contains_the_secret(text: str, kind: str, secret: str) -> None:
    for hit in find_secrets(text, "spec.runScript"):
        value = text[hit.start : hit.end]
        assert value not in hit.preview
        assert hit.preview.endswith(f"…({len(value)} chars)")
        assert hit.path == "spec.runScript"


@pytest.mark.parametrize(
    ("text", "kind", "secret"), [c[1:] for c in POSITIVES], ids=[c[0] for c in POSITIVES]
)
def test_redact_removes_secret_and_is_idempotent(text: str, kind: str, secret: str) -> None:
    redacted = redact(text)
    assert secret not in redacted
    assert f"«redacted:{kind}»" in redacted
    assert find_secrets(redacted) == []
    assert redact(redacted) == redacted


def test_redact_keeps_surrounding_text() -> None:
    script = f"cd /workspace/RLinf\nexport DB_PASSWORD=hunter2xyz && export HF_TOKEN={HF}\npython train.py"
    assert redact(script) == (
        "cd /workspace/RLinf\n"
        "export DB_PASSWORD=«redacted:password assignment» && "
        "export HF_TOKEN=«redacted:HuggingFace token»\n"
        "python train.py"
    )
    assert redact("nothing to see: max_tokens=512") == "nothing to see: max_tokens=512"


def test_redact_with_a_variable_name() -> None:
    assert redact("hunter2", "DB_PASSWORD") == "«redacted:password assignment»"
    assert redact("hunter2") == "hunter2"
    assert redact("eth0", "NCCL_SOCKET_IFNAME") == "eth0"
    assert redact("${DB_PASSWORD}", "DB_PASSWORD") == "${DB_PASSWORD}"
    assert redact(HF, "HF_TOKEN") == "«redacted:HuggingFace token»"


def test_redact_rendered_manifest_matches_secret_findings() -> None:
    """A job.yaml or record rendered from the manifest loses every value the check reports."""
    manifest = _manifest()
    for rendered in (json.dumps(manifest), json.dumps(manifest, indent=2)):
        redacted = redact(rendered)
        for secret in (OSS_SECRET, GHP, HF, "hunter2", "s3cret!"):
            assert secret not in redacted
        assert json.loads(redacted)["metadata"]["name"] == "grpo-math"
        assert find_secrets(redacted) == []
    block_yaml = (
        "env:\n"
        "- name: DB_PASSWORD\n"
        "  value: hunter2 with, comma\n"
        "- name: MINIO_ACCESS_KEY\n"
        "  value: 'it''s'\n"
        "- name: NCCL_SOCKET_IFNAME\n"
        "  value: eth0\n"
    )
    assert redact(block_yaml) == (
        "env:\n"
        "- name: DB_PASSWORD\n"
        "  value: «redacted:password assignment»\n"
        "- name: MINIO_ACCESS_KEY\n"
        "  value: '«redacted:generic API token»'\n"
        "- name: NCCL_SOCKET_IFNAME\n"
        "  value: eth0\n"
    )


def test_hits_carry_offsets_and_line_numbers() -> None:
    text = f"set -e\ncd /workspace\nexport AWS_ACCESS_KEY_ID={AWS_KEY_ID}\n"
    (hit,) = find_secrets(text, "spec.runScript")
    assert text[hit.start : hit.end] == AWS_KEY_ID
    assert hit.line == 3 and hit.where == "spec.runScript line 3"


@pytest.mark.parametrize(
    "text",
    [
        "password=" * 20_000,
        "a=" * 50_000,
        "https://a:" * 20_000,
        "--password " * 20_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 5_000,
        "-----BEGIN PRIVATE KEY-----\n" + ("A" * 64 + "\n") * 5_000,
    ],
    ids=["password-chain", "assign-chain", "url-chain", "flag-chain", "begin-chain", "long-pem"],
)
def test_pathological_inputs_stay_fast(text: str) -> None:
    started = time.perf_counter()
    find_secrets(text)
    assert time.perf_counter() - started < 5


def test_specific_kind_wins_over_generic_assignment() -> None:
    hits = find_secrets(f"GITHUB_TOKEN={GHP} password={GHP}")
    assert [h.kind for h in hits] == ["GitHub token", "GitHub token"]


def test_entropy_gate() -> None:
    assert shannon_entropy("") == 0.0 and shannon_entropy("aaaa") == 0.0
    assert shannon_entropy(WANDB_KEY) > 3.5 > shannon_entropy("your-api-key-here")


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("DB_PASSWORD", True),
        ("PGPASSWORD", True),
        ("HF_TOKEN", True),
        ("apiKey", True),
        ("accessKeySecret", True),
        ("MINIO_SECRET_KEY", True),
        ("client-secret", True),
        ("TOKENIZERS_PARALLELISM", False),
        ("max_tokens", False),
        ("password_file", False),
        ("OSS_ACCESS_KEY_ID", False),
        ("NCCL_SOCKET_IFNAME", False),
    ],
)
def test_looks_secret_name(name: str, secret: bool) -> None:
    """Only the name's ending counts: TOKENIZERS_PARALLELISM and password_file are not secret."""
    assert (secrets._classify_name(name) is not None) is secret


def test_rlinf_example_configs_have_no_secrets(rlinf_configs_dir: Path) -> None:
    files = [p for p in rlinf_configs_dir.rglob("*") if p.suffix in {".yaml", ".json"}]
    assert files
    flagged = {
        str(p.relative_to(rlinf_configs_dir)): [
            h.kind for h in find_secrets(p.read_text(encoding="utf-8"))
        ]
        for p in files
    }
    assert {k: v for k, v in flagged.items() if v} == {}


# --- secret_findings ---------------------------------------------------------------------------
ENV = "spec.tasks[0].template.spec.containers[0].env"
RUN_SCRIPT = f"cd /workspace/RLinf\nexport WANDB_MODE=offline\nexport OSS_ACCESS_KEY_SECRET={OSS_SECRET}\npython train.py\n"


def _manifest() -> dict[str, Any]:
    return {
        "apiVersion": "rlark.io/v1alpha1",
        "kind": "Job",
        "metadata": {
            "name": "grpo-math",
            "namespace": "default",
            "annotations": {
                "rlark.io/owner": "alice",
                "notes": f"pulled with {GHP}",
                "example.com/db-password": "s3cret!",
            },
        },
        "spec": {
            "runScript": RUN_SCRIPT,
            "sshKeys": ["alice-laptop", PUBLIC_SSH],
            "tasks": [
                {
                    "name": "header",
                    "head": True,
                    "replicas": 1,
                    "prepareScript": "source /opt/venv/bin/activate\npip install -e .",
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "main",
                                    "image": "registry.example.com/rlinf@sha256:" + "ab" * 32,
                                    "env": [
                                        {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
                                        {"name": "DB_PASSWORD", "value": "hunter2"},
                                        {"name": "HF_TOKEN", "value": HF},
                                        {"name": "WANDB_API_KEY", "value": "$(WANDB_API_KEY)"},
                                        {"name": "TOKENIZERS_PARALLELISM", "value": "false"},
                                        {"name": "HF_HUB_DISABLE_IMPLICIT_TOKEN", "value": "1"},
                                        {"name": "S3_SECRET_KEY", "value": ""},
                                        {
                                            "name": "MINIO_SECRET_KEY",
                                            "valueFrom": {
                                                "secretKeyRef": {"name": "minio", "key": "secret"}
                                            },
                                        },
                                    ],
                                    "resources": {"limits": {"nvidia.com/gpu": 8}},
                                }
                            ]
                        }
                    },
                }
            ],
        },
    }


def test_secret_findings_paths_and_messages() -> None:
    findings = secret_findings(_manifest())
    by_path = {f.path: f for f in findings}
    assert sorted(by_path) == sorted(
        [
            "metadata.annotations.notes",
            'metadata.annotations["example.com/db-password"]',
            "spec.runScript",
            f"{ENV}[1].value",
            f"{ENV}[2].value",
        ]
    )
    assert len(findings) == len(by_path)
    for f in findings:
        assert f.rule_id == "SEC-SECRET" and f.severity is Severity.ERROR
        assert f.fix_text == SECRET_FIX and f.source == SECRET_SOURCE
    assert "line 3" in by_path["spec.runScript"].message
    assert "object-storage secret" in by_path["spec.runScript"].message
    assert "GitHub token" in by_path["metadata.annotations.notes"].message
    assert "password assignment" in by_path[f"{ENV}[1].value"].message
    assert "DB_PASSWORD" in by_path[f"{ENV}[1].value"].message
    assert "HuggingFace token" in by_path[f"{ENV}[2].value"].message


def test_secret_findings_never_echo_secrets() -> None:
    rendered = json.dumps([f.to_dict() for f in secret_findings(_manifest())], ensure_ascii=False)
    for secret in (OSS_SECRET, GHP, HF, "hunter2", "s3cret!"):
        assert secret not in rendered


def test_secret_findings_clean_manifest() -> None:
    manifest = _manifest()
    manifest["metadata"]["annotations"] = {"rlark.io/owner": "alice"}
    manifest["spec"]["runScript"] = "cd /workspace/RLinf\npython train.py"
    manifest["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "NCCL_SOCKET_IFNAME", "value": "eth0"},
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}},
        {"name": "DB_PASSWORD", "value": "${DB_PASSWORD}"},
    ]
    assert secret_findings(manifest) == []


def test_numeric_env_value_under_secret_name() -> None:
    manifest = {"spec": {"env": [{"name": "PASSWORD", "value": 123456}]}}
    (finding,) = secret_findings(manifest)
    assert finding.path == "spec.env[0].value" and "123456" not in finding.message


# --- ssh_key_findings --------------------------------------------------------------------------
def test_ssh_public_keys_and_names_pass() -> None:
    keys = [
        "alice-laptop",
        PUBLIC_SSH,
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob@ci",
        "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTY carol",
    ]
    assert ssh_key_findings(keys) == []


@pytest.mark.parametrize(
    "private", [OPENSSH_KEY, RSA_KEY, PKCS8_TRUNCATED], ids=["openssh", "rsa", "pkcs8"]
)
def test_ssh_private_key_is_an_error(private: str) -> None:
    (finding,) = ssh_key_findings(["alice-laptop", private], path="spec.sshKeys")
    assert finding.rule_id == "SEC-SSH-PRIVATE" and finding.severity is Severity.ERROR
    assert finding.path == "spec.sshKeys[1]"
    assert _KEY_BODY.splitlines()[0] not in finding.message
    assert private not in finding.message
