"""The SVG rendering conversion (the Render function)."""

from __future__ import annotations

from fileapi.catalogue.converters import Named
from fileapi.catalogue.declaration import SVG, Conversion, Reads, Takes, gives_file
from fileapi.models.render import SvgToPngOptions

FAMILY = "render"
# What the family's conversion workers import before their first job.
WORKER_MODULES = ("fileapi.convert.render", "resvg_py", "PIL.Image")

CONVERSIONS = (
    Conversion(
        path="/v1/render/svg-to-png",
        family=FAMILY,
        summary="Render SVG as PNG",
        description="SVG (or gzip-compressed SVGZ) in; PNG out, rendered with resvg and the bundled DejaVu Sans font. "
        "Size: the SVG's width/height (px by default; mm, cm, in, pt and pc at 96 px an inch, as CSS; else its "
        "viewBox; with neither, 300 x 150; a value none of these reads, 100) times `scale` (0.1-10); or `width` "
        "and/or `height` in pixels (one alone keeps the aspect ratio; both give exactly that canvas, the drawing "
        "fitted inside and centred). `background`: any CSS colour or `transparent` (default). Nothing external is "
        "fetched or read: href and CSS url() references other than #fragments and data: URIs, and @import rules, "
        "are ignored. Malformed XML and entity-expansion bombs are 400. 413: outputs over 16383 px a side or 50 "
        "megapixels, and documents whose structure predicts more than the renderer can do (nesting deeper than 124 "
        "levels counting what references bring in, more than 200,000 elements, about 5 s of work or 512 MiB of "
        "memory); the message names what costs most and what to change.",
        takes=Takes(Reads.FILE, SVG, doc="SVG or SVGZ document (any Content-Type, e.g. image/svg+xml)."),
        options=SvgToPngOptions,
        gives=gives_file(("image/png",), "PNG image"),
        convert=Named("fileapi.convert.render", "svg_to_png"),
        tags=("Render",),
    ),
)
