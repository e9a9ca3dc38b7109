"""The fast text pass gives exactly HybridChunker's chunks, on a view that never touches the caller's document."""

from __future__ import annotations

import math

import pytest
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.types.doc import ContentLayer, DocItemLabel, DoclingDocument, RefItem, TableItem
from docs_builder import add_table, paged_doc, prov
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_paths import FIXTURES

from docling_evidence.split.text_chunks import _serializer_of_view, _view, text_chunks
from docling_evidence.tables.serializer import EvidenceSerializerProvider
from docling_evidence.tokenizer import MemoTokenizer, TokenizersTokenizer, bundled_tokenizer, lines_add_up

SMALL = ["docling/2305.03393v1-pg9.json", "docling/multi_page.json", "docling-core/doc__ddoc_0.json"]


def _reference(doc: DoclingDocument, hidden: set[str], max_tokens: int) -> list[tuple]:
    """What text_chunks did before: HybridChunker on a deep copy with the hidden items invisible."""
    copy = doc.model_copy(deep=True)
    for item, _ in copy.iterate_items(
        with_groups=True, traverse_pictures=True, included_content_layers=set(ContentLayer)
    ):
        if item.self_ref in hidden:
            item.content_layer = ContentLayer.INVISIBLE
    chunker = HybridChunker(
        tokenizer=bundled_tokenizer(max_tokens),
        serializer_provider=EvidenceSerializerProvider(),
        always_emit_headings=True,
    )
    return [_key(c) for c in chunker.chunk(copy)]


def _key(chunk) -> tuple:
    return chunk.text, tuple(chunk.meta.headings or ()), tuple(it.self_ref for it in chunk.meta.doc_items)


def _ours(doc: DoclingDocument, hidden: set[str], max_tokens: int, with_serializer: bool = False) -> list[tuple]:
    """text_chunks' chunks; ``with_serializer``: given the caller's serializer, which has already serialized the
    document (so the view's serializer is built from it and takes what it found)."""
    provider = EvidenceSerializerProvider()
    serializer = provider.get_serializer(doc=doc) if with_serializer else None
    if serializer is not None:
        serializer.serialize()
    chunks = text_chunks(
        doc,
        hidden,
        tokenizer=bundled_tokenizer(max_tokens),
        serializer_provider=provider,
        merge_peers=True,
        always_emit_headings=True,
        doc_serializer=serializer,
    )
    return [_key(c) for c in chunks]


def _long_doc() -> DoclingDocument:
    doc = paged_doc(2)
    doc.add_heading(text="Results", prov=prov(1, 50, 40, 300, 55))
    for k in range(12):
        doc.add_text(
            label=DocItemLabel.TEXT,
            text=f"Paragraph {k} says the revenue rose. " * (3 + 7 * (k % 4)),
            prov=prov(1, 50, 60 + k, 300, 61 + k),
        )
    add_table(
        doc, [["Year", "Revenue"]], [["2019", "10"]], caption="Table 1: Revenue", provs=[prov(2, 50, 100, 300, 200)]
    )
    lst = doc.add_group(label="list")  # type: ignore[arg-type]
    for k in range(5):
        doc.add_list_item(text=f"item {k} " * 20, parent=lst)
    return doc


@pytest.mark.parametrize("max_tokens", [64, 256])
def test_same_chunks_as_hybrid_chunker_on_a_copy(max_tokens: int) -> None:
    doc = _long_doc()
    table = doc.tables[0]
    for hidden in (set(), {table.self_ref, table.captions[0].cref}, {doc.texts[3].self_ref}):
        expected = _reference(doc, hidden, max_tokens)
        assert _ours(doc, hidden, max_tokens) == expected
        assert _ours(doc, hidden, max_tokens, with_serializer=True) == expected


@pytest.mark.skipif(not FIXTURES.is_dir(), reason="shared fixtures absent")
@pytest.mark.parametrize("name", SMALL)
def test_same_chunks_as_hybrid_chunker_on_fixtures(name: str) -> None:
    doc = DoclingDocument.load_from_json(FIXTURES / name)
    hidden = {t.self_ref for t in doc.tables} | {c.cref for t in doc.tables for c in t.captions}
    for h in (set(), hidden):
        expected = _reference(doc, h, 128)
        assert _ours(doc, h, 128) == expected
        assert _ours(doc, h, 128, with_serializer=True) == expected


