"""No body text is lost: every paragraph, heading, table cell and every caption and footnote Docling links to a float
(under the float, as Docling builds them, or in the body) is in some chunk; the text inside a figure is in none, as
in HybridChunker."""

from __future__ import annotations

from dataclasses import dataclass

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker
from docling_evidence.tokenizer import bundled_tokenizer

_WORDS = ["revenue", "rose", "Table", "1", "Figure", "2", "in", "millions", "of", "USD", "Source:", "the", "net"]


@dataclass(frozen=True)
class _Block:
    kind: str  # "paragraph", "heading", "figure", "table"
    words: int
    caption: bool
    note: str  # "", "under" (the float's child, as Docling builds it) or "body"


_blocks = st.builds(
    _Block,
    kind=st.sampled_from(["paragraph", "paragraph", "heading", "figure", "table"]),
    words=st.integers(1, 90),
    caption=st.booleans(),
    note=st.sampled_from(["", "under", "body"]),
)


def _text(tag: str, n: int) -> str:
    """``n`` words ending with a unique tag word, so that each text is found by its tag alone."""
    return " ".join([_WORDS[k % len(_WORDS)] for k in range(n)] + [tag])


def _build(blocks: list[_Block]) -> tuple[DoclingDocument, list[str], list[str]]:
    """The document, the tags every chunk set must show, and the tags no chunk may show (text inside figures)."""
    doc = DoclingDocument(name="generated")
    kept: list[str] = []
    inside: list[str] = []
    for k, b in enumerate(blocks):
        if b.kind in ("paragraph", "heading"):
            tag = f"zz{k}p"
            if b.kind == "heading":
                doc.add_heading(_text(tag, min(b.words, 8)))
            else:
                doc.add_text(DocItemLabel.TEXT, _text(tag, b.words))
            kept.append(tag)
            continue
        if b.kind == "figure":
            float_item = doc.add_picture()
            doc.add_text(DocItemLabel.TEXT, _text(f"zz{k}inside", 3), parent=float_item)
            inside.append(f"zz{k}inside")
        else:
            float_item = add_table(doc, [["Segment", "2023"]], [[_text(f"zz{k}cell", 2), "1,496.5"]])
            kept.append(f"zz{k}cell")
        if b.caption:
            cap = doc.add_text(DocItemLabel.CAPTION, _text(f"zz{k}cap", min(b.words, 20)), parent=float_item)
            float_item.captions.append(cap.get_ref())
            kept.append(f"zz{k}cap")
        if b.note:
            parent = float_item if b.note == "under" else None
            note = doc.add_text(DocItemLabel.FOOTNOTE, _text(f"zz{k}note", b.words), parent=parent)
            float_item.footnotes.append(note.get_ref())
            kept.append(f"zz{k}note")
    return doc, kept, inside


@settings(max_examples=40, deadline=None)
@given(blocks=st.lists(_blocks, min_size=1, max_size=8), limit=st.sampled_from([64, 128, 512]))
def test_every_body_text_is_chunked_within_the_limit_and_figure_text_is_not(blocks: list[_Block], limit: int) -> None:
    doc, kept, inside = _build(blocks)
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(limit))
    chunks = list(chunker.chunk(doc))
    words = {w for c in chunks for w in chunker.contextualize(c).replace("|", " ").split()}
    assert [t for t in kept if t not in words] == [], "a body text is in no chunk"
    assert [t for t in inside if t in words] == [], "text inside a figure is chunked"
    assert all(chunker.tokenizer.count_tokens(chunker.contextualize(c)) <= limit for c in chunks)
