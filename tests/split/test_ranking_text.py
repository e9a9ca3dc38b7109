"""What a table piece is ranked by (``EvidenceChunker.contextualize``) against what it delivers (``chunk.text``)."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunk, EvidenceChunker
from docling_evidence.assemble.views import ranking_text
from docling_evidence.tokenizer import bundled_tokenizer

CAPTION = "Table 1: Revenue by segment, in millions of dollars"
HEADER = "| Segment | 2019 | 2018 |"


def _doc(rows: int = 6, sentences: int = 12) -> DoclingDocument:
    doc = DoclingDocument(name="ranking")
    doc.add_heading("Results of operations")
    lead = " ".join(
        f"Table 1 shows that revenue of the business line number {i} grew because demand for services rose."
        for i in range(sentences)
    )
    doc.add_text(label=DocItemLabel.TEXT, text=lead)
    add_table(
        doc,
        [["Segment", "2019", "2018"]],
        [[f"Segment {i}", f"{100 + i}.5", f"{90 + i}.1"] for i in range(rows)],
        caption=CAPTION,
    )
    return doc


def _pieces(doc: DoclingDocument, limit: int) -> tuple[EvidenceChunker, list[EvidenceChunk]]:
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(limit))
    return chunker, [c for c in chunker.chunk(doc) if c.meta.kind == "table"]


def _rowless(pieces: list[EvidenceChunk]) -> list[EvidenceChunk]:
    return [p for p in pieces if p.meta.rows[0] == p.meta.rows[1]]


def test_a_piece_of_context_is_ranked_without_the_caption_and_header_it_repeats() -> None:
    chunker, pieces = _pieces(_doc(), 96)
    rowless = _rowless(pieces)
    assert rowless and len(rowless) < len(pieces)
    for piece in rowless:
        embedded = chunker.contextualize(piece)
        # delivered, the piece lists the table and shows its caption and header
        assert CAPTION in piece.text and HEADER in piece.text
        assert CAPTION not in embedded and HEADER not in embedded and "|---|" not in embedded
        assert embedded.startswith("Results of operations\nTable 1 shows")
        assert "\n\n\n" not in embedded
    for piece in pieces:
        if piece not in rowless:  # the pieces showing rows are embedded as docling-core embeds them
            assert chunker.contextualize(piece) == "Results of operations\n" + piece.text
            assert CAPTION in piece.text and HEADER in piece.text


def test_the_ranking_text_survives_a_json_round_trip_and_leaves_views_alone() -> None:
    chunker, pieces = _pieces(_doc(), 96)
    for piece in pieces:
        again = EvidenceChunk.model_validate_json(piece.model_dump_json())
        assert chunker.contextualize(again) == chunker.contextualize(piece)
        for view, text in zip(piece.meta.views, chunker.contextualize_views(piece), strict=True):
            assert text == "Results of operations\n" + view


def test_a_table_of_only_a_header_keeps_its_caption_and_header_in_the_ranking_text() -> None:
    text = f"{CAPTION}\n\n{HEADER}\n|---|---|---|"
    assert ranking_text(text, ["caption", "", "header", "header"], (0, 0)) == text
    assert ranking_text(text, ["caption", "", "header", "header"], (0, 2)) == text
    assert ranking_text("a view", ["caption", "", "context #/texts/1"], (0, 0)) == "a view"
    assert ranking_text("c\n\nx", ["caption", "", "context #/texts/1"], None) == "c\n\nx"


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 12), sentences=st.integers(0, 14), limit=st.sampled_from([64, 96, 128, 256]))
def test_every_ranking_text_is_within_the_limit_and_made_of_the_pieces_own_lines(
    rows: int, sentences: int, limit: int
) -> None:
    chunker, pieces = _pieces(_doc(rows, sentences), limit)
    for piece in pieces:
        embedded = chunker.contextualize(piece)
        assert chunker.tokenizer.count_tokens(embedded) <= limit
        body = embedded.removeprefix("Results of operations\n")
        assert set(body.split("\n")) <= set(piece.text.split("\n"))
        # nothing of the piece's own (context, rows, footnotes) is left out of what ranks it
        own = [
            line
            for line, role in zip(piece.text.split("\n"), piece.meta.line_roles, strict=True)
            if role.partition(" ")[0] not in {"caption", "header", "frame", ""}
        ]
        assert all(line in body.split("\n") for line in own) or not own
