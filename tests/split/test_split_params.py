"""``SplitParams``: every number of the splitting rules as a validated, documented field that ``Splitter`` reads."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from docling_evidence.split.params import SplitParams
from docling_evidence.split.splitter import Splitter, UnitParts
from docling_evidence.tables.formats import TABLE_FORMATS
from docling_evidence.tables.rows import TableRows

MARKDOWN = TABLE_FORMATS["markdown"]


def count(text: str) -> int:
    """One token per whitespace-separated word: joins are free."""
    return len(text.split())


def splitter(budget: int, **params: object) -> Splitter:
    """A word-counting splitter at ``budget`` with the given ``SplitParams`` fields."""
    return Splitter(count=count, fits=lambda t: count(t) <= budget, budget=budget, params=SplitParams(**params))


def words(n: int, word: str = "net") -> str:
    """``n`` copies of ``word``: ``n`` tokens."""
    return " ".join([word] * n)


def unit(
    header: tuple[tuple[str, ...], ...],
    body: tuple[tuple[str, ...], ...],
    *,
    caption: str = "",
    before: tuple[str, ...] = (),
    footnotes: tuple[str, ...] = (),
) -> UnitParts:
    return UnitParts(
        caption=caption,
        context_before=before,
        context_after=(),
        footnotes=footnotes,
        rows=TableRows(header=header, body=body, label_cols=1),
        fmt=MARKDOWN,
    )


# -- the model ----------------------------------------------------------------------------------------------------


def test_every_field_is_documented_and_bounded() -> None:
    for name, info in SplitParams.model_fields.items():
        assert info.description and len(info.description) > 40, name
        assert info.metadata, f"{name} has no bound"


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("header_max_share", 0, "greater than 0"),
        ("header_max_share", 1.5, "less than or equal to 1"),
        ("wide_row_quantile", 1, "less than 1"),
        ("column_sample_rows", 0, "greater than or equal to 1"),
        ("retry_step_share", 1.0, "less than 1"),
        ("whole_estimate_max_ratio", 0.5, "greater than or equal to 1"),
    ],
)
def test_an_out_of_range_value_names_the_field_and_its_bound(field: str, value: float, said: str) -> None:
    with pytest.raises(ValidationError) as err:
        SplitParams(**{field: value})
    message = str(err.value)
    assert field in message
    assert said in message


def test_row_room_bounds_out_of_order_say_which_to_change() -> None:
    with pytest.raises(ValidationError) as err:
        SplitParams(row_room_min_share=0.6)
    message = str(err.value)
    assert "row_room_min_share (0.6) is above row_room_max_share (0.5)" in message
    assert "lower row_room_min_share or raise row_room_max_share" in message


def test_a_misspelt_field_is_refused_by_name() -> None:
    with pytest.raises(ValidationError) as err:
        SplitParams(header_share=0.4)  # type: ignore[call-arg]
    assert "header_share" in str(err.value)
    assert "Extra inputs are not permitted" in str(err.value)


def test_params_are_frozen() -> None:
    params = SplitParams()
    with pytest.raises(ValidationError):
        params.header_max_share = 0.3  # type: ignore[misc]


def test_default_params_split_as_no_params() -> None:
    parts = unit((("Item", "Value"),), tuple((f"r{i}", words(3)) for i in range(30)), caption="Table 1")
    plain = Splitter(count=count, fits=lambda t: count(t) <= 32, budget=32).split(parts)
    assert len(plain) > 1
    assert splitter(32).split(parts) == plain


# -- each field changes splitting as documented ----------------------------------------------------------------------


def test_row_room_min_share_moves_footnotes_out_of_the_repeated_overhead() -> None:
    """Rows get at least ``row_room_min_share`` of the budget: a long footnote repeated in every piece at the default
    is emitted once, after the last row, when rows must get three quarters of a piece."""
    parts = unit(
        (("Item", "Value"),),
        tuple((f"r{i}", str(i)) for i in range(20)),
        caption="Table 1",
        footnotes=(words(14, "note"),),
    )
    default = splitter(48).split(parts)
    assert all(p.has_footnotes for p in default)
    roomy = splitter(48, row_room_min_share=0.75, row_room_max_share=0.75).split(parts)
    assert [p.has_footnotes for p in roomy] == [False] * (len(roomy) - 1) + [True]
    assert len(roomy) < len(default)
    assert roomy[-1].text.endswith(words(14, "note"))


def test_wide_row_quantile_decides_which_row_makes_a_table_wide() -> None:
    """At the median (default) nine short rows keep the table split by rows (the one wide row is split inside
    itself); at the 95th percentile that wide row decides, and the whole table is split by columns."""
    body = (*((f"r{i}", words(3, "v"), words(3, "w")) for i in range(9)), ("big", words(30, "x"), words(30, "y")))
    parts = unit((("Item", "A", "B"),), body)
    by_rows = splitter(48).split(parts)
    short_rows = [p for p in by_rows if p.rows[1] <= 9]
    assert short_rows
    assert all(p.cols is None for p in short_rows)
    by_columns = splitter(48, wide_row_quantile=0.95).split(parts)
    assert all(p.cols is not None for p in by_columns)
    assert {p.cols for p in by_columns} == {(0, 1), (0, 2)}


def test_header_max_share_decides_whether_context_pieces_repeat_the_header() -> None:
    """A table kept whole beside a context text too long for its piece: the context's own pieces show the header
    (14 tokens) when it is within half of the 48-token budget, and not when only a fifth is allowed."""
    header = (("Item", *(f"h{i}" for i in range(5))),)
    body = tuple((f"r{i}", *("1" for _ in range(5))) for i in range(2))
    parts = unit(header, body, before=(words(60, "ctx"),))
    default = splitter(48).split(parts)
    narrow = splitter(48, header_max_share=0.2).split(parts)
    for pieces, shown in ((default, True), (narrow, False)):
        context_pieces = [p for p in pieces if p.rows == (0, 0)]
        assert context_pieces
        assert all(p.has_header is shown for p in context_pieces)
        assert all(("| Item |" in p.text) is shown for p in context_pieces)


def test_semchunk_min_tokens_cuts_smaller_fragments_by_characters() -> None:
    """semchunk cuts at the sentence; below ``semchunk_min_tokens`` the text is cut by characters, as much as fits."""
    text = "one two. three four five six seven eight nine ten."
    assert splitter(64).fragments(text, 8) == ["one two. ", "three four five six seven eight nine ten."]
    by_characters = splitter(64, semchunk_min_tokens=9).fragments(text, 8)
    assert by_characters == ["one two. three four five six seven eight ", "nine ten."]


def test_context_fragments_carry_their_offsets_in_the_context_text() -> None:
    """A context text cut over several pieces: each piece says where its fragment starts and ends in the text, also
    when the same sentence occurs twice in it (searching for the fragment would find the first)."""
    sentence = words(10, "same") + ". "
    context = sentence * 6
    parts = unit((("Item", "Value"),), (("r0", "1"),), before=(context,))
    pieces = splitter(24).split(parts)
    spans = [span for p in pieces for span in p.context_spans]
    assert len(spans) > 2
    starts, ends = [a for _, a, _ in spans], [b for _, _, b in spans]
    assert starts == [0, *ends[:-1]]  # consecutive: each fragment starts where the one before ends
    assert ends[-1] == len(context)
    for p in pieces:
        assert [(i, context[a:b]) for i, a, b in p.context_spans] == list(p.context_shown)
