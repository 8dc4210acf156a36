"""Build the book: the teaching notebooks with their outputs, in English and Chinese.

Each source in ``notebooks/src/`` is executed once (``nbclient``), then split into its English
and Chinese notebook (``bilingual.split``), so both show the same outputs. Plotly figures become
static HTML drawn by one local copy of plotly.js: the site needs no kernel and no network. The
FAQ maps (``docs/faq-map.md``, ``docs/faq-map.zh.md``) are the index pages. mkdocs (Material
theme, mkdocs-jupyter) writes ``docs/_build/site``; the build fails on a failed cell, a cell
tagged ``figure`` without a figure, a figure missing from its page, a FAQ reference to a
section that does not exist, or a broken link (mkdocs --strict, then every href and src of the
site checked here).

    python docs/build_book.py           # make docs
"""

from __future__ import annotations

import argparse
import html.parser
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import nbformat
import plotly
import plotly.io as pio
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bilingual import LANGS, NOTEBOOKS, REPO, read_source, shared_code, sources, split  # noqa: E402

DOCS = REPO / "docs"
BUILD = DOCS / "_build"
BOOK = BUILD / "book"
SITE = BUILD / "site"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
MAPS = {"en": DOCS / "faq-map.md", "zh": DOCS / "faq-map.zh.md"}
# "02 §3" or "01 §1-§4" in a FAQ map: notebook 02, section "## 3."
REFERENCE = re.compile(r"\b(\d{2}) §(\d+)(?:-§(\d+))?")
NOTEBOOK_LINK = re.compile(r"\((\d{2}-[a-z0-9-]+)\.(en|zh)\.ipynb(#[^)]*)?\)")
LANG_NAMES = {"en": "English", "zh": "中文"}


class BookError(RuntimeError):
    """Something the book must not ship with; the message says what and where."""


def execute(path: Path) -> nbformat.NotebookNode:
    """Run one source notebook from top to bottom, in the notebooks directory."""
    notebook = read_source(path)
    started = time.monotonic()
    client = NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": NOTEBOOKS}}
    )
    try:
        client.execute()
    except CellExecutionError as failed:
        raise BookError(f"{path.name}: a cell failed\n{failed}") from None
    print(f"executed {path.name} in {time.monotonic() - started:.0f} s", flush=True)
    return notebook


def static_figures(notebook: nbformat.NotebookNode, name: str) -> int:
    """Turn Plotly outputs into HTML for the page's plotly.js, and widgets into a note; count
    the figures.

    A cell tagged ``figure`` must have drawn one: a figure that silently fails to appear is
    an error, not an empty space on the page.
    """
    figures = 0
    notebook.metadata.pop("widgets", None)  # no widget state: nothing loads widget code from a CDN
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        drawn = 0
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_MIME in data:  # live widgets need a kernel; the page says so, offline
                output["data"] = {
                    "text/plain": "(an interactive widget: run the notebook to use it)"
                }
            if PLOTLY_MIME not in data:
                continue
            figure = pio.from_json(json.dumps(data[PLOTLY_MIME]), skip_invalid=True)
            output["data"] = {
                "text/html": pio.to_html(figure, include_plotlyjs=False, full_html=False),
                "text/plain": "<Plotly figure>",
            }
            drawn += 1
        if "figure" in cell.metadata.get("tags", []) and not drawn:
            raise BookError(f"{name}: cell {index} is tagged figure but drew none")
        figures += drawn
    return figures


def site_links(notebook: nbformat.NotebookNode, lang: str) -> None:
    """Point links between notebooks (``NN-name.LANG.ipynb``) at their pages in the book.

    Notebook markdown is rendered by nbconvert, not mkdocs, so nothing else rewrites them.
    """

    def page(match: re.Match) -> str:
        stem, target, anchor = match.group(1), match.group(2), match.group(3) or ""
        where = "" if target == lang else f"../{target}/"
        return f"({where}{stem}.html{anchor})"

    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            cell.source = NOTEBOOK_LINK.sub(page, cell.source)


def section_numbers(notebook: nbformat.NotebookNode) -> set[int]:
    """The N of every "## N." heading of a notebook."""
    return {
        int(match.group(1))
        for cell in notebook.cells
        if cell.cell_type == "markdown"
        for match in re.finditer(r"^## (\d+)\.", cell.source, re.MULTILINE)
    }


def check_references(lang: str, text: str, notebooks: dict[str, nbformat.NotebookNode]) -> int:
    """Every "NN §K" of a FAQ map names a section that exists in that language's notebook."""
    by_number = {stem[:2]: nb for stem, nb in notebooks.items()}
    count = 0
    for match in REFERENCE.finditer(text):
        number, first, last = match.group(1), int(match.group(2)), match.group(3)
        if number not in by_number:
            raise BookError(f"{MAPS[lang].name}: {match.group(0)} names no notebook")
        missing = set(range(first, int(last or first) + 1)) - section_numbers(by_number[number])
        if missing:
            raise BookError(f"{MAPS[lang].name}: {match.group(0)} names no section {missing}")
        count += 1
    return count


