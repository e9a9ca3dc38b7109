"""What a path is, without the exceptions ``Path.is_file()`` and friends raise for paths the OS refuses to examine."""

from __future__ import annotations

import errno
import stat
from pathlib import Path
from typing import Literal


def path_kind(path: Path) -> Literal["dir", "file", "other", "missing"] | OSError:
    """What ``path`` is (symlinks followed), or the OS's error when it cannot be examined (a name too long, a folder
    without search permission): ``Path.is_file()`` and friends raise those instead of answering."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "other"
        return exc
    except ValueError as exc:  # an embedded NUL character
        return OSError(errno.EINVAL, str(exc))
    return "dir" if stat.S_ISDIR(mode) else "file" if stat.S_ISREG(mode) else "other"
