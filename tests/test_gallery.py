"""The results gallery renders a synthetic results tree."""
import json

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
    bad = results / "02_sssp"
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
    assert "[02_sssp.failed.ipynb](02_sssp/02_sssp.failed.ipynb)" in text
    assert not [p for p in results.iterdir() if p.name.startswith(".")]


def test_gallery_without_results_says_so(tmp_path):
    text = gallery.write(tmp_path / "results").read_text()
    assert "No notebook has run yet" in text
    assert gallery.main([str(tmp_path / "results")]) == 0
