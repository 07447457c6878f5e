"""README.md and the documentation site (docs/, mkdocs.yml): short, readable, and every link and number
pointing at a file that exists. The site itself is built by `make docs` (mkdocs build --strict)."""
import re
from pathlib import Path

import pytest

from apsp_kernels import audit

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
MAX_README_WORDS = 1500
MAX_SENTENCE_WORDS = 45
LINK = re.compile(r"\]\(([^)\s]+)\)")


def prose_sentences(text: str) -> list[str]:
    """Sentences of a markdown text: code, tables, comments and headings left out, each list item on its own."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    text = re.sub(r"^(\s*)(?:[-*]|\d+\.)\s+", "\n\n", text, flags=re.M)
    return audit.sentences(text)


def long_sentences(text: str, limit: int = MAX_SENTENCE_WORDS) -> list[str]:
    return [s for s in prose_sentences(text) if len(s.split()) > limit]


def slug(heading: str) -> str:
    """The anchor of a markdown heading, as MkDocs' toc and GitHub make it."""
    heading = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading))


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+\s+(.*)$", text, flags=re.M)}


def broken_links(page: Path) -> list[str]:
    """Links of ``page`` to files (and headings) that do not exist; ``/x`` starts at the repository root."""
    out = []
    for target in LINK.findall(re.sub(r"```.*?```", "", page.read_text(), flags=re.S)):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = page if not path else (ROOT / path.lstrip("/") if path.startswith("/") else page.parent / path)
        if not file.exists():
            out.append(f"{page.name}: {target} does not exist")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            out.append(f"{page.name}: {target} names no heading of {file.name}")
    return out


def test_readme_is_short():
    words = len(README.read_text().split())
    assert words <= MAX_README_WORDS, f"README.md has {words} words; move detail into docs/"


@pytest.mark.parametrize("page", [README] + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_sentence_runs_past_the_limit(page):
    found = long_sentences(page.read_text())
    assert found == [], f"{page.name}: sentences over {MAX_SENTENCE_WORDS} words: {found}"


@pytest.mark.parametrize("page", [README] + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_exists(page):
    assert broken_links(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_number_in_the_docs_names_the_committed_file_that_shows_it(page, tmp_path):
    # the audit resolves results/... against the repository root, as docs' /results/... links do
    copy = tmp_path / page.name
    copy.write_text(page.read_text().replace("](/", "]("))
    found = audit.readme_problems(copy, ROOT)
    assert found == [], found


def test_every_page_is_in_the_sites_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    missing = [p.relative_to(DOCS).as_posix() for p in PAGES if p.relative_to(DOCS).as_posix() not in config]
    assert missing == [], f"add {missing} to mkdocs.yml's nav"


def test_the_api_reference_names_modules_that_exist():
    for page in (DOCS / "api").glob("*.md"):
        for module in re.findall(r"^:::\s+(\S+)", page.read_text(), flags=re.M):
            path = ROOT / module.replace(".", "/")
            assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), (page.name, module)


def test_the_checks_catch_what_they_are_for(tmp_path):
    long = "This sentence " + "goes on " * 30 + "and on."
    assert long_sentences(f"# Title\n\nShort one. {long}\n\n- a list item. Another.\n") == [long]
    assert long_sentences("```\n" + long + "\n```\n\n| " + long + " |\n") == []
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## A section\n")
    page.write_text("[ok](other.md#a-section) [gone](missing.md) [bad anchor](other.md#nope) [web](https://x.org)\n")
    found = " ".join(broken_links(page))
    assert "missing.md does not exist" in found and "#nope names no heading" in found and "ok" not in found
    assert slug("The `paper` profile: what it is") == "the-paper-profile-what-it-is"
