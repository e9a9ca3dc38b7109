"""The tunable rules of building units and assembling their pieces, as validated models (``EvidenceParams.units``
and ``EvidenceParams.pieces``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class UnitParams(BaseModel):
    """What a unit attaches to its table, and how the texts that belong to it are found: its caption, footnotes and
    title, the references that name it by title or place, and the parts of a table continued on the next page.
    Switching an attachment off is an ablation: the items then stay in the text chunks, so nothing is lost.

    Whether tables continued on the next pages are joined at all (``EvidenceChunker.merge_continued_tables``) is
    not here: it decides which ``TableItem`` objects are one table, not what a table carries, and stays a top-level
    setting beside ``table_format`` and ``repeat_table_header``; the ``continuation_*`` bounds here say when two
    parts meet at a page break.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    with_caption: bool = Field(
        default=True,
        description="Attach each table's caption (Docling's link, else the caption found by place or label).",
    )
    with_context: bool = Field(
        default=True,
        description="Attach the paragraphs and sentences that explain each table; False also keeps section peers "
        "(merge_peers) out of the units.",
    )
    with_footnotes: bool = Field(
        default=True,
        description="Attach each table's footnotes: Docling-linked ones and the unlinked notes right below it.",
    )
    caption_max_steps: int = Field(
        default=2,
        ge=1,
        le=20,
        description="On documents without layout, the largest reading-order distance between a table and its caption.",
    )
    caption_run_max_items: int = Field(
        default=3,
        ge=0,
        le=20,
        description="On documents without layout, how many texts between a caption and the table below it may "
        "continue the caption (a label alone and its title; a title broken at italic runs); 0: none.",
    )
    caption_run_max_words: int = Field(
        default=30,
        ge=0,
        le=500,
        description="The most words the texts continuing a caption hold together: the rest of a title, not a "
        "paragraph.",
    )
    caption_max_gap_pt: float = Field(
        default=100.0,
        ge=0.0,
        le=2000.0,
        allow_inf_nan=False,
        description="On paginated documents, the largest vertical gap in points between a table and a caption-like "
        "text above or below it in its column: a caption sits next to its table, and a label farther away belongs to "
        "another float or is a mention in the running text.",
    )
    caption_page_edge_items: int = Field(
        default=3,
        ge=0,
        le=50,
        description="For a table that opens (closes) its page, how many items at the end (start) of the previous "
        "(next) page are searched for its caption, which a page break may have separated from it; 0: the adjacent "
        "page is not searched.",
    )
    footnote_max_items: int = Field(
        default=4,
        ge=0,
        description="How many notes right after a table (reading order) may be taken as its unlinked footnotes "
        "(a text each; a marker alone and the note after it are one).",
    )
    footnote_max_gap_pt: float = Field(
        default=60.0,
        ge=0.0,
        allow_inf_nan=False,
        description="Largest vertical gap in points between a table (or the footnote above) and an unlinked "
        "footnote below it, on paginated documents.",
    )
    title_max_words: int = Field(
        default=4,
        ge=1,
        le=50,
        description='The longest heading, in words, that titles the table right below it ("SCHEDULE", "FIRST '
        'SCHEDULE"), so that "the Schedule" names that table as "Table 3" would: a longer heading is a section '
        "title, not a table's name.",
    )
    subtitle_max_words: int = Field(
        default=12,
        ge=0,
        le=200,
        description='The longest text that may stand between a title and its table (a subtitle: "Appointment and '
        'limits of a Customs Area."); a longer one is prose, and the heading above it titles no table.',
    )
    title_reach: int = Field(
        default=16,
        ge=0,
        le=10_000,
        description='The farthest reading distance, in items, between a reference by title ("the Schedule") and the '
        'table it names: titles such as "SCHEDULE" recur in every notice of a gazette, so only a reference near '
        "the table names it; 0: no reference by title names a table.",
    )
    pointing_reach: int = Field(
        default=8,
        ge=0,
        le=10_000,
        description='How far a reference by place ("the following table", "the table above") reaches: it names the '
        "next (previous) table when fewer than this many paragraphs lie between them, as a discussion goes on for a "
        "few paragraphs; 0: a reference by place names no table.",
    )
    continuation_edge_fraction: float = Field(
        default=0.15,
        ge=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="A table part ends near the page bottom (the next part starts near the top) when within this "
        "fraction of the page height of it; a part that stops higher up ends where the table ends, not at a page "
        "break (a part with nothing of the body beyond it counts as at the edge anyway).",
    )
    continuation_edge_tolerance_pt: float = Field(
        default=2.0,
        ge=0.0,
        le=100.0,
        allow_inf_nan=False,
        description="Boxes overlapping by up to this many points still count as below (above) a table part when "
        "telling whether anything of the body lies beyond it on its page: neighbouring boxes touch or overlap by "
        "rounding.",
    )
    continuation_stray_cell_max_words: int = Field(
        default=3,
        ge=0,
        le=50,
        description="The most words of a plain text inside a table part's box that is a cell Docling left out of the "
        'grid ("-", "D2111"): part of the table, not text between two parts; longer texts inside the box are kept '
        "as text that separates them.",
    )
    continuation_stray_cell_max_chars: int = Field(
        default=24,
        ge=0,
        le=500,
        description="The most characters of such a stray cell (with continuation_stray_cell_max_words).",
    )
    continuation_stray_cell_tolerance_pt: float = Field(
        default=10.0,
        ge=0.0,
        le=200.0,
        allow_inf_nan=False,
        description="How many points a table part's box is widened on every side when telling whether a short text "
        "lies inside it (a stray cell): a cell's text box may reach slightly past the grid Docling found.",
    )


