// openapi-typescript 7 for the File and Data Utility API (docs/api.md, "Generating a client"): the document's
// types for openapi-fetch, with every binary body and answer typed as a Blob.
//
//   npm install --save-dev openapi-typescript@7 typescript && npm install openapi-fetch
//   node path/to/clients/generators/openapi-typescript.mjs http://127.0.0.1:3000/openapi.json src/fileapi.ts
//
// Run from your project's folder: openapi-typescript and typescript are loaded from there. The command line
// `npx openapi-typescript` types `format: binary` as `string`, so a file could not be passed without a cast;
// this is openapi-typescript's documented `transform` for Blobs. Text bodies are strings.
// `defaultNonNullable: false`: a field with a default is optional (version 7's default types it as required,
// so `{ text }` alone would not compile for qr/generate, barcode/generate, text/diff or pdf/fill-form).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [source, output] = process.argv.slice(2);
if (!source || !output) {
  console.error("usage: node openapi-typescript.mjs <openapi.json path or URL> <output.ts>");
  process.exit(2);
}
const require = createRequire(join(process.cwd(), "package.json"));
const { default: openapiTS, astToString } = require("openapi-typescript");
const ts = require("typescript");

const BLOB = ts.factory.createTypeReferenceNode("Blob");

const url = /^https?:/.test(source) ? new URL(source) : pathToFileURL(source);
const ast = await openapiTS(url, {
  defaultNonNullable: false,
  transform(schema) {
    return schema.format === "binary" ? BLOB : undefined;
  },
});
writeFileSync(output, astToString(ast));
