"""The one mapping from failures to words (issue #23, class 6), and the boundaries that use it.

``failures.explain`` must have words (in both languages, with a fix) for every OS error kind,
every urllib3 error, every API status; the CLI's ``main`` and the app's ``Session._guard`` turn
what escapes a command or an action into those words, never a traceback.
"""

from __future__ import annotations

import errno
import os
from functools import partial
from pathlib import Path

import pytest
import urllib3
from hypothesis import given
from hypothesis import strategies as st
from kubernetes.client.exceptions import ApiException
from test_cli_bad_input import _within
from test_cli_jobs import cli

from rlark_widgets.cli import job_cmds
from rlark_widgets.failures import FAILURES, explain, interrupted_submit
from rlark_widgets.i18n import LANGUAGES, Text, render
from rlark_widgets.ui.session import Session

CJK = "\u4e00-\u9fff"


def _said(text: Text | str, lang: str) -> str:
    shown = render(text, lang)
    assert shown.strip() and "Traceback" not in shown
    return shown


def _network_errors() -> st.SearchStrategy[urllib3.exceptions.HTTPError]:
    reasons = st.sampled_from(
        [
            "Connection broken: IncompleteRead(10 bytes read, 90 more expected)",
            "Remote end closed connection without response",
            "Connection refused",
        ]
    )
    return st.one_of(
        reasons.map(urllib3.exceptions.ProtocolError),
        reasons.map(lambda r: urllib3.exceptions.ReadTimeoutError(None, "/api", r)),  # type: ignore[arg-type]
        reasons.map(lambda r: urllib3.exceptions.NewConnectionError(None, r)),  # type: ignore[arg-type]
        reasons.map(lambda r: urllib3.exceptions.MaxRetryError(None, "/api", OSError(r))),  # type: ignore[arg-type]
        reasons.map(urllib3.exceptions.SSLError),
        reasons.map(urllib3.exceptions.DecodeError),
    )


@given(
    number=st.sampled_from(sorted(errno.errorcode)),
    filename=st.one_of(st.none(), st.sampled_from(["/tmp/x.yaml", "配置.yaml", "a b/c"])),
    lang=st.sampled_from(LANGUAGES),
)
def test_every_os_error_has_words_and_a_fix_that_name_the_path(number, filename, lang) -> None:
    exc = OSError(number, os.strerror(number), filename)  # OSError picks the subclass by errno
    explained = explain(exc)
    assert explained is not None and isinstance(exc, FAILURES)
    text = _said(explained.text, lang)
    assert _said(explained.fix_text, lang)
    if filename is not None and not isinstance(exc, ConnectionError | TimeoutError):
        assert filename in text  # a network error is about its peer, not a file


@given(exc=_network_errors(), lang=st.sampled_from(LANGUAGES))
def test_every_network_error_has_words_and_a_fix(exc, lang) -> None:
    explained = explain(exc)
    assert explained is not None and isinstance(exc, FAILURES)
    assert _said(explained.text, lang) and _said(explained.fix_text, lang)


@given(status=st.integers(0, 599), lang=st.sampled_from(LANGUAGES))
def test_every_api_status_has_words_naming_it_and_a_fix(status: int, lang: str) -> None:
    explained = explain(ApiException(status=status, reason="Because"))
    assert explained is not None
    assert str(status) in _said(explained.text, lang) and _said(explained.fix_text, lang)


@pytest.mark.parametrize(
    ("exists", "said"),
    [
        (lambda: True, "but the Job exists on the cluster (read back just now): it was created."),
        (lambda: False, "the Job does not exist on the cluster (read back just now)"),
        (lambda: (_ for _ in ()).throw(TimeoutError()), "cannot be read back now"),
    ],
)
def test_an_interrupted_submit_says_what_the_read_back_found(exists, said: str) -> None:
    explained = interrupted_submit("demo", "no answer", exists, "rlark-migrate status demo")
    assert said in explained.text.render()
    assert "的提交被中断了" in explained.text.render("zh")


def test_the_cli_boundary_words_what_escapes_a_command(monkeypatch, capsys) -> None:
    """An OS failure no command expected ends in the mapping's words and exit code 1."""

    def escaping(args):
        raise PermissionError(errno.EACCES, "Permission denied", "/srv/rlark/jobs")

    monkeypatch.setattr(job_cmds, "run_list", escaping)
    code, out, err = cli(capsys, "list", "--lang", "zh")
    assert code == 1 and "Traceback" not in out + err
    assert err.startswith("错误：无法打开 /srv/rlark/jobs：权限不足。"), err
    assert "ls -l" in err


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_the_app_words_a_path_that_is_no_file(kind: str, tmp_path: Path) -> None:
    """The app's boundary: a site, inventory or config path that is a directory or a FIFO is
    an error naming it, at once (a FIFO is never waited on), and nothing typed is lost."""
    path = tmp_path / kind
    path.mkdir() if kind == "directory" else os.mkfifo(path)
    s = Session(workspace=tmp_path / "workspace")
    assert s.load_example("maniskill_ppo_openvlaoft"), s.error
    before = s.job_yaml
    for act in (s.set_site, s.set_inventory, s.load_path):
        assert _within(10, partial(act, str(path))) is False, act.__name__  # never waits
        assert str(path) in s.error and "Traceback" not in s.error, s.error
        assert s.job_yaml == before
