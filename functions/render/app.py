"""Render function: /v1/render/svg-to-png."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.responses import Response

from fileapi.convert.render import svg_to_png
from fileapi.models.render import SvgToPngOptions
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.conversions import isolated
from fileapi.web.docs import ISOLATED_STATUSES, raw_body
from fileapi.web.io import RawBody
from fileapi.web.metering import MeteredRoute, metered
from fileapi.web.routes import Routes, answers_bytes

router = APIRouter(route_class=MeteredRoute, dependencies=[Depends(metered)], tags=["Render"])
render = Routes(
    router, body=raw_body("SVG or SVGZ document (any Content-Type, e.g. image/svg+xml)."), statuses=ISOLATED_STATUSES
)


@render.post("/v1/render/svg-to-png", "Render SVG as PNG", answers_bytes(("image/png",), "PNG image"))
async def svg_to_png_route(body: RawBody, options: Annotated[SvgToPngOptions, Query()]) -> Response:
    """SVG (or gzip-compressed SVGZ) in; PNG out, rendered with resvg and the bundled DejaVu Sans font. Size: the
    SVG's width/height (else its viewBox; with neither, 300 x 150) times `scale` (0.1-10); or `width` and/or
    `height` in pixels (one alone keeps the aspect ratio; both give exactly that canvas, the drawing fitted
    inside and centred). `background`: any CSS colour or `transparent` (default). Nothing external is fetched or
    read: href and CSS url() references other than #fragments and data: URIs, and @import rules, are ignored.
    Malformed XML and entity-expansion bombs are 400. 413: outputs over 16383 px a side or 50 megapixels, and
    documents whose structure predicts more than the renderer can do (nesting deeper than 124 levels counting
    what references bring in, more than 200,000 elements, about 5 s of work or 512 MiB of memory); the message
    names what costs most and what to change."""
    return Response(await isolated(svg_to_png, body, **options.model_dump()), media_type="image/png")


# What its conversion workers import before their first job.
WORKER_MODULES = ("fileapi.convert.render", "resvg_py", "PIL.Image")
app = create_app(router, title="Render", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
