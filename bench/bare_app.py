"""The anchor of the /health requests-per-second row: bare Starlette under uvicorn, one route."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route


async def health(_: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


app = Starlette(routes=[Route("/health", health)])
