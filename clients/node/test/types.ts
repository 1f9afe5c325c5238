// Compile-time checks of the SDK's types (tsc --noEmit in `npm test`): a wrong type here fails the build.

import { createReadStream } from "node:fs";

import type { FileApi, FileInput, Result } from "../src/index.js";

declare const api: FileApi;

// qrGenerate gives text for SVG and bytes for PNG (the default).
export const svg: Promise<Result<string>> = api.qrGenerate({ text: "x", format: "svg" });
export const png: Promise<Result<Uint8Array>> = api.qrGenerate({ text: "x" });
export const pngNamed: Promise<Result<Uint8Array>> = api.qrGenerate({ text: "x", format: "png" });
// @ts-expect-error a PNG is not text
export const wrong: Promise<Result<string>> = api.qrGenerate({ text: "x" });
// barcodeGenerate answers SVG text.
export const barcode: Promise<Result<string>> = api.barcodeGenerate({ text: "12345670", format: "ean8" });

// Files: bytes, a path, a URL, a Node stream or a web stream.
export const inputs: FileInput[] = [
  new Uint8Array(1),
  "photo.jpg",
  new URL("file:///tmp/photo.jpg"),
  createReadStream("photo.jpg"),
  new Blob([]).stream(),
];
