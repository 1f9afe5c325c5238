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

// The media type of the answer a `format` or `to` value (query, form or JSON body) asks for.
const FORMAT_TYPES = {
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
};

function chosenFormat(url, body) {
  const named = url.searchParams.get("format") || url.searchParams.get("to");
  if (named) {
    return named;
  }
  if (body instanceof FormData) {
    return body.get("format") || body.get("to");
  }
  if (body && typeof body === "object") {
    return body.format || body.to;
  }
  if (typeof body === "string" && body.trimStart().startsWith("{")) {
    try {
      const fields = JSON.parse(body);
      return fields.format || fields.to;
    } catch {
      return null; // not JSON: the API says so in its answer
    }
  }
  return null;
}

// The Accept header (and so the page's curl command) names the answer the request asks for: the type its
// `format` or `to` names when the operation answers that type, else every type the operation may answer (an
// image kept in its input's format). Operations with one kind of answer keep Swagger UI's.
function acceptFollowingFormat(spec) {
  return (request) => {
    const url = new URL(request.url, window.location.origin);
    const operation = (spec.paths[url.pathname] || {})[(request.method || "get").toLowerCase()] || {};
    const answers = Object.keys(((operation.responses || {})["200"] || {}).content || {});
    if (answers.length > 1) {
      const type = FORMAT_TYPES[chosenFormat(url, request.body)];
      delete request.headers.Accept;
      request.headers.accept = answers.includes(type) ? type : answers.join(", ");
    }
    return request;
  };
}

// An error's `docs_url` (ApiError JSON) as a link under the answer, to the error page's section on its code.
function docsUrlOf(content, contentType) {
  if (!/json/i.test(contentType || "")) {
    return null;
  }
  let body = content;
  if (typeof content === "string") {
    try {
      body = JSON.parse(content);
    } catch {
      return null;
    }
  }
  const url = body && body.docs_url;
  return typeof url === "string" && url.startsWith("/docs/errors#") ? url : null;
}

function ErrorLinks(system) {
  const h = system.React.createElement;
  return {
    wrapComponents: {
      responseBody: (Original) => (props) => {
        const shown = h(Original, props);
        const url = docsUrlOf(props.content, props.contentType);
        if (!url) {
          return shown;
        }
        const link = h("a", { href: url, target: "_blank", rel: "noopener" }, url);
        return h("div", null, shown, h("p", { className: "error-docs" }, "What it means and what to do: ", link));
      },
    },
  };
}

function start(spec) {
  window.ui = SwaggerUIBundle({
    spec: withForms(spec),
    plugins: [ErrorLinks],
    requestInterceptor: acceptFollowingFormat(spec),
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
