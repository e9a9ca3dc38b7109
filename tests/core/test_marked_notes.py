"""Table notes written as a marker alone and then the note (publisher HTML: "a", "iv dose: 1 mg/kg.", "b", ...): each
marker and its note are one footnote of the table above, shown on one line; a stray letter is no note."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table

from docling_evidence import EvidenceChunker, EvidenceParams, UnitParams
from docling_evidence.document.index import build_index
from docling_evidence.meta import EvidenceChunk


def _doc(*after: str | tuple[str, ...]) -> DoclingDocument:
    """A section with a table and, below it, ``after``: texts, or tuples of runs of one inline paragraph."""
    doc = DoclingDocument(name="notes")
    doc.add_heading(text="Pharmacokinetics", level=1)
    add_table(doc, [["compd", "Clb"]], [["25", "34"], ["27", "12"]], caption="Table 7. Profile in mice")
    for text in after:
        if isinstance(text, tuple):
            group = doc.add_inline_group()
            for run in text:
                doc.add_text(label=DocItemLabel.TEXT, text=run, parent=group)
        else:
            doc.add_text(label=DocItemLabel.TEXT, text=text)
    return doc


def _chunks(doc: DoclingDocument, **params: object) -> tuple[list[EvidenceChunk], list[EvidenceChunk]]:
    chunker = EvidenceChunker(params=EvidenceParams(units=UnitParams(**params))) if params else EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    return [c for c in chunks if c.meta.kind == "table"], [c for c in chunks if c.meta.kind == "text"]


def _footnote_texts(doc: DoclingDocument, tables: list[EvidenceChunk]) -> list[str]:
    index = build_index(doc)
    refs = {ref for c in tables for ref, role in c.meta.roles.items() if role == "footnote"}
    return [index.items[index.order[r]].text for r in sorted(refs, key=index.order.__getitem__)]  # type: ignore[attr-defined]


def test_markers_and_their_notes_are_the_tables_footnotes_each_on_one_line() -> None:
    doc = _doc("a", "iv dose: 1 mg/kg.", "b", "po dose: 3 mg/kg.", "Clearance fell in every compound we made.")
    tables, texts = _chunks(doc)
    assert _footnote_texts(doc, tables) == ["a", "iv dose: 1 mg/kg.", "b", "po dose: 3 mg/kg."]
    lines = tables[-1].text.splitlines()
    assert "a iv dose: 1 mg/kg." in lines and "b po dose: 3 mg/kg." in lines
    roles = dict(zip(lines, tables[-1].meta.line_roles, strict=True))
    assert roles["a iv dose: 1 mg/kg."].startswith("footnote ")  # the packer reads the note as one footnote
    assert not any("mg/kg" in c.text for c in texts)  # each text in one chunk
    assert any("Clearance fell" in c.text for c in (*tables, *texts))  # the paragraph below is no note


def test_a_note_written_as_runs_is_one_note_with_every_run() -> None:
    doc = _doc("a", ("Data for compound", "2", "reported previously."), "Clearance fell in every compound.")
    tables, _ = _chunks(doc)
    assert _footnote_texts(doc, tables) == ["a", "Data for compound", "2", "reported previously."]
    assert "a Data for compound 2 reported previously." in tables[-1].text.splitlines()


def test_a_stray_letter_or_a_marker_before_a_heading_is_no_note() -> None:
    stray = _doc("b", "Clearance fell in every compound we made.")
    assert _footnote_texts(stray, _chunks(stray)[0]) == []
    doc = DoclingDocument(name="h")
    add_table(doc, [["compd", "Clb"]], [["25", "34"]])
    doc.add_text(label=DocItemLabel.TEXT, text="a")
    doc.add_heading(text="Conclusions", level=1)
    assert _footnote_texts(doc, _chunks(doc)[0]) == []


def test_footnote_max_items_counts_notes() -> None:
    doc = _doc("a", "iv dose: 1 mg/kg.", "b", "po dose: 3 mg/kg.")
    assert _footnote_texts(doc, _chunks(doc, footnote_max_items=1)[0]) == ["a", "iv dose: 1 mg/kg."]
    assert _footnote_texts(doc, _chunks(doc, footnote_max_items=0)[0]) == []
