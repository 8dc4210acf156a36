"""The teaching notebooks exist in English and Chinese, in step by construction.

One source per notebook (``notebooks/src/NN-name.py``) gives both notebooks (``docs/bilingual.py``);
the book executes each source once and splits it, so code and outputs are shared objects. These
tests make a drifting pair, an untranslated cell, a stale generated notebook or a FAQ map
pointing at a missing section fail.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "docs"))

import bilingual  # noqa: E402
import build_book  # noqa: E402

SOURCES = bilingual.sources()


def test_every_teaching_notebook_has_a_source_and_both_languages_on_disk() -> None:
    assert [p.stem[:2] for p in SOURCES] == [f"{i:02d}" for i in range(8)]
    written = {p.name for p in (REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")}
    expected = {f"{p.stem}.{lang}.ipynb" for p in SOURCES for lang in bilingual.LANGS}
    assert written == expected  # nbval (make test) runs every one of them


def test_written_notebooks_are_what_the_sources_give() -> None:
    assert bilingual.main(["--check"]) == 0, "run python docs/bilingual.py"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_both_languages_share_code_and_number_sections_alike(source: Path) -> None:
    notebook = bilingual.read_source(source)
    en, zh = (bilingual.split(notebook, lang, source.stem) for lang in bilingual.LANGS)
    assert bilingual.shared_code(en) == bilingual.shared_code(zh)
    assert build_book.section_numbers(en) == build_book.section_numbers(zh)
    assert build_book.section_numbers(en), "sections are numbered '## N.'"
    headings = [
        line
        for c in en.cells + zh.cells
        if c.cell_type == "markdown"
        for line in c.source.splitlines()
        if line.startswith("#")
    ]
    assert not [h for h in headings if "`" in h], "code in a heading breaks the book's TOC links"
    zh_text = [c.source for c in zh.cells if c.cell_type == "markdown"]
    assert all(bilingual.CJK.search(text) for text in zh_text)
    en_text = " ".join(c.source for c in en.cells if c.cell_type == "markdown")
    assert len(bilingual.CJK.findall(en_text)) < len(en_text) / 20  # English, quoting some terms


def test_a_cell_in_one_language_only_is_refused() -> None:
    text = '# %% [markdown] lang="en"\n# ## 1. Only English\n\n# %%\nx = 1\n'
    with pytest.raises(bilingual.SourceError, match="1 English and 0 Chinese"):
        bilingual.check_pairs(jupytext.reads(text, fmt="py:percent"), "one.py")
    untagged = "# %% [markdown]\n# ## 1. Which language?\n"
    with pytest.raises(bilingual.SourceError, match='needs lang="en"'):
        bilingual.check_pairs(jupytext.reads(untagged, fmt="py:percent"), "two.py")


def test_one_execution_gives_both_languages_the_same_outputs() -> None:
    notebook = bilingual.read_source(SOURCES[0])
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    figures = build_book.static_figures(notebook, SOURCES[0].name)
    en, zh = (bilingual.split(notebook, lang, SOURCES[0].stem) for lang in bilingual.LANGS)
    assert bilingual.shared_code(en) == bilingual.shared_code(zh)
    outputs = [o for _, outs in bilingual.shared_code(en) for o in outs]
    assert figures == 1 and any("plotly-graph-div" in str(o) for o in outputs)
    assert any("No prediction yet" in str(o) and "还没有填写预测" in str(o) for o in outputs)
    assert [c.source for c in en.cells if c.cell_type == "markdown"] != [
        c.source for c in zh.cells if c.cell_type == "markdown"
    ]


@pytest.mark.parametrize("lang", bilingual.LANGS)
def test_faq_map_answers_every_question_at_a_section_that_exists(lang: str) -> None:
    text = build_book.MAPS[lang].read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \|", text, re.MULTILINE)
    assert [int(n) for n in rows] == list(range(1, 31))
    notebooks = {p.stem: bilingual.split(bilingual.read_source(p), lang, p.stem) for p in SOURCES}
    assert build_book.check_references(lang, text, notebooks) >= 30
    for path in re.findall(r"\(\.\./notebooks/([^)]+)\)", text):
        assert (REPO / "notebooks" / path).is_file() and path.endswith(f".{lang}.ipynb")


def test_faq_maps_point_each_question_at_the_same_sections_in_both_languages() -> None:
    def where(lang: str) -> list[list[str]]:
        text = build_book.MAPS[lang].read_text(encoding="utf-8")
        return [
            re.findall(r"\d{2} §\d+", row)
            for row in re.findall(r"^\| \d+ \|.*$", text, re.MULTILINE)
        ]

    assert where("en") == where("zh")


def test_a_reference_to_a_missing_section_fails_the_book() -> None:
    notebooks = {p.stem: bilingual.split(bilingual.read_source(p), "en", p.stem) for p in SOURCES}
    with pytest.raises(build_book.BookError, match="names no section"):
        build_book.check_references("en", "| 1 | q | 01 §99 | x |", notebooks)


def _site(tmp_path: Path, html: str) -> Path:
    (tmp_path / "en").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "plotly.min.js").write_text("")
    (tmp_path / "index.html").write_text('<h2 id="top">map</h2><a href="en/01.html#s1">01</a>')
    (tmp_path / "en" / "01.html").write_text(html)
    return tmp_path


FIGURE = '<script src="../assets/plotly.min.js"></script><div class="plotly-graph-div"></div>'


@pytest.mark.parametrize(
    ("html", "figures", "complaint"),
    [
        (f'<h2 id="s1">1</h2>{FIGURE}<a href="../index.html#top">up</a>', 1, None),
        (f'<h2 id="s1">1</h2>{FIGURE}<a href="02.html">next</a>', 1, "broken links"),
        (f'<h2 id="s1">1</h2>{FIGURE}<a href="../index.html#gone">up</a>', 1, "no such anchor"),
        ('<h2 id="other">1</h2>', 0, "no such anchor"),
        (f'<h2 id="s1">1</h2>{FIGURE}', 2, "2 figure"),
        ('<h2 id="s1">1</h2><script src="https://cdn.example/x.js"></script>', 0, "network"),
    ],
)
def test_the_site_check_finds_broken_links_missing_figures_and_remote_code(
    tmp_path: Path, html: str, figures: int, complaint: str | None
) -> None:
    site = _site(tmp_path, html)
    if complaint is None:
        assert build_book.check_site({"en/01.html": figures}, site) == 3
    else:
        with pytest.raises(build_book.BookError, match=complaint):
            build_book.check_site({"en/01.html": figures}, site)
