"""Tables as header/body rows, rendered one line per row in Markdown, HTML and triplets."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument, TableData
from docs_builder import table_data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docling_evidence.tables.formats import (
    ROW_FORMATS,
    TABLE_FORMATS,
    CellTextFormat,
    SerializerLinesFormat,
    SerializerPipeRowsFormat,
    TableFormatName,
    column_label,
)
from docling_evidence.tables.params import TableParams
from docling_evidence.tables.rows import inferred_header_rows, table_rows
from docling_evidence.tables.serializer import EvidenceSerializerProvider, render_table, table_layout


def _financial_table() -> tuple[DoclingDocument, object]:
    """TAT-QA style: a super-header spanning the year columns above the year row."""
    doc = DoclingDocument(name="d")
    header = [["", "Years Ended September 30,", ""], ["", "2019", "2018"]]
    body = [["Revenue | net", "1,234\n(restated)", "<b>99</b>"]]
    table = doc.add_table(data=table_data(header, body, spans=[(0, 1, 1, 2)]))
    return doc, table


def test_all_leading_header_rows_are_header_and_spans_repeat() -> None:
    doc, table = _financial_table()
    rows = table_rows(table, doc)
    assert rows.header == (("", "Years Ended September 30,", "Years Ended September 30,"), ("", "2019", "2018"))
    assert rows.body == (("Revenue | net", "1,234\n(restated)", "<b>99</b>"),)
    assert rows.label_cols == 1
    assert column_label(rows.header, 1) == "Years Ended September 30, - 2019"


def test_markdown_escapes_pipes_and_newlines_one_line_per_row() -> None:
    doc, table = _financial_table()
    text = render_table(table_rows(table, doc), "markdown")
    assert text.splitlines() == [
        "|  | Years Ended September 30, - 2019 | Years Ended September 30, - 2018 |",
        "|---|---|---|",
        "| Revenue \\| net | 1,234 (restated) | <b>99</b> |",
    ]


def test_html_escapes_markup_inside_cells() -> None:
    doc, table = _financial_table()
    lines = render_table(table_rows(table, doc), "html").splitlines()
    assert lines[0] == "<table>" and lines[-1] == "</table>"
    assert "<td>&lt;b&gt;99&lt;/b&gt;</td>" in lines[-2]
    assert len(lines) == 2 + 2 + 1


def test_triplets_fold_column_labels_into_each_row() -> None:
    doc, table = _financial_table()
    header_line, line = render_table(table_rows(table, doc), "triplets").splitlines()
    assert header_line == "Columns: ; Years Ended September 30, - 2019; Years Ended September 30, - 2018"
    assert line == (
        "Revenue | net, Years Ended September 30, - 2019 = 1,234 (restated). "
        "Revenue | net, Years Ended September 30, - 2018 = <b>99</b>"
    )


def test_table_without_header_cells_has_only_body_rows() -> None:
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=table_data([], [["a", "b"], ["c", "d"]]))
    rows = table_rows(table, doc)
    assert rows.header == () and len(rows.body) == 2
    for name, fmt in TABLE_FORMATS.items():
        assert fmt.header_lines(rows.header, (0, 1)) == [], name


def test_unflagged_text_rows_above_rows_of_values_read_as_the_header() -> None:
    # a JATS or <td>-only HTML table: two header rows Docling did not mark, then rows of values
    grid = [
        ["District", "Goats", "Goats", "Sheep"],
        ["", "n", "95% C.I.", "n"],
        ["Mocuba", "59", "0.0, 4.9", "181"],
        ["Mopeia", "53", "37.6, 63.8", "14"],
        ["Morrumbala", "61", "n.d", "–"],
        ["Nicoadala", "52", "7.1, 20.2", "22"],
    ]
    doc = DoclingDocument(name="d")
    rows = table_rows(doc.add_table(data=table_data([], grid)), doc)
    assert rows.header == (tuple(grid[0]), tuple(grid[1]))
    assert rows.body == tuple(tuple(r) for r in grid[2:])


def test_flagged_headers_are_never_second_guessed() -> None:
    doc = DoclingDocument(name="d")
    rows = table_rows(doc.add_table(data=table_data([["Name", "Role"]], [["Protein", "Kma"], ["LipC", "0.18"]])), doc)
    assert rows.header == (("Name", "Role"),)  # the flagged row only, although the next one holds no value


@pytest.mark.parametrize(
    ("grid", "header"),
    [
        ([["", "2019", "2018"], ["Revenue", "1,496.5", "1,302.0"]], 0),  # a first row of years holds values
        ([["Term", "Meaning"], ["MLT", "mean lysis time"], ["SD", "standard deviation"]], 0),  # text only
        ([["Name", "Count"]], 0),  # one row: its content
        ([["Protein", "Count"], ["LipC", "n.d"], ["LipI", "n.d"], ["LipF", "12"]], 0),  # most rows below hold no value
        ([["a"], ["b"], ["c"], ["d"], ["1"], ["2"], ["3"], ["4"], ["5"]], 3),  # at most three rows
        ([["", ""], ["x", "10 min"], ["y", "1*"]], 0),  # an empty first row is not a header
        ([["Strain", "MLT (min)"], ["IN61", "45.7"], ["IN62", "39.1c"]], 1),  # one letter beside digits: a value
        (
            [
                ["Notices " + ". " * 40, ". vii"],
                ["Preface " + ". " * 40, "xi"],
                ["Chapter 1 " + ". " * 40, "1"],
                ["Chapter 2 " + ". " * 40, "7"],
                ["Chapter 3 " + ". " * 40, "19"],
                ["Index " + ". " * 40, "31"],
            ],
            0,
        ),  # entries
    ],
)
def test_a_header_is_inferred_only_above_rows_of_values(grid: list[list[str]], header: int) -> None:
    assert inferred_header_rows(grid) == header


@given(st.lists(st.lists(st.sampled_from(["", "a", "Total", "12", "3.5c", "95% C.I.", "n"]), min_size=2, max_size=2),
                min_size=1, max_size=8))  # fmt: skip
def test_an_inferred_header_keeps_every_row_once_in_order(grid: list[list[str]]) -> None:
    doc = DoclingDocument(name="d")
    rows = table_rows(doc.add_table(data=table_data([], grid)), doc)
    assert [*rows.header, *rows.body] == [tuple(r) for r in grid]
    assert len(rows.header) <= 3 and (rows.body or not rows.header)


def test_header_inference_reads_its_bounds_from_table_params() -> None:
    grid = [
        ["Strain", "MLT (min)"],
        ["", "mean"],
        ["IN61", "45.7"],
        ["IN62", "39.1c"],
        ["IN63", "41.0"],
        ["IN64", "40"],
    ]
    assert inferred_header_rows(grid) == 2
    assert inferred_header_rows(grid, TableParams(max_inferred_header_rows=1)) == 1
    assert inferred_header_rows(grid, TableParams(max_inferred_header_rows=0)) == 0
    assert inferred_header_rows(grid, TableParams(max_header_cell_words=1)) == 0  # "MLT (min)" is two words
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=table_data([], grid))
    assert len(table_rows(table, doc, params=TableParams(max_inferred_header_rows=1)).header) == 1


@given(st.lists(st.lists(st.sampled_from(["", "a", "Total", "12", "3.5c", "two words", "n"]), min_size=2, max_size=2),
                min_size=1, max_size=8), st.integers(0, 4), st.integers(1, 3))  # fmt: skip
def test_any_table_params_keep_every_row_once_and_bound_the_header(
    grid: list[list[str]], max_rows: int, max_words: int
) -> None:
    doc = DoclingDocument(name="d")
    params = TableParams(max_inferred_header_rows=max_rows, max_header_cell_words=max_words)
    rows = table_rows(doc.add_table(data=table_data([], grid)), doc, params=params)
    assert [*rows.header, *rows.body] == [tuple(r) for r in grid]
    assert len(rows.header) <= max_rows
    assert all(len(cell.split()) <= max_words for row in rows.header for cell in row)


def test_empty_table_has_no_rows() -> None:
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=TableData(num_rows=0, num_cols=0, table_cells=[]))
    rows = table_rows(table, doc)
    assert rows.header == () and rows.body == () and rows.num_cols == 0


def test_serializer_provider_plugs_into_docling_core() -> None:
    doc, table = _financial_table()
    ser = EvidenceSerializerProvider(table_format="html").get_serializer(doc)
    text = ser.serialize(item=table).text
    assert text.startswith("<table>") and "2019" in text
    header, body = ser.table_serializer.get_header_and_body_lines(table_text=text)
    assert any("<th>" in h for h in header) and all("<th>" not in b for b in body)


def test_every_row_format_is_registered_once_under_its_kind() -> None:
    assert len(ROW_FORMATS) == 6
    for kind, fmt in ROW_FORMATS.items():
        assert fmt.kind == kind and fmt.name in get_args(TableFormatName)
    assert {name: fmt.kind for name, fmt in TABLE_FORMATS.items()} == {n: n for n in get_args(TableFormatName)}


def test_a_one_cell_table_is_shown_as_its_text() -> None:
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=table_data([], [["Body text | in a layout table"]]))
    layout = table_layout([table], doc, EvidenceSerializerProvider().get_serializer(doc))
    assert isinstance(layout.fmt, CellTextFormat) and layout.fmt.name == "markdown"
    assert render_table(layout.rows, layout.fmt) == "Body text | in a layout table"


def _serializer(doc: DoclingDocument, table_serializer: object) -> object:
    from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer

    return ChunkingDocSerializer(doc=doc, table_serializer=table_serializer)


def test_another_serializers_pipe_rows_are_shown_as_it_writes_them() -> None:
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer

    doc, table = _financial_table()
    ser = _serializer(doc, MarkdownTableSerializer())
    layout = table_layout([table], doc, ser)
    assert isinstance(layout.fmt, SerializerPipeRowsFormat) and layout.fmt.name == "markdown"
    own = [line for line in ser.serialize(item=table).text.splitlines() if line.strip()]
    assert render_table(layout.rows, layout.fmt).splitlines() == own
    cols = (0, 2)  # a column subset is still a pipe table of the serializer's cells
    assert layout.fmt.row_line(layout.rows.body[0], cols, layout.rows.header, 1).count("|") == 3


def test_another_serializers_html_lines_are_kept_whole() -> None:
    from docling_core.transforms.serializer.html import HTMLTableSerializer

    doc, table = _financial_table()
    layout = table_layout([table], doc, _serializer(doc, HTMLTableSerializer()))
    assert isinstance(layout.fmt, SerializerLinesFormat) and layout.fmt.name == "html"
    assert "2019" in render_table(layout.rows, layout.fmt)
    assert all(row[0].lstrip().startswith("<") for row in layout.rows.body)


def test_header_only_table_keeps_its_rows_as_content() -> None:
    doc = DoclingDocument(name="d")
    table = doc.add_table(data=table_data([["Name", "Value"], ["alpha", "1"]], []))
    rows = table_rows(table, doc)
    assert rows.header == () and rows.body == (("Name", "Value"), ("alpha", "1"))


def _rich_cell_doc(n_tables: int) -> DoclingDocument:
    """``n_tables`` 1x2 tables, each with a plain cell and a rich cell holding a two-item list."""
    from docling_core.types.doc import GroupLabel
    from docling_core.types.doc.document import RichTableCell, TableCell

    doc = DoclingDocument(name="rich")
    for t in range(n_tables):
        table = doc.add_table(data=TableData(num_rows=1, num_cols=2))
        items = doc.add_group(parent=table, label=GroupLabel.LIST)
        for word in ("pond", f"marsh {t}"):
            doc.add_list_item(parent=items, text=word)
        span = {"start_row_offset_idx": 0, "end_row_offset_idx": 1}
        doc.add_table_cell(
            table_item=table, cell=TableCell(start_col_offset_idx=0, end_col_offset_idx=1, text=f"habitat {t}", **span)
        )
        doc.add_table_cell(
            table_item=table,
            cell=RichTableCell(start_col_offset_idx=1, end_col_offset_idx=2, ref=items.get_ref(), text="", **span),
        )
    return doc


def test_row_reader_writes_rich_cells_as_table_rows_does_with_one_serializer(monkeypatch) -> None:
    """A rich cell is written by docling-core's Markdown serializer. Making one validates the whole document, so
    RowReader (units of a document) makes it once, not once per rich cell, which on a long HTML page with many linked
    cells costs 4x HybridChunker's time."""
    import docling_evidence.tables.rows as tr

    doc = _rich_cell_doc(3)
    expected = [table_rows(t, doc) for t in doc.tables]
    assert expected[2].body == (("habitat 2", "- pond\n- marsh 2"),)
    made = []
    original = tr.rich_cell_serializer
    monkeypatch.setattr(tr, "rich_cell_serializer", lambda d: made.append(d) or original(d))
    read = tr.RowReader(doc)
    assert [read(t) for t in doc.tables] == expected
    assert len(made) == 1
    plain = DoclingDocument(name="plain")
    plain.add_table(data=table_data([["a", "b"]], [["1", "2"]]))
    tr.RowReader(plain)(plain.tables[0])
    assert len(made) == 1  # no rich cell, no serializer


