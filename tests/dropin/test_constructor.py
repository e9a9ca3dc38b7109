"""Every constructor form of HybridChunker works for EvidenceChunker with the same meaning."""

from __future__ import annotations

import warnings

import pytest
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

from docling_evidence import EvidenceChunker, bundled_tokenizer
from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR

SAMPLE = "Revenue rose 12% to $4.2bn in fiscal 2023; see Table 3 (in millions)."


def _transformers_tokenizer() -> object:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(BUNDLED_TOKENIZER_DIR))


def test_default_and_max_tokens_none_take_the_default_tokenizer_without_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = EvidenceChunker()
        explicit_none = EvidenceChunker(max_tokens=None)
        none_tokenizer = EvidenceChunker(tokenizer=None)
    for chunker in (default, explicit_none, none_tokenizer):
        assert chunker.max_tokens == 256
        assert chunker.tokenizer.count_tokens(SAMPLE) == bundled_tokenizer().count_tokens(SAMPLE)


def test_max_tokens_alone_is_deprecated_as_in_hybridchunker() -> None:
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        chunker = EvidenceChunker(max_tokens=64)
    assert chunker.max_tokens == 64
    assert chunker.tokenizer.count_tokens(SAMPLE) == bundled_tokenizer().count_tokens(SAMPLE)


@pytest.mark.parametrize("max_tokens", [None, 100])
def test_model_name_as_tokenizer(max_tokens: int | None) -> None:
    """HybridChunker(tokenizer="sentence-transformers/all-MiniLM-L6-v2") takes the model's own limit (256)."""
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        chunker = EvidenceChunker(tokenizer="sentence-transformers/all-MiniLM-L6-v2", max_tokens=max_tokens)
    assert chunker.max_tokens == (max_tokens or 256)
    assert chunker.tokenizer.count_tokens(SAMPLE) == bundled_tokenizer().count_tokens(SAMPLE)


def test_local_model_path_as_tokenizer_means_what_it_means_for_hybridchunker() -> None:
    path = str(BUNDLED_TOKENIZER_DIR)
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        ours = EvidenceChunker(tokenizer=path, max_tokens=50)
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        theirs = HybridChunker(tokenizer=path, max_tokens=50)
    assert ours.max_tokens == theirs.max_tokens == 50
    assert ours.tokenizer.count_tokens(SAMPLE) == theirs.tokenizer.count_tokens(SAMPLE)


def test_transformers_tokenizer_object_with_max_tokens() -> None:
    tok = _transformers_tokenizer()
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        ours = EvidenceChunker(tokenizer=tok, max_tokens=77)
    with pytest.warns(DeprecationWarning, match="Deprecated initialization"):
        theirs = HybridChunker(tokenizer=tok, max_tokens=77)
    assert isinstance(ours.tokenizer, HuggingFaceTokenizer)
    assert ours.tokenizer.get_tokenizer() is tok
    assert ours.max_tokens == theirs.max_tokens == 77


def test_transformers_tokenizer_object_without_a_known_limit_says_to_pass_max_tokens() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match="max_tokens"):
        EvidenceChunker(tokenizer=_transformers_tokenizer())


def test_max_tokens_beside_a_docling_core_tokenizer_is_ignored_as_in_hybridchunker() -> None:
    tokenizer = bundled_tokenizer(100)
    with pytest.warns(UserWarning, match="ignored"):
        ours = EvidenceChunker(tokenizer=tokenizer, max_tokens=64)
    theirs = HybridChunker(tokenizer=tokenizer, max_tokens=64)
    assert ours.max_tokens == theirs.max_tokens == 100
    assert ours.tokenizer is tokenizer


@pytest.mark.parametrize("tokenizer", [3, 2.5, ["a"], object()])
def test_a_tokenizer_of_another_type_is_a_value_error(tokenizer: object) -> None:
    with pytest.raises(ValueError, match="tokenizer must be"):
        EvidenceChunker(tokenizer=tokenizer)


@pytest.mark.parametrize("max_tokens", [0, -1, True, "256", 2.0])
@pytest.mark.parametrize("tokenizer", [None, "sentence-transformers/all-MiniLM-L6-v2"])
def test_bad_max_tokens_is_a_value_error_in_every_form(max_tokens: object, tokenizer: str | None) -> None:
    with pytest.raises(ValueError, match="max_tokens must be a positive integer"):
        EvidenceChunker(tokenizer=tokenizer, max_tokens=max_tokens)


def test_keywords_shared_with_hybridchunker_are_fields_with_its_defaults_where_it_has_them() -> None:
    ours = EvidenceChunker()
    theirs = HybridChunker(tokenizer=bundled_tokenizer())
    assert ours.merge_peers == theirs.merge_peers
    assert ours.delim == theirs.delim
    assert EvidenceChunker(merge_peers=False, delim="####").delim == "####"


@pytest.mark.parametrize("kind", ["bundled", "transformers"])
def test_a_dump_with_its_tokenizer_validates_back_to_the_same_chunker(kind: str) -> None:
    """``model_validate(model_dump(serialize_as_any=True))``: the same tokenizer class, limit, counts and settings."""
    tokenizer = (
        bundled_tokenizer(300)
        if kind == "bundled"
        else HuggingFaceTokenizer(tokenizer=_transformers_tokenizer(), max_tokens=300)
    )
    chunker = EvidenceChunker(tokenizer=tokenizer, views=False, bbox_threshold=120.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = EvidenceChunker.model_validate(chunker.model_dump(serialize_as_any=True))
    assert type(again.tokenizer) is type(tokenizer)
    assert again.max_tokens == 300
    assert again.tokenizer.count_tokens(SAMPLE) == tokenizer.count_tokens(SAMPLE)
    assert (again.views, again.bbox_threshold) == (False, 120.0)
    assert again.model_dump(exclude={"tokenizer", "serializer_provider"}) == chunker.model_dump(
        exclude={"tokenizer", "serializer_provider"}
    )


def test_a_plain_dump_validates_back_with_its_tokenizer() -> None:
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(300))
    again = EvidenceChunker.model_validate(chunker.model_dump())
    assert again.max_tokens == 300
    assert again.tokenizer.count_tokens("Revenue grew 5 percent") == chunker.tokenizer.count_tokens(
        "Revenue grew 5 percent"
    )


def test_a_tokenizer_dumped_as_its_declared_type_says_how_to_keep_it() -> None:
    """A dump that holds the tokenizer as ``{}`` (what dumping it as the bare BaseTokenizer gives) is a ValueError."""
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(300))
    with pytest.raises(ValueError, match=r"model_dump\(serialize_as_any=True\)"):
        EvidenceChunker.model_validate({**chunker.model_dump(), "tokenizer": {}})
    again = EvidenceChunker.model_validate({**chunker.model_dump(), "tokenizer": chunker.tokenizer})
    assert again.tokenizer is chunker.tokenizer and again.max_tokens == 300


def test_a_dumped_tokenizer_of_an_unknown_kind_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="cannot rebuild a tokenizer over a dumped object"):
        EvidenceChunker.model_validate({"tokenizer": {"tokenizer": object(), "max_tokens": 300}})
    with pytest.raises(ValueError, match="max_tokens must be a positive integer"):
        EvidenceChunker.model_validate({"tokenizer": {"tokenizer": bundled_tokenizer().tokenizer, "max_tokens": 0}})
