"""Loading and converting inputs: turn a path (DoclingDocument JSON or any format Docling converts) into a
``DoclingDocument``, and expand folders into the files to read.

```python
from docling_evidence.document.convert import convert_path, iter_input_files

doc = convert_path("report.docx")                       # loads JSON, converts anything else with Docling
for path in iter_input_files(["reports/", "a.json"]):   # folders expand recursively to supported files
    ...
```

Chunking what was converted is :mod:`docling_evidence.pipeline`'s job (``chunk_path``, ``chunk_document``): this
module sits below the chunker and never imports it.

DoclingDocument JSON loads directly (no Docling needed). HTML, DOCX, Markdown, XLSX and PPTX go through Docling's
``DocumentConverter`` (``pip install 'docling-evidence[convert]'``); PDF needs full Docling plus its layout models.
Every problem with an input raises :class:`InputError`, a ``ValueError`` whose one-line message names the file and
the fix. Docling is imported only when a non-JSON file is converted.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docling_evidence.document.paths import path_kind

if TYPE_CHECKING:
    from docling_core.types.doc import DoclingDocument

DOCLING_JSON_SUFFIXES: frozenset[str] = frozenset({".json"})
"""Files loaded directly as a saved ``DoclingDocument``."""

CONVERT_SUFFIXES: dict[str, str] = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".docx": "docx",
    ".md": "md",
    ".markdown": "md",
    ".xlsx": "xlsx",
    ".pptx": "pptx",
    ".pdf": "pdf",
}
"""Files converted with Docling, mapped to Docling's ``InputFormat`` value."""

SUPPORTED_SUFFIXES: frozenset[str] = DOCLING_JSON_SUFFIXES | frozenset(CONVERT_SUFFIXES)
"""Every extension ``iter_input_files`` keeps when it expands a folder."""

REPORT_SUFFIX = ".inspect.html"
"""Inspector reports (``docling-evidence inspect``): skipped when a folder is expanded, so that reports written into
an input folder are not read back as documents on the next run (a report named explicitly is still an input)."""

EMPTY_FILE = "file is empty"
DOCLING_JSON_FIX = "give a file written by DoclingDocument.save_as_json() or `docling --to json`"
CONVERT_INSTALL_HINT = "install Docling's converters: pip install 'docling-evidence[convert]'"
PDF_INSTALL_HINT = (
    "PDF needs full Docling and its layout models: pip install 'docling-evidence[pdf]' -c constraints.txt, "
    "then `docling-tools models download` (or point DOCLING_ARTIFACTS_PATH at downloaded models)"
)


class InputError(ValueError):
    """A file that cannot be read, converted or chunked; ``str(error)`` is one line naming the file and the fix."""

    def __init__(self, path: str | Path, problem: str, fix: str | None = None) -> None:
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        message = f"{self.path}: {problem}" + (f" ({fix})" if fix else "")
        super().__init__(" ".join(message.split()))


@dataclass
class ExpandedInputs:
    """The result of expanding CLI inputs: the files to process, in order, and one error per bad input."""

    files: list[Path] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)


def _supported_list() -> str:
    return ", ".join(sorted(SUPPORTED_SUFFIXES))


