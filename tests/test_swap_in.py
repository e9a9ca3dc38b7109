"""Swap-in parity: code written for docling-core's HybridChunker works unchanged with EvidenceChunker.

Documents are built with docling-core's API, converted from HTML by Docling (offline, docling-slim), or loaded from
the real fixtures in ``../shared/fixtures`` (those tests skip when the folder is absent).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from shared_paths import FIXTURES

from docling_evidence.meta import EVIDENCE_FIELDS

os.environ.setdefault("HF_HUB_OFFLINE", "1")


HTML = """<!DOCTYPE html>
<html><body>
<h1>Annual report 2024</h1>
<h2>Revenue</h2>
<p>Revenue grew in every segment during the year, led by cloud services.</p>
<p>Table 1 shows revenue by segment for the last two fiscal years.</p>
<table>
  <caption>Table 1: Revenue by segment</caption>
  <tr><th>Segment</th><th>2023</th><th>2024</th></tr>
  <tr><td>Cloud</td><td>120</td><td>150</td></tr>
  <tr><td>Devices</td><td>80</td><td>75</td></tr>
</table>
<p>* Amounts in millions of USD.</p>
<p>Devices revenue declined because smartphone shipments fell.</p>
<h2>Outlook</h2>
<p>We expect growth to continue next year across all regions.</p>
</body></html>
"""


def fixture(rel: str) -> Path:
    """A real fixture's path, or skip."""
    path = FIXTURES / rel
    if not path.is_file():
        pytest.skip(f"fixture {rel} not found under {FIXTURES}")
    return path


def hybrid(**kwargs: Any) -> Any:
    """docling-core's HybridChunker with the bundled tokenizer (the one EvidenceChunker uses by default)."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import bundled_tokenizer

    return HybridChunker(tokenizer=bundled_tokenizer(), **kwargs)


def build_report_doc(with_table: bool) -> Any:
    """A small document built with docling-core's API: title, two sections, a list, optionally a captioned table."""
    from docling_core.types.doc import DocItemLabel, DoclingDocument
    from docs_builder import table_data

    doc = DoclingDocument(name="report")
    doc.add_title(text="Quarterly report")
    doc.add_heading(text="Results", level=1)
    doc.add_text(label=DocItemLabel.TEXT, text="Sales rose in all regions. " * 60)
    doc.add_text(label=DocItemLabel.TEXT, text="The table below lists the sales per region.")
    if with_table:
        caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 1: Sales per region")
        doc.add_table(data=table_data([["Region", "Sales"]], [["North", "12"], ["South", "7"]]), caption=caption)
    doc.add_heading(text="Outlook", level=1)
    group = doc.add_list_group()
    for k in range(3):
        doc.add_list_item(text=f"Outlook item {k}: demand stays strong in segment {k}.", parent=group)
    doc.add_text(label=DocItemLabel.TEXT, text="Risks remain. " * 40)
    return doc


def pipeline(chunker: Any, doc: Any) -> list[dict[str, Any]]:
    """Calling code written against docling-core's ``BaseChunker`` API only (what a HybridChunker user has)."""
    from docling_core.transforms.chunker import BaseChunker, DocChunk

    assert isinstance(chunker, BaseChunker)
    records = []
    for chunk in chunker.chunk(dl_doc=doc):
        embed_text = chunker.contextualize(chunk=chunk)
        dumped = chunk.export_json_dict()
        back = DocChunk.model_validate(dumped)
        records.append(
            {
                "text": chunk.text,
                "embed": embed_text,
                "headings": chunk.meta.headings,
                "refs": [item.self_ref for item in chunk.meta.doc_items],
                "back_text": back.text,
                "back_refs": [item.self_ref for item in back.meta.doc_items],
                "back_headings": back.meta.headings,
            }
        )
    return records


