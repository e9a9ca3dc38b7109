"""One token memo: counts through it are exactly the tokenizer's, every stage counts through it, and the work it
saves is real (fewer tokens sent to the tokenizer, the same chunks)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from docling_evidence_bench.tools import perf_bench as pb
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker
from docling_evidence.split.pieces import Piece, UnitParts
from docling_evidence.split.splitter import Splitter
from docling_evidence.tables.formats import TABLE_FORMATS
from docling_evidence.tables.rows import TableRows
from docling_evidence.tokenizer import (
    MemoTokenizer,
    TokenizersTokenizer,
    bundled_tokenizer,
    counts_as_encoded,
    lines_add_up,
    memoised_count,
)

_TOK = bundled_tokenizer()
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_bundled_tokenizer_counts_add_up_across_spaces(a: str, b: str) -> None:
    assert lines_add_up(_TOK)
    assert _TOK.count_tokens(a + " " + b) == _TOK.count_tokens(a) + _TOK.count_tokens(b)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, max_size=6), st.sampled_from([" ", "\n", "  ", " \n", "\t"]))
def test_memo_counted_by_words_is_the_tokenizers_count(parts: list[str], sep: str) -> None:
    memo = MemoTokenizer.wrap(_TOK)
    for text in (sep.join(parts), *parts, sep.join(reversed(parts)), sep.join(parts)):
        assert memo.count_tokens(text) == _TOK.count_tokens(text)


def test_memo_sends_each_distinct_word_to_the_tokenizer_once() -> None:
    tok = pb.counting_tokenizer()
    memo = MemoTokenizer.wrap(tok)
    assert memo.count_tokens("Revenue grew 5 percent") == 4
    assert memo.count_tokens("Revenue: grew\n5 percent") == _TOK.count_tokens("Revenue: grew\n5 percent")
    assert tok.calls == 4 + 1  # "Revenue:" is the one new word


def test_semchunk_counts_through_the_memo_only_when_it_counts_the_same() -> None:
    assert counts_as_encoded(_TOK) and MemoTokenizer.wrap(_TOK).counts_as_encoded()
    assert counts_as_encoded(pb.counting_tokenizer())  # the benchmark's tokenizer is treated as the bundled one

    class Recounting(TokenizersTokenizer):
        def count_tokens(self, text: str) -> int:
            return 2 * super().count_tokens(text)

    assert not counts_as_encoded(Recounting(tokenizer=_TOK.tokenizer, max_tokens=10))
    assert not MemoTokenizer.wrap(Recounting(tokenizer=_TOK.tokenizer, max_tokens=10)).counts_as_encoded()


def test_memoised_count_keeps_a_memo_and_memoises_a_plain_counter() -> None:
    memo = MemoTokenizer.wrap(_TOK)
    assert memoised_count(memo.count_tokens) == memo.count_tokens
    seen: list[str] = []

    def plain(text: str) -> int:
        seen.append(text)
        return len(text.split())

    counted = memoised_count(plain)
    assert [counted("a b"), counted("a b"), counted("c")] == [2, 2, 1] and seen == ["a b", "c"]


def _parts() -> UnitParts:
    header = (("Region", "2021", "2022"),)
    body = tuple((f"Region {k}", str(100 + k), str(200 + k)) for k in range(40))
    return UnitParts(
        caption="Table 1: Revenue by region",
        context_before=("Table 1 shows the revenue of every region.",),
        context_after=(),
        footnotes=(),
        rows=TableRows(header=header, body=body, label_cols=1),
        fmt=TABLE_FORMATS["markdown"],
    )


def test_splitter_with_a_raw_counter_splits_as_with_the_memo() -> None:
    memo = MemoTokenizer.wrap(_TOK)
    limit = 64

    def pieces(count: Callable[[str], int]) -> list[Piece]:
        return Splitter(count=count, fits=lambda t: _TOK.count_tokens(t) <= limit, budget=limit).split(_parts())

    raw, memoised = pieces(_TOK.count_tokens), pieces(memo.count_tokens)
    assert len(raw) > 1
    assert [p.text for p in raw] == [p.text for p in memoised]
    assert all(_TOK.count_tokens(p.text) <= limit for p in raw)


def test_chunking_counts_fewer_tokens_than_the_document_holds_and_gives_the_same_chunks() -> None:
    doc = pb.synthetic_doc(8, "layout-section")
    tok = pb.counting_tokenizer()
    counted = [c.model_dump_json() for c in EvidenceChunker(tokenizer=tok).chunk(doc)]
    plain = [c.model_dump_json() for c in EvidenceChunker(tokenizer=bundled_tokenizer()).chunk(doc)]
    assert counted == plain
    assert 0 < tok.counted <= 1.2 * pb.document_tokens(doc, bundled_tokenizer())


_WORD = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters=" \n"), max_size=30)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, max_size=12))
def test_count_words_is_count_tokens_of_each_word(words: list[str]) -> None:
    assert _TOK.count_words(words) == [_TOK.count_tokens(word) for word in words]


def test_count_words_rejects_a_text_that_is_not_one_word() -> None:
    for text in ("two words", "two\nlines"):
        with pytest.raises(ValueError, match="split texts at spaces and line breaks"):
            _TOK.count_words(["one", text])


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, max_size=6), st.lists(_TEXT, max_size=6))
def test_a_primed_memo_counts_as_the_tokenizer(primed: list[str], asked: list[str]) -> None:
    memo = MemoTokenizer.wrap(_TOK)
    memo.prime(primed)
    for text in (*asked, *primed, " ".join(primed)):
        assert memo.count_tokens(text) == _TOK.count_tokens(text)


def test_priming_counts_the_words_of_many_texts_in_one_call() -> None:
    tok = pb.counting_tokenizer()
    memo = MemoTokenizer.wrap(tok)
    memo.prime(["Revenue grew 5 percent", "Revenue fell\nsharply"])
    assert tok.calls == 1
    assert memo.count_tokens("sharply, Revenue fell 5 percent") == _TOK.count_tokens("sharply, Revenue fell 5 percent")
    assert tok.calls == 2  # "sharply," is the one word not primed
    memo.prime(["Revenue grew"])
    assert tok.calls == 2  # nothing new: no call


class _SameCounts(TokenizersTokenizer):
    """The bundled tokenizer's counts through an overridden ``count_tokens``: not primed (its count could differ)."""

    def count_tokens(self, text: str) -> int:
        return super().count_tokens(text)


def test_priming_is_skipped_for_a_tokenizer_that_may_not_count_as_it_encodes() -> None:
    tok = pb.counting_tokenizer()
    same = _SameCounts(tokenizer=tok.tokenizer, max_tokens=256)
    memo = MemoTokenizer.wrap(same)
    memo.prime(["Revenue grew 5 percent"])
    assert tok.calls == 0
    assert memo.count_tokens("Revenue grew") == 2


def test_a_primed_chunker_gives_the_chunks_of_an_unprimed_one() -> None:
    base = bundled_tokenizer()
    for doc in (pb.synthetic_doc(8, "layout-section"), pb.synthetic_doc(8, "flow-rich-cells")):
        primed = [c.model_dump_json() for c in EvidenceChunker(tokenizer=base).chunk(doc)]
        unprimed = EvidenceChunker(tokenizer=_SameCounts(tokenizer=base.tokenizer, max_tokens=256)).chunk(doc)
        assert primed == [c.model_dump_json() for c in unprimed]
