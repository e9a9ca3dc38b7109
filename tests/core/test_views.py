"""Row views: one short text per row a table piece shows, within the limit, pointing back to the piece."""

from __future__ import annotations

from docling_core.transforms.chunker.tokenizer.base import BaseTokenizer
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docling_evidence_bench.arms import build_arm, make_chunker
from docs_builder import add_table
from pydantic import Field

from docling_evidence import EvidenceChunker
from docling_evidence.assemble.views import fitted_row_views, join_row_view, row_view_parts, sentence_views
from docling_evidence.tables.rows import TableRows
from docling_evidence.tokenizer import TokenizersTokenizer, bundled_tokenizer

ROWS = TableRows(
    header=(("", "Fiscal", "Fiscal"), ("", "2019", "2018")),
    body=(("Revenue", "1,496.5", "1,202.9"), ("Costs", "", "56.7"), ("Segment A:", "", "")),
    label_cols=1,
)


def test_row_view_names_each_value_by_its_column_label() -> None:
    assert join_row_view(*row_view_parts(ROWS, 0)) == "Revenue: Fiscal - 2019 = 1,496.5; Fiscal - 2018 = 1,202.9"
    # an empty cell is left out; a row of only a label is its label
    assert join_row_view(*row_view_parts(ROWS, 1)) == "Costs: Fiscal - 2018 = 56.7"
    assert join_row_view(*row_view_parts(ROWS, 2)) == "Segment A:"


def test_row_view_leaves_out_placeholder_values() -> None:
    rows = TableRows(
        header=(("", "2019", "2018", "Change", "Audited"),),
        body=(("Other", "$ —", "–", "(%)", "✓"), ("Total", "$ 1,202.9", "-3", "-", "…")),
        label_cols=1,
    )
    # dashes, a lone currency or percent sign hold no value; a check mark does
    assert join_row_view(*row_view_parts(rows, 0)) == "Other: Audited = ✓"
    # a value with a digit is kept, sign and all
    assert join_row_view(*row_view_parts(rows, 1)) == "Total: 2019 = $ 1,202.9; 2018 = -3"


def test_row_view_over_some_columns_and_a_cell_fragment() -> None:
    assert join_row_view(*row_view_parts(ROWS, 0, (0, 2))) == "Revenue: Fiscal - 2018 = 1,202.9"
    # the fragment replaces the text of the last column shown
    assert join_row_view(*row_view_parts(ROWS, 0, (0, 1), "1,49")) == "Revenue: Fiscal - 2019 = 1,49"


def test_row_view_reads_a_label_spread_over_label_columns_once() -> None:
    rows = TableRows(header=(), body=(("North", "North", "7"),), label_cols=2)
    assert join_row_view(*row_view_parts(rows, 0)) == "North: 7"


def _words_fit(n: int):
    return lambda text: len(text.split()) <= n


def test_fitted_views_keep_the_caption_only_when_it_fits() -> None:
    label, values = row_view_parts(ROWS, 0)
    assert fitted_row_views(label, values, "Table 1: Results", _words_fit(40)) == [
        "Table 1: Results\nRevenue: Fiscal - 2019 = 1,496.5; Fiscal - 2018 = 1,202.9"
    ]
    caption = " ".join(["long"] * 30)
    assert fitted_row_views(label, values, caption, _words_fit(20)) == [
        "Revenue: Fiscal - 2019 = 1,496.5; Fiscal - 2018 = 1,202.9"
    ]


def test_fitted_views_pack_values_repeating_the_label_and_cut_a_long_value() -> None:
    label, values = row_view_parts(ROWS, 0)
    assert fitted_row_views(label, values, "", _words_fit(6)) == [
        "Revenue: Fiscal - 2019 = 1,496.5",
        "Revenue: Fiscal - 2018 = 1,202.9",
    ]
    long_value = " ".join(f"w{i}" for i in range(12))
    views = fitted_row_views("Note", [long_value], "", _words_fit(5))
    assert all(len(v.split()) <= 5 for v in views)
    assert " ".join(v.removeprefix("Note: ") for v in views) == long_value
    # a label too long to repeat is shown once, as a value
    views = fitted_row_views(" ".join(["label"] * 6), ["1", "2"], "", _words_fit(6))
    assert all(len(v.split()) <= 6 for v in views) and "label" in views[0] and views[-1].endswith("2")
    assert fitted_row_views("", [], "Caption", _words_fit(5)) == []


