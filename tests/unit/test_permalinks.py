"""URLs and anchors as Docusaurus renders them."""

import pytest

from ingest_scripts.permalinks import (
    HeadingSlugger,
    doc_id,
    is_index_page,
    page_url,
    permalink,
    strip_number_prefix,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("01-intro", "intro"),
        ("02_setup", "setup"),
        ("3. usage", "usage"),
        ("1.2-notes", "1.2-notes"),  # version-like: kept
        ("2024-01-01-post", "2024-01-01-post"),  # date-like: kept
        ("intro", "intro"),
    ],
)
def test_number_prefixes(name: str, expected: str) -> None:
    assert strip_number_prefix(name) == expected


def test_permalink_strips_prefixes_from_folders_and_file() -> None:
    path = "13-Physical-AI/01-ros2-nervous-system/02-nodes-topics-services.md"
    assert permalink(path) == "/docs/Physical-AI/ros2-nervous-system/nodes-topics-services"
    assert doc_id(path) == "Physical-AI/ros2-nervous-system/nodes-topics-services"


def test_front_matter_id_and_slugs() -> None:
    assert permalink("01-guide/02-start.md", front_matter_id="quick") == "/docs/guide/quick"
    assert permalink("01-guide/02-start.md", slug="/get-going") == "/docs/get-going"
    assert permalink("01-guide/02-start.md", slug="go") == "/docs/guide/go"
    assert permalink("01-guide/02-start.md", slug="/") == "/docs/"
    assert permalink("a.md", route_base="/") == "/a"


@pytest.mark.parametrize("name", ["README.md", "index.md", "index.mdx", "01-guide.md"])
def test_index_pages_get_the_folder_url(name: str) -> None:
    path = f"01-guide/{name}" if name != "01-guide.md" else "01-guide/01-guide.md"
    assert is_index_page(path)
    assert permalink(path) == "/docs/guide/"


def test_summary_pages_keep_their_suffix() -> None:
    assert permalink("01-m/02-depth.summary.md") == "/docs/m/depth.summary"


def test_page_url_joins_origin() -> None:
    assert page_url("https://book.example/", "/docs/a") == "https://book.example/docs/a"
    assert page_url("", "/docs/a") == "/docs/a"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("What Are Nodes?", "what-are-nodes"),
        ("3.1 Depth Sensing Technologies and Trade-offs", "31-depth-sensing-technologies-and-trade-offs"),
        ("📊 Case Study: Atlas - Multi-Camera", "-case-study-atlas---multi-camera"),
        ("Publishing Messages with create_publisher()", "publishing-messages-with-create_publisher"),
        ("Über Größe", "über-größe"),
        ("Setup {#custom-setup}", "custom-setup"),
    ],
)
def test_heading_anchors(heading: str, anchor: str) -> None:
    assert HeadingSlugger().anchor(heading) == anchor


def test_repeated_headings_get_numbered() -> None:
    slugger = HeadingSlugger()
    assert [slugger.anchor("Example") for _ in range(3)] == ["example", "example-1", "example-2"]
