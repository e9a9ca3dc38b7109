"""What belongs to which table when two tables are close: captions, footnotes, context and ids (a hostile review
found each of these going to the wrong table, or across a section)."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument, DocumentOrigin
from docs_builder import add_table, paged_doc, prov

from docling_evidence import EvidenceChunker
from docling_evidence.tokenizer import bundled_tokenizer


def _units(doc: DoclingDocument) -> dict[str, object]:
    """First piece's meta of every unit, by the table it holds."""
    out: dict[str, object] = {}
    for chunk in EvidenceChunker(tokenizer=bundled_tokenizer(256)).chunk(doc):
        if chunk.meta.kind == "table":
            table = next(ref for ref, role in chunk.meta.roles.items() if role == "table")
            out.setdefault(table, chunk.meta)
    return out


def test_a_caption_between_two_tables_goes_to_the_one_it_sits_above() -> None:
    doc = paged_doc(1)
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose in every region.", prov=prov(1, 72, 60, 540, 90))
    add_table(doc, [["Region", "2023"]], [["North", "1,234"], ["South", "5,678"]], provs=[prov(1, 72, 100, 540, 200)])
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Headcount by office", prov=prov(1, 72, 215, 540, 227))
    add_table(doc, [["Office", "Staff"]], [["Paris", "120"], ["Rome", "80"]], provs=[prov(1, 72, 230, 540, 300)])
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Table 2 shows that Paris has the largest office.",
        prov=prov(1, 72, 320, 540, 340),
    )
    units = _units(doc)
    assert units["#/tables/0"].caption is None
    assert units["#/tables/1"].caption == "Table 2: Headcount by office"
    assert units["#/tables/1"].roles.get("#/texts/2") == "context"  # "Table 2 shows ..." is about table 2
    assert "#/texts/2" not in units["#/tables/0"].roles


def test_without_layout_too_the_caption_goes_to_the_table_it_heads() -> None:
    doc = DoclingDocument(name="order")
    doc.add_heading(text="Results", level=1)
    add_table(doc, [["Region", "2023"]], [["North", "1,234"]])
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2: Headcount by office")
    add_table(doc, [["Office", "Staff"]], [["Paris", "120"]])
    units = _units(doc)
    assert units["#/tables/0"].caption is None and units["#/tables/1"].caption == "Table 2: Headcount by office"


def test_the_adjacent_page_rule_leaves_the_next_tables_caption_alone() -> None:
    doc = paged_doc(2)
    add_table(doc, [["Office", "Staff"]], [["Paris", "120"], ["Rome", "80"]], provs=[prov(1, 72, 530, 540, 760)])
    doc.add_text(label=DocItemLabel.TEXT, text="Table 5: Expenses by quarter", prov=prov(2, 72, 40, 540, 55))
    add_table(doc, [["Quarter", "Expenses", "Notes"]], [["Q1", "1,000", "x"]], provs=[prov(2, 72, 60, 540, 200)])
    units = _units(doc)
    assert units["#/tables/0"].caption is None and units["#/tables/0"].page_span == [1]
    assert units["#/tables/1"].caption == "Table 5: Expenses by quarter"


def test_a_sentence_about_a_table_is_not_a_caption() -> None:
    doc = DoclingDocument(name="s")
    doc.add_heading(text="Results", level=1)
    add_table(doc, [["Region", "Revenue"]], [["North", "1,234"]])
    doc.add_text(label=DocItemLabel.TEXT, text="Table 2 contrasts these regions with last year.")
    doc.add_heading(text="Staff", level=1)
    add_table(doc, [["Office", "Staff"]], [["Paris", "120"]], caption="Table 2: Headcount by office")
    assert _units(doc)["#/tables/0"].caption is None