def test_rich_cells_are_written_by_the_chunkers_serializer() -> None:
    """A rich cell reads as HybridChunker's serializer writes it ("Quote & ASCII"), not as a bare Markdown serializer
    does ("Quote &amp; ASCII"): the chunker passes its own serializer to the row reader."""
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker
    from docling_core.types.doc import DocItemLabel, GroupLabel
    from docling_core.types.doc.document import RichTableCell, TableCell

    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    doc = DoclingDocument(name="escapes")
    table = doc.add_table(data=TableData(num_rows=2, num_cols=2))
    runs = doc.add_group(parent=table, label=GroupLabel.INLINE)
    doc.add_text(label=DocItemLabel.TEXT, text="Quote", hyperlink="#quote", parent=runs)
    doc.add_text(label=DocItemLabel.TEXT, text="& ASCII", parent=runs)
    span = {"start_col_offset_idx": 1, "end_col_offset_idx": 2}
    for r, (label, value) in enumerate([("Kind", "Escapes"), ("Character", None)]):
        doc.add_table_cell(
            table_item=table,
            cell=TableCell(start_row_offset_idx=r, end_row_offset_idx=r + 1, start_col_offset_idx=0,
                           end_col_offset_idx=1, text=label, column_header=r == 0),
        )  # fmt: skip
        cell = (
            TableCell(text=value, column_header=True, start_row_offset_idx=r, end_row_offset_idx=r + 1, **span)
            if value
            else RichTableCell(ref=runs.get_ref(), text="", start_row_offset_idx=r, end_row_offset_idx=r + 1, **span)
        )
        doc.add_table_cell(table_item=table, cell=cell)
    (unit,) = [c for c in EvidenceChunker().chunk(doc) if c.meta.kind == "table"]
    assert "| Character | [Quote](#quote) & ASCII |" in unit.text
    (theirs,) = list(HybridChunker(tokenizer=bundled_tokenizer()).chunk(doc))
    assert "[Quote](#quote) & ASCII" in theirs.text and "&amp;" not in unit.text


