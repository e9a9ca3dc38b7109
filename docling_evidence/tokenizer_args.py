"""HybridChunker's constructor forms, turned into the one ``tokenizer`` field ``EvidenceChunker`` has.

docling-core's ``HybridChunker`` accepts a docling-core tokenizer, and (deprecated there) ``max_tokens=N``, a model
name or path, or a transformers tokenizer object. :func:`resolve_tokenizer_args` gives each form the meaning
HybridChunker gives it, so that code written for HybridChunker builds the same tokenizer here.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer

from docling_evidence.tokenizer import (
    DEFAULT_MAX_TOKENS,
    TokenizersTokenizer,
    bundled_tokenizer,
    check_max_tokens,
    load_tokenizer,
)

DEPRECATED_INIT_MESSAGE = (
    "Deprecated initialization parameter types for EvidenceChunker (as for HybridChunker): pass a docling-core "
    "tokenizer, e.g. EvidenceChunker(tokenizer=bundled_tokenizer(512)) or tokenizer=HuggingFaceTokenizer(...). "
    "See https://docling-project.github.io/docling/examples/hybrid_chunking/"
)
"""The DeprecationWarning for HybridChunker's legacy forms (``max_tokens=N``, a model name, a transformers tokenizer).
It starts as HybridChunker's does, so code that filters or expects that warning keeps working."""

BUNDLED_NAMES = frozenset({"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"})
"""Model names served by the bundled tokenizer (no network): HybridChunker's default model."""


def _is_transformers_tokenizer(obj: object) -> bool:
    """HybridChunker's test for a transformers tokenizer object: its class comes from the transformers package."""
    module = getattr(obj, "__module__", "") or ""
    return module == "transformers" or module.startswith("transformers.")


def resolve_tokenizer_args(data: dict[str, Any]) -> dict[str, Any]:
    """Turn every constructor form HybridChunker accepts into a ``tokenizer`` field, with HybridChunker's meaning.

    - ``tokenizer=<BaseTokenizer>``: used as is; a ``max_tokens`` given with it is ignored, as HybridChunker ignores
      it (with a warning here, since the tokenizer's own limit applies).
    - nothing, or ``max_tokens=None``: the default tokenizer (all-MiniLM-L6-v2, 256 tokens, bundled).
    - ``max_tokens=N``, a model name or path as ``tokenizer``, or a transformers tokenizer object (with or without
      ``max_tokens``): HybridChunker's deprecated forms, accepted with its ``DeprecationWarning``. A model name
      without ``max_tokens`` takes the model's own limit (for all-MiniLM-L6-v2: 256).
    - a dict: a dumped tokenizer, rebuilt by :func:`tokenizer_from_dump` (``model_validate`` of a ``model_dump``).

    Raises:
        ValueError: for a ``tokenizer`` of another type, a dict that is no dumped tokenizer, or a ``max_tokens`` that
            is not a positive integer.
    """
    data = dict(data)
    max_tokens = data.pop("max_tokens", None)
    tokenizer = data.get("tokenizer")
    if isinstance(tokenizer, dict):
        tokenizer = data["tokenizer"] = tokenizer_from_dump(tokenizer)
    if isinstance(tokenizer, BaseTokenizer):
        if max_tokens is not None:
            warnings.warn(
                f"max_tokens={max_tokens!r} is ignored: the tokenizer's own limit applies "
                f"({tokenizer.get_max_tokens()}), as in HybridChunker",
                UserWarning,
                stacklevel=4,
            )
        return data
    if tokenizer is None and max_tokens is None:
        data.pop("tokenizer", None)
        return data
    if not (tokenizer is None or isinstance(tokenizer, str | os.PathLike) or _is_transformers_tokenizer(tokenizer)):
        raise ValueError(
            "tokenizer must be a docling-core tokenizer (BaseTokenizer, e.g. HuggingFaceTokenizer or "
            "OpenAITokenizer), a Hugging Face model name or local path, or a transformers tokenizer; "
            f"got {type(tokenizer).__name__}"
        )
    if max_tokens is not None:
        max_tokens = check_max_tokens(max_tokens)
    warnings.warn(DEPRECATED_INIT_MESSAGE, DeprecationWarning, stacklevel=4)
    if tokenizer is None:
        data["tokenizer"] = bundled_tokenizer(max_tokens)
    elif isinstance(tokenizer, str | os.PathLike):
        data["tokenizer"] = _named_tokenizer(os.fspath(tokenizer), max_tokens)
    else:
        data["tokenizer"] = _wrapped_tokenizer(tokenizer, max_tokens)
    return data


