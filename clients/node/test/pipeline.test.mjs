// The pipeline builder against the local server: local bytes uploaded, stages run, files fetched and checked.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { FileApi, InvalidInput } from "../dist/index.js";
import { minimalPdf } from "./files.mjs";
import { startLocalApi } from "./local-api.mjs";

let local;
let api;

before(async () => {
  local = await startLocalApi();
  api = new FileApi({ apiKey: local.apiKey, baseUrl: local.baseUrl });
});

after(() => local?.stop());

test("two PDFs merged then rotated come back as one checked file", async () => {
  const statuses = [];
  const { operation, files } = await api
    .pipeline()
    .input(minimalPdf(2), "application/pdf")
    .input(minimalPdf(1), "application/pdf")
    .then("pdf/merge")
    .then("pdf/rotate", { degrees: 90 })
    .run({ waitMs: 60_000, onStatus: (answer) => statuses.push(answer.status) });
  assert.deepEqual(operation.stages.map((stage) => stage.status), ["succeeded", "succeeded"]);
  assert.equal(files.length, 1);
  assert.equal(new TextDecoder().decode(files[0].slice(0, 5)), "%PDF-");
  assert.equal(statuses.at(-1), "succeeded");
});

test("an unknown stage rejects with InvalidInput naming it", async () => {
  await assert.rejects(api.pipeline().input(minimalPdf(1), "application/pdf").then("pdf/rotat").run(), (error) => {
    assert.ok(error instanceof InvalidInput);
    assert.match(error.message, /stages\[0\]\.run.*pdf\/rotate/);
    return true;
  });
});
