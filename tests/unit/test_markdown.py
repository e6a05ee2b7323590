"""Markdown/MDX → blocks → chunks, on hand-made edge cases."""

import itertools
import re

import pytest

from backend.retrieval.models import Chunk
from backend.retrieval.sentences import split_sentences
from ingest_scripts.markdown import (
    MAX_BLOCK_TOKENS,
    MAX_TOKENS,
    FrontMatterError,
    ParsedPage,
    chunk_page,
    estimate_tokens,
    parse_blocks,
    split_front_matter,
)


def parse(source: str, path: str = "01-mod/01-page.md") -> ParsedPage:
    front_matter, body_start = split_front_matter(source, path)
    return chunk_page(
        source, path, book="b", module="Mod", url="/docs/mod/page", lesson_id="mod/page",
        front_matter=front_matter, body_start=body_start,
    )


def chunks_of(source: str, path: str = "01-mod/01-page.md") -> list[Chunk]:
    return parse(source, path).chunks


def paragraph(words: int, seed: str = "word") -> str:
    """Prose of `words` words in sentences of twelve."""
    word = seed.capitalize()
    return " ".join(f"{word}{i}." if i % 12 == 11 else f"{word}{i}" for i in range(words))


def fence_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.lstrip().startswith("```"))


# --- headings and sections ------------------------------------------------------------------


def test_nested_headings_give_paths_and_anchors() -> None:
    source = f"""# Title

## Sensors

{paragraph(60)}

### 2D LiDAR

{paragraph(60, "lidar")}

#### Scan Rate

{paragraph(60, "rate")}

## Actuators

{paragraph(60, "motor")}
"""
    chunks = chunks_of(source)
    assert [c.section for c in chunks] == [
        "Sensors", "Sensors › 2D LiDAR", "Sensors › 2D LiDAR › Scan Rate", "Actuators",
    ]
    assert [c.heading for c in chunks] == ["Sensors", "2D LiDAR", "Scan Rate", "Actuators"]
    assert [c.anchor for c in chunks] == ["sensors", "2d-lidar", "scan-rate", "actuators"]
    assert chunks[1].url == "/docs/mod/page#2d-lidar"
    assert [c.position for c in chunks] == [0, 1, 2, 3]
    assert all(c.lesson == "Title" and c.module == "Mod" for c in chunks)


def test_a_page_of_several_level_one_headings_names_each_section_by_its_own() -> None:
    """A README that goes back to `#` for a later section ("# License" after "# Widget"), or
    one that opens every section with `#` under a title of its front matter (as SQLite's pages
    do with <h1>): each section is cited by its heading and anchor, the title stays the title."""
    readme = (f"# Widget\n\n{paragraph(60)}\n\n## Install\n\n{paragraph(60, 'pip')}\n\n"
              f"# License\n\n{paragraph(60, 'mit')}\n\n## Notices\n\n{paragraph(60, 'copy')}\n")
    assert [(c.lesson, c.section, c.anchor) for c in chunks_of(readme)] == [
        ("Widget", "", ""), ("Widget", "Install", "install"),
        ("Widget", "License", "license"), ("Widget", "License › Notices", "notices"),
    ]
    titled = f"---\ntitle: Write-Ahead Logging\n---\n# Overview\n\n{paragraph(60)}\n\n# How It Works\n\n{paragraph(60, 'log')}\n"
    assert [(c.lesson, c.section) for c in chunks_of(titled)] == [
        ("Write-Ahead Logging", "Overview"), ("Write-Ahead Logging", "How It Works"),
    ]


def test_text_before_the_first_section_belongs_to_the_page_top() -> None:
    chunks = chunks_of(f"# Title\n\n{paragraph(60, 'intro')}\n\n## Later\n\n{paragraph(60)}\n")
    assert (chunks[0].section, chunks[0].anchor, chunks[0].url) == ("", "", "/docs/mod/page")
    assert "Intro0" in chunks[0].text and "# Title" in chunks[0].text


def test_custom_heading_ids_and_duplicate_headings() -> None:
    source = f"""# T

## Setup {{#install-it}}

{paragraph(50)}

## Example

{paragraph(50, "one")}

## Example

{paragraph(50, "two")}
"""
    chunks = chunks_of(source)
    assert [c.anchor for c in chunks] == ["install-it", "example", "example-1"]
    assert chunks[0].heading == "Setup" and "{#" not in chunks[0].text


def test_hash_lines_inside_code_fences_are_not_headings() -> None:
    source = f"""# T

## Setup

{paragraph(50)}

```bash
# not a heading
pip install lectern
## still code
```

{paragraph(20, "after")}
"""
    blocks = parse_blocks(source, 0)
    assert [b.kind for b in blocks] == ["heading", "heading", "text", "fence", "text"]
    chunks = chunks_of(source)
    assert len(chunks) == 1 and chunks[0].section == "Setup"
    assert "```bash\n# not a heading\npip install lectern\n## still code\n```" in chunks[0].text


