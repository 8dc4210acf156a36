"""Small HTML renderers shared by the views (no logic beyond presentation).

Every value reaches the page through :func:`esc`, our own tags go around it.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Sequence

from ..findings import Finding, Severity
from ..i18n import Text, render
from ..visible_text import visible

SEVERITY_NAMES = {
    Severity.ERROR: Text("error"),
    Severity.WARNING: Text("warning"),
    Severity.INFO: Text("info"),
}

CSS = """
<style>
.rlk { font-family: Inter, 'Segoe UI', Helvetica, Arial, sans-serif; font-size: 13px; }
.rlk table { border-collapse: collapse; margin: 4px 0 8px; }
.rlk th, .rlk td { padding: 3px 10px; border-bottom: 1px solid rgba(127,127,127,.25); text-align: left; }
.rlk th { font-weight: 600; }
.rlk .sev { display: inline-block; min-width: 58px; padding: 1px 6px; border-radius: 8px; color: white;
            font-size: 11px; text-align: center; margin-right: 6px; }
.rlk .error { background: #C25500; } .rlk .warning { background: #9E6C00; } .rlk .info { background: #0072B2; }
.rlk .path { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; opacity: .8; }
.rlk .fix { margin: 0 0 6px 70px; opacity: .85; }
.rlk .banner { padding: 8px 12px; border-radius: 6px; margin: 6px 0; }
.rlk .banner.bad { background: rgba(213,94,0,.15); border-left: 4px solid #D55E00; }
.rlk .banner.good { background: rgba(0,158,115,.15); border-left: 4px solid #009E73; }
.rlk .banner.note { background: rgba(0,114,178,.12); border-left: 4px solid #0072B2; }
.rlk pre.yaml { max-height: 75vh; overflow: auto; padding: 8px 10px; border-radius: 6px;
                background: rgba(127,127,127,.10); font-size: 12px; line-height: 1.35;
                font-family: ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace; }
.rlk .log { height: 260px; overflow: auto; display: flex; flex-direction: column-reverse;
            border-radius: 6px; background: rgba(127,127,127,.10); }
.rlk .log pre { margin: 0; padding: 8px 10px; font-size: 12px; line-height: 1.35; white-space: pre-wrap;
                font-family: ui-monospace, Menlo, Consolas, 'DejaVu Sans Mono', monospace; }
.rlk .k { color: #0072B2; } .rlk .s { color: #009E73; } .rlk .c { opacity: .6; }
/* A disabled button looks disabled: the widgets' own opacity left a coloured Submit, Stop or
   Delete looking clickable. */
.jupyter-button:disabled, .widget-button:disabled { opacity: .38 !important; filter: grayscale(.8);
            cursor: not-allowed !important; box-shadow: none !important; }
</style>
"""


def esc(value: object) -> str:
    """``value`` as HTML text: markup escaped, invisible characters (bidi overrides, zero-width
    spaces, controls) shown as escapes, as on the terminal."""
    return html.escape(visible(str(value)))


def sentences(parts: Sequence[str], lang: str) -> str:
    """Sentences one after another: Chinese ones end in 。 and take no space between them."""
    return ("" if lang == "zh" else " ").join(parts)


def table(headers: Sequence[Text | str], rows: Iterable[Sequence[object]], lang: str = "en") -> str:
    head = "".join(f"<th>{esc(render(h, lang))}</th>" for h in headers)
    cells = ("".join(f"<td>{esc(render(c, lang))}</td>" for c in row) for row in rows)
    body = "".join(f"<tr>{row}</tr>" for row in cells)
    return f"<div class='rlk'><table><tr>{head}</tr>{body}</table></div>"


def banner(text: str, kind: str = "note") -> str:
    return f"<div class='rlk'><div class='banner {kind}'>{esc(text)}</div></div>" if text else ""


def findings_html(
    findings: Sequence[Finding],
    severities: Sequence[Severity] = tuple(Severity),
    lang: str = "en",
) -> str:
    """Findings of ``severities`` with their field and fix, in ``lang``."""
    order = list(Severity)  # errors, then warnings, then infos
    chosen = sorted(
        (f for f in findings if f.severity in severities), key=lambda f: order.index(f.severity)
    )
    if not chosen:
        return f"<div class='rlk'><i>{esc(Text('No findings.').render(lang))}</i></div>"
    return "<div class='rlk'>" + "".join(_finding_html(f, lang) for f in chosen) + "</div>"


def _finding_html(f: Finding, lang: str) -> str:
    severity = SEVERITY_NAMES[f.severity].render(lang)
    fix = f.fix_in(lang)
    return (
        f"<div><span class='sev {f.severity.value}'>{esc(severity)}</span>"
        f"<b>{esc(f.rule_id)}</b> <span class='path'>{esc(f.path)}</span><br>"
        f"{esc(f.message_in(lang))}</div>"
        + (f"<div class='fix'>{esc(Text('Fix: {fix}', fix=fix).render(lang))}</div>" if fix else "")
    )


def yaml_html(text: str) -> str:
    """Read-only YAML with light highlighting (keys, strings, comments)."""
    lines = []
    for line in esc(text).splitlines():
        line = re.sub(r"^(\s*-?\s*)([\w./-]+)(:)", r"\1<span class='k'>\2</span>\3", line)
        line = re.sub(r"(^|\s)(#.*)$", r"\1<span class='c'>\2</span>", line)
        lines.append(line)
    return "<div class='rlk'><pre class='yaml'>" + "\n".join(lines) + "</pre></div>"


def log_html(text: str) -> str:
    """A log box that stays scrolled to its newest line (a reversed flex column keeps its
    scroll anchored at the bottom as lines arrive), unless the reader scrolled up."""
    return f"<div class='rlk'><div class='log'><pre>{esc(text)}</pre></div></div>"


def download_link(text: str, filename: str, label: str) -> str:
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (
        f"<a download='{esc(filename)}' href='data:text/yaml;base64,{data}' "
        f"style='margin-right:12px'>{esc(label)}</a>"
    )


def copy_button(text: str, label: str) -> str:
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (
        f"<button class='jupyter-button' onclick=\"navigator.clipboard.writeText(decodeURIComponent(escape(atob('{data}'))))\">"
        f"{esc(label)}</button>"
    )
