"""The boundary corpus: the evidence straddles its boundary, is unique, and the corpus is deterministic."""

from __future__ import annotations

import pytest
from docling_evidence_bench.boundary_corpus import DEFAULT_BOUNDARIES, build_boundary_corpus, holds_evidence
from docling_evidence_bench.fixed_size import fixed_size_chunks


@pytest.fixture(scope="module")
def corpus():
    return build_boundary_corpus(seed=7)


def test_twelve_cases_three_per_boundary(corpus) -> None:
    assert len(corpus.cases) == 12
    assert len(corpus.documents) == 12
    assert sorted({c.boundary for c in corpus.cases}) == list(DEFAULT_BOUNDARIES)
    for b in DEFAULT_BOUNDARIES:
        assert sum(c.boundary == b for c in corpus.cases) == 3


def test_evidence_straddles_and_is_unique(corpus) -> None:
    all_text = "\n".join(corpus.documents.values())
    for case in corpus.cases:
        text = corpus.documents[case.doc_id]
        assert text[case.evidence_start : case.evidence_end] == case.evidence
        assert case.evidence_start < case.boundary < case.evidence_end
        assert len(case.evidence) <= 80
        assert all_text.count(case.evidence) == 1
        assert all_text.count(case.subject) == 1  # the filler never names any subject
        assert case.subject in case.query
        assert any("\uac00" <= ch <= "\ud7a3" for ch in case.query)  # Korean question
        filler = text[: case.evidence_start] + text[case.evidence_end :]
        assert case.evidence not in filler


def test_same_seed_same_corpus_other_seed_other_corpus() -> None:
    a, b = build_boundary_corpus(seed=3), build_boundary_corpus(seed=3)
    assert a == b
    c = build_boundary_corpus(seed=4)
    assert a.documents != c.documents


def test_overlap_decides_coverage(corpus) -> None:
    def covered(size: int, overlap: int, boundary: int) -> int:
        n = 0
        for case in (c for c in corpus.cases if c.boundary == boundary):
            chunks = fixed_size_chunks(corpus.documents[case.doc_id], size, overlap)
            n += any(holds_evidence(case, case.doc_id, ch.start, ch.end) for ch in chunks)
        return n

    # A window edge at the boundary cuts every evidence sentence; the overlap carries it whole into the next window.
    for size in DEFAULT_BOUNDARIES:
        assert covered(size, 0, size) == 0
        assert covered(size, size // 5, size) == 3


def test_relevance_needs_the_right_document_and_the_whole_span(corpus) -> None:
    case = corpus.cases[0]
    s, e = case.evidence_start, case.evidence_end
    assert holds_evidence(case, case.doc_id, s, e)
    assert not holds_evidence(case, case.doc_id, s + 1, e)
    assert not holds_evidence(case, case.doc_id, s, e - 1)
    assert not holds_evidence(case, corpus.cases[1].doc_id, s, e)


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [
        ({"seed": "1"}, TypeError),
        ({"boundaries": ()}, ValueError),
        ({"boundaries": (400, 400)}, ValueError),
        ({"boundaries": (0,)}, ValueError),
        ({"docs_per_boundary": 0}, ValueError),
        ({"docs_per_boundary": 100}, ValueError),
        ({"doc_length": 1000}, ValueError),
    ],
)
def test_bad_arguments(kwargs, exc) -> None:
    with pytest.raises(exc):
        build_boundary_corpus(**kwargs)