# ---------------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("with_table", [False, True], ids=["no-table", "table"])
def test_same_calling_code_works_with_both_chunkers(with_table: bool) -> None:
    from docling_evidence import EvidenceChunker

    doc = build_report_doc(with_table)
    for chunker in (hybrid(), EvidenceChunker()):
        records = pipeline(chunker, doc)
        assert records
        for rec in records:
            assert rec["text"] and rec["text"] in rec["embed"]
            assert rec["back_text"] == rec["text"]
            assert rec["back_refs"] == rec["refs"]
            assert rec["back_headings"] == rec["headings"]
            for heading in rec["headings"] or []:
                assert heading in rec["embed"]


def test_same_calling_code_on_a_real_fixture() -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(fixture("docling/2305.03393v1-pg9.json"))
    for chunker in (hybrid(), EvidenceChunker()):
        records = pipeline(chunker, doc)
        assert any("#/tables/0" in rec["refs"] for rec in records)
        assert all(rec["back_refs"] == rec["refs"] for rec in records)


@pytest.mark.parametrize("always_emit_headings", [False, True])
def test_text_chunks_equal_hybridchunker_without_tables(always_emit_headings: bool) -> None:
    from docling_evidence import EvidenceChunker

    doc = build_report_doc(with_table=False)
    theirs = list(hybrid(always_emit_headings=always_emit_headings).chunk(doc))
    ours = list(EvidenceChunker(always_emit_headings=always_emit_headings).chunk(doc))
    assert len(theirs) > 2
    assert [c.text for c in ours] == [c.text for c in theirs]
    assert [c.meta.headings for c in ours] == [c.meta.headings for c in theirs]
    assert [[it.self_ref for it in c.meta.doc_items] for c in ours] == [
        [it.self_ref for it in c.meta.doc_items] for c in theirs
    ]
    assert {c.meta.kind for c in ours} == {"text"}


def test_text_chunks_equal_hybridchunker_on_a_real_document_without_tables() -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(fixture("docling/multi_page.json"))
    assert not doc.tables
    chunker = EvidenceChunker()
    theirs_chunker = hybrid(always_emit_headings=chunker.always_emit_headings)
    theirs = list(theirs_chunker.chunk(doc))
    ours = list(chunker.chunk(doc))
    assert [c.text for c in ours] == [c.text for c in theirs]
    assert [chunker.contextualize(c) for c in ours] == [theirs_chunker.contextualize(c) for c in theirs]


def _holders(chunks: list[Any], ref: str) -> list[Any]:
    return [c for c in chunks if ref in {it.self_ref for it in c.meta.doc_items}]


def test_caption_item_goes_with_its_table() -> None:
    from docling_evidence import EvidenceChunker

    doc = build_report_doc(with_table=True)
    caption_ref = doc.tables[0].captions[0].cref
    with_caption = _holders(list(EvidenceChunker().chunk(doc)), caption_ref)
    assert [c.meta.kind for c in with_caption] == ["table"]
    assert "#/tables/0" in {it.self_ref for it in with_caption[0].meta.doc_items}
    assert with_caption[0].meta.caption_source == "docling_ref"
    assert with_caption[0].text.startswith("Table 1: Sales per region")


def test_caption_item_goes_with_its_table_unlike_hybridchunker_on_a_real_fixture() -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(fixture("docling/2305.03393v1-pg9.json"))
    caption_ref = doc.tables[0].captions[0].cref
    theirs = _holders(list(hybrid().chunk(doc)), "#/tables/0")
    assert theirs and all(caption_ref not in {it.self_ref for it in c.meta.doc_items} for c in theirs)
    ours = list(EvidenceChunker().chunk(doc))
    with_caption = _holders(ours, caption_ref)
    assert {c.meta.kind for c in with_caption} == {"table"}  # the pieces that show the caption, never a text chunk
    assert with_caption[0].meta.part == 0


