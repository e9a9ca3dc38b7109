"""Context found by content on documents read in order (HTML, Markdown, DOCX): paragraphs that name the table get the
paginated budget, a figure's caption is never a table's context, and a paragraph anywhere that quotes two of a
table's distinctive values is about it."""

from __future__ import annotations

from docling_core.types.doc import DocItemLabel, DoclingDocument
from docs_builder import table_data
from hypothesis import given, settings
from hypothesis import strategies as st

from docling_evidence import EvidenceChunker, bundled_tokenizer
from docling_evidence.context.terms import distinctive_value
from docling_evidence.units.captions import looks_like_figure_caption, table_mentions


def _units(doc: DoclingDocument, limit: int = 256) -> dict[str, set[str]]:
    """Table ref -> texts of the context items its unit's pieces show."""
    out: dict[str, set[str]] = {}
    for chunk in EvidenceChunker(tokenizer=bundled_tokenizer(limit)).chunk(doc):
        if chunk.meta.kind != "table":
            continue
        table = next(ref for ref, role in chunk.meta.roles.items() if role == "table")
        shown = out.setdefault(table, set())
        shown.update(it.text for it in chunk.meta.doc_items if chunk.meta.roles[it.self_ref] == "context")
    return out


def _emissions_doc() -> DoclingDocument:
    doc = DoclingDocument(name="paper")
    doc.add_heading(text="Methods")
    doc.add_text(
        label=DocItemLabel.TEXT, text="Emission factors were taken from the literature and are presented in Table 3."
    )
    doc.add_text(label=DocItemLabel.TEXT, text="Table 3 Emission factors of feed production.")
    doc.add_table(
        data=table_data(
            [["Feed", "Yield (kg/ha)", "Factor"]],
            [["Corn grain", "7,500", "0.316"], ["Soybean", "3,140", "0.487"], ["Pasture", "11,250", "0.125"]],
        )
    )
    doc.add_heading(text="Results")
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Fig 2 Overall emissions under each scenario. (a) Feed production factors from Table 3 were used.",
    )
    doc.add_heading(text="Discussion")
    doc.add_text(
        label=DocItemLabel.TEXT,
        text="Feed grown on the farm emitted less: soybean at 0.487 and corn grain at 0.316 kg per kg of grain.",
    )
    doc.add_text(label=DocItemLabel.TEXT, text="The herd of 7,500 animals grazed from April to October.")
    doc.add_text(label=DocItemLabel.TEXT, text="Regardless of the factors used (Tables 2 or 3), the totals held.")
    return doc


def test_a_figure_caption_naming_the_table_is_not_its_context() -> None:
    shown = _units(_emissions_doc())["#/tables/0"]
    assert "Emission factors were taken from the literature and are presented in Table 3." in shown
    assert not any(t.startswith("Fig 2") for t in shown)
    assert looks_like_figure_caption("Fig 2 Overall greenhouse gas emissions in dairy systems.")
    assert looks_like_figure_caption("Figure 3: Results by class")
    assert not looks_like_figure_caption("Figure 3 shows that the model converges.")
    assert not looks_like_figure_caption("Fight club rules.")


def test_a_paragraph_quoting_two_distinctive_values_of_the_table_is_its_context() -> None:
    shown = _units(_emissions_doc())["#/tables/0"]
    assert any(t.startswith("Feed grown on the farm emitted less") for t in shown)  # 0.487 and 0.316, far away
    assert "The herd of 7,500 animals grazed from April to October." not in shown  # one value only


def test_tables_named_with_or_are_each_named() -> None:
    assert [lab for lab, _a, _b in table_mentions("(Tables 3 or 4)")] == ["3", "4"]
    shown = _units(_emissions_doc())["#/tables/0"]
    assert "Regardless of the factors used (Tables 2 or 3), the totals held." in shown


