"""What of each context paragraph a unit piece shows, as character spans of the paragraph's own text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docling_core.types.doc import TextItem

from docling_evidence.assemble.views import CONTEXT_GAP
from docling_evidence.document.index import DocIndex
from docling_evidence.meta import EvidenceChunk


def shown_spans(
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
    """Fallback of :func:`shown_spans` when the fragments cannot be located: the spans up to the longest prefix of them
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


def run_spans(index: DocIndex, pos: int, spans: Sequence[tuple[int, int]]) -> dict[str, list[tuple[int, int]]]:
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


def whole_context_refs(chunks: Iterable[EvidenceChunk], index: DocIndex) -> set[str]:
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
