"""Codes function: the catalogue's codes conversions (fileapi.catalogue.codes)."""

from __future__ import annotations

from fileapi.catalogue.codes import CONVERSIONS, WORKER_MODULES
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.catalogue_routes import family_router

app = create_app(family_router(CONVERSIONS), title="Codes", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
