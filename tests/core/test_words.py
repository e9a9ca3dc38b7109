"""The one reader of words and numbers: its options, and properties that hold for any text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from row_naming import rows_named_by_definition

from docling_evidence.split.pieces import UnitParts
from docling_evidence.tables.affinity import named_rows
from docling_evidence.tables.formats import TABLE_FORMATS
from docling_evidence.tables.params import TableParams
from docling_evidence.tables.rows import TableRows
from docling_evidence.text.words import STOP_WORDS, WORD, content_words, numbers, significant_digits, words

_TEXT = st.text(alphabet=st.sampled_from("ab Z9071,._-()%$ü한국\n"), max_size=40)
_ASCII_TEXT = st.text(alphabet=st.sampled_from("abcXYZ th9071,.-"), max_size=40)


def test_a_number_inside_a_word_counts_only_with_inside_words() -> None:
    text = "FY2019 revenue 1,496.5"
    assert numbers(text) == {"2019", "1496.5"}
    assert numbers(text, inside_words=False) == {"1496.5"}


def test_thousands_separators_are_dropped_and_single_digits_are_not_numbers() -> None:
    assert numbers("Revenue rose from 1,234 to 12,345.6 in 3 steps") == {"1234", "12345.6"}
    assert numbers("0.5 and 05 and 10") == {"10"}
    assert numbers("0.5 and 05 and 10", min_significant_digits=1) == {"0.5", "05", "10"}


def test_min_chars_counts_the_number_as_written() -> None:
    assert numbers("15 and 1,2 and 0.5", min_significant_digits=0, min_chars=3) == {"12", "0.5"}
    assert numbers("15 and 1,2 and 0.5") == {"15", "12"}


def test_a_number_standing_alone_is_not_glued_to_a_word_or_a_preceding_point() -> None:
    assert numbers("v2.125 and 3.75x and (42.5)", inside_words=False) == {"42.5"}


def test_words_keep_hyphenated_compounds_unless_numerals_are_words() -> None:
    assert words("Non-current assets in FY2019: 2019") == ["Non-current", "assets", "in", "FY2019"]
    assert words("Non-current assets in FY2019: 2019", numerals=True) == [
        "Non",
        "current",
        "assets",
        "in",
        "FY2019",
        "2019",
    ]


def test_content_words_drop_stop_words_and_short_words_and_pair_cjk_characters() -> None:
    assert content_words("The total revenue of EU members rose") == {"revenue", "members", "rose"}
    assert content_words("매출액 rose") == {"~매출", "~출액", "rose"}


def test_row_values_name_rows_only_when_standing_alone() -> None:
    rows = TableRows(header=(("Item", "Value"),), body=(("Sales", "2019"), ("Costs", "1,496.5")), label_cols=1)
    assert named_rows(["In FY2019 we sold more", "We paid 1,496.5"], rows) == ((), (1,))


_CELL = st.sampled_from(
    ["North", "South", "north", "North America", "Asia", "EU", "ab", "b-c", "FY2019", "Total", "Q1 2019", ""]
)
_VALUE = st.sampled_from(["1,234", "1234", "12", "12.5", "2019", "0.5", "7", "n/a", "-", "305", "44.1"])
_FILLER = st.sampled_from(["In", "the", "rose", "to", "Americas", "(12.5)", "v2.125", "Southern"])


_REGIONS = ["Asia", "Europe", "Africa", "Oceania", "Middle East", "Latin America", "Nordics"]


@st.composite
def _tables_and_texts(draw: st.DrawFn) -> tuple[TableRows, list[str]]:
    """A small table and texts made of its own cells, other cells and filler words, joined by spaces, commas, hyphens
    or nothing (so whole-word matching is exercised). Half the tables have labels and values that often repeat; the
    other half one distinct label per row, so that a text names several rows."""
    value_cols = draw(st.integers(1, 2))
    values = st.tuples(*[_VALUE] * value_cols)
    if draw(st.booleans()):
        label_cols = draw(st.sampled_from([0, 1, 1, 2]))
        body = tuple(draw(st.lists(st.tuples(*[_CELL] * label_cols, *[_VALUE] * value_cols), min_size=1, max_size=7)))
    else:
        label_cols = 1
        labels = draw(st.lists(st.sampled_from(_REGIONS), min_size=1, max_size=7, unique=True))
        body = tuple((label, *draw(values)) for label in labels)
    own_cells = st.sampled_from([cell for row in body for cell in row])
    word = st.one_of(own_cells, own_cells, _CELL, _VALUE, _FILLER)
    sentence = st.tuples(st.lists(word, min_size=1, max_size=12), st.sampled_from([" ", " ", ", ", "-", ""]))
    texts = [sep.join(parts) for parts, sep in draw(st.lists(sentence, min_size=1, max_size=4))]
    return TableRows(header=(), body=body, label_cols=label_cols), texts


_REGION_ROWS = TableRows(header=(), body=(("North", "1,234"), ("South", "12"), ("North", "77.5")), label_cols=1)
_EDGE_ROWS = TableRows(
    header=(),
    body=(("EU", "1"), ("b-c", "2"), (" ".join(["w"] * 12), "3"), (" ".join(["v"] * 13), "4"), ("2019", "305")),
    label_cols=1,
)
_FOUR_ROWS = TableRows(header=(), body=tuple((f"Region {c}", "1") for c in "ABCD"), label_cols=1)
_KNOWN_CASES = [
    (_REGION_ROWS, "South rose", (1,)),
    (_REGION_ROWS, "North rose", ()),  # a label two rows share names neither
    (_REGION_ROWS, "North rose to 77.5", (2,)),  # but a value only one row holds does
    (_REGION_ROWS, "It was 1234 and 12", (0,)),  # with or without the separator; "12" is too short to name a row
    (_REGION_ROWS, "Southern regions", ()),  # whole words only
    (_EDGE_ROWS, "EU rose", ()),  # a label of 2 characters is too short
    (_EDGE_ROWS, "the b c line", (1,)),  # 3 characters ("b c") are enough, hyphen or not
    (_EDGE_ROWS, " ".join(["w"] * 12), (2,)),  # a label of 12 words is looked for
    (_EDGE_ROWS, " ".join(["v"] * 13), ()),  # one of 13 is not
    (_EDGE_ROWS, "in 2019", ()),  # a label needs a letter
    (_EDGE_ROWS, "then 305", (4,)),  # a value of 3 characters names its row
    (_FOUR_ROWS, "Region A, Region B and Region C", (0, 1, 2)),
    (_FOUR_ROWS, "Region A, Region B, Region C and Region D", ()),  # more than 3 rows: about the whole table
]


@pytest.mark.parametrize(("rows", "text", "named"), _KNOWN_CASES)
def test_named_rows_on_cases_worked_out_by_hand(rows: TableRows, text: str, named: tuple[int, ...]) -> None:
    """The test's reading of the definition, and ``named_rows``, on cases at each threshold of the definition."""
    assert rows_named_by_definition(text, rows) == named
    assert named_rows([text], rows) == (named,)