def test_heading_directly_followed_by_a_subheading_makes_no_empty_chunk() -> None:
    source = f"# T\n\n## Parent\n\n### Child\n\n{paragraph(80)}\n\n## Next\n\n{paragraph(80, 'next')}\n"
    chunks = chunks_of(source)
    assert [c.section for c in chunks] == ["Parent › Child", "Next"]
    assert all(c.text.strip() != c.text.strip().splitlines()[0] for c in chunks)  # not a bare heading


def test_tiny_sections_fold_into_the_next_one() -> None:
    source = f"# T\n\n## Tiny\n\nShort intro.\n\n## Next\n\n{paragraph(80, 'next')}\n"
    chunks = chunks_of(source)
    assert len(chunks) == 1
    assert chunks[0].section == "Next" and chunks[0].anchor == "next"
    assert chunks[0].text.startswith("## Tiny\n\nShort intro.")
    assert "## Next" in chunks[0].text


def test_a_tiny_last_section_is_kept_on_its_own() -> None:
    chunks = chunks_of(f"# T\n\n## Main\n\n{paragraph(80)}\n\n## Bye\n\nThe end.\n")
    assert [c.section for c in chunks] == ["Main", "Bye"]
    assert "The end." in chunks[1].text


def test_page_without_body_text_has_no_chunks() -> None:
    assert chunks_of("---\ntitle: Empty\n---\n# Empty\n\n## Nothing\n") == []


# --- long sections, fences, tables ----------------------------------------------------------


def test_long_sections_split_evenly_with_overlap_and_never_inside_a_fence_or_table() -> None:
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| r{i} | v{i} |" for i in range(40))
    fence = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(60)) + "\n```"
    source = (
        f"# T\n\n## Big\n\n{paragraph(300)}\n\n{fence}\n\n{paragraph(300, 'more')}\n\n"
        f"{table}\n\n{paragraph(200, 'tail')}\n"
    )
    chunks = chunks_of(source)
    assert len(chunks) >= 3
    assert all(c.section == "Big" and c.anchor == "big" for c in chunks)
    for chunk in chunks:
        assert fence_lines(chunk.text) % 2 == 0
        assert estimate_tokens(chunk.text) <= MAX_TOKENS * 1.5
    assert sum(fence in c.text for c in chunks) == 1  # the whole fence, in one chunk
    assert sum(table in c.text for c in chunks) == 1  # the whole table, in one chunk
    later = [c for c in chunks[1:] if c.overlap_chars]
    assert later, "split parts carry a little of the previous part"
    for previous, chunk in itertools.pairwise(chunks):
        if chunk.overlap_chars:
            overlap = chunk.text[: chunk.overlap_chars].strip()
            assert overlap and overlap in previous.text
            assert not chunk.text[chunk.overlap_chars :].startswith("\n")


def test_a_table_longer_than_the_budget_stays_whole() -> None:
    table = "| key | value |\n|:---|---:|\n" + "\n".join(f"| k{i} | {'v' * 20}{i} |" for i in range(120))
    assert estimate_tokens(table) > MAX_TOKENS
    chunks = chunks_of(f"# T\n\n## Table\n\n{paragraph(40)}\n\n{table}\n\n{paragraph(40, 'after')}\n")
    assert [table in c.text for c in chunks].count(True) == 1
    assert [b.kind for b in parse_blocks(table, 0)] == ["table"]


def test_a_fence_longer_than_the_budget_stays_whole() -> None:
    fence = "```python\n" + "\n".join(f"value_{i} = compute({i})  # step {i}" for i in range(120)) + "\n```"
    chunks = chunks_of(f"# T\n\n## Code\n\n{paragraph(40)}\n\n{fence}\n\n{paragraph(40, 'after')}\n")
    assert [fence in c.text for c in chunks].count(True) == 1
    assert all(fence_lines(c.text) % 2 == 0 for c in chunks)


def test_a_code_block_past_the_cost_bound_becomes_code_blocks_cut_at_blank_lines() -> None:
    """A help page that is one <pre> (Vim's are up to 2 MB): its passages stay within the budget,
    each a code block of the language, cut between its paragraphs, every line kept once."""
    paragraphs = [
        "\n".join(f"option_{p}_{i} = {i}  # what option {p}.{i} does" for i in range(6)) for p in range(120)
    ]
    fence = "```vim\n" + "\n\n".join(paragraphs) + "\n```"
    assert estimate_tokens(fence) > MAX_BLOCK_TOKENS
    chunks = chunks_of(f"# T\n\n## Options\n\n{paragraph(40)}\n\n{fence}\n\n{paragraph(40, 'after')}\n")
    assert all(estimate_tokens(c.text) <= MAX_TOKENS * 1.5 for c in chunks)
    assert all(fence_lines(c.text) % 2 == 0 for c in chunks)
    pieces = [block for c in chunks for block in re.findall(r"```vim\n(.*?)\n```", c.text[c.overlap_chars :], re.DOTALL)]
    assert len(pieces) > 2
    assert all(piece.split("\n\n")[0].startswith("option_") for piece in pieces)  # at a paragraph's start
    assert "\n\n".join(pieces) == "\n\n".join(paragraphs)


