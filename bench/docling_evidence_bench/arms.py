"""The benchmark's arms: which chunker makes the indexed texts, and how chunks group into retrievable units.

Every arm turns a document into :class:`ChunkRecord` s. A record is one indexed vector: its embed text is
``chunker.contextualize(chunk)``, its ``unit_id`` says what max-pool ranking groups it with, and ``target`` names the
record whose text a retrieval of this vector returns (itself, except for ``rowsplit``'s row vectors, which return
their table chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from docling_evidence.document.layout import page_span
from docling_evidence.tokenizer import DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    from docling_core.transforms.chunker import BaseChunker
    from docling_core.types.doc import DoclingDocument, TableItem

BASELINE: str = "hybrid"
"""The arm every other arm is compared with: what a Docling user gets by default."""

ARMS: tuple[str, ...] = (
    "hybrid",
    "hybrid-pooled",
    "hybrid-markdown",
    "hybrid-1024",
    "hybrid-2048",
    "page",
    "rowsplit",
    "hybrid-views",
    "evidence",
    "evidence-single",
    "evidence-no-context",
    "evidence-no-caption",
)
"""All arms, in report order: baseline, controls, then ours and its ablations (what ``all`` runs)."""

DIAGNOSTIC_ARMS: tuple[str, ...] = (
    "evidence-triplets",
    "evidence-triplets-single",
    "evidence-context-in-text",
    "evidence-context-in-text-single",
)
"""Extra arms run only when named: ``evidence-triplets`` renders units' tables as docling-core triplets (the
baseline's table format), to separate the effect of evidence units from the effect of the table format;
``evidence-triplets-single`` indexes its chunks one vector each (the drop-in path in that format);
``evidence-context-in-text`` (and its ``-single`` form) keeps a context paragraph the unit shows whole in its text
chunk too (``context_in_text=True``), as HybridChunker's text chunks hold it."""

ARM_DESCRIPTIONS: dict[str, str] = {
    "hybrid": "HybridChunker defaults (triplet tables, bundled tokenizer, the run's limit: 256 by default)",
    "hybrid-pooled": "control: hybrid's chunks, the pieces of one table sharing a unit id (pooled by table)",
    "hybrid-markdown": "HybridChunker with MarkdownTableSerializer tables",
    "hybrid-1024": "HybridChunker, max_tokens=1024",
    "hybrid-2048": "HybridChunker, max_tokens=2048",
    "page": "docling-core PageChunker (one chunk per page; whole document when it has no pages)",
    "rowsplit": "HybridChunker chunks + one vector per table body row pointing to its table chunk",
    "hybrid-views": "control: rowsplit + one vector per sentence of its chunks and per table caption (our views)",
    "evidence": "EvidenceChunker() defaults (bundled tokenizer, the run's limit); each chunk's vector + its views",
    "evidence-single": "ablation: evidence's chunks, one vector per chunk (no views)",
    "evidence-no-context": "EvidenceChunker, UnitParams(with_context=False): no explaining paragraphs in table units",
    "evidence-no-caption": "EvidenceChunker, UnitParams(with_caption=False): no captions in table units",
    "evidence-triplets": "EvidenceChunker(table_format='triplets'): evidence units, baseline's table format",
    "evidence-triplets-single": "evidence-triplets' chunks, one vector per chunk (no views)",
    "evidence-context-in-text": "EvidenceChunker(context_in_text=True): context shown whole stays in its text chunk",
    "evidence-context-in-text-single": "evidence-context-in-text's chunks, one vector per chunk (no views)",
}

RANKINGS: tuple[str, ...] = ("flat", "maxpool")
"""``flat``: every vector is a result; ``maxpool``: units ranked by their best vector, each unit listed once at that
vector's chunk (its lower pieces removed); delivered within a token budget as the re-assembled unit."""


@dataclass(frozen=True)
class ChunkRecord:
    """One indexed vector of one arm."""

    arm: str
    doc_id: str
    index: int
    """Position of this record within its document's records (reading order; row vectors follow the chunks)."""
    embed_text: str
    """What is embedded and BM25-indexed: ``chunker.contextualize(chunk)`` (rowsplit rows: headings + row text)."""
    unit_id: str
    """Max-pool group, unique across the corpus (prefixed with ``doc_id``)."""
    page_span: tuple[int, ...]
    """Sorted 1-based pages of the chunk's doc items (empty when the document has no pages)."""
    target: int
    """``index`` of the record whose text a retrieval of this vector returns (== ``index`` except row vectors)."""
    kind: str = "chunk"
    """``chunk`` | ``row`` (rowsplit, hybrid-views) | ``sentence`` / ``caption`` (hybrid-views) | ``table`` / ``text`` |
    ``view`` (evidence arms)."""


