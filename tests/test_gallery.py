"""The results gallery renders a synthetic results tree."""
import json
import shutil

import pandas as pd

from apsp_kernels import gallery


def make_tree(results):
    ok = results / "01_fw"
    ok.mkdir(parents=True)
    (ok / "run.json").write_text(json.dumps({
        "title": "Accelerating FW", "status": "ok", "profile": "default",
        "device": "NVIDIA H100 80GB HBM3", "started": "2025-01-02T03:04:05+00:00", "seconds": 12.3}))
    pd.DataFrame({"graph": ["g04", "g|25"], "published_s": [2.377, 20.46],
                  "measured_s": [0.123456789, 1.5]}).to_csv(ok / "table_t3.csv", index=False)
    (ok / "table_t3.md").write_text("**Table 3: FW times**\n\nextrapolated rows are labelled\n")
    pd.DataFrame([{"claim": "tiled shared ~2x over tiled", "published": "2.0", "measured": "1.8",
                   "verdict": "holds", "note": "n=4096"}]).to_csv(ok / "verdicts.csv", index=False)
    (ok / "fig_speedup.png").write_bytes(b"\x89PNG fake")
    (ok / "01_fw.ipynb").write_text("{}")
    pd.DataFrame({"method": ["a", "b", "c", "d"], "verified": [True, False, False, True],
                  "skipped": ["", "", "no CUDA GPU", ""], "extrapolated": [False, False, False, True],
                  "stand_in": [True, False, False, False]}).to_csv(ok / "records_t3.csv", index=False)
    bad = results / "02_sssp.failed"  # no run of it went through
    bad.mkdir()
    (bad / "run.json").write_text(json.dumps({"status": "failed", "profile": "smoke", "device": "CPU only",
                                              "error": "cell [3]: ValueError: bad graph"}))
    (bad / "02_sssp.failed.ipynb").write_text("{}")


def test_gallery_renders_tables_verdicts_figures_and_counts(tmp_path):
    results = tmp_path / "results"
    make_tree(results)
    text = gallery.write(results).read_text()

    assert "## Accelerating FW" in text and "NVIDIA H100 80GB HBM3" in text and "2025-01-02 03:04" in text
    assert "**Table 3: FW times**" in text
    assert "| graph | published_s | measured_s |" in text
    assert "| g\\|25 | 20.46 | 1.5 |" in text          # pipes escaped, numbers kept
    assert "0.1235" in text                            # long floats shortened
    assert "| tiled shared ~2x over tiled | 2.0 | 1.8 | holds | n=4096 |" in text
    assert "![speedup](01_fw/fig_speedup.png)" in text
    assert "[01_fw.ipynb](01_fw/01_fw.ipynb)" in text and "[records_t3.csv](01_fw/records_t3.csv)" in text
    assert "2 verified, 1 unverified, 1 skipped, 1 extrapolated, 1 stand-in" in text
    # the failed run: no title, so its folder name; its error and partial notebook
    assert "## 02_sssp" in text and "**FAILED**" in text and "ValueError: bad graph" in text
    assert "[02_sssp.failed.ipynb](02_sssp.failed/02_sssp.failed.ipynb)" in text
    assert "## 02_sssp.failed" not in text and "| 02_sssp | failed |" in text
    assert not [p for p in results.iterdir() if p.name.startswith(".")]


def test_gallery_without_results_says_so(tmp_path):
    text = gallery.write(tmp_path / "results").read_text()
    assert "No notebook has run yet" in text
    assert gallery.main([str(tmp_path / "results")]) == 0


def records(rows):
    base = {"paper": "fw", "experiment": "t1", "n": 1000, "timing_scope": "kernel", "extrapolation": "",
            "extrapolated": False, "skipped": "", "verified": True}
    return pd.DataFrame([{**base, **row} for row in rows])


