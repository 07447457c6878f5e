"""The PHAST papers' transcribed statements (issue 45): a source beside the five reproduced papers,
read through the one transcription table like theirs, each cell carrying where it was read."""
from apsp_kernels import audit, registry, report

PHAST_DOI = "doi:10.1016/j.jpdc.2012.02.007"


def phast_cells():
    cells = report.transcriptions()
    return cells[(cells["paper"] == "phast") & (cells["column"] != "#caption")]


def test_the_all_pairs_statement_loads_word_for_word():
    assert report.quote("phast", "all_pairs_practical") == (
        "This makes applications based on all-pairs shortest-paths practical for continental-sized road networks.")


def test_every_phast_cell_names_the_paper_the_part_and_where_it_was_read():
    cells = phast_cells()
    assert len(cells) >= 2
    for page in cells["page"]:
        assert PHAST_DOI in page and "Delling" in page, page
        assert "abstract" in page or "Sec." in page or "Table" in page, page
        assert "https://" in page, page


def test_phast_is_a_source_not_a_reproduced_paper():
    """The audit and the claims summary walk the reproduced papers; a quoted source must not join them."""
    assert "phast" not in registry.PAPERS and "phast" not in audit.PAPERS
    captions = report.transcriptions().query("paper == 'phast' and column == '#caption'")["value"]
    assert captions.str.contains("not one of the five reproduced papers").all() and len(captions) == 1