def parse_arms(spec: str | Iterable[str]) -> list[str]:
    """Arms from a comma-separated spec (or ``"all"``), de-duplicated, in the given order.

    Raises:
        ValueError: naming an unknown arm.
    """
    names = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [str(s).strip() for s in spec]
    names = [n for n in names if n]
    if names == ["all"]:
        return list(ARMS)
    unknown = [n for n in names if n not in ARMS and n not in DIAGNOSTIC_ARMS]
    if unknown:
        known = ", ".join((*ARMS, *DIAGNOSTIC_ARMS))
        raise ValueError(f"unknown arm {unknown[0]!r}; expected 'all' or some of: {known}")
    if not names:
        raise ValueError("no arm given")
    return list(dict.fromkeys(names))


def page_span_of(doc_items: Iterable[Any]) -> tuple[int, ...]:
    """Sorted distinct ``page_no`` over the provenance of ``doc_items``
    (:func:`docling_evidence.document.layout.page_span`)."""
    return tuple(page_span(doc_items))


def _hybrid(max_tokens: int = DEFAULT_MAX_TOKENS, markdown_tables: bool = False) -> BaseChunker:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence.tokenizer import bundled_tokenizer

    kwargs: dict[str, Any] = {"tokenizer": bundled_tokenizer(max_tokens)}
    if markdown_tables:
        kwargs["serializer_provider"] = _markdown_provider()
    return HybridChunker(**kwargs)


def _markdown_provider() -> Any:
    from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer, ChunkingSerializerProvider
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer

    class MarkdownTableProvider(ChunkingSerializerProvider):
        def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
            return ChunkingDocSerializer(doc=doc, table_serializer=MarkdownTableSerializer())

    return MarkdownTableProvider()


def _page() -> BaseChunker:
    from docling_core.transforms.chunker.page_chunker import PageChunker

    return PageChunker()


def _evidence(max_tokens: int = DEFAULT_MAX_TOKENS, **kwargs: Any) -> BaseChunker:
    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    return EvidenceChunker(tokenizer=bundled_tokenizer(max_tokens), **kwargs)


CHUNKER_FACTORIES: dict[str, Callable[[int], BaseChunker]] = {
    "hybrid": _hybrid,
    "hybrid-pooled": _hybrid,
    "hybrid-markdown": lambda n: _hybrid(n, markdown_tables=True),
    "hybrid-1024": lambda _n: _hybrid(1024),
    "hybrid-2048": lambda _n: _hybrid(2048),
    "page": lambda _n: _page(),
    "rowsplit": _hybrid,
    "hybrid-views": _hybrid,
    "evidence": _evidence,
    "evidence-single": _evidence,
    "evidence-no-context": lambda n: _evidence(n, params={"units": {"with_context": False}}),
    "evidence-no-caption": lambda n: _evidence(n, params={"units": {"with_caption": False}}),
    "evidence-triplets": lambda n: _evidence(n, table_format="triplets"),
    "evidence-triplets-single": lambda n: _evidence(n, table_format="triplets"),
    "evidence-context-in-text": lambda n: _evidence(n, context_in_text=True),
    "evidence-context-in-text-single": lambda n: _evidence(n, context_in_text=True),
}
"""Each arm's chunker for a chunk limit (arms with a fixed size or none ignore it)."""


def make_chunker(arm: str, max_tokens: int = DEFAULT_MAX_TOKENS) -> BaseChunker:
    """The chunker behind ``arm`` at the chunk limit ``max_tokens`` (bundled tokenizer).

    Raises:
        ValueError: for an unknown arm.
    """
    if arm not in CHUNKER_FACTORIES:
        raise ValueError(f"unknown arm {arm!r}; expected one of: {', '.join((*ARMS, *DIAGNOSTIC_ARMS))}")
    return CHUNKER_FACTORIES[arm](max_tokens)


def table_row_parts(table: TableItem, doc: DoclingDocument) -> list[tuple[str, list[str], list[str]]]:
    """One ``(label, values, cell_texts)`` per body row with a cell: EvidenceChunker's row view parts
    (:func:`docling_evidence.assemble.views.row_view_parts` over every column), read by
    :func:`docling_evidence.tables.rows.table_rows`, the chunker's reader (a merged cell is read in every column it
    spans, each under its column's label)."""
    from docling_evidence.assemble.views import row_view_parts
    from docling_evidence.tables.rows import table_rows

    rows = table_rows(table, doc)
    out: list[tuple[str, list[str], list[str]]] = []
    for k, row in enumerate(rows.body):
        cells = [text for text in row if text]
        if cells:
            out.append((*row_view_parts(rows, k), cells))
    return out


