"""Widget attributes that show messages, set in the session's language and re-set on a toggle.

A view binds each label once (``labels(widget, description=Text(...))``); switching the
language re-applies every binding to the same widgets, so nothing typed, selected or drawn is
lost, and no view rebuilds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import ipywidgets as w

from ..i18n import Text, render
from .html import esc
from .session import Session

Message = Text | str | Callable[[str], Any]  # a callable builds the value from the language
Options = Sequence[tuple[Message, Any]]
W = TypeVar("W", bound=w.Widget)


def show(message: Message, lang: str) -> Any:
    """A message in ``lang`` (a callable is given the language)."""
    return message(lang) if callable(message) else render(message, lang)


class Labels:
    """The label bindings of one view.

    Selection widgets get their option labels in the language with the same selection kept.
    ipywidgets selects the first option whenever options change, which would act as a click,
    so observers added through :meth:`on` stay quiet while labels are re-applied.
    """

    def __init__(self, session: Session, follow: bool = True) -> None:
        """``follow``: re-apply on every language change (views whose widgets live as long)."""
        self.s = session
        self._bound: list[tuple[w.Widget, dict[str, Message | Options]]] = []
        self._relabelling = False
        if follow:
            session.observe(lambda _: self.apply(), ["lang"])

    def __call__(self, widget: W, **attrs: Message | Options) -> W:
        """Bind ``attrs`` (``description=Text(...)``, ``options=[(Text(...), value)]``, ...)."""
        self._bound.append((widget, attrs))
        self._set(widget, attrs)
        return widget

    def choice(
        self, cls: type[W], options: Options, value: Any, description: Message, **kwargs: Any
    ) -> W:
        """A selection widget whose option labels (and description) follow the language."""
        lang = self.s.lang
        shown = [(show(m, lang), v) for m, v in options]
        widget: W = cls(options=shown, value=value, **kwargs)
        return self(widget, options=options, description=description)

    def heading(self, message: Message, tag: str = "h3") -> w.HTML:
        return self(w.HTML(), value=lambda lang: f"<{tag}>{esc(show(message, lang))}</{tag}>")

    def on(
        self, widget: w.Widget, handler: Callable[[dict[str, Any]], Any], name: str = "value"
    ) -> None:
        """Observe ``name`` of ``widget``, except while labels are being re-applied."""
        widget.observe(lambda change: None if self._relabelling else handler(change), name)

    def apply(self) -> None:
        for widget, attrs in self._bound:
            self._set(widget, attrs)

    def clear(self) -> None:
        self._bound = []

    def _set(self, widget: w.Widget, attrs: dict[str, Message | Options]) -> None:
        lang = self.s.lang
        with widget.hold_sync():
            for name, message in attrs.items():
                if name == "options":
                    options = cast(Options, message)
                    self._relabel(widget, [(show(m, lang), v) for m, v in options])
                else:
                    setattr(widget, name, show(cast(Message, message), lang))

    def _relabel(self, widget: w.Widget, options: list[tuple[str, Any]]) -> None:
        if [tuple(o) for o in widget.options] == options:
            return
        value, self._relabelling = widget.value, True
        try:
            widget.options = options
            widget.value = value
        finally:
            self._relabelling = False
