"""Paragraphs that Docling reads as inline groups (runs of text, links and code spans: HTML, Markdown, DOCX) are
context as one paragraph: whole, or some of its sentences, never a run alone ("The", "flags:")."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table

from docling_evidence import EvidenceChunker
from docling_evidence.document.index import build_index

LONG = " ".join(f"Filler sentence {k} says nothing about the table or its rows." for k in range(3))


def _doc() -> DoclingDocument:
    """A heading, an inline paragraph naming Table 1 (text, code span, text, link), the table, a plain paragraph."""
    doc = DoclingDocument(name="flags")
    doc.add_heading(text="File system flags")
    lead = doc.add_inline_group(parent=doc.body)
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 lists the flags that", parent=lead)
    doc.add_code(text="fs.open()", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="accepts; see", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text="the manual", hyperlink="https://example.org/manual", parent=lead)
    doc.add_text(label=DocItemLabel.TEXT, text=". " + LONG, parent=lead)
    add_table(
        doc, [["Flag", "Meaning"]], [["r", "open for reading"], ["w", "open for writing"]], caption="Table 1: Flags"
    )
    doc.add_text(label=DocItemLabel.TEXT, text="The flag w creates the file when it does not exist.")
    return doc


def test_an_inline_group_is_one_paragraph_of_the_index() -> None:
    doc = _doc()
    index = build_index(doc)
    runs = [i for i, it in enumerate(index.items) if it.parent and it.parent.cref == "#/groups/0"]
    assert len(runs) == 5
    assert index.members(runs[0]) == tuple(runs)
    assert [index.is_paragraph(i) for i in runs] == [True, False, False, False, False]
    assert index.paragraph_text(runs[0]).startswith("Table 1 lists the flags that fs.open() accepts; see the manual .")


def test_inline_paragraph_is_context_whole_and_leaves_the_text_chunks() -> None:
    doc = _doc()
    chunker = EvidenceChunker()
    chunks = list(chunker.chunk(doc))
    (unit,) = [c for c in chunks if c.meta.kind == "table"]
    runs = [it.self_ref for it in doc.texts if it.parent and it.parent.cref == "#/groups/0"]
    # the whole group, as docling-core writes it (code span and link kept), on one line
    assert "Table 1 lists the flags that `fs.open()` accepts; see [the manual](https://example.org/manual)" in unit.text
    assert "Filler sentence 2 says nothing" in unit.text
    assert {r: unit.meta.roles.get(r) for r in runs} == dict.fromkeys(runs, "context")
    texts = {it.self_ref: it.text for it in doc.texts}
    assert {r: unit.meta.context_spans[r] for r in runs} == {r: [(0, len(texts[r]))] for r in runs}
    # shown whole in the unit: in no text chunk again (context_in_text=False), and nothing of it lost
    assert not any(r in {d.self_ref for d in c.meta.doc_items} for c in chunks if c.meta.kind == "text" for r in runs)
    assert sum(c.text.count("Filler sentence 2") for c in chunks) == 1


def test_an_inline_group_too_long_for_the_budget_gives_its_sentence_naming_the_table() -> None:
    """A long paragraph with a link or a code span gives the sentences that explain the table, as a plain one does:
    the sentence naming Table 1 (which runs over a code span and a link) is shown, the filler is not, the meta gives
    each run touched its own characters, and the whole paragraph stays in its text chunk."""
    doc = _doc()
    chunker = EvidenceChunker(context_max_tokens=20)
    chunks = list(chunker.chunk(doc))
    (unit,) = [c for c in chunks if c.meta.kind == "table"]
    runs = [it for it in doc.texts if it.parent and it.parent.cref == "#/groups/0"]
    assert "Table 1 lists the flags that fs.open() accepts; see the manual ." in unit.text
    assert "Filler sentence" not in unit.text
    spans = unit.meta.context_spans
    assert [r.self_ref for r in runs[:4]] == [r for r in spans if r in {x.self_ref for x in runs}][:4]
    for run in runs:
        for a, b in spans.get(run.self_ref, []):
            assert run.text[a:b] in unit.text
    assert spans[runs[-1].self_ref] == [(0, 1)]  # the final run: only its "." ends the sentence
    assert all(unit.meta.roles[r.self_ref] == "context" for r in runs if r.self_ref in spans)
    # shown in part: the paragraph stays in its text chunk, whole, and nowhere is a run lost
    text_chunks = [c for c in chunks if c.meta.kind == "text"]
    assert sum("Filler sentence 2" in c.text for c in chunks) == 1
    (kept,) = [c for c in text_chunks if "Filler sentence 2" in c.text]
    assert [d.self_ref for d in kept.meta.doc_items] == [r.self_ref for r in runs]


def _list_with_inline_items() -> DoclingDocument:
    """A Markdown-style list whose items hold inline groups ("- {string} The directory of the `x` module.")."""
    doc = DoclingDocument(name="api")
    doc.add_heading(text="import.meta")
    items = doc.add_list_group(parent=doc.body)
    for k in range(3):
        item = doc.add_list_item(text="", parent=items)
        runs = doc.add_inline_group(parent=item)
        doc.add_text(label=DocItemLabel.TEXT, text=f"The directory name of module {k}, the same as", parent=runs)
        doc.add_code(text="path.dirname()", parent=runs)
        doc.add_text(label=DocItemLabel.TEXT, text="of the", parent=runs)
        doc.add_text(label=DocItemLabel.TEXT, text="import.meta.filename", hyperlink="#filename", parent=runs)
        doc.add_text(label=DocItemLabel.TEXT, text=".", parent=runs)
    return doc


def test_runs_written_inside_a_list_item_are_not_emitted_again_as_chunks_of_their_own() -> None:
    """HybridChunker lists the list item, not the runs inside it; they are in its text, not lost, so they are not
    emitted again one chunk each ('of the', '.': 869 of 943 chunks of the Node.js esm.md page before)."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence.tokenizer import bundled_tokenizer

    doc = _list_with_inline_items()
    ours = list(EvidenceChunker().chunk(doc))
    theirs = list(HybridChunker(tokenizer=bundled_tokenizer()).chunk(doc))
    assert [c.text for c in ours] == [c.text for c in theirs]
    listed = {d.self_ref for c in theirs for d in c.meta.doc_items}
    assert not any(d.self_ref in listed for d in doc.texts if d.text == "of the")  # the case: runs not listed
    for k in range(3):
        assert sum(f"module {k}, the same as `path.dirname()` of the" in c.text for c in ours) == 1