class PieceParams(BaseModel):
    """How the chunker sizes what goes beside a table in its pieces: context budgets, the room left for joins, and
    the headings' share of a piece."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_piece_budget: int = Field(
        default=16,
        ge=1,
        description="Below this many tokens left after the headings, a unit's pieces are emitted without headings "
        "(a warning says so; the text chunks keep them).",
    )
    page_context_tokens: int = Field(
        default=1024,
        ge=0,
        description="Without context_max_tokens, the context budget of a table placed on a page (PDF), when the "
        "limit's share (context_limit_divisor) is less, and at most page_context_pieces pieces' worth: the text "
        "that explains a table does not shrink with the embedder's window (a few paragraphs, 100-250 tokens each in "
        "papers, about 680 in one Korean report with the bundled tokenizer), and its candidates are bounded by the "
        "page neighbourhood and per-sentence relevance (plus the paragraphs that name the table anywhere in the "
        "document, which only this budget bounds).",
    )
    page_context_pieces: int = Field(
        default=4,
        ge=1,
        description="At small limits a table on a page gets at most this many pieces' worth of context "
        "(page_context_pieces * max_tokens), so its rows are not buried behind pieces of context.",
    )
    context_limit_divisor: int = Field(
        default=2,
        ge=1,
        description="Without context_max_tokens, a table not placed on a page (HTML, DOCX, Markdown) gets "
        "max_tokens // context_limit_divisor tokens of context, and a table on a page at least that.",
    )
    context_join_slack: int = Field(
        default=8,
        ge=1,
        description="Of the room left beside a table that fits one piece, 1/context_join_slack (plus "
        "context_join_reserve tokens) is kept free for the joins between context sentences, which are counted one "
        "by one.",
    )
    context_join_reserve: int = Field(
        default=4,
        ge=0,
        description="Tokens kept free beside a one-piece table on top of the context_join_slack share.",
    )
    resplit_step_divisor: int = Field(
        default=16,
        ge=1,
        description="A text chunk HybridChunker's plain-text fallback left over the limit is cut again with "
        "fragments smaller by 1/resplit_step_divisor of their size (at least one token) each round until every "
        "piece fits.",
    )