def test_max_named_rows_decides_when_a_text_is_about_the_whole_table() -> None:
    four = "Region A, Region B, Region C and Region D"
    assert named_rows([four], _FOUR_ROWS) == ((),)
    assert named_rows([four], _FOUR_ROWS, TableParams(max_named_rows=4)) == ((0, 1, 2, 3),)
    assert named_rows(["Region A rose"], _FOUR_ROWS, TableParams(max_named_rows=0)) == ((),)


def test_the_row_label_bounds_are_read_from_the_table_params() -> None:
    assert named_rows(["EU rose"], _EDGE_ROWS, TableParams(min_row_label_chars=2)) == ((0,),)
    assert named_rows(["the b c line"], _EDGE_ROWS, TableParams(min_row_label_chars=4)) == ((),)
    thirteen = " ".join(["v"] * 13)
    assert named_rows([thirteen], _EDGE_ROWS, TableParams(max_row_label_words=13)) == ((3,),)
    assert named_rows([" ".join(["w"] * 12)], _EDGE_ROWS, TableParams(max_row_label_words=11)) == ((),)


def test_min_row_value_chars_decides_which_numbers_name_a_row() -> None:
    assert named_rows(["It was 12"], _REGION_ROWS) == ((),)
    assert named_rows(["It was 12"], _REGION_ROWS, TableParams(min_row_value_chars=2)) == ((1,),)
    assert named_rows(["then 305"], _EDGE_ROWS, TableParams(min_row_value_chars=4)) == ((),)