def _nested_table(doc: DoclingDocument, grid: list[list[object]], parent: object = None) -> object:
    """A table whose cells are texts or, for a nested list of rows, a table nested in that cell (any depth), as
    Docling's HTML backend builds one: the inner table sits in a group under the outer table, a rich cell points at
    the group."""
    from docling_core.types.doc import GroupLabel
    from docling_core.types.doc.document import RichTableCell, TableCell

    n_cols = max(len(row) for row in grid)
    table = doc.add_table(data=TableData(num_rows=len(grid), num_cols=n_cols), parent=parent)
    for r, row in enumerate(grid):
        for c, value in enumerate(row):
            span = {"start_row_offset_idx": r, "end_row_offset_idx": r + 1}
            span |= {"start_col_offset_idx": c, "end_col_offset_idx": c + 1}
            if isinstance(value, list):
                group = doc.add_group(parent=table, label=GroupLabel.UNSPECIFIED, name=f"rich_cell_{r}_{c}")
                _nested_table(doc, value, parent=group)
                cell: TableCell = RichTableCell(ref=group.get_ref(), text="", **span)
            else:
                cell = TableCell(text=str(value), **span)
            doc.add_table_cell(table_item=table, cell=cell)
    return table


def _leaves(grid: list[list[object]]) -> list[str]:
    return [leaf for row in grid for v in row for leaf in (_leaves(v) if isinstance(v, list) else [str(v)])]


