"""The environment of a process that chunks files: offline, quiet third-party libraries, one line per problem."""

from __future__ import annotations

import logging
import os


def library_verbosity(verbose: bool | None = None) -> None:
    """Set the verbosity variables the Hugging Face hub and transformers read when they are first imported.

    ``verbose`` (the command line's ``--verbose``) sets both outright, to ``warning`` or ``error``; ``None`` (a worker
    process, a Ray actor) quiets transformers to ``error`` unless the environment already chose a verbosity.
    """
    level = "warning" if verbose else "error"
    if verbose is not None:
        os.environ["HF_HUB_VERBOSITY"] = level
    if verbose is not None or "TRANSFORMERS_VERBOSITY" not in os.environ:
        os.environ["TRANSFORMERS_VERBOSITY"] = level


def quiet_environment() -> None:
    """No hub calls, no tokenizer thread warnings, no transformers chatter on stderr (unless the environment asks)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    library_verbosity()
    # Docling logs each failure itself ("Input document x.docx is not valid."); ours is the one line per file.
    for name in ("docling", "docling_core"):
        logging.getLogger(name).setLevel(logging.ERROR)
