"""What importing the package costs: nothing heavy until a public name is used, and no torch needed to chunk.

The first public name imports docling-core's chunker package, which imports transformers (and torch, when it is
installed) on its own; docs/performance.md ("Import cost") has the numbers. These tests pin what stays true.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

_BLOCK_TORCH = 'sys.modules["torch"] = None  # any `import torch` raises ImportError, as when torch is not installed'

_CHUNK_A_DOCUMENT = """
from docling_core.types.doc import DoclingDocument, DocItemLabel
from docling_evidence import EvidenceChunker, bundled_tokenizer
doc = DoclingDocument(name="d")
doc.add_heading("Results")
doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose. " * 80)
chunker = EvidenceChunker(tokenizer=bundled_tokenizer(32))
texts = [chunker.contextualize(chunk) for chunk in chunker.chunk(doc)]
assert len(texts) > 1
print(texts)
"""


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip()


def test_importing_the_package_alone_loads_neither_docling_core_chunker_nor_torch() -> None:
    out = _run(
        """
        import sys
        import docling_evidence
        heavy = ("docling_core.transforms.chunker", "transformers", "torch")
        print(sorted(name for name in heavy if name in sys.modules))
        """
    )
    assert out == "[]"


def test_cli_help_loads_neither_docling_core_chunker_nor_torch() -> None:
    out = _run(
        """
        import contextlib, io, sys
        from docling_evidence.cli.main import main
        sys.argv = ["docling-evidence", "--help"]
        with contextlib.redirect_stdout(io.StringIO()) as help_text, contextlib.suppress(SystemExit):
            main()
        assert "chunk" in help_text.getvalue()
        heavy = ("docling_core.transforms.chunker", "transformers", "torch")
        print(sorted(name for name in heavy if name in sys.modules))
        """
    )
    assert out == "[]"


def test_chunking_needs_no_torch_and_gives_the_same_chunks_without_it() -> None:
    with_torch = _run("import sys\n" + _CHUNK_A_DOCUMENT)
    without_torch = _run("import sys\n" + _BLOCK_TORCH + "\n" + _CHUNK_A_DOCUMENT)
    assert without_torch == with_torch
    assert "Revenue rose." in without_torch


def test_docling_core_tokenizer_classes_are_docling_cores_own() -> None:
    out = _run(
        """
        import docling_evidence
        import docling_core.transforms.chunker.tokenizer.huggingface as hf_module
        from docling_core.transforms.chunker import HybridChunker
        from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR, hf_tokenizer
        tok = hf_tokenizer(BUNDLED_TOKENIZER_DIR)
        assert type(tok) is hf_module.HuggingFaceTokenizer
        assert HybridChunker(tokenizer=tok).max_tokens == 256
        print(tok.count_tokens("Table 3 shows revenue"))
        """
    )
    assert out == "4"
