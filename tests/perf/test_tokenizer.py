"""The transformers-free bundled tokenizer counts exactly what docling-core's HuggingFaceTokenizer counts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence.tokenizer import (
    BUNDLED_TOKENIZER_DIR,
    TokenizersTokenizer,
    bundled_tokenizer,
    hf_tokenizer,
    load_tokenizer,
)

_TRICKY = [
    "",
    " ",
    "Table 3: Revenue (in millions of USD) | 2019 | 2020",
    "Ünïcödé àccents, ß, Ǆ, ﬁ ligature, Ⅻ, ½, ① and full-width ＡＢＣ",
    "中文字符和日本語のテキスト 한국어",
    "emoji 🙂🚀 and zero\u200bwidth\u00a0nbsp\ttab\r\nCRLF",
    "| - | --- |\n| 1.234,5 | $ (12) |",
    "a" * 500,
    "[CLS] [SEP] [MASK] [PAD] [UNK] literal special tokens",
    "\x00 control \x07 chars \ufffd",
]


@pytest.fixture(scope="module")
def pair() -> tuple[TokenizersTokenizer, object]:
    return bundled_tokenizer(), hf_tokenizer(BUNDLED_TOKENIZER_DIR)


@pytest.mark.parametrize("text", _TRICKY)
def test_counts_equal_on_tricky_texts(pair, text: str) -> None:
    fast, hf = pair
    assert fast.count_tokens(text) == hf.count_tokens(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_counts_equal_on_any_text(pair, text: str) -> None:
    fast, hf = pair
    assert fast.count_tokens(text) == hf.count_tokens(text)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=80), max_size=8))
def test_batch_counts_equal_single_counts(pair, texts: list[str]) -> None:
    fast, _ = pair
    assert fast.count_tokens_batch(texts) == [fast.count_tokens(t) for t in texts]


def test_no_truncation_or_padding_from_tokenizer_json() -> None:
    # all-MiniLM-L6-v2's tokenizer.json pads and truncates to 128: a count must be neither
    tok = bundled_tokenizer()
    assert tok.count_tokens("word " * 300) == 300
    assert tok.count_tokens("word") == 1


def test_semchunk_sees_the_same_tokenizer(pair) -> None:
    import semchunk

    fast, hf = pair
    text = " ".join(f"Sentence {i} says the revenue rose by {i * 7} percent." for i in range(60))
    assert semchunk.chunkerify(fast.get_tokenizer(), 40)(text) == semchunk.chunkerify(hf.get_tokenizer(), 40)(text)


def test_max_tokens_and_loading_errors(tmp_path) -> None:
    assert bundled_tokenizer(512).get_max_tokens() == 512
    assert load_tokenizer(None, 100).get_max_tokens() == 100
    assert isinstance(load_tokenizer(BUNDLED_TOKENIZER_DIR / "tokenizer.json", 64), TokenizersTokenizer)
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="max_tokens must be a positive integer"):
            bundled_tokenizer(bad)  # type: ignore[arg-type]
    broken = tmp_path / "tokenizer.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="could not load tokenizer"):
        TokenizersTokenizer.from_file(broken, 10)