def test_a_code_block_of_one_paragraph_past_the_bound_is_cut_at_line_ends() -> None:
    lines = [f"call setline({i}, 'line {i} of a long listing')" for i in range(600)]
    chunks = chunks_of("# T\n\n## Listing\n\n```\n" + "\n".join(lines) + "\n```\n")
    pieces = [piece for c in chunks for piece in re.findall(r"```\n(.*?)\n```", c.text, re.DOTALL)]
    assert len(pieces) > 2 and all(estimate_tokens(piece) <= MAX_TOKENS for piece in pieces)
    assert [line for piece in pieces for line in piece.split("\n")] == lines


def test_a_table_past_the_bound_repeats_its_header_rows_in_each_part() -> None:
    header = "| key | value |\n|:---|---:|"
    rows = [f"| k{i} | {'v' * 40}{i} |" for i in range(400)]
    chunks = chunks_of(f"# T\n\n## Table\n\n{header}\n" + "\n".join(rows) + "\n")
    tables = [block for c in chunks for block in c.text.split("\n\n") if not block.startswith("## ")]
    assert len(tables) > 2 and all(table.startswith(header + "\n") for table in tables)
    assert [row for table in tables for row in table.split("\n")[2:]] == rows
    assert all(estimate_tokens(c.text) <= MAX_TOKENS * 1.5 for c in chunks)


def test_a_table_whose_header_row_is_longer_than_half_the_budget_is_cut_without_repeating_it() -> None:
    """A layout table whose first row holds a whole index (yodl's cppindex.html: 55 KB): repeated
    over each part, it made 477 passages of 55 KB each. Read once, every passage is within the
    budget and every row is kept once."""
    entries = " ".join(f"entry{i} {i * 7}" for i in range(900))
    header = f"| {entries} |\n|---|"
    rows = [f"| entry{i} | {i * 7} |" for i in range(300)]
    assert len(header) > 2 * MAX_TOKENS and estimate_tokens(header + "".join(rows)) > MAX_BLOCK_TOKENS
    chunks = chunks_of(f"# T\n\n## Index\n\n{header}\n" + "\n".join(rows) + "\n")
    assert all(estimate_tokens(c.text) <= MAX_TOKENS * 1.5 for c in chunks)
    own = " ".join(c.text[c.overlap_chars :].removeprefix("## Index\n\n") for c in chunks)
    assert own.count("entry899 6293") == 1
    assert all(row.strip("| ") in own for row in rows)


def test_a_sentence_that_never_ends_is_cut_at_spaces_past_the_bound() -> None:
    words = [f"item{i}" for i in range(3000)]
    chunks = chunks_of("# T\n\n## Wall\n\n" + " ".join(words) + "\n")
    own = [c.text[c.overlap_chars :].removeprefix("## Wall\n\n") for c in chunks]  # after the part before
    assert len(own) > 2 and all(estimate_tokens(text) <= MAX_TOKENS for text in own)
    assert " ".join(own).split() == words


def test_paragraph_longer_than_budget_is_cut_at_sentences() -> None:
    chunks = chunks_of(f"# T\n\n## Wall\n\n{paragraph(1200)}\n")
    assert len(chunks) >= 3
    assert all(estimate_tokens(c.text) <= MAX_TOKENS * 1.5 for c in chunks)
    for chunk in chunks:
        own = chunk.text[chunk.overlap_chars :]
        assert own.rstrip().endswith(".")  # cut at a sentence end, not mid-sentence


# --- MDX --------------------------------------------------------------------------------------


def test_mdx_imports_and_jsx_tags_are_removed_but_their_text_kept() -> None:
    source = f"""---
title: Install
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
export const meta = {{}};

# Install

## Choose

{{/* a comment for editors */}}

<Tabs><TabItem value="a">Install with pip on any platform.</TabItem></Tabs>

<Tabs>
<TabItem value="conda" label="conda">

Or use conda when you already have it. {paragraph(40)} Inline {{/* hidden */}} shown.

</TabItem>
</Tabs>

```python
import os  # code keeps its imports
export_value = 1
```
"""
    chunks = chunks_of(source, "01-mod/02-install.mdx")
    text = "\n".join(c.text for c in chunks)
    assert "import Tabs" not in text and "import TabItem" not in text and "export const" not in text
    assert "<Tabs>" not in text and "<TabItem" not in text and "</TabItem>" not in text
    assert "a comment for editors" not in text and "hidden" not in text and "{/*" not in text
    assert "Install with pip on any platform." in text
    assert "Or use conda when you already have it." in text and "Inline  shown." in text
    assert "```python\nimport os  # code keeps its imports\nexport_value = 1\n```" in text


def test_mdx_statements_make_no_blocks() -> None:
    source = "import A from './a';\nexport const b = 1;\n\n## H\n\nText.\n"
    assert [b.kind for b in parse_blocks(source, 0)] == ["heading", "text"]


# --- front matter -----------------------------------------------------------------------------


def test_no_front_matter() -> None:
    source = f"# Heading Title\n\n## S\n\n{paragraph(50)}\n"
    assert split_front_matter(source, "x.md") == ({}, 0)
    parsed = parse(source)
    assert parsed.page.title == "Heading Title" and parsed.page.tags == []


def test_empty_front_matter() -> None:
    source = f"---\n---\n# Heading Title\n\n## S\n\n{paragraph(50)}\n"
    assert split_front_matter(source, "x.md") == ({}, 8)
    assert parse(source).page.title == "Heading Title"


