"""Images to PDF against img2pdf (the lossless reference: a JPEG goes in byte for byte), in the same run: time and
size of one PDF of photos (JPEG) and screenshots (PNG)."""

from __future__ import annotations

import io
import random

from bench.scoreboard import Goal, record
from bench.timing import paired_medians, row
from fileapi.convert.pdf_from_images import images_to_pdf

PHOTOS = 12  # 1600x1200 JPEG, quality 88
SCREENSHOTS = 12  # 1280x800 PNG, RGB


def _images() -> list[bytes]:
    from PIL import Image, ImageDraw, ImageFilter

    rng = random.Random(35)
    images = []
    for number in range(PHOTOS + SCREENSHOTS):
        photo = number < PHOTOS
        size = (1600, 1200) if photo else (1280, 800)
        image = Image.new("RGB", size, (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        draw = ImageDraw.Draw(image)
        for _ in range(60):
            x, y = rng.randrange(size[0]), rng.randrange(size[1])
            colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
            draw.rectangle((x, y, x + rng.randrange(400), y + rng.randrange(300)), fill=colour)
            draw.text((x, y), f"text {number}", fill=(0, 0, 0))
        out = io.BytesIO()
        if photo:
            noisy = Image.blend(
                image.filter(ImageFilter.GaussianBlur(3)), Image.effect_noise(size, 40).convert("RGB"), 0.2
            )
            noisy.save(out, "JPEG", quality=88, dpi=(300, 300))
        else:
            image.save(out, "PNG")
        images.append(out.getvalue())
    return images


def bench_images_to_pdf() -> None:
    print("\nImages to PDF")
    images = _images()
    ours_size = len(images_to_pdf(images))
    try:
        import img2pdf
    except ImportError:
        record("PDF", "images to PDF, 12 JPEG + 12 PNG", 0.0, "ms", Goal(max_ratio=1.0),
               missing="img2pdf not installed: pip install -r requirements-dev.txt")  # fmt: skip
        return
    theirs_size = len(img2pdf.convert(images))
    ours, theirs = paired_medians(lambda: images_to_pdf(images), lambda: img2pdf.convert(images), repeat=7)
    name = f"images to PDF, {PHOTOS} JPEG + {SCREENSHOTS} PNG"
    print(row(name, ours, theirs, "img2pdf"))
    print(f"  size: ours {ours_size:,} bytes, img2pdf {theirs_size:,} ({ours_size / theirs_size:.4f}x)")
    record("PDF", name, ours * 1000, "ms", Goal(max_ratio=1.0), anchor=theirs * 1000, anchor_name="img2pdf.convert")
    record("PDF", f"{name}, size", ours_size / 1024, "KiB", Goal(max_ratio=1.01), anchor=theirs_size / 1024,
           anchor_name="img2pdf.convert")  # fmt: skip
