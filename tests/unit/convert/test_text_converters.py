"""Hash, word count, diff, Markdown and colour converters."""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fileapi.convert.color import convert_color
from fileapi.convert.hashing import hash_bytes
from fileapi.convert.markdown_html import markdown_to_html
from fileapi.convert.text_options import HashAlgorithm
from fileapi.convert.textdiff import diff_texts
from fileapi.convert.wordcount import count_text
from fileapi.errors import InvalidInput


@pytest.mark.parametrize("algorithm", list(HashAlgorithm))
def test_hash_matches_hashlib(algorithm: HashAlgorithm) -> None:
    data = bytes(range(256)) * 100
    digest = hash_bytes(data, algorithm=algorithm)
    assert digest.hex == hashlib.new(algorithm.value, data).hexdigest()
    assert digest.bytes == 25_600
    assert digest.algorithm == algorithm.value


def test_hash_of_empty_input() -> None:
    assert hash_bytes(b"").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum is not installed")
def test_hash_agrees_with_sha256sum(tmp_path: Path) -> None:
    data = bytes(range(256)) * 4099
    path = tmp_path / "blob"
    path.write_bytes(data)
    expected = subprocess.run(["sha256sum", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert hash_bytes(data).hex == expected


def test_word_count_of_hand_counted_english() -> None:
    text = "Hello, world! Don't panic: e-mail me at 3.14 o'clock.\n\nSecond paragraph here…  Really?"
    counts = count_text(text.encode())
    # Hello | world | Don't | panic | e-mail | me | at | 3.14 | o'clock | Second | paragraph | here | Really
    assert counts.words == 13
    assert counts.sentences == 4
    assert counts.paragraphs == 2
    assert counts.lines == 3
    assert counts.characters == len(text)
    assert counts.charactersNoSpaces == len(text) - text.count(" ") - text.count("\n")
    assert counts.readingTimeMinutes == round(13 / 238, 2)


def test_word_count_counts_cjk_characters_as_words() -> None:
    counts = count_text("我爱北京。日本語のテキスト".encode())
    assert counts.words == 12  # 我 爱 北 京 | 日 本 語 の テ キ ス ト
    assert counts.sentences == 2


def test_word_count_counts_graphemes_not_code_points() -> None:
    counts = count_text("e\u0301 👍🏽 🇫🇷 👨‍👩‍👧".encode())
    assert counts.characters == 7
    assert counts.charactersNoSpaces == 4
    assert counts.words == 1


def test_word_count_of_empty_text() -> None:
    counts = count_text(b"")
    assert (counts.words, counts.characters, counts.sentences, counts.paragraphs, counts.lines) == (0, 0, 0, 0, 0)


def test_word_count_rejects_invalid_utf8() -> None:
    with pytest.raises(InvalidInput, match="UTF-8"):
        count_text(b"abc\xff")


def test_diff_identical_texts() -> None:
    result = diff_texts("same\n", "same\n")
    assert (result.identical, result.added, result.removed, result.unified, result.hunks) == (True, 0, 0, "", [])


def test_diff_hunks_and_counts() -> None:
    a = "".join(f"line {i}\n" for i in range(1, 21))
    b = a.replace("line 5\n", "line five\n").replace("line 18\n", "")
    result = diff_texts(a, b, context=1, label_a="old.txt", label_b="new.txt")
    assert result.unified.startswith("--- old.txt\n+++ new.txt\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+line five\n")
    assert (result.added, result.removed, len(result.hunks)) == (1, 2, 2)
    second = result.hunks[1]
    assert (second.oldStart, second.oldLines, second.newStart, second.newLines) == (17, 3, 17, 2)
    assert [line["type"] for line in second.lines] == ["context", "removed", "context"]


def test_diff_marks_missing_final_newline() -> None:
    result = diff_texts("a\nb", "a\nc")
    assert (
        result.unified
        == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"
    )


def test_diff_of_empty_side() -> None:
    result = diff_texts("", "x\n")
    assert result.unified == "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n"
    assert (result.hunks[0].oldStart, result.hunks[0].newStart) == (0, 1)


def test_diff_rejects_bad_options() -> None:
    with pytest.raises(InvalidInput, match="context"):
        diff_texts("a", "b", context=-1)
    with pytest.raises(InvalidInput, match="labelA"):
        diff_texts("a", "b", label_a="x\ny")


lines = st.lists(st.sampled_from(["alpha", "beta", "gamma", "", "  indented", "tab\there"]), max_size=12)


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@settings(max_examples=40, deadline=None)
@given(lines, lines, st.booleans(), st.booleans(), st.integers(min_value=0, max_value=4))
def test_patch_applies_the_unified_diff(
    old: list[str], new: list[str], old_eol: bool, new_eol: bool, context: int
) -> None:
    import tempfile

    a = "\n".join(old) + ("\n" if old_eol and old else "")
    b = "\n".join(new) + ("\n" if new_eol and new else "")
    result = diff_texts(a, b, context=context)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "file.txt"
        target.write_bytes(a.encode())
        subprocess.run(
            ["patch", "--quiet", "--force", str(target)], input=result.unified.encode(), check=True, capture_output=True
        )
        assert target.read_bytes() == b.encode()


def test_markdown_gfm_extensions() -> None:
    html = markdown_to_html(b"| a | b |\n|---|---|\n| 1 | 2 |\n\n~~gone~~ www.example.com\n\n- [ ] todo\n").decode()
    assert "<table>" in html and "<td>1</td>" in html
    assert "<del>gone</del>" in html
    assert '<a href="http://www.example.com">www.example.com</a>' in html
    assert 'type="checkbox"' in html


def test_markdown_escapes_raw_html_by_default() -> None:
    html = markdown_to_html(b"<script>alert(1)</script>\n\n<b>x</b>").decode()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>x</b>" in markdown_to_html(b"<b>x</b>", allow_html=True).decode()


@pytest.mark.parametrize("link", ["javascript:alert(1)", "JAVASCRIPT:alert(1)", "vbscript:x", "data:text/html,x"])
def test_markdown_never_renders_dangerous_links(link: str) -> None:
    html = markdown_to_html(f"[click]({link}) <{link}>".encode()).decode()
    assert "href" not in html


@pytest.mark.parametrize(
    ("color", "hex_value", "hsl"),
    [
        ("rebeccapurple", "#663399", {"h": 270.0, "s": 50.0, "l": 40.0}),
        ("#6495ED", "#6495ed", {"h": 218.5, "s": 79.2, "l": 66.1}),
        ("rgb(255, 165, 0)", "#ffa500", {"h": 38.8, "s": 100.0, "l": 50.0}),
        ("hsl(120deg 100% 25%)", "#008000", {"h": 120.0, "s": 100.0, "l": 25.0}),
        ("hwb(240 20% 20%)", "#3333cc", {"h": 240.0, "s": 60.0, "l": 50.0}),
        ("rgb(100% 0% 0%)", "#ff0000", {"h": 0.0, "s": 100.0, "l": 50.0}),
    ],
)
def test_color_conversions_match_published_values(color: str, hex_value: str, hsl: dict[str, float]) -> None:
    result = convert_color(color)
    assert result["hex"] == hex_value
    assert result["hsl"] == hsl


def test_color_cmyk_and_hsv_of_orange() -> None:
    result = convert_color("orange")
    assert result["cmyk"] == {"c": 0.0, "m": 35.3, "y": 100.0, "k": 0.0}
    assert result["hsv"] == {"h": 38.8, "s": 100.0, "v": 100.0}
    assert convert_color("cmyk(0%, 35.3%, 100%, 0%)")["hex"] == "#ffa500"


def test_color_alpha_is_reported_when_given() -> None:
    result = convert_color("rgba(0, 0, 255, 0.5)")
    assert result["hex"] == "#0000ff80"
    assert result["rgb"] == {"r": 0, "g": 0, "b": 255, "a": 0.5}
    assert "a" not in convert_color("blue")["rgb"]
    assert convert_color("#0000ff80")["rgb"]["a"] == 0.502


@pytest.mark.parametrize(
    "color", ["", "#12", "#gggggg", "rgb(256,0,0)", "rgb(1,2)", "hsl(1,2%,300%)", "bluish", "x" * 300]
)
def test_invalid_colours_are_rejected_without_repeating_the_input(color: str) -> None:
    with pytest.raises(InvalidInput, match="not a colour") as caught:
        convert_color(color)
    assert "expected #rgb" in caught.value.message
    if len(color) > 3:
        assert color not in caught.value.message


def test_colour_errors_name_an_out_of_range_number_or_the_component_count() -> None:
    with pytest.raises(InvalidInput, match=r"\(256 is out of range\)"):
        convert_color("rgb(256, 0, 0)")
    with pytest.raises(InvalidInput, match=r"\(2 components where 3 are needed\)"):
        convert_color("rgb(1, 2)")


@given(st.text(max_size=40))
def test_colour_parser_gives_a_result_or_invalid_input(text: str) -> None:
    with contextlib.suppress(InvalidInput):
        convert_color(text)


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
def test_large_repetitive_diff_is_still_a_valid_patch(tmp_path: Path) -> None:
    a = "x\ny\n" * 10_000
    b = "y\nx\n" * 10_000 + "tail\n"
    result = diff_texts(a, b)
    target = tmp_path / "file.txt"
    target.write_bytes(a.encode())
    subprocess.run(["patch", "--quiet", str(target)], input=result.unified.encode(), check=True, capture_output=True)
    assert target.read_bytes() == b.encode()


def test_common_prefix_and_suffix_keep_the_diff_minimal() -> None:
    a = "same\n" * 5000 + "old\n" + "same\n" * 5000
    result = diff_texts(a, a.replace("old", "new"), context=0)
    assert (result.added, result.removed) == (1, 1)
    assert result.hunks[0].oldStart == 5001


def test_named_colours_after_pillow_cached_them() -> None:
    from PIL import Image

    Image.new("RGB", (1, 1), "white")  # Pillow replaces the colormap entry with a parsed tuple
    assert convert_color("white")["hex"] == "#ffffff"


def test_diff_line_texts_keep_a_carriage_return_as_the_unified_diff_does() -> None:
    diff = diff_texts("x\n", "x\r\n")
    lines = [(line["type"], line["text"]) for hunk in diff.hunks for line in hunk.lines]
    assert lines == [("removed", "x"), ("added", "x\r")]
    assert diff.unified == "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+x\r\n"