DEPOTS = [
    ["Site", "Notes"],
    [[["North", "East"], ["Bay 1", [["Bus", "Tram | light"], ["Van", [["Q1", "Q2"], ["Q3", "Q4"]]]]]], "open daily"],
]


def test_a_nested_table_is_flattened_once_with_its_rows_apart() -> None:
    """docling-core's serializers write a nested table as a Markdown table of its own, whose pipes the outer row
    escapes again (``\\\\\\|``), and write the tables nested in it once more after it: a cell text showed up to three
    times. Flattened, every nested cell text is there once, rows apart, deeper tables in brackets."""
    doc = DoclingDocument(name="depots")
    table = _nested_table(doc, DEPOTS)
    rows = table_rows(table, doc)
    assert rows.body[1] == (
        "North, East; Bay 1, [Bus, Tram | light; Van, [Q1, Q2; Q3, Q4]]",
        "open daily",
    )
    line = render_table(rows, "markdown").splitlines()[-1]
    assert line == "| North, East; Bay 1, [Bus, Tram \\| light; Van, [Q1, Q2; Q3, Q4]] | open daily |"


def test_nested_tables_chunk_readably_and_no_longer_than_hybridchunker() -> None:
    from docling_core.transforms.chunker.hybrid_chunker import HybridChunker

    from docling_evidence import EvidenceChunker
    from docling_evidence.tokenizer import bundled_tokenizer

    doc = DoclingDocument(name="depots")
    doc.add_text(label=DocItemLabel.TEXT, text="The depots are listed below.")
    _nested_table(doc, DEPOTS)
    tokenizer = bundled_tokenizer()
    for table_format in ("markdown", "html", "triplets"):
        chunker = EvidenceChunker(tokenizer=tokenizer, table_format=table_format)
        chunks = list(chunker.chunk(doc))
        text = "\n".join(c.text for c in chunks)
        assert "\\\\" not in text and "---" not in text, text
        for leaf in ("North", "Bus", "Q1", "Q4", "open daily"):
            assert text.count(leaf) == 1, (table_format, leaf, text)
        if table_format != "html":  # HTML markup costs about ten tokens a cell, nested or not
            ours = sum(tokenizer.count_tokens(chunker.contextualize(c)) for c in chunks)
            hybrid = HybridChunker(tokenizer=tokenizer)
            theirs = sum(tokenizer.count_tokens(hybrid.contextualize(c)) for c in hybrid.chunk(doc))
            assert ours <= theirs, (table_format, ours, theirs)  # 48 and 49 tokens, HybridChunker 56


