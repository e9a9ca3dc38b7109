"""Invariants of EvidenceChunker.pack for any budget and ranking, on EvidenceChunker's and HybridChunker's chunks."""

from __future__ import annotations

from typing import Any

import pytest
from docling_core.transforms.chunker.doc_chunk import DocChunk
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packdocs import BODY, CAPTION, FOOTNOTE, HEADER, SEGMENTS

from docling_evidence import EvidenceChunker, bundled_tokenizer
from docling_evidence.meta import EvidenceChunk
from docling_evidence.pack.segments import said_words, triplet_rows

WORDS = [*(w for name in SEGMENTS for w in name.split()), "revenue", "margin", "2019", "2020", "dividends", "hiring"]
QUERIES = st.lists(st.sampled_from(WORDS + [c for row in BODY for c in row[1:]]), min_size=0, max_size=5).map(" ".join)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _rankings(n: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, n - 1), min_size=1, max_size=12)


def _markdown_rows() -> set[str]:
    return {"| " + " | ".join(row) + " |" for row in BODY}


def _labelled(row: list[str]) -> str:
    """A body row as it reads without its header: each value named by its column."""
    return f"{row[0]}: " + "; ".join(f"{h} = {c}" for h, c in zip(HEADER[1:], row[1:], strict=True))


BUDGETS = st.one_of(st.integers(1, 700), st.integers(30, 90))
"""Any budget, and often the narrow ones where a row fits but its caption and header do not."""


def _check_common(chunker: EvidenceChunker, ranked: list[Any], packed: Any, budget: int) -> None:
    assert packed.tokens == chunker.tokenizer.count_tokens(packed.text) <= budget
    assert str(packed) == packed.text
    keys = [b.key for b in packed.blocks]
    assert len(keys) == len(set(keys)), "each unit once"
    firsts = [b.ranks[0] for b in packed.blocks]
    assert firsts == sorted(firsts), "ranking order kept"
    assert packed.text == "\n\n".join(b.text for b in packed.blocks)
    said = [said_words(s.text) for b in packed.blocks for s in b.sentences]
    assert len(said) == len(set(said)), "a sentence is delivered once, whichever chunks show it"
    for block in packed.blocks:
        # the chunks merged into a block: some, in ranking order, each from the ranking and of the block's unit
        assert (
            block.ranks
            and block.ranks == sorted(set(block.ranks))
            and 0 <= block.ranks[0] <= block.ranks[-1] < len(ranked)
        )
        for r in block.ranks:
            unit_id = getattr(ranked[r].meta, "unit_id", None)
            assert unit_id is None or unit_id == block.unit_id, (r, unit_id, block.key)
        chunk_refs = {item.self_ref for r in block.ranks for item in ranked[r].meta.doc_items}
        assert set(block.doc_refs) <= chunk_refs, "the refs a block cites are its chunks' items"


@SETTINGS
@given(ranking=st.data(), budget=BUDGETS, query=QUERIES)
def test_evidence_chunks_pack_within_budget_with_whole_framed_or_labelled_rows(
    chunker: EvidenceChunker, evidence_chunks: list[Any], ranking: st.DataObject, budget: int, query: str
) -> None:
    order = ranking.draw(_rankings(len(evidence_chunks)))
    ranked = [evidence_chunks[k] for k in order]
    packed = chunker.pack(query, ranked, budget)
    _check_common(chunker, ranked, packed, budget)
    header = "| " + " | ".join(HEADER) + " |"
    whole = _markdown_rows()
    for block in packed.blocks:
        lines = block.text.split("\n")
        framed = [row for row in block.rows if row.text in whole]
        for row in block.rows:
            assert row.text in lines
            assert row.index is not None and BODY[row.index][0] == row.label
            assert row in framed or row.text == _labelled(BODY[row.index]), "no row cut: framed, or every value named"
        if framed:
            assert block.caption == CAPTION and block.text.startswith(CAPTION), "the caption comes with a framed row"
            assert lines.index(header) < lines.index(framed[0].text), "the header comes before the framed rows"
        if block.rows:
            assert FOOTNOTE in block.text, "an 'in millions' footnote comes with the rows"
    again = EvidenceChunker(tokenizer=bundled_tokenizer(128)).pack(query, ranked, budget)
    assert again.model_dump() == packed.model_dump(), "deterministic, also on a fresh chunker"


@SETTINGS
@given(ranking=st.data(), budget=BUDGETS, query=QUERIES)
def test_json_round_trip_and_lost_metadata(
    chunker: EvidenceChunker, evidence_chunks: list[Any], ranking: st.DataObject, budget: int, query: str
) -> None:
    ranked = [evidence_chunks[k] for k in ranking.draw(_rankings(len(evidence_chunks)))]
    packed = chunker.pack(query, ranked, budget)
    round_trip = [EvidenceChunk.model_validate(c.model_dump()) for c in ranked]
    assert chunker.pack(query, round_trip, budget).text == packed.text
    plain = [DocChunk.model_validate(c.export_json_dict()) for c in ranked]  # evidence fields lost
    degraded = chunker.pack(query, plain, budget)
    _check_common(chunker, plain, degraded, budget)
    whole = _markdown_rows() | {_labelled(row) for row in BODY}
    for block in degraded.blocks:
        assert all(row.text in whole for row in block.rows), "no row cut: framed, or every value named"


def _triplets_in(chunks: list[Any]) -> dict[str, list[str]]:
    """Every triplet that a whole triplet line of the chunks holds, by row label."""
    by_label: dict[str, list[str]] = {}
    for chunk in chunks:
        for label, triplets in triplet_rows(chunk.text.replace("|", " ")):
            by_label.setdefault(label, []).extend(triplets)
    return by_label


