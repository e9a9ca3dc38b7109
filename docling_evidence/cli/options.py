"""The options ``chunk`` and ``inspect`` share, and the chunk settings made of them."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from docling_evidence.batch import ChunkSettings, chunker_for
from docling_evidence.cli.common import usage_error, with_default


class TableFormat(str, Enum):
    """How tables are rendered inside the chunk text."""

    markdown = "markdown"
    html = "html"
    triplets = "triplets"


InputsArg = Annotated[
    list[Path],
    typer.Argument(
        readable=False,  # an unreadable file is that file's error (exit 1), not a usage error stopping the batch
        help="DoclingDocument .json files, documents Docling converts (.html .docx .md .xlsx .pptx; .pdf with the "
        "'pdf' extra and its models), or folders (searched recursively).",
        show_default=False,
    ),
]
MaxTokensOpt = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        help=with_default("Token limit per chunk.", "256, the bundled tokenizer's limit"),
        min=1,
        show_default=False,
    ),
]
TokenizerOpt = Annotated[
    str | None,
    typer.Option(
        "--tokenizer",
        help=with_default(
            "Hugging Face tokenizer folder (or a model name in the local cache).", "bundled all-MiniLM-L6-v2"
        ),
        show_default=False,
    ),
]
BboxOpt = Annotated[
    float | None,
    typer.Option(
        "--bbox-threshold",
        help=with_default("Max vertical distance in points from a table for layout-based context paragraphs.", "300"),
        min=0.0,
        show_default=False,
    ),
]
VerboseOpt = Annotated[
    bool,
    typer.Option(
        "--verbose",
        "-v",
        help=with_default(
            "Also show the log lines of the Hugging Face hub, transformers and Ray (--engine ray).", "only ours"
        ),
        show_default=False,
    ),
]
TableFormatOpt = Annotated[
    TableFormat | None,
    typer.Option(
        "--table-format", help=with_default("Table rendering in the chunk text.", "markdown"), show_default=False
    ),
]


def chunk_settings(
    max_tokens: int | None, tokenizer: str | None, bbox_threshold: float | None, table_format: TableFormat | None
) -> ChunkSettings:
    """The settings of the chunker options as given (``None``: the chunker's default)."""
    return ChunkSettings(max_tokens, tokenizer, bbox_threshold, table_format.value if table_format else None)


def check_settings(settings: ChunkSettings) -> Any:
    """Build the chunker once up front so a bad setting is one usage error, not one failure per file.

    The settings are validated where they are defined (``make_chunker``, ``EvidenceChunker``); this only turns
    their ``ValueError`` / ``TypeError`` into the CLI's one-line usage error.
    """
    try:
        return chunker_for(settings)
    except (ValueError, TypeError) as exc:
        raise usage_error(" ".join(str(exc).split()).split(" For further information")[0]) from None
