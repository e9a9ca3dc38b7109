"""The rules of context choice as ContextParams: invalid values are refused with what to fix, a changed value
changes the choice as its description says, and each chosen sentence carries its pass as an explicit tier."""

from __future__ import annotations

import pytest
from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import table_data
from pydantic import ValidationError

from docling_evidence.assemble.units import ContextBudget as UnitContextBudget
from docling_evidence.assemble.units import UnitRequest, build_units
from docling_evidence.context.choose import ContextChoice, build_context_index, choose_context, table_terms
from docling_evidence.context.params import ContextParams
from docling_evidence.context.relevance import Placement, Tier, relevant_sentences
from docling_evidence.context.terms import distinctive_value
from docling_evidence.document.index import build_index
from docling_evidence.tables.rows import TableRows

_ROWS = TableRows(header=(("Region", "Revenue"),), body=(("North", "452,680"), ("South", "1,383,392")), label_cols=1)


def _choose(doc: DoclingDocument, params: ContextParams) -> tuple[list[str], ContextChoice]:
    """The texts of the paragraphs, and the context chosen for the document's only table."""
    index = build_index(doc)
    t_idx = index.order[doc.tables[0].self_ref]
    ctx = build_context_index(index, {t_idx: None}, table_rows={t_idx: _ROWS}, params=params)
    choice = choose_context(
        ctx,
        t_idx,
        terms=table_terms(_ROWS, "", None),
        excluded=set(),
        bbox_threshold=300.0,
        budget=1000,
        count_text=len,
        params=params,
    )
    return [index.paragraph_text(i) for i in (*choice.before, *choice.after)], choice


def _section_doc() -> DoclingDocument:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    doc.add_text(label=DocItemLabel.TEXT, text="Sales grew in every region last year.")
    doc.add_text(label=DocItemLabel.TEXT, text="Offices opened in two new cities.")
    doc.add_text(label=DocItemLabel.TEXT, text="Amounts are in dollars.")
    doc.add_table(data=table_data([["Region", "Revenue"]], [["North", "452,680"], ["South", "1,383,392"]]))
    return doc


def _far_quote_doc() -> DoclingDocument:
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Results")
    doc.add_table(data=table_data([["Region", "Revenue"]], [["North", "452,680"], ["South", "1,383,392"]]))
    doc.add_heading(text="Outlook")
    doc.add_text(label=DocItemLabel.TEXT, text="Staff numbers stayed flat.")
    doc.add_text(label=DocItemLabel.TEXT, text="North region revenue of 452,680 beat every forecast.")
    return doc


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("relevance_threshold", 0, "greater than 0"),
        ("layout_neighbours", 0, "greater than or equal to 1"),
        ("by_place_threshold_factor", 0.5, "greater than or equal to 1"),
        ("min_quoted_values", "two", "valid integer"),
    ],
)
def test_an_invalid_value_is_refused_naming_the_field_and_the_bound(field: str, value: object, expected: str) -> None:
    with pytest.raises(ValidationError) as caught:
        ContextParams(**{field: value})
    message = str(caught.value)
    assert field in message
    assert expected in message


def test_an_unknown_name_is_refused_and_the_rules_are_frozen() -> None:
    with pytest.raises(ValidationError, match="relevance_treshold"):
        ContextParams(relevance_treshold=3.0)
    with pytest.raises(ValidationError, match="frozen"):
        ContextParams().relevance_threshold = 3.0  # type: ignore[misc]


def test_the_index_and_the_choice_must_use_the_same_rules() -> None:
    doc = _section_doc()
    index = build_index(doc)
    t_idx = index.order[doc.tables[0].self_ref]
    ctx = build_context_index(index, {t_idx: None})
    with pytest.raises(ValueError, match="pass the same to both"):
        choose_context(
            ctx,
            t_idx,
            terms=table_terms(_ROWS, "", None),
            excluded=set(),
            bbox_threshold=300.0,
            budget=1000,
            count_text=len,
            params=ContextParams(reading_order_neighbours=1),
        )


def test_reading_order_neighbours_bounds_the_paragraphs_taken_beside_a_table_without_layout() -> None:
    doc = _section_doc()
    everything, _ = _choose(doc, ContextParams())
    assert everything == [
        "Sales grew in every region last year.",
        "Offices opened in two new cities.",
        "Amounts are in dollars.",
    ]
    nearest, _ = _choose(doc, ContextParams(reading_order_neighbours=1))
    assert nearest == ["Amounts are in dollars."]


def test_min_quoted_values_decides_whether_a_far_paragraph_quoting_one_value_is_context() -> None:
    doc = _far_quote_doc()
    default, _ = _choose(doc, ContextParams())
    assert default == []  # one quoted value is not enough by default (two are needed)
    one, choice = _choose(doc, ContextParams(min_quoted_values=1, by_place_threshold_factor=1.0))
    assert one == ["North region revenue of 452,680 beat every forecast."]
    assert choice.after and not choice.before


def test_distinctive_digits_are_read_from_the_params() -> None:
    assert distinctive_value("4526")
    assert not distinctive_value("4526", ContextParams(distinctive_min_digits=5))
    assert distinctive_value("98.5")
    assert not distinctive_value("98.5", ContextParams(distinctive_decimal_min_digits=4))
    assert not distinctive_value("2019")  # a year is never distinctive


def test_a_sentence_naming_the_table_and_the_one_after_it_carry_their_tier() -> None:
    doc = DoclingDocument(name="d")
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 shows revenue. The rest went on costs. Staff stayed flat.")
    doc.add_table(data=table_data([["Region", "Revenue"]], [["North", "452,680"]]))
    index = build_index(doc)
    ctx = build_context_index(index, {index.order[doc.tables[0].self_ref]: "1"})
    para = ctx.paragraph(ctx.paragraphs[0])
    terms = table_terms(_ROWS, "", "1")  # the label as table_label reads it from "Table 1: ..."
    assert terms.label is not None
    sentences = relevant_sentences(ctx, para, terms, frozenset({terms.label}), Placement(), ContextParams())
    assert [(s.k, s.tier) for s in sentences] == [(0, Tier.NAMING), (1, Tier.AFTER_NAMING)]
    assert sentences[0].weight == 2.0  # the mention opens the sentence: the table is its subject


def test_the_units_read_the_context_rules_of_their_request() -> None:
    doc = _section_doc()
    default_request = UnitRequest(count_text=len, budget=UnitContextBudget(flow=1000))
    (unit,) = build_units(doc, build_index(doc), default_request)
    assert [it.text for it in unit.context_before] == [
        "Sales grew in every region last year.",
        "Offices opened in two new cities.",
        "Amounts are in dollars.",
    ]
    nearest = UnitRequest(
        count_text=len, budget=UnitContextBudget(flow=1000), context=ContextParams(reading_order_neighbours=1)
    )
    (unit,) = build_units(doc, build_index(doc), nearest)
    assert [it.text for it in unit.context_before] == ["Amounts are in dollars."]


def test_a_higher_relevance_threshold_drops_a_sentence_that_shares_too_little() -> None:
    doc = _far_quote_doc()
    quoting = {"min_quoted_values": 1, "by_place_threshold_factor": 1.0}
    taken, _ = _choose(doc, ContextParams(**quoting))
    assert taken == ["North region revenue of 452,680 beat every forecast."]
    strict, _ = _choose(doc, ContextParams(**quoting, relevance_threshold=50.0))
    assert strict == []
