"""The provider's table serializer is honoured, chunk(**kwargs) reaches the serializer, expanders accept our chunks."""

from __future__ import annotations

import warnings

import pytest
from docling_core.transforms.chunker import DocChunk
from docling_core.transforms.chunker.chunk_expander import PageChunkExpander, TreeChunkExpander
from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer, ChunkingSerializerProvider
from docling_core.transforms.serializer.html import HTMLTableSerializer
from docling_core.transforms.serializer.markdown import MarkdownParams, MarkdownTableSerializer
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem
from docs_builder import add_table, paged_doc, prov

from docling_evidence import EvidenceChunker, EvidenceTableSerializer, bundled_tokenizer


class HTMLProvider(ChunkingSerializerProvider):
    def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
        return ChunkingDocSerializer(doc=doc, table_serializer=HTMLTableSerializer())


class MarkdownProvider(ChunkingSerializerProvider):
    def __init__(self, compact: bool = False) -> None:
        self.compact = compact

    def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
        return ChunkingDocSerializer(
            doc=doc, table_serializer=MarkdownTableSerializer(), params=MarkdownParams(compact_tables=self.compact)
        )


def _long_table_doc(rows: int = 30) -> tuple[DoclingDocument, TableItem]:
    doc = DoclingDocument(name="long")
    doc.add_heading(text="Sales", level=1)
    body = [[f"Region {i}", f"{i * 17}", f"{i * 3}.5%"] for i in range(rows)]
    table = add_table(doc, [["Region", "Sales", "Growth"]], body, caption="Table 1: Sales by region")
    return doc, table


def _table_pieces(chunks: list[DocChunk], table: TableItem) -> list[DocChunk]:
    return [c for c in chunks if any(it.self_ref == table.self_ref for it in c.meta.doc_items)]


def _serializer_lines(provider: ChunkingSerializerProvider, doc: DoclingDocument, table: TableItem) -> tuple:
    """The header and body lines as docling-core's test_chunk_html_table_serializer takes them: the table
    serialized with its caption (HTML writes it inside the ``<table>`` line, Markdown as a paragraph above)."""
    ser = provider.get_serializer(doc)
    text = ser.serialize(item=table).text
    head, body = ser.table_serializer.get_header_and_body_lines(table_text=text)
    return [h.strip() for h in head if h.strip()], [b.strip() for b in body if b.strip()]


@pytest.mark.parametrize("provider", [HTMLProvider(), MarkdownProvider(), MarkdownProvider(compact=True)])
def test_split_table_pieces_show_the_providers_own_lines(provider: ChunkingSerializerProvider) -> None:
    """As docling-core's test_chunk_html_table_serializer checks for HybridChunker: each piece repeats the
    serializer's header lines, and every body line of the serializer's output is in some piece."""
    doc, table = _long_table_doc()
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(96), serializer_provider=provider).chunk(doc))
    pieces = _table_pieces(chunks, table)
    assert len(pieces) > 1
    head, body = _serializer_lines(provider, doc, table)
    assert head
    for piece in pieces:
        assert all(line in piece.text for line in head), piece.text
    shown = "\n".join(p.text for p in pieces)
    assert all(line in shown for line in body if not line.startswith("</"))


def test_html_provider_gets_docling_cores_html_not_ours() -> None:
    doc, table = _long_table_doc(3)
    (piece,) = _table_pieces(list(EvidenceChunker(serializer_provider=HTMLProvider()).chunk(doc)), table)
    theirs = HTMLProvider().get_serializer(doc).table_serializer
    ours = EvidenceTableSerializer("html")
    ser = HTMLProvider().get_serializer(doc)
    assert "<tbody>" in theirs.serialize(item=table, doc_serializer=ser, doc=doc).text
    assert "<tbody>" in piece.text
    assert ours.serialize(item=table, doc_serializer=ser, doc=doc).text not in piece.text


def test_an_unsplit_table_is_the_serializers_text_verbatim() -> None:
    doc, table = _long_table_doc(3)
    provider = MarkdownProvider()
    (piece,) = _table_pieces(list(EvidenceChunker(serializer_provider=provider).chunk(doc)), table)
    ser = provider.get_serializer(doc)
    whole = ser.serialize(item=table).text  # caption + padded Markdown table, as HybridChunker renders it
    table_text = whole.split("\n\n", 1)[1]
    assert table_text in piece.text
    assert piece.text.startswith("Table 1: Sales by region")


def test_our_table_serializer_writes_what_the_chunker_shows() -> None:
    doc, table = _long_table_doc(3)
    chunker = EvidenceChunker()
    (piece,) = _table_pieces(list(chunker.chunk(doc)), table)
    ser = chunker.serializer_provider.get_serializer(doc)
    text = ser.serialize(item=table).text
    assert text.startswith("Table 1: Sales by region\n\n")  # captions first, as docling-core's table serializers
    assert text.split("\n\n", 1)[1] in piece.text


