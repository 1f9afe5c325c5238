// Files over the client's threshold go through an upload and an operation against the local server (moto's
// S3 and SQS), and answer exactly as the synchronous call does; the steps one by one; failures and timeout.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { FileApi, InvalidInput, NotFound, OperationTimeout, parseField } from "../dist/index.js";
import { minimalPdf } from "./files.mjs";
import { startLocalApi } from "./local-api.mjs";

// Small enough that the test files (a few hundred bytes) go through uploads; `api` uses the default.
const THRESHOLD = 100;
let local;
let api;
let large;
const sent = [];
const statuses = [];

before(async () => {
  local = await startLocalApi();
  api = new FileApi({ apiKey: local.apiKey, baseUrl: local.baseUrl });
  large = new FileApi({
    apiKey: local.apiKey,
    baseUrl: local.baseUrl,
    largeFiles: {
      thresholdBytes: THRESHOLD,
      onUpload: (done, total) => sent.push([done, total]),
      onStatus: (operation) => statuses.push(operation.status),
    },
  });
});

after(() => local?.stop());

// Pages counted by qpdf (an independent tool, installed by `make tools`).
function pagesOf(pdf) {
  const path = join(mkdtempSync(join(tmpdir(), "fileapi-")), "counted.pdf");
  writeFileSync(path, pdf);
  const counted = spawnSync("qpdf", ["--show-npages", path], { encoding: "utf8" });
  assert.equal(counted.status, 0, counted.stderr);
  return Number(counted.stdout.trim());
}

test("a file over the threshold answers what the synchronous call answers, counted once", async () => {
  const qr = (await api.qrGenerate({ text: "https://example.com", size: 4 })).data;
  const used = (await api.usage()).data.used_this_month;
  const throughUpload = await large.imageResize({ file: qr, width: 40, format: "webp" });
  assert.equal((await api.usage()).data.used_this_month, used + 1);
  const atOnce = await api.imageResize({ file: qr, width: 40, format: "webp" });
  assert.deepEqual(throughUpload.data, atOnce.data);
  assert.equal(throughUpload.status, 200);
  assert.equal(throughUpload.contentType, "image/webp");
  assert.deepEqual(sent.at(-1), [qr.byteLength, qr.byteLength]);
  assert.equal(statuses.at(-1), "succeeded");
  assert.equal(typeof throughUpload.quotaRemaining, "number");
});

test("a path is streamed from disk and a JSON answer gets its files back as Base64", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "fileapi-")), "three.pdf");
  writeFileSync(path, minimalPdf(3));
  const split = await large.pdfSplit({ file: path, ranges: "1,2-3" });
  assert.deepEqual(Object.keys(split.data), ["pdfs"]);
  assert.deepEqual(split.data.pdfs.map((part) => pagesOf(Buffer.from(part, "base64"))), [1, 2]);
  const size = statSync(path).size;
  assert.deepEqual(sent.at(-1), [size, size]);
});

test("a favicon set comes back with its dotted file names, as the synchronous answer", async () => {
  const qr = (await api.qrGenerate({ text: "https://example.com", size: 8 })).data;
  const throughUpload = await large.imageFaviconSet({ file: qr });
  const atOnce = await api.imageFaviconSet({ file: qr });
  assert.deepEqual(throughUpload.data, atOnce.data);
  assert.deepEqual(parseField("pngs.favicon-16x16.png", ["favicon-16x16.png"]), ["pngs", "favicon-16x16.png"]);
  assert.deepEqual(parseField("pages[2].bytes"), ["pages", 2, "bytes"]);
});

test("merge uploads each file, in order; text bodies and streams go through uploads too", async () => {
  const merged = await large.pdfMerge({ files: [minimalPdf(1), minimalPdf(2), minimalPdf(1)] });
  assert.equal(merged.contentType, "application/pdf");
  assert.equal(pagesOf(merged.data), 4);
  const text = "Hello world. How are you? ".repeat(20);
  assert.deepEqual((await large.textWordCount({ text })).data, (await api.textWordCount({ text })).data);
  async function* chunks() {
    for (let index = 0; index < 4; index += 1) yield new Uint8Array(50).fill(index);
  }
  const whole = Buffer.concat([0, 1, 2, 3].map((index) => new Uint8Array(50).fill(index)));
  const digest = await large.fileHash({ file: chunks(), algorithm: "sha256" });
  assert.equal(digest.data.hex, createHash("sha256").update(whole).digest("hex"));
});

test("a failed operation rejects with the class of its code and its id", async () => {
  const broken = new TextEncoder().encode("%PDF-1.4 not really a PDF ".repeat(10));
  await assert.rejects(large.pdfSplit({ file: broken, ranges: "1" }), (error) => {
    assert.ok(error instanceof InvalidInput);
    assert.equal(error.code, "invalid_input");
    assert.match(error.operationId, /^op_/);
    return true;
  });
});

test("the steps one by one, a wait that times out and is resumed, and cancel", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "fileapi-")), "pages.pdf");
  writeFileSync(path, minimalPdf(40, 612, 792));
  const uploadId = await api.uploadFile(path, { contentType: "application/pdf" });
  assert.match(uploadId, /^upl_/);
  const accepted = await api.submitOperation("pdf_render_page", [uploadId], { pages: "1-40", dpi: 150 });
  assert.equal(accepted.status, "running");
  assert.equal(accepted.route, "/v1/pdf/render-page");
  // Forty pages at 150 dpi take far longer than one poll: the wait ends with the operation still running.
  await assert.rejects(api.waitOperation(accepted.id, { waitMs: 1 }), (error) => {
    assert.ok(error instanceof OperationTimeout);
    assert.equal(error.operationId, accepted.id);
    return true;
  });
  const ended = await api.waitOperation(accepted.id);
  const rendered = await api.operationResult(ended);
  assert.deepEqual(rendered.data.pages.map((page) => page.page), Array.from({ length: 40 }, (_, i) => i + 1));
  const png = Buffer.from(rendered.data.pages[0].bytes, "base64");
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1275, 1650]);
  await api.cancelOperation(accepted.id);
  await assert.rejects(api.waitOperation(accepted.id), NotFound);
});

test("the same Idempotency-Key gives the same operation, counted once", async () => {
  const qr = (await api.qrGenerate({ text: "https://example.com", size: 4 })).data;
  const uploadId = await api.uploadFile(new Blob([qr]), { contentType: "image/png" });
  const used = (await api.usage()).data.used_this_month;
  const first = await api.submitOperation("image_convert", [uploadId], { to: "webp" }, "key-1");
  const again = await api.submitOperation("image_convert", [uploadId], { to: "webp" }, "key-1");
  assert.equal(again.id, first.id);
  assert.equal((await api.usage()).data.used_this_month, used + 1);
});