def test_a_section_heading_and_its_numbered_notes_are_not_footnotes() -> None:
    doc = DoclingDocument(name="n")
    doc.add_heading(text="Balance sheet", level=1)
    add_table(doc, [["Item", "2023"]], [["Cash", "1,234"]], caption="Table 1: Balance sheet")
    doc.add_heading(text="Notes to the financial statements", level=1)
    doc.add_text(label=DocItemLabel.TEXT, text="1) Basis of preparation. The statements are prepared under IFRS.")
    roles = _units(doc)["#/tables/0"].roles
    assert "footnote" not in roles.values()


def test_a_units_line_just_above_the_next_table_is_not_the_previous_tables_footnote() -> None:
    doc = paged_doc(1)
    add_table(
        doc,
        [["Region", "Revenue"]],
        [["North", "1,234"]],
        caption="Table 1: Revenue by region",
        caption_prov=prov(1, 72, 85, 540, 97),
        provs=[prov(1, 72, 100, 540, 200)],
    )
    doc.add_text(label=DocItemLabel.TEXT, text="(In thousands of EUR)", prov=prov(1, 72, 245, 540, 255))
    add_table(
        doc,
        [["Region", "Expenses"]],
        [["North", "310"]],
        caption="Table 2: Expenses by region",
        caption_prov=prov(1, 72, 362, 540, 374),
        provs=[prov(1, 72, 258, 540, 360)],
    )
    units = _units(doc)
    assert "footnote" not in units["#/tables/0"].roles.values()
    assert "#/texts/1" in units["#/tables/1"].roles


def test_context_does_not_reach_across_another_table_at_a_page_break() -> None:
    doc = paged_doc(2)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Revenue by region grew in 2022 as the North region expanded.",
        prov=prov(1, 72, 380, 540, 400),
    )
    add_table(
        doc,
        [["Region", "Revenue 2022"]],
        [["North", "900"]],
        caption="Table 1: Revenue by region, 2022",
        caption_prov=prov(1, 72, 410, 540, 425),
        provs=[prov(1, 72, 430, 540, 760)],
    )
    add_table(
        doc,
        [["Region", "Revenue 2023"]],
        [["North", "1,234"]],
        caption="Table 2: Revenue by region, 2023",
        caption_prov=prov(2, 72, 40, 540, 55),
        provs=[prov(2, 72, 60, 540, 200)],
    )
    units = _units(doc)
    assert "#/texts/0" not in units["#/tables/1"].roles and units["#/tables/1"].page_span == [2]
    assert units["#/tables/0"].roles["#/texts/0"] == "context"


def test_documents_sharing_an_origin_never_share_a_unit_id() -> None:
    # one PDF converted in page ranges: every part carries the whole file's origin
    origin = DocumentOrigin(mimetype="application/pdf", binary_hash=123456789, filename="report.pdf")
    ids = []
    for rows in ([["Cash", "1,234"]], [["Staff", "120"]]):
        doc = DoclingDocument(name="report", origin=origin)
        add_table(doc, [["Item", "2023"]], rows, caption="Table 1: Figures")
        ids.append({c.meta.unit_id for c in EvidenceChunker().chunk(doc)})
    assert not ids[0] & ids[1]
    again = DoclingDocument(name="report", origin=origin)
    add_table(again, [["Item", "2023"]], [["Cash", "1,234"]], caption="Table 1: Figures")
    assert {c.meta.unit_id for c in EvidenceChunker().chunk(again)} == ids[0], "same content: same ids"


def test_a_caption_right_under_a_picture_is_the_pictures_not_the_next_tables() -> None:
    doc = paged_doc(1)
    doc.add_picture(prov=prov(1, 72, 100, 540, 300))
    text = "Distribution of revenue across regions in 2023."
    doc.add_text(label=DocItemLabel.CAPTION, text=text, prov=prov(1, 72, 305, 540, 320))
    add_table(doc, [["Region", "Revenue"]], [["North", "1,234"]], provs=[prov(1, 72, 330, 540, 450)])
    units = _units(doc)
    assert units["#/tables/0"].caption is None
    chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(256)).chunk(doc))
    assert sum(text in c.text for c in chunks) == 1, "the caption is still delivered, once"
