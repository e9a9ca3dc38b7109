"""The header contract of docling-core's test_chunk_html_table_serializer, for every serializer provider.

docling-core serializes each table (with its caption), takes the serializer's header lines
(``get_header_and_body_lines``) and asserts that every chunk listing a split table in ``doc_items`` shows them all,
and that every body line is in some chunk listing the table. With EvidenceChunker the pieces of context or
footnotes that did not fit beside the rows list the table too, so they show the header as well; HTML's
``<table>Caption<tbody>`` line is shown as the serializer writes it, the caption not repeated above it.

The contract can only hold when the header fits a piece beside a row: a header wider than half a piece gets
pieces of its own, a table too wide for one piece is split by columns (each piece shows its columns' header), and a
caption taking more than half a piece is shortened in the pieces after the first. The property below draws tables
where it must hold.
"""

from __future__ import annotations

import pytest
from docling_core.transforms.chunker.hierarchical_chunker import (
    ChunkingDocSerializer,
    ChunkingSerializerProvider,
)
from docling_core.transforms.serializer.html import HTMLTableSerializer
from docling_core.transforms.serializer.markdown import MarkdownParams, MarkdownTableSerializer
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem
from docs_builder import add_table
from dropin.core_suite import SUITE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, EvidenceSerializerProvider, bundled_tokenizer


class HTMLProvider(ChunkingSerializerProvider):
    def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
        return ChunkingDocSerializer(doc=doc, table_serializer=HTMLTableSerializer())


class MarkdownProvider(ChunkingSerializerProvider):
    def __init__(self, compact: bool = False) -> None:
        self.compact = compact

    def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
        params = MarkdownParams(compact_tables=self.compact)
        return ChunkingDocSerializer(doc=doc, table_serializer=MarkdownTableSerializer(), params=params)


PROVIDERS: dict[str, ChunkingSerializerProvider] = {
    "evidence-markdown": EvidenceSerializerProvider("markdown"),
    "evidence-html": EvidenceSerializerProvider("html"),
    "evidence-triplets": EvidenceSerializerProvider("triplets"),
    "docling-core-html": HTMLProvider(),
    "docling-core-markdown": MarkdownProvider(),
    "docling-core-markdown-compact": MarkdownProvider(compact=True),
    "docling-core-triplets": ChunkingSerializerProvider(),
}
"""Our table formats and docling-core's table serializers (triplets: HybridChunker's default)."""

WORDS = ("North", "South", "sales", "2023", "12.5", "n/a", "Growth", "€ 7", "μ", "total")
SENTENCE = (
    "Table 1 shows how the {w} figures developed over the year, region by region, with the totals at the bottom "
    "of the table and the growth rates in the last column, as reported in the previous section."
)


def _lines(provider: ChunkingSerializerProvider, doc: DoclingDocument, table: TableItem) -> tuple[list, list]:
    """Header and body lines as docling-core's test takes them: the table serialized with its caption."""
    ser = provider.get_serializer(doc)
    text = ser.serialize(item=table).text
    head, body = ser.table_serializer.get_header_and_body_lines(table_text=text)
    return [h.strip() for h in head if h.strip()], [b.strip() for b in body if b.strip()]


@st.composite
def documents(draw: st.DrawFn) -> tuple[DoclingDocument, TableItem]:
    n_cols = draw(st.integers(2, 4))
    cell = st.sampled_from(WORDS)
    header = draw(st.lists(st.lists(cell, min_size=n_cols, max_size=n_cols), min_size=1, max_size=2))
    body = draw(st.lists(st.lists(cell, min_size=n_cols, max_size=n_cols), min_size=1, max_size=40))
    caption = draw(st.sampled_from([None, "Table 1: Sales by region", "Table 1: " + SENTENCE.format(w="sales")]))
    doc = DoclingDocument(name="contract")
    for word in draw(st.lists(cell, max_size=3)):
        doc.add_text(label=DocItemLabel.TEXT, text=SENTENCE.format(w=word))
    notes = draw(st.lists(st.sampled_from(["* Estimated.", "Source: " + SENTENCE.format(w="annual")]), max_size=2))
    table = add_table(doc, header, body, caption=caption, footnotes=notes)
    for word in draw(st.lists(cell, max_size=2)):
        doc.add_text(label=DocItemLabel.TEXT, text=SENTENCE.format(w=word))
    return doc, table


@pytest.mark.parametrize("name", list(PROVIDERS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents(), limit=st.integers(64, 512))
def test_every_chunk_listing_a_table_shows_its_header(
    name: str, data: tuple[DoclingDocument, TableItem], limit: int
) -> None:
    doc, table = data
    provider = PROVIDERS[name]
    tokenizer = bundled_tokenizer(limit)
    chunker = EvidenceChunker(tokenizer=tokenizer, serializer_provider=provider)
    chunks = list(chunker.chunk(doc))
    count = tokenizer.count_tokens
    assert all(count(chunker.contextualize(c)) <= limit for c in chunks)
    head, body = _lines(provider, doc, table)
    listing = [c for c in chunks if table.self_ref in {it.self_ref for it in c.meta.doc_items}]
    assert listing
    widest = max((count(line) for line in body), default=0)
    if count("\n".join(head)) > limit // 4 or widest > limit // 4:
        return  # the header or a row takes too much of a piece: header pieces of their own, or column groups
    for chunk in listing:
        missing = [line for line in head if line not in chunk.text]
        assert not missing, (name, limit, chunk.meta.part, missing, chunk.text)
    shown = "\n".join(c.text for c in listing)
    if name != "docling-core-triplets":  # written one row per line, not the whole table on one line
        assert all(line in shown for line in body if not line.startswith("</")), (name, limit)


CORE_DOC = SUITE / "tests" / "data" / "chunker" / "0_inp_dl_doc.json"


@pytest.mark.skipif(not CORE_DOC.is_file(), reason=f"{CORE_DOC} is not present")
def test_docling_cores_html_table_serializer_header_check_holds() -> None:
    """The header part of docling-core's test_chunk_html_table_serializer, on its own document and settings (500
    tokens of all-MiniLM-L6-v2, HTMLTableSerializer). The rest of that test compares with HybridChunker's ground
    truth, so it stays deselected. It failed on three chunks: two pieces of context listing Table 1 and Table 2
    without their header, and Table 1's rows under ``<table><tbody>`` where the serializer writes
    ``<table>Table 1: ...<tbody>``."""
    doc = DoclingDocument.load_from_json(CORE_DOC)
    provider = HTMLProvider()
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(500), serializer_provider=provider).chunk(doc))
    split = 0
    for table in doc.tables:
        head, body = _lines(provider, doc, table)
        if not (head or body):
            continue  # an empty table (0 x 0): nothing to show, as docling-core's test skips it
        listing = [c for c in chunks if table.self_ref in {it.self_ref for it in c.meta.doc_items}]
        assert listing, table.self_ref
        if len(listing) > 1:
            split += 1
            for chunk in listing:
                assert all(line in chunk.text for line in head), (table.self_ref, chunk.meta.part, chunk.text[:300])
        shown = "\n".join(c.text for c in listing)
        assert all(line in shown for line in body), table.self_ref
    assert split >= 2  # Table 1 and Table 2 are split (into a piece of context and the table's piece)
