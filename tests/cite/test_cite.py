"""The citation check on hand-made documents whose right citations are known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, DoclingDocument, ProvenanceItem
from docs_builder import add_table, paged_doc, prov

from docling_evidence.cite import (
    CitedChunk,
    DocumentSources,
    check_answer,
    extract_claims,
    format_text,
    read_chunks_jsonl,
)

PAGE_H = 792.0


def _cell_box(doc: DoclingDocument, table_ref: str, row: int, col: int, box: tuple[float, float, float, float]) -> None:
    table = next(t for t in doc.tables if t.self_ref == table_ref)
    for cell in table.data.table_cells:
        if cell.start_row_offset_idx == row and cell.start_col_offset_idx == col:
            cell.bbox = BoundingBox(l=box[0], t=box[1], r=box[2], b=box[3], coord_origin=CoordOrigin.TOPLEFT)


def report_doc() -> DoclingDocument:
    """Page 1: a paragraph, a table (in thousands) with cell boxes, a footnote. Page 2: a paragraph."""
    doc = paged_doc(2)
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Revenue grew strongly in 2019 thanks to new customers in Europe.",
        prov=prov(1, 50, 60, 550, 90),
    )
    # the table's box is bottom-left (as Docling writes it): top 100, bottom 200 in top-left terms
    table_prov = ProvenanceItem(
        page_no=1,
        bbox=BoundingBox(l=50, t=PAGE_H - 100, r=550, b=PAGE_H - 200, coord_origin=CoordOrigin.BOTTOMLEFT),
        charspan=(0, 0),
    )
    table = add_table(
        doc,
        [["", "2019", "2018"]],
        [["Revenue", "1,496.5", "1,202.9"], ["Cost", "(12)", "44.1"], ["Margin", "12.5%", "144.1"]],
        caption="Table 1: Results (in thousands)",
        footnotes=["Figures are unaudited."],
        provs=[table_prov],
        caption_prov=prov(1, 50, 92, 550, 99),
    )
    _cell_box(doc, table.self_ref, 1, 1, (300, 130, 340, 140))
    doc.add_text(
        label=DocItemLabel.TEXT, text="Outlook remains cautious for the coming year.", prov=prov(2, 50, 60, 550, 90)
    )
    return doc


def _only(report, kind: str):
    claims = [c for c in report.claims if c.kind == kind]
    assert len(claims) == 1, report.claims
    return claims[0]


def test_number_cites_its_cell_with_the_cell_box() -> None:
    report = check_answer("$1,496.5", report_doc())
    claim = _only(report, "number")
    assert claim.supported and report.supported
    [ev] = claim.evidence
    assert (ev.ref, ev.kind, ev.row, ev.col, ev.page) == ("#/tables/0", "table_cell", 1, 1, 1)
    assert ev.bbox == (300, 130, 340, 140) and ev.box_source == "cell"
    assert (ev.row_label, ev.column_label) == ("Revenue", "2019")


def test_cell_without_box_gets_the_tables_box_in_top_left_coordinates() -> None:
    claim = _only(check_answer("1,202.9", report_doc()), "number")
    [ev] = claim.evidence
    assert (ev.row, ev.col) == (1, 2)
    assert ev.bbox == (50, 100, 550, 200) and ev.box_source == "table"


def test_accounting_negative_percent_and_token_boundaries() -> None:
    doc = report_doc()
    neg = _only(check_answer("-12", doc), "number")
    assert [(e.row, e.col) for e in neg.evidence] == [(2, 1)]
    unsigned = _only(check_answer("12", doc), "number")  # "costs of 12" for (12); 12.5% is another number
    assert [(e.row, e.col, e.match) for e in unsigned.evidence] == [(2, 1, "unsigned")]
    assert not _only(check_answer("-44.1", doc), "number").supported  # a negative claim needs a negative source
    pct = _only(check_answer("12.5 percent", doc), "number")
    assert [(e.row, e.col) for e in pct.evidence] == [(3, 1)]
    assert [(e.row, e.col) for e in _only(check_answer("44.1", doc), "number").evidence] == [(2, 2)]  # not 144.1


@pytest.mark.parametrize("minus", ["-", "\u2212", "\u2013", "\u2010", "\u2012", "\u2014", "\ufe63", "\uff0d"])
def test_every_minus_form_in_an_answer_is_a_sign(minus: str) -> None:
    # the sources are normalised (every dash is "-"); the answer was read raw, so "－12" became a positive 12
    doc = DoclingDocument(name="signs")
    doc.add_text(label=DocItemLabel.TEXT, text="Net income was 12 million.")
    answer = f"Net income was {minus}12 million."
    (span,) = [c for c in extract_claims(answer) if c.kind == "number"]
    assert span.number is not None and span.number.negative
    assert span.text == f"{minus}12 million"  # the claim quotes the answer as written
    assert not _only(check_answer(answer, doc), "number").supported, "a negative claim needs a negative source"


@pytest.mark.parametrize("answer", ["Headcount rose from 10 - 20.", "Headcount rose from 10 \u2013 20.", "From 10-20."])
def test_a_dash_set_apart_or_between_numbers_is_not_a_sign(answer: str) -> None:
    doc = DoclingDocument(name="range")
    doc.add_text(label=DocItemLabel.TEXT, text="Headcount rose from 10 to 20.")
    spans = [c for c in extract_claims(answer) if c.kind == "number"]
    assert [(c.text, c.number.negative) for c in spans] == [("10", False), ("20", False)]
    assert [(c.text, c.supported) for c in check_answer(answer, doc).claims if c.kind == "number"] == [
        ("10", True),
        ("20", True),
    ]
    (income,) = [c for c in extract_claims("Net income \u2013 12 million.") if c.kind == "number"]
    assert income.text == "12 million" and not income.number.negative


def test_scale_words_are_compared_after_scaling() -> None:
    doc = report_doc()
    scaled = _only(check_answer("Revenue was $1.5 million.", doc), "number")
    assert scaled.supported and scaled.evidence[0].match == "scaled" and scaled.evidence[0].col == 1
    # the same digits with a conflicting scale are a different amount
    assert not _only(check_answer("1,496.5 million", doc), "number").supported
    assert _only(check_answer("1,496.5 thousand", doc), "number").evidence[0].match == "exact"
    # 1.6 million is not 1,496.5 thousand at the precision written
    assert not _only(check_answer("$1.6 million", doc), "number").supported


def test_number_found_nowhere_is_unsupported() -> None:
    report = check_answer("Revenue was 1,496.6 in 2019.", report_doc())
    number = next(c for c in report.claims if c.text == "1,496.6")
    assert not number.supported and number.evidence == ()
    sentence = _only(report, "sentence")
    assert not sentence.supported  # its words match, its number does not
    assert not report.supported
    assert "found nowhere" in format_text(report)


def test_sentence_and_quote_cite_paragraphs_caption_and_footnote() -> None:
    doc = report_doc()
    report = check_answer('Revenue grew thanks to "new customers in Europe". Figures are unaudited.', doc)
    quote = _only(report, "quote")
    assert quote.supported and quote.evidence[0].ref == "#/texts/0" and quote.evidence[0].kind == "paragraph"
    sentences = [c for c in report.claims if c.kind == "sentence"]
    assert [c.supported for c in sentences] == [True, True]
    assert sentences[1].evidence[0].kind == "footnote"
    caption = check_answer("Results in thousands.", doc)
    assert _only(caption, "sentence").evidence[0].kind == "caption"
    page2 = _only(check_answer("Outlook remains cautious.", doc), "sentence")
    assert page2.supported and page2.evidence[0].page == 2


def test_sentence_threshold_is_the_documented_one() -> None:
    doc = report_doc()
    # 5 content words -> 3 trigrams: one found (1/3) is below MIN_NGRAM_COVERAGE, two found (2/3) reach it
    assert not _only(check_answer("Revenue grew strongly despite tariffs", doc), "sentence").supported
    assert _only(check_answer("Revenue grew strongly thanks to tariffs", doc), "sentence").supported


def test_claims_spans_and_kinds() -> None:
    answer = 'Sales were $1,496.5 million (up 12%) and "record" high.\nCosts fell to (12).'
    claims = extract_claims(answer)
    for c in claims:
        assert answer[c.start : c.end].strip() == c.text
    numbers = [c.text for c in claims if c.kind == "number"]
    assert numbers == ["$1,496.5 million", "12%", "(12)"]
    assert [c.text for c in claims if c.kind == "quote"] == ["record"]
    assert len([c for c in claims if c.kind == "sentence"]) == 2


@pytest.mark.parametrize("answer", ["", "   ", "\n"])
def test_empty_answer_has_no_claims_and_is_not_supported(answer: str) -> None:
    report = check_answer(answer, report_doc())
    assert report.claims == () and not report.supported
    assert "no claim found" in format_text(report)


def test_answer_without_numbers() -> None:
    report = check_answer("Europe drove it", report_doc())
    assert [c.kind for c in report.claims] == ["sentence"]


def test_document_without_layout_has_null_page_and_box() -> None:
    doc = DoclingDocument(name="plain")
    add_table(doc, [["", "2019"]], [["Revenue", "1,496.5"]], caption="Table 1: Results")
    doc.add_text(label=DocItemLabel.TEXT, text="Revenue grew strongly.")
    report = check_answer("Revenue grew strongly to 1,496.5.", doc)
    assert report.supported and not report.has_layout
    for claim in report.claims:
        for ev in claim.evidence:
            assert ev.page is None and ev.bbox is None and ev.box_source is None
            assert ev.to_dict()["bbox"] is None
    assert "no page layout" in format_text(report)


def test_bottom_left_box_without_page_size_is_not_invented() -> None:
    doc = DoclingDocument(name="nosize")  # provenance but no page entry: the page height is unknown
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Revenue was 7.",
        prov=ProvenanceItem(
            page_no=1, bbox=BoundingBox(l=1, t=700, r=100, b=690, coord_origin=CoordOrigin.BOTTOMLEFT), charspan=(0, 0)
        ),
    )
    [ev] = _only(check_answer("7", doc), "number").evidence
    assert ev.page == 1 and ev.bbox is None


def test_bad_input_types() -> None:
    doc = report_doc()
    with pytest.raises(TypeError, match="answer must be a str"):
        check_answer(None, doc)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="DoclingDocument"):
        check_answer("1", {"name": "x"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="chunks must be"):
        check_answer("1", doc, chunks="#/texts/0")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="DocChunks"):
        check_answer("1", doc, chunks=[object()])


def test_only_cited_chunks_support_and_elsewhere_says_where() -> None:
    doc = report_doc()
    para = CitedChunk(text=doc.texts[0].text, refs=frozenset({"#/texts/0"}))
    report = check_answer("Revenue grew strongly by 1,496.5", doc, chunks=[para])
    number = next(c for c in report.claims if c.kind == "number")
    assert not number.supported and number.evidence == ()
    assert [(e.ref, e.row, e.col) for e in number.elsewhere] == [("#/tables/0", 1, 1)]
    assert "not in the cited chunks" in format_text(report)
    assert not check_answer("1,496.5", doc, chunks=[]).supported
    assert "nor elsewhere in the document" in format_text(check_answer("9,999", doc, chunks=[para]))


def test_table_cell_counts_only_when_the_chunk_shows_its_row() -> None:
    doc = report_doc()
    # a piece holding body row 1 only (Cost): the Revenue cell is not cited even though the table is a member
    piece = CitedChunk(text="| Cost | (12) | 44.1 |", refs=frozenset({"#/tables/0"}), rows=(1, 2))
    assert not _only(check_answer("1,496.5", doc, [piece]), "number").supported
    cost = _only(check_answer("44.1", doc, [piece]), "number")
    assert cost.supported and cost.evidence[0].chunk == 0
    # without row metadata the chunk's text decides
    triplets = CitedChunk(text="Revenue, 2019 = 1,496.5", refs=frozenset({"#/tables/0"}))
    assert _only(check_answer("1,496.5", doc, [piece, triplets]), "number").evidence[0].chunk == 1


def test_evidence_chunker_pieces_of_a_split_table(shared_dir: Path) -> None:
    del shared_dir
    from docling_evidence import EvidenceChunker, bundled_tokenizer

    doc = paged_doc(1)
    body = [[f"Item {i}", f"{1000 + i * 7}.{i % 10}", f"{5000 + i}"] for i in range(60)]
    add_table(doc, [["Item", "2019", "2018"]], body, caption="Table 9: Long", provs=[prov(1, 40, 40, 560, 760)])
    chunks = [c for c in EvidenceChunker(tokenizer=bundled_tokenizer(128)).chunk(doc) if c.meta.kind == "table"]
    assert len(chunks) > 2
    for row in (0, 31, 59):
        value = body[row][1]
        claim = _only(check_answer(value, doc, chunks), "number")
        assert claim.supported
        [ev] = claim.evidence
        assert (ev.row, ev.col) == (row + 1, 1)
        lo, hi = chunks[ev.chunk].meta.rows
        assert lo <= row < hi


def test_reuse_document_sources_gives_the_same_report() -> None:
    doc = report_doc()
    sources = DocumentSources(doc)
    answer = "Revenue was $1,496.5 in 2019, costs (12)."
    assert check_answer(answer, sources) == check_answer(answer, doc)


def test_to_dict_shape() -> None:
    data = check_answer("1,496.5", report_doc()).to_dict()
    json.dumps(data)
    claim = data["claims"][0]
    assert {"text", "supported", "evidence"} <= claim.keys()
    ev = claim["evidence"][0]
    assert {"ref", "page", "bbox", "row", "col", "chunk", "kind"} <= ev.keys()
    assert ev["bbox"] == [300, 130, 340, 140]


def test_read_chunks_jsonl_shapes_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "chunks.jsonl"
    record = {
        "text": "x",
        "meta": {"doc_items": ["#/texts/0"]},
        "chunk": {"text": "Revenue", "meta": {"doc_items": [{"self_ref": "#/texts/0"}], "rows": [0, 2]}},
    }
    good.write_text(json.dumps(record) + "\n\n" + json.dumps(record["chunk"]) + "\n", encoding="utf-8")
    chunks = read_chunks_jsonl(good)
    assert chunks[0] == CitedChunk("Revenue", frozenset({"#/texts/0"}), (0, 2)) == chunks[1]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(record) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not JSON"):
        read_chunks_jsonl(bad)
    bad.write_text('{"text": 1}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: expected a chunk record"):
        read_chunks_jsonl(bad)
    with pytest.raises(ValueError, match="file not found"):
        read_chunks_jsonl(tmp_path / "missing.jsonl")


def test_real_fixture_cell_box_and_page(shared_dir: Path) -> None:
    doc = DoclingDocument.load_from_json(shared_dir / "fixtures" / "docling" / "2206.01062.json")
    table = doc.tables[0]
    cell = next(c for c in table.data.table_cells if c.text == "22524")
    claim = _only(check_answer("22524", doc), "number")
    [ev] = claim.evidence
    assert ev.page == table.prov[0].page_no and ev.box_source == "cell"
    assert ev.bbox == pytest.approx((cell.bbox.l, cell.bbox.t, cell.bbox.r, cell.bbox.b), abs=0.01)
    height = doc.pages[ev.page].size.height
    tbox = table.prov[0].bbox.to_top_left_origin(page_height=height)
    assert tbox.l <= ev.bbox[0] and ev.bbox[2] <= tbox.r and tbox.t <= ev.bbox[1] and ev.bbox[3] <= tbox.b


def test_cell_of_a_table_over_two_pages_gets_the_page_whose_box_holds_it() -> None:
    doc = paged_doc(2)
    table = add_table(
        doc,
        [["", "2019"]],
        [["Revenue", "1,496.5"], ["Cost", "812.3"]],
        provs=[prov(1, 50, 600, 550, 780), prov(2, 50, 40, 550, 120)],
    )
    _cell_box(doc, table.self_ref, 1, 1, (300, 700, 340, 710))  # inside the page-1 part
    _cell_box(doc, table.self_ref, 2, 1, (300, 60, 340, 70))  # inside the page-2 part
    first = _only(check_answer("1,496.5", doc), "number").evidence[0]
    second = _only(check_answer("812.3", doc), "number").evidence[0]
    assert (first.page, first.bbox, first.box_source) == (1, (300, 700, 340, 710), "cell")
    assert (second.page, second.bbox, second.box_source) == (2, (300, 60, 340, 70), "cell")


@pytest.mark.parametrize(
    ("header", "footnote"),
    [([["", "$'000"]], ()), ([["", "2019"]], ("All amounts in millions of dollars.",))],
)
def test_table_scale_from_header_cell_or_footnote(header: list[list[str]], footnote: tuple[str, ...]) -> None:
    doc = DoclingDocument(name="scales")
    add_table(doc, header, [["Revenue", "2,500"]], footnotes=footnote)
    scale_word = "million" if footnote else "thousand"
    other = "billion" if footnote else "million"
    claim = _only(check_answer(f"$2.5 {other}", doc), "number")
    assert claim.supported and claim.evidence[0].match == "scaled"
    assert _only(check_answer(f"2,500 {scale_word}", doc), "number").evidence[0].match == "exact"
    assert not _only(check_answer(f"2,500 {other}", doc), "number").supported


def test_label_numbers_are_not_values() -> None:
    doc = report_doc()  # caption "Table 1: Results (in thousands)"
    assert not _only(check_answer("1", doc), "number").supported
    doc.add_text(label=DocItemLabel.TEXT, text="See Note 7 and page 12; revenue was 7.")
    [ev] = _only(check_answer("7", doc), "number").evidence
    assert ev.text.endswith("revenue was 7.")
    assert {e.kind for e in _only(check_answer("12", doc), "number").evidence} == {"table_cell"}  # not "page 12"


def test_label_numbers_match_labels() -> None:
    doc = DoclingDocument(name="labels")
    doc.add_text(label=DocItemLabel.TEXT, text="Controls are audited under Section 404 of the Act.")
    assert _only(check_answer("Section 404", doc), "number").supported
    assert not _only(check_answer("404", doc), "number").supported  # a value 404 is not the label
    assert not _only(check_answer("Section 405", doc), "number").supported


def test_a_label_matches_only_the_same_label_word() -> None:
    doc = DoclingDocument(name="labels")
    doc.add_text(label=DocItemLabel.CAPTION, text="Figure 3: Architecture.")
    doc.add_text(label=DocItemLabel.TEXT, text="As Tab. 3 shows, costs fell.")
    [ev] = _only(check_answer("Table 3", doc), "number").evidence
    assert ev.text.startswith("As Tab. 3")
    [ev] = _only(check_answer("Fig. 3", doc), "number").evidence
    assert ev.kind == "caption"
