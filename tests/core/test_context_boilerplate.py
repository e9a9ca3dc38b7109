"""Page boilerplate is never a table's context, and context reads in document order.

A web page converted by Docling keeps, around its tables, text that belongs to the page and not to the article: a
site tagline, "(Redirected from <link>)", notes pointing to other pages, "Retrieved from <url>", a "Categories:" label
and its list of links, navigation in a furniture group. None of it explains a table; without layout it also ends a
table's neighbourhood, as a heading does. Whatever context a unit holds is shown in reading order in every piece.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from docling_core.types.doc import ContentLayer, DocItemLabel, DoclingDocument, GroupLabel, NodeItem
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import DocumentParams, EvidenceChunk, EvidenceChunker, EvidenceParams, bundled_tokenizer
from docling_evidence.document.index import build_index, is_boilerplate, is_label_line

WIKI = "https://en.wikipedia.org/w/index.php?title=Duck&oldid=1246843672"


def _inline(doc: DoclingDocument, parent: NodeItem, *runs: str | tuple[str, str]) -> None:
    """An inline group of runs: a plain string, or ``(text, url)`` for a link."""
    group = doc.add_inline_group(parent=parent)
    for run in runs:
        text, url = run if isinstance(run, tuple) else (run, None)
        doc.add_text(label=DocItemLabel.TEXT, text=text, hyperlink=url, parent=group)


def _page() -> DoclingDocument:
    """A web page as Docling's HTML backend reads it: a furniture menu (one of its entries a body-layer text), the
    title, the page's tagline and notes, an infobox table, the article, a navigation box, then the page's footer."""
    doc = DoclingDocument(name="duck")
    menu = doc.add_group(label=GroupLabel.LIST, content_layer=ContentLayer.FURNITURE)
    doc.add_list_item(text="Main page", parent=menu, content_layer=ContentLayer.FURNITURE)
    doc.add_list_item(text="Contents of the encyclopedia about birds and families", parent=menu)
    title = doc.add_title(text="Duck")
    doc.add_text(label=DocItemLabel.TEXT, text="From Wikipedia, the free encyclopedia", parent=title)
    _inline(doc, title, "(Redirected from", ("Duckling", "/w/index.php?title=Duckling&redirect=no"), ")")
    _inline(
        doc,
        title,
        "This article is about the bird. For duck as a food, see",
        ("Duck as food", "/wiki/Duck_as_food"),
        ". For other uses, see",
        ("Duck (disambiguation)", "/wiki/Duck_(disambiguation)"),
        ".",
    )
    _inline(
        doc,
        title,
        '"Duckling" redirects here. For other uses, see',
        ("Duckling (disambiguation)", "/wiki/Duckling_(disambiguation)"),
        ".",
    )
    add_table(
        doc,
        [["Bufflehead (Bucephala albeola)", ""]],
        [["Kingdom:", "Animalia"], ["Order:", "Anseriformes"], ["Family:", "Anatidae"]],
    )
    _inline(
        doc,
        title,
        "Duck is the common name for numerous species of",
        ("waterfowl", "/wiki/Waterfowl"),
        "in the family",
        ("Anatidae", "/wiki/Anatidae"),
        ", order Anseriformes. Ducks are generally smaller and shorter-necked than swans and geese.",
    )
    doc.add_heading(text="See also")
    doc.add_text(label=DocItemLabel.TEXT, text="The genera of the family Anatidae are listed by subfamily.")
    add_table(
        doc,
        [["Anatidae", ""]],
        [["Dendrocygninae", "Dendrocygna, Thalassornis"], ["Anserinae", "Anser, Branta, Cygnus"]],
    )
    _inline(doc, doc.body, 'Retrieved from "', (WIKI, WIKI), '"')
    doc.add_text(label=DocItemLabel.TEXT, text="Categories:")
    cats = doc.add_group(label=GroupLabel.LIST)
    doc.add_list_item(text="Ducks", parent=cats, hyperlink="/wiki/Category:Ducks")
    doc.add_list_item(text="Anatidae", parent=cats, hyperlink="/wiki/Category:Anatidae")
    doc.add_text(label=DocItemLabel.TEXT, text=WIKI)
    return doc


PAGE_HTML = """<!DOCTYPE html><html><head><title>Duck - Wikipedia</title></head><body>
<header><nav><ul><li><a href="/">Main page</a></li><li><a href="/contents">Contents</a></li></ul></nav></header>
<main><h1>Duck</h1>
<div>From Wikipedia, the free encyclopedia</div>
<div><span>(Redirected from <a href="/w/index.php?title=Duckling">Duckling</a>)</span></div>
<div>This article is about the bird. For duck as a food, see <a href="/wiki/Duck_as_food">Duck as food</a>. For other
uses, see <a href="/wiki/Duck_(disambiguation)">Duck (disambiguation)</a>.</div>
<table><tr><th colspan="2">Bufflehead (Bucephala albeola)</th></tr><tr><td>Kingdom:</td><td>Animalia</td></tr>
<tr><td>Family:</td><td>Anatidae</td></tr></table>
<p><b>Duck</b> is the common name for numerous species of <a href="/wiki/Waterfowl">waterfowl</a> in the family
<a href="/wiki/Anatidae">Anatidae</a>. Ducks are generally smaller than swans.</p>
<h2>See also</h2><p>The genera of the family Anatidae are listed by subfamily.</p>
<table><tr><th>Anatidae</th><td>Dendrocygninae, Oxyurinae, Anserinae, Anatinae</td></tr>
<tr><th>Extant species</th><td>Mallard, Teal, Wigeon</td></tr></table>
<div>Retrieved from "<a href="https://en.wikipedia.org/w/index.php?title=Duck">https://en.wikipedia.org/w/index.php?title=Duck</a>"</div>
<div>Categories: <ul><li><a href="/wiki/Category:Ducks">Ducks</a></li>
<li><a href="/wiki/Category:Anatidae">Anatidae</a></li></ul></div></main>
<footer><p>This page was last edited on 21 September 2024.</p></footer></body></html>
"""


def test_a_web_page_converted_by_docling_gives_its_tables_no_boilerplate(tmp_path: Path) -> None:
    """The same page as HTML, through Docling's HTML backend: the infobox's context is the article's lead, the
    navbox's the sentence above it."""
    pytest.importorskip("docling.document_converter")
    from docling_evidence.document.convert import convert_path

    path = tmp_path / "duck.html"
    path.write_text(PAGE_HTML, encoding="utf-8")
    doc = convert_path(path)
    infobox, navbox = _units(list(EvidenceChunker().chunk(doc)))
    assert not any(word in c.text for c in infobox for word in ("From Wikipedia", "Redirected", "This article is"))
    assert "is the common name for numerous species of" in infobox[0].text
    assert all("Retrieved from" not in c.text and "Categories" not in c.text for c in navbox)
    assert "The genera of the family Anatidae are listed by subfamily." in navbox[0].text


