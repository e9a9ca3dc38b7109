"""Write an output file so that it appears complete or not at all, and never damages anything else.

Every file the package writes (the CLI's chunks and inspector reports, the benchmark's results, reports and plots)
goes through this module:

```python
from docling_evidence.cli.safe_write import open_output, write_text, write_json, output_problem

if problem := output_problem("out.jsonl", inputs=files):   # check early, before any heavy work
    ...                                                   # one line naming the path and the fix
with open_output("out.jsonl", inputs=files) as stream:     # "-" is stdout
    stream.write(...)                                     # an exception here leaves the old file untouched
write_json("results.json", obj)
```

The rules, one place for all of them:

- **Atomic**: a regular file (or a new one) is written to a hidden temp file in the same folder
  (``.NAME.XXXX.tmp``), flushed to disk, then renamed over the target. On any exception (including
  ``KeyboardInterrupt`` and a ``SIGTERM`` the caller turns into an exception) the temp file is removed and the
  previous file is untouched. Only ``SIGKILL`` or a power cut can leave the hidden temp file behind, and even then the
  target holds the previous complete version.
- **Permissions**: a new file gets ``0666 & ~umask``, like any file a shell redirection creates (``mkstemp``'s 0600 is
  not kept); a file that is replaced keeps its permission bits.
- **Never over an input**: ``inputs`` names the files being read; an output that is the same file (same inode,
  through any symlink or hard link) is refused.
- **Symlinks are written through, never replaced**: the link's final target is written (atomically, the temp file
  beside the target) and the link itself stays, as with ``>`` in a shell. A link to a folder, into a missing
  folder or in a loop is refused.
- **Not a regular file** (a FIFO, a character device such as ``/dev/null``): written directly, in place, because
  renaming over it would replace the device or pipe with a regular file. Nothing atomic is possible there.
- ``-`` is standard output (text or bytes); it is flushed, never closed.
- **A stream this process already holds** (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``) is
  opened again and appended to, never replaced: ``-o /dev/stdout >> log.jsonl`` appends to the log, and through a
  pipe it is written like ``-``. (Resolving such a link would name the shell's file, and replacing that file would
  drop what it held.)

Every refusal raises :class:`OutputError` (a ``ValueError``) whose message is one line naming the path and the fix;
:func:`output_problem` returns the same line without raising. A failure while writing (disk full) is the
``OSError`` itself, after the cleanup.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from docling_evidence.document.paths import path_kind

STDOUT = "-"
"""The output path meaning standard output."""


class OutputError(ValueError):
    """An output path that must not or cannot be written; ``str(error)`` is one line naming the path and the fix."""

    def __init__(self, path: str | Path, problem: str, fix: str | None = None) -> None:
        self.path = str(path)
        self.problem = problem
        self.fix = fix
        message = f"cannot write {self.path}: {problem}" + (f" ({fix})" if fix else "")
        super().__init__(" ".join(message.split()))


class DiscardOutput(Exception):
    """Raise inside :func:`open_output` to drop what was written and leave the target untouched (not re-raised)."""


def _file_id(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _input_ids(inputs: Iterable[str | Path]) -> set[tuple[int, int]]:
    return {fid for p in inputs if (fid := _file_id(p)) is not None}


_FD_PATH = re.compile(r"/dev/(?:stdout|stderr|fd/\d+)|/proc/(?:self|thread-self|\d+)/fd/\d+")


def is_stream_path(path: str | Path) -> bool:
    """Whether ``path`` names a file descriptor this process holds (``/dev/stdout``, ``/dev/fd/3`` ...)."""
    return _FD_PATH.fullmatch(os.path.normpath(str(path))) is not None


def _resolve(path: Path) -> tuple[Path, os.stat_result | None]:
    """The path to write (a symlink's final target, else ``path``) and its stat, or None when it does not exist.

    Raises:
        OutputError: a symlink loop or a path that cannot be examined (a name too long, a folder without access).
    """
    try:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        return target, os.stat(target)
    except FileNotFoundError:
        return target, None
    except (OSError, ValueError) as exc:  # ELOOP, ENAMETOOLONG, EACCES on a parent folder, a NUL character
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise OutputError(path, reason, "choose another output path") from None


def _lexists(path: Path) -> bool:
    try:
        os.lstat(path)
    except (OSError, ValueError):
        return False
    return True


def _creatable(folder: Path) -> str | None:
    """Why the missing ``folder`` could not be created, or None: its nearest existing ancestor must be a writable
    folder, and no missing component may be a dangling symlink."""
    probe = folder
    while not _lexists(probe):
        if probe.parent == probe:
            return f"folder {folder} cannot be created"
        probe = probe.parent
    kind = path_kind(probe)
    if probe != folder and kind != "dir":
        what = "a dangling symlink" if kind == "missing" else "not a folder"
        return f"folder {folder} cannot be created: {probe} is {what}"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"folder {folder} cannot be created: {probe} is not writable"
    return None


def check_output(path: str | Path, inputs: Iterable[str | Path] = (), parents: bool = False) -> Path | None:
    """Check that ``path`` may be written; return the path that will be written (symlinks resolved), None for stdout.

    Args:
        path: the output path, or ``"-"`` for standard output.
        inputs: the files being read; writing over any of them is refused.
        parents: whether a missing parent folder will be created (else it is an error).

    Raises:
        OutputError: the path is an input, a folder, in a missing or unwritable folder, or cannot be examined.
    """
    if str(path) == STDOUT:
        return None
    path = Path(path)
    if is_stream_path(path):
        fid = _file_id(path)
        if fid is None:
            return _raise(path, "no such open file descriptor", "use '-' for standard output")
        if fid in _input_ids(inputs):
            return _raise(path, "it is one of the inputs", "give a different output file; inputs are never overwritten")
        return path
    target, st = _resolve(path)
    if st is not None:
        if (st.st_dev, st.st_ino) in _input_ids(inputs):
            return _raise(path, "it is one of the inputs", "give a different output file; inputs are never overwritten")
        if stat.S_ISDIR(st.st_mode):
            return _raise(path, "it is a folder", f"give a file name, e.g. {path / 'output'}")
        if not stat.S_ISREG(st.st_mode):
            return target  # FIFO, device: written directly, its folder needs no temp file
    folder = target.parent
    kind = path_kind(folder)
    if kind != "dir":
        missing = not _lexists(folder)
        if parents and missing:
            if problem := _creatable(folder):
                return _raise(path, problem, "choose another output folder")
            return target
        what = "does not exist" if missing else "is a dangling symlink" if kind == "missing" else "is not a folder"
        return _raise(path, f"folder {folder} {what}", "create it first" if missing else None)
    if not os.access(folder, os.W_OK | os.X_OK):
        return _raise(path, f"folder {folder} is not writable", "choose a writable location")
    return target


def _raise(path: Path, problem: str, fix: str | None) -> Path:
    raise OutputError(path, problem, fix)


def output_problem(path: str | Path, inputs: Iterable[str | Path] = (), parents: bool = False) -> str | None:
    """The one-line reason ``path`` cannot be written (see :func:`check_output`), or None when it can."""
    try:
        check_output(path, inputs, parents)
    except OutputError as exc:
        return str(exc)
    return None


def current_umask() -> int:
    """The process umask (read without changing it where the OS allows)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)  # no way to read it without setting it: restore at once
    os.umask(mask)
    return mask


