"""``EvidenceParams``: the chunker's tunable rules grouped by stage, validated, frozen, serialisable, documented in
docs/parameters.md, and read where the rules apply; the top-level unit switches keep working, deprecated."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import add_table
from pydantic import ValidationError

import docling_evidence
from docling_evidence import (
    ContextParams,
    DocumentParams,
    EvidenceChunker,
    EvidenceParams,
    PieceParams,
    SplitParams,
    TableParams,
    UnitParams,
    bundled_tokenizer,
)
from docling_evidence.params import parameters_markdown

DOC_PAGE = Path(__file__).resolve().parents[2] / "docs" / "parameters.md"


def _captioned_table() -> DoclingDocument:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results", level=1)
    add_table(doc, [["Region", "Sales"]], [["North", "10"], ["South", "12"]], caption="Table 1: Sales per region")
    doc.add_text(label=DocItemLabel.TEXT, text="* Excluding one-off items.")
    return doc


def _table_chunks(chunker: EvidenceChunker, doc: DoclingDocument) -> list:
    return [c for c in chunker.chunk(doc) if c.meta.kind == "table"]


# ---------------------------------------------------------------------------------------------------- the models
def test_every_stage_has_its_model_and_the_defaults_are_the_chunkers() -> None:
    params = EvidenceChunker().params
    assert params == EvidenceParams()
    assert isinstance(params.units, UnitParams) and isinstance(params.pieces, PieceParams)
    assert isinstance(params.context, ContextParams) and isinstance(params.split, SplitParams)
    assert isinstance(params.document, DocumentParams) and isinstance(params.tables, TableParams)
    assert (params.units.with_caption, params.units.with_context, params.units.with_footnotes) == (True, True, True)
    assert params.pieces.min_piece_budget == 16 and params.pieces.page_context_tokens == 1024


def test_the_stage_classes_are_exported_lazily_from_the_package() -> None:
    names = ("EvidenceParams", "UnitParams", "ContextParams", "SplitParams", "PieceParams", "TableParams")
    for name in (*names, "DocumentParams"):
        assert name in docling_evidence.__all__
        assert getattr(docling_evidence, name).__name__ == name


def test_models_are_frozen() -> None:
    params = EvidenceParams()
    with pytest.raises(ValidationError, match="frozen"):
        params.units = UnitParams(with_caption=False)  # type: ignore[misc]
    with pytest.raises(ValidationError, match="frozen"):
        params.units.with_caption = False  # type: ignore[misc]


def test_an_unknown_name_is_rejected_and_named() -> None:
    with pytest.raises(ValidationError, match="with_captions"):
        UnitParams(with_captions=False)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="unit"):
        EvidenceParams(unit=UnitParams())  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="min_piece_tokens"):
        EvidenceChunker(params={"pieces": {"min_piece_tokens": 8}})


@pytest.mark.parametrize(
    ("model", "field", "value"),
    [
        (PieceParams, "context_join_slack", 0),
        (PieceParams, "context_limit_divisor", 0),
        (PieceParams, "page_context_pieces", 0),
        (PieceParams, "resplit_step_divisor", 0),
        (PieceParams, "page_context_tokens", -1),
        (UnitParams, "footnote_max_items", -1),
        (UnitParams, "title_max_words", 0),
        (UnitParams, "subtitle_max_words", -1),
        (UnitParams, "title_reach", -1),
        (UnitParams, "pointing_reach", -1),
        (UnitParams, "pointing_reach", 10_001),
        (UnitParams, "caption_max_gap_pt", -1.0),
        (UnitParams, "caption_max_gap_pt", math.inf),
        (UnitParams, "caption_page_edge_items", -1),
        (UnitParams, "continuation_edge_fraction", 1.5),
        (UnitParams, "continuation_edge_fraction", math.nan),
        (UnitParams, "continuation_edge_tolerance_pt", -0.5),
        (UnitParams, "continuation_stray_cell_max_words", -1),
        (UnitParams, "continuation_stray_cell_max_chars", -1),
        (UnitParams, "continuation_stray_cell_tolerance_pt", math.inf),
        (TableParams, "max_inferred_header_rows", -1),
        (TableParams, "max_header_cell_words", 0),
        (TableParams, "max_named_rows", -1),
        (TableParams, "min_row_label_chars", 0),
        (TableParams, "max_row_label_words", 0),
        (TableParams, "min_row_value_chars", 0),
        (TableParams, "min_row_value_chars", 51),
        (DocumentParams, "link_line_max_words", -1),
        (DocumentParams, "label_line_max_words", 51),
        (DocumentParams, "navigation_link_share", 1.5),
        (DocumentParams, "navigation_link_share", math.nan),
        (UnitParams, "footnote_max_gap_pt", -1.0),
        (UnitParams, "footnote_max_gap_pt", math.nan),
        (UnitParams, "footnote_max_gap_pt", math.inf),
    ],
)
def test_an_out_of_range_value_is_rejected_with_the_fields_name(model: type, field: str, value: object) -> None:
    with pytest.raises(ValidationError, match=field):
        model(**{field: value})


def test_the_units_rule_objects_default_to_the_unit_params_defaults() -> None:
    """``units/`` may not import ``UnitParams``: its rule objects carry the same defaults, which the units stage
    replaces by ``params.units``'s values (``UnitRules.of``)."""
    from docling_evidence.assemble.units import UnitRules
    from docling_evidence.units.continuation import ContinuationRules

    assert UnitRules.of(UnitParams()) == UnitRules()
    assert UnitRules().continuation == ContinuationRules(caption_order=UnitRules().order, caption_page=UnitRules().page)