def test_the_view_serializer_takes_the_callers_caption_sets_only_when_no_ref_was_dropped() -> None:
    doc = _long_doc()
    table = doc.tables[0]
    serializer = EvidenceSerializerProvider().get_serializer(doc=doc)
    serializer.serialize()
    view, dropped = _view(doc, {table.self_ref})
    shared = _serializer_of_view(serializer, view, not dropped)
    fresh = EvidenceSerializerProvider().get_serializer(doc=view)
    assert not dropped
    for name in ("_captions_of_some_item", "_footnotes_of_some_item"):
        assert shared.__dict__[name] is serializer.__dict__[name]  # not walked again
        assert getattr(shared, name) == getattr(fresh, name)
    table.captions.append(RefItem(cref="#/texts/999"))  # dangling: the view drops it
    view, dropped = _view(doc, {table.self_ref})
    assert dropped
    assert "_captions_of_some_item" not in _serializer_of_view(serializer, view, not dropped).__dict__


def test_view_copies_only_what_changes_and_leaves_the_document_alone() -> None:
    doc = _long_doc()
    table = doc.tables[0]
    table.captions.append(RefItem(cref="#/texts/999"))  # dangling: HybridChunker would crash on it
    doc.texts[1].prov[0].bbox.t = math.nan
    before = doc.model_dump_json()
    view, dropped = _view(doc, {table.self_ref})
    assert dropped  # the dangling caption ref
    assert doc.model_dump_json() == before
    assert view.tables[0] is not table and view.tables[0].content_layer == ContentLayer.INVISIBLE
    assert [r.cref for r in view.tables[0].captions] == [table.captions[0].cref]
    assert view.texts[1] is not doc.texts[1] and view.texts[1].prov[0].bbox.t == 0.0
    assert all(a is b for k, (a, b) in enumerate(zip(view.texts, doc.texts, strict=True)) if k != 1)
    untouched = _long_doc()
    assert _view(untouched, set()) == (untouched, False)  # nothing hidden, nothing to repair: no copy at all
    clean = paged_doc(1)
    clean.add_text(label=DocItemLabel.TEXT, text="x", prov=prov(1, 1, 1, 2, 2))
    assert _view(clean, set())[0] is clean
    # chunks refer to the caller's items, never to the view's copies
    chunks = list(
        text_chunks(
            doc,
            {table.self_ref},
            tokenizer=bundled_tokenizer(),
            serializer_provider=EvidenceSerializerProvider(),
            merge_peers=True,
            always_emit_headings=True,
        )
    )
    items = [it for c in chunks for it in c.meta.doc_items]
    assert any(it is doc.texts[1] for it in items)
    assert all(it is it.get_ref().resolve(doc) for it in items)
    assert not any(isinstance(it, TableItem) for it in items)


_TOK = bundled_tokenizer()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.text(max_size=120))
def test_bundled_tokenizer_counts_add_up_across_line_breaks(a: str, b: str) -> None:
    assert lines_add_up(_TOK)
    assert _TOK.count_tokens(a + "\n" + b) == _TOK.count_tokens(a) + _TOK.count_tokens(b)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60), max_size=6))
def test_memo_counts_exactly_what_the_tokenizer_counts(parts: list[str]) -> None:
    memo = MemoTokenizer.wrap(_TOK)
    for text in ("\n".join(parts), " ".join(parts), *parts, "\n".join(parts)):
        assert memo.count_tokens(text) == _TOK.count_tokens(text)


def test_byte_level_bpe_is_not_counted_by_lines() -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel()
    assert not lines_add_up(TokenizersTokenizer(tokenizer=raw, max_tokens=10))
    assert not MemoTokenizer.wrap(TokenizersTokenizer(tokenizer=raw, max_tokens=10)).by_lines
    assert MemoTokenizer.wrap(_TOK).by_lines
