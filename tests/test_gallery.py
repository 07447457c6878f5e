"""The results gallery renders a synthetic results tree."""
import json
import shutil

import matplotlib.colors
import pandas as pd
import pytest

from apsp_kernels import claims_glance, gallery, verdicts


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


def test_runs_beside_a_notebook_are_listed_with_their_readme_s_title(tmp_path):
    results = tmp_path / "results"
    make_tree(results)
    run = results / "01_fw" / "four_gpus"
    run.mkdir()
    (run / "README.md").write_text("\n# Every source on four GPUs (issue 9)\n\nRan on ...\n")
    (results / "01_fw" / "no_readme").mkdir()
    text = gallery.write(results).read_text()
    fw = text[text.index("## Accelerating FW"):text.index("## 02_sssp")]
    assert "### Runs beside the notebook" in fw
    assert "- [four_gpus](01_fw/four_gpus/README.md): Every source on four GPUs (issue 9)" in fw
    assert "no_readme" not in text


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


# ------------------------------------------------------------------ claims at a glance (issue 47)
GLANCE_PAPERS = ("okuyama", "liu")  # two of registry.PAPERS: one run in both profiles, one in default only


def verdict_rows(rows):
    base = {"verdict": "holds", "basis": "measured", "records": "", "note": "", "outcome": "holds"}
    return pd.DataFrame([{**base, **row} for row in rows])


def make_papers(results):
    """okuyama in both profiles (the paper profile's claim 'with 16 threads' is the default's 'with 64
    threads'; one claim only the default has), liu in the default profile only, and a project notebook."""
    for folder, profile, gpu_name in ((results / "okuyama", "default", "NVIDIA H200"),
                                      (results / "paper" / "okuyama", "paper", "NVIDIA H100 80GB HBM3"),
                                      (results / "liu", "default", "NVIDIA H100 80GB HBM3"),
                                      (results / "library", "default", "NVIDIA H200")):
        folder.mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps({
            "title": f"{folder.name.capitalize()}: a paper", "status": "ok", "profile": profile,
            "device": gpu_name}))
    for folder, device in ((results / "okuyama", "NVIDIA H200"),
                           (results / "paper" / "okuyama", "NVIDIA H100 80GB HBM3")):
        records([{"paper": "okuyama", "method": "tp", "graph": "g", "time_ms_median": 5.0, "device": device},
                 {"paper": "okuyama", "method": "cpu", "graph": "g", "time_ms_median": 50.0,
                  "timing_scope": "cpu", "device": "Xeon (64 threads)"}]).to_csv(folder / "records_t1.csv", index=False)
    cited = " ".join(verdicts.load_records(results / "paper" / "okuyama")["id"])
    verdict_rows([
        {"claim": "tp is about 2.8 times faster than cpu", "published": "2.8",
         "measured": "0.78 (geo. mean; NY: 0.33, BAY: 0.62)", "verdict": "does not hold", "outcome": "does not hold",
         "records": cited},
        {"claim": "all sources in <= 2 s on one H100", "published": "<= 2 s", "measured": "1.74 s",
         "records": cited},
        {"claim": "cpu with every core (16 threads)", "published": "not measured (4 vCPUs)",
         "measured": "10.1x at N=40000", "verdict": "not tested", "outcome": "not tested"},
        {"claim": "tp is 2.8-13x faster than harish", "published": "2.8-13x", "measured": "1.87-28.2x",
         "verdict": claims_glance.INCONCLUSIVE, "outcome": claims_glance.INCONCLUSIVE},
    ]).to_csv(results / "paper" / "okuyama" / "verdicts.csv", index=False)
    verdict_rows([
        {"claim": "tp is about 2.8 times faster than cpu", "published": "2.8", "measured": "0.5"},
        {"claim": "cpu with every core (64 threads)", "published": "not measured (4 vCPUs)", "measured": "20x"},
        {"claim": "the speedup is largest on the smallest graph", "published": "13x at |V|=1K",
         "measured": '{"1024": 14.21, "2048": 23.21}', "verdict": "does not hold", "outcome": "does not hold"},
    ]).to_csv(results / "okuyama" / "verdicts.csv", index=False)
    verdict_rows([
        {"claim": "GPU time at N=40000 <= 5 ms", "published": "18 ms on the K80", "measured": "0.29 ms"},
        {"claim": "up to 475x over serial", "published": "475x",
         "measured": "3.18e+03x over serial RK, 9.94e+03x over serial FW"},
    ]).to_csv(results / "liu" / "verdicts.csv", index=False)
    verdict_rows([{"claim": "auto is at least as fast as SciPy", "published": "- (goal)", "measured": "3.3x"}]
                 ).to_csv(results / "library" / "verdicts.csv", index=False)