def expand_inputs(inputs: Iterable[str | Path]) -> ExpandedInputs:
    """Expand files and folders (recursively, sorted) into supported files; collect, do not raise, input errors.

    An explicitly named file must exist and have a supported extension; a folder must contain at least one
    supported file (other files in it, and inspector reports ``*.inspect.html``, are skipped silently). Inside a
    folder, an entry with a supported extension that cannot be read as a file (a dangling symlink, a symlink loop,
    a FIFO) is an error, as it is when named explicitly. Each file is listed once, even if named twice.
    """
    result = ExpandedInputs()
    seen: set[Path] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            result.files.append(path)

    for raw in inputs:
        path = Path(raw)
        kind = path_kind(path)
        if isinstance(kind, OSError):
            result.errors.append(InputError(path, f"cannot access: {kind.strerror or kind}", "check the path"))
            continue
        if kind == "dir":
            try:
                found, bad = _folder_files(path)
            except OSError as exc:
                result.errors.append(InputError(path, f"cannot read folder: {exc.strerror or exc}", "check the path"))
                continue
            result.errors.extend(bad)
            if not found and not bad:
                result.errors.append(
                    InputError(path, "folder has no supported files", f"expected files ending in {_supported_list()}")
                )
            for p in found:
                add(p)
        elif kind == "file":
            if path.suffix.lower() not in SUPPORTED_SUFFIXES:
                result.errors.append(
                    InputError(
                        path,
                        f"unsupported file type {path.suffix or '(no extension)'!r}",
                        f"give a DoclingDocument .json or one of {_supported_list()}",
                    )
                )
            else:
                add(path)
        else:
            result.errors.append(_not_a_file(path, kind, "no such file or folder"))
    result.errors = list({str(e): e for e in result.errors}.values())  # a path named twice is reported once
    return result


def _folder_files(folder: Path) -> tuple[list[Path], list[InputError]]:
    """The supported files under ``folder`` (recursively, sorted) and an error for each supported-looking entry
    that is not a readable file (a dangling symlink would otherwise vanish from the batch without a word)."""
    found: list[Path] = []
    bad: list[InputError] = []
    for p in sorted(folder.rglob("*")):
        if p.suffix.lower() not in SUPPORTED_SUFFIXES or p.name.endswith(REPORT_SUFFIX):
            continue
        kind = path_kind(p)
        if kind == "file":
            found.append(p)
        elif kind != "dir":
            bad.append(_not_a_file(p, kind, "no such file"))
    return found, bad


def _not_a_file(path: Path, kind: str | OSError, missing: str) -> InputError:
    """The error for a path that is not a regular file or folder (``kind`` from :func:`path_kind`)."""
    if isinstance(kind, OSError):
        return InputError(path, f"cannot access: {kind.strerror or kind}", "check the path")
    target = _link_target(path)
    if kind == "missing" and target is not None:
        return InputError(
            path, f"dangling symlink: it points to {target}, which does not exist", "fix or remove the link"
        )
    if kind == "other" and target is not None and _is_loop(path):
        return InputError(path, "symlink loop: the link never reaches a file", "fix or remove the link")
    if kind == "other":
        return InputError(path, "not a regular file or folder (a FIFO, socket or device)", "give a regular file")
    return InputError(path, missing, "check the path")


def _is_loop(path: Path) -> bool:
    try:
        path.stat()
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _link_target(path: Path) -> str | None:
    """Where the symlink ``path`` points, or None when it is not a symlink."""
    try:
        return os.readlink(path)
    except (OSError, ValueError):
        return None


def iter_input_files(inputs: Iterable[str | Path]) -> Iterator[Path]:
    """Yield the supported files named by ``inputs``, expanding folders recursively (sorted, no duplicates).

    Raises:
        InputError: for the first missing path, unsupported file or folder without supported files
            (before any file is yielded).
    """
    expanded = expand_inputs(inputs)
    if expanded.errors:
        raise expanded.errors[0]
    yield from expanded.files


def load_docling_json(path: str | Path) -> DoclingDocument:
    """Load a saved ``DoclingDocument`` JSON file.

    Raises:
        InputError: if the file is not JSON or not a DoclingDocument.
    """
    from docling_core.types.doc import DoclingDocument
    from pydantic import ValidationError

    path = Path(path)
    fix = DOCLING_JSON_FIX
    try:
        text = path.read_text(encoding="utf-8")
        if not text.strip():
            raise InputError(path, EMPTY_FILE, "re-export or re-download the file")
        data = json.loads(text)
    except UnicodeDecodeError:
        raise InputError(path, "not JSON: it holds binary data, not UTF-8 text", fix) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"corrupt JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", fix) from None
    except OSError as exc:
        raise InputError(path, f"cannot read file: {exc.strerror or exc}") from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply to be a DoclingDocument", fix) from None
    if not isinstance(data, dict) or data.get("schema_name") != "DoclingDocument":
        raise InputError(path, "JSON is not a DoclingDocument (no schema_name 'DoclingDocument')", fix)
    try:
        return DoclingDocument.model_validate(data)
    except ValidationError as exc:
        raise _invalid_document(path, exc, data) from None
    except Exception as exc:  # docling-core's own validators raise IndexError/KeyError on broken references
        dangling = dangling_reference(data)
        detail = (
            f"{dangling[0]} refers to {dangling[1]}, which does not exist"
            if dangling
            else f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
        )
        raise InputError(
            path, f"invalid DoclingDocument, rejected by docling-core's validation: {detail}", fix
        ) from None


