"""POST /v1/image/ocr through the API: the words of an image, each line's box where it was drawn."""

from __future__ import annotations

import io

from fastapi.testclient import TestClient
from PIL import Image, ImageDraw, ImageFont

from fileapi.local.template import PROJECT_ROOT
from tests.helpers import post_bytes

FONT = PROJECT_ROOT / "shared" / "fileapi" / "fonts" / "DejaVuSans.ttf"


def test_the_text_and_each_lines_box(api: TestClient, key: str) -> None:
    image = Image.new("RGB", (1200, 400), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), 60)
    draw.text((80, 60), "Invoice 2024", fill="black", font=font)
    draw.text((80, 220), "Total 42", fill="black", font=font)
    out = io.BytesIO()
    image.save(out, "PNG")
    response = post_bytes(api, key, "/v1/image/ocr", out.getvalue())
    assert response.status_code == 200, response.text
    answer = response.json()
    assert "Invoice 2024" in answer["text"] and "Total 42" in answer["text"]
    first, second = answer["blocks"][:2]
    assert first["text"] == "Invoice 2024" and abs(first["bbox"]["x"] - 80) <= 8 and first["bbox"]["y"] < 150
    assert second["bbox"]["y"] > 200 and 0 <= second["confidence"] <= 100


def test_not_an_image_is_refused(api: TestClient, key: str) -> None:
    response = post_bytes(api, key, "/v1/image/ocr", b"plain text, not an image")
    assert response.status_code == 400
