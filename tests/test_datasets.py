"""Dataset registry, lookup (cache -> mirror -> download), checksums, the parsed cache, and what
a notebook run loads.

Each test gets its own empty cache and mirror (env APSP_DATA_CACHE / APSP_DATA_MIRROR)
and a downloader that fails, so no test touches the network. With a mirror set, downloads
need APSP_DATA_DOWNLOAD=1 (``downloads_on``).
"""
import dataclasses
import gzip
import hashlib
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import apsp_kernels
from apsp_kernels import datasets, reproduce
from apsp_kernels.datasets import cache, fetch, needs, registry
from apsp_kernels.errors import ChecksumError, DatasetUnavailable, InputError

RAW = Path("/work/shared/data/raw")
TINY_GR = "c tiny\np sp 3 4\na 1 2 5\na 2 1 5\na 2 3 1\na 3 1 2\n"
TINY_SNAP = "# Nodes: 3 Edges: 3\n0\t1\n1\t2\n2\t0\n"

# bodra Table 1 (DIMACS) and Tables 2-3 (SNAP): nodes, arcs
PAPER_COUNTS = {
    "NY": (264_346, 733_846), "BAY": (321_270, 800_172), "COL": (435_666, 1_057_066),
    "FLA": (1_070_376, 2_712_798), "NE": (1_524_453, 3_897_636), "E": (3_598_623, 8_778_114),
    "gnutella04": (10_876, 39_994), "gnutella25": (22_687, 54_705), "gnutella30": (36_682, 88_328),
}


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Private cache and mirror folders; downloads always fail."""
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv(fetch.ENV_CACHE, str(tmp_path / "cache"))
    monkeypatch.setenv(fetch.ENV_MIRROR, str(tmp_path / "mirror"))
    monkeypatch.delenv(fetch.ENV_OFFLINE, raising=False)
    monkeypatch.delenv(fetch.ENV_DOWNLOAD, raising=False)

    def no_network(ds, folder):
        raise ConnectionError("network is unreachable (test)")

    monkeypatch.setattr(fetch, "download", no_network)
    return tmp_path


@pytest.fixture
def downloads_on(monkeypatch):
    """Downloads allowed although a mirror is set (APSP_DATA_DOWNLOAD=1)."""
    monkeypatch.setenv(fetch.ENV_DOWNLOAD, "1")


def fail_if_downloaded(monkeypatch):
    monkeypatch.setattr(fetch, "download", lambda ds, folder: pytest.fail(f"{ds.name} downloaded"))


def fake_dataset(text=TINY_GR, fmt="dimacs", name="tiny", nodes=3, arcs=4, sha256="auto"):
    suffix = ".gr.gz" if fmt == "dimacs" else ".txt.gz"
    return registry.Dataset(
        name=name, full_name=f"test-{name}", aliases=(), format=fmt, nodes=nodes, arcs=arcs,
        unique_arcs=None, sha256=hashlib.sha256(text.encode()).hexdigest() if sha256 == "auto" else sha256,
        file=f"{name}{suffix}", url=f"http://example.invalid/{name}{suffix}", used_by="tests")


def put(folder: Path, ds, text=TINY_GR, compressed=True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if compressed:
        path = folder / ds.file
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path = folder / ds.file.removesuffix(".gz")
        path.write_text(text)
    return path


# ---------------------------------------------------------------- registry
def test_registry_lists_the_papers_datasets():
    assert datasets.names() == list(PAPER_COUNTS)
    for name, (nodes, arcs) in PAPER_COUNTS.items():
        ds = datasets.get(name)
        assert (ds.nodes, ds.arcs) == (nodes, arcs)
        assert ds.url.endswith("/" + ds.file)
        if ds.format == "dimacs":
            assert ds.url == ("http://www.diag.uniroma1.it/challenge9/data/USA-road-d/"
                              f"USA-road-d.{name}.gr.gz")
        else:
            assert ds.url == f"https://snap.stanford.edu/data/{ds.full_name}.txt.gz"
        known = name not in ("COL", "FLA", "NE", "E")
        assert (ds.sha256 is not None) == known
        if known:
            assert len(ds.sha256) == 64 and ds.unique_arcs <= ds.arcs


def test_registry_checksums_agree_with_sources_md():
    sources = RAW / "SOURCES.md"
    if not sources.is_file():
        pytest.skip(f"{sources} not present")
    text = sources.read_text()
    for ds in registry.table():
        if ds.sha256:
            assert ds.sha256 in text, ds.name


def test_the_tables_are_package_data():
    package = Path(apsp_kernels.__file__).resolve().parent
    assert Path(str(registry.TABLE_PATH)).resolve().parent == package / "data"
    assert len(registry.table()) == len(PAPER_COUNTS)


def test_lookup_by_short_full_name_and_alias():
    assert datasets.get("USA-road-d.NY") is datasets.get("ny") is datasets.get("nyc")
    assert datasets.get("p2p-Gnutella04").name == "gnutella04"
    with pytest.raises(InputError, match="unknown dataset 'XY'.*NY, BAY"):
        datasets.get("XY")


def test_info_reports_registry_row_and_location(isolated):
    ds = fake_dataset()
    put(isolated / "mirror", ds)
    info = datasets.info(ds)
    assert info["available"] and info["path"].endswith(ds.file)
    assert info["url"] == ds.url and info["cache_dir"] == str(isolated / "cache")
    assert datasets.info("COL")["available"] is False


# ------------------------------------------------------------------ lookup
@pytest.mark.parametrize("compressed", [True, False])
def test_load_from_mirror_gz_or_uncompressed(isolated, compressed):
    ds = fake_dataset()
    path = put(isolated / "mirror", ds, compressed=compressed)
    assert datasets.available(ds)
    g = datasets.load(ds)
    assert g.name == "tiny" and g.n == 3 and g.m == 4 and g.dtype == np.int32
    assert g.meta["source"] == str(path) and g.meta["url"] == ds.url
    assert g.meta["stand_in"] is False and g.meta["sha256"] == ds.sha256


def test_cache_is_searched_before_mirror(isolated):
    ds = fake_dataset()
    put(isolated / "mirror", ds)
    cached = put(isolated / "cache", ds)
    assert fetch.find_local(ds) == cached


def test_missing_and_offline_raises_with_url_and_where_to_put_it(isolated, downloads_on):
    ds = fake_dataset()
    assert not datasets.available(ds)
    with pytest.raises(DatasetUnavailable) as err:
        datasets.load(ds)
    message = str(err.value)
    for words in (ds.url, ds.full_name, "APSP_DATA_MIRROR", str(isolated / "cache"), "download failed"):
        assert words in message


def test_offline_switch_skips_the_download(isolated, monkeypatch):
    monkeypatch.setenv(fetch.ENV_OFFLINE, "1")
    monkeypatch.setattr(fetch, "download", lambda ds, folder: pytest.fail("downloaded"))
    with pytest.raises(DatasetUnavailable, match="downloads are off"):
        datasets.load(fake_dataset())


def test_offline_wins_over_the_download_switch(isolated, downloads_on, monkeypatch):
    monkeypatch.setenv(fetch.ENV_OFFLINE, "1")
    fail_if_downloaded(monkeypatch)
    with pytest.raises(DatasetUnavailable, match="downloads are off"):
        datasets.load(fake_dataset())


def test_a_mirror_s_gap_is_not_downloaded_unless_asked(isolated, monkeypatch):
    fail_if_downloaded(monkeypatch)
    with pytest.raises(DatasetUnavailable, match=f"downloads are off while a mirror is set.*{fetch.ENV_DOWNLOAD}=1"):
        datasets.load(fake_dataset())


def test_without_a_mirror_a_missing_dataset_is_downloaded(isolated, monkeypatch):
    monkeypatch.delenv(fetch.ENV_MIRROR)
    ds = fake_dataset()
    monkeypatch.setattr(fetch, "download", lambda ds, folder: put(folder, ds))
    assert fetch.no_download_reason() is None and datasets.load(ds).m == 4


def test_no_mirror_unless_one_is_named(isolated, monkeypatch):
    monkeypatch.delenv(fetch.ENV_MIRROR)
    assert fetch.mirror_dir() is None  # not even the checkout's .data_mirror/, present or not


def test_the_default_cache_is_the_user_s_not_the_checkout_s(monkeypatch, tmp_path):
    monkeypatch.delenv(fetch.ENV_CACHE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fetch.cache_dir() == tmp_path / "xdg" / "apsp_kernels"
    monkeypatch.setenv(fetch.ENV_CACHE, "~/elsewhere")
    assert fetch.cache_dir() == Path.home() / "elsewhere"


def test_download_lands_in_the_cache(isolated, downloads_on, monkeypatch):
    ds = fake_dataset()
    monkeypatch.setattr(fetch, "download", lambda ds, folder: put(folder, ds))
    g = datasets.load(ds)
    assert g.m == 4 and Path(g.meta["source"]).parent == isolated / "cache"
    assert datasets.available(ds)


def test_bad_download_is_deleted(isolated, downloads_on, monkeypatch):
    ds = fake_dataset(sha256="0" * 64)
    monkeypatch.setattr(fetch, "download", lambda ds, folder: put(folder, ds))
    with pytest.raises(ChecksumError, match="deleted"):
        datasets.load(ds)
    assert not datasets.available(ds)


# --------------------------------------------------------------- checksums
def test_checksum_mismatch_names_file_expected_and_actual(isolated):
    ds = fake_dataset()
    path = put(isolated / "mirror", ds, text=TINY_GR.replace("a 3 1 2", "a 3 1 3"))
    with pytest.raises(ChecksumError) as err:
        datasets.load(ds)
    message = str(err.value)
    assert str(path) in message and ds.sha256 in message
    assert hashlib.sha256(path.read_bytes()).hexdigest() not in message   # the .gz hash is not it
    assert fetch.content_sha256(gzip.decompress(path.read_bytes())) in message
    assert path.exists()                                     # a mirror file is never deleted


def test_crlf_copies_have_the_same_content_checksum(isolated):
    ds = fake_dataset()
    put(isolated / "mirror", ds, text=TINY_GR.replace("\n", "\r\n"))
    assert datasets.load(ds).m == 4


def test_unknown_checksum_still_checks_counts(isolated):
    ds = fake_dataset(sha256=None, arcs=5)
    put(isolated / "mirror", ds)
    with pytest.raises(ChecksumError, match="3 nodes and 4 arcs.*3 and 5"):
        datasets.load(ds)


# ------------------------------------------------------------ parsed cache
def test_second_load_reads_the_parsed_cache(isolated, monkeypatch):
    ds = fake_dataset()
    source = put(isolated / "mirror", ds)
    first = datasets.load(ds)
    entry = cache.parsed_path(ds, 0)
    assert entry.is_file()
    with monkeypatch.context() as patched:
        patched.setattr(datasets, "read_bytes", lambda path: pytest.fail("parsed again"))
        again = datasets.load(ds)
    assert again.meta == first.meta and again.name == first.name
    for attr in ("indptr", "indices", "weights"):
        assert np.array_equal(getattr(again, attr), getattr(first, attr))
    # a changed original invalidates the entry (and is verified again)
    source.write_bytes(gzip.compress(TINY_GR.replace("a 3 1 2", "a 3 1 3").encode()))
    os.utime(source, ns=(0, 10**9))
    with pytest.raises(ChecksumError):
        datasets.load(ds)


def test_parsed_cache_is_keyed_by_weight_seed(isolated):
    ds = fake_dataset(TINY_SNAP, fmt="snap", arcs=3)
    put(isolated / "mirror", ds, text=TINY_SNAP)
    graphs = {seed: datasets.load(ds, weight_seed=seed) for seed in range(4)}
    assert len({cache.parsed_path(ds, s) for s in graphs}) == 4
    assert all(p.is_file() for p in (cache.parsed_path(ds, s) for s in graphs))
    assert len({tuple(g.weights) for g in graphs.values()}) > 1
    assert np.array_equal(datasets.load(ds, weight_seed=2).weights, graphs[2].weights)
    assert graphs[1].meta["weight_seed"] == 1


def test_failed_cache_write_leaves_nothing(isolated, monkeypatch):
    ds = fake_dataset()
    put(isolated / "mirror", ds)

    def broken_savez(f, **arrays):
        f.write(b"half")
        raise RuntimeError("disk gone")

    monkeypatch.setattr(cache.np, "savez", broken_savez)
    with pytest.raises(RuntimeError, match="disk gone"):
        datasets.load(ds)
    parsed = isolated / "cache" / "parsed"
    assert not parsed.exists() or not any(parsed.iterdir())


def test_corrupt_cache_entry_is_parsed_again(isolated):
    ds = fake_dataset()
    put(isolated / "mirror", ds)
    datasets.load(ds)
    cache.parsed_path(ds, 0).write_bytes(b"not an npz")
    assert datasets.load(ds).m == 4


# --------------------------------------------------------------- stand-ins
@pytest.fixture
def stub_generators(monkeypatch):
    calls = []

    def road_like(n, m, seed=0, name=None, dtype=np.int32):
        calls.append((n, m, seed, name))
        return apsp_kernels.Graph.from_edges(n, [0], [1], [1], name=name or "road_like",
                                             meta={"generator": "road_like"})

    stub = types.ModuleType("apsp_kernels.generators")
    stub.road_like = road_like
    monkeypatch.setitem(sys.modules, "apsp_kernels.generators", stub)
    monkeypatch.setattr(apsp_kernels, "generators", stub, raising=False)
    return calls


def test_stand_in_is_labelled(stub_generators, monkeypatch):
    fail_if_downloaded(monkeypatch)  # the mirror lacks COL: stood in for at once, saying why
    with pytest.warns(UserWarning, match="stand-in for USA-road-d.COL.*downloads are off while a mirror is set"):
        g = datasets.load_or_stand_in("COL", seed=3)
    assert stub_generators == [(435_666, 1_057_066, 3, "COL")]
    assert g.is_stand_in and g.name == "COL" and g.meta["generator"] == "road_like"
    ds = datasets.get("COL")
    assert g.meta["label"] == f"stand-in for USA-road-d.COL (original not available offline: {ds.url})"


def test_no_stand_in_when_the_original_is_there(isolated, stub_generators):
    ds = fake_dataset()
    put(isolated / "mirror", ds)
    g = datasets.load_or_stand_in(ds)
    assert not g.is_stand_in and g.m == 4 and stub_generators == []


def test_checksum_errors_are_not_hidden_by_a_stand_in(isolated, stub_generators):
    ds = fake_dataset(sha256="0" * 64)
    put(isolated / "mirror", ds)
    with pytest.raises(ChecksumError):
        datasets.load_or_stand_in(ds)


def test_stand_in_with_the_real_generator(isolated):
    generators = pytest.importorskip("apsp_kernels.generators")
    if not hasattr(generators, "road_like"):
        pytest.skip("generators.road_like not written yet")
    ds = dataclasses.replace(fake_dataset(), nodes=400, arcs=1400)
    with pytest.warns(UserWarning):
        g = datasets.load_or_stand_in(ds, seed=1)
    assert g.is_stand_in and g.n == 400 and g.dtype == np.int32 and "stand-in" in g.meta["label"]


# ------------------------------------------------------- the real originals
@pytest.mark.parametrize("name", ["NY", "gnutella04"])
def test_real_originals_from_the_shared_mirror(monkeypatch, name):
    ds = datasets.get(name)
    if not (RAW / ds.file).is_file():
        pytest.skip(f"{RAW / ds.file} not present")
    monkeypatch.setenv(fetch.ENV_MIRROR, str(RAW))
    g = datasets.load(name)
    assert g.name == name and g.n == ds.nodes and g.meta["arcs_in_file"] == ds.arcs
    assert g.m == ds.unique_arcs and g.dtype == np.int32 and g.min_weight >= 1
    assert g.meta["sha256"] == ds.sha256 and g.meta["source"] == str(RAW / ds.file)
    if ds.weights_are_generated:
        assert g.max_weight <= 100
    assert datasets.load(name).m == g.m          # from the parsed cache


# ----------------------------------------------------- what a notebook run loads
@pytest.mark.parametrize("stem, profile, expected", [
    ("bodra", "default", ["NY", "BAY", "COL", "FLA", "gnutella04", "gnutella25", "gnutella30"]),  # NE, E skipped
    ("bodra", "paper", list(PAPER_COUNTS)),
    ("library", "default", ["NY", "gnutella04"]),
    ("library", "smoke", []),
    ("liu", "paper", []),
])
def test_a_notebook_needs_the_datasets_its_config_names(stem, profile, expected):
    assert needs.needed([stem], profile) == expected


def test_a_notebook_without_a_config_needs_every_dataset():
    assert needs.needed(["no_such_notebook"], "default") == list(PAPER_COUNTS)


def test_fetch_data_loads_what_the_notebooks_need_and_names_the_stand_ins_once(isolated, monkeypatch, capsys):
    fail_if_downloaded(monkeypatch)
    monkeypatch.setattr(fetch, "find_local", lambda ds: None)  # whatever the machine holds: all missing
    assert reproduce.fetch_data(["library", "liu"], "default") == 0
    out = capsys.readouterr().out
    assert "needs: NY, gnutella04" in out and "COL" not in out
    stood_in = [line for line in out.splitlines() if "stand in for" in line]
    assert len(stood_in) == 1 and "NY, gnutella04" in stood_in[0] and fetch.ENV_DOWNLOAD in stood_in[0]
    note = reproduce.data_note(["library"], "default")
    assert "NY, gnutella04" in note and "labelled stand-ins" in note


def test_fetch_data_downloads_when_asked(isolated, downloads_on, monkeypatch, capsys):
    tried = []

    def offline_download(ds, folder):
        tried.append(ds.name)
        raise ConnectionError("network is unreachable (test)")

    monkeypatch.setattr(fetch, "find_local", lambda ds: None)
    monkeypatch.setattr(fetch, "download", offline_download)
    assert reproduce.fetch_data(["library"], "default") == 0
    assert tried == ["NY", "gnutella04"] and "their downloads failed" in capsys.readouterr().out
    assert "download them into" in reproduce.data_note(["library"], "default")

