"""URLs and heading anchors as Docusaurus renders them (docs plugin defaults, github-slugger)."""

import pytest

from ingest_scripts.markdown import plain_text
from ingest_scripts.permalinks import (
    HeadingSlugger,
    doc_id,
    is_index_page,
    page_url,
    permalink,
    split_custom_id,
    strip_number_prefix,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("01-intro", "intro"),
        ("02_setup", "setup"),
        ("3. usage", "usage"),
        ("10-ten", "ten"),
        ("1.2-notes", "1.2-notes"),  # version-like: kept
        ("2024-01-01-post", "2024-01-01-post"),  # date-like: kept
        ("intro", "intro"),
        ("42", "42"),  # nothing would be left: kept
        ("3d-vision", "3d-vision"),  # a digit that is part of the word, not a prefix
    ],
)
def test_number_prefixes(name: str, expected: str) -> None:
    assert strip_number_prefix(name) == expected


def test_permalink_strips_prefixes_from_folders_and_file() -> None:
    path = "13-Physical-AI/01-ros2-nervous-system/02-nodes-topics-services.md"
    assert permalink(path) == "/docs/Physical-AI/ros2-nervous-system/nodes-topics-services"
    assert doc_id(path) == "Physical-AI/ros2-nervous-system/nodes-topics-services"


def test_version_like_file_names_keep_their_numbers_in_the_url() -> None:
    assert permalink("01-guide/1.2-notes.md") == "/docs/guide/1.2-notes"


def test_front_matter_id_replaces_the_file_name() -> None:
    assert permalink("01-guide/02-start.md", front_matter_id="quick") == "/docs/guide/quick"
    assert doc_id("01-guide/02-start.md", "quick") == "guide/quick"


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("/get-going", "/docs/get-going"),  # absolute: replaces the whole path
        ("/", "/docs/"),
        ("go", "/docs/guide/go"),  # relative: resolved against the folder
        ("../elsewhere", "/docs/elsewhere"),
        ("deeper/page", "/docs/guide/deeper/page"),
    ],
)
def test_front_matter_slugs(slug: str, expected: str) -> None:
    assert permalink("01-guide/02-start.md", slug=slug) == expected


def test_slug_wins_over_id() -> None:
    assert permalink("01-guide/02-start.md", front_matter_id="quick", slug="/s") == "/docs/s"


@pytest.mark.parametrize(
    "path",
    ["01-guide/README.md", "01-guide/readme.md", "01-guide/index.md", "01-guide/index.mdx",
     "01-guide/01-guide.md"],
)
def test_index_pages_get_the_folder_url_with_a_trailing_slash(path: str) -> None:
    assert is_index_page(path)
    assert permalink(path) == "/docs/guide/"


def test_root_index_and_ordinary_pages() -> None:
    assert permalink("README.md") == "/docs/"
    assert permalink("a/b/index.md") == "/docs/a/b/"
    assert not is_index_page("01-guide/02-start.md")
    assert not is_index_page("guide.md")  # no folder to be the index of


def test_route_base() -> None:
    assert permalink("01-guide/02-start.md", route_base="/") == "/guide/start"
    assert permalink("01-guide/02-start.md", route_base="") == "/guide/start"
    assert permalink("01-guide/02-start.md", route_base="/handbook/") == "/handbook/guide/start"
    assert permalink("01-guide/README.md", route_base="/") == "/guide/"
    assert permalink("01-guide/02-start.md", slug="/s", route_base="book") == "/book/s"


def test_summary_pages_keep_their_suffix() -> None:
    assert permalink("01-m/02-depth.summary.md") == "/docs/m/depth.summary"


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("https://book.example", "https://book.example/docs/a"),
        ("https://book.example/", "https://book.example/docs/a"),
        ("https://x.github.io/my-book/", "https://x.github.io/my-book/docs/a"),
        ("/demo", "/demo/docs/a"),
        ("", "/docs/a"),
    ],
)
def test_page_url_joins_the_base_url(base_url: str, expected: str) -> None:
    assert page_url(base_url, "/docs/a") == expected


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("What Are Nodes?", "what-are-nodes"),
        ("What's New in ROS 2!", "whats-new-in-ros-2"),
        ("C++ & Python: Side by Side", "c--python-side-by-side"),
        ("3.1 Depth Sensing Technologies and Trade-offs", "31-depth-sensing-technologies-and-trade-offs"),
        ("📊 Case Study: Atlas - Multi-Camera", "-case-study-atlas---multi-camera"),
        ("Publishing Messages with create_publisher()", "publishing-messages-with-create_publisher"),
        ("Step 1: Install (Ubuntu 22.04)", "step-1-install-ubuntu-2204"),
        ("Über Größe", "über-größe"),
        ("Setup {#custom-setup}", "custom-setup"),
    ],
)
def test_heading_anchors(heading: str, anchor: str) -> None:
    assert HeadingSlugger().anchor(heading) == anchor


def test_anchor_of_markdown_heading_uses_the_rendered_text() -> None:
    """Code spans and links are slugged by their visible text, as the site renders them."""
    slugger = HeadingSlugger()
    assert slugger.anchor(plain_text("Using `rclpy.spin()`")) == "using-rclpyspin"
    assert slugger.anchor(plain_text("[ROS 2](https://ros.org) **Basics**")) == "ros-2-basics"


def test_repeated_headings_get_numbered() -> None:
    slugger = HeadingSlugger()
    assert [slugger.anchor("Example") for _ in range(3)] == ["example", "example-1", "example-2"]


def test_numbering_skips_slugs_already_taken() -> None:
    slugger = HeadingSlugger()
    assert slugger.anchor("Example 1") == "example-1"
    assert slugger.anchor("Example") == "example"
    assert slugger.anchor("Example") == "example-2"  # example-1 is already a heading's slug


def test_slugger_state_is_per_page() -> None:
    assert HeadingSlugger().anchor("Intro") == HeadingSlugger().anchor("Intro") == "intro"


def test_split_custom_id() -> None:
    assert split_custom_id("Setup {#setup}") == ("Setup", "setup")
    assert split_custom_id("Setup") == ("Setup", None)
    assert split_custom_id("Use {#a} in text") == ("Use {#a} in text", None)  # must end the heading
