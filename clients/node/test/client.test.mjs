// The Node SDK end to end against the local server: conversions, JSON, usage, errors, retries.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";

import { ApiError, FileApi, InvalidInput, RateLimited, Unauthorized, UnsupportedFormat } from "../dist/index.js";
import { minimalPdf } from "./files.mjs";
import { startLocalApi } from "./local-api.mjs";

let local;
let api;

before(async () => {
  local = await startLocalApi();
  api = new FileApi({ apiKey: local.apiKey, baseUrl: local.baseUrl });
});

after(() => local?.stop());

test("image conversion from bytes and from a path, with metering headers", async () => {
  const qr = await api.qrGenerate({ text: "https://example.com", size: 4 });
  assert.equal(qr.contentType, "image/png");
  const webp = await api.imageConvert({ file: qr.data, to: "webp" });
  assert.equal(webp.contentType, "image/webp");
  assert.equal(new TextDecoder().decode(webp.data.slice(8, 12)), "WEBP");
  assert.equal(typeof webp.quotaRemaining, "number");
  assert.equal(webp.rateLimitLimit, 816); // business: a burst of 800 over 2 items of 408 tokens (2% headroom)
  assert.ok(webp.requestId);
  const path = join(mkdtempSync(join(tmpdir(), "fileapi-")), "qr.png");
  writeFileSync(path, qr.data);
  const read = await api.qrRead({ file: path });
  assert.deepEqual(read.data, { text: "https://example.com", format: "qr_code" });
});

test("qrGenerate gives bytes for PNG and text for SVG; files from streams", async () => {
  const svg = await api.qrGenerate({ text: "https://example.com", format: "svg" });
  assert.equal(typeof svg.data, "string");
  assert.match(svg.data, /<svg/);
  const png = await api.qrGenerate({ text: "https://example.com", size: 4 });
  assert.ok(png.data instanceof Uint8Array);
  const path = join(mkdtempSync(join(tmpdir(), "fileapi-")), "qr.png");
  writeFileSync(path, png.data);
  const fromNodeStream = await api.qrRead({ file: createReadStream(path) });
  assert.equal(fromNodeStream.data.text, "https://example.com");
  const fromWebStream = await api.qrRead({ file: new Blob([png.data]).stream() });
  assert.equal(fromWebStream.data.text, "https://example.com");
  const fromUrl = await api.qrRead({ file: pathToFileURL(path) });
  assert.equal(fromUrl.data.text, "https://example.com");
});

test("PDF merge keeps the pages in order", async () => {
  const merged = await api.pdfMerge({ files: [minimalPdf(1, 100, 100), minimalPdf(2)] });
  assert.equal(merged.contentType, "application/pdf");
  const info = await api.pdfInfo({ file: merged.data });
  assert.equal(info.data.pageCount, 3);
  assert.deepEqual(info.data.pageSizes[0], { width: 100, height: 100 });
});

test("JSON endpoints keep numbers' text and are typed", async () => {
  const formatted = await api.dataJsonFormat({ data: '{"price":1.50}', indent: 2 });
  assert.equal(formatted.data, '{\n  "price": 1.50\n}\n');
  const minified = await api.dataJsonMinify({ data: { a: [1, 2] } });
  assert.equal(minified.data, '{"a":[1,2]}');
  const hash = await api.fileHash({ file: new TextEncoder().encode("hello"), algorithm: "sha256" });
  assert.equal(hash.data.hex, createHash("sha256").update("hello").digest("hex"));
  const colour = await api.colorConvert({ color: "teal" });
  assert.equal(colour.data.hex, "#008080");
  assert.equal((await api.health()).data, "ok");
});

test("usage counts the calls", async () => {
  const before = (await api.usage()).data;
  await api.dataBase64Encode({ file: new Uint8Array([104, 105]) });
  const after = (await api.usage()).data;
  assert.equal(after.plan, "business");
  assert.equal(after.used_this_month, before.used_this_month + 1);
});

test("errors reject with the class of their code", async () => {
  await assert.rejects(api.imageConvert({ file: new TextEncoder().encode("not an image"), to: "png" }), (error) => {
    assert.ok(error instanceof UnsupportedFormat && error instanceof ApiError);
    assert.equal(error.code, "unsupported_format");
    assert.equal(error.status, 400);
    assert.ok(error.message && error.requestId);
    return true;
  });
  await assert.rejects(api.dataUrlDecode({ text: "%zz" }), InvalidInput);
  const stranger = new FileApi({ apiKey: "sk_live_" + "x".repeat(43), baseUrl: local.baseUrl });
  await assert.rejects(stranger.usage(), Unauthorized);
});

async function burst(client, count) {
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, () => client.dataBase64Encode({ file: new Uint8Array([120]) })),
  );
  return {
    ok: outcomes.filter((outcome) => outcome.status === "fulfilled").length,
    errors: outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => outcome.reason),
  };
}

const external = Boolean(process.env.FILEAPI_BASE_URL && process.env.FILEAPI_API_KEY);

test("rate-limited calls are retried after Retry-After; the retry can be switched off", {
  skip: external ? "needs starter keys made with the local server's CLI" : false,
}, async () => {
  const starter = (email) => local.createKey("starter", email); // burst 5, 2 per second
  const retrying = new FileApi({ apiKey: starter("node-retry@example.com"), baseUrl: local.baseUrl, retry: { maxRetries: 10 } });
  const retried = await burst(retrying, 12);
  assert.deepEqual(retried, { ok: 12, errors: [] });
  const plain = new FileApi({ apiKey: starter("node-plain@example.com"), baseUrl: local.baseUrl, retry: { enabled: false } });
  const refused = await burst(plain, 12);
  assert.ok(refused.ok >= 5 && refused.errors.length > 0);
  for (const error of refused.errors) {
    assert.ok(error instanceof RateLimited, String(error));
    assert.ok(error.retryAfter >= 1);
  }
});

test("the package ships ESM with type declarations, its README and LICENSE, and nothing else", () => {
  const packed = spawnSync("npm", ["pack", "--dry-run", "--json"], { encoding: "utf8" });
  assert.equal(packed.status, 0, packed.stderr);
  const [{ files }] = JSON.parse(packed.stdout);
  const paths = files.map((file) => file.path);
  const topLevel = ["package.json", "README.md", "LICENSE"];
  for (const needed of [...topLevel, "dist/index.js", "dist/index.d.ts", "dist/core.js", "dist/generated.d.ts"]) {
    assert.ok(paths.includes(needed), needed);
  }
  assert.ok(paths.every((path) => topLevel.includes(path) || path.startsWith("dist/")), paths);
});