def test_values_two_tables_print_or_many_paragraphs_repeat_tie_a_paragraph_to_neither() -> None:
    doc = DoclingDocument(name="report")
    doc.add_heading(text="Note 1")
    doc.add_table(data=table_data([["Item", "2025"]], [["Cash", "452,680"], ["Trust", "241,230,572"]]))
    doc.add_heading(text="Note 2")
    doc.add_table(data=table_data([["Item", "2025"]], [["Cash", "452,680"], ["Fees", "13,210,471"]]))
    doc.add_heading(text="Liquidity")
    doc.add_text(label=DocItemLabel.TEXT, text="We held $452,680 in cash and $241,230,572 in the Trust Account.")
    doc.add_heading(text="Costs")
    doc.add_text(label=DocItemLabel.TEXT, text="Cash of $452,680 paid fees of $13,210,471 at the offering.")
    doc.add_text(label=DocItemLabel.TEXT, text="Again, cash of $452,680 paid fees of $13,210,471.")
    doc.add_text(label=DocItemLabel.TEXT, text="Once more, fees of $13,210,471 and cash of $452,680.")
    units = _units(doc)
    # 452,680 is printed by both tables: only 241,230,572 ties the first paragraph to table 0, one value is too few
    assert not any("Trust Account" in t for t in units["#/tables/0"])
    # 13,210,471 is table 1's alone, but three paragraphs print it: it is no table's distinctive value
    assert not any("fees of" in t for t in units["#/tables/1"])


def test_distinctive_values_are_long_or_decimal_and_not_years() -> None:
    assert distinctive_value("452680") and distinctive_value("98.5") and distinctive_value("0.316")
    assert not distinctive_value("2019") and not distinctive_value("171") and not distinctive_value("4.0")
    assert not distinctive_value("10")


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(min_value=10_000, max_value=9_999_999), min_size=4, max_size=4, unique=True),
    quoted=st.integers(min_value=0, max_value=2),
)
def test_a_far_paragraph_is_context_by_its_numbers_only_when_it_quotes_two_values(
    values: list[int], quoted: int
) -> None:
    """Property: a paragraph in another section joins the table's unit by quoting its values exactly when it quotes
    at least two of them (values of four or more digits, printed by this table only, in one paragraph only)."""
    doc = DoclingDocument(name="d")
    doc.add_heading(text="Statements")
    doc.add_table(data=table_data([["Item", "2025"]], [[f"Line {k}", f"{v:,}"] for k, v in enumerate(values)]))
    doc.add_heading(text="Discussion")
    said = " and ".join(f"${v:,}" for v in values[:quoted]) or "nothing"
    text = f"In the year the Company reported {said} for these lines."
    doc.add_text(label=DocItemLabel.TEXT, text=text)
    shown = _units(doc).get("#/tables/0", set())
    assert (text in shown) == (quoted >= 2)


def test_sentences_naming_the_table_are_not_bounded_by_half_the_limit_without_layout() -> None:
    """Without layout the context budget is half the limit, but what names the table does not shrink with the
    embedder's window: at limit 128 (64 tokens of context) five discussions naming Table 1 across the paper, about
    130 tokens together, are all in the unit, as on a paginated document."""
    doc = DoclingDocument(name="paper")
    doc.add_heading(text="Data")
    doc.add_text(label=DocItemLabel.TEXT, text="Table 1 Herd characteristics.")
    doc.add_table(data=table_data([["Item", "Average"]], [["Milking cows", "165"], ["Milk fat", "4.0"]]))
    sections = ["Methods", "Results", "Sensitivity", "Discussion", "Conclusion"]
    texts = [
        f"In the {s.lower()}, the herd of Table 1 was followed for the whole lactation of every cow." for s in sections
    ]
    for section, text in zip(sections, texts, strict=True):
        doc.add_heading(text=section)
        doc.add_text(label=DocItemLabel.TEXT, text=text)
    tok = bundled_tokenizer(128)
    assert sum(tok.count_tokens(t) for t in texts) > 128 // 2
    assert set(texts) <= _units(doc, limit=128)["#/tables/0"]
