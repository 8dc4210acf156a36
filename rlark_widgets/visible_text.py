"""Characters that change what a reader sees without being seen, and their visible form.

A value a user (or a config someone sent them) wrote can carry an ESC sequence that hides or
recolours what follows (``\\x1b[8m`` conceals every finding after an image name), a carriage
return or backspace that overwrites a line, or a bidi override that shows ``exe.txt`` for
``txt.exe``. Each such character is replaced by its escape (``\\x1b``, ``\\u202e``), never
dropped: what was written stays readable, and nothing it contains acts on the terminal.

The class, decided once here (docs/architecture.md, "Output cannot lie"):

- control characters (Unicode ``Cc``) but newline and tab: C0, DEL and C1 (with ESC gone, no
  escape sequence can start; C1 ``\\x9b`` is a one-byte CSI on some terminals);
- format characters (``Cf``): bidi embeddings, overrides and isolates (U+202A-U+202E,
  U+2066-U+2069), the marks U+200E/U+200F/U+061C, zero-width space U+200B, word joiner U+2060,
  BOM U+FEFF, soft hyphen, tag characters; but zero-width non-joiner and joiner (U+200C,
  U+200D), which only join their neighbours (emoji, Persian, Indic scripts) and hide nothing;
- line and paragraph separators (U+2028, U+2029) and lone surrogates (a file name read with
  ``surrogateescape``; printing one would raise).

A backslash is not escaped: ``C:\\data`` stays as written, so a literal ``\\x1b`` typed by the user
reads the same as an escaped ESC (both are shown, neither acts).
"""

from __future__ import annotations

import re

KEPT = frozenset("\n\t\u200c\u200d")
CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))

# Every code point of CATEGORIES but KEPT, in Unicode 14.0 (Python 3.11's unicodedata); spelled
# out so that importing costs nothing, and tests/test_output_escaping.py fails if Unicode data
# ever adds one that is missing here.
INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891"
    "\u08e2\u180e\u200b\u200e-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def escape_of(char: str) -> str:
    """``\\x1b``, ``\\u202e`` or ``\\U000e0041``: how Python writes the character in a string."""
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def has_invisible(text: str) -> bool:
    return INVISIBLE.search(text) is not None


def visible(text: str) -> str:
    """``text`` with every character of the class above replaced by its escape."""
    return INVISIBLE.sub(lambda m: escape_of(m.group()), text)