def test_a_thematic_break_is_not_front_matter() -> None:
    source = f"----\n\n# T\n\n## S\n\n{paragraph(50)}\n\n---\n"
    assert split_front_matter(source, "x.md") == ({}, 0)


def test_front_matter_fields() -> None:
    source = f"""---
id: quick-start
slug: /start
title: Given Title
description: How to start.
tags: [ros2, basics]
learning_objectives:
  - objective: Explain nodes
    level: understand
  - Plain objective
skills:
  - name: Reading
---
# Heading Title

## S

{paragraph(50)}
"""
    front_matter, body_start = split_front_matter(source, "x.md")
    assert front_matter["id"] == "quick-start" and front_matter["slug"] == "/start"
    assert source[body_start:].startswith("# Heading Title")
    page = parse(source).page
    assert page.title == "Given Title" and page.description == "How to start."
    assert page.tags == ["ros2", "basics"]
    assert page.objectives == ["Explain nodes", "Plain objective"]
    assert page.skills == ["Reading"]
    assert all(c.tags == ["ros2", "basics"] and c.start >= body_start for c in parse(source).chunks)


def test_tags_as_a_string() -> None:
    page = parse(f"---\ntags: single\n---\n# T\n\n## S\n\n{paragraph(50)}\n").page
    assert page.tags == ["single"]


def test_title_falls_back_to_the_file_name() -> None:
    page = parse(f"## Only Sections\n\n{paragraph(50)}\n", "01-mod/03-depth_sensing.md").page
    assert page.title == "Depth sensing"


def test_windows_line_endings() -> None:
    source = f"---\r\ntitle: Crlf Title\r\n---\r\n# H\r\n\r\n## Sec\r\n\r\n{paragraph(60)}\r\n"
    front_matter, body_start = split_front_matter(source, "x.md")
    assert front_matter == {"title": "Crlf Title"}
    assert source[body_start:].startswith("# H")
    chunks = chunks_of(source)
    assert [c.section for c in chunks] == ["Sec"] and "title:" not in chunks[0].text


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("---\ntitle: ok\nother: fine\n  bad: indent\n---\n# T\n", 4),
        ("---\ntitle: ok\ntags: [a, b\nnext: 1\n---\n# T\n", 4),  # where YAML notices
        ("---\ntitle: 'unterminated\n---\n# T\n", 3),  # the closing ---
    ],
)
def test_invalid_front_matter_names_file_and_line(source: str, line: int) -> None:
    with pytest.raises(FrontMatterError) as caught:
        split_front_matter(source, "docs/bad.md")
    message = str(caught.value)
    assert message.startswith(f"docs/bad.md:{line}: front matter")
    assert "\n" not in message


def test_front_matter_that_is_never_closed_is_an_error_not_text() -> None:
    with pytest.raises(FrontMatterError, match=r"^docs/open\.md:1: front matter is never closed"):
        split_front_matter("---\ntitle: Open\nsidebar_position: 2\n# Open\n\nBody.\n", "docs/open.md")
    assert split_front_matter("---\n\nA page that opens with a rule.\n", "docs/rule.md") == ({}, 0)


def test_front_matter_that_is_not_a_mapping() -> None:
    with pytest.raises(FrontMatterError, match=r"^docs/list\.md:2: front matter must be a mapping"):
        split_front_matter("---\n- a\n- b\n---\n# T\n", "docs/list.md")


# --- offsets ----------------------------------------------------------------------------------


def test_offsets_point_into_the_source() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    source = (
        f"---\ntitle: T\n---\n# T\n\n## A\n\n{paragraph(60)}\n\n## B\n\n{table}\n\n{paragraph(60, 'bee')}\n"
        f"\n## C\n\n```\ncode\n```\n\n{paragraph(60, 'sea')}\n"
    )
    blocks = parse_blocks(source, split_front_matter(source, "x.md")[1])
    for block in blocks:
        if block.kind != "heading":
            assert source[block.start : block.end].rstrip("\n") == block.text
    chunks = chunks_of(source)
    assert len(chunks) == 3
    for chunk in chunks:
        window = source[chunk.start : chunk.end]
        first_block = chunk.text[chunk.overlap_chars :].split("\n\n")[0]
        assert first_block in window and window.startswith("## ")
        assert chunk.text.splitlines()[-1] in window


def test_offsets_survive_unicode_line_separators() -> None:
    """str.splitlines() breaks at U+2028; markdown-it does not. Offsets must follow markdown-it."""
    source = (
        f"# T\n\n## A\n\nalpha\u2028beta {paragraph(50)}\n\n## B\n\n{paragraph(50, 'bee')}\n\n"
        f"## C\n\n```\ncode line\n```\n\n{paragraph(50, 'sea')} delta\n"
    )
    chunks = chunks_of(source)
    assert [c.section for c in chunks] == ["A", "B", "C"]
    assert "Bee0" in chunks[1].text and "delta" in chunks[2].text
    assert "```\ncode line\n```" in chunks[2].text
    for chunk in chunks:
        assert chunk.text in source[chunk.start : chunk.end]