def test_every_unit_rule_reads_its_own_unit_param() -> None:
    """Each rule object's field follows the ``UnitParams`` field it is read from, and no other."""
    from docling_evidence.assemble.units import UnitRules

    rules = UnitRules.of(
        UnitParams(
            caption_max_steps=5, caption_run_max_items=6, caption_run_max_words=40, caption_max_gap_pt=50.0,
            caption_page_edge_items=2, continuation_edge_fraction=0.3, continuation_edge_tolerance_pt=4.0,
            continuation_stray_cell_max_words=5, continuation_stray_cell_max_chars=30,
            continuation_stray_cell_tolerance_pt=12.0, title_max_words=6, subtitle_max_words=14, title_reach=20,
            pointing_reach=9,
        )
    )  # fmt: skip
    assert (rules.order.max_steps, rules.order.run_max_items, rules.order.run_max_words) == (5, 6, 40)
    assert (rules.page.max_gap_pt, rules.page.edge_items) == (50.0, 2)
    c = rules.continuation
    assert (c.edge_fraction, c.edge_tolerance_pt) == (0.3, 4.0)
    assert (c.stray_cell_max_words, c.stray_cell_max_chars, c.stray_cell_tolerance_pt) == (5, 30, 12.0)
    assert (c.caption_order, c.caption_page) == (rules.order, rules.page)
    assert (rules.title.max_words, rules.title.subtitle_max_words, rules.title.reach) == (6, 14, 20)
    assert rules.pointing.reach == 9


def test_params_round_trip_through_model_dump_and_json() -> None:
    params = EvidenceParams(
        units=UnitParams(with_context=False, footnote_max_items=2), pieces=PieceParams(page_context_tokens=512)
    )
    chunker = EvidenceChunker(params=params)
    dumped = chunker.model_dump()
    assert EvidenceParams.model_validate(dumped["params"]) == params
    assert EvidenceParams.model_validate_json(params.model_dump_json()) == params
    again = EvidenceChunker.model_validate({**dumped, "tokenizer": chunker.tokenizer})
    assert again.params == params
    assert EvidenceChunker(params=dumped["params"]).params == params  # a plain dict validates too


# ----------------------------------------------------------------------------------------- the deprecated switches
def test_the_new_spelling_switches_the_caption_off_without_a_warning() -> None:
    doc = _captioned_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        chunker = EvidenceChunker(params=EvidenceParams(units=UnitParams(with_caption=False)))
        (unit,) = _table_chunks(chunker, doc)
    assert unit.meta.caption is None
    assert any("Table 1: Sales per region" in c.text for c in chunker.chunk(doc) if c.meta.kind == "text")


def test_an_old_switch_still_works_and_its_warning_names_the_new_spelling() -> None:
    doc = _captioned_table()
    with pytest.warns(
        DeprecationWarning, match=r"params=EvidenceParams\(units=UnitParams\(with_caption=False\)\)"
    ) as got:
        old = EvidenceChunker(with_caption=False)
    assert got[0].filename == __file__  # the warning points at the caller's line
    new = EvidenceChunker(params=EvidenceParams(units=UnitParams(with_caption=False)))
    assert old.params == new.params
    assert [c.model_dump() for c in old.chunk(doc)] == [c.model_dump() for c in new.chunk(doc)]
    with pytest.warns(DeprecationWarning, match=r"params\.units\.with_caption"):
        assert old.with_caption is False