def _doc(rows: int = 3) -> DoclingDocument:
    doc = DoclingDocument(name="views")
    doc.add_heading("Results of operations")
    doc.add_text(DocItemLabel.TEXT, "The following table shows revenue by segment, in millions:")
    add_table(
        doc,
        [["Segment", "2019", "2018"]],
        [[f"Segment {i}", f"{100 + i}.5", f"{90 + i}.1"] for i in range(rows)],
    )
    return doc


def _doc_and_outlook() -> DoclingDocument:
    """:func:`_doc` with 30 rows and a paragraph of its own section after the table (a text chunk)."""
    doc = _doc(rows=30)
    doc.add_heading("Outlook")
    doc.add_text(DocItemLabel.TEXT, "Demand should hold next year.")
    return doc


def test_each_piece_carries_the_views_of_its_rows_within_the_limit() -> None:
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(64))
    chunks = list(chunker.chunk(_doc_and_outlook()))
    pieces = [c for c in chunks if c.meta.kind == "table"]
    assert len(pieces) > 1
    for piece in pieces:
        a, b = piece.meta.rows
        rows = [v for v in piece.meta.views if v.startswith("Segment ")]
        assert [v.split(":")[0] for v in rows] == [f"Segment {i}" for i in range(a, b)]
        assert set(piece.meta.views) - set(rows) <= {"The following table shows revenue by segment, in millions:"}
        for text in chunker.contextualize_views(piece):
            assert text.startswith("Results of operations\n")  # contextualized like the chunk: headings first
            assert chunker.tokenizer.count_tokens(text) <= 64
    text_chunks = [c for c in chunks if c.meta.kind == "text"]
    assert text_chunks and all(not c.meta.views for c in text_chunks)
    # the views are metadata only: the chunk text and the embedded text do not change
    plain = list(EvidenceChunker(tokenizer=bundled_tokenizer(64), views=False).chunk(_doc_and_outlook()))
    assert [c.text for c in plain] == [c.text for c in chunks]
    assert [chunker.contextualize(c) for c in plain] == [chunker.contextualize(c) for c in chunks]
    assert all(not c.meta.views for c in plain)


def _captioned(caption: str, rows: int = 30) -> DoclingDocument:
    doc = DoclingDocument(name="captioned")
    doc.add_heading("Results of operations")
    body = [[f"Segment {i}", f"{100 + i}.5", f"{90 + i}.1"] for i in range(rows)]
    add_table(doc, [["Segment", "2019", "2018"]], body, caption=caption)
    return doc


def test_the_caption_view_goes_with_the_piece_the_table_starts_in() -> None:
    caption = "Table 4: Revenue by segment"
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(64))
    pieces = [c for c in chunker.chunk(_captioned(caption)) if c.meta.kind == "table"]
    assert len(pieces) > 1
    starts = next(p for p in pieces if p.meta.rows[1] > p.meta.rows[0])  # the first piece that shows rows
    for piece in pieces:
        # the table as a whole is asked about by its caption: one view, in the piece holding the first rows
        assert (caption in piece.meta.views) == (piece is starts)
        assert piece.meta.views.count(caption) <= 1
    assert caption in starts.text
    # a caption longer than the limit is cut into views that each fit, losing no word
    long = " ".join(f"word{i}" for i in range(120))
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(48))
    first = next(c for c in chunker.chunk(_captioned(long)) if c.meta.kind == "table" and c.meta.rows == (0, 1))
    parts = [v for v in first.meta.views if v.startswith("word")]
    assert len(parts) > 1 and " ".join(parts) == long
    assert all(chunker.tokenizer.count_tokens(t) <= 48 for t in chunker.contextualize_views(first))
    # no caption, no caption view; and views=False leaves none
    uncaptioned_views = [v for c in EvidenceChunker().chunk(_doc(rows=30)) for v in c.meta.views]
    assert uncaptioned_views and not any("Table" in v for v in uncaptioned_views)
    plain = list(EvidenceChunker(tokenizer=bundled_tokenizer(64), views=False).chunk(_captioned(caption)))
    assert plain and all(not c.meta.views for c in plain)