def test_a_split_units_placement_reads_its_table_params() -> None:
    parts = UnitParts(
        caption="",
        context_before=("It was 12",),
        context_after=(),
        footnotes=(),
        rows=_REGION_ROWS,
        fmt=TABLE_FORMATS["markdown"],
        tables=TableParams(min_row_value_chars=2),
    )
    assert parts.rows_named() == ((1,),)


@given(_tables_and_texts())
@settings(max_examples=60)
def test_named_rows_follow_the_definition(table_and_texts: tuple[TableRows, list[str]]) -> None:
    """``named_rows`` and a split unit's ``rows_named`` (the placement the splitter uses) give, for every text, the
    rows the definition gives."""
    rows, texts = table_and_texts
    expected = tuple(rows_named_by_definition(text, rows) for text in texts)
    assert named_rows(texts, rows) == expected
    parts = UnitParts(
        caption="",
        context_before=tuple(texts[:1]),
        context_after=tuple(texts[1:]),
        footnotes=(),
        rows=rows,
        fmt=TABLE_FORMATS["markdown"],
    )
    assert parts.rows_named() == expected


@given(_TEXT)
def test_numbers_are_plain_digits_with_an_optional_decimal_part(text: str) -> None:
    for inside_words in (True, False):
        for number in numbers(text, inside_words=inside_words, min_significant_digits=0):
            assert re.fullmatch(r"\d+(?:\.\d+)?", number)


@given(_TEXT, st.integers(0, 4), st.integers(0, 6))
def test_stricter_limits_only_drop_numbers(text: str, digits: int, chars: int) -> None:
    for inside_words in (True, False):
        loose = numbers(text, inside_words=inside_words, min_significant_digits=0)
        strict = numbers(text, inside_words=inside_words, min_significant_digits=digits, min_chars=chars)
        assert strict <= loose
        assert all(significant_digits(n) >= digits for n in strict)


@given(st.integers(0, 10**9), st.integers(0, 99))
def test_a_number_reads_the_same_with_or_without_thousands_separators(value: int, cents: int) -> None:
    for written, plain in ((f"{value:,}", str(value)), (f"{value:,}.{cents:02d}", f"{value}.{cents:02d}")):
        for inside_words in (True, False):
            assert numbers(f"total {written} units", inside_words=inside_words) == numbers(
                f"total {plain} units", inside_words=inside_words
            )
        assert numbers(f"total {written}") == ({plain} if significant_digits(plain) >= 2 else set())


@given(st.integers(10, 10**6))
def test_a_number_glued_to_a_word_is_read_only_inside_words(value: int) -> None:
    assert numbers(f"FY{value}") == {str(value)}
    assert numbers(f"FY{value}", inside_words=False) == set()


@given(_TEXT)
def test_words_start_with_a_letter_and_numeral_words_are_word_runs(text: str) -> None:
    found = words(text)
    assert all(WORD.fullmatch(w) and not w[0].isdigit() and w[0] != "_" for w in found)
    assert words(text, numerals=True) == re.findall(r"\w+", text)


@given(_ASCII_TEXT)
def test_content_words_are_lowercase_ascii_words_outside_the_stop_list(text: str) -> None:
    found = content_words(text)
    assert found == content_words(text.upper())
    assert all(w == w.lower() and len(w) >= 3 and w not in STOP_WORDS for w in found)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT, max_size=6))
def test_words_and_numbers_of_texts_joined_by_line_breaks_are_the_union_of_each_texts(texts: list[str]) -> None:
    # the table terms read a table's cells as one text, a line per cell
    joined = "\n".join(texts)
    assert content_words(joined) == set().union(*(content_words(t) for t in texts))
    assert numbers(joined) == set().union(*(numbers(t) for t in texts))
