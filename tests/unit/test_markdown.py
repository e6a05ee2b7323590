"""Markdown/MDX → chunks, on hand-made edge cases."""

import pytest

from ingest_scripts.markdown import (
    MAX_TOKENS,
    FrontMatterError,
    chunk_page,
    estimate_tokens,
    split_front_matter,
)
from backend.retrieval.models import Chunk


def chunks_of(source: str, path: str = "01-mod/01-page.md") -> tuple[list[Chunk], int]:
    front_matter, body_start = split_front_matter(source, path)
    parsed = chunk_page(
        source, path, book="b", module="Mod", url="/docs/mod/page", lesson_id="mod/page",
        front_matter=front_matter, body_start=body_start,
    )
    return parsed.chunks, parsed.dropped_questions


def paragraph(words: int, seed: str = "word") -> str:
    """Prose of `words` words in sentences of twelve."""
    word = seed.capitalize()
    return " ".join(f"{word}{i}." if i % 12 == 11 else f"{word}{i}" for i in range(words))


def test_nested_headings_give_paths_and_anchors() -> None:
    source = f"""# Title

## Sensors

{paragraph(60)}

### 2D LiDAR

{paragraph(60, "lidar")}
"""
    chunks, _ = chunks_of(source)
    assert [c.section for c in chunks] == ["Sensors", "Sensors › 2D LiDAR"]
    assert [c.anchor for c in chunks] == ["sensors", "2d-lidar"]
    assert chunks[1].url == "/docs/mod/page#2d-lidar"
    assert chunks[0].lesson == "Title" and chunks[0].module == "Mod"


def test_hash_lines_inside_code_fences_are_not_headings() -> None:
    source = f"""# T

## Setup

{paragraph(50)}

```bash
# install the package
pip install lectern
## still code
```
"""
    chunks, _ = chunks_of(source)
    assert len(chunks) == 1
    assert "# install the package\npip install lectern\n## still code" in chunks[0].text
    assert chunks[0].text.count("```") == 2


def test_long_sections_split_evenly_with_overlap_and_never_inside_a_fence_or_table() -> None:
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| r{i} | v{i} |" for i in range(40))
    fence = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(60)) + "\n```"
    source = f"# T\n\n## Big\n\n{paragraph(300)}\n\n{fence}\n\n{paragraph(300, 'more')}\n\n{table}\n\n{paragraph(200, 'tail')}\n"
    chunks, _ = chunks_of(source)
    assert len(chunks) >= 3
    assert all(c.section == "Big" and c.anchor == "big" for c in chunks)
    for chunk in chunks:
        assert chunk.text.count("```") % 2 == 0
        if "| a | b |" in chunk.text:
            assert "| r39 | v39 |" in chunk.text  # the whole table in one chunk
    assert sum("| a | b |" in c.text for c in chunks) == 1
    later = [c for c in chunks[1:] if c.overlap_chars]
    assert later, "split parts carry a little of the previous part"
    for chunk in later:
        assert chunk.text[: chunk.overlap_chars - 2] in source


def test_paragraph_longer_than_budget_is_cut_at_sentences() -> None:
    chunks, _ = chunks_of(f"# T\n\n## Wall\n\n{paragraph(1200)}\n")
    assert len(chunks) >= 3
    assert all(estimate_tokens(c.text) <= MAX_TOKENS * 1.5 for c in chunks)


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

<Tabs>
<TabItem value="pip" label="pip">

Install with pip on any platform. {paragraph(40)}

</TabItem>
</Tabs>

```python
import os  # code keeps its imports
```
"""
    chunks, _ = chunks_of(source, "01-mod/02-install.mdx")
    text = "\n".join(c.text for c in chunks)
    assert "import Tabs" not in text and "export const" not in text
    assert "<Tabs>" not in text and "<TabItem" not in text and "a comment for editors" not in text
    assert "Install with pip on any platform." in text
    assert "import os  # code keeps its imports" in text


@pytest.mark.parametrize(
    "front_matter",
    [
        "",
        "---\n---\n",
        "---\ntitle: Given Title\ntags: single\n---\n",
        "---\ntitle: Given Title\ntags: [a, b]\nlearning_objectives:\n  - objective: Explain X\nskills:\n  - name: Reading\n---\n",
    ],
)
def test_front_matter_variants(front_matter: str) -> None:
    source = f"{front_matter}# Heading Title\n\n## S\n\n{paragraph(50)}\n"
    fm, body_start = split_front_matter(source, "x.md")
    parsed = chunk_page(source, "x.md", book="b", module="", url="/docs/x", lesson_id="x",
                        front_matter=fm, body_start=body_start)
    expected_title = "Given Title" if "title:" in front_matter else "Heading Title"
    assert parsed.page.title == expected_title
    assert parsed.chunks[0].start >= body_start
    if "tags: [a, b]" in front_matter:
        assert parsed.page.tags == ["a", "b"]
        assert parsed.page.objectives == ["Explain X"] and parsed.page.skills == ["Reading"]
    if "tags: single" in front_matter:
        assert parsed.page.tags == ["single"]


def test_invalid_front_matter_names_file_and_line() -> None:
    source = "---\ntitle: ok\ntags: [unclosed\n---\n# T\n"
    with pytest.raises(FrontMatterError, match=r"^docs/bad\.md:\d+: front matter"):
        split_front_matter(source, "docs/bad.md")


def test_empty_sections_make_no_chunks_and_tiny_ones_fold_forward() -> None:
    source = f"""# T

## Parent

### Child

{paragraph(80)}

## Tiny

Short.

## Next

{paragraph(80, "next")}
"""
    chunks, _ = chunks_of(source)
    assert [c.section for c in chunks] == ["Parent › Child", "Next"]
    assert "Short." in chunks[1].text  # folded into the following section


def test_offsets_point_into_the_source() -> None:
    source = f"---\ntitle: T\n---\n# T\n\n## A\n\n{paragraph(60)}\n\n## B\n\n{paragraph(60, 'bee')}\n"
    chunks, _ = chunks_of(source)
    for chunk in chunks:
        assert source[chunk.start : chunk.end].startswith("## ")
        assert chunk.text.splitlines()[-1] in source[chunk.start : chunk.end]


QUIZ = """---
title: Quiz
tags: [quiz]
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

**Question 3:** Which tool visualises the graph? (no answer anywhere)

## Answer Key

**Question 2:** A named channel for messages.
"""


def test_quizzes_keep_answered_questions_and_drop_unanswered_ones() -> None:
    chunks, dropped = chunks_of(QUIZ, "01-mod/06-quiz.md")
    text = "\n".join(c.text for c in chunks)
    assert dropped == 1
    assert "What does a node do?" in text and "A node runs one task." in text
    assert "What is a topic?" in text and "A named channel for messages." in text
    assert "Which tool visualises the graph?" not in text
    assert all(c.kind == "quiz" for c in chunks)


def test_summary_pages_are_marked() -> None:
    chunks, _ = chunks_of(f"# Summary\n\n## Key Points\n\n{paragraph(60)}\n", "01-mod/02-x.summary.md")
    assert chunks and all(c.kind == "summary" for c in chunks)
