"""The real Docling fixtures at other limits and with another tokenizer (skipped when ``../shared`` is absent).

``tests/test_fixtures.py`` checks every fixture at the default (256 tokens, the bundled all-MiniLM-L6-v2
tokenizer). Here the same coverage checks run where splitting is hardest and where units hold most: 128 tokens
(small pieces, semchunk cuts paragraphs into short runs), 2,048 tokens (whole tables with all their context), and
tiktoken's cl100k_base at 512 (a BPE tokenizer unlike the embedder's). Every chunk fits, no cell or body text is
lost, and a second run gives the same chunks.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from split_helpers import make_tokenizer
from test_fixtures import FIXTURE_PARAMS, lost_cells, lost_text, norm_chunk

SETTINGS = [("bundled", 128), ("bundled", 2048), ("tiktoken", 512)]
# at 128 tokens a semchunk cut can leave a 2-character run ("2)") at a chunk's end: pieces that short are allowed
MIN_PIECE = 2


@cache
def _chunked(path: Path, kind: str, limit: int) -> tuple[Any, Any, list[Any], list[str]]:
    from docling_core.types.doc import DoclingDocument

    from docling_evidence import EvidenceChunker

    doc = DoclingDocument.load_from_json(path)
    chunker = EvidenceChunker(tokenizer=make_tokenizer(kind, limit))
    chunks = list(chunker.chunk(doc))
    return doc, chunker, chunks, [norm_chunk(chunker.contextualize(c)) for c in chunks]


@pytest.mark.parametrize(("kind", "limit"), SETTINGS, ids=[f"{k}-{n}" for k, n in SETTINGS])
@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_fixture_chunks_fit_and_keep_every_cell_and_text(path: Path | None, kind: str, limit: int) -> None:
    if path is None:
        pytest.skip("real fixtures absent")
    doc, chunker, chunks, embed = _chunked(path, kind, limit)
    sizes = [chunker.tokenizer.count_tokens(chunker.contextualize(c)) for c in chunks]
    assert max(sizes, default=0) <= limit
    assert not lost_cells(doc, chunks, embed, MIN_PIECE, chunker.serializer_provider.get_serializer(doc))
    assert not lost_text(doc, chunks, embed, MIN_PIECE)


@pytest.mark.parametrize("path", FIXTURE_PARAMS)
def test_fixture_chunks_are_deterministic_with_tiktoken(path: Path | None) -> None:
    if path is None:
        pytest.skip("real fixtures absent")
    from docling_evidence import EvidenceChunker

    doc, _, chunks, _ = _chunked(path, "tiktoken", 512)
    again = list(EvidenceChunker(tokenizer=make_tokenizer("tiktoken", 512)).chunk(doc))
    assert [c.model_dump() for c in again] == [c.model_dump() for c in chunks]
