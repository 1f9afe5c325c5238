"""What each function's cold import may load: the allowed set of its `app` module's imports.

A Lambda function pays at every cold start for each module its handler module imports, whether its
routes use it or not. The rule (docs/request-path.md, "Where imports go"): a heavy library (an image,
PDF or barcode codec, a Markdown renderer, boto3 and the DynamoDB stores, Powertools' tracer and
metrics, the account services) is imported inside the function that uses it, never at module level
of the web layer or a converter module. tests/build/test_import_sets.py imports each function's `app`
in a fresh interpreter and fails on any module outside its set below (the standard library aside).

A pattern is a module name (that module alone) or `name.*` (the module and everything under it).
"""

from __future__ import annotations

# The Lambda runtime's share: the adapter, the logger (whose package imports the bare `botocore`
# package, not its client machinery), Starlette's responses.
LAMBDA = (
    "mangum.*",
    "aws_lambda_powertools.*",
    "jmespath.*",
    "botocore",
    "starlette.*",
    "anyio.*",
    "sniffio.*",
    "idna.*",
    "python_multipart.*",
    "multipart.*",
    "typing_extensions",
)
# FastAPI and what it loads itself (pydantic, its telemetry hooks).
FASTAPI = (
    "fastapi.*",
    "pydantic.*",
    "pydantic_core.*",
    "annotated_types.*",
    "annotated_doc.*",
    "typing_inspection.*",
    "opentelemetry.*",
    "orjson.*",
    # fastapi.openapi.models imports it whenever it is installed (billing and recovery check addresses with
    # it): about 15-25 ms of regular expressions compiled at import (rfc_constants), paid at the snapshot
    # under SnapStart.
    "email_validator.*",
)
# The shared code every function loads: settings, errors, the web layer (whose modules keep their
# heavy imports inside the functions that use them).
SHARED = (
    "fileapi",
    "fileapi.errors",
    "fileapi.settings",
    "fileapi.setting_variables",
    "fileapi.telemetry",
    "fileapi.library_logs",  # stdlib logging only: the libraries' records silenced (telemetry calls it)
    "fileapi.services",  # the composition root: it builds its services on first use
    "fileapi.web.*",
)
# The catalogue's declarations (pydantic and dataclasses; a family's converters come with its own module).
CATALOGUE = (
    "fileapi.catalogue",
    "fileapi.catalogue.converters",  # converters named, their modules imported on first call
    "fileapi.catalogue.declaration",
    "fileapi.catalogue.outcome",
)
# The storage room's errors (the table wrapper comes with boto3 on first use).
STORAGE = ("fileapi.storage", "fileapi.storage.errors")
# The request and options models the FastAPI routes declare (pydantic, no converter behind them).
# (and the URL parser, whose bound the webhook model declares: the standard library's ipaddress and urllib.parse)
MODELS = ("fileapi.models.*", "fileapi.net", "fileapi.net.urls")
# Metering's own logic (not the DynamoDB stores, which come with boto3 on first use).
METERING = (
    *STORAGE,
    "fileapi.metering",
    "fileapi.metering.accounts",
    "fileapi.metering.cache",
    "fileapi.metering.headers",
    "fileapi.metering.keys",
    "fileapi.metering.legacy_keys",
    "fileapi.metering.meter",
    "fileapi.metering.months",
    "fileapi.metering.placement",
    "fileapi.metering.plans",
    "fileapi.metering.ratelimit",
    "fileapi.metering.settling",
    "fileapi.metering.state",
    "fileapi.metering.storage",
)
CONVERTING = (
    *LAMBDA,
    *FASTAPI,
    *SHARED,
    *MODELS,
    *METERING,
    *CATALOGUE,
    "fileapi.convert",
    "fileapi.convert.deadline",
    "fileapi.convert.json_written",  # orjson and the standard library: the writer of plain JSON answers
    "fileapi.convert.collector",  # the standard library's gc: the cycle collector paused around a conversion
    "fileapi.convert.payload",
    "fileapi.isolation",
    "fileapi.isolation.files",  # stdlib only: an operation's input file (web.conversions)
    "fileapi.isolation.tenants",  # stdlib only: whose conversions run now (web.conversions)
)

# By function (its CodeUri's directory under functions/).
ALLOWED: dict[str, tuple[str, ...]] = {
    "health": (*LAMBDA, *SHARED),
    "data": (
        *CONVERTING,
        "fileapi.catalogue.data",
        "fileapi.convert.data_options",  # the options model's bound (converters: on first call)
    ),
    "image": (
        *CONVERTING,
        "fileapi.catalogue.image",
        "fileapi.convert.animation",
        "fileapi.convert.pixel_modes",  # the modes encoders take (image_io, resampling); PIL imported on use
        "fileapi.convert.favicons",
        "fileapi.convert.image",
        "fileapi.convert.image_io",
        "fileapi.convert.image_metadata",
        "fileapi.convert.ocr_engine",
        "fileapi.convert.ocr_image",
        "fileapi.convert.ocr_options",
        "fileapi.convert.quality_options",  # targetScore's bounds and check (the options models')
        "fileapi.convert.quality_search",  # the image converters' search; pyvips is imported on use
        "fileapi.convert.resampling",
    ),
    "pdf": (
        *CONVERTING,
        "fileapi.catalogue.pdf",
        "fileapi.convert.fallbacks",
        "fileapi.convert.ocr_options",  # the options models' bounds, enums and defaults (converters: on first call)
        "fileapi.convert.pdf_options",
        "fileapi.convert.quality_options",
        "fileapi.convert.pages",
        "fileapi.convert.pdf",
        "fileapi.convert.pdf_active",
        "fileapi.convert.pdf_cost",
        "fileapi.convert.pdf_edit",
        "fileapi.convert.pdf_errors",
        "fileapi.convert.pdf_forms",
        "fileapi.convert.pdf_io",
    ),
    "codes": (
        *CONVERTING,
        "fileapi.catalogue.codes",
        "fileapi.convert.codes_options",  # the options models' formats and bound (converters: on first call)
    ),
    "render": (
        *CONVERTING,
        "fileapi.catalogue.render",
        "fileapi.convert.render_options",  # the options model's rule (the renderer is imported on first call)
    ),
    "text": (
        *CONVERTING,
        "fileapi.catalogue.text",
        "fileapi.convert.text_options",  # the options models' algorithms and bounds (converters: on first call)
    ),
    "account": (
        *CONVERTING,
        "fileapi.account",
        "fileapi.account.keys",
        "fileapi.account.mailer",
        "fileapi.account.addresses",
    ),
    "billing": (*LAMBDA, *FASTAPI, *SHARED, *MODELS, *METERING),
    "files": (
        *LAMBDA,
        *FASTAPI,
        *SHARED,
        *MODELS,
        *METERING,  # no catalogue: its pipelines read the declarations when one comes (web.operations too)
        "fileapi.isolation",
        "fileapi.isolation.tenants",
    ),
}


def allowed(module: str, patterns: tuple[str, ...]) -> bool:
    """Whether `module` matches one of `patterns` (`name` exactly, or `name.*`: it and its submodules)."""
    for pattern in patterns:
        if pattern.endswith(".*"):
            base = pattern[:-2]
            if module == base or module.startswith(base + "."):
                return True
        elif module == pattern:
            return True
    return False