def _invalid_document(path: Path, exc: Any, data: dict[str, Any]) -> InputError:
    """The one-line error for JSON that says it is a DoclingDocument but does not validate as one."""
    from docling_evidence.document.json_problems import describe_validation_error

    shown, total = describe_validation_error(exc.errors(), data)
    more = f" (and {total - len(shown)} more)" if total > len(shown) else ""
    version = _docling_core_version()
    return InputError(
        path,
        f"not a valid DoclingDocument JSON{version}: {'; '.join(shown)}{more}",
        "the file must follow the DoclingDocument schema, as DoclingDocument.save_as_json() or `docling --to json` "
        "write it",
    )


def _docling_core_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f" for docling-core {version('docling-core')}"
    except PackageNotFoundError:
        return ""


_ITEM_LISTS = ("texts", "tables", "pictures", "groups", "key_value_items", "form_items", "field_regions", "field_items")


def dangling_reference(data: dict[str, Any]) -> tuple[str, str] | None:
    """The first ``(owner, ref)`` in a DoclingDocument's JSON whose ``$ref`` points to no item, or None.

    Checks the tree (``body``, ``furniture``, ``groups`` and every item's ``children`` / ``parent``) and the items'
    ``captions``, ``footnotes`` and ``references``; this is what makes docling-core's validation fail with a bare
    ``IndexError``, so the message can say which reference is broken.
    """
    existing = {"#/body", "#/furniture"}
    for key in _ITEM_LISTS:
        existing.update(f"#/{key}/{i}" for i in range(len(data.get(key) or [])))
    owners: list[tuple[str, Any]] = [("#/body", data.get("body")), ("#/furniture", data.get("furniture"))]
    for key in _ITEM_LISTS:
        owners += [(f"#/{key}/{i}", item) for i, item in enumerate(data.get(key) or [])]
    for owner, item in owners:
        if not isinstance(item, dict):
            continue
        refs = [item.get("parent"), *(item.get(f) or [] for f in ("children", "captions", "footnotes", "references"))]
        for ref in _flatten(refs):
            if isinstance(ref, dict) and isinstance(ref.get("$ref"), str) and ref["$ref"] not in existing:
                return owner, ref["$ref"]
    return None


def _flatten(values: list[Any]) -> Iterator[Any]:
    for value in values:
        if isinstance(value, list):
            yield from value
        elif value is not None:
            yield value


@lru_cache(maxsize=1)
def _document_converter() -> Any:
    """One Docling ``DocumentConverter`` per process (its pipelines are built lazily, once per format)."""
    from docling.datamodel.base_models import InputFormat
    from docling.document_converter import DocumentConverter

    return DocumentConverter(allowed_formats=[InputFormat(v) for v in sorted(set(CONVERT_SUFFIXES.values()))])


_HUB_ERROR_NAMES = (
    "LocalEntryNotFoundError",
    "OfflineModeIsEnabled",
    "RepositoryNotFoundError",
    "HfHubHTTPError",
    "EntryNotFoundError",
    "ConnectionError",
    "ProxyError",
    "Timeout",
)


