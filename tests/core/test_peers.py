"""Section peers (``merge_peers`` for units): a one-piece unit takes in its section's paragraphs next to it."""

from __future__ import annotations

import re

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, bundled_tokenizer

_FILLER = "The group reviews these amounts every quarter with its auditors and its board."


def _paragraph(section: int, k: int, filler: int) -> str:
    return f"Section {section} paragraph {k} says that item {k} was {100 + k} in 2019. " + " ".join([_FILLER] * filler)


def _doc(sections: list[tuple[int, int, list[int]]]) -> DoclingDocument:
    """Per section: paragraphs before the table, table rows, and the filler length of each paragraph (before ones
    first, the rest after the table)."""
    doc = DoclingDocument(name="peers")
    for s, (n_before, n_rows, fillers) in enumerate(sections):
        doc.add_heading(text=f"Heading {s}")
        for k, filler in enumerate(fillers):
            if k == n_before:
                body = [[f"item {s}.{r}", str(1000 * s + r)] for r in range(n_rows)]
                add_table(doc, [["Item", "2019"]], body)
            doc.add_text(label=DocItemLabel.TEXT, text=_paragraph(s, k, filler))
        if n_before >= len(fillers):
            add_table(doc, [["Item", "2019"]], [[f"item {s}.{r}", str(1000 * s + r)] for r in range(n_rows)])
    return doc


def _units(chunker: EvidenceChunker, doc: DoclingDocument) -> list:
    return [c for c in chunker.chunk(doc) if c.meta.kind == "table"]


def test_a_short_section_becomes_one_chunk_with_its_table() -> None:
    doc = _doc([(2, 3, [0, 0, 0])])
    chunks = list(EvidenceChunker().chunk(doc))
    assert [c.meta.kind for c in chunks] == ["table"]
    (unit,) = chunks
    for k in range(3):
        assert _paragraph(0, k, 0) in unit.text
    # the paragraphs are in reading order around the table
    assert unit.text.index(_paragraph(0, 1, 0)) < unit.text.index("| item 0.0 |") < unit.text.index(_paragraph(0, 2, 0))


def test_peers_come_from_the_tables_own_section_only() -> None:
    doc = _doc([(1, 2, [0, 0]), (0, 0, [0]), (1, 2, [0, 0])])
    for unit in _units(EvidenceChunker(), doc):
        sections = set(re.findall(r"Section (\d+) paragraph", unit.text))
        assert len(sections) == 1


def test_peers_stop_at_the_limit_and_stay_contiguous() -> None:
    doc = _doc([(3, 4, [6, 6, 6, 6, 6, 6])])
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    (unit,) = _units(chunker, doc)
    assert chunker.tokenizer.count_tokens(chunker.contextualize(unit)) <= 256
    taken = [k for k in range(6) if f"paragraph {k} says" in unit.text]
    assert taken and taken == list(range(taken[0], taken[-1] + 1))
    left = [k for k in range(6) if k not in taken]
    assert left  # the section does not fit 256 tokens: some paragraphs stay in text chunks
    texts = [c.text for c in chunker.chunk(doc) if c.meta.kind == "text"]
    for k in left:
        assert sum(_paragraph(0, k, 6) in t for t in texts) == 1


def test_peers_have_the_text_role_and_merge_peers_false_takes_none() -> None:
    # the context budget (half the limit) is spent before the section is: the rest of the room takes peers
    doc = _doc([(2, 3, [3, 3, 3, 3, 3])])
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    (unit,) = _units(chunker, doc)
    roles = list(unit.meta.roles.values())
    assert roles.count("text") == 1 and "context" in roles and "table" in roles
    peer = next(it for it in unit.meta.doc_items if unit.meta.roles[it.self_ref] == "text")
    assert peer.text in unit.text
    assert not any(peer.text in c.text for c in chunker.chunk(doc) if c.meta.kind == "text")
    (alone,) = _units(EvidenceChunker(tokenizer=bundled_tokenizer(256), merge_peers=False), doc)
    assert "text" not in set(alone.meta.roles.values())
    assert any(peer.text in c.text for c in EvidenceChunker(merge_peers=False).chunk(doc) if c.meta.kind == "text")


def test_a_split_unit_takes_no_peers() -> None:
    doc = _doc([(1, 60, [0, 0])])
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(128))
    units = _units(chunker, doc)
    assert len(units) > 1
    assert all("text" not in set(u.meta.roles.values()) for u in units)


@settings(max_examples=40, deadline=None)
@given(
    sections=st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(0, 12),
            st.lists(st.integers(0, 8), min_size=0, max_size=5),
        ),
        min_size=1,
        max_size=4,
    ),
    limit=st.sampled_from([64, 128, 256, 512]),
    in_text=st.booleans(),
)
def test_every_paragraph_is_delivered_once_within_the_limit(
    sections: list[tuple[int, int, list[int]]], limit: int, in_text: bool
) -> None:
    doc = _doc(sections)
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(limit), context_in_text=in_text)
    chunks = list(chunker.chunk(doc))
    assert all(chunker.tokenizer.count_tokens(chunker.contextualize(c)) <= limit for c in chunks)
    texts = [c.text for c in chunks]
    for s, (_n_before, _rows, fillers) in enumerate(sections):
        for k, filler in enumerate(fillers):
            para = _paragraph(s, k, filler)
            whole = sum(para in t for t in texts)
            anywhere = any(f"Section {s} paragraph {k} says" in t for t in texts)
            assert anywhere, f"paragraph {s}.{k} lost"
            if not in_text:
                assert whole <= 1, f"paragraph {s}.{k} shown whole {whole} times"
            if whole == 0:  # only in pieces: longer than the limit, cut by the text splitter, never dropped
                assert all(w in " ".join(texts) for w in para.split()[:8])
    for c in chunks:
        assert len(set(re.findall(r"Section (\d+) paragraph", c.text))) <= 1
