"""The document's text outside the evidence units, chunked as docling-core's own ``HybridChunker`` chunks it.

The items a unit owns (its table, caption and footnotes) are moved to the invisible content layer in a *view* of the
document, so HybridChunker — with the same tokenizer, serializer provider and settings — chunks everything else
exactly as it would have. The view is a shallow copy: only the hidden (and repaired) items are copied, every other
item is the caller's own object, so chunks refer to the caller's items.

``_TextChunker`` is a ``HybridChunker`` that produces the same chunks with less work: token counts are memoised
(:class:`~docling_evidence.tokenizer.MemoTokenizer`, which ``semchunk`` counts through too when its count is the
memo's), ``semchunk``'s chunker is built once per size instead of per segment, chunks that fit are passed on instead
of re-validated through a JSON round trip, and one document serializer serves both the hierarchical pass and the
token-aware pass.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Iterator
from typing import Any

from docling_core.transforms.chunker import BaseChunk, DocChunk, HierarchicalChunker
from docling_core.transforms.chunker.base import DFLT_DELIM
from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.transforms.serializer.base import BaseDocSerializer, BaseSerializerProvider
from docling_core.transforms.serializer.common import DocSerializer
from docling_core.types.doc import (
    ContentLayer,
    DocItem,
    DoclingDocument,
    FloatingItem,
    NodeItem,
    RefItem,
    TableItem,
)
from pydantic import ConfigDict, PrivateAttr

from docling_evidence.split.splitter import TokenLimitTooSmall
from docling_evidence.tokenizer import MemoTokenizer

_log = logging.getLogger(__name__)


def _dangling(doc: DoclingDocument, ref: RefItem) -> bool:
    try:
        ref.resolve(doc)
    except Exception:
        return True
    return False


def _finite(item: DocItem) -> bool:
    # tested box by box without a generator: the view asks this of every item of the document
    isfinite = math.isfinite
    for p in item.prov:
        bb = p.bbox
        if not (isfinite(bb.l) and isfinite(bb.t) and isfinite(bb.r) and isfinite(bb.b)):
            return False
    return True


def _repaired(doc: DoclingDocument, item: NodeItem, hide: bool) -> NodeItem | None:
    """A shallow copy of ``item`` hidden and/or repaired, or None when it needs neither."""
    update: dict[str, Any] = {}
    if hide:
        update["content_layer"] = ContentLayer.INVISIBLE
    if isinstance(item, FloatingItem):
        for name in ("captions", "footnotes"):
            refs = getattr(item, name)
            kept = [r for r in refs if not _dangling(doc, r)]
            if len(kept) != len(refs):
                update[name] = kept
    if isinstance(item, DocItem) and not _finite(item):
        update["prov"] = [
            p
            if all(math.isfinite(v) for v in (p.bbox.l, p.bbox.t, p.bbox.r, p.bbox.b))
            else p.model_copy(
                update={
                    "bbox": p.bbox.model_copy(
                        update={k: 0.0 for k in ("l", "t", "r", "b") if not math.isfinite(getattr(p.bbox, k))}
                    )
                }
            )
            for p in item.prov
        ]
    return item.model_copy(update=update) if update else None


def _view(doc: DoclingDocument, hidden: set[str]) -> tuple[DoclingDocument, bool]:
    """``doc`` with ``hidden`` items invisible and what HybridChunker crashes on repaired, without copying the rest,
    and whether any caption or footnote ref was dropped.

    HybridChunker fails on caption/footnote refs that point nowhere and on NaN boxes (its JSON round trip turns
    them into nulls); in the view, such refs are dropped and such coordinates set to 0. Returns ``doc`` itself when
    nothing is hidden or repaired.
    """
    lists: dict[str, list[Any]] = {}
    dropped = False
    for item, _ in doc.iterate_items(
        with_groups=True, traverse_pictures=True, included_content_layers=set(ContentLayer)
    ):
        copy = _repaired(doc, item, item.self_ref in hidden)
        if copy is None:
            continue
        if isinstance(item, FloatingItem) and isinstance(copy, FloatingItem):
            dropped = dropped or copy.captions != item.captions or copy.footnotes != item.footnotes
        _, name, pos = item.self_ref.split("/")
        if name not in lists:
            lists[name] = list(getattr(doc, name))
        lists[name][int(pos)] = copy
    return (doc.model_copy(update=lists) if lists else doc), dropped


class _FixedSerializer(BaseSerializerProvider):
    """Hands out one already built serializer for its document (and asks the provider for any other)."""

    def __init__(self, provider: BaseSerializerProvider, serializer: BaseDocSerializer, doc: DoclingDocument) -> None:
        self.provider = provider
        self.serializer = serializer
        self.doc = doc

    def get_serializer(self, doc: DoclingDocument) -> BaseDocSerializer:
        return self.serializer if doc is self.doc else self.provider.get_serializer(doc=doc)


class _TextChunker(HybridChunker):
    """``HybridChunker`` with the same output and less work (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    _semchunkers: dict[int, Any] = PrivateAttr(default_factory=dict)

    def chunk_with(
        self, dl_doc: DoclingDocument, doc_serializer: BaseDocSerializer | None = None, **kwargs: Any
    ) -> list[DocChunk]:
        """``HybridChunker.chunk(dl_doc, **kwargs)``, serializing with ``doc_serializer`` when given (built once
        otherwise); ``kwargs`` go to the hierarchical pass, as HybridChunker hands them on."""
        ser = doc_serializer or self.serializer_provider.get_serializer(doc=dl_doc)
        inner = HierarchicalChunker(
            serializer_provider=_FixedSerializer(self.serializer_provider, ser, dl_doc),
            always_emit_headings=self.always_emit_headings,
        )
        res: Iterable[DocChunk] = inner.chunk(dl_doc=dl_doc, **kwargs)  # type: ignore[assignment]
        res = [x for c in res for x in self._split_by_doc_items(c, doc_serializer=ser)]
        res = [x for c in res for x in self._split_using_plain_text(c, doc_serializer=ser)]
        if self.merge_peers:
            res = self._merge_chunks_with_matching_metadata(res)
        return res

    def chunk(self, dl_doc: DoclingDocument, **kwargs: Any) -> Iterator[BaseChunk]:
        return iter(self.chunk_with(dl_doc, **kwargs))

    def _split_using_plain_text(self, doc_chunk: DocChunk, doc_serializer: BaseDocSerializer) -> list[DocChunk]:
        # HybridChunker copies a fitting chunk through a JSON round trip (re-validating every doc item); the chunk
        # is this pipeline's own object, so it is passed on as it is
        if self._count_chunk_tokens(doc_chunk) <= self.max_tokens:
            return [doc_chunk]
        return super()._split_using_plain_text(doc_chunk, doc_serializer)

    def segment(self, doc_chunk: DocChunk, available_length: int, doc_serializer: BaseDocSerializer) -> list[str]:
        items = doc_chunk.meta.doc_items
        if (
            self.repeat_table_header
            and isinstance(doc_serializer, ChunkingDocSerializer)
            and len(items) == 1
            and isinstance(items[0], TableItem)
        ):
            return super().segment(doc_chunk, available_length, doc_serializer)
        return list(self._semchunker(available_length)(doc_chunk.text))

    def _semchunker(self, size: int) -> Any:
        """``semchunk.chunkerify(tokenizer, size)``, built once per size (HybridChunker builds one per call)."""
        from docling_core.transforms.chunker import hybrid_chunker

        if not hybrid_chunker._SEMCHUNK_AVAILABLE:  # as HybridChunker.segment: a clear error at chunk time
            raise ImportError(hybrid_chunker._SEMCHUNK_INSTALL_HINT) from hybrid_chunker._SEMCHUNK_IMPORT_ERROR
        chunker = self._semchunkers.get(size)
        if chunker is None:
            import semchunk

            raw = self.tokenizer.get_tokenizer()
            tok = self.tokenizer
            if isinstance(tok, MemoTokenizer) and tok.counts_as_encoded():
                # semchunk would count len(raw.encode(text)), which is exactly the memo's count: through the memo,
                # the windows it measures reuse the words already counted (its own cache is not needed, and would
                # keep the document's memo alive after the call)
                chunker = semchunk.chunkerify(
                    tok.count_tokens, chunk_size=size, max_token_chars=_max_token_chars(raw), memoize=False
                )
            else:
                chunker = semchunk.chunkerify(raw, chunk_size=size, max_token_chars=_max_token_chars(raw))
            self._semchunkers[size] = chunker
        return chunker


_MAX_TOKEN_CHARS: dict[int, tuple[Any, int | None]] = {}


def _max_token_chars(raw: Any) -> int | None:
    """The length of the longest vocabulary entry, as ``semchunk.chunkerify`` finds it (scanned once per tokenizer)."""
    known = _MAX_TOKEN_CHARS.get(id(raw))
    if known is not None and known[0] is raw:
        return known[1]
    value: int | None = None
    for getter in ("token_byte_values", "get_vocab"):
        if hasattr(raw, getter) and callable(getattr(raw, getter)):
            vocab = getattr(raw, getter)()
            if hasattr(vocab, "__iter__") and vocab and all(hasattr(token, "__len__") for token in vocab):
                value = max(len(token) for token in vocab)
                break
    if len(_MAX_TOKEN_CHARS) > 16:
        _MAX_TOKEN_CHARS.clear()
    _MAX_TOKEN_CHARS[id(raw)] = (raw, value)
    return value


# docling-core's DocSerializer finds the captions and footnotes of all floating items by walking the whole document
# once per serializer (cached properties of these names)
_SATELLITE_SETS = ("_captions_of_some_item", "_footnotes_of_some_item")


def _serializer_of_view(
    doc_serializer: BaseDocSerializer | None, view: DoclingDocument, same_satellites: bool = False
) -> BaseDocSerializer | None:
    """The caller's serializer with its document replaced by ``view``, or None (the provider then builds one).

    A ``DocSerializer`` is a pydantic model whose fields are its whole configuration, so the same fields over the
    view serialize the view as the provider's own serializer of it would. Building it with ``model_construct``
    skips what constructing it anew costs: pydantic re-validates the view as a whole document (tree checks and
    clamping every box to its page), which the caller's document already passed and the view shares. Private state
    (docling-core's cache of excluded refs, which depends on the document) starts empty.

    With ``same_satellites`` (the view dropped no caption or footnote ref), the sets of captions and footnotes the
    caller's serializer already found are the view's too (the view has the same tree and only hides items, which
    those sets include whatever their layer), so the view's serializer takes them instead of walking the view again.
    """
    if not isinstance(doc_serializer, DocSerializer) or doc_serializer.doc is view:
        return None
    fields = {name: getattr(doc_serializer, name) for name in type(doc_serializer).model_fields}
    serializer = type(doc_serializer).model_construct(**{**fields, "doc": view})
    if same_satellites:
        for name in _SATELLITE_SETS:
            if name in doc_serializer.__dict__:
                serializer.__dict__[name] = doc_serializer.__dict__[name]
    return serializer


def text_chunks(
    doc: DoclingDocument,
    hidden: set[str],
    *,
    tokenizer: BaseTokenizer,
    serializer_provider: BaseSerializerProvider,
    merge_peers: bool,
    always_emit_headings: bool,
    delim: str = DFLT_DELIM,
    repeat_table_header: bool = True,
    omit_header_on_overflow: bool = False,
    doc_serializer: BaseDocSerializer | None = None,
    **kwargs: Any,
) -> Iterable[DocChunk]:
    """HybridChunker's chunks of ``doc`` with the items in ``hidden`` left out, doc items resolved in ``doc``.

    Args:
        merge_peers, always_emit_headings, delim, repeat_table_header, omit_header_on_overflow: HybridChunker's
            settings of the same names (``delim`` joins merged items and chunks; the table settings apply to tables
            that are not units), so the text chunks are what HybridChunker with these settings makes.
        tokenizer: counts tokens; wrap it in a :class:`~docling_evidence.tokenizer.MemoTokenizer` shared with the
            caller so that texts already counted are not counted again (a plain tokenizer is wrapped here).
        doc_serializer: the caller's serializer of ``doc`` (from ``serializer_provider``), reused when nothing is
            hidden or repaired; otherwise its copy over the view (or, for a serializer that is not docling-core's
            ``DocSerializer``, the provider's serializer of the view).
    """
    memo = tokenizer if isinstance(tokenizer, MemoTokenizer) else MemoTokenizer.wrap(tokenizer)
    chunker = _TextChunker(
        tokenizer=memo,
        serializer_provider=serializer_provider,
        merge_peers=merge_peers,
        always_emit_headings=always_emit_headings,
        delim=delim,
        repeat_table_header=repeat_table_header,
        omit_header_on_overflow=omit_header_on_overflow,
    )
    source, dropped = _view(doc, hidden)
    source_serializer = doc_serializer if source is doc else _serializer_of_view(doc_serializer, source, not dropped)
    try:
        produced = chunker.chunk_with(source, source_serializer, **kwargs)
    except RecursionError:  # semchunk's recursion at limits of a few dozen tokens (HybridChunker fails the same way)
        raise TokenLimitTooSmall(
            f"docling-core's text splitter cannot cut this document's text to max_tokens={tokenizer.get_max_tokens()} "
            "(it recursed too deep); use a tokenizer with a larger max_tokens"
        ) from None
    for chunk in produced:
        if source is not doc:
            items: list[DocItem] = []
            for it in chunk.meta.doc_items:
                original = it.get_ref().resolve(doc)
                items.append(original if isinstance(original, DocItem) else it)
            chunk.meta.doc_items = items
        yield chunk
