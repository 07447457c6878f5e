"""Finding a dataset's original file: cache, then local mirror, then download; and its checksum.

Lookup order for the original (``.gz`` as distributed, or uncompressed):

1. the cache folder: ``$APSP_DATA_CACHE``, default ``pooch.os_cache("apsp_kernels")`` (e.g.
   ``~/.cache/apsp_kernels``; ``make`` in a checkout sets ``data/cache``);
2. the mirror folder ``$APSP_DATA_MIRROR`` (a read-only folder of originals, e.g.
   ``/work/shared/data/raw``), only when set;
3. a download into the cache with ``pooch``, unless ``APSP_DATA_OFFLINE=1``, and, while a mirror
   is set, only with ``APSP_DATA_DOWNLOAD=1`` (a mirror says "the originals are here": what it
   lacks is stood in for at once instead of a slow or failing download).

Nothing found -> :class:`DatasetUnavailable` saying where to put the file.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..errors import ChecksumError, DatasetUnavailable
from .registry import Dataset

ENV_CACHE = "APSP_DATA_CACHE"
ENV_MIRROR = "APSP_DATA_MIRROR"
ENV_OFFLINE = "APSP_DATA_OFFLINE"
ENV_DOWNLOAD = "APSP_DATA_DOWNLOAD"
DOWNLOAD_TIMEOUT_S = (10, 60)     # (connect, read): fail fast on a host without network
_TRUE = ("1", "true", "yes", "on")


def default_cache_dir() -> Path:
    """The user's cache folder for this package (pooch's rule: ``$XDG_CACHE_HOME`` or ``~/.cache`` on
    Linux), never a folder beside the code."""
    try:
        import pooch
    except ImportError:
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "apsp_kernels"
    return Path(pooch.os_cache("apsp_kernels"))


def cache_dir() -> Path:
    """Where downloads and parsed ``.npz`` files go."""
    env = os.environ.get(ENV_CACHE)
    return Path(env).expanduser() if env else default_cache_dir()


def mirror_dir() -> Path | None:
    """The local folder of original files (``$APSP_DATA_MIRROR``), or None when it is unset."""
    env = os.environ.get(ENV_MIRROR)
    return Path(env).expanduser() if env else None


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in _TRUE


def offline() -> bool:
    return _flag(ENV_OFFLINE)


def no_download_reason() -> str | None:
    """Why a dataset missing from the cache and the mirror is not downloaded, or None when it is."""
    if offline():
        return f"downloads are off ({ENV_OFFLINE}={os.environ[ENV_OFFLINE]})"
    if mirror_dir() is not None and not _flag(ENV_DOWNLOAD):
        return (f"downloads are off while a mirror is set ({ENV_MIRROR}; "
                f"`export {ENV_DOWNLOAD}=1` downloads what it lacks)")
    return None


def find_local(ds: Dataset) -> Path | None:
    """The original file in the cache or the mirror (``X.gz`` or ``X``); never downloads."""
    for folder in (cache_dir(), mirror_dir()):
        if folder is None:
            continue
        for file_name in ds.file_names:
            path = folder / file_name
            if path.is_file():
                return path
    return None


def download(ds: Dataset, folder: Path) -> Path:
    """Download the original into ``folder`` with pooch; raises on any failure."""
    try:
        import pooch
    except ImportError as err:
        raise RuntimeError("pooch is not installed (pip install pooch)") from err
    downloader = pooch.HTTPDownloader(progressbar=False, timeout=DOWNLOAD_TIMEOUT_S)
    return Path(pooch.retrieve(ds.url, known_hash=None, fname=ds.file, path=folder,
                               downloader=downloader))


def locate(ds: Dataset) -> tuple[Path, bool]:
    """``(path, downloaded_now)`` of the original, or :class:`DatasetUnavailable`."""
    path = find_local(ds)
    if path is not None:
        return path, False
    reason = no_download_reason()
    if reason is None:
        try:
            return download(ds, cache_dir()), True
        except Exception as err:  # no network, HTTP error, pooch missing: all mean "not here"
            reason = f"the download failed ({type(err).__name__}: {err})"
    raise DatasetUnavailable(unavailable_message(ds, reason))


def unavailable_message(ds: Dataset, reason: str) -> str:
    mirror = mirror_dir()
    if mirror is None:
        mirror_part = f"{ENV_MIRROR} is not set"
    elif not mirror.is_dir():
        mirror_part = f"the mirror folder {mirror} ({ENV_MIRROR}) does not exist"
    else:
        mirror_part = f"it is not in the mirror {mirror} ({ENV_MIRROR})"
    names = " or ".join(ds.file_names)
    return (f"dataset {ds.full_name} ({ds.name}) is not available: it is not in the cache "
            f"{cache_dir()}, {mirror_part}, and {reason}. Get {ds.url} and put it ({names}) "
            f"in a folder named by `export {ENV_MIRROR}=/path/to/originals`, or in {cache_dir()}.")


def content_sha256(data: bytes) -> str:
    """sha256 of uncompressed content with CRLF line endings normalised to LF.

    Equal to the plain sha256 for LF files; SNAP's own downloads may use CRLF.
    """
    if b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    return hashlib.sha256(data).hexdigest()


def verify_checksum(ds: Dataset, path: Path, data: bytes, *, remove_on_mismatch=False) -> str:
    """Check ``data`` (the uncompressed content of ``path``) against the registry.

    Returns the content sha256; a mismatch raises :class:`ChecksumError` (and deletes the
    file when ``remove_on_mismatch``, for a fresh download).
    """
    actual = content_sha256(data)
    if ds.sha256 and actual != ds.sha256:
        if remove_on_mismatch:
            path.unlink(missing_ok=True)
        advice = ("the download was deleted; try again" if remove_on_mismatch
                  else "replace or delete the file")
        raise ChecksumError(f"{path}: the uncompressed content of {ds.full_name} does not match the "
                            f"registry: expected sha256 {ds.sha256}, got {actual}; {advice}")
    return actual
