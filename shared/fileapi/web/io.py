"""The raw request body of the bytes-in endpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request


async def read_body(request: Request) -> bytes:
    """The raw request body (already bounded by BodyLimitMiddleware)."""
    return await request.body()


RawBody = Annotated[bytes, Depends(read_body)]