@SETTINGS
@given(ranking=st.data(), budget=st.integers(1, 700), query=QUERIES)
def test_hybrid_chunks_pack_with_labelled_triplet_rows(
    chunker: EvidenceChunker, hybrid_chunks: list[Any], ranking: st.DataObject, budget: int, query: str
) -> None:
    ranked = [hybrid_chunks[k] for k in ranking.draw(_rankings(len(hybrid_chunks)))]
    packed = chunker.pack(query, ranked, budget)
    _check_common(chunker, ranked, packed, budget)
    labels = set(SEGMENTS)
    for block in packed.blocks:
        for row in block.rows:
            assert row.label in labels, f"a triplet row keeps its whole label: {row.label!r}"
            for triplet in row.text.split(". "):
                label, _, rest = triplet.partition(", ")
                assert label == row.label and " = " in rest, "all of a row's triplets, each whole"
            index = SEGMENTS.index(row.label)
            values = set(BODY[index][1:])
            assert all(t.split(" = ", 1)[1] in values for t in row.text.split(". "))
        if block.rows and any(CAPTION in ranked[r].text for r in block.ranks):
            assert block.caption == CAPTION, "the caption comes with any row when a chunk shows it"


def test_hybrid_row_cut_over_two_chunks_is_joined(chunker: EvidenceChunker, hybrid_chunks: list[Any]) -> None:
    tables = [c for c in hybrid_chunks if c.text.startswith("| - |")]
    packed = chunker.pack("Medical devices revenue", tables, 2000)
    (block,) = packed.blocks
    medical = next(r for r in block.rows if r.label == "Medical devices")
    assert "Medical devices, Operating margin = 13.3%" in medical.text
    assert medical.ref == "#/tables/0" and block.doc_refs == ["#/tables/0"]
    assert all(r.label in SEGMENTS for r in block.rows)


@pytest.mark.parametrize("budget", [0, -5])
def test_budget_below_one(chunker: EvidenceChunker, evidence_chunks: list[Any], budget: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        chunker.pack("q", evidence_chunks, budget)


@pytest.mark.parametrize("budget", [1.5, "100", True, None])
def test_budget_not_an_int(chunker: EvidenceChunker, evidence_chunks: list[Any], budget: Any) -> None:
    with pytest.raises(ValueError, match="budget must be an int"):
        chunker.pack("q", evidence_chunks, budget)


@pytest.mark.parametrize(
    ("query", "ranked", "match"),
    [(None, [], "query must be a str"), ("q", "text", "ranked must be a sequence"), ("q", [1], r"ranked\[0\]")],
)
def test_wrong_types(chunker: EvidenceChunker, query: Any, ranked: Any, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        chunker.pack(query, ranked, 100)


def test_scorer_checked(chunker: EvidenceChunker, evidence_chunks: list[Any]) -> None:
    with pytest.raises(ValueError, match="scores for"):
        chunker.pack("q", evidence_chunks, 100, scorer=lambda q, texts: [1.0])
    with pytest.raises(TypeError, match="numbers"):
        chunker.pack("q", evidence_chunks, 100, scorer=lambda q, texts: ["x"] * len(texts))
    with pytest.raises(TypeError, match="callable"):
        chunker.pack("q", evidence_chunks, 100, scorer=3)  # type: ignore[arg-type]


def test_empty_ranking_packs_nothing(chunker: EvidenceChunker) -> None:
    packed = chunker.pack("anything", [], 50)
    assert packed.text == "" and packed.tokens == 0 and packed.blocks == []


def test_tables_of_two_documents_with_the_same_ref_stay_apart(chunker: EvidenceChunker) -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.types.doc import DocumentOrigin
    from packdocs import build_report

    ranked = []
    for n, name in enumerate(("a.pdf", "b.pdf")):
        doc = build_report()
        doc.origin = DocumentOrigin(mimetype="application/pdf", binary_hash=1000 + n, filename=name)
        hybrid = HybridChunker(tokenizer=bundled_tokenizer(128)).chunk(doc)
        ranked.append(next(c for c in hybrid if c.text.startswith("| - |")))
    packed = chunker.pack("Cloud services revenue", ranked, 1000)
    assert [b.ranks for b in packed.blocks] == [[0], [1]]
    assert [b.origin_filename for b in packed.blocks] == ["a.pdf", "b.pdf"]


@SETTINGS
@given(ranking=st.data(), budget=BUDGETS, query=QUERIES)
def test_hybrid_markdown_chunks_pack_whole_rows_under_their_header_or_labelled(
    chunker: EvidenceChunker, hybrid_markdown_chunks: list[Any], ranking: st.DataObject, budget: int, query: str
) -> None:
    ranked = [hybrid_markdown_chunks[k] for k in ranking.draw(_rankings(len(hybrid_markdown_chunks)))]
    packed = chunker.pack(query, ranked, budget)
    _check_common(chunker, ranked, packed, budget)
    rows = {tuple(row) for row in BODY}
    labelled = {_labelled(row) for row in BODY}
    for block in packed.blocks:
        lines = block.text.split("\n")
        framed = [row for row in block.rows if row.text.startswith("|")]
        for row in framed:
            cells = tuple(c.strip() for c in row.text.strip("|").split("|"))
            assert cells in rows, f"no row cut: {row.text!r}"
        assert all(row in framed or row.text in labelled for row in block.rows), "no row cut: framed or labelled"
        if framed:
            first = lines.index(framed[0].text)
            assert first >= 2 and lines[first - 2].replace(" ", "") == "|" + "|".join(HEADER).replace(" ", "") + "|"
