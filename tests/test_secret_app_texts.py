"""No secret reaches the app's own texts (issue #23, class 3), driven through the Session.

The CLI's texts leave through one redacted terminal (tests/test_secret_exits.py); the app's are
published by the Session (traits the views show) and by the page's widgets. Hypothesis plants
every detector family of test_secret_exits, each in a field the app lets a user write (the
uploaded config, its overrides, the Job form's image, prepare and run script, a role's env, and
a role's env typed wrongly so that the error quotes it), and asserts the value appears in no
Session text (error, status, notice, Job YAML, KubeRay YAML of both kinds, findings and export
findings in English and Chinese, the console sheet, the admin request) and in no widget value
of the whole page (every step's summary, table and note, after the language toggle too), but the
editors' own values: what the user typed, shown back to them in the field they typed it into.
"""

from __future__ import annotations

from pathlib import Path

import ipywidgets as w
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_secret_exits import CONFIG, EXAMPLES, IMAGE, Planted, _families

from rlark_widgets.rlark.build import JobSettings
from rlark_widgets.rlark.kuberay.schema import KINDS
from rlark_widgets.ui.app import App
from rlark_widgets.ui.session import Session

APP_FIELDS = ["config", "override", "image", "prepare", "run-script", "role-env", "typed-wrong"]


@st.composite
def app_plantings(draw: st.DrawFn) -> list[tuple[Planted, str]]:
    """Every family once, each in a field of the app drawn for it (the image field takes only
    an image reference)."""
    chosen = []
    for family in _families():
        planted = draw(family)
        fields = [f for f in APP_FIELDS if f != "image" or planted.family == "image"]
        chosen.append((planted, draw(st.sampled_from(fields))))
    return chosen


def _typed(session: Session, plantings: list[tuple[Planted, str]]) -> None:
    """The plantings as a user types them, in the order the app's steps come."""
    config = {p.name: p.value for p, field in plantings if field == "config"}
    session.overrides_text = "\n".join(
        f"+secrets.{p.name}='{p.value}'" for p, field in plantings if field == "override"
    )
    text = CONFIG + (yaml.safe_dump({"secrets": config}) if config else "")
    assert session.load_upload("cfg.yaml", text.encode()), session.error
    for planted, field in plantings:
        if field == "image":
            session.set_job_field("image", planted.value)
        elif field == "prepare":
            session.set_job_field("prepare_script", planted.command)
        elif field == "run-script":
            session.set_job_field("run_script", f"cd /workspace/RLinf\n{planted.command}\n")
        elif field == "role-env":
            session.set_role_text(0, "env", f"{planted.name}={planted.value}")
        elif field == "typed-wrong":  # no name before '=': the error quotes the whole item
            assert not session.set_role_text(0, "env", f"={planted.command}")


def _session_texts(session: Session) -> list[str]:
    texts = [session.error, session.status, session.notice, session.job_yaml]
    for lang in ("en", "zh"):
        session.set_language(lang)
        texts += [session.error, session.status, session.notice]
        texts += [session.console_sheet_html(), session.admin_request_text()]
        texts += [f"{f.path} {f.message_in(lang)} {f.fix_in(lang)}" for f in session.findings]
    for kind in KINDS:
        session.set_export_format(kind)
        texts.append(session.export_yaml)
        texts += [
            f"{f.path} {f.message_in(lang)} {f.fix_in(lang)}"
            for f in session.export_findings
            for lang in ("en", "zh")
        ]
    return texts


def _is_editor(widget: object) -> bool:
    """A field the user types into: its value is their own text, shown back to them."""
    return isinstance(widget, w.Text | w.Textarea | w.Combobox) and not widget.disabled


def _widget_values(widget: object) -> list[str]:
    """Every string a widget shows (but what the user typed into an editor), its children's
    and its tabs' titles included."""
    values = []
    names = ("description", "placeholder", "tooltip") if _is_editor(widget) else ("value",
             "description", "placeholder", "tooltip")  # fmt: skip
    for name in names:
        value = getattr(widget, name, None)
        if isinstance(value, str):
            values.append(value)
    if isinstance(widget, w.Tab | w.Accordion):
        values += [str(t) for t in widget.titles]
    for child in getattr(widget, "children", ()) or ():
        values += _widget_values(child)
    return values


@pytest.mark.slow  # over 5 s: make test runs it, make check leaves it out
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(planted=app_plantings())
def test_no_family_s_secret_reaches_any_text_the_app_publishes(planted) -> None:
    session = Session(workspace=Path("/nonexistent-workspace"))
    session.settings = JobSettings(image=IMAGE)
    app = App(session)
    _typed(session, planted)
    texts = _session_texts(session)
    for lang in ("zh", "en"):
        session.set_language(lang)
        texts += _widget_values(app.widget)
    everything = "\n".join(texts)
    assert "Traceback" not in everything
    leaked = [(p.family, field) for p, field in planted if p.secret in everything]
    assert not leaked, leaked


#: Names whose value is a secret by the name alone (no shape needed), typed into a count field.
SECRET_NAMES = ("ak", "sk", "auth", "password", "db_pwd", "aws_secret_access_key", "SECRET_KEY")
random_values = st.text(
    alphabet="ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789/+", min_size=12, max_size=40
).filter(lambda value: not value.isdigit())  # digits are a count


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(SECRET_NAMES), value=random_values)
def test_a_secret_typed_as_a_count_is_not_echoed_by_the_error(name: str, value: str) -> None:
    """An error that reads typed text as NAME=COUNT quotes the item whole, so a secret typed
    there keeps its name beside it, where the one redaction finds it: a bare random value with
    no shape of its own leaves no message, in either language."""
    session = Session(workspace=Path("/nonexistent-workspace"))
    session.settings = JobSettings(image=IMAGE)
    assert session.load_example("realworld_peginsertion_rlpd_cnn_async_2arms"), session.error
    for lang in ("en", "zh"):
        session.set_language(lang)
        assert not session.set_role_text(1, "devices", f"{name}={value}")
        assert session.error and value not in session.error, session.error
        assert name in session.error  # the item is named, its value redacted
