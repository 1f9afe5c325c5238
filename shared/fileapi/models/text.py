"""Files and text: digests, detected types, counts, diffs and colours."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fileapi.convert.text_options import MAX_CONTEXT, WORDS_PER_MINUTE, HashAlgorithm
from fileapi.models import ApiModel, ApiRequest, QueryOptions, example


class FileHashResult(ApiModel):
    """The digest of the bytes, in hex and Base64."""

    model_config = example(
        {
            "algorithm": "sha256",
            "hex": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
            "base64": "LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=",
            "bytes": 5,
        }
    )

    algorithm: HashAlgorithm = Field(description="The digest algorithm used.")
    hex: str = Field(description="Digest in lower-case hexadecimal.")
    base64: str = Field(description="The same digest in Base64.")
    size: int = Field(alias="bytes", description="Length of the input in bytes.")


class FileDetectResult(ApiModel):
    """The file's type, read from its bytes."""

    model_config = example({"mime": "image/png", "extension": "png", "description": "PNG image"})

    mime: str = Field(description="Media type, e.g. image/png.")
    extension: str = Field(description="Usual file extension, without the dot.")
    description: str = Field(description="What the file is, in words.")


class TextWordCountResult(ApiModel):
    """Counts of the text's words, characters, sentences, paragraphs and lines."""

    model_config = example(
        {
            "words": 4,
            "characters": 20,
            "charactersNoSpaces": 17,
            "sentences": 2,
            "paragraphs": 1,
            "lines": 1,
            "readingTimeMinutes": 0.02,
        }
    )

    words: int = Field(description="Runs of letters and digits; each CJK ideograph or kana is one.")
    characters: int = Field(description="User-perceived characters (grapheme clusters).")
    characters_no_spaces: int = Field(description="Characters that are not white space.")
    sentences: int = Field(description="Ending in . ! ? … or their full-width forms.")
    paragraphs: int = Field(description="Separated by blank lines.")
    lines: int = Field(description="Lines of text.")
    reading_time_minutes: float = Field(description=f"words / {WORDS_PER_MINUTE}, two decimals.")


class DiffRequest(ApiRequest):
    """Two texts to compare."""

    model_config = example({"a": "one\ntwo\n", "b": "one\nthree\n", "context": 3})

    a: str = Field(description="The old text.")
    b: str = Field(description="The new text.")
    context: int = Field(default=3, ge=0, le=MAX_CONTEXT, description="Unchanged lines around each change.")
    label_a: str = Field(default="a", max_length=200, description="Name on the `---` line.")
    label_b: str = Field(default="b", max_length=200, description="Name on the `+++` line.")


class DiffLine(ApiModel):
    """One line of a hunk."""

    model_config = example({"type": "added", "text": "new"})

    type: Literal["context", "added", "removed"] = Field(description="Unchanged, added or removed.")
    text: str = Field(description="The line, without its line end.")


class DiffHunk(ApiModel):
    """One run of changes with its context, as `@@ -oldStart,oldLines +newStart,newLines @@`."""

    model_config = example(
        {
            "oldStart": 1,
            "oldLines": 1,
            "newStart": 1,
            "newLines": 1,
            "lines": [{"type": "removed", "text": "old"}, {"type": "added", "text": "new"}],
        }
    )

    old_start: int = Field(description="First line in the old text (1-based).")
    old_lines: int = Field(description="Lines of the old text in the hunk.")
    new_start: int = Field(description="First line in the new text (1-based).")
    new_lines: int = Field(description="Lines of the new text in the hunk.")
    lines: list[DiffLine] = Field(description="The hunk's lines in order.")


class TextDiffResult(ApiModel):
    """The differences between the two texts."""

    model_config = example(
        {
            "identical": False,
            "added": 1,
            "removed": 1,
            "unified": "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n",
            "hunks": [
                {
                    "oldStart": 1,
                    "oldLines": 1,
                    "newStart": 1,
                    "newLines": 1,
                    "lines": [{"type": "removed", "text": "old"}, {"type": "added", "text": "new"}],
                }
            ],
        }
    )

    identical: bool = Field(description="The texts are the same.")
    added: int = Field(description="Lines added.")
    removed: int = Field(description="Lines removed.")
    unified: str = Field(description="The unified diff, as `diff -u` writes it.")
    hunks: list[DiffHunk] = Field(description="The changes, in order.")


class ColorRequest(ApiRequest):
    """A colour to convert."""

    model_config = example({"color": "rgb(255 136 0 / 50%)"})

    color: str = Field(max_length=200, description="A CSS colour, e.g. `#ff8800`, `rgb(255 136 0 / 50%)`, `teal`.")


Alpha = Field(default=None, description="Alpha 0-1, three decimals; present when the input had one.")


class Rgb(ApiModel):
    """Red, green and blue, 0-255."""

    model_config = example({"r": 255, "g": 136, "b": 0, "a": 0.5})

    r: int = Field(description="Red, 0-255.")
    g: int = Field(description="Green, 0-255.")
    b: int = Field(description="Blue, 0-255.")
    a: float | None = Alpha


class Hsl(ApiModel):
    """Hue in degrees, saturation and lightness in percent, one decimal."""

    model_config = example({"h": 32.0, "s": 100.0, "l": 50.0, "a": 0.5})

    h: float = Field(description="Hue, degrees 0-360.")
    s: float = Field(description="Saturation, percent.")
    l: float = Field(description="Lightness, percent.")  # noqa: E741 (the colour model's letter)
    a: float | None = Alpha


class Hsv(ApiModel):
    """Hue in degrees, saturation and value in percent, one decimal."""

    model_config = example({"h": 32.0, "s": 100.0, "v": 100.0, "a": 0.5})

    h: float = Field(description="Hue, degrees 0-360.")
    s: float = Field(description="Saturation, percent.")
    v: float = Field(description="Value, percent.")
    a: float | None = Alpha


class Cmyk(ApiModel):
    """Cyan, magenta, yellow and key in percent, one decimal."""

    model_config = example({"c": 0.0, "m": 46.7, "y": 100.0, "k": 0.0})

    c: float = Field(description="Cyan, percent.")
    m: float = Field(description="Magenta, percent.")
    y: float = Field(description="Yellow, percent.")
    k: float = Field(description="Key (black), percent.")


class ColorConvertResult(ApiModel):
    """The colour in hex, RGB, HSL, HSV and CMYK."""

    model_config = example(
        {
            "hex": "#663399",
            "rgb": {"r": 102, "g": 51, "b": 153},
            "hsl": {"h": 270.0, "s": 50.0, "l": 40.0},
            "hsv": {"h": 270.0, "s": 66.7, "v": 60.0},
            "cmyk": {"c": 33.3, "m": 66.7, "y": 0.0, "k": 40.0},
        }
    )

    hex: str = Field(description="#rrggbb, or #rrggbbaa when the input had an alpha.")
    rgb: Rgb = Field(description="Red, green and blue (and alpha when the input had one).")
    hsl: Hsl = Field(description="Hue, saturation and lightness (and alpha when the input had one).")
    hsv: Hsv = Field(description="Hue, saturation and value (and alpha when the input had one).")
    cmyk: Cmyk = Field(description="Cyan, magenta, yellow and key (no alpha).")


class HashOptions(QueryOptions):
    algorithm: HashAlgorithm = Field(default=HashAlgorithm.SHA256, description="Digest algorithm.")


class MarkdownOptions(QueryOptions):
    allow_html: bool = Field(default=False, description="Pass raw HTML through (unsafe for untrusted input).")