def index_page(lang: str, notebooks: dict[str, nbformat.NotebookNode]) -> str:
    """A FAQ map with its notebook links pointing at the book's pages."""
    text = MAPS[lang].read_text(encoding="utf-8")
    check_references(lang, text, notebooks)
    prefix, other = ("en/", "(zh/index.md)") if lang == "en" else ("", "(../index.md)")
    text = re.sub(r"\(faq-map(\.zh)?\.md\)", other, text)
    return re.sub(
        rf"\(\.\./notebooks/(\d{{2}}-[a-z0-9-]+)\.{lang}\.ipynb\)", rf"({prefix}\1.ipynb)", text
    )


def title(notebook: nbformat.NotebookNode) -> str:
    first = next(c for c in notebook.cells if c.cell_type == "markdown")
    return first.source.splitlines()[0].lstrip("# ").strip()


#: The book's pages besides the notebooks, in the order of its navigation: (title, path under docs/).
PAGES = {
    "Guide": [
        ("The app", "guide/app.md"),
        ("The CLI", "guide/cli.md"),
        ("The RLark Job, sheet and admin request", "guide/job.md"),
        ("Backends and their limits", "guide/backends.md"),
        ("The notebooks and the book", "guide/notebooks.md"),
        ("The Python API", "guide/python-api.md"),
        ("How faithful it is", "guide/faithfulness.md"),
        ("Hardening", "guide/hardening.md"),
        ("Benchmarks", "guide/benchmarks.md"),
    ],
    "Design": [("Architecture", "architecture.md"), ("Security", "security.md")],
    "Reference": [
        ("Every command", "reference/cli.md"),
        ("Rule catalogue", "reference/rules.md"),
        ("规则目录", "reference/rules.zh.md"),
        ("Backends", "reference/backends.md"),
        ("各后端", "reference/backends.zh.md"),
    ],
}
MARKDOWN_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def book_link(page: str, target: str) -> str | None:
    """Where a link of ``docs/<page>`` points in the book; None when it leaves the book.

    The pages are written for GitHub, where a link may reach any file of the repository; in the
    book a teaching notebook is its executed page, a FAQ map the index, and a source file has no
    page (the link becomes its text).
    """
    parts = urlsplit(target)
    if parts.scheme or target.startswith(("#", "mailto:")):
        return target
    resolved = (DOCS / page).parent.joinpath(parts.path).resolve()
    anchor = f"#{parts.fragment}" if parts.fragment else ""
    notebook = re.fullmatch(r"(\d{2}-[a-z0-9-]+)\.(en|zh)\.ipynb", resolved.name)
    if notebook and resolved.parent == NOTEBOOKS:
        book_path = f"{notebook[2]}/{notebook[1]}.ipynb"
    elif resolved in MAPS.values():
        book_path = "index.md" if resolved == MAPS["en"] else "zh/index.md"
    elif DOCS in resolved.parents and resolved.exists():
        book_path = resolved.relative_to(DOCS).as_posix()
    else:
        return None
    depth = page.count("/")
    return "../" * depth + book_path + anchor


def book_page(page: str) -> str:
    """``docs/<page>`` with its links pointed at the book's pages."""

    def relink(match: re.Match[str]) -> str:
        bang, text, target = match.groups()
        moved = book_link(page, target)
        if moved is None:
            return f"{bang}{text}" if not bang else f"`{target}`"
        return f"{bang}[{text}]({moved})"

    return MARKDOWN_LINK.sub(relink, (DOCS / page).read_text(encoding="utf-8"))


def copy_pages() -> None:
    """The guide, design and reference pages, and the screenshots they show, into the book."""
    shutil.copytree(DOCS / "screenshots", BOOK / "screenshots")
    for _, page in (entry for section in PAGES.values() for entry in section):
        (BOOK / page).parent.mkdir(parents=True, exist_ok=True)
        (BOOK / page).write_text(book_page(page), encoding="utf-8")


