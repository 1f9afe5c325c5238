"""Image conversion from a file to a file, for operations: a still PNG or JPEG to WebP or JPEG through libvips
(fileapi.convert.image_vips: read in strips as the encoder takes them), anything else through the synchronous
converter over a file Pillow reads on demand, so memory is bounded by the pixel limits (50 megapixels in and
out), not by the file's size. Paths are strings, so that a conversion worker gets them pickled as they are."""

from __future__ import annotations

from pathlib import Path

from fileapi.convert.image import check_quality, convert_image
from fileapi.convert.image_io import ImageFormat
from fileapi.convert.image_vips import convert_with_vips


def convert_image_file(
    source: str,
    out: str,
    *,
    to: ImageFormat,
    quality: int | None = None,
    target_score: float | None = None,
    jpeg_transcode: bool = False,
) -> dict[str, str]:
    """The image in the file `source` re-encoded as `to` into `out`, as `fileapi.convert.image.convert_image`
    does; the answer's headers beyond its type (`ImageResult.headers`: X-Animation and X-Animation-Frames for
    an animated input, X-Quality-Score and X-Encoder-Quality for a target score).

    :raises UnsupportedFormat: not an image of an accepted input format.
    :raises TooLarge: more than 50 megapixels in, or over the output bounds.
    :raises InvalidInput: truncated or corrupt, a quality out of 1..100 or a target score out of 30..95.
    """
    check_quality(quality)
    if (
        target_score is None
        and not jpeg_transcode
        and convert_with_vips(Path(source), Path(out), to=to, quality=quality)
    ):
        return {}
    result = convert_image(
        Path(source), to=to, quality=quality, target_score=target_score, jpeg_transcode=jpeg_transcode
    )
    Path(out).write_bytes(result.data)
    return result.headers()
