"""The header contract where the caption is too long to repeat: the piece showing it in full lists the table too.

At a 64-token limit with docling-core's compact Markdown table serializer, a caption that fills most of a piece is
shortened in the pieces that repeat it and shown once in full. That piece shows the table's header as every piece
listing the table does (tests/dropin/test_header_contract.py): the context that follows the caption gets only the room
the caption and the header leave, and goes on in the next piece when it does not fit.
"""

from __future__ import annotations

from itertools import pairwise

from docling_core.types.doc import DocItemLabel, DoclingDocument, TableCell, TableData

from docling_evidence import EvidenceChunker, bundled_tokenizer

LONG = (
    "shows how the sales figures developed over the year, region by region, with the totals at the bottom of the "
    "table and the growth rates in the last column, as reported in the previous section."
)


def test_long_caption_context_piece_shows_the_header() -> None:
    from docling_core.transforms.chunker.hierarchical_chunker import ChunkingSerializerProvider
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer

    class CompactMarkdown(ChunkingSerializerProvider):
        def get_serializer(self, doc: DoclingDocument):  # type: ignore[no-untyped-def]
            from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer
            from docling_core.transforms.serializer.markdown import MarkdownParams

            return ChunkingDocSerializer(
                doc=doc, table_serializer=MarkdownTableSerializer(), params=MarkdownParams(compact_tables=True)
            )

    doc = DoclingDocument(name="contract")
    caption = doc.add_text(label=DocItemLabel.CAPTION, text=f"Table 1: Table 1 {LONG}")
    cells = [
        TableCell(
            start_row_offset_idx=r,
            end_row_offset_idx=r + 1,
            start_col_offset_idx=c,
            end_col_offset_idx=c + 1,
            text="North",
            column_header=r == 0,
        )
        for r in range(4)
        for c in range(2)
    ]
    table = doc.add_table(data=TableData(table_cells=cells, num_rows=4, num_cols=2), caption=caption)
    context = doc.add_text(label=DocItemLabel.TEXT, text=f"Table 1 {LONG.replace('sales', 'North')}")
    tokenizer = bundled_tokenizer(64)
    chunker = EvidenceChunker(tokenizer=tokenizer, serializer_provider=CompactMarkdown())
    chunks = list(chunker.chunk(doc))
    assert all(tokenizer.count_tokens(chunker.contextualize(c)) <= 64 for c in chunks)
    listing = [c for c in chunks if table.self_ref in {it.self_ref for it in c.meta.doc_items}]
    assert len(listing) > 1  # the unit is split: the caption is shown in full once and shortened elsewhere
    for chunk in listing:
        assert "| North | North |\n| - | - |" in chunk.text, chunk.text
    # nothing is dropped to make room for the header: the full caption once, the context text in full over pieces
    assert any(caption.text in c.text for c in listing)
    spans = sorted(s for c in listing for s in c.meta.context_spans.get(context.self_ref, []))
    assert spans and spans[0][0] == 0 and spans[-1][1] == len(context.text)
    assert all(not context.text[a[1] : b[0]].strip() for a, b in pairwise(spans)), spans
