"""English and Chinese for every message the assistant shows.

Messages are written in English in the code, as ``Text("Role '{role}' has {count} Workers.",
role=..., count=...)``: the English template is the message's identity (its msgid, as in
gettext), so the code stays readable and grep finds a message from what the user saw. The
Chinese templates live in ``zh/*.yaml`` (one file per area, a list of ``{en, zh}`` pairs).
A message is rendered only when it is shown, in the language the reader chose
(the app's toggle, the CLI's ``--lang``, ``$RLARK_LANG``); core objects keep :class:`Text`.
``tests/test_i18n.py`` fails when a message exists in one language only.
"""

from __future__ import annotations

import os
import string
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources

import yaml

LANGUAGES = ("en", "zh")
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}


class Text:
    """A message template and its values, rendered late in the reader's language.

    Values that are themselves :class:`Text` render in the same language, so a message can
    quote another (a plan rejected *because of* an RLinf error).
    """

    __slots__ = ("template", "params")

    def __init__(self, template: str, /, **params: object) -> None:
        self.template = template
        self.params = params

    def render(self, lang: str = "en") -> str:
        template = self.template if lang == "en" else translation(self.template, lang)
        values = {k: render(v, lang) for k, v in self.params.items()}
        return template.format(**values) if values or "{" in template else template

    def with_values(self, params: Mapping[str, object]) -> Text:
        """The same message with other values (redaction replaces values, never templates)."""
        copy = Text.__new__(Text)
        copy.template, copy.params = self.template, dict(params)
        return copy

    def __str__(self) -> str:
        return self.render("en")

    def __repr__(self) -> str:
        return f"Text({self.render('en')!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Text):
            return self.template == other.template and self.params == other.params
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.template)  # equal Texts share a template; values may be unhashable


class Listing(Text):
    """Messages shown as one list (node reasons, preflight errors), each in the reader's language."""

    __slots__ = ()
    #: Chinese punctuation for the English separators.
    ZH_SEPARATORS = {"; ": "；", ", ": "，"}

    def __init__(self, items: Iterable[Text | str], sep: str = "; ") -> None:
        super().__init__(sep, items=tuple(items))  # the separator stands in for a template

    def render(self, lang: str = "en") -> str:
        sep = (
            self.ZH_SEPARATORS.get(self.template, self.template) if lang == "zh" else self.template
        )
        items: Iterable[object] = self.params["items"]  # type: ignore[assignment]
        return sep.join(render(item, lang) for item in items)


class Rendered(Text):
    """A message rendered in every language where its values were known (a process that wrote
    it to a file), read back elsewhere: ``renderings`` maps a language to its text."""

    __slots__ = ()

    def __init__(self, renderings: Mapping[str, str]) -> None:
        super().__init__(str(renderings.get("en", "")), renderings=dict(renderings))

    def render(self, lang: str = "en") -> str:
        renderings: Mapping[str, str] = self.params["renderings"]  # type: ignore[assignment]
        return renderings.get(lang) or self.template


class TextError(Exception):
    """An error a user can act on, worded as :class:`Text` so any display can pick the language.

    ``str()`` is the English; ``.text`` and ``.fix_text`` keep the messages for the display, or
    for a caller that wraps this error in its own and quotes it.
    """

    def __init__(self, text: Text, fix_text: Text | str = "") -> None:
        if not isinstance(text, Text) or not isinstance(fix_text, Text | str):
            raise TypeError("an error's message and fix must be Text (one language is not enough)")
        super().__init__(text.render())
        self.text, self.fix_text = text, fix_text

    @property
    def message(self) -> str:
        return self.text.render()

    @property
    def fix(self) -> str:
        return render(self.fix_text)


def render(value: object, lang: str = "en") -> str:
    """Any message-like value as text: :class:`Text` in ``lang``, anything else by ``str``."""
    return value.render(lang) if isinstance(value, Text) else str(value)


def normalize_language(value: str | None) -> str:
    """``zh_CN.UTF-8`` -> ``zh``; anything unknown -> ``en``."""
    code = (value or "").split(".")[0].replace("-", "_").split("_")[0].lower()
    return code if code in LANGUAGES else "en"


def default_language() -> str:
    """$RLARK_LANG if set, else English (the locale is not guessed: output must be stable)."""
    return normalize_language(os.environ.get("RLARK_LANG"))


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template formats, so both languages can be checked to agree."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def catalogue_files(lang: str) -> Iterable[resources.abc.Traversable]:
    folder = resources.files(__package__) / lang
    return sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    """English template -> template in ``lang``, merged over the area files."""
    merged: dict[str, str] = {}
    for path in catalogue_files(lang):
        for entry in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            if entry["en"] in merged:
                raise ValueError(f"{path.name}: message translated twice: {entry['en']!r}")
            merged[entry["en"]] = entry[lang]
    return merged


def translation(template: str, lang: str) -> str:
    """The template in ``lang``; a missing one is a bug that tests/test_i18n.py catches."""
    try:
        return catalogue(lang)[template]
    except KeyError:
        raise KeyError(f"no {lang} translation for message {template!r}") from None
