"""Animated GIF and WebP through the image endpoints: frames, durations and loop count kept, or the first
frame said so; frames x pixels bounded. Outputs checked with Pillow and, for WebP, libwebp's webpmux."""

from __future__ import annotations

import io
import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from tests.helpers import auth, require_tool

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]
DURATIONS = [100, 150, 200, 250]


def animation(fmt: str = "GIF", *, size: tuple[int, int] = (60, 40), frames: int = 4, loop: int | None = 0) -> bytes:
    images = [Image.new("RGB", size, COLOURS[index % len(COLOURS)]) for index in range(frames)]
    out = io.BytesIO()
    options: dict[str, object] = {"save_all": True, "append_images": images[1:]}
    options["duration"] = [DURATIONS[index % len(DURATIONS)] for index in range(frames)]
    if loop is not None:
        options["loop"] = loop
    images[0].save(out, fmt, **options)
    return out.getvalue()


def frames_of(data: bytes) -> list[tuple[tuple[int, int], int, tuple[int, ...]]]:
    """(size, duration, centre pixel) of every frame."""
    image = Image.open(io.BytesIO(data))
    result = []
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        frame = image.convert("RGB")
        pixel = frame.getpixel((0, 0))
        assert isinstance(pixel, tuple)
        result.append((frame.size, int(image.info.get("duration", 0)), pixel))
    return result


def webpmux_info(data: bytes) -> str:
    webpmux = require_tool("webpmux")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "out.webp"
        path.write_bytes(data)
        return subprocess.run([webpmux, "-info", str(path)], capture_output=True, text=True, check=True).stdout


def close(pixel: tuple[int, ...], colour: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 12 for a, b in zip(pixel, colour, strict=False))


@pytest.mark.parametrize(
    ("path", "params", "size"),
    [
        ("/v1/image/resize", {"width": "30"}, (30, 20)),
        ("/v1/image/rotate", {"degrees": "90"}, (40, 60)),
        ("/v1/image/flip", {"direction": "horizontal"}, (60, 40)),
        ("/v1/image/crop", {"x": "10", "y": "5", "width": "20", "height": "10"}, (20, 10)),
        ("/v1/image/convert", {"to": "webp"}, (60, 40)),
    ],
)
def test_an_animated_gif_stays_animated_as_webp(
    api: TestClient, key: str, path: str, params: dict[str, str], size: tuple[int, int]
) -> None:
    # GIVEN a 4-frame GIF looping forever WHEN it goes through the endpoint with no output format (or to webp)
    response = api.post(path, params=params, content=animation(), headers=auth(key))
    # THEN an animated WebP comes back with every frame, its duration and the loop count, and says so
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/webp"
    assert (response.headers["X-Animation"], response.headers["X-Animation-Frames"]) == ("kept", "4")
    frames = frames_of(response.content)
    assert [frame[:2] for frame in frames] == [(size, duration) for duration in DURATIONS]
    assert all(close(frame[2], colour) for frame, colour in zip(frames, COLOURS, strict=True))
    info = webpmux_info(response.content)
    assert re.search(r"Number of frames: 4", info)
    assert re.search(r"Loop Count\s*:\s*0", info)


def test_an_animated_webp_keeps_its_loop_count_and_becomes_an_animated_avif(api: TestClient, key: str) -> None:
    source = animation("WEBP", loop=3)
    resized = api.post("/v1/image/resize", params={"width": "30"}, content=source, headers=auth(key))
    assert resized.status_code == 200
    assert re.search(r"Loop Count\s*:\s*3", webpmux_info(resized.content))
    avif = api.post("/v1/image/convert", params={"to": "avif"}, content=source, headers=auth(key))
    assert (avif.status_code, avif.headers["X-Animation"]) == (200, "kept")
    assert [frame[:2] for frame in frames_of(avif.content)] == [((60, 40), duration) for duration in DURATIONS]


def test_a_gif_without_a_loop_count_plays_once(api: TestClient, key: str) -> None:
    response = api.post("/v1/image/rotate", params={"degrees": "180"}, content=animation(loop=None), headers=auth(key))
    assert response.status_code == 200
    assert re.search(r"Loop Count\s*:\s*1", webpmux_info(response.content))


@pytest.mark.parametrize("fmt", ["png", "jpeg"])
def test_to_a_format_without_animation_the_first_frame_is_written_and_said(api: TestClient, key: str, fmt: str) -> None:
    response = api.post(
        "/v1/image/resize", params={"width": "30", "format": fmt}, content=animation(), headers=auth(key)
    )
    assert response.status_code == 200
    assert (response.headers["X-Animation"], response.headers["X-Animation-Frames"]) == ("first-frame", "4")
    frames = frames_of(response.content)
    assert len(frames) == 1 and frames[0][0] == (30, 20) and close(frames[0][2], COLOURS[0])


def test_an_animated_webp_compresses_to_an_animation(api: TestClient, key: str) -> None:
    source = animation("WEBP", size=(200, 120))
    response = api.post("/v1/image/compress", params={"quality": "30"}, content=source, headers=auth(key))
    assert response.status_code == 200
    assert response.headers["X-Animation"] == "kept"
    assert len(frames_of(response.content)) == 4
    assert len(response.content) <= len(source)


def test_still_images_carry_no_animation_header(api: TestClient, key: str) -> None:
    still = animation(frames=1)
    response = api.post("/v1/image/resize", params={"width": "30"}, content=still, headers=auth(key))
    assert response.status_code == 200
    assert "X-Animation" not in response.headers


def test_frames_count_together_against_the_pixel_limits(api: TestClient, key: str) -> None:
    # 60 frames of 1000 x 1000 are 60 megapixels in: over the 50-megapixel limit though each frame is 1 MP
    big = animation(size=(1000, 1000), frames=60)
    response = api.post("/v1/image/rotate", params={"degrees": "90"}, content=big, headers=auth(key))
    assert (response.status_code, response.json()["error"]) == (413, "too_large")
    assert "60 frames" in response.json()["message"]
    # 10 frames upscaled to 3000 x 2000 would be 60 megapixels out
    upscaled = api.post("/v1/image/resize", params={"width": "3000"}, content=animation(frames=10), headers=auth(key))
    assert (upscaled.status_code, upscaled.json()["error"]) == (413, "too_large")
    assert "10 frames" in upscaled.json()["message"]
