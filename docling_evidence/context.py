"""Pick the body paragraphs that explain a table.

Candidates, on paginated documents (items carry boxes):
- paragraphs on the table's page within ``bbox_threshold`` points of its top or bottom edge, with no section
  header between them and the table in reading order;
- the paragraph right before (after) the table in reading order when it sits on the previous (next) page, i.e.
  the table opens (closes) its page;
- any paragraph on the same or an adjacent page that names the table ("Table 3 shows ...").
On documents without layout (HTML, DOCX, Markdown): the nearest ``MAX_ORDER_STEPS`` paragraphs before and after
the table in the same section, plus paragraphs of that section that name it.

Ranking: naming the table first, then same column, then distance (points, or reading-order steps), then reading
order. Paragraphs are taken nearest first while they fit in the token budget; the chosen ones are returned in
reading order, split into those before and those after the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from docling_evidence.captions import mentions_table
from docling_evidence.doc_index import DocIndex
from docling_evidence.layout import horizontal_overlap, nearest_gap

MAX_ORDER_STEPS = 4
"""Without layout: how many paragraphs on each side of a table are candidates."""


@dataclass(frozen=True)
class _Candidate:
    idx: int
    names_table: bool
    same_column: bool
    distance: float

    def rank(self) -> tuple[bool, bool, float, int]:
        return (not self.names_table, not self.same_column, self.distance, self.idx)


@dataclass(frozen=True)
class ContextChoice:
    """Reading positions of the chosen paragraphs, each side in reading order, and their priority.

    ``rank[k]`` is the priority of the k-th paragraph of ``before + after`` (0 = chosen first).
    """

    before: tuple[int, ...]
    after: tuple[int, ...]
    rank: tuple[int, ...] = ()


def _layout_candidates(
    index: DocIndex, t_idx: int, label: str | None, excluded: set[str], bbox_threshold: float
) -> list[_Candidate]:
    table = index.items[t_idx]
    t_boxes = index.boxes[table.self_ref]
    t_pages = {b.page for b in t_boxes}
    on_page = {p: index.pages_of_index.get(p, []) for p in t_pages}
    opens_page = any(ids and ids[0] == t_idx for ids in on_page.values())
    closes_page = any(ids and ids[-1] == t_idx for ids in on_page.values())
    pages = sorted(t_pages | {p - 1 for p in t_pages} | {p + 1 for p in t_pages})
    seen: set[int] = set()
    found: list[_Candidate] = []
    for page in pages:
        for idx in index.pages_of_index.get(page, []):
            if idx in seen or idx == t_idx or not index.is_paragraph(idx):
                continue
            seen.add(idx)
            item = index.items[idx]
            if item.self_ref in excluded:
                continue
            names = bool(label) and mentions_table(item.text, label)  # type: ignore[attr-defined]
            near = nearest_gap(index.boxes[item.self_ref], t_boxes)
            if near is not None:
                gap, p_box, t_box = near
                same_col = horizontal_overlap(p_box, t_box) > 0
                if names or (gap <= bbox_threshold and not index.heading_between(idx, t_idx)):
                    found.append(_Candidate(idx, names, same_col, gap))
            elif names:
                found.append(_Candidate(idx, True, False, bbox_threshold))
            elif (opens_page and idx < t_idx and page < min(t_pages)) or (
                closes_page and idx > t_idx and page > max(t_pages)
            ):
                neighbours = range(idx + 1, t_idx) if idx < t_idx else range(t_idx + 1, idx)
                if not any(index.is_paragraph(j) or index.is_heading(j) for j in neighbours):
                    found.append(_Candidate(idx, False, True, bbox_threshold))
    return found


def _order_candidates(index: DocIndex, t_idx: int, label: str | None, excluded: set[str]) -> list[_Candidate]:
    found: list[_Candidate] = []
    for direction in (-1, 1):
        steps = 0
        idx = t_idx + direction
        while 0 <= idx < len(index.items) and not index.is_heading(idx):
            if index.is_paragraph(idx) and index.items[idx].self_ref not in excluded:
                text = index.items[idx].text  # type: ignore[attr-defined]
                names = bool(label) and mentions_table(text, label)
                steps += 1
                if names or steps <= MAX_ORDER_STEPS:
                    found.append(_Candidate(idx, names, True, float(steps)))
            idx += direction
    return found


def choose_context(
    index: DocIndex,
    t_idx: int,
    *,
    label: str | None,
    excluded: set[str],
    bbox_threshold: float,
    budget: int,
    count_tokens: Callable[[int], int],
    keep: Callable[[list[int]], list[bool]] | None = None,
) -> ContextChoice:
    """Choose the context paragraphs of the table at reading position ``t_idx``.

    Args:
        index: the document's reading-order index.
        t_idx: the table's reading position.
        label: the table's number from its caption ("3"), used to find paragraphs that name it.
        excluded: refs that may not be context (the unit's caption and footnotes).
        bbox_threshold: largest vertical distance in points on paginated documents.
        budget: token budget for all chosen paragraphs together.
        count_tokens: tokens of the paragraph at a reading position, as it will be rendered.
        keep: optional gate (e.g. embedding similarity) returning, per candidate position, whether it may be used.
    """
    if budget <= 0:
        return ContextChoice((), (), ())
    if index.has_layout and index.boxes[index.items[t_idx].self_ref]:
        candidates = _layout_candidates(index, t_idx, label, excluded, bbox_threshold)
    else:
        candidates = _order_candidates(index, t_idx, label, excluded)
    candidates.sort(key=_Candidate.rank)
    if keep is not None and candidates:
        allowed = keep([c.idx for c in candidates])
        candidates = [c for c, ok in zip(candidates, allowed, strict=True) if ok]
    chosen: list[int] = []
    used = 0
    for cand in candidates:
        cost = count_tokens(cand.idx)
        if used + cost <= budget:
            chosen.append(cand.idx)
            used += cost
    priority = {idx: k for k, idx in enumerate(chosen)}
    chosen.sort()
    return ContextChoice(
        before=tuple(i for i in chosen if i < t_idx),
        after=tuple(i for i in chosen if i > t_idx),
        rank=tuple(priority[i] for i in chosen),
    )
