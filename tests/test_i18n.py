"""Every message exists in English and Chinese, with the same placeholders (issue #7).

Messages are ``Text("English template", **values)`` calls in the package; the Chinese lives in
``rlark_widgets/i18n/zh/*.yaml``. The scan below reads the source, so a message added in one
language only fails here before any user sees it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

import rlark_widgets
from rlark_widgets.i18n import (
    LANGUAGES,
    Text,
    catalogue,
    catalogue_files,
    normalize_language,
    placeholders,
)

PACKAGE = Path(rlark_widgets.__file__).parent
CJK = re.compile(r"[\u4e00-\u9fff]")


def _text_calls() -> list[tuple[str, int, ast.Call]]:
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Text":
                calls.append((str(path.relative_to(PACKAGE)), node.lineno, node))
    return calls


CALLS = _text_calls()


def _templates() -> dict[str, str]:
    """English template -> where it is used."""
    found: dict[str, str] = {}
    for where, line, call in CALLS:
        first = call.args[0] if call.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.setdefault(first.value, f"{where}:{line}")
    return found


def test_every_text_is_a_literal_template():
    """An f-string or a variable as template could not be looked up in the catalogue."""
    bad = [
        f"{where}:{line}"
        for where, line, call in CALLS
        if not (
            len(call.args) == 1
            and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)
        )
    ]
    assert not bad, f"Text() needs one literal English template (values as keywords): {bad}"


def test_every_template_formats_only_its_keywords():
    bad = []
    for where, line, call in CALLS:
        template = call.args[0].value
        given = {k.arg for k in call.keywords}
        if None in given:  # **values: checked at render time by the sweep tests
            continue
        if placeholders(template) != given:
            bad.append(f"{where}:{line}: {sorted(placeholders(template))} vs {sorted(given)}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_message_exists_in_every_language(lang):
    translated = catalogue(lang)
    missing = {t: where for t, where in _templates().items() if t not in translated}
    assert not missing, f"{len(missing)} messages have no {lang} text:\n" + "\n".join(
        f"  {where}: {t!r}" for t, where in sorted(missing.items(), key=lambda kv: kv[1])
    )


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_no_translation_without_its_english_message(lang):
    """A translation whose English text changed or vanished is dead and would drift."""
    used = _templates()
    dead = [en for en in catalogue(lang) if en not in used]
    assert not dead, f"{len(dead)} {lang} entries match no message in the code: {dead[:10]}"


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_translations_keep_placeholders_and_are_translated(lang):
    bad = []
    for en, other in catalogue(lang).items():
        if not isinstance(other, str) or not other.strip():
            bad.append(f"empty: {en!r}")
        elif placeholders(en) != placeholders(other):
            bad.append(f"placeholders differ: {en!r} -> {other!r}")
        elif lang == "zh" and not CJK.search(other):
            bad.append(f"not Chinese: {en!r} -> {other!r}")
    assert not bad, "\n".join(bad)


def test_catalogue_files_are_lists_of_pairs():
    for lang in LANGUAGES[1:]:
        for path in catalogue_files(lang):
            entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
            assert isinstance(entries, list), path.name
            for entry in entries:
                assert set(entry) == {"en", lang}, (path.name, entry)


def test_text_renders_nested_values_in_the_same_language():
    inner = Text("Worker")
    assert Text("{what} is ready", what=inner).render("en") == "Worker is ready"
    assert str(Text("{n} GPUs", n=8)) == "8 GPUs"


def test_missing_translation_names_the_message():
    with pytest.raises(KeyError, match="no zh translation for message 'not in any catalogue'"):
        Text("not in any catalogue").render("zh")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("zh_CN.UTF-8", "zh"),
        ("zh-TW", "zh"),
        ("en_US", "en"),
        ("fr", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_language_names_are_normalised(value, expected):
    assert normalize_language(value) == expected
