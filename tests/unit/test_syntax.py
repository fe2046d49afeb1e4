"""The one reader of the course's Markdown (labkit.site.syntax), and the three jobs agreeing through it."""

import pytest

from labkit.site import syntax
from labkit.site.authoring import authoring_problems
from labkit.site.drift import page_sections
from labkit.site.inventory import page_inventory, unanchored_headings
from labkit.site.syntax import BlockMark, Fence, Option, Prose

#: The review's case: a four-backtick fence quoting a three-backtick line, then a figure-like text.
FOUR_BACKTICKS = """Intro.

````markdown
```python
x = 1
```
[[Ch02.Name]] and
/// quiz | q-in-code
///
````

After.
"""


def kinds(elements):
    return [type(element).__name__ for element in elements]


def test_a_four_backtick_fence_is_not_closed_by_three_backticks():
    elements = syntax.read(FOUR_BACKTICKS)
    assert kinds(elements) == ["Prose", "Prose", "Fence", "Prose", "Prose"]
    fence = elements[2]
    assert (fence.line, fence.marker, fence.language, fence.closed) == (3, "````", "markdown", True)
    assert fence.body == ("```python", "x = 1", "```", "[[Ch02.Name]] and", "/// quiz | q-in-code", "///")
    assert elements[-1] == Prose(12, "After.")


def test_each_job_leaves_the_quoted_syntax_alone():
    assert authoring_problems(FOUR_BACKTICKS) == []
    assert page_inventory(FOUR_BACKTICKS).quizzes == ()
    assert list(page_sections(FOUR_BACKTICKS)) == ["top"]
    assert page_sections(FOUR_BACKTICKS)["top"].code_blocks[0].startswith("```python")


def test_after_a_three_backtick_close_the_four_backtick_text_is_still_code():
    """Once the fence closes on its own four backticks, what follows is prose again."""
    text = "````\n```\n````\n[[Ch02.Name]]\n"
    assert authoring_problems(text) == ["line 4: [[Ch02.Name]] is not a figure name: lower-case words "
                                        "joined by dots, e.g. [[ch02.name]]"]


@pytest.mark.parametrize("text, body", [
    ("~~~\n```\n~~~\n", ("```",)),                  # tildes are closed by tildes only
    ("```\n~~~\n```\n", ("~~~",)),                  # and backticks by backticks
    ("~~~~ text\n~~~\n~~~~~\n", ("~~~",)),          # at least as many as the opener
    ("```\n``` python\n```\n", ("``` python",)),    # a closing line holds nothing but the fence
    ("    ```python\n    x\n    ```\n", ("    x",)),  # indented (in an admonition or a list)
])
def test_fences_close_as_commonmark_says(text, body):
    [fence] = syntax.read(text)
    assert isinstance(fence, Fence) and fence.closed and fence.body == body


def test_an_unclosed_fence_runs_to_the_end():
    [fence] = syntax.read("```\n/// quiz | q\n")
    assert not fence.closed and fence.body == ("/// quiz | q",)


def test_a_backtick_line_with_a_backtick_in_its_info_is_inline_code():
    assert kinds(syntax.read("```a``` is code\n")) == ["Prose"]


@pytest.mark.parametrize("kind", syntax.BLOCK_KINDS)
def test_every_block_kind_is_read_with_its_options_and_content(kind):
    text = f"/// {kind} | the-{kind}-1\n    unit: MB\n    k: v\n\nText `x`.\n\n```\n///\n```\n///\n"
    elements = syntax.read(text)
    assert kinds(elements) == ["BlockMark", "Option", "Option", "Prose", "Prose", "Prose", "Fence", "BlockMark"]
    [block] = syntax.blocks(elements)
    assert (block.kind, block.id, block.line, block.closed) == (kind, f"the-{kind}-1", 1, True)
    assert [option.text for option in block.options] == ["unit: MB", "k: v"]
    assert block.prose == "\nText `x`.\n\n"
    assert authoring_problems(text) == []


def test_each_job_sees_every_block_kind():
    """The parity inventory and the drift sections know every kind, exercise included."""
    text = "".join(f"/// {kind} | b-{kind}\nText.\n///\n" for kind in syntax.BLOCK_KINDS)
    inventory = page_inventory(text)
    assert inventory.quizzes == ("b-quiz",) and inventory.labs == ("b-lab",)
    assert inventory.records == ("checklist:b-checklist", "profile:b-profile", "diagnosis:b-diagnosis",
                                 "exercise:b-exercise")
    assert list(page_sections(text)) == ["top", *(f"{kind}:b-{kind}" for kind in syntax.BLOCK_KINDS)]


@pytest.mark.parametrize("header, well_formed", [
    ("quiz | q01-a", True), ("exercise|01-fuse", True), ("quiz", False), ("quiz |", False),
    ("quiz | Q01", False), ("quizz | q01", False), ("quiz | a | b", False), ("", False),
])
def test_a_block_line_is_well_formed_when_its_kind_and_id_are(header, well_formed):
    assert BlockMark(1, header).well_formed is well_formed


def test_options_follow_only_a_well_formed_opener():
    assert kinds(syntax.read("/// quizz | q\n    unit: MB\n///\n")) == ["BlockMark", "Prose", "BlockMark"]
    assert kinds(syntax.read("/// quiz | q\n\n    unit: MB\n///\n")) == ["BlockMark", "Prose", "Prose", "BlockMark"]


@pytest.mark.parametrize("line, spans", [
    ("a `b` c", ["b"]),
    ("``a ` b``", ["a ` b"]),                   # a shorter run inside a longer span
    ("`a`` b", []),                             # runs of different lengths do not pair
    ("```x``` and `y`", ["x", "y"]),
    ("\\`a` b`", [" b"]),                       # an escaped backtick is text: the next two pair
    ("`` ` ``", [" ` "]),
])
def test_inline_code_spans_pair_runs_of_equal_length(line, spans):
    assert [content for _, _, content in syntax.code_spans(line)] == spans


def test_placeholders_skip_inline_code():
    assert syntax.placeholders("[[a.b]] `[[c.d]]` [[E]]") == ["[[a.b]]", "[[E]]"]
    assert syntax.without_code_spans("x `y` z", " ") == "x   z"


def test_headings_and_their_anchors():
    text = "# T\n## A {#a}\n### B {#b .x}\n## C\n#### D {#d}\n#no-space\n```\n## in code {#c}\n```\n"
    found = [(h.line, h.level, h.anchor) for h in syntax.headings(syntax.read(text))]
    assert found == [(1, 1, None), (2, 2, "a"), (3, 3, "b"), (4, 2, None), (5, 4, "d")]
    assert unanchored_headings(text) == ["## C"]


def test_front_matter_is_skipped_and_counted():
    text = '---\ntranslation_of: "x"\n---\n## A {#a}\n'
    assert syntax.front_matter_lines(text) == 3
    assert syntax.read_page(text) == [Prose(4, "## A {#a}")]
    assert authoring_problems("[[X]]\n", first_line=4)[0].startswith("line 4:")


def test_html_comments_are_not_content():
    text = "a <!-- [[Bad]] --> b\n<!--\n/// quiz | q\n-->\n/// lab | l\n///\n"
    elements = syntax.read(text)
    assert elements[0] == Prose(1, "a  b")
    assert [e.header for e in elements if isinstance(e, BlockMark)] == ["lab | l", ""]
    assert authoring_problems(text) == []


def test_an_option_line_is_not_an_indented_fence():
    elements = syntax.read("/// quiz | q\n    unit: MB\n```\n///\n```\n///\n")
    assert isinstance(elements[1], Option) and isinstance(elements[2], Fence)