_WORDS = st.text(alphabet="ab|\\<&* ", min_size=1, max_size=4).map(lambda s: s.strip() or "x")


@st.composite
def _grids(draw: st.DrawFn, depth: int = 3) -> list[list[object]]:
    n_rows, n_cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    cell = _WORDS if depth == 0 else st.one_of(_WORDS, _WORDS, _grids(depth - 1))
    return [[draw(cell) for _ in range(n_cols)] for _ in range(n_rows)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=_grids())
def test_every_nested_cell_text_is_kept_once(grid: list[list[object]]) -> None:
    """Property: however deep the nesting, the outer table's cells hold every nested cell's text, each once, in
    order (numbered so that no text is a part of another)."""
    counter = iter(range(10_000))

    def number(g: list[list[object]]) -> list[list[object]]:
        return [[number(v) if isinstance(v, list) else f"{v}#{next(counter)}#" for v in row] for row in g]

    grid = number(grid)
    doc = DoclingDocument(name="nested")
    rows = table_rows(_nested_table(doc, grid), doc)
    flat = " ".join(cell for row in (*rows.header, *rows.body) for cell in row)
    leaves = _leaves(grid)
    positions = [flat.find(leaf) for leaf in leaves]
    assert all(flat.count(leaf) == 1 for leaf in leaves), (leaves, flat)
    assert positions == sorted(positions)


NESTED_PAGE = """<html><body><h1>Depots</h1><p>The depots and their bays.</p>
<table><tr><td>Site</td><td>Notes</td></tr>
<tr><td><table><tr><td>North</td><td>East</td></tr><tr><td>Bay 1</td><td><table>
<tr><td>Bus</td><td>Tram | light</td></tr><tr><td>Van</td><td><table><tr><td>Q1</td><td>Q2</td></tr></table></td></tr>
</table></td></tr></table></td><td>open daily</td></tr></table>
<p>Closing paragraph.</p></body></html>"""


def test_a_page_with_nested_tables_converted_by_docling_chunks_within_the_limit(tmp_path: Path) -> None:
    """End to end with Docling's HTML backend (a table in a cell of a table in a cell ...): at any limit every chunk
    fits, each nested cell text is shown once over the pieces, escaped once, and every row view fits too."""
    import pytest

    pytest.importorskip("docling.backend.html_backend", reason="docling ('convert' extra) not installed")
    from docling_evidence import EvidenceChunker
    from docling_evidence.document.convert import convert_path
    from docling_evidence.tokenizer import bundled_tokenizer

    page = tmp_path / "depots.html"
    page.write_text(NESTED_PAGE, encoding="utf-8")
    doc = convert_path(page)
    assert len(doc.tables) == 4  # the outer table and three nested ones
    for limit in (32, 64, 256):
        chunker = EvidenceChunker(tokenizer=bundled_tokenizer(limit))
        chunks = list(chunker.chunk(doc))
        count = chunker.tokenizer.count_tokens
        assert all(count(chunker.contextualize(c)) <= limit for c in chunks)
        assert all(count(view) <= limit for c in chunks for view in chunker.contextualize_views(c))
        text = "".join(c.text for c in chunks if c.meta.kind == "table")
        for leaf in ("North", "Bay 1", "Bus", "Tram \\| light", "Van", "Q1", "Q2", "open daily"):
            assert text.count(leaf) == 1, (limit, leaf, text)
        assert "\\\\" not in text