@contextlib.contextmanager
def open_output(
    path: str | Path,
    *,
    binary: bool = False,
    inputs: Iterable[str | Path] = (),
    parents: bool = False,
    encoding: str = "utf-8",
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing under the rules of this module; yields a text (or binary) stream.

    On leaving the block normally the file is complete at ``path``; on an exception nothing at ``path`` has changed
    (a regular file) and the exception propagates, except :class:`DiscardOutput`, which is swallowed.

    Args:
        path: output file, or ``"-"`` for standard output.
        binary: yield a binary stream instead of a text one.
        inputs: files being read; ``path`` must not be one of them.
        parents: create missing parent folders.
        encoding: text encoding (text mode).

    Raises:
        OutputError: the path may not be written (see :func:`check_output`); checked before anything is opened.
        OSError: writing failed (disk full, permission denied): the previous file is untouched, the temp file gone.
    """
    target = check_output(path, inputs, parents)
    if target is None:
        stream: IO[Any] = sys.stdout.buffer if binary else sys.stdout
        with contextlib.suppress(DiscardOutput):
            yield stream
        stream.flush()
        return
    if is_stream_path(target):
        stream_out = open(target, "ab" if binary else "a", encoding=None if binary else encoding)  # noqa: SIM115
        with stream_out, contextlib.suppress(DiscardOutput):
            yield stream_out
        return
    if parents:
        target.parent.mkdir(parents=True, exist_ok=True)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        direct = open(target, "wb" if binary else "w", encoding=None if binary else encoding)  # noqa: SIM115
        with direct, contextlib.suppress(DiscardOutput):
            yield direct
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~current_umask())
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except DiscardOutput:
        _unlink(tmp)
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)


def write_text(path: str | Path, text: str, **kwargs: Any) -> Path:
    """Write ``text`` to ``path`` with :func:`open_output` (same keyword arguments); returns ``Path(path)``."""
    with open_output(path, **kwargs) as out:
        out.write(text)
    return Path(path)


def write_bytes(path: str | Path, data: bytes, **kwargs: Any) -> Path:
    """Write ``data`` to ``path`` with :func:`open_output` (same keyword arguments); returns ``Path(path)``."""
    with open_output(path, binary=True, **kwargs) as out:
        out.write(data)
    return Path(path)


def write_json(path: str | Path, obj: Any, *, indent: int | None = None, compact: bool = False, **kwargs: Any) -> Path:
    """Write ``obj`` as UTF-8 JSON plus a final newline with :func:`open_output`; returns ``Path(path)``.

    ``compact`` drops the spaces after separators (``(",", ":")``), for large machine-read files.
    """
    separators = (",", ":") if compact else None
    text = json.dumps(obj, ensure_ascii=False, indent=indent, separators=separators) + "\n"
    return write_text(path, text, **kwargs)