def mkdocs_config(titles: dict[str, dict[str, str]]) -> dict[str, Any]:
    nav: list[dict[str, Any]] = [{"FAQ map": "index.md"}]
    for lang in LANGS:
        pages = (
            [{"常见问题对照" if lang == "zh" else "FAQ map": "zh/index.md"}] if lang == "zh" else []
        )
        pages += [{titles[lang][stem]: f"{lang}/{stem}.ipynb"} for stem in titles[lang]]
        nav.append({LANG_NAMES[lang]: pages})
    nav += [
        {section: [{name: page} for name, page in entries]} for section, entries in PAGES.items()
    ]
    return {
        "site_name": "rlark-widgets: from RLinf to RLark",
        "docs_dir": str(BOOK),
        "site_dir": str(SITE),
        "use_directory_urls": False,
        "strict": True,
        "validation": {
            "omitted_files": "warn",
            "absolute_links": "warn",
            "unrecognized_links": "warn",
            "anchors": "warn",
        },
        "theme": {
            "name": "material",
            "custom_dir": str(DOCS / "theme"),
            "font": False,  # no web fonts: the site works offline
            "features": ["navigation.sections", "search.highlight"],
        },
        "plugins": [
            # Chinese text is cut into words with jieba when the index is built.
            {"search": {"lang": ["en", "zh"], "separator": r"[\s\u200b\-]"}},
            {"mkdocs-jupyter": {"execute": False, "include_source": True, "cache": False}},
        ],
        "markdown_extensions": ["tables", "toc"],
        "nav": nav,
    }


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value:
                self.refs.append(value)
            if tag == "script" and key == "src" and value:
                self.scripts.append(value)
            if key in ("id", "name") and value:
                self.ids.add(value)


def check_site(figures: dict[str, int], site: Path = SITE) -> int:
    """Every local href/src resolves (anchors too), every figure reached its page, and no
    page loads code from the network."""
    site = site.resolve()
    parsed: dict[Path, _Links] = {}
    for page in site.rglob("*.html"):
        links = _Links()
        links.feed(page.read_text(encoding="utf-8"))
        parsed[page] = links
    broken = []
    for page, links in parsed.items():
        for ref in links.refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith(("//", "mailto:", "data:", "javascript:")):
                continue
            base = site if parts.path.startswith("/") else page.parent
            path = unquote(parts.path).lstrip("/")
            target = (base / path).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {ref}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {ref} (no such anchor)")
    if broken:
        raise BookError("broken links:\n  " + "\n  ".join(sorted(set(broken))))
    for page, count in figures.items():
        text = (site / page).read_text(encoding="utf-8")
        drawn = text.count('class="plotly-graph-div"')
        if drawn != count:
            raise BookError(f"{page}: {count} figure(s) executed, {drawn} on the page")
        if count and "assets/plotly.min.js" not in text:
            raise BookError(f"{page}: figures but no plotly.js")
    remote = [
        f"{page.relative_to(site)}: {src}"
        for page, links in parsed.items()
        for src in links.scripts
        if urlsplit(src).scheme or src.startswith("//")
    ]
    remote += [
        f"{page.relative_to(site)}: widget code from unpkg.com"
        for page in parsed
        if "https://unpkg.com" in page.read_text(encoding="utf-8")
    ]
    if remote:
        raise BookError(
            "scripts from the network (the book must work offline):\n  " + "\n  ".join(remote)
        )
    return sum(len(p.refs) for p in parsed.values())


def build() -> None:
    shutil.rmtree(BUILD, ignore_errors=True)
    (BOOK / "assets").mkdir(parents=True)
    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", BOOK / "assets")
    notebooks: dict[str, dict[str, nbformat.NotebookNode]] = {lang: {} for lang in LANGS}
    figures: dict[str, int] = {}
    for path in sources():
        executed = execute(path)
        count = static_figures(executed, path.name)
        pair = {lang: split(executed, lang, path.stem) for lang in LANGS}
        if shared_code(pair["en"]) != shared_code(pair["zh"]):
            raise BookError(f"{path.name}: the two languages differ in code or outputs")
        for lang, notebook in pair.items():
            site_links(notebook, lang)
            (BOOK / lang).mkdir(exist_ok=True)
            nbformat.write(notebook, BOOK / lang / f"{path.stem}.ipynb")
            notebooks[lang][path.stem] = notebook
            figures[f"{lang}/{path.stem}.html"] = count
    (BOOK / "index.md").write_text(index_page("en", notebooks["en"]), encoding="utf-8")
    (BOOK / "zh" / "index.md").write_text(index_page("zh", notebooks["zh"]), encoding="utf-8")
    copy_pages()
    titles = {lang: {stem: title(nb) for stem, nb in notebooks[lang].items()} for lang in LANGS}
    config = BUILD / "mkdocs.yml"
    config.write_text(yaml.safe_dump(mkdocs_config(titles), allow_unicode=True), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)],
        check=True,
    )
    refs = check_site(figures)
    print(
        f"book: {len(figures)} notebook pages, {sum(figures.values())} figures, "
        f"{refs} links checked -> {SITE.relative_to(REPO)}/index.html"
    )


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    try:
        build()
    except (BookError, subprocess.CalledProcessError) as failed:
        print(f"make docs failed: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
