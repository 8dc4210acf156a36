"""The console sheet as Markdown or as a self-contained HTML page, in Chinese or English.

Every value is its own block (a fenced block in Markdown, a ``<pre>`` with a copy button in
HTML), so each can be copied into its console field alone; the findings on a field sit beside
it, and Step 4's checklist items are ticked or flagged.
"""

from __future__ import annotations

import base64
import html

from ..findings import Finding, Severity
from ..i18n import Text, render
from .sheet import STEP_TITLES, CheckItem, ConsoleSheet, Label, SheetField

SEVERITY = {
    Severity.ERROR: Text("error"),
    Severity.WARNING: Text("warning"),
    Severity.INFO: Text("info"),
}
TITLE: Label = ("控制台填写单", "Console sheet")


def label(pair: Label, lang: str) -> str:
    """The console's own label; in English, the English name with the console label after it."""
    console, english = pair
    return console if lang == "zh" or console == english else f"{english} ({console})"


def _finding_line(finding: Finding, lang: str) -> str:
    severity = SEVERITY[finding.severity].render(lang)
    fix = finding.fix_in(lang)
    text = f"[{severity}] {finding.rule_id} ({finding.path}): {finding.message_in(lang)}"
    return text + (" " + Text("Fix: {fix}", fix=fix).render(lang) if fix else "")


def _empty(sheet_field: SheetField, lang: str) -> str:
    return (sheet_field.empty or Text("(leave empty)")).render(lang)


def _heading(sheet: ConsoleSheet, lang: str) -> list[str]:
    return [
        Text("{title}: Job {job}", title=label(TITLE, lang), job=sheet.job).render(lang),
        render(sheet.site.provenance(), lang),
    ]


def _section_title(title: Label, role: str | None, lang: str) -> str:
    name = label(title, lang)
    return name if role is None else Text("{step}: role {role}", step=name, role=role).render(lang)


def to_markdown(sheet: ConsoleSheet, lang: str = "en") -> str:
    """The sheet as Markdown: one fenced block per value, findings as a list under the field."""
    first, provenance = _heading(sheet, lang)
    out = [f"# {first}", "", f"> {provenance}", ""]
    for section in sheet.sections:
        out += [f"## {_section_title(section.title, section.role, lang)}", ""]
        for sheet_field in section.fields:
            out += _field_markdown(sheet_field, lang)
    out += [f"## {label(STEP_TITLES[3], lang)}", ""]
    for item in sheet.checklist:
        out += _item_markdown(item, lang)
    if sheet.other:
        out += ["", f"### {Text('Other findings').render(lang)}", ""]
        out += [f"- {_finding_line(f, lang)}" for f in sheet.other]
    return "\n".join(out).rstrip() + "\n"


def _field_markdown(sheet_field: SheetField, lang: str) -> list[str]:
    out = [f"**{label(sheet_field.label, lang)}**", ""]
    if sheet_field.note is not None:
        out += [f"*{sheet_field.note.render(lang)}*", ""]
    if not sheet_field.values:
        out += [_empty(sheet_field, lang), ""]
    for value in sheet_field.values:
        fence = "````" if "```" in value else "```"
        out += [f"{fence}text", value.rstrip("\n"), fence, ""]
    out += [f"- {_finding_line(f, lang)}" for f in sheet_field.findings]
    return out + ([""] if sheet_field.findings else [])


def _item_markdown(item: CheckItem, lang: str) -> list[str]:
    mark = "x" if item.checked else " "
    out = [f"- [{mark}] {label(item.label, lang)}"]
    return out + [f"  - {_finding_line(f, lang)}" for f in item.findings]


# --- HTML ------------------------------------------------------------------------------------
STYLE = """
.rlk-sheet{font-family:system-ui,sans-serif;font-size:14px;max-width:1100px}
.rlk-sheet table{border-collapse:collapse;width:100%}
.rlk-sheet td{border-top:1px solid #8884;vertical-align:top;padding:6px}
.rlk-sheet td.l{width:22%;font-weight:600}
.rlk-sheet pre{margin:0 0 4px;padding:4px 6px;background:#8881;white-space:pre-wrap}
.rlk-sheet .v{display:flex;gap:6px;align-items:flex-start}
.rlk-sheet .f{font-size:12px;margin:2px 0}
.rlk-sheet .error{color:#b00020}.rlk-sheet .warning{color:#8a5a00}.rlk-sheet .info{color:#555}
.rlk-sheet .note{font-size:12px;opacity:.8}
"""


def _copy(value: str, lang: str) -> str:
    data = base64.b64encode(value.encode("utf-8")).decode("ascii")
    script = f"navigator.clipboard.writeText(decodeURIComponent(escape(atob('{data}'))))"
    return f"<button class='jupyter-button' onclick=\"{script}\">{html.escape(Text('Copy').render(lang))}</button>"


def _findings_html(findings: list[Finding], lang: str) -> str:
    return "".join(
        f"<div class='f {f.severity.value}'>{html.escape(_finding_line(f, lang))}</div>"
        for f in findings
    )


def _field_html(sheet_field: SheetField, lang: str) -> str:
    values = (
        "".join(
            f"<div class='v'><pre>{html.escape(v)}</pre>{_copy(v, lang)}</div>"
            for v in sheet_field.values
        )
        or f"<i>{html.escape(_empty(sheet_field, lang))}</i>"
    )
    note = (
        f"<div class='note'>{html.escape(sheet_field.note.render(lang))}</div>"
        if sheet_field.note is not None
        else ""
    )
    return (
        f"<tr><td class='l'>{html.escape(label(sheet_field.label, lang))}</td>"
        f"<td>{values}{note}</td><td>{_findings_html(sheet_field.findings, lang)}</td></tr>"
    )


def to_html(sheet: ConsoleSheet, lang: str = "en", *, page: bool = True) -> str:
    """The sheet as HTML; ``page=False`` gives the fragment the app shows."""
    first, provenance = _heading(sheet, lang)
    parts = [f"<style>{STYLE}</style><div class='rlk-sheet'>"]
    parts.append(f"<h2>{html.escape(first)}</h2><p class='note'>{html.escape(provenance)}</p>")
    for section in sheet.sections:
        title = _section_title(section.title, section.role, lang)
        rows = "".join(_field_html(f, lang) for f in section.fields)
        parts.append(f"<h3>{html.escape(title)}</h3><table>{rows}</table>")
    items = "".join(
        f"<li>{'☑' if item.checked else '☐'} {html.escape(label(item.label, lang))}"
        f"{_findings_html(item.findings, lang)}</li>"
        for item in sheet.checklist
    )
    parts.append(f"<h3>{html.escape(label(STEP_TITLES[3], lang))}</h3><ul>{items}</ul>")
    if sheet.other:
        parts.append(f"<h4>{html.escape(Text('Other findings').render(lang))}</h4>")
        parts.append(_findings_html(sheet.other, lang))
    parts.append("</div>")
    body = "".join(parts)
    if not page:
        return body
    title = html.escape(f"{label(TITLE, lang)}: {sheet.job}")
    return (
        f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title>"
        f"</head><body>{body}</body></html>\n"
    )