# --- quizzes and summaries --------------------------------------------------------------------

QUIZ = """---
title: Quiz
---
# Module Quiz

## Questions

**Question 1 (Multiple Choice)** - 1 point

What does a node do? A) runs a task B) stores files

<details>
<summary>Reveal Answer</summary>

**Correct Answer: A**. A node runs one task.
</details>

**Question 2:** What is a topic?

A) a named channel B) a file

**Question 3:** Which tool visualises the graph? (left open)

**Question 4:** Name the build tool.

Answer: colcon builds the workspace.

## Answer Key

**Question 2:** A) A named channel for messages.
"""


def test_quizzes_keep_answered_questions_and_drop_unanswered_ones() -> None:
    parsed = parse(QUIZ, "01-mod/06-quiz.md")
    text = "\n".join(c.text for c in parsed.chunks)
    assert parsed.dropped_questions == 1
    assert parsed.page.kind == "quiz" and all(c.kind == "quiz" for c in parsed.chunks)
    assert "What does a node do?" in text and "A node runs one task." in text  # inline <details>
    assert "What is a topic?" in text and "A named channel for messages." in text  # answer key
    assert "Name the build tool." in text and "colcon builds the workspace." in text
    assert "Which tool visualises the graph?" not in text and "Question 3" not in text
    assert "<details>" not in text and "<summary>" not in text


def test_a_quiz_with_every_question_answered_drops_nothing() -> None:
    answered = QUIZ.replace("(left open)", "\n\nAnswer: rqt_graph.")
    parsed = parse(answered, "01-mod/06-quiz.md")
    assert parsed.dropped_questions == 0
    assert "Which tool visualises the graph?" in "\n".join(c.text for c in parsed.chunks)


def test_quiz_tag_marks_a_quiz_page() -> None:
    parsed = parse(QUIZ.replace("title: Quiz", "title: Check\ntags: [quiz]"), "01-mod/06-check.md")
    assert parsed.page.kind == "quiz" and parsed.dropped_questions == 1


def test_questions_on_lesson_pages_are_left_alone() -> None:
    parsed = parse(QUIZ, "01-mod/05-lesson.md")
    assert parsed.page.kind == "lesson" and parsed.dropped_questions == 0
    assert "Which tool visualises the graph?" in "\n".join(c.text for c in parsed.chunks)


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("01-mod/02-x.summary.md", "summary"),
        ("01-mod/README.md", "index"),
        ("01-mod/02-x.md", "lesson"),
    ],
)
def test_page_kinds(path: str, kind: str) -> None:
    chunks = chunks_of(f"# Summary\n\n## Key Points\n\n{paragraph(60)}\n", path)
    assert chunks and all(c.kind == kind for c in chunks)


@pytest.mark.parametrize(
    ("path", "title", "kind"),
    [
        ("whatsnew/3.8.md", "What’s New In Python 3.8", "summary"),
        ("docs/changes.md", "Changes", "summary"),
        ("history.md", "Release History", "summary"),
        ("oldnews.md", "SQLite Older News", "summary"),
        ("CHANGELOG.md", "attrs 26.1.0", "summary"),
        # an API's page named for what it counts, and a lesson about the news
        ("c3ref/changes.md", "Count The Number Of Rows Modified", "lesson"),
        ("sect.follow-debian-news.md", "Keeping Informed of News", "lesson"),
    ],
)
def test_a_changelog_restates_what_the_lessons_say(path: str, title: str, kind: str) -> None:
    chunks = chunks_of(f"# {title}\n\n## Features\n\n{paragraph(60)}\n", path)
    assert chunks and all(c.kind == kind for c in chunks)


@pytest.mark.parametrize(
    ("headings", "kind"),
    [
        (["1.3.3 (2024-10-25)", "1.3.2 (2023-12-15)", "Release History", "1.3.1"], "summary"),
        (["Version 4.6.2", "Version 4.6.1", "Version 4.6.0"], "summary"),
        (["v1.14.0 - 2024-12-16", "v1.12.0 - 2024-05-28", "v1.11.1 - 2024-05-23"], "summary"),
        # numbered sections and FAQ entries are not releases; two releases make no changelog
        (["2.1 Installation", "2.2 Usage", "2.3 Upgrading"], "lesson"),
        (["1.1: Sources of information", "1.2: What is it?", "1.3: What is it good at?"], "lesson"),
        (["Upgrading", "1.2 (2023)", "1.1 (2022)", "Caveats", "Rollback"], "lesson"),
    ],
)
def test_a_page_whose_sections_are_releases_is_a_changelog_whatever_its_name(headings: list[str], kind: str) -> None:
    sections = "".join(f"## {heading}\n\n{paragraph(60)}\n\n" for heading in headings)
    chunks = chunks_of(f"# Version Changes\n\n{sections}", "docs/changes-and-more.md")
    assert chunks and all(c.kind == kind for c in chunks)


def test_embedding_text_carries_the_citation_context() -> None:
    chunk = chunks_of(f"# Lesson\n\n## Part\n\n{paragraph(60)}\n")[0]
    assert chunk.embedding_text.startswith("b › Mod › Lesson › Part\n\n## Part")
    assert re.fullmatch(r"[0-9a-f]{32}", chunk.content_hash)