def make_profiles(results):
    """03_bf ran in both profiles; 01_fw and 02_sssp (make_tree) in the default one only."""
    make_tree(results)
    default, paper = results / "03_bf", results / "paper" / "03_bf"
    for folder, profile, gpu in ((default, "default", "0"), (paper, "paper", "1")):
        folder.mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps({
            "title": "Bellman-Ford", "status": "ok", "profile": profile, "device": "NVIDIA H200",
            "gpu": {"index": gpu, "name": "NVIDIA H200", "uuid": f"GPU-{gpu}abc"}}))
        (folder / "fig_bf.png").write_bytes(b"\x89PNG fake")
    records([
        {"method": "tiled", "graph": "g04 (not built)", "time_ms_median": 2000.0, "extrapolated": True,
         "extrapolation": "first 64 of 1000 k, scaled"},
        {"method": "naive", "graph": "g04", "time_ms_median": 900.0, "extrapolated": True,
         "extrapolation": "sampled sources"},
        {"method": "blocked", "graph": "g04", "time_ms_median": 50.0},
        {"method": "tiled", "graph": "g04", "n": 2000, "time_ms_median": 8000.0, "extrapolated": True,
         "extrapolation": "n^3 scaling"},
    ]).to_csv(default / "records_t1.csv", index=False)
    records([
        {"method": "tiled", "graph": "g04", "time_ms_median": 1000.0},
        {"method": "naive", "graph": "g04", "time_ms_median": 700.0, "extrapolated": True,
         "extrapolation": "sampled sources"},
        {"method": "blocked", "graph": "g04", "time_ms_median": 60.0},
        {"method": "tiled", "graph": "g04", "n": 2000, "time_ms_median": float("nan"),
         "skipped": "out of memory"},
    ]).to_csv(paper / "records_t1.csv", index=False)


def test_gallery_shows_the_paper_profile_beside_default(tmp_path):
    results = tmp_path / "results"
    make_profiles(results)
    text = gallery.write(results).read_text()

    head, rest = text.split("## Extrapolated default times against the paper profile measured in full")
    assert "| 03_bf | ok | paper | NVIDIA H200 | 1 |" in head
    comparison = rest.split("\n## ")[0]
    # only the extrapolated default record whose paper twin was measured in full (graph label aside)
    assert "| 03_bf | t1 | tiled | g04 | 1000 | 2 | 1 | 2 | first 64 of 1000 k, scaled |" in comparison
    assert "naive" not in comparison and "blocked" not in comparison and "2000" not in comparison

    bf = text[text.index("## Bellman-Ford"):]
    assert bf.index("### Profile `default`") < bf.index("### Profile `paper`")
    assert "GPU 0 (GPU-0abc)" in bf and "GPU 1 (GPU-1abc)" in bf
    assert "![bf](03_bf/fig_bf.png)" in bf and "![bf](paper/03_bf/fig_bf.png)" in bf
    assert "[records_t1.csv](paper/03_bf/records_t1.csv)" in bf
    fw = text[text.index("## Accelerating FW"):text.index("## 02_sssp")]
    assert "The `paper` profile has not run this notebook." in fw and "### Profile" not in fw


def test_gallery_says_which_profile_has_not_run(tmp_path):
    results = tmp_path / "results"
    make_tree(results)
    text = gallery.write(results).read_text()
    assert "The `paper` profile (the papers' full sizes, nothing extrapolated) has not run" in text
    assert "### Profile" not in text and "Extrapolated default times" not in text
    assert "has not run this notebook" not in text

    paper_only = tmp_path / "paper_only"
    make_profiles(paper_only)
    for folder in ("01_fw", "02_sssp.failed", "03_bf"):
        shutil.rmtree(paper_only / folder)
    text = gallery.write(paper_only).read_text()
    assert "The `default` profile has not run" in text and "## Bellman-Ford" in text
    assert "### Profile" not in text and "![bf](paper/03_bf/fig_bf.png)" in text


def test_gallery_without_a_full_measurement_to_compare_says_so(tmp_path):
    results = tmp_path / "results"
    make_profiles(results)
    (results / "paper" / "03_bf" / "records_t1.csv").unlink()
    text = gallery.write(results).read_text()
    assert "No extrapolated `default` record has a `paper` record measured in full" in text


def test_a_rechecked_run_says_so_in_the_gallery(tmp_path):
    from apsp_kernels import gallery
    folder = tmp_path / "cross_paper"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"status": "ok", "profile": "default", "device": "GPU X",
                                                 "rechecked": {"at": "2026-11-23T12:00:00+00:00",
                                                               "records_marked_unverified": 6, "why": "because"}}))
    text = "\n".join(gallery.profile_block(folder, tmp_path, "###"))
    assert "Re-checked after the run** (2026-11-23 12:00 UTC): 6 records marked unverified: because" in text