def glance_table(text):
    """The rows of the claims table at the top of a rendered gallery, as dicts."""
    block = text.split("## Claims at a glance")[1].split("\n**")[0]
    lines = [line for line in block.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split(" | ")]
    return [dict(zip(header, (c.strip() for c in line.strip("|").split(" | ")))) for line in lines[2:]]


def test_claims_at_a_glance_has_one_row_per_claim_of_every_paper(tmp_path):
    results = tmp_path / "results"
    make_papers(results)
    text = gallery.write(results).read_text()

    assert text.index("## Claims at a glance") < text.index("## Notebook runs") < text.index("## Okuyama")
    rows = glance_table(text)
    # the paper profile's 4 okuyama claims, the default's one claim the paper profile lacks, liu's 2
    assert [(r["paper"], r["profile"]) for r in rows] == [("okuyama", "paper")] * 4 + [("okuyama", "default")] \
        + [("liu", "default")] * 2
    assert [r["#"] for r in rows] == [str(i) for i in range(1, 8)]
    assert sum("every core" in r["claim"] for r in rows) == 1 and "(16 threads)" in rows[2]["claim"]
    assert rows[4]["claim"] == "the speedup is largest on the smallest graph"
    assert rows[0]["verdict"] == "does not hold" and rows[0]["measured"] == "0.78 (geo. mean; NY: 0.33, BAY: 0.62)"
    assert "library" not in {r["paper"] for r in rows} and "[library](#library-a-paper)" in text
    assert (f"**7 claims: 3 held, 2 not held, 1 {claims_glance.INCONCLUSIVE}, 1 other** "
            "(other: 1 not tested).") in text
    # every table below stays: each profile's verdicts in full
    assert "| cpu with every core (64 threads) | not measured (4 vCPUs) | 20x | holds | measured |  |" in text


def test_claims_at_a_glance_links_resolve_to_the_rendered_verdicts_headings(tmp_path):
    results = tmp_path / "results"
    make_papers(results)
    text = gallery.write(results).read_text()

    seen, where = {}, {}
    section = profile = None
    for level, heading in gallery.headings(text):
        anchor = gallery.slug(heading, seen)
        section = heading if level == 2 else section
        profile = heading if level == 3 and heading.startswith("Profile") else (None if level == 2 else profile)
        where[anchor] = (section, profile, heading)
    links = {(r["paper"], r["profile"]): r["section"] for r in glance_table(text)}
    # GitHub numbers repeated headings in order: okuyama's default Verdicts, then its paper ones, then liu's
    assert links == {("okuyama", "paper"): "[verdicts](#verdicts-1)", ("okuyama", "default"): "[verdicts](#verdicts)",
                     ("liu", "default"): "[verdicts](#verdicts-2)"}
    for (paper, profile), link in links.items():
        anchor = link.split("(#")[1].rstrip(")")
        section, block, heading = where[anchor]
        assert heading == "Verdicts" and section.lower().startswith(paper)
        assert block == (f"Profile `{profile}`" if paper == "okuyama" else None)


def test_slug_follows_githubs_anchor_rules():
    seen = {}
    assert gallery.slug("Liu: SSSP with OpenMP-style Dijkstra vs GPU (min,+) SpMV (Fig. 1-4)", seen) \
        == "liu-sssp-with-openmp-style-dijkstra-vs-gpu-min-spmv-fig-1-4"
    assert gallery.slug("Profile `paper`", seen) == "profile-paper"
    assert gallery.slug("Use it: shortest_path(method='auto')", seen) == "use-it-shortest_pathmethodauto"
    assert [gallery.slug("Verdicts", seen) for _ in range(3)] == ["verdicts", "verdicts-1", "verdicts-2"]
    assert gallery.slug("verdicts 1", seen) == "verdicts-1-1"  # taken by the second "Verdicts"