def _pick_table_chunk(chunk_idx: list[int], texts: list[str], cells: list[str]) -> int:
    """The chunk (among a table's chunks) holding most of a row's cell texts; ties go to the earliest."""
    best, best_count = chunk_idx[0], -1
    for i in chunk_idx:
        count = sum(1 for c in cells if c in texts[i])
        if count > best_count:
            best, best_count = i, count
    return best


SAME_CHUNKS: dict[str, str] = {
    "hybrid-pooled": "hybrid",
    "rowsplit": "hybrid",
    "hybrid-views": "hybrid",
    "evidence-single": "evidence",
    "evidence-triplets-single": "evidence-triplets",
    "evidence-context-in-text-single": "evidence-context-in-text",
}
"""Arms that index the chunks of another arm (same chunker, same limit): a run chunks once for both."""


def chunk_document(
    arm: str, chunker: BaseChunker, doc_id: str, doc: DoclingDocument, chunks: Sequence[Any] | None = None
) -> list[ChunkRecord]:
    """Chunk one document the way ``arm`` does and return its records in index order.

    ``chunks``: the chunker's chunks of ``doc`` when already made (see :data:`SAME_CHUNKS`); ``chunker`` still
    contextualizes them.
    """
    chunks = list(chunker.chunk(doc)) if chunks is None else list(chunks)
    evidence_arm = arm.startswith("evidence")
    records: list[ChunkRecord] = []
    for i, chunk in enumerate(chunks):
        meta = chunk.meta
        if evidence_arm:
            unit = f"{doc_id}:{meta.unit_id}"
            span = tuple(sorted(meta.page_span))
            kind = meta.kind
        else:
            unit = f"{doc_id}:{i}"
            span = page_span_of(meta.doc_items)
            kind = "chunk"
            if arm == "hybrid-pooled":
                table = next((it.self_ref for it in meta.doc_items if it.self_ref.startswith("#/tables/")), None)
                if table is not None:
                    unit, kind = f"{doc_id}:{table}", "table"
        records.append(ChunkRecord(arm, doc_id, i, chunker.contextualize(chunk), unit, span, i, kind))
    if arm in ("rowsplit", "hybrid-views"):
        records.extend(_row_records(arm, doc_id, doc, chunker, chunks, records))
    if arm == "hybrid-views":
        records.extend(_sentence_records(arm, doc_id, doc, chunker, chunks, records))
        records.extend(_caption_records(arm, doc_id, doc, chunker, chunks, records))
    elif evidence_arm and not arm.endswith("-single"):
        records.extend(_view_records(arm, doc_id, chunker, chunks, records))
    return records


def _view_records(
    arm: str, doc_id: str, chunker: BaseChunker, chunks: list[Any], records: list[ChunkRecord]
) -> list[ChunkRecord]:
    """One record per view of each chunk (``EvidenceChunker.contextualize_views``: rows, sentences), pointing to it."""
    views: list[ChunkRecord] = []
    for i, chunk in enumerate(chunks):
        for text in chunker.contextualize_views(chunk):  # type: ignore[attr-defined]
            rec = records[i]
            views.append(
                ChunkRecord(arm, doc_id, len(records) + len(views), text, rec.unit_id, rec.page_span, i, "view")
            )
    return views


def _sentence_records(
    arm: str, doc_id: str, doc: DoclingDocument, chunker: BaseChunker, chunks: list[Any], records: list[ChunkRecord]
) -> list[ChunkRecord]:
    """One record per sentence of each chunk's text, pointing to it: the sentence views EvidenceChunker gives its
    chunks (:func:`docling_evidence.assemble.views.sentence_views`): a chunk without a table when it has two
    sentences or more, a chunk with a table one per sentence of its paragraphs."""
    from docling_core.types.doc import RefItem, TextItem

    from docling_evidence.assemble.views import sentence_views, shown_sentences

    out: list[ChunkRecord] = []
    for i, chunk in enumerate(chunks):
        has_table = any(it.self_ref.startswith("#/tables/") for it in chunk.meta.doc_items)
        if has_table:  # the chunk's paragraphs (its doc items are plain DocItems: read them from the document)
            items = [RefItem(cref=it.self_ref).resolve(doc) for it in chunk.meta.doc_items]
            texts = [it.text for it in items if isinstance(it, TextItem)]
        else:
            texts = [chunk.text]
        views = sentence_views(texts, _view_frame(chunker, chunk)[1], 1 if has_table else 2)
        for text in shown_sentences(views, chunk.text):
            embed = chunker.contextualize(chunk.model_copy(update={"text": text}))
            rec = records[i]
            index = len(records) + len(out)
            out.append(ChunkRecord(arm, doc_id, index, embed, rec.unit_id, rec.page_span, i, "sentence"))
    return out