def _named_tokenizer(name: str, max_tokens: int | None) -> BaseTokenizer:
    """A tokenizer by model name or path; without ``max_tokens``, the model's own limit (HybridChunker's meaning)."""
    if name in BUNDLED_NAMES:
        return bundled_tokenizer(DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens)
    if max_tokens is not None:
        return load_tokenizer(name, max_tokens)
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

    try:
        return HuggingFaceTokenizer.from_pretrained(model_name=name)
    except Exception as exc:  # transformers / hub errors of many kinds
        raise ValueError(
            f"could not load tokenizer {name!r} with its own max_tokens (needs its sentence_bert_config.json from "
            f"the Hugging Face hub or cache): pass max_tokens=..., or a docling-core tokenizer; "
            f"cause: {type(exc).__name__}"
        ) from exc


def _wrapped_tokenizer(tokenizer: object, max_tokens: int | None) -> BaseTokenizer:
    """docling-core's ``HuggingFaceTokenizer`` over a transformers tokenizer object, as HybridChunker builds it."""
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

    if max_tokens is None and getattr(tokenizer, "name_or_path", None) in BUNDLED_NAMES:
        max_tokens = DEFAULT_MAX_TOKENS  # what the model's sentence_bert_config.json says, without the hub
    if max_tokens is None:
        try:
            return HuggingFaceTokenizer(tokenizer=tokenizer)
        except Exception as exc:
            raise ValueError(
                f"could not determine max_tokens for the {type(tokenizer).__name__} given: pass max_tokens=...; "
                f"cause: {type(exc).__name__}"
            ) from exc
    return HuggingFaceTokenizer(tokenizer=tokenizer, max_tokens=max_tokens)


DUMP_HINT = (
    "EvidenceChunker.model_dump() writes the tokenizer by its declared type, BaseTokenizer, which has no fields: "
    "dump with chunker.model_dump(serialize_as_any=True), or give the tokenizer again: "
    "EvidenceChunker.model_validate({**dump, 'tokenizer': chunker.tokenizer}) (a copy: chunker.model_copy())"
)
"""What to do instead when a dumped chunker's tokenizer cannot be rebuilt (a plain ``model_dump`` gives ``{}``)."""


def tokenizer_from_dump(dump: dict[str, Any]) -> BaseTokenizer:
    """The tokenizer a ``model_dump`` of a tokenizer describes: ``{"tokenizer": <object>, "max_tokens": N}``.

    A ``tokenizers.Tokenizer`` becomes a :class:`~docling_evidence.tokenizer.TokenizersTokenizer` (the bundled
    tokenizer's class), a transformers tokenizer docling-core's ``HuggingFaceTokenizer``, each with the dumped limit.
    ``chunker.model_dump(serialize_as_any=True)`` holds such a dict; a plain ``chunker.model_dump()`` holds ``{}``
    (pydantic dumps the field as the abstract ``BaseTokenizer``), which cannot be rebuilt.

    Raises:
        ValueError: naming what to do instead (:data:`DUMP_HINT`) when the dict is not such a dump.
    """
    inner = dump.get("tokenizer")
    max_tokens = dump.get("max_tokens")
    if inner is None or max_tokens is None:
        given = ", ".join(sorted(map(str, dump))) or "none"
        raise ValueError(f"the tokenizer is a dict without 'tokenizer' and 'max_tokens' (keys: {given}): {DUMP_HINT}")
    max_tokens = check_max_tokens(max_tokens)
    if _is_transformers_tokenizer(inner):
        from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

        return HuggingFaceTokenizer(tokenizer=inner, max_tokens=max_tokens)
    if type(inner).__module__.split(".")[0] == "tokenizers":
        return TokenizersTokenizer(tokenizer=inner, max_tokens=max_tokens)
    raise ValueError(
        f"cannot rebuild a tokenizer over a dumped {type(inner).__name__} (only tokenizers' and transformers' "
        f"tokenizers are rebuilt from a dump): {DUMP_HINT}"
    )