def test_the_claims_figure_plots_the_verdicts_numbers(tmp_path):
    results = tmp_path / "results"
    make_papers(results)
    gallery.write(results)
    rows = claims_glance.claim_rows(gallery.found_folders(results))
    fig = claims_glance.figure(rows)

    drawn = {}
    for ax in fig.axes:
        for collection in ax.collections:
            for x, y in collection.get_offsets():
                drawn[(round(float(x), 9), round(float(y), 9))] = (ax, collection)
    # 2.8 vs 0.78 (no unit), <= 2 s vs 1.74 s, 18 ms vs 0.29 ms (in s), 475x vs 3.18e+03x; not the range,
    # the per-size values or the claims without a published number
    assert set(drawn) == {(2.8, 0.78), (2.0, 1.74), (0.018, 0.00029), (475.0, 3180.0)}
    ax, dots = drawn[(2.8, 0.78)]
    assert ax.get_xscale() == "log" and tuple(dots.get_facecolors()[0][:3]) == pytest.approx(
        matplotlib.colors.to_rgb(claims_glance.COLORS[claims_glance.NOT_HELD]))
    assert drawn[(2.0, 1.74)][1].get_facecolors().size == 0  # open: the published number is a bound
    assert "time (s)" in drawn[(0.018, 0.00029)][0].get_xlabel()
    assert "NVIDIA H100 80GB HBM3 (okuyama, liu)" in fig._suptitle.get_text()
    assert list(rows.loc[rows["figure"] != "plotted", "figure"]) == [
        "published: no number", "published: several numbers", "measured: a value per size or method"]

    text = (results / "README.md").read_text()
    assert (results / "fig_claims_at_a_glance.png").stat().st_size > 1000
    assert "![claims at a glance](fig_claims_at_a_glance.png)" in text and "plots 4 of the 7 claims" in text


@pytest.mark.parametrize("text, expected", [
    ("1.05x from degree 16 to 512 at N=40000", claims_glance.Headline(1.05, "x")),
    (">= 10x (issue 6 goal)", claims_glance.Headline(10.0, "x", bound=True)),
    ('12.7x: tuned {"check_every": 8} 8.85 ms vs rustworkx (64.0 threads) 112.4 ms', claims_glance.Headline(12.7, "x")),
    ("best threshold at n = 8192: 32; t(16)/t(best) = 1.02", claims_glance.Headline(32.0, "")),
    ("3.02 s on a V100 (single, T = 256)", claims_glance.Headline(3.02, "s")),
    ("0.474 s, 9.3 T op/s (62% of peak)", claims_glance.Headline(0.474, "s")),
    ("1.49e+03x over serial RK at n = 4096, 4.65e+03x over serial FW", claims_glance.Headline(1490.0, "x")),
    ("CPU 0.0962 s vs GPU >= 53.7 s", "several numbers"),
    ("3.0-7.7 %", "several numbers"),
    ("not measured (4 vCPUs)", "no number"),
    ('{"1024": 22.91, "2048": 23.74}', "a value per size or method"),
])
def test_headline_finds_one_number_or_says_why_not(text, expected):
    assert claims_glance.headline(text) == expected


def test_units_must_match_to_be_plotted():
    assert claims_glance.plotted("18 ms", "0.29 ms")[1] == claims_glance.Headline(0.00029, "s")
    assert claims_glance.plotted("18 ms", "0.29x") == "units differ (s vs x)"


def test_a_gallery_without_paper_verdicts_says_so_and_keeps_no_stale_figure(tmp_path):
    results = tmp_path / "results"
    make_tree(results)
    (results / "fig_claims_at_a_glance.png").write_bytes(b"old")
    text = gallery.write(results).read_text()
    assert "No paper notebook (okuyama, bodra, takafuji, pandey, liu) has written verdicts yet." in text
    assert not (results / "fig_claims_at_a_glance.png").exists() and "fig_claims_at_a_glance" not in text


def test_the_counts_follow_the_verdict_line_a_reader_sees():
    # an upper bound turns a computed "does not hold" into "not measured": counted as other, not as not held
    assert claims_glance.shown_outcome("not measured (only an upper bound: 1 of 2 rows)", "does not hold") \
        == "not measured"
    assert claims_glance.category("not measured") == claims_glance.OTHER
    assert claims_glance.category("does not hold") == claims_glance.NOT_HELD
    assert claims_glance.shown_outcome("", "holds") == "holds"