def _view_frame(chunker: BaseChunker, chunk: Any) -> tuple[str, Callable[[str], bool]]:
    """What a view of ``chunk`` is embedded after (the chunk contextualized with no text: its headings) and whether a
    view's text fits the chunker's limit after it, counted by the chunker's tokenizer."""
    limit = chunker.tokenizer.get_max_tokens()  # type: ignore[attr-defined]
    count = chunker.tokenizer.count_tokens  # type: ignore[attr-defined]
    prefix = chunker.contextualize(chunk.model_copy(update={"text": ""}))
    return prefix, lambda body: count(prefix + body) <= limit


def _chunks_by_table(chunks: list[Any]) -> dict[str, list[int]]:
    """The indices of the chunks that hold each table (by its ref), in chunk order."""
    by_table: dict[str, list[int]] = {}
    for i, chunk in enumerate(chunks):
        for item in chunk.meta.doc_items:
            if item.self_ref.startswith("#/tables/"):
                by_table.setdefault(item.self_ref, []).append(i)
    return by_table


def _caption_records(
    arm: str, doc_id: str, doc: DoclingDocument, chunker: BaseChunker, chunks: list[Any], records: list[ChunkRecord]
) -> list[ChunkRecord]:
    """The caption views EvidenceChunker gives its units (:func:`docling_evidence.assemble.views.caption_views`), for
    each table with a Docling-linked caption, pointing to the first chunk that holds the table."""
    from docling_evidence.assemble.views import caption_views

    by_table = _chunks_by_table(chunks)
    out: list[ChunkRecord] = []
    for table in doc.tables:
        if table.self_ref not in by_table:
            continue
        start = by_table[table.self_ref][0]
        chunk = chunks[start]
        span = page_span_of([table]) or records[start].page_span
        for text in caption_views(table.caption_text(doc), _view_frame(chunker, chunk)[1]):
            embed = chunker.contextualize(chunk.model_copy(update={"text": text}))
            index = len(records) + len(out)
            out.append(ChunkRecord(arm, doc_id, index, embed, records[start].unit_id, span, start, "caption"))
    return out


def _row_records(
    arm: str, doc_id: str, doc: DoclingDocument, chunker: BaseChunker, chunks: list[Any], records: list[ChunkRecord]
) -> list[ChunkRecord]:
    """One record per row, pointing to the chunk holding most of its cells: ``rowsplit`` the row text as is,
    ``hybrid-views`` the chunker's row views of it (:func:`docling_evidence.assemble.views.fitted_row_views`: under the
    table's Docling-linked caption when it fits, a long row packed into views that fit after the chunk's headings)."""
    from docling_evidence.assemble.views import fitted_row_views, join_row_view
    from docling_evidence.tables.formats import one_line

    texts = [r.embed_text for r in records]
    by_table = _chunks_by_table(chunks)
    rows: list[ChunkRecord] = []
    for table in doc.tables:
        chunk_idx = by_table.get(table.self_ref)
        if not chunk_idx:
            continue
        caption = one_line(table.caption_text(doc)).strip()
        span = page_span_of([table])
        for label, values, cells in table_row_parts(table, doc):
            target = _pick_table_chunk(chunk_idx, texts, cells)
            prefix, fits = _view_frame(chunker, chunks[target])
            if arm == "hybrid-views":
                views = fitted_row_views(label, values, caption, fits)
            else:
                views = [join_row_view(label, values)]
            for view in views:
                index = len(records) + len(rows)
                unit = records[target].unit_id
                rows.append(
                    ChunkRecord(
                        arm, doc_id, index, prefix + view, unit, span or records[target].page_span, target, "row"
                    )
                )
    return rows


def build_arm(
    arm: str,
    documents: dict[str, DoclingDocument],
    chunker: BaseChunker | None = None,
    chunks_of: dict[str, list[Any]] | None = None,
) -> list[ChunkRecord]:
    """Records of every document, documents in dataset order.

    ``chunks_of``: chunks already made by the same chunker, by document id (the rest are chunked here and added).
    """
    chunker = make_chunker(arm) if chunker is None else chunker
    out: list[ChunkRecord] = []
    for doc_id, doc in documents.items():
        if chunks_of is not None and doc_id not in chunks_of:
            chunks_of[doc_id] = list(chunker.chunk(doc))
        out.extend(chunk_document(arm, chunker, doc_id, doc, None if chunks_of is None else chunks_of[doc_id]))
    return out
