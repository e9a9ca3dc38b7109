"""The retriever's rank comes first: the top-ranked unit gets its content before any lower unit, on EvidenceChunker's
and HybridChunker's chunks alike."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packdocs import BODY, SEGMENTS

from docling_evidence import EvidenceChunker
from docling_evidence.pack.evidence import PackedBlock, PackedEvidence
from docling_evidence.pack.segments import read_chunk, said_words

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TERMS = [*SEGMENTS, *(c for row in BODY for c in row[1:]), "Revenue", "margin", "Dividends", "Hiring", "Table 4"]
ARMS = ("evidence_chunks", "hybrid_chunks", "hybrid_markdown_chunks")

Scorer = Callable[[str, Sequence[str]], list[float]]


def _term_scorer(terms: Sequence[str]) -> Scorer:
    """A scorer whose matches the test knows: how many of ``terms`` a text holds."""

    def scorer(query: str, texts: Sequence[str]) -> list[float]:
        return [float(sum(t in text for t in terms)) for text in texts]

    return scorer


def _content(block: PackedBlock) -> tuple[Any, ...]:
    """What a block delivers, without the ranks (which index the ranking it was packed from)."""
    return (block.text, block.caption, block.header, block.rows, block.sentences, block.footnotes, block.doc_refs)


def _top_unit(ranked: list[Any]) -> tuple[str, list[Any]]:
    """The key of the top-ranked chunk's unit and that unit's chunks, in ranking order."""
    keys = [read_chunk(c, k).key for k, c in enumerate(ranked)]
    return keys[0], [c for c, key in zip(ranked, keys, strict=True) if key == keys[0]]


def _block_of(packed: PackedEvidence, key: str) -> PackedBlock | None:
    return next((b for b in packed.blocks if b.key == key), None)


def _matching(block: PackedBlock | None, scorer: Scorer) -> set[str]:
    if block is None:
        return set()
    texts = [r.text for r in block.rows] + [s.text for s in (*block.sentences, *block.footnotes)]
    return {t for t, s in zip(texts, scorer("", texts), strict=True) if s > 0}


@SETTINGS
@given(
    data=st.data(),
    slack=st.integers(-300, 300),
    terms=st.lists(st.sampled_from(TERMS), max_size=4),
    lexical=st.booleans(),
)
@pytest.mark.parametrize("arm", ARMS)
def test_the_top_unit_comes_first_whatever_ranks_below_it(
    request: pytest.FixtureRequest,
    chunker: EvidenceChunker,
    arm: str,
    data: st.DataObject,
    slack: int,
    terms: list[str],
    lexical: bool,
) -> None:
    chunks = request.getfixturevalue(arm)
    order = data.draw(st.lists(st.integers(0, len(chunks) - 1), min_size=1, max_size=12))
    ranked = [chunks[k] for k in order]
    scorer = None if lexical else _term_scorer(terms)
    query = " ".join(terms)
    key, top = _top_unit(ranked)
    whole = chunker.pack(query, top, 10**6, scorer=scorer)
    budget = max(1, whole.tokens + slack)  # around what the top unit takes whole

    packed = chunker.pack(query, ranked, budget, scorer=scorer)
    alone = chunker.pack(query, top, budget, scorer=scorer)

    assert packed.tokens <= budget
    block = _block_of(packed, key)
    if block is not None:
        assert packed.blocks[0] is block, "the top unit's block leads"
    if whole.blocks and whole.tokens <= budget:
        assert block is not None and _content(block) == _content(whole.blocks[0]), "a top unit that fits goes whole"
    if scorer is not None:
        # what the top unit delivers of its matching rows and sentences does not depend on what ranks below it
        assert _matching(_block_of(alone, key), scorer) <= _matching(block, scorer)


@SETTINGS
@given(data=st.data(), budget=st.integers(1, 900), terms=st.lists(st.sampled_from(TERMS), max_size=4))
@pytest.mark.parametrize("arm", ARMS)
def test_leading_units_that_fit_go_whole_in_ranking_order(
    request: pytest.FixtureRequest,
    chunker: EvidenceChunker,
    arm: str,
    data: st.DataObject,
    budget: int,
    terms: list[str],
) -> None:
    chunks = request.getfixturevalue(arm)
    order = data.draw(st.lists(st.integers(0, len(chunks) - 1), min_size=1, max_size=12))
    ranked = [chunks[k] for k in order]
    query = " ".join(terms)
    packed = chunker.pack(query, ranked, budget)
    # the units of the ranking, each once, in ranking order, with their chunks
    units: dict[str, list[Any]] = {}
    for k, chunk in enumerate(ranked):
        units.setdefault(read_chunk(chunk, k).key, []).append(chunk)
    spent = 0
    for key, members in units.items():
        whole = chunker.pack(query, members, 10**6)
        if not whole.blocks:
            continue
        # a unit fits whole after the ones before it: it is delivered whole (the count is exact, joins included)
        rest = chunker.tokenizer.count_tokens("\n\n".join([*(b.text for b in packed.blocks[:spent]), whole.text]))
        if rest > budget:
            break
        # less the sentences an earlier block already delivered: the same words are never delivered twice
        said = {said_words(s.text) for b in packed.blocks[:spent] for s in b.sentences}
        expected = whole.blocks[0]
        unsaid = [s for s in expected.sentences if said_words(s.text) not in said]
        block = _block_of(packed, key)
        if not (unsaid or expected.rows or expected.footnotes):
            assert block is None, key
            continue
        assert block is not None, key
        if len(unsaid) == len(expected.sentences):
            assert _content(block) == _content(expected), key
        else:
            assert (block.caption, block.header, block.rows, block.footnotes) == (
                expected.caption,
                expected.header,
                expected.rows,
                expected.footnotes,
            ), key
            assert block.sentences == unsaid, key
        assert packed.blocks[spent] is block
        spent += 1


def test_a_top_paragraph_is_not_cut_for_a_lower_table_s_better_matching_rows(
    chunker: EvidenceChunker, evidence_chunks: list[Any]
) -> None:
    outlook = next(c for c in evidence_chunks if "capital spending" in c.text)
    tables = [c for c in evidence_chunks if c.meta.kind == "table"]
    query = "Revenue 2019 and 2020 of Cloud services, Retail banking, Freight logistics; capital spending"
    whole = chunker.pack(query, [outlook], 10**6)
    budget = whole.tokens + 120

    packed = chunker.pack(query, [outlook, *tables], budget)

    assert packed.blocks[0].text == outlook.text == whole.text, "the top chunk whole, not its best sentence"
    assert packed.tokens <= budget and len(packed.blocks) == 2 and packed.blocks[1].rows, "rows fill what is left"