def _exception_chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_missing_models_error(exc: BaseException) -> bool:
    """True when ``exc`` (or its cause) says Docling's PDF stack or its model weights are not available offline."""
    for err in _exception_chain(exc):
        name = type(err).__name__
        text = str(err).lower()
        if any(n in name for n in _HUB_ERROR_NAMES):
            return True
        if isinstance(err, ImportError):  # docling-parse, torch, the layout model packages...
            return True
        if isinstance(err, (OSError, FileNotFoundError)) and any(
            w in text for w in ("model", "artifact", "huggingface", "hf_hub", "snapshot")
        ):
            return True
    return False


def _conversion_failure(path: Path, exc: BaseException) -> InputError:
    """Turn whatever Docling raised into a one-line ``InputError``."""
    text = " ".join(str(exc).split())
    lowered = text.lower()
    if path.suffix.lower() == ".pdf" and is_missing_models_error(exc):
        return InputError(
            path, "cannot convert PDF: Docling's PDF pipeline or its models are not installed", PDF_INSTALL_HINT
        )
    if any(w in lowered for w in ("password", "encrypt")):
        return InputError(path, "file is password-protected or encrypted", "save an unprotected copy and retry")
    corrupt_words = ("zip", "truncat", "corrupt", "eof", "not a valid", "is not valid", "bad magic", "could not load")
    if any(w in lowered for w in corrupt_words) or isinstance(exc, EOFError):
        return InputError(
            path, f"file is truncated or corrupt ({type(exc).__name__})", "re-export or re-download the file"
        )
    short = text if len(text) <= 160 else text[:157] + "..."
    return InputError(
        path,
        f"Docling could not convert it: {type(exc).__name__}: {short}",
        "check that the file opens in its usual application",
    )


_BACKENDS: dict[str, tuple[str, str]] = {
    "html": ("docling.backend.html_backend", "HTMLDocumentBackend"),
    "docx": ("docling.backend.msword_backend", "MsWordDocumentBackend"),
    "md": ("docling.backend.md_backend", "MarkdownDocumentBackend"),
    "xlsx": ("docling.backend.msexcel_backend", "MsExcelDocumentBackend"),
    "pptx": ("docling.backend.mspowerpoint_backend", "MsPowerpointDocumentBackend"),
}
"""Docling's declarative backend of each non-PDF format (what ``DocumentConverter``'s SimplePipeline runs)."""


def _convert_with_backend(path: Path, fmt: str) -> DoclingDocument:
    """Convert a non-PDF file with its Docling backend directly, as ``DocumentConverter`` would, without torch.

    Raises:
        InputError: when the backend rejects the file or fails on it.
    """
    import importlib

    from docling.datamodel.base_models import InputFormat
    from docling.datamodel.document import InputDocument

    module_name, class_name = _BACKENDS[fmt]
    try:
        backend = getattr(importlib.import_module(module_name), class_name)
    except ImportError:
        raise InputError(path, f"Docling's {fmt.upper()} converter is not installed", CONVERT_INSTALL_HINT) from None
    try:
        in_doc = InputDocument(path_or_stream=path, format=InputFormat(fmt), backend=backend)
        if not in_doc.valid:
            raise ValueError("Docling's backend could not open it (not a valid file)")
        return in_doc._backend.convert()
    except Exception as exc:  # backends raise zipfile.BadZipFile, KeyError, ValueError, lxml errors...
        raise _conversion_failure(path, exc) from None


_OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")
_OOXML_SUFFIXES = frozenset({".docx", ".xlsx", ".pptx"})
_FORMAT_NAMES = {"html": "HTML", "md": "Markdown", "docx": "DOCX", "xlsx": "XLSX", "pptx": "PPTX", "pdf": "PDF"}
_WRONG_CONTENT_FIX = "re-export or re-download the file, or give it the extension of what it really is"
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x08\x1b")


def _head(path: Path, size: int = 8192) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(size)
    except OSError as exc:
        raise InputError(path, f"cannot read file: {exc.strerror or exc}") from None


def looks_binary(head: bytes) -> bool:
    """True when the first bytes of a file cannot be text in any encoding Docling reads (a NUL byte, or more than
    one percent of control characters other than white space), as ``git`` and ``file`` decide it; a UTF-8 or
    UTF-16 byte-order mark means text."""
    if head.startswith(_TEXT_BOMS):
        return False
    if b"\0" in head:
        return True
    controls = sum(1 for byte in head if byte < 32 and byte not in _TEXT_CONTROLS)
    return controls * 100 > len(head)


