"""Arms: records carry the contextualized text, unit ids, page spans; rowsplit rows point to their table chunk."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableItem
from docling_evidence_bench.arms import (
    ARMS,
    build_arm,
    chunk_document,
    make_chunker,
    page_span_of,
    parse_arms,
    table_row_parts,
)
from docs_builder import add_table, paged_doc, prov


def _doc() -> DoclingDocument:
    doc = paged_doc(pages=2)
    doc.add_heading("Results of operations", prov=prov(1, 50, 40, 500, 60))
    doc.add_text(DocItemLabel.TEXT, "Revenue grew because of new contracts.", prov=prov(1, 50, 80, 500, 120))
    doc.add_text(DocItemLabel.TEXT, "The following table shows revenue by year:", prov=prov(1, 50, 130, 500, 150))
    add_table(
        doc,
        [["", "2019", "2018"]],
        [["Revenue", "1,496.5", "1,202.9"], ["Costs", "44.1", "56.7"]],
        provs=[prov(2, 50, 60, 500, 200)],
    )
    doc.add_text(DocItemLabel.TEXT, "Costs fell slightly.", prov=prov(2, 50, 220, 500, 240))
    return doc


def test_parse_arms() -> None:
    assert parse_arms("all") == list(ARMS)
    assert parse_arms("evidence, hybrid,evidence") == ["evidence", "hybrid"]
    assert "evidence-triplets" not in parse_arms("all")  # diagnostic arms run only when named
    assert parse_arms("evidence-triplets") == ["evidence-triplets"]
    with pytest.raises(ValueError, match="'semantic'"):
        parse_arms("hybrid,semantic")
    with pytest.raises(ValueError, match="no arm"):
        parse_arms(" , ")


def test_make_chunker_unknown_arm() -> None:
    with pytest.raises(ValueError, match="unknown arm"):
        make_chunker("nope")


def test_page_span_from_provenance() -> None:
    doc = _doc()
    assert page_span_of([doc.texts[1], doc.tables[0]]) == (1, 2)
    assert page_span_of([]) == ()


def test_hybrid_records_are_contextualized_chunks() -> None:
    doc = _doc()
    chunker = make_chunker("hybrid")
    records = chunk_document("hybrid", chunker, "d", doc)
    chunks = list(chunker.chunk(doc))
    assert [r.embed_text for r in records] == [chunker.contextualize(c) for c in chunks]
    assert [r.index for r in records] == list(range(len(records)))
    assert all(r.target == r.index and r.kind == "chunk" for r in records)
    assert len({r.unit_id for r in records}) == len(records)  # every chunk its own unit
    table_rec = next(r for r in records if "1,496.5" in r.embed_text)
    assert 2 in table_rec.page_span


def table_row_texts(table: TableItem, doc: DoclingDocument) -> list[tuple[str, list[str]]]:
    """The rows as the rowsplit control embeds them: ``(row view text, cell texts)``."""
    from docling_evidence.assemble.views import join_row_view

    return [(join_row_view(label, values), cells) for label, values, cells in table_row_parts(table, doc)]


def test_table_row_texts_label_values_with_column_headers() -> None:
    doc = _doc()
    rows = table_row_texts(doc.tables[0], doc)
    assert [t for t, _ in rows] == ["Revenue: 2019 = 1,496.5; 2018 = 1,202.9", "Costs: 2019 = 44.1; 2018 = 56.7"]
    assert rows[1][1] == ["Costs", "44.1", "56.7"]


def test_rowsplit_adds_one_vector_per_body_row_pooling_into_its_table_chunk() -> None:
    doc = _doc()
    hybrid = build_arm("hybrid", {"d": doc})
    rows_arm = build_arm("rowsplit", {"d": doc})
    chunks, rows = rows_arm[: len(hybrid)], rows_arm[len(hybrid) :]
    assert [r.embed_text for r in chunks] == [r.embed_text for r in hybrid]
    assert len(rows) == 2 and all(r.kind == "row" for r in rows)
    for row in rows:
        table_chunk = chunks[row.target]
        assert row.unit_id == table_chunk.unit_id
        assert row.index == rows_arm.index(row)
        assert "44.1" in table_chunk.embed_text or "1,496.5" in table_chunk.embed_text
    assert "Costs: 2019 = 44.1" in rows[1].embed_text


def test_page_arm_one_record_per_page() -> None:
    records = build_arm("page", {"d": _doc()})
    assert [r.page_span for r in records] == [(1,), (2,)]


@pytest.mark.parametrize("arm", ["evidence", "evidence-no-context", "evidence-no-caption"])
def test_evidence_arms_use_unit_ids_and_page_spans(arm: str) -> None:
    records = build_arm(arm, {"d": _doc()})
    kinds = {r.kind for r in records}
    assert "table" in kinds
    table = next(r for r in records if r.kind == "table")
    assert table.unit_id.startswith("d:")
    assert 2 in table.page_span
    if arm == "evidence":  # the lead-in paragraph travels with the table
        assert "The following table shows revenue by year:" in table.embed_text
    if arm == "evidence-no-context":
        assert "The following table shows revenue by year:" not in table.embed_text


def test_single_vector_arms_index_their_sources_chunks_without_views() -> None:
    docs = {"d": _doc()}
    pairs = (
        ("evidence-single", "evidence"),
        ("evidence-triplets-single", "evidence-triplets"),
        ("evidence-context-in-text-single", "evidence-context-in-text"),
    )
    for single, source in pairs:
        with_views = build_arm(source, docs)
        records = build_arm(single, docs)
        chunks = [r for r in with_views if r.kind != "view"]
        assert len(chunks) < len(with_views), "the source arm indexes views"
        assert [r.embed_text for r in records] == [r.embed_text for r in chunks], "same chunks, no views"
        assert all(r.kind != "view" and r.target == r.index for r in records)
    table = next(r for r in build_arm("evidence-triplets-single", docs) if r.kind == "table")
    assert "Revenue, 2019 = 1,496.5" in table.embed_text, "triplet rows"


def test_context_in_text_arm_keeps_the_context_paragraph_in_a_text_chunk_too() -> None:
    docs = {"d": _doc()}
    lead = "The following table shows revenue by year:"
    for arm, in_text in (("evidence", False), ("evidence-context-in-text", True)):
        records = build_arm(arm, docs)
        assert any(r.kind == "table" and lead in r.embed_text for r in records), "the unit shows its context"
        assert any(r.kind == "text" and lead in r.embed_text for r in records) is in_text


def test_build_arm_keeps_document_order_and_prefixes_units() -> None:
    docs = {"b": _doc(), "a": _doc()}
    records = build_arm("hybrid", docs)
    assert records[0].doc_id == "b"
    assert {r.unit_id.split(":")[0] for r in records} == {"a", "b"}
    assert len({r.unit_id for r in records}) == len(records)


def test_table_row_texts_are_the_chunkers_row_views() -> None:
    from docling_core.types.doc import TableCell, TableData

    from docling_evidence.tables.rows import table_rows

    def cell(text: str, r: int, c0: int, c1: int, header: bool = False) -> TableCell:
        return TableCell(
            text=text,
            start_row_offset_idx=r,
            end_row_offset_idx=r + 1,
            start_col_offset_idx=c0,
            end_col_offset_idx=c1,
            column_header=header,
        )

    # row 0: a header row with one column_header cell and an empty non-header cell (the chunker's rule: any
    # column_header cell makes a header row); row 1: a value spanning two columns; row 2: equal adjacent values
    cells = [cell("Region", 0, 0, 1, True), cell("", 0, 1, 2), cell("2019", 0, 2, 3, True)]
    cells += [cell("North", 1, 0, 1), cell("n/a", 1, 1, 3)]
    cells += [cell("South", 2, 0, 1), cell("-", 2, 1, 2), cell("-", 2, 2, 3)]
    doc = DoclingDocument(name="t")
    table = doc.add_table(data=TableData(num_rows=3, num_cols=3, table_cells=cells))
    assert len(table_rows(table, doc).header) == 1
    rows = table_row_texts(table, doc)
    # a merged value is read under every column it spans, as EvidenceChunker's row views read it; dashes are
    # placeholders, left out of the view as the chunker leaves them out (the cells still list them)
    assert rows == [("North: n/a; 2019 = n/a", ["North", "n/a", "n/a"]), ("South", ["South", "-", "-"])]
    from docling_evidence import EvidenceChunker

    piece = next(c for c in EvidenceChunker().chunk(doc) if c.meta.kind == "table")
    assert piece.meta.views[: len(rows)] == [text for text, _ in rows]