def test_an_old_switch_joins_the_params_given_beside_it() -> None:
    given = EvidenceParams(units=UnitParams(with_footnotes=False), pieces=PieceParams(min_piece_budget=32))
    with pytest.warns(DeprecationWarning):
        chunker = EvidenceChunker(with_context=False, params=given)
    assert chunker.params.units == UnitParams(with_context=False, with_footnotes=False)
    assert chunker.params.pieces.min_piece_budget == 32
    with pytest.warns(DeprecationWarning):
        same = EvidenceChunker(with_caption=False, params=EvidenceParams(units=UnitParams(with_caption=False)))
    assert same.params.units.with_caption is False


def test_an_old_switch_that_disagrees_with_params_is_an_error() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match=r"with_caption=True and params\.units"):
        EvidenceChunker(with_caption=True, params=EvidenceParams(units=UnitParams(with_caption=False)))


# ------------------------------------------------------------------------------------- the rules read the params
def test_footnote_max_items_bounds_the_unlinked_footnotes_a_unit_takes() -> None:
    doc = _captioned_table()
    (unit,) = _table_chunks(EvidenceChunker(), doc)
    assert "footnote" in unit.meta.roles.values()
    none = EvidenceChunker(params=EvidenceParams(units=UnitParams(footnote_max_items=0)))
    chunks = list(none.chunk(doc))
    (unit,) = [c for c in chunks if c.meta.kind == "table"]
    assert "footnote" not in unit.meta.roles.values()
    assert any("Excluding one-off items" in c.text for c in chunks)  # not lost: context or a text chunk


def test_min_piece_budget_decides_when_a_unit_goes_without_its_headings(caplog: pytest.LogCaptureFixture) -> None:
    doc = _captioned_table()
    (unit,) = _table_chunks(EvidenceChunker(), doc)
    assert unit.meta.headings == ["Results"]
    strict = EvidenceChunker(params=EvidenceParams(pieces=PieceParams(min_piece_budget=10_000)))
    (unit,) = _table_chunks(strict, doc)
    assert unit.meta.headings is None
    assert "too little room for the table" in caplog.text


def test_context_budgets_follow_the_piece_params() -> None:
    chunker = EvidenceChunker(tokenizer=bundled_tokenizer(256))
    assert (chunker._flow_context_budget, chunker._page_context_budget) == (128, 1024)
    tuned = EvidenceChunker(
        tokenizer=bundled_tokenizer(256),
        params=EvidenceParams(pieces=PieceParams(context_limit_divisor=4, page_context_tokens=300)),
    )
    assert (tuned._flow_context_budget, tuned._page_context_budget) == (64, 300)
    small = EvidenceChunker(tokenizer=bundled_tokenizer(64), params=EvidenceParams(pieces=PieceParams()))
    assert small._page_context_budget == 4 * 64  # page_context_pieces pieces' worth at most


def test_the_splitter_gets_params_split(monkeypatch: pytest.MonkeyPatch) -> None:
    import docling_evidence.chunker as chunker_module

    seen: list[SplitParams] = []
    real = chunker_module.Splitter

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(kwargs["params"])  # type: ignore[arg-type]
        return real(*args, **kwargs)

    monkeypatch.setattr(chunker_module, "Splitter", recording)
    split = SplitParams(widest_rows_per_piece=3)
    _table_chunks(EvidenceChunker(params=EvidenceParams(split=split)), _captioned_table())
    assert seen == [split]


def test_the_context_choice_gets_params_context(monkeypatch: pytest.MonkeyPatch) -> None:
    import docling_evidence.assemble.units as units_module

    seen: list[ContextParams] = []
    real = units_module.choose_context

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(kwargs["params"])  # type: ignore[arg-type]
        return real(*args, **kwargs)

    monkeypatch.setattr(units_module, "choose_context", recording)
    context = ContextParams(min_shared_words=3)
    _table_chunks(EvidenceChunker(params=EvidenceParams(context=context)), _captioned_table())
    assert seen == [context]


def _unmarked_header_table() -> DoclingDocument:
    """A table written with ``<td>`` only: Docling marks no column header, the first row reads as one."""
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Strains", level=1)
    add_table(doc, [], [["Strain", "MLT (min)"], ["IN61", "45.7"], ["IN62", "39.1"], ["IN63", "41.0"]])
    return doc


