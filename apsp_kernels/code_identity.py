"""The code that measured a run's records, by content: what ``reproduce --resume`` compares.

Every record names the commit that measured it (``git_commit``). A paper-profile run that goes
on over several device calls, or sessions, may see the checkout's commit move on in between
(results, docs or another notebook's driver committed): what the unfinished run measured is
still reusable when the code it ran is unchanged. So each save of records also writes
``code.json`` into the run's folder: every file of the package that the notebook's process had
loaded by then, every CUDA source of the package, and the notebook, each with its SHA-256;
:func:`changed` names those whose content differs now. The kept records still carry the
commit that measured them.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from .records import read_json, write_json

FILE = "code.json"
PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def loaded_files(package: Path = PACKAGE) -> list[Path]:
    """The package's modules loaded in this process, and every ``.cu`` file of the package
    (kernels are read from their files when first launched)."""
    found = set(package.rglob("*.cu"))
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if file and file.endswith(".py"):
            path = Path(file).resolve()
            if package in path.parents:
                found.add(path)
    return sorted(found)


def read(out_dir) -> dict:
    """``code.json`` of a run's folder: {"files": {path relative to the checkout: sha256}}, or {}."""
    return read_json(Path(out_dir) / FILE)


def record(out_dir, extra=(), loaded: bool = True, root: Path = ROOT) -> dict:
    """Add to ``out_dir/code.json`` the files this process ran (``loaded``: its package modules
    and the kernels) and ``extra`` (the notebook); what was listed before stays listed."""
    files = dict(read(out_dir).get("files", {}))
    for path in [*(loaded_files() if loaded else ()), *map(Path, extra)]:
        path = path.resolve()
        files[(path.relative_to(root) if root in path.parents else path).as_posix()] = digest(path)
    data = {"files": dict(sorted(files.items()))}
    write_json(Path(out_dir) / FILE, data)
    return data


def changed(saved: dict, root: Path = ROOT) -> list[str]:
    """The files of ``saved`` (what :func:`read` gave) whose content differs now or that are gone;
    every file for a ``saved`` that lists none (nothing can be shown unchanged)."""
    files = saved.get("files") or {}
    if not files:
        return ["(no code.json)"]
    return [rel for rel, sha in files.items() if not (root / rel).is_file() or digest(root / rel) != sha]