# --- MDX statements and comments, long paragraphs -------------------------------------------


def test_multi_line_mdx_exports_are_dropped() -> None:
    source = f"# T\n\n## S\n\nexport const toc = [\n  {{value: 'a'}},\n];\n\n{paragraph(50)}\n"
    text = "\n".join(c.text for c in chunks_of(source, "01-mod/01-page.mdx"))
    assert "export const" not in text and "value: 'a'" not in text


def test_mdx_comments_spanning_blank_lines_are_removed() -> None:
    source = f"# T\n\n## S\n\n{{/*\n\nnote for editors\n\n*/}}\n\n{paragraph(50)}\n"
    text = "\n".join(c.text for c in chunks_of(source, "01-mod/01-page.mdx"))
    assert "note for editors" not in text and "{/*" not in text


def test_a_comment_opened_after_a_paragraph_s_text_and_closed_later_leaves_the_text() -> None:
    """The paragraph's own words before the comment stay (this used to stop the ingest)."""
    source = f"# T\n\n## S\n\nShown before. <!-- a note\n\nfor editors -->\n\n{paragraph(50)}\n"
    text = "\n".join(c.text for c in chunks_of(source))
    assert "Shown before." in text and "for editors" not in text and "<!--" not in text


def test_offsets_of_a_split_paragraph_cover_each_part() -> None:
    long = "  ".join(f"Sentence number {i} is here with some words." for i in range(300))
    source = f"# T\n\n## S\n\n{long}\n"
    chunks = chunks_of(source)
    assert len(chunks) > 2
    for chunk in chunks:
        own = chunk.text[chunk.overlap_chars :].split("\n\n")[-1]
        assert own.endswith(source[chunk.start : chunk.end].rstrip()[-40:])


def test_mdx_comment_syntax_inside_code_is_code() -> None:
    source = (
        f"# T\n\n## S\n\n{paragraph(50)}\n\n```jsx\n<Tabs>{{/* keep me */}}\n{{/*\n\nme too */}}</Tabs>\n```\n\n"
        f"{{/* an editor's\n\nnote */}} Shown after the comment.\n"
    )
    text = "\n".join(c.text for c in chunks_of(source, "01-mod/01-page.mdx"))
    assert "<Tabs>{/* keep me */}" in text and "me too */}</Tabs>" in text
    assert "editor's" not in text and "Shown after the comment." in text


def test_passages_read_as_the_page_shows_them() -> None:
    """Links become their text (inline, by reference, collapsed, shortcut), images, HTML
    comments (also across blank lines), tags and admonition fences go; code keeps all of it."""
    source = f"""# T

## S

{paragraph(40)} See [Part 4: Store](./part-4-store.md) and ![image](/img/diagram.png) in
[its documentation][cargo], [cargo][] or [Cargo]; `<robot>` and `[a](b.md)` are code, and
array[0] is no link.

<!-- manual-regeneration
cd listings

and run it -->

:::warning Mutations

Never mutate state. <!-- editors: check this --> Copy it <span>first</span>.

:::

| tool | docs |
|---|---|
| cargo | [guide](guide.md) |

```md
[kept](as-is.md) <!-- in code --> ![kept](too.png)
```

[cargo]: https://doc.rust-lang.org/cargo
"""
    text = "\n".join(c.text for c in chunks_of(source))
    assert "See Part 4: Store and in its documentation, cargo or Cargo;" in " ".join(text.split())
    assert "`<robot>` and `[a](b.md)` are code" in text and "array[0] is no link" in text
    assert "manual-regeneration" not in text and "and run it" not in text and "<!--" not in text.split("```md")[0]
    assert ":::" not in text and "Mutations" not in text
    assert "Never mutate state. Copy it first." in " ".join(text.split())
    assert "| cargo | guide |" in text
    assert "[kept](as-is.md) <!-- in code --> ![kept](too.png)" in text
    assert "https://doc.rust-lang.org" not in text and "](" not in text.split("```md")[0].replace("`[a](b.md)`", "")


def test_list_items_that_are_only_links_point_elsewhere_and_are_not_passage_text() -> None:
    """A "Further information" list of links names pages of other sites: the page states
    nothing with it, so a quote never repeats it. An item with words of its own, a link with
    its description under it, a task box and an address stay; a label over links only goes with
    them."""
    source = f"""# T

## Comparing

{paragraph(40)}

**Articles**

- [Redux vs. the Context API](https://example.org/context)
- [One](https://example.org/1), [two][cargo]
  - [nested only](https://example.org/nested)

**Documentation**

- [`createSlice`](../api/createSlice.md): makes a slice of state
- [Setup](./setup.md)
  How to install it, step by step.
- [x] a task that is done
- [https://bugs.example.org](https://bugs.example.org)
1. [Numbered](https://example.org/n)

[cargo]: https://doc.rust-lang.org/cargo
"""
    text = "\n".join(c.text for c in chunks_of(source))
    for pointer in ("Redux vs. the Context API", "One", "two", "nested only", "Numbered", "Articles"):
        assert pointer not in text
    assert "- `createSlice`: makes a slice of state" in text
    assert "- Setup\n  How to install it, step by step." in text
    assert "- [x] a task that is done" in text and "**Documentation**" in text
    assert "- https://bugs.example.org" in text  # an address is stated, not pointed to