# --- HTML converted by Docling ----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def html_doc(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The HTML above, converted by Docling once per module (importing docling is the slow part)."""
    converter = pytest.importorskip("docling.document_converter", reason="docling ('convert' extra) not installed")
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(HTML, encoding="utf-8")
    return converter.DocumentConverter().convert(path).document


def test_html_table_unit_has_caption_and_reading_order_context(html_doc: Any) -> None:
    from docling_evidence import EvidenceChunker

    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(html_doc))
    units = [c for c in chunks if c.meta.kind == "table"]
    assert len(units) == 1
    unit = units[0]
    by_role: dict[str, list[str]] = {}
    for item in unit.meta.doc_items:
        by_role.setdefault(unit.meta.roles[item.self_ref], []).append(item.text if hasattr(item, "text") else "")
    assert unit.meta.caption_source == "docling_ref"
    assert unit.meta.caption == "Table 1: Revenue by segment"
    assert by_role["caption"] == ["Table 1: Revenue by segment"]
    assert by_role["footnote"] == ["* Amounts in millions of USD."]
    context = by_role["context"]
    assert "Table 1 shows revenue by segment for the last two fiscal years." in context
    assert "Devices revenue declined because smartphone shipments fell." in context
    assert not any("next year" in text for text in context), "context crossed into the 'Outlook' section"
    embed = chunker.contextualize(unit)
    assert "<table" not in embed and "| Cloud | 120 | 150 |" in embed
    assert embed.index("Table 1: Revenue") < embed.index("| Cloud") < embed.index("* Amounts in millions")
    assert unit.meta.page_span == []  # HTML has no pages
    caption_ref = next(r for r, role in unit.meta.roles.items() if role == "caption")
    assert all(caption_ref not in {it.self_ref for it in c.meta.doc_items} for c in chunks if c.meta.kind == "text")
    assert any("next year" in c.text for c in chunks if c.meta.kind == "text")


def test_html_round_trips_and_works_with_the_calling_code(html_doc: Any) -> None:
    from docling_evidence import EvidenceChunker

    records = pipeline(EvidenceChunker(), html_doc)
    assert any("Table 1: Revenue by segment" in rec["embed"] for rec in records)


# --- metadata round trip ------------------------------------------------------------------------------------------


def _round_trip(chunks: list[Any]) -> None:
    from docling_core.transforms.chunker import DocChunk

    from docling_evidence import EvidenceChunk

    for chunk in chunks:
        back = EvidenceChunk.model_validate(chunk.model_dump())
        assert back.model_dump() == chunk.model_dump()
        for name in EVIDENCE_FIELDS:
            assert getattr(back.meta, name) == getattr(chunk.meta, name), name
        from_json = EvidenceChunk.model_validate(chunk.export_json_dict())
        for name in EVIDENCE_FIELDS:
            assert getattr(from_json.meta, name) == getattr(chunk.meta, name), name
        plain = DocChunk.model_validate(chunk.export_json_dict())  # as docling-core code would read it
        assert plain.text == chunk.text


def test_evidence_meta_round_trips_on_a_built_document() -> None:
    from docling_evidence import EvidenceChunker

    chunks = list(EvidenceChunker().chunk(build_report_doc(with_table=True)))
    assert {c.meta.kind for c in chunks} == {"text", "table"}
    _round_trip(chunks)


def test_evidence_meta_round_trips_on_a_split_unit_of_a_real_fixture() -> None:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(fixture("docling/2305.03393v1-pg9.json"))
    chunks = list(EvidenceChunker().chunk(doc))
    pieces = [c for c in chunks if c.meta.kind == "table"]
    assert len(pieces) > 1 and all(c.meta.rows is not None for c in pieces)
    assert all(c.meta.page_span == [1] for c in pieces)
    _round_trip(chunks)


def test_evidence_meta_round_trips_on_html(html_doc: Any) -> None:
    from docling_evidence import EvidenceChunker

    _round_trip(list(EvidenceChunker().chunk(html_doc)))