def test_bench_hybrid_views_control_gets_a_caption_view_too() -> None:
    records = build_arm("hybrid-views", {"d": _captioned("Table 4: Revenue by segment")}, make_chunker("hybrid", 64))
    captions = [r for r in records if r.kind == "caption"]
    assert [r.embed_text.split("\n")[-1] for r in captions] == ["Table 4: Revenue by segment"]
    start = records[captions[0].target]
    assert "Segment 0" in start.embed_text and "Table 4: Revenue by segment" in start.embed_text


def test_bench_hybrid_views_control_row_views_are_the_chunkers() -> None:
    # the same texts as EvidenceChunker's row views (a row that fits a piece): under the caption when it fits
    limit = 64
    doc = _captioned("Table 4: Revenue by segment", rows=3)
    ours = [
        v
        for c in EvidenceChunker(tokenizer=bundled_tokenizer(limit)).chunk(doc)
        if c.meta.kind == "table"
        for v in c.meta.views
        if v != "Table 4: Revenue by segment"  # the caption view
    ]
    records = build_arm("hybrid-views", {"d": doc}, make_chunker("hybrid", limit))
    control = [r.embed_text.removeprefix("Results of operations\n") for r in records if r.kind == "row"]
    assert (
        control
        == ours
        == [f"Table 4: Revenue by segment\nSegment {i}: 2019 = 10{i}.5; 2018 = 9{i}.1" for i in range(3)]
    )
    # a row too long for one view is packed into views that each fit the limit, losing no value
    add_table(doc, [["Segment", "2019", "2018"]], [["Segment long", *(" ".join(["forty"] * 40) for _ in range(2))]])
    records = build_arm("hybrid-views", {"d": doc}, make_chunker("hybrid", limit))
    wide = [r.embed_text for r in records if r.kind == "row" and "Segment long" in r.embed_text]
    count = bundled_tokenizer(limit).count_tokens
    assert len(wide) > 1 and all(count(t) <= limit for t in wide)
    assert sum(t.count("forty") for t in wide) == 80


def test_views_are_kept_out_of_the_embedded_and_llm_text() -> None:
    chunker = EvidenceChunker()
    piece = next(c for c in chunker.chunk(_doc()) if c.meta.kind == "table")
    assert piece.meta.views
    assert "Segment 0: 2019 = 100.5" not in chunker.contextualize(piece)
    assert "views" in piece.meta.excluded_embed and "views" in piece.meta.excluded_llm


def test_a_row_split_by_columns_gives_each_piece_the_view_of_its_columns() -> None:
    doc = DoclingDocument(name="wide")
    header = ["Item", *(f"Quarter {q} of fiscal year 2019 ending" for q in range(1, 9))]
    add_table(doc, [header], [["Revenue", *(f"{1000 + q}.25" for q in range(8))]])
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(48))
    pieces = [c for c in chunker.chunk(doc) if c.meta.kind == "table"]
    assert len(pieces) > 1
    views = [v for p in pieces for v in p.meta.views]
    assert all(v.startswith("Revenue: ") for v in views)  # the label repeated with each column group
    for q in range(8):  # every value once over the views of the pieces
        assert sum(f"{1000 + q}.25" in v for v in views) == 1


def test_bench_evidence_arm_indexes_views_pointing_to_their_piece() -> None:
    docs = {"d": _doc()}
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    records = build_arm("evidence", docs, chunker)
    single = build_arm("evidence-single", docs, chunker)
    rows = [r for r in records if r.kind == "view"]
    assert [r.embed_text for r in records[: len(single)]] == [r.embed_text for r in single]
    assert all(r.kind != "view" for r in single)
    assert len(rows) == 4  # three rows and the context sentence
    for r in rows:
        piece = records[r.target]
        assert piece.kind == "table" and r.unit_id == piece.unit_id
        assert r.embed_text.split("\n")[-1].split(":")[0] in piece.embed_text


