"""Data kept inside a zip archive, read in memory: GPQA's authors ship it password-protected
so that its questions are never stored in plain text, and they never are here either."""

from __future__ import annotations

import zipfile
from pathlib import Path

from thinkeval.errors import DatasetError
from thinkeval.inputs import open_regular, reason


def zip_member_text(path: Path, data_dir: Path, member: str, password: str | None) -> str:
    """The UTF-8 text of `member` of the zip at `path`, decrypted with `password`."""
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        raise DatasetError(
            f"{path}: file not found (data dir {data_dir}; expected"
            f" {path.relative_to(data_dir)} inside it)"
        ) from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({reason(exc)})") from None
    try:
        with handle, zipfile.ZipFile(handle) as archive:
            data = archive.read(member, pwd=password.encode() if password else None)
    except KeyError:
        raise DatasetError(f"{path}: the archive has no member {member!r}") from None
    except RuntimeError as exc:  # a wrong or missing password
        raise DatasetError(f"{path}: cannot decrypt {member!r} ({exc})") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise DatasetError(f"{path}: not a readable zip archive ({exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path} member {member}: not valid UTF-8 ({exc.reason})") from None