def test_params_tables_decides_the_inferred_header_of_the_units_table() -> None:
    tok = bundled_tokenizer(max_tokens=32)  # small enough that the table is split and its header repeated
    doc = _unmarked_header_table()
    inferred = _table_chunks(EvidenceChunker(tokenizer=tok), doc)
    plain = _table_chunks(
        EvidenceChunker(tokenizer=tok, params=EvidenceParams(tables=TableParams(max_inferred_header_rows=0))), doc
    )
    assert len(inferred) > 1 and all("| Strain | MLT (min) |" in c.text for c in inferred)
    assert all(c.text.count("IN6") == 1 for c in inferred[1:])  # one row beside the repeated header
    shown = [line for c in plain for line in c.text.splitlines() if "Strain" in line]
    assert len(shown) == 1  # no header: the first row is a body row, shown once
    assert all("|---|" not in line for c in plain for line in c.text.splitlines()[:1])


def test_a_cell_longer_than_max_header_cell_words_keeps_its_row_in_the_body() -> None:
    doc = _unmarked_header_table()
    strict = EvidenceChunker(params=EvidenceParams(tables=TableParams(max_header_cell_words=1)))
    text = "\n".join(c.text for c in _table_chunks(strict, doc))
    default = "\n".join(c.text for c in _table_chunks(EvidenceChunker(), doc))
    assert "| Strain | MLT (min) |\n|---|---|" in default
    assert "| Strain | MLT (min) |\n|---|---|" not in text and "| Strain | MLT (min) |" in text  # "MLT (min)": 2 words


def test_params_tables_reach_a_foreign_table_serializers_layout() -> None:
    from docling_core.transforms.chunker.hierarchical_chunker import ChunkingDocSerializer, ChunkingSerializerProvider
    from docling_core.transforms.serializer.markdown import MarkdownTableSerializer

    class Provider(ChunkingSerializerProvider):
        def get_serializer(self, doc: DoclingDocument) -> ChunkingDocSerializer:
            return ChunkingDocSerializer(doc=doc, table_serializer=MarkdownTableSerializer())

    doc = _unmarked_header_table()
    for tables in (TableParams(), TableParams(max_inferred_header_rows=0)):
        chunker = EvidenceChunker(serializer_provider=Provider(), params=EvidenceParams(tables=tables))
        text = "\n".join(c.text for c in _table_chunks(chunker, doc))
        assert all(value in text for value in ("IN61", "45.7", "IN63", "41.0"))


def _regions_table() -> DoclingDocument:
    """A table of twelve regions, split at a small limit, and a paragraph naming its last row."""
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Sales", level=1)
    regions = ["Asia", "Europe", "Africa", "Oceania", "Nordics", "Iberia", "Balkans", "Caucasus", "Levant", "Maghreb"]
    regions += ["Andes", "Patagonia"]
    body = [[r, str(100 + i)] for i, r in enumerate(regions)]
    add_table(doc, [["Region", "Sales"]], body, caption="Table 1: Sales per region")
    doc.add_text(label=DocItemLabel.TEXT, text="Sales of the Patagonia region doubled over the year.")
    return doc


def test_max_named_rows_decides_which_piece_holds_a_text_naming_a_row() -> None:
    def context_rows(tables: TableParams) -> list[tuple[int, int] | None]:
        chunker = EvidenceChunker(tokenizer=bundled_tokenizer(48), params=EvidenceParams(tables=tables))
        pieces = _table_chunks(chunker, _regions_table())
        assert len(pieces) > 2
        return [c.meta.rows for c in pieces if "context" in c.meta.roles.values()]

    (beside_its_row,) = context_rows(TableParams())
    assert beside_its_row is not None and beside_its_row[1] == 12  # with the last row, "Patagonia"
    (general,) = context_rows(TableParams(max_named_rows=0))
    assert general is not None and general[0] == 0  # in the first piece, as context about the whole table


# ------------------------------------------------------------------------------------------------------ the doc page
def test_docs_parameters_page_is_written_from_the_models() -> None:
    assert DOC_PAGE.read_text(encoding="utf-8") == parameters_markdown(), (
        "docs/parameters.md and the params models disagree: run "
        "`python -m docling_evidence.params > docs/parameters.md`"
    )


def test_every_field_has_a_description() -> None:
    for model in (UnitParams, PieceParams, ContextParams, SplitParams, TableParams, DocumentParams):
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no description"