def test_a_code_example_in_a_quoted_list_keeps_its_link_only_lines() -> None:
    """A fence inside a blockquote opens with "> ```": the links-only line in it is code."""
    source = f"""# T

## Setup

{paragraph(40)}

> 1. Add this to the index:
>    ```md
>    - [Docs](https://example.org/docs)
>    ```
"""
    text = "\n".join(c.text for c in chunks_of(source))
    assert ">    - [Docs](https://example.org/docs)" in text


def test_pointers_go_from_quotes_and_directives_but_code_and_rules_stay() -> None:
    """A link-only item inside a blockquote or a MyST seealso goes as in a list; one inside a
    code example is code; a bold rule over a list of links is a rule, not a label."""
    source = f"""# T

## Setup

{paragraph(40)}

1. Add this to the index:
   ```md
   - [Docs](https://example.org/docs)
   ```

> - [Quoted pointer](https://example.org/q)
> - quoted words of its own

```{{seealso}}
- [Elsewhere](https://example.org/e)
```

**Never mutate state in a reducer, whatever the tutorials say.**

- [Immutability](https://example.org/i)
"""
    text = "\n".join(c.text for c in chunks_of(source))
    assert "- [Docs](https://example.org/docs)" in text
    assert "Quoted pointer" not in text and "quoted words of its own" in text
    assert "Elsewhere" not in text and "Immutability" not in text
    assert "Never mutate state in a reducer, whatever the tutorials say." in text


def test_myst_roles_targets_comments_and_directives_read_as_the_page_shows_them() -> None:
    """Sphinx's MyST markdown: roles show their text (code for a program's objects), target
    labels and comments show nothing, admonition directives are prose, code directives code,
    and the rest (toctree, include, …) nothing."""
    source = f"""# T

(custom-label)=
## S

{paragraph(40)} Use {{func}}`attrs.define` or {{class}}`~attrs.Attribute`, read
{{doc}}`overview`, {{ref}}`the guide <guide-target>` and {{pep}}`681`.

% a comment for the docs' editors

```{{note}}
:class: tip
Slotted classes save memory.
```

```{{doctest}}
>>> C(1) == C(1)
True
```

```{{toctree}}
:maxdepth: 2
overview
```
"""
    text = " ".join("\n".join(c.text for c in chunks_of(source)).split())
    assert "Use `attrs.define` or `Attribute`, read overview, the guide and PEP 681." in text
    assert "custom-label" not in text and "editors" not in text and "{" not in text.split("```")[0]
    assert "Slotted classes save memory." in text and ":class:" not in text
    assert "```{doctest} >>> C(1) == C(1) True ```" in text
    assert "maxdepth" not in text and "toctree" not in text


def test_sphinx_design_tabs_and_cards_read_as_the_page_shows_their_content() -> None:
    """Tabs, grids and cards (sphinx-design) lay out prose and code the page shows in full:
    their labels and options are markup, their content is the page's own prose and code."""
    source = f"""# Install

{paragraph(40)}

::::{{tab-set}}
:::{{tab-item}} pip
:sync: pip
Install with pip from the package index.

```bash
pip install widgets
```
:::
:::{{tab-item}} conda
Install with conda from the forge channel.
:::
::::

````{{card}} Card title
---
link: install
---
The card's body text.

```python
widgets.setup()
```
````
"""
    blocks = parse_blocks(source, 0)
    kinds = [(b.kind, b.text) for b in blocks]
    assert ("text", "Install with pip from the package index.") in kinds
    assert ("fence", "```bash\npip install widgets\n```") in kinds
    assert ("text", "Install with conda from the forge channel.") in kinds
    assert ("text", "The card's body text.") in kinds
    assert ("fence", "```python\nwidgets.setup()\n```") in kinds
    text = "\n".join(text for _, text in kinds)
    assert "sync" not in text and "link:" not in text and "---" not in text and "Card title" not in text
    assert all(source[b.start : b.end].strip().endswith(b.text.splitlines()[-1]) for b in blocks if b.kind == "fence")


def test_a_colon_fence_is_markup_wherever_it_stands_and_whatever_options_it_takes() -> None:
    """MyST's colon fences as myst-parser builds them: a YAML option block is the directive's, not
    two setext headings; a fence right under a paragraph's last line ends that paragraph; an
    object's fence shows its signature; the same lines inside a code example are the example's."""
    source = f"""# Guide

{paragraph(30)}
:::{{note}}
The note's own paragraph.
:::

:::{{warning}}
---
class: dropdown
---
Mind the dropdown.
:::

:::{{py:function}} spam(eggs)
:no-index:
Fries the eggs.
:::

:::tip What You'll Learn
- Docusaurus fences too.
:::

::: package.module

```markdown
:::{{note}}
---
class: dropdown
---
:::
```
"""
    blocks = parse_blocks(source, 0)
    assert [b.text for b in blocks if b.kind == "heading"] == ["Guide"]
    texts = [b.text for b in blocks if b.kind == "text"]
    assert texts[0].endswith("Word29") and "The note's own paragraph." in texts
    assert "Mind the dropdown." in texts and "spam(eggs)" in texts and "Fries the eggs." in texts
    assert "- Docusaurus fences too." in texts
    joined = "\n".join(texts)
    assert ":::" not in joined and "class" not in joined and "no-index" not in joined and "Learn" not in joined
    assert [b.text for b in blocks if b.kind == "fence"] == ["```markdown\n:::{note}\n---\nclass: dropdown\n---\n:::\n```"]
    assert source[next(b.start for b in blocks if b.text == "spam(eggs)"):].startswith(":::{py:function} spam(eggs)")


