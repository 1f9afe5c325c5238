"""The catalogue of conversions: one declaration per conversion (fileapi.catalogue.declaration), a module per
family (the Lambda function that serves it). Routes, operations, pipeline stages, the OpenAPI document, the
SAM events, the template's routes and the docs tables all derive from it (docs/architecture.md, "Adding an
endpoint"). Importable without the web framework; a family's module names its converters (converters.Named),
whose modules are imported on first call and import their libraries only when they run.
"""
