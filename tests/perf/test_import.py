"""``import docling_evidence`` and ``EvidenceChunker()`` never import transformers or torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


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


def test_chunking_a_document_imports_neither_torch_nor_transformers() -> None:
    out = _run(
        """
        import sys
        from docling_core.types.doc import DoclingDocument, DocItemLabel
        from docling_evidence import EvidenceChunker, bundled_tokenizer
        doc = DoclingDocument(name="d")
        doc.add_heading("Results")
        doc.add_text(label=DocItemLabel.TEXT, text="Revenue rose. " * 80)
        chunks = list(EvidenceChunker(tokenizer=bundled_tokenizer(32)).chunk(doc))
        assert len(chunks) > 1
        print(sorted(m for m in ("torch", "transformers") if m in sys.modules))
        """
    )
    assert out == "[]"


def test_docling_core_tokenizer_module_still_works_after_the_deferral() -> None:
    out = _run(
        """
        import sys
        import docling_evidence
        from docling_core.transforms.chunker import HybridChunker
        from docling_core.transforms.chunker.line_chunker import LineBasedTokenChunker
        assert "transformers" not in sys.modules
        import docling_core.transforms.chunker.tokenizer.huggingface as hf_module
        from docling_core.transforms.chunker.tokenizer.huggingface import HuggingFaceTokenizer
        from docling_evidence.tokenizer import BUNDLED_TOKENIZER_DIR, hf_tokenizer
        tok = hf_tokenizer(BUNDLED_TOKENIZER_DIR)
        assert isinstance(tok, HuggingFaceTokenizer) and isinstance(tok, hf_module.HuggingFaceTokenizer)
        assert sys.modules[hf_module.__name__].HuggingFaceTokenizer is HuggingFaceTokenizer
        assert HybridChunker(tokenizer=tok).max_tokens == 256
        print("transformers" in sys.modules, tok.count_tokens("Table 3 shows revenue"))
        """
    )
    assert out == "True 4"


def test_no_deferral_when_docling_core_chunker_was_imported_first() -> None:
    out = _run(
        """
        import sys
        import docling_core.transforms.chunker
        import docling_evidence
        mod = sys.modules["docling_core.transforms.chunker.tokenizer.huggingface"]
        print(type(mod).__name__)
        """
    )
    assert out == "module"
