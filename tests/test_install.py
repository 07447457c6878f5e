"""The install smoke test (apsp_kernels.install_check) in process, and what a wheel must carry.
``make check-wheel`` runs the same checks from a fresh virtualenv holding only the built wheel."""
from importlib import metadata
from pathlib import Path

import pytest

import apsp_kernels
from apsp_kernels import install_check
from apsp_kernels.datasets import fetch

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(apsp_kernels.__file__).resolve().parent


def test_every_check_passes_with_a_generated_mirror(monkeypatch, capsys):
    monkeypatch.delenv(fetch.ENV_MIRROR, raising=False)
    assert install_check.main([]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "install-check-tiny loaded from the mirror" in out and "4 of 4 checks passed" in out


def test_a_failing_check_is_reported_and_fails_the_run(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv(fetch.ENV_MIRROR, str(tmp_path))  # a mirror without p2p-Gnutella04
    assert install_check.main([]) == 1
    out = capsys.readouterr().out
    assert "FAIL check_dataset_load: DatasetUnavailable" in out and "3 of 4 checks passed" in out


def test_a_copy_imported_from_the_checkout_is_refused_when_asked():
    if not (PACKAGE.parent / "pyproject.toml").is_file():
        pytest.skip("apsp_kernels is installed here, not imported from the checkout")
    with pytest.raises(AssertionError, match="imported from the checkout"):
        install_check.check_outside_checkout()


def test_the_backend_is_found_here():
    assert install_check.backend_problem() is None


def test_without_the_entry_point_the_message_names_the_way_out(monkeypatch):
    monkeypatch.setattr(metadata, "entry_points", lambda group: [])
    monkeypatch.setattr(install_check, "installed", lambda: False)
    problem = install_check.backend_problem()
    assert "only importable" in problem and "make wheel" in problem and "pip install -e ." in problem
    monkeypatch.setattr(install_check, "installed", lambda: True)
    monkeypatch.setattr(metadata, "version", lambda name: "9.9")
    assert "apsp_kernels 9.9 is installed without its 'networkx.backends' entry point" in \
        install_check.backend_problem()


def test_pyproject_ships_every_data_file():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = config.get("apsp_kernels", []) + config.get("*", [])
    data = {p for p in (PACKAGE / "data").rglob("*") if p.is_file()}
    assert {PACKAGE / "data" / "datasets.csv", PACKAGE / "data" / "published" / "transcriptions.csv"} <= data
    shipped = {p for pattern in patterns for p in PACKAGE.glob(pattern)}  # setuptools' globs, from the package
    unshipped = sorted(str(p.relative_to(PACKAGE)) for p in data - shipped)
    assert not unshipped, f"package data not in pyproject's package-data: {unshipped}"
