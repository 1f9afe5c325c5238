"""Data function: the catalogue's data conversions (fileapi.catalogue.data)."""

from __future__ import annotations

from fileapi.catalogue.data import CONVERSIONS
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.catalogue_routes import family_router

app = create_app(family_router(CONVERSIONS), title="Data")
handler = lambda_handler(app)
