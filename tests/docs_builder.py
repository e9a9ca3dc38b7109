"""Build small DoclingDocuments with docling-core's API, with or without layout, for the tests."""

from __future__ import annotations

from collections.abc import Sequence

from docling_core.types.doc import (
    BoundingBox,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    Size,
    TableCell,
    TableData,
    TableItem,
    TextItem,
)


def prov(page: int, left: float, top: float, right: float, bottom: float) -> ProvenanceItem:
    """A provenance entry with a top-left-origin box (top < bottom)."""
    return ProvenanceItem(
        page_no=page,
        bbox=BoundingBox(l=left, t=top, r=right, b=bottom, coord_origin=CoordOrigin.TOPLEFT),
        charspan=(0, 0),
    )


def table_data(
    header: Sequence[Sequence[str]],
    body: Sequence[Sequence[str]],
    row_header: bool = False,
    *,
    label_cols: int | None = None,
    spans: Sequence[tuple[int, int, int, int]] = (),
) -> TableData:
    """A TableData grid: header rows get ``column_header``; the first ``label_cols`` body columns get ``row_header``
    (``row_header=True`` is ``label_cols=1``).

    ``spans`` are merged cells as ``(row, col, row_span, col_span)`` in grid coordinates (header rows first): the
    cell at ``(row, col)`` covers the block and its text is the text of that slot; the other slots are not emitted.
    """
    rows = [*header, *body]
    ncols = max((len(r) for r in rows), default=0)
    n_labels = (1 if row_header else 0) if label_cols is None else label_cols
    anchor_of: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for r, c, rs, cs in spans:
        for i in range(rs):
            for j in range(cs):
                anchor_of[(r + i, c + j)] = (r, c, rs, cs)
    cells = []
    for i, row in enumerate(rows):
        for j in range(ncols):
            r0, c0, rs, cs = anchor_of.get((i, j), (i, j, 1, 1))
            if (r0, c0) != (i, j):
                continue
            cells.append(
                TableCell(
                    text=row[j] if j < len(row) else "",
                    row_span=rs,
                    col_span=cs,
                    start_row_offset_idx=i,
                    end_row_offset_idx=i + rs,
                    start_col_offset_idx=j,
                    end_col_offset_idx=j + cs,
                    column_header=i < len(header),
                    row_header=i >= len(header) and j < n_labels,
                )
            )
    return TableData(num_rows=len(rows), num_cols=ncols, table_cells=cells)


def add_table(
    doc: DoclingDocument,
    header: Sequence[Sequence[str]],
    body: Sequence[Sequence[str]],
    *,
    caption: str | None = None,
    footnotes: Sequence[str] = (),
    provs: Sequence[ProvenanceItem] = (),
    caption_prov: ProvenanceItem | None = None,
) -> TableItem:
    """Add a table with Docling-linked caption and footnotes (caption item before the table, as Docling does)."""
    cap: TextItem | None = None
    if caption is not None:
        cap = doc.add_text(label=DocItemLabel.CAPTION, text=caption, prov=caption_prov)
    table = doc.add_table(data=table_data(header, body), caption=cap, prov=provs[0] if provs else None)
    for extra in provs[1:]:
        table.prov.append(extra)
    for note in footnotes:
        fn = doc.add_text(label=DocItemLabel.FOOTNOTE, text=note)
        table.footnotes.append(fn.get_ref())
    return table


def paged_doc(pages: int = 2, width: float = 612, height: float = 792) -> DoclingDocument:
    """An empty document with ``pages`` letter-size pages."""
    doc = DoclingDocument(name="paged")
    for p in range(1, pages + 1):
        doc.add_page(page_no=p, size=Size(width=width, height=height))
    return doc