def _check_content(path: Path, suffix: str) -> None:
    """Refuse, before Docling runs, content that cannot be what the extension says: an empty file, an encrypted
    Office file, an Office file that is no zip, a PDF without its header, binary data named ``.html`` or ``.md``
    (Docling's HTML parser would replace every undecodable byte and report success)."""
    head = _head(path)
    if not head:
        raise InputError(path, EMPTY_FILE, "re-export or re-download the file")
    fmt = CONVERT_SUFFIXES[suffix]
    name = _FORMAT_NAMES.get(fmt, fmt.upper())
    if suffix in _OOXML_SUFFIXES:
        if head.startswith(_OLE_MAGIC):
            # An encrypted .docx/.xlsx/.pptx is an OLE compound file holding the encrypted package, not a zip.
            raise InputError(
                path, "file is password-protected (encrypted Office file)", "save an unprotected copy and retry"
            )
        if not head.startswith(b"PK"):
            raise InputError(
                path, f"not a {name} file: it is no zip archive, which every {suffix} is", _WRONG_CONTENT_FIX
            )
    elif fmt == "pdf" and b"%PDF-" not in head[:1024]:
        raise InputError(path, "not a PDF file: it has no %PDF- header", _WRONG_CONTENT_FIX)
    elif fmt in ("html", "md") and looks_binary(head):
        article = "an" if name[0] in "AEHIOU" else "a"  # "an HTML", "a Markdown"
        raise InputError(
            path, f"not {article} {name} file: it holds binary data, and {name} is text", _WRONG_CONTENT_FIX
        )


def convert_path(path: str | Path) -> DoclingDocument:
    """Return the ``DoclingDocument`` for ``path``: loaded when it is DoclingDocument JSON, converted otherwise.

    Raises:
        InputError: missing or unsupported file, corrupt JSON, Docling not installed, a conversion failure
            (truncated, password-protected) or a PDF without Docling's models.
    """
    path = Path(path)
    kind = path_kind(path)
    if kind == "dir":
        raise InputError(
            path,
            "is a folder, not a file",
            "this takes one file; for a folder's documents use iter_input_files(folder) or `docling-evidence chunk "
            "FOLDER`",
        )
    if kind != "file":
        raise _not_a_file(path, kind, "no such file")
    suffix = path.suffix.lower()
    if suffix in DOCLING_JSON_SUFFIXES:
        return load_docling_json(path)
    if suffix not in CONVERT_SUFFIXES:
        raise InputError(
            path,
            f"unsupported file type {suffix or '(no extension)'!r}",
            f"give a DoclingDocument .json or one of {_supported_list()}",
        )
    _check_content(path, suffix)
    if importlib.util.find_spec("docling") is None:
        fix = PDF_INSTALL_HINT if suffix == ".pdf" else CONVERT_INSTALL_HINT
        raise InputError(path, "Docling is not installed", fix)
    try:
        converter = _document_converter()
    except ImportError as exc:
        # docling-slim's DocumentConverter module imports torch (through its ASR pipeline) even for HTML; without
        # torch, the non-PDF formats still convert through their declarative backends directly.
        if suffix == ".pdf":
            raise _conversion_failure(path, exc) from None
        return _convert_with_backend(path, CONVERT_SUFFIXES[suffix])
    try:
        result = converter.convert(path, raises_on_error=True)
    except Exception as exc:  # Docling raises ConversionError, ImportError, hub errors, zipfile errors...
        raise _conversion_failure(path, exc) from None
    errors = getattr(result, "errors", None) or []
    status = str(getattr(result.status, "value", result.status))
    if status not in {"success", "partial_success"}:
        detail = "; ".join(getattr(e, "error_message", str(e)) for e in errors) or status
        raise _conversion_failure(path, RuntimeError(detail))
    return result.document