FOOTNOTES_PAGE = """# Frozen Classes

## Immutability

attrs classes can be immutable[^immutable], and hashable[^2] too. A bracket such as [^not-a-note]
with no definition is text.

[^immutable]: Assigning to an attribute of a frozen instance raises
    FrozenInstanceError.

    A frozen class still runs its validators once, in `__init__`.

## Hashing

Equal instances of a hashable class have equal hashes.

[^2]: Only when `eq` and `frozen` are both true.
"""


def test_footnote_markers_go_and_notes_are_read_where_they_are_written() -> None:
    chunks = chunks_of(FOOTNOTES_PAGE)
    text = "\n\n".join(chunk.text for chunk in chunks)
    assert "[^immutable]" not in text and "[^2]" not in text and "[^immutable]:" not in text
    assert "attrs classes can be immutable, and hashable too." in text
    assert "[^not-a-note]" in text  # not a footnote: shown as written
    immutability = next(chunk for chunk in chunks if chunk.heading == "Immutability")
    assert "Assigning to an attribute of a frozen instance raises\nFrozenInstanceError." in immutability.text
    assert "A frozen class still runs its validators once, in `__init__`." in immutability.text
    assert "    " not in immutability.text  # the note's indent is markup, not a code block
    hashing = next(chunk for chunk in chunks if chunk.heading == "Hashing")
    assert hashing.text.endswith("Only when `eq` and `frozen` are both true.")


def test_footnote_notes_keep_their_place_in_the_source() -> None:
    blocks = parse_blocks(FOOTNOTES_PAGE, 0)
    assert [block.start for block in blocks] == sorted(block.start for block in blocks)
    note = next(block for block in blocks if block.text.startswith("Assigning"))
    assert FOOTNOTES_PAGE[note.start:note.end].startswith("[^immutable]: Assigning")


def test_python_special_names_are_identifiers_not_emphasis() -> None:
    """Markdown reads "__new__" as "new" in bold: a page that writes a special name without
    backticks means the name, which sentences and section names keep whole."""
    page = parse("""# The `__new__()` Hook

## How __init__ Runs

Instances are made by __new__() and object.__new__, then set up by __init__; a package has an
__init__.py file. snake_case_names, `__slots__` in code, *emphasis* and __Bold__ read as before.
""")
    chunk = page.chunks[0]
    assert page.page.title == "The __new__() Hook"
    assert (chunk.heading, chunk.anchor) == ("How __init__ Runs", "how-__init__-runs")  # as Docusaurus slugs it
    assert "Instances are made by `__new__()` and `object.__new__`, then set up by `__init__`" in chunk.text
    assert "a package has an\n`__init__.py` file. snake_case_names, `__slots__` in code, *emphasis* and __Bold__" in chunk.text
    sentences = [sentence.text for sentence in split_sentences(chunk.id, chunk.text)]
    assert sentences[0].startswith("Instances are made by `__new__()` and `object.__new__`, then set up by `__init__`")
    assert "emphasis and Bold read as before." in sentences[-1]


def test_a_collapsible_is_read_as_its_body_without_its_button_label() -> None:
    page = parse("""# Exercises

## Sorting

**Question 1:** Which function returns a new sorted list?

<details>
<summary>Reveal Answer</summary>

`sorted()` returns a new list; `list.sort()` sorts in place.
</details>

**Question 2:** Is the sort stable?

<details><summary>Show   solution</summary>Yes: equal items keep their order.</details>

<details>
  <summary>Hint</summary>

Think of records sorted twice.

<details>
<summary>Deeper</summary>

Sort by the secondary key first.

</details>

Then by the primary key.
</details>

Sorting is done.
""", path="01-mod/quiz.md")
    assert page.page.kind == "quiz" and page.dropped_questions == 0  # answered inside their collapsibles
    chunk, = page.chunks
    for label in ("Reveal Answer", "Show", "solution", "Hint", "Deeper", "summary", "details"):
        assert label not in chunk.text
    bodies = [(chunk.text[start:end], summary) for start, end, summary in chunk.collapsibles]
    assert bodies == [
        ("`sorted()` returns a new list; `list.sort()` sorts in place.", "Reveal Answer"),
        ("Yes: equal items keep their order.", "Show solution"),
        ("Think of records sorted twice.", "Hint"),
        ("Sort by the secondary key first.", "Deeper"),
        ("Then by the primary key.", "Hint"),
    ]
    assert chunk.text.endswith("Then by the primary key.\n\nSorting is done.")
