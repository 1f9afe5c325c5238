"""Render function: the catalogue's render conversions (fileapi.catalogue.render)."""

from __future__ import annotations

from fileapi.catalogue.render import CONVERSIONS, WORKER_MODULES
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.catalogue_routes import family_router

app = create_app(family_router(CONVERSIONS), title="Render", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