def test_chunk_kwargs_reach_the_serializer_as_in_hybridchunker() -> None:
    doc = paged_doc(2)
    doc.add_text(label=DocItemLabel.TEXT, text="Page one text.", prov=prov(1, 50, 50, 500, 80))
    table = add_table(
        doc,
        [["Item", "Value"]],
        [["alpha", "1"]],
        caption="Table 1: On page two",
        provs=[prov(2, 50, 100, 500, 200)],
        caption_prov=prov(2, 50, 80, 500, 95),
    )
    doc.add_text(label=DocItemLabel.TEXT, text="Page two text.", prov=prov(2, 50, 300, 500, 320))
    chunker = EvidenceChunker()
    page_one = list(chunker.chunk(doc, pages={1}))
    assert [c.text for c in page_one] == ["Page one text."]
    page_two = list(chunker.chunk(doc, pages={2}))
    assert _table_pieces(page_two, table) and all("Page one" not in c.text for c in page_two)
    no_tables = list(chunker.chunk(doc, labels={DocItemLabel.TEXT, DocItemLabel.CAPTION}))
    assert not _table_pieces(no_tables, table)


@pytest.mark.parametrize("provider", [None, MarkdownProvider()])
def test_expanders_accept_every_chunk(provider: ChunkingSerializerProvider | None) -> None:
    """TreeChunkExpander / PageChunkExpander take our chunks as they take HybridChunker's (docling-core's own
    expander tests run in test_docling_core_suite); on a paged document with a table, context and a list."""
    doc = paged_doc(2)
    doc.add_heading(text="Results", level=1, prov=prov(1, 50, 40, 500, 60))
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 lists the sales.", prov=prov(1, 50, 70, 500, 90))
    add_table(
        doc,
        [["Region", "Sales"]],
        [["North", "12"], ["South", "7"]],
        caption="Table 1: Sales",
        provs=[prov(1, 50, 120, 500, 200)],
        caption_prov=prov(1, 50, 100, 500, 115),
    )
    doc.add_text(label=DocItemLabel.TEXT, text="Later text.", prov=prov(2, 50, 70, 500, 90))
    chunker = EvidenceChunker(serializer_provider=provider) if provider else EvidenceChunker()
    ser = chunker.serializer_provider.get_serializer(doc)
    tables_expanded = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "cannot expand" / "did not yield any text" would be warnings
        for chunk in chunker.chunk(doc):
            tree = TreeChunkExpander().expand(chunk=chunk, dl_doc=doc, serializer=ser)
            page = PageChunkExpander().expand(chunk=chunk, dl_doc=doc, serializer=ser)
            for expanded in (tree, page):
                assert isinstance(expanded, DocChunk) and expanded.text.strip()
                assert expanded.meta.origin == chunk.meta.origin
            assert {it.self_ref for it in chunk.meta.doc_items} <= {it.self_ref for it in page.meta.doc_items}
            if chunk.meta.kind == "table":
                tables_expanded += 1
                table_lines = [ln for ln in chunk.text.splitlines() if ln.startswith("|")]
                assert all(line in tree.text for line in table_lines)
                assert all(cell in tree.text for cell in ("Region", "Sales", "North", "12", "South", "7"))
    assert tables_expanded == 1


@pytest.mark.parametrize("provider", [HTMLProvider(), MarkdownProvider()])
def test_a_one_row_table_of_another_serializer_is_its_content(provider: ChunkingSerializerProvider) -> None:
    """A one-row table of header cells (a MySQL manual's option box) is all header in docling-core's serializers'
    eyes: the chunker shows it as the table's content, and its row views read the same rows (they indexed an empty
    body)."""
    doc = DoclingDocument(name="option")
    table = add_table(doc, [["Command-Line Format", "--no-defaults"]], [])
    (piece,) = _table_pieces(list(EvidenceChunker(serializer_provider=provider).chunk(doc)), table)
    head, body = _serializer_lines(provider, doc, table)
    assert not [line for line in body if not line.startswith("</")]  # the serializer calls it all header
    assert head and all(line in piece.text for line in head)
    assert any("--no-defaults" in view for view in piece.meta.views)


def test_row_views_of_another_serializers_markdown_name_columns_by_their_header() -> None:
    """docling-core's Markdown table's separator row is one of its header lines: the row views' column names leave
    it out ("Sales = 17", not "Sales - --------- = 17")."""
    doc, table = _long_table_doc(3)
    (piece,) = _table_pieces(list(EvidenceChunker(serializer_provider=MarkdownProvider()).chunk(doc)), table)
    assert "Table 1: Sales by region\nRegion 1: Sales = 17; Growth = 3.5%" in piece.meta.views
    assert not [view for view in piece.meta.views if "---" in view]