def _units(chunks: list[EvidenceChunk]) -> list[list[EvidenceChunk]]:
    units: dict[str, list[EvidenceChunk]] = {}
    for c in chunks:
        if c.meta.kind == "table":
            units.setdefault(c.meta.unit_id, []).append(c)
    return list(units.values())


def _shown(doc: DoclingDocument, pieces: list[EvidenceChunk]) -> set[str]:
    """Texts of every item a unit's pieces list besides its table (context, section peers)."""
    texts = {t.self_ref: t.text for t in doc.texts}
    return {texts[r] for c in pieces for r, role in c.meta.roles.items() if role != "table" and r in texts}


BOILERPLATE = {
    "From Wikipedia, the free encyclopedia",
    "(Redirected from",
    "Duckling",
    "This article is about the bird. For duck as a food, see",
    '"Duckling" redirects here. For other uses, see',
    'Retrieved from "',
    WIKI,
    "Categories:",
    "Ducks",
    "Contents of the encyclopedia about birds and families",
}


def test_page_boilerplate_is_no_tables_context_and_no_section_peer() -> None:
    doc = _page()
    infobox, navbox = _units(list(EvidenceChunker().chunk(doc)))
    assert not _shown(doc, infobox) & BOILERPLATE
    assert "Duck is the common name for numerous species of" in _shown(doc, infobox)
    assert not _shown(doc, navbox) & BOILERPLATE
    assert _shown(doc, navbox) == {"The genera of the family Anatidae are listed by subfamily."}


def test_boilerplate_stays_in_the_text_chunks() -> None:
    """Not context is not lost: the page's boilerplate is still chunked as text."""
    doc = _page()
    text = "\n".join(c.text for c in EvidenceChunker().chunk(doc) if c.meta.kind == "text")
    assert "Retrieved from" in text and "Categories:" in text and "From Wikipedia" in text


