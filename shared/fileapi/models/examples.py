"""Complete example values for the OpenAPI document: small real files, Base64-encoded, and a key.

Each is a whole, valid value (a test decodes them and detects their type), never a cut-off string:
generated clients, validators and "try it" consoles take the document's examples as they are.
"""

from __future__ import annotations

import json

from fileapi.metering.keys import key_from_random

# A 1 x 1 orange PNG (70 bytes).
PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP438HwHwAGmAKHouuBiQAAAABJRU5ErkJggg=="
# The same pixel as a favicon.ico (92 bytes).
ICO_BASE64 = (
    "AAABAAEAAQEAAAAAIABGAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAABAAAAAQgGAAAAHxXEiQAAAA1JREFUeJxj"
    "+N/B8B8ABpgCh321k5kAAAAASUVORK5CYII="
)
# A one-page, 72 x 72 pt blank PDF (429 bytes).
PDF_BASE64 = (
    "JVBERi0xLjMKJeLjz9MKMSAwIG9iago8PAovUHJvZHVjZXIgKHB5cGRmKQo+PgplbmRvYmoKMiAwIG9iago8PAovVHlwZSAvUGFnZXMKL0Nv"
    "dW50IDEKL0tpZHMgWyA0IDAgUiBdCj4+CmVuZG9iagozIDAgb2JqCjw8Ci9UeXBlIC9DYXRhbG9nCi9QYWdlcyAyIDAgUgo+PgplbmRvYmoK"
    "NCAwIG9iago8PAovVHlwZSAvUGFnZQovUmVzb3VyY2VzIDw8Cj4+Ci9NZWRpYUJveCBbIDAuMCAwLjAgNzIgNzIgXQovUGFyZW50IDIgMCBS"
    "Cj4+CmVuZG9iagp4cmVmCjAgNQowMDAwMDAwMDAwIDY1NTM1IGYgCjAwMDAwMDAwMTUgMDAwMDAgbiAKMDAwMDAwMDA1NCAwMDAwMCBuIAow"
    "MDAwMDAwMTEzIDAwMDAwIG4gCjAwMDAwMDAxNjIgMDAwMDAgbiAKdHJhaWxlcgo8PAovU2l6ZSA1Ci9Sb290IDMgMCBSCi9JbmZvIDEgMCBS"
    "Cj4+CnN0YXJ0eHJlZgoyNTQKJSVFT0YK"
)
MANIFEST = json.dumps(
    {
        "icons": [
            {"src": f"/android-chrome-{size}x{size}.png", "sizes": f"{size}x{size}", "type": "image/png"}
            for size in (192, 512)
        ]
    },
    indent=2,
)
# A well-formed key (valid checksum) that no account holds.
API_KEY = key_from_random("0123456789abcdefghijklmnopqrstuvwxyzABCDEFG")
