"""Invariants of the citation check, over generated tables and answers (hypothesis)."""

from __future__ import annotations

from decimal import Decimal

from docling_core.types.doc import DoclingDocument
from docs_builder import add_table, paged_doc, prov
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from docling_evidence.cite import CitedChunk, check_answer, extract_claims

SETTINGS = settings(max_examples=60, deadline=None)


def fmt(value: Decimal, decimals: int, commas: bool, style: str) -> str:
    """``value`` written the way reports write it: thousands separators, accounting negatives, a currency sign."""
    text = f"{abs(value):,.{decimals}f}" if commas else f"{abs(value):.{decimals}f}"
    if value < 0:
        text = f"({text})" if style == "paren" else f"-{text}"
    return text


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[list[Decimal]], int]:
    decimals = draw(st.integers(0, 2))
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    unit = Decimal(1).scaleb(-decimals)
    values = [[draw(st.integers(-(10**7), 10**7)) * unit for _ in range(cols)] for _ in range(rows)]
    return values, decimals


def build(values: list[list[Decimal]], decimals: int, commas: bool, style: str, layout: bool) -> DoclingDocument:
    doc = paged_doc(1) if layout else DoclingDocument(name="plain")
    header = [["Item", *(f"Col {chr(65 + j)}" for j in range(len(values[0])))]]
    body = [[f"Row {chr(65 + i)}", *(fmt(v, decimals, commas, style) for v in row)] for i, row in enumerate(values)]
    add_table(doc, header, body, caption="Table 1: Data", provs=[prov(1, 40, 40, 560, 400)] if layout else ())
    return doc


@SETTINGS
@given(
    tables(),
    st.data(),
    st.booleans(),
    st.sampled_from(["paren", "minus"]),
    st.booleans(),
    st.sampled_from(["", "$", "USD "]),
)
def test_a_number_copied_from_a_cell_verifies_to_that_cell(
    table: tuple[list[list[Decimal]], int], data: st.DataObject, commas: bool, style: str, layout: bool, prefix: str
) -> None:
    values, decimals = table
    doc = build(values, decimals, commas, style, layout)
    i = data.draw(st.integers(0, len(values) - 1))
    j = data.draw(st.integers(0, len(values[0]) - 1))
    # the answer may write the number differently from the cell (separators, sign style)
    written = fmt(values[i][j], decimals, data.draw(st.booleans()), data.draw(st.sampled_from(["paren", "minus"])))
    written = "-" + prefix + written[1:] if written.startswith("-") else prefix + written
    report = check_answer(f"The value is {written}.", doc)
    numbers = [c for c in report.claims if c.kind == "number"]
    assert len(numbers) == 1 and numbers[0].supported
    cells = {(e.row, e.col) for e in numbers[0].evidence}
    assert (i + 1, j + 1) in cells
    ev = next(e for e in numbers[0].evidence if (e.row, e.col) == (i + 1, j + 1))
    assert (ev.page is None and ev.bbox is None) if not layout else (ev.page == 1 and ev.bbox == (40, 40, 560, 400))
    # the same holds when the answer cites the chunk that shows that row
    chunk = CitedChunk(
        text=" | ".join(doc.tables[0].data.grid[i + 1][k].text for k in range(len(values[0]) + 1)),
        refs=frozenset({"#/tables/0"}),
    )
    cited = next(c for c in check_answer(written, doc, [chunk]).claims if c.kind == "number")
    assert (i + 1, j + 1) in {(e.row, e.col) for e in cited.evidence}


@SETTINGS
@given(tables(), st.data(), st.booleans(), st.integers(-9, 9).filter(bool))
def test_a_perturbed_number_never_verifies_to_the_original_cell(
    table: tuple[list[list[Decimal]], int], data: st.DataObject, commas: bool, steps: int
) -> None:
    values, decimals = table
    doc = build(values, decimals, commas, "paren", layout=True)
    i = data.draw(st.integers(0, len(values) - 1))
    j = data.draw(st.integers(0, len(values[0]) - 1))
    changed = values[i][j] + steps * Decimal(1).scaleb(-decimals)
    # (-1) + 2 = 1: an unsigned number is, by design, supported by its negative ('a loss of 1' for '(1)'), so a
    # perturbation that only drops the minus sign is not a changed number for this check
    assume(changed != -values[i][j])
    report = check_answer(fmt(changed, decimals, commas, "minus"), doc)
    [number] = [c for c in report.claims if c.kind == "number"]
    assert (i + 1, j + 1) not in {(e.row, e.col) for e in number.evidence}
    # and it verifies only where the table really holds the changed value
    holders = {
        (r + 1, c + 1)
        for r, row in enumerate(values)
        for c, v in enumerate(row)
        if v == changed or (changed > 0 and v == -changed)  # an unsigned number also matches its negative
    }
    assert {(e.row, e.col) for e in number.evidence if e.kind == "table_cell"} == holders


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Cd.,;:$%()-\"'\n0123456789")), max_size=80))
def test_claim_spans_point_into_the_answer(answer: str) -> None:
    claims = extract_claims(answer)
    for c in claims:
        assert 0 <= c.start < c.end <= len(answer)
        assert answer[c.start : c.end].strip() == c.text
        assert c.kind != "number" or c.number is not None
    assert claims == extract_claims(answer)  # deterministic


@SETTINGS
@given(st.integers(1, 10**9), st.integers(0, 2))
def test_a_scaled_claim_verifies_to_the_cell_at_the_precision_written(thousands: int, decimals: int) -> None:
    doc = DoclingDocument(name="scaled")
    add_table(doc, [["", "Amount"]], [["Revenue", f"{thousands:,}"]], caption="Table 1 (in thousands)")
    millions = Decimal(thousands) / 1000
    written = f"${millions:,.{decimals}f} million"
    [number] = [c for c in check_answer(written, doc).claims if c.kind == "number"]
    rounded = Decimal(f"{millions:.{decimals}f}")
    if rounded == 0:
        return  # "0 million" claims nothing that a cell could support
    assert number.supported and (1, 1) in {(e.row, e.col) for e in number.evidence}
    # two units more at the written precision is another amount (one more can still be a rounding of an exact half)
    bigger = f"${rounded + 2 * Decimal(1).scaleb(-decimals):,.{decimals}f} million"
    [wrong] = [c for c in check_answer(bigger, doc).claims if c.kind == "number"]
    assert not wrong.supported
