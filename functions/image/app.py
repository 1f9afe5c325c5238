"""Image function: /v1/image/*, the catalogue's image conversions (fileapi.catalogue.image)."""

from __future__ import annotations

from fileapi.catalogue.image import CONVERSIONS, WORKER_MODULES
from fileapi.web.app import create_app, lambda_handler
from fileapi.web.catalogue_routes import family_router

app = create_app(family_router(CONVERSIONS), title="Image", worker_modules=WORKER_MODULES)
handler = lambda_handler(app)
