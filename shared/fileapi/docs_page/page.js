// The interactive reference (GET /docs): Swagger UI over this API's own /openapi.json. Every request the
// page makes goes to this origin: its Content-Security-Policy allows no other, and the spec validator
// (a call to another host) is off.
"use strict";

// Operations that take a file read it raw or as a form; the document declares the form in the request
// body's `x-also-multipart` extension (code generators mishandle a body offered two ways), and the page
// offers it as a second media type beside the raw one, so a file can be sent either way.
function withForms(spec) {
  for (const item of Object.values(spec.paths)) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody;
      if (body && body["x-also-multipart"]) {
        Object.assign(body.content, body["x-also-multipart"]);
      }
    }
  }
  return spec;
}

function start(spec) {
  window.ui = SwaggerUIBundle({
    spec: withForms(spec),
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    tryItOutEnabled: true,
    persistAuthorization: false, // the key stays in the page, never in the browser's storage
    deepLinking: true,
    displayRequestDuration: true,
    filter: true,
  });
}

fetch("/openapi.json")
  .then((answer) => {
    if (!answer.ok) {
      throw new Error(`/openapi.json answered ${answer.status}`);
    }
    return answer.json();
  })
  .then(start)
  .catch((error) => {
    document.getElementById("swagger-ui").textContent = `The OpenAPI document did not load: ${error.message}`;
  });
