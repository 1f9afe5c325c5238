"""Pdf function: /v1/pdf/*, the catalogue's PDF conversions (fileapi.catalogue.pdf)."""

from __future__ import annotations

from fileapi.catalogue.pdf import CONVERSIONS, WORKER_MODULES
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.catalogue_routes import family_router

app = create_app(family_router(CONVERSIONS), title="Pdf", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
