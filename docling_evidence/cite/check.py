"""Matching claims against sources, and the check itself: :func:`check_answer` and :func:`check_file`.

```python
from docling_evidence.cite import check_answer

report = check_answer("Revenue rose to $1,496.5 million in 2019.", doc, chunks=retrieved)   # chunks optional
for claim in report.claims:
    claim.text, claim.kind, claim.supported
    for ev in claim.evidence:                  # what supports it, best-ranked chunk first
        ev.ref, ev.kind, ev.page, ev.bbox, ev.row, ev.col, ev.chunk
report.to_dict()                                # {"claims": [{"text", "supported", "evidence": [...]}, ...]}
```

No model, no randomness: the same answer and document always give the same report. Claims are read by
:mod:`docling_evidence.cite.claims`, sources by :mod:`docling_evidence.cite.sources`. With ``chunks``, only the items a
chunk lists in ``meta.doc_items`` count, and a table cell only when the chunk's text shows it (and, for a piece of a
split table, when its row is one of the piece's rows): a claim is supported by what was actually cited. Chunks of
another document are refused (:func:`docling_evidence.cite.chunks.check_chunks_belong`: by ``meta.origin``, else by
what their text shows).

**Matching** (after :func:`docling_evidence.text.normalize.normalize_text`: case, Unicode, whitespace, currency symbols,
thousands separators):

- A number is supported by a source number of the same value and sign, ``(12)`` being ``-12``; ``12.50`` equals
  ``12.5``; a ``%`` on either side is optional (tables put it in the header). A number written without a sign is
  also supported by the negative one (``match="unsigned"``: "a loss of 9,819" for a cell "(9,819)"); a negative
  number is never supported by a positive one. Scales: when the claim has a scale word
  and the source has a different known scale (its own word, or the table's "in thousands" / "$'000" marker in the
  caption, header cells or footnotes) the values are compared after scaling, to the precision the claim is written
  with (``$1.5 million`` is supported by ``1,496.5`` in a table "in thousands"); two different known scales with the
  same digits do not match. A number right after "Table", "Figure", "Note", "page", "section", "item", "no." or "#"
  is a label: it matches only the same label ("Section 404" in the answer and the text; "Table 1" is not
  "Figure 1"), never a value ("Table 1" does not support "$1 million"). A number found nowhere is unsupported.
- A quoted span is supported by a source holding it verbatim (normalised, at word boundaries).
- A sentence is supported when at least :data:`MIN_NGRAM_COVERAGE` of its word :data:`NGRAM_N`-grams (n-grams made
  only of stop words do not count) occur in the sources, each n-gram inside one source, **and** every number and
  quote inside it is supported. Its evidence is the smallest set of sources, best first, that reaches that coverage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence.cite.chunks import CitedChunk, ForeignChunkError, check_chunks_belong, read_chunk_lines
from docling_evidence.cite.claims import (
    MIN_NGRAM_COVERAGE,
    NGRAM_N,
    ClaimSpan,
    Number,
    extract_claims,
    sentence_ngrams,
)
from docling_evidence.cite.report import CitationReport, Claim, Evidence, MatchKind
from docling_evidence.cite.sources import DocumentSources, Source
from docling_evidence.text.normalize import contains_answer

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

MAX_SENTENCE_EVIDENCE: int = 3
"""At most this many sources are cited for one sentence."""


def number_match(claim: Number, source: Number, source_scale: Decimal | None) -> MatchKind | None:
    """How ``source`` (in a source whose scale is ``source_scale``) supports the number ``claim``, or None.

    A negative claim needs a negative source; an unsigned claim also matches a negative source (``"unsigned"``: "a
    loss of 9,819" for a cell "(9,819)" — the sign is in the words).
    """
    if (claim.negative and not source.negative) or claim.label != source.label:
        return None
    scale = source.scale or source_scale
    same: MatchKind = "unsigned" if source.negative and not claim.negative else "exact"
    if claim.value == source.value:
        if claim.scale is None or scale is None or claim.scale == scale or claim.percent or source.percent:
            return same
        return None
    if claim.scale is None or scale is None or claim.scale == scale or claim.percent or source.percent:
        return None
    claimed = claim.value * claim.scale
    found = source.value * scale
    tolerance = claim.scale * Decimal(5) * Decimal(10) ** (-(claim.decimals + 1))
    if found != 0 and abs(claimed - found) <= tolerance:
        return "scaled"
    return None


_MATCH_RANK: dict[str, int] = {"exact": 0, "unsigned": 1, "scaled": 2, "ngram": 3}


def _evidence(source: Source, match: MatchKind, chunk: int | None) -> Evidence:
    return Evidence(
        ref=source.ref,
        kind=source.kind,
        text=source.text,
        page=source.page,
        bbox=source.bbox,
        box_source=source.box_source,
        match=match,
        chunk=chunk,
        row=source.row,
        col=source.col,
        row_label=source.row_label,
        column_label=source.column_label,
    )


def _number_evidence(number: Number, pool: Sequence[tuple[Source, int | None]]) -> list[Evidence]:
    out = []
    for source, chunk in pool:
        if source.kind == "table_row":
            continue
        best: MatchKind | None = None
        for candidate in source.numbers:
            kind = number_match(number, candidate, source.scale)
            if kind == "exact":
                best = kind
                break
            if kind is not None and (best is None or _MATCH_RANK[kind] < _MATCH_RANK[best]):
                best = kind
        if best is not None:
            out.append(_evidence(source, best, chunk))
    return out


def _quote_evidence(quote: str, pool: Sequence[tuple[Source, int | None]]) -> list[Evidence]:
    return [
        _evidence(source, "exact", chunk)
        for source, chunk in pool
        if source.kind != "table_cell" and contains_answer(source.norm, quote)
    ] or [_evidence(source, "exact", chunk) for source, chunk in pool if contains_answer(source.norm, quote)]


def _sentence_evidence(text: str, pool: Sequence[tuple[Source, int | None]]) -> tuple[float, list[Evidence]]:
    """Coverage of the sentence's n-grams by the pool, and the greedy smallest set of sources reaching it."""
    grams = sentence_ngrams(text)
    if not grams:
        return 0.0, []
    if len(next(iter(grams))) == NGRAM_N:
        found = [(source, chunk, grams & source.ngrams) for source, chunk in pool if source.kind != "table_cell"]
    else:  # a sentence with fewer content words: one short n-gram, looked for as a run of words
        phrase = " " + " ".join(next(iter(grams))) + " "
        found = [
            (source, chunk, grams if phrase in source.words else frozenset())
            for source, chunk in pool
            if source.kind != "table_cell"
        ]
    candidates = found
    candidates = [c for c in candidates if c[2]]
    covered: set[tuple[str, ...]] = set()
    chosen: list[Evidence] = []
    reachable: set[tuple[str, ...]] = set().union(*(c[2] for c in candidates)) if candidates else set()
    while candidates and len(chosen) < MAX_SENTENCE_EVIDENCE and len(covered) < len(reachable):
        source, chunk, gained = max(candidates, key=lambda c: len(c[2] - covered))  # first best: chunk order
        covered |= gained
        chosen.append(_evidence(source, "ngram", chunk))
    return len(reachable) / len(grams), chosen


def _dedupe(evidence: Iterable[Evidence]) -> tuple[Evidence, ...]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for e in evidence:
        key = (e.ref, e.kind, e.row, e.col, e.text)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return tuple(out)


def _shows(chunk: CitedChunk, source: Source, n_header: dict[str, int]) -> bool:
    """Whether ``chunk`` cites ``source``: its item is a member, and a table cell/row is visible in the chunk."""
    if source.ref not in chunk.refs:
        return False
    if source.kind not in ("table_cell", "table_row"):
        return True
    row = source.row or 0
    head = n_header.get(source.ref, 0)
    if chunk.rows is not None and row >= head and not (chunk.rows[0] <= row - head < chunk.rows[1]):
        return False
    probe = source.text if source.kind == "table_cell" else (source.row_label or source.text.split(" ")[0])
    return contains_answer(chunk.text, probe)


def _pool(sources: DocumentSources, chunks: Sequence[CitedChunk] | None) -> list[tuple[Source, int | None]]:
    """(source, first chunk citing it) for every source the check may use, in chunk order then reading order."""
    if chunks is None:
        return [(s, None) for s in sources.sources]
    first: dict[int, int] = {}
    for k, chunk in enumerate(chunks):
        for i, source in enumerate(sources.sources):
            if i not in first and _shows(chunk, source, sources.n_header):
                first[i] = k
    ordered = sorted(first, key=lambda i: (first[i], i))
    return [(sources.sources[i], first[i]) for i in ordered]


def _check(
    spans: Sequence[ClaimSpan], pool: Sequence[tuple[Source, int | None]]
) -> list[tuple[bool, tuple[Evidence, ...]]]:
    results: list[tuple[bool, tuple[Evidence, ...]]] = []
    for span in spans:
        if span.kind == "number":
            assert span.number is not None
            found = _dedupe(_number_evidence(span.number, pool))
            results.append((bool(found), found))
        elif span.kind == "quote":
            found = _dedupe(_quote_evidence(span.text, pool))
            results.append((bool(found), found))
        else:
            coverage, chosen = _sentence_evidence(span.text, pool)
            results.append((coverage >= MIN_NGRAM_COVERAGE, _dedupe(chosen)))
    # a sentence holds only if the numbers and quotes inside it hold too
    for i, span in enumerate(spans):
        if span.kind != "sentence" or not results[i][0]:
            continue
        inner = [
            results[j][0]
            for j, other in enumerate(spans)
            if other.kind != "sentence" and span.start <= other.start and other.end <= span.end
        ]
        if not all(inner):
            results[i] = (False, results[i][1])
    return results


def check_answer(
    answer: str,
    doc: DoclingDocument | DocumentSources,
    chunks: Sequence[Any] | None = None,
) -> CitationReport:
    """Split ``answer`` into claims and find, for each, the sources that support it (see the module docstring).

    Args:
        answer: the answer text (e.g. an LLM's answer built from retrieved chunks).
        doc: the document (or a prebuilt :class:`DocumentSources` of it, to check many answers cheaply).
        chunks: the chunks the answer cites (``DocChunk`` / ``EvidenceChunk`` objects or :class:`CitedChunk`), in
            rank order, or the ``PackedEvidence`` the answer was written from (``EvidenceChunker.pack``: each block
            counts as a chunk showing what it delivered); None checks against the whole document. An empty list
            supports nothing.

    Raises:
        TypeError: for an answer that is not a string, a document that is not a ``DoclingDocument``, or chunks that
            are not chunks.
        ForeignChunkError: (a ``ValueError``) for a chunk of another document (see :func:`check_chunks_belong`).
    """
    spans = extract_claims(answer)
    sources = doc if isinstance(doc, DocumentSources) else DocumentSources(doc)
    if callable(getattr(chunks, "cited_chunks", None)):  # a PackedEvidence: each block cites what it delivered
        chunks = chunks.cited_chunks()  # type: ignore[union-attr]
    if chunks is not None and (isinstance(chunks, (str, bytes)) or not isinstance(chunks, Sequence)):
        raise TypeError(f"chunks must be a sequence of chunks or None, got {type(chunks).__name__}")
    cited = [CitedChunk.from_chunk(c) for c in chunks] if chunks is not None else None
    if cited is not None:
        check_chunks_belong(sources, cited)
    results = _check(spans, _pool(sources, cited))
    elsewhere: list[tuple[Evidence, ...]] = [()] * len(spans)
    if cited is not None and not all(ok for ok, _ in results):
        whole = _check(spans, _pool(sources, None))
        elsewhere = [w[1] if not r[0] and w[0] else () for r, w in zip(results, whole, strict=True)]
    claims = tuple(
        Claim(s.text, s.kind, s.start, s.end, ok, found, other)
        for s, (ok, found), other in zip(spans, results, elsewhere, strict=True)
    )
    return CitationReport(
        answer=answer,
        claims=claims,
        document=sources.doc.name,
        chunks_given=cited is not None,
        has_layout=sources.has_layout,
    )


def check_file(document: str | Path, answer: str, chunks_path: str | Path | None = None) -> CitationReport:
    """Load or convert ``document`` (DoclingDocument JSON, or any format ``docling_evidence.document.convert``
    handles), read the cited chunks from ``chunks_path`` (JSONL, see
    :func:`docling_evidence.cite.chunks.read_chunks_jsonl`) if given, and check ``answer``.

    Raises:
        ValueError: a one-line message naming the file at fault (``convert.InputError`` for the document), also when
            a chunk is not from this document (naming the chunks file and line).
    """
    from docling_evidence.document.convert import convert_path

    doc = convert_path(document)
    lines = read_chunk_lines(chunks_path) if chunks_path is not None else None
    chunks = [chunk for _, chunk in lines] if lines is not None else None
    try:
        return check_answer(answer, doc, chunks)
    except ForeignChunkError as exc:
        assert lines is not None
        raise ValueError(
            f"{chunks_path}:{lines[exc.index][0]}: {exc}; chunk {document} alone "
            "(docling-evidence chunk DOC -o chunks.jsonl) and pass those chunks"
        ) from None