def test_the_index_marks_link_lines_labels_navigation_and_furniture() -> None:
    doc = _page()
    index = build_index(doc)
    marked = {index.paragraph_text(i) for i in index.boilerplate}
    assert marked >= {
        "(Redirected from Duckling )",
        'Retrieved from " ' + WIKI + ' "',
        "Categories:",
        "Ducks",
        "Anatidae",
        WIKI,
        "Contents of the encyclopedia about birds and families",
    }
    assert any(t.startswith("This article is about the bird.") for t in marked)
    assert not any(t.startswith("Duck is the common name") for t in marked)
    assert "The genera of the family Anatidae are listed by subfamily." not in marked


def test_boilerplate_rules_on_single_texts() -> None:
    assert is_boilerplate([("https://example.org/data.csv", False)])
    assert is_boilerplate([("Available at", False), ("the portal", True)])
    assert is_label_line("See also:") and not is_boilerplate([("See also:", False)])  # only above boilerplate
    assert not is_boilerplate([("The results are shown below for each year:", False)])  # a sentence, not a label
    assert not is_boilerplate([("Revenue rose 4% in 2020 (see https://example.org/report).", False)])
    assert not is_boilerplate(
        [("The flags of", False), ("fs.open()", True), ("are listed in the table below, one per row.", False)]
    )


def test_the_boilerplate_bounds_are_read_from_the_document_params() -> None:
    at_url = [("See the data at https://example.org/data.csv", False)]  # 4 words besides the URL, 1 of 5 linked
    assert not is_boilerplate(at_url)
    assert is_boilerplate(at_url, DocumentParams(link_line_max_words=4))
    assert is_boilerplate(at_url, DocumentParams(navigation_link_share=0.2))
    # "Available at the portal": a link line, else navigation when half of its words (those of the link) are enough
    assert is_boilerplate(
        [("Available at", False), ("the portal", True)],
        DocumentParams(link_line_max_words=1, navigation_link_share=0.5),
    )
    assert not is_boilerplate(
        [("Available at", False), ("the portal", True)],
        DocumentParams(link_line_max_words=1, navigation_link_share=0.6),
    )
    assert not is_label_line("Main results by year:") and is_label_line("See also:")
    assert is_label_line("Main results by year:", DocumentParams(label_line_max_words=4))
    assert not is_label_line("See also:", DocumentParams(label_line_max_words=1))


def _report_with_a_link() -> DoclingDocument:
    """A table and, right after it, a paragraph about it that holds a URL."""
    doc = DoclingDocument(name="report")
    doc.add_heading(text="Results of operations")
    add_table(doc, [["Item", "2019", "2018"]], [["Revenue", "1,204", "1,118"], ["Costs", "9,800", "8,700"]])
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose in 2019 on higher volumes, see https://example.org/r.")
    doc.add_heading(text="Outlook")
    doc.add_text(label=DocItemLabel.TEXT, text="We expect more of the same.")
    return doc


def test_a_chunkers_document_params_decide_what_is_boilerplate_and_so_context() -> None:
    doc = _report_with_a_link()
    (link,) = [t for t in doc.texts if "example.org" in t.text]
    assert not build_index(doc).boilerplate
    (unit,) = _units(list(EvidenceChunker().chunk(doc)))
    assert link.text in _shown(doc, unit)
    for params in (DocumentParams(link_line_max_words=8), DocumentParams(navigation_link_share=0.1)):
        index = build_index(doc, params=params)
        assert {index.items[i].self_ref for i in index.boilerplate} == {link.self_ref}
        (unit,) = _units(list(EvidenceChunker(params=EvidenceParams(document=params)).chunk(doc)))
        assert link.text not in _shown(doc, unit)


@given(
    st.lists(st.sampled_from(["revenue", "rose", "sharply", "each", "year", "costs", "fell", "markets"]), min_size=3)
)
@settings(max_examples=50, deadline=None)
def test_prose_without_links_is_never_boilerplate(words: list[str]) -> None:
    """Three or more words without a link or a URL and not ending with a colon are prose, whatever they say."""
    assert not is_boilerplate([(" ".join(words) + ".", False)])


def test_a_label_above_prose_is_its_title_and_may_be_context() -> None:
    """ "Interest Expense:" above the paragraph about interest is that paragraph's title, unlike "Categories:" above a
    list of links: it stays a paragraph and is context of the table the paragraph explains."""
    doc = DoclingDocument(name="report")
    doc.add_heading(text="Results of operations")
    doc.add_text(label=DocItemLabel.TEXT, text="Interest Expense:")
    doc.add_text(label=DocItemLabel.TEXT, text="Interest expense rose in 2019 on higher average borrowings.")
    add_table(
        doc, [["Item", "2019", "2018"]], [["Interest expense", "1,204", "1,118"], ["Borrowings", "9,800", "8,700"]]
    )
    assert not build_index(doc).boilerplate
    (unit,) = _units(list(EvidenceChunker().chunk(doc)))
    assert {"Interest Expense:", "Interest expense rose in 2019 on higher average borrowings."} <= _shown(doc, unit)