def test_sentence_views_one_per_sentence_only_when_there_are_two() -> None:
    fits = _words_fit(50)
    assert sentence_views(["Revenue grew. Costs fell."], fits) == ["Revenue grew.", "Costs fell."]
    assert sentence_views(["Revenue grew."], fits) == []  # the chunk's own vector is that sentence
    assert sentence_views(["Revenue grew."], fits, min_count=1) == ["Revenue grew."]
    # each line on its own (merged paragraphs), whitespace folded
    assert sentence_views(["Heading line\nA  first sentence. A second."], fits) == [
        "Heading line",
        "A first sentence.",
        "A second.",
    ]
    long = " ".join(f"w{i}" for i in range(12)) + ". Short."
    views = sentence_views([long], _words_fit(5))
    assert all(len(v.split()) <= 5 for v in views) and views[-1] == "Short."


def test_text_chunks_and_pieces_carry_the_views_of_their_sentences() -> None:
    doc = DoclingDocument(name="peers")
    doc.add_heading("Results")
    doc.add_text(DocItemLabel.TEXT, "Sales rose in Europe. Margins held steady across the year.")
    doc.add_text(DocItemLabel.TEXT, "The table below shows revenue by segment:")
    add_table(doc, [["Segment", "2019"]], [["North", "10.5"], ["South", "7.1"]])
    doc.add_heading("Outlook")
    doc.add_text(DocItemLabel.TEXT, "We expect growth. Hiring continues in Asia.")
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    chunks = list(chunker.chunk(doc))
    unit = next(c for c in chunks if c.meta.kind == "table")
    assert "Sales rose in Europe." in unit.text  # context (or a section peer) shown in the unit
    assert unit.meta.views == [
        "North: 2019 = 10.5",
        "South: 2019 = 7.1",
        "Sales rose in Europe.",
        "Margins held steady across the year.",
        "The table below shows revenue by segment:",
    ]
    text = next(c for c in chunks if c.meta.kind == "text" and "growth" in c.text)
    assert text.meta.views == ["We expect growth.", "Hiring continues in Asia."]
    assert chunker.contextualize_views(text) == ["Outlook\nWe expect growth.", "Outlook\nHiring continues in Asia."]
    plain = list(EvidenceChunker(tokenizer=bundled_tokenizer(256), views=False).chunk(doc))
    assert [c.text for c in plain] == [c.text for c in chunks] and not any(c.meta.views for c in plain)


class _Recording(TokenizersTokenizer):
    """The bundled tokenizer, remembering every text it is asked to count."""

    seen: list[str] = Field(default_factory=list)

    def count_tokens(self, text: str) -> int:
        self.seen.append(text)
        return super().count_tokens(text)


def test_sentence_views_of_a_fitting_chunk_are_not_counted_again() -> None:
    doc = DoclingDocument(name="sentences")
    doc.add_heading("Outlook")
    doc.add_text(DocItemLabel.TEXT, "We expect growth next year. Hiring continues in Asia and Europe.")
    base = bundled_tokenizer(256)
    recording = _Recording(tokenizer=base.tokenizer, max_tokens=256)
    chunker = EvidenceChunker(tokenizer=recording)
    chunks = list(chunker.chunk(doc))
    assert chunks[0].meta.views == ["We expect growth next year.", "Hiring continues in Asia and Europe."]
    # the chunk fits and WordPiece counts add up across spaces, so no sentence is sent to the tokenizer on its own
    assert not set(chunks[0].meta.views) & set(recording.seen)
    # a tokenizer whose counts may not add up (not a TokenizersTokenizer) still counts every view
    counted: list[str] = []

    class Other(BaseTokenizer):
        def count_tokens(self, text: str) -> int:
            counted.append(text)
            return base.count_tokens(text)

        def get_max_tokens(self) -> int:
            return 256

        def get_tokenizer(self) -> object:
            return base.get_tokenizer()

    other = list(EvidenceChunker(tokenizer=Other()).chunk(doc))
    assert other[0].meta.views == chunks[0].meta.views
    assert all(f"Outlook\n{v}" in counted for v in other[0].meta.views)


