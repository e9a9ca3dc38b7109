"""Keep ``transformers`` (and, through it, torch) out of ``import docling_core.transforms.chunker``.

docling-core's chunker package imports ``line_chunker``, which imports ``get_default_tokenizer`` from
``docling_core.transforms.chunker.tokenizer.huggingface`` at module level; that module imports ``AutoTokenizer``,
and ``transformers.AutoTokenizer`` imports torch (about half of a cold ``import docling_evidence`` here). Counting
tokens needs only the ``tokenizers`` package.

:func:`defer` puts a stand-in module under that name before docling-core's chunker package is first imported. The
stand-in holds a forwarding ``get_default_tokenizer`` (what ``line_chunker`` imports); the first access to any other
name (``HuggingFaceTokenizer`` in user code or in ``HybridChunker``'s deprecated-argument path) executes the real
module, replaces the stand-in in ``sys.modules`` and returns the real object. Classes, ``isinstance`` checks and
behaviour are docling-core's own; only the moment transformers is imported changes.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import threading
import types
from typing import Any

HF_MODULE = "docling_core.transforms.chunker.tokenizer.huggingface"
_CHUNKER_PACKAGE = "docling_core.transforms.chunker"
_lock = threading.RLock()


class _DeferredModule(types.ModuleType):
    """Stand-in for docling-core's ``huggingface`` tokenizer module until a name of it is first used."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(load_real(), name)


def load_real() -> types.ModuleType:
    """Execute docling-core's real ``huggingface`` tokenizer module (once) and return it."""
    with _lock:
        current = sys.modules.get(HF_MODULE)
        if current is not None and not isinstance(current, _DeferredModule):
            return current
        parent = importlib.import_module(HF_MODULE.rpartition(".")[0])
        spec = importlib.machinery.PathFinder.find_spec(HF_MODULE, parent.__path__)
        if spec is None or spec.loader is None:  # pragma: no cover - docling-core is a hard dependency
            raise ImportError(f"cannot find {HF_MODULE}")
        real = importlib.util.module_from_spec(spec)
        sys.modules[HF_MODULE] = real
        try:
            spec.loader.exec_module(real)
        except BaseException:
            if current is not None:
                sys.modules[HF_MODULE] = current
            else:
                del sys.modules[HF_MODULE]
            raise
        parent.huggingface = real  # type: ignore[attr-defined]
        if current is not None:
            # the stand-in, wherever it is still referenced, now answers with the real names directly
            current.__dict__.update({k: v for k, v in real.__dict__.items() if not k.startswith("__")})
        return real


def _get_default_tokenizer() -> Any:
    """Forward to docling-core's ``get_default_tokenizer`` (``LineBasedTokenChunker``'s default factory)."""
    return load_real().get_default_tokenizer()


def defer() -> None:
    """Install the stand-in, unless docling-core's chunker package (or the real module) is already imported."""
    with _lock:
        if HF_MODULE in sys.modules or _CHUNKER_PACKAGE in sys.modules:
            return
        if importlib.util.find_spec("docling_core") is None:  # pragma: no cover - hard dependency
            return
        stand_in = _DeferredModule(HF_MODULE, "Deferred until first use; see docling_evidence._lazy_hf.")
        stand_in.get_default_tokenizer = _get_default_tokenizer  # type: ignore[attr-defined]
        sys.modules[HF_MODULE] = stand_in