def test_boilerplate_naming_a_table_is_still_its_context() -> None:
    """A link line that names the table ("See Table 1", the whole text a link) points at it: it may be context."""
    doc = DoclingDocument(name="see")
    doc.add_heading(text="Prices")
    add_table(doc, [["Item", "Price"]], [["Tea", "3"]], caption="Table 1: Prices")
    doc.add_text(label=DocItemLabel.TEXT, text="See Table 1", hyperlink="#table-1")
    (unit,) = _units(list(EvidenceChunker().chunk(doc)))
    assert "See Table 1" in _shown(doc, unit)


def _ordered_doc(n_before: int, n_after: int, rows: int, naming: bool = False) -> tuple[DoclingDocument, list[str]]:
    """A section: ``n_before`` paragraphs, a table of ``rows`` rows, ``n_after`` paragraphs, all about the table (with
    ``naming``, each names it)."""
    doc = DoclingDocument(name="order")
    doc.add_heading(text="Harbour fees")
    paras = []
    for k in range(n_before + n_after):
        what = "Table 1" if naming else "the fee schedule"
        text = f"Paragraph {k} explains harbour fees for vessels and tonnage, as {what} sets them."
        paras.append(text)
        if k == n_before:
            add_table(
                doc,
                [["Vessel", "Tonnage", "Fee"]],
                [[f"Vessel {r}", str(1000 + r), f"{r}.50"] for r in range(rows)],
                caption="Table 1: Harbour fees by vessel tonnage",
            )
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    if n_after == 0:
        add_table(
            doc,
            [["Vessel", "Tonnage", "Fee"]],
            [[f"Vessel {r}", str(1000 + r), f"{r}.50"] for r in range(rows)],
            caption="Table 1: Harbour fees by vessel tonnage",
        )
    return doc, paras


def _assert_reading_order(chunks: list[EvidenceChunk], paras: list[str]) -> None:
    for c in chunks:
        if c.meta.kind != "table":
            continue
        at = [c.text.find(p[:22]) for p in paras]  # "Paragraph 3 explains h"
        shown = [pos for pos in at if pos >= 0]
        assert shown == sorted(shown), c.text


def test_context_of_a_split_unit_reads_in_document_order() -> None:
    """Context that fills a split unit's first piece most important first (the nearest paragraph first) is shown in
    reading order: the paragraphs before the table are not listed backwards."""
    doc, paras = _ordered_doc(4, 0, 30)
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(160)).chunk(doc))
    assert sum(c.meta.kind == "table" for c in chunks) > 1
    _assert_reading_order(chunks, paras)


def test_context_beside_a_whole_table_and_in_pieces_of_its_own_reads_in_document_order() -> None:
    """A table that fits one piece without its context keeps beside it the context that fits; the paragraphs naming
    it that do not fit go into pieces of their own before it, in reading order too."""
    doc, paras = _ordered_doc(5, 0, 3, naming=True)
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(96), context_max_tokens=400).chunk(doc))
    _assert_reading_order(chunks, paras)
    context_pieces = [c for c in chunks if c.meta.kind == "table" and c.meta.rows and c.meta.rows[0] == c.meta.rows[1]]
    shown = [k for c in context_pieces for k, p in enumerate(paras) if p[:22] in c.text]
    assert shown == sorted(shown)


@given(
    n_before=st.integers(0, 4),
    n_after=st.integers(0, 3),
    rows=st.integers(1, 25),
    limit=st.sampled_from([96, 128, 192, 256]),
)
@settings(max_examples=25, deadline=None)
def test_context_is_always_shown_in_reading_order(n_before: int, n_after: int, rows: int, limit: int) -> None:
    doc, paras = _ordered_doc(n_before, n_after, rows)
    _assert_reading_order(list(EvidenceChunker(tokenizer=bundled_tokenizer(limit)).chunk(doc)), paras)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*"ab :/.W", "www.", "WwW.", "http://", "HTTPS://x", " :// ", "ẘ", "ẉ"]), max_size=16))
def test_the_url_substring_test_never_hides_a_url(parts: list[str]) -> None:
    # is_boilerplate runs the URL pattern only on texts that pass the substring test: it must pass every text the
    # pattern matches in
    from docling_evidence.document.index import URL, _may_hold_url

    text = "".join(parts)
    assert _may_hold_url(text) or URL.search(text) is None