def test_bench_hybrid_views_control_gets_the_same_kinds_of_views() -> None:
    doc = DoclingDocument(name="control")
    doc.add_heading("Results")
    doc.add_text(DocItemLabel.TEXT, "Sales rose in Europe. Margins held steady.")
    add_table(doc, [["Segment", "2019"]], [["North", "10.5"], ["South", "7.1"]])
    records = build_arm("hybrid-views", {"d": doc})
    hybrid = build_arm("hybrid", {"d": doc})
    assert [r.embed_text for r in records[: len(hybrid)]] == [r.embed_text for r in hybrid]
    rows = [r for r in records if r.kind == "row"]
    sentences = [r for r in records if r.kind == "sentence"]
    assert [r.embed_text.split("\n")[-1] for r in rows] == ["North: 2019 = 10.5", "South: 2019 = 7.1"]
    # HybridChunker merged the paragraph and the table into one chunk: its sentences get views there
    assert [r.embed_text for r in sentences] == ["Results\nSales rose in Europe.", "Results\nMargins held steady."]
    assert all(r.embed_text.split("\n")[-1] in records[r.target].embed_text for r in sentences)


def test_views_leave_out_the_gap_mark_markup_lines_and_repeats() -> None:
    fits = _words_fit(50)
    assert sentence_views(["Sales rose. … Costs fell. …"], fits) == ["Sales rose.", "Costs fell."]
    assert sentence_views(["| | |\n|---|---|\n```\nx = 1\n```\nx = 1"], fits, 1) == ["x = 1"]


def test_a_header_cell_with_a_line_break_gives_a_one_line_view() -> None:
    rows = TableRows(header=(("Segment", "Revenue\n2019"),), body=(("North", "10.5"),), label_cols=1)
    assert join_row_view(*row_view_parts(rows, 0)) == "North: Revenue 2019 = 10.5"


def test_a_piece_of_a_row_split_by_columns_names_the_row_even_without_its_label_column() -> None:
    doc = DoclingDocument(name="wide")
    label = "Operating profit before exceptional items and amortisation of acquired intangibles"
    add_table(doc, [["Item", *(f"FY{y}" for y in range(2010, 2026))]], [[label, *(f"{y}.5" for y in range(16))]])
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(40))
    pieces = [c for c in chunker.chunk(doc) if c.meta.kind == "table"]
    assert len(pieces) > 2
    assert any(label not in p.text for p in pieces if p.meta.views)  # some pieces show values without the label
    for p in pieces:
        for view in p.meta.views:
            assert view.startswith(label[:20]) or label.split()[0] in view, view
    for text in (v for p in pieces for v in chunker.contextualize_views(p)):
        assert chunker.tokenizer.count_tokens(text) <= 40


def test_a_label_that_leaves_little_room_is_shown_once_and_no_value_is_lost() -> None:
    # a label that takes almost the whole limit is not repeated beside each value (that would cut the values into
    # pieces too small to carry any): it is shown once, and the values follow in views of their own
    label = " ".join(["revenue"] * 9)
    views = fitted_row_views(label, ["2019 = revenue 표 3 매출 revenue"], "", _words_fit(10))
    assert views[0] == label and all(len(v.split()) <= 10 for v in views)
    assert " ".join(views[1:]) == "2019 = revenue 표 3 매출 revenue"
    # a value that does not fit beside a repeatable label goes on without it rather than being lost
    views = fitted_row_views("Net", [" ".join(f"w{i}" for i in range(9))], "", _words_fit(4))
    assert " ".join(v.removeprefix("Net: ") for v in views) == " ".join(f"w{i}" for i in range(9))
