// Files beyond the synchronous limit: a call whose request body would be over `thresholdBytes` uploads its
// inputs to their presigned POSTs (a path streamed from disk), calls the endpoint with ?upload= and an
// Idempotency-Key (the same on its own retries), polls the operation as Retry-After says within `waitMs`,
// fetches the result files (SHA-256 checked) and answers the same Result the synchronous call does.

import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

import { ApiError, Result, errorFrom, isTextual, pathOf, prepare, readInput, retryDelay } from "./core.js";
import type { Operation, RetryPolicy } from "./core.js";
import type { OperationFile, OperationResult, UploadResult } from "./generated.js";

/** The API takes request bodies up to this size (Lambda's 6 MB payload with its Base64 overhead). */
export const SYNC_LIMIT_BYTES = 4_500_000;
export const DEFAULT_WAIT_MS = 900_000;
/** Without a Retry-After, an operation is polled this often (seconds). */
const DEFAULT_POLL_SECONDS = 2;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

export interface LargeFileOptions {
  /** A call whose request body would be over this many bytes goes through an upload (default 4,500,000). */
  thresholdBytes?: number;
  /** How long a call waits for its operation before rejecting with OperationTimeout (ms, default 900000). */
  waitMs?: number;
  /** Called with (bytes sent, total bytes) as each input is uploaded. */
  onUpload?: (sent: number, total: number) => void;
  /** Called with the operation each time it is polled. */
  onStatus?: (operation: OperationResult) => void;
  /** false: every call is sent synchronously (a body over the limit is then 413 too_large). */
  enabled?: boolean;
}

/** The operation was still running after the wait; it goes on: wait for it again with its id. */
export class OperationTimeout extends Error {
  constructor(
    readonly operationId: string,
    readonly waitedMs: number,
  ) {
    super(
      `operation ${operationId} was still running after ${Math.round(waitedMs / 1000)} s: ` +
        `call waitOperation("${operationId}") to keep waiting, or cancelOperation() to stop it`,
    );
    this.name = "OperationTimeout";
  }
}

/** The operation was cancelled (DELETE /v1/operations/{id}) before it ended. */
export class OperationCancelled extends ApiError {}

/** What the large-file steps need of a client. */
export interface Transport {
  baseUrl: string;
  apiKey: string | undefined;
  retry: RetryPolicy;
  fetch: typeof fetch;
  timeoutMs: number;
  errors: Record<string, typeof ApiError>;
  operations: Record<string, Operation>;
  large: LargeFileOptions;
}

/** One input to upload: its size, media type and name, and where its bytes are. */
export interface Source {
  size: number;
  contentType: string;
  filename: string;
  path?: string | URL;
  blob?: Blob;
  bytes?: Uint8Array;
}

function bareMediaType(contentType: string | null | undefined): string {
  const media = (contentType ?? "").split(";")[0]?.trim() ?? "";
  return MEDIA_TYPE.test(media) ? media : "application/octet-stream";
}

/** The Source of a file input: a path or a Blob is read as it is sent, anything else from memory. */
export async function sourceOf(value: unknown, name: string, contentType: string): Promise<Source> {
  const media = bareMediaType(contentType);
  if (typeof value === "string" || value instanceof URL) {
    const filename = String(value).split(/[\\/]/).pop() || name;
    return { size: (await stat(value)).size, contentType: media, filename, path: value };
  }
  if (typeof Blob !== "undefined" && value instanceof Blob) return { size: value.size, contentType: media, filename: name, blob: value };
  const bytes = await readInput(value, name);
  return { size: bytes.byteLength, contentType: media, filename: name, bytes };
}

async function* chunksOf(source: Source): AsyncIterable<Uint8Array> {
  if (source.path !== undefined) yield* createReadStream(source.path);
  else if (source.blob !== undefined) yield* source.blob.stream();
  else if (source.bytes !== undefined) yield source.bytes;
}

function authorization(transport: Transport): Record<string, string> {
  return transport.apiKey ? { Authorization: `Bearer ${transport.apiKey}` } : {};
}

/** One request to the API, retried on 429 rate_limited as `retry` says; rejects with the ApiError of an error. */
async function send(transport: Transport, method: string, url: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await transport.fetch(url, { ...init, method, signal: AbortSignal.timeout(transport.timeoutMs) });
    if (response.status < 300) return response;
    const error = await errorFrom(response, transport.errors);
    const delay = retryDelay(transport.retry, error, attempt);
    if (delay === null) throw error;
    await new Promise((resolve) => setTimeout(resolve, delay * 1000));
  }
}

function storageError(what: string, status: number, text: string): ApiError {
  return new ApiError(`${what} answered ${status}: ${text.slice(0, 200)}`, { status, code: "storage_error" });
}

/** POST the file to its presigned form: the fields first, the file last as `file`, with a Content-Length. */
function postForm(url: string, fields: Record<string, string>, source: Source, onUpload?: (sent: number, total: number) => void): Promise<void> {
  const boundary = `fileapi-${randomUUID()}`;
  const quote = (text: string) => text.replace(/["\r\n]/g, "_");
  let head = "";
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(source.filename)}"\r\n`;
  head += `Content-Type: ${source.contentType}\r\n\r\n`;
  const start = Buffer.from(head);
  const end = Buffer.from(`\r\n--${boundary}--\r\n`);
  const target = new URL(url);
  const requester = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = requester(target, {
      method: "POST",
      headers: {
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
        "Content-Length": String(start.byteLength + source.size + end.byteLength),
      },
    });
    request.on("error", reject);
    request.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(storageError("the upload's POST to storage", status, text));
      });
    });
    (async () => {
      request.write(start);
      let sent = 0;
      for await (const chunk of chunksOf(source)) {
        if (!request.write(chunk)) await new Promise((drained) => request.once("drain", drained));
        sent += chunk.byteLength;
        onUpload?.(sent, source.size);
      }
      request.end(end);
    })().catch((error: unknown) => request.destroy(error instanceof Error ? error : new Error(String(error))));
  });
}

/** Upload `source` (POST /v1/uploads, then its presigned form); its upload id. */
export async function uploadSource(transport: Transport, source: Source, onUpload = transport.large.onUpload): Promise<string> {
  const created = await send(transport, "POST", `${transport.baseUrl}/v1/uploads`, {
    headers: { ...authorization(transport), "Content-Type": "application/json" },
    body: JSON.stringify({ filename: source.filename, contentType: source.contentType, size: source.size }),
  });
  const form = (await created.json()) as UploadResult;
  await postForm(form.url, form.fields, source, onUpload);
  return form.id;
}

/** Streams read once into bytes (so that they can be measured, then sent), and the inputs to upload when
 * the call's body would be over the threshold (null: send it as it is). */
export async function largeSources(transport: Transport, operation: Operation, params: Record<string, unknown>): Promise<{ params: Record<string, unknown>; sources: Source[] | null }> {
  const given = { ...params };
  const threshold = transport.large.thresholdBytes ?? SYNC_LIMIT_BYTES;
  const rereadable = (value: unknown) => typeof value === "string" || value instanceof URL || value instanceof Uint8Array || value instanceof ArrayBuffer || (typeof Blob !== "undefined" && value instanceof Blob);
  for (const name of operation.files) {
    const value = given[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) given[name] = await Promise.all(value.map((item) => (rereadable(item) ? item : readInput(item, name))));
    else if (!rereadable(value)) given[name] = await readInput(value, name);
  }
  if (transport.large.enabled === false || !operation.auth || operation.body === "none") return { params: given, sources: null };
  if (operation.body === "file") {
    const source = await sourceOf(given["file"], "file", operation.contentType ?? "");
    return { params: given, sources: source.size > threshold ? [source] : null };
  }
  if (operation.body === "multipart") {
    const sources: Source[] = [];
    for (const name of operation.fields) {
      const values = Array.isArray(given[name]) ? (given[name] as unknown[]) : [given[name]];
      for (const [index, value] of values.entries()) sources.push(await sourceOf(value, `${name}-${index + 1}`, ""));
    }
    return { params: given, sources: sources.reduce((sum, source) => sum + source.size, 0) > threshold ? sources : null };
  }
  const body = (await prepare(operation, given, transport.baseUrl, undefined)).init.body;
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body instanceof Uint8Array ? body : null;
  if (bytes === null || bytes.byteLength <= threshold) return { params: given, sources: null };
  return { params: given, sources: [{ size: bytes.byteLength, contentType: bareMediaType(operation.contentType), filename: "body", bytes }] };
}

/** POST the operation's endpoint over `uploadIds` with its query options; the answer (202 and the operation). */
export async function submit(transport: Transport, operation: Operation, params: Record<string, unknown>, uploadIds: string[], idempotencyKey: string = randomUUID()): Promise<Response> {
  if (operation.body === "none" || !operation.auth) throw new TypeError(`${operation.id} is not an operation that takes a file`);
  if (uploadIds.length === 0) throw new TypeError("give at least one upload id (upl_...)");
  const url = new URL(transport.baseUrl + pathOf(operation, params));
  for (const name of operation.query) {
    const value = params[name];
    if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
  }
  for (const id of uploadIds) url.searchParams.append("upload", id);
  return send(transport, "POST", url.toString(), { headers: { ...authorization(transport), "Idempotency-Key": idempotencyKey } });
}

/** The operation once it has succeeded, polled as its Retry-After says; rejects with OperationTimeout after
 * `waitMs`, with the ApiError of its code when it failed, OperationCancelled when it was cancelled. */
export async function waitFor(transport: Transport, operationId: string, waitMs = transport.large.waitMs ?? DEFAULT_WAIT_MS, onStatus = transport.large.onStatus): Promise<OperationResult> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const response = await send(transport, "GET", `${transport.baseUrl}/v1/operations/${encodeURIComponent(operationId)}`, { headers: authorization(transport) });
    const answer = (await response.json()) as OperationResult;
    onStatus?.(answer);
    if (answer.status === "succeeded") return answer;
    if (answer.status !== "running") throw failure(transport, answer, response.headers);
    const left = deadline - Date.now();
    if (left <= 0) throw new OperationTimeout(operationId, waitMs);
    const wanted = Number(response.headers.get("retry-after") ?? DEFAULT_POLL_SECONDS);
    const delay = Math.max(0, Math.min((Number.isFinite(wanted) ? wanted : DEFAULT_POLL_SECONDS) * 1000, left));
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

function failure(transport: Transport, answer: OperationResult, headers: Headers): ApiError {
  const code = answer.error?.code ?? answer.status;
  const message = answer.error?.message ?? `the operation ended ${answer.status}`;
  const ErrorClass = answer.status === "cancelled" ? OperationCancelled : (transport.errors[code] ?? ApiError);
  const error = new ErrorClass(message, { status: 200, code, headers });
  error.operationId = answer.id;
  return error;
}

/** The file a result link serves, checked against its SHA-256 when `described` is given. */
export async function download(transport: Transport, url: string, described?: OperationFile): Promise<Uint8Array> {
  const response = await transport.fetch(url, { signal: AbortSignal.timeout(transport.timeoutMs) });
  if (response.status !== 200) throw storageError("the result link", response.status, await response.text());
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (described && createHash("sha256").update(bytes).digest("hex") !== described.sha256) {
    throw new ApiError(`the result file ${described.name} does not match its SHA-256: fetch it again`, { status: 200, code: "storage_error" });
  }
  return bytes;
}

/** The steps of a field path: `pages[0].bytes` is ["pages", 0, "bytes"]; a key of `dottedKeys` is one step. */
export function parseField(path: string, dottedKeys: string[] = []): Array<string | number> {
  const keys = [...dottedKeys].sort((a, b) => b.length - a.length);
  const steps: Array<string | number> = [];
  let rest = path;
  while (rest) {
    if (rest.startsWith("[")) {
      const end = rest.indexOf("]");
      steps.push(Number(rest.slice(1, end)));
      rest = rest.slice(end + 1);
      continue;
    }
    if (steps.length && rest.startsWith(".")) rest = rest.slice(1);
    const known = keys.find((key) => rest.startsWith(key) && ["", ".", "["].includes(rest.charAt(key.length)));
    const name = known ?? rest.split(/[.[]/, 1)[0] ?? "";
    if (!name) throw new TypeError(`not a field path: ${path}`);
    steps.push(name);
    rest = rest.slice(name.length);
  }
  return steps;
}

function put(document: Record<string, unknown>, steps: Array<string | number>, value: unknown): void {
  let target: Record<string | number, unknown> = document;
  steps.forEach((step, index) => {
    const last = index === steps.length - 1;
    if (last || target[step] === undefined || target[step] === null) {
      target[step] = last ? value : typeof steps[index + 1] === "number" ? [] : {};
    }
    target = target[step] as Record<string | number, unknown>;
  });
}

function operationFiles(answer: OperationResult): OperationFile[] {
  return answer.results?.length ? answer.results : answer.result ? [answer.result] : [];
}

function operationForRoute(transport: Transport, route: string): Operation {
  const found = Object.values(transport.operations).find((operation) => operation.path === route && operation.method === "POST");
  if (!found) throw new TypeError(`this client does not know the route ${route}: update fileapi-client`);
  return found;
}

/** The synchronous answer of a succeeded operation: its files fetched and put back together as the endpoint
 * answers (bytes, text, or its JSON with each file as Base64 in its field). */
export async function resultOf(transport: Transport, answer: OperationResult, headers: Headers = new Headers()): Promise<Result<unknown>> {
  const operation = operationForRoute(transport, answer.route);
  const files = operationFiles(answer);
  const contents = await Promise.all(files.map((file) => download(transport, file.url, file)));
  const merged = new Headers(headers);
  if (operation.result !== "json") {
    const contentType = files[0]?.contentType ?? "";
    const extra = (answer.details?.["headers"] ?? {}) as Record<string, string>;
    for (const [name, value] of Object.entries(extra)) merged.set(name, String(value));
    merged.set("content-type", contentType);
    const bytes = contents[0] ?? new Uint8Array();
    const textual = operation.result === "text" || (operation.result === "media" && isTextual(contentType));
    return new Result(textual ? new TextDecoder().decode(bytes) : bytes, 200, contentType, merged);
  }
  let details: Record<string, unknown> = { ...(answer.details ?? {}) };
  files.forEach((file, index) => {
    const content = contents[index] ?? new Uint8Array();
    if (file.field) put(details, parseField(file.field, operation.dottedKeys), Buffer.from(content).toString("base64"));
    else details = { ...details, ...(JSON.parse(new TextDecoder().decode(content)) as Record<string, unknown>) };
  });
  merged.set("content-type", "application/json");
  return new Result(details, 200, "application/json", merged);
}

/** A call over the threshold, end to end: upload, submit, wait, fetch. */
export async function callLarge(transport: Transport, operation: Operation, params: Record<string, unknown>, sources: Source[]): Promise<Result<unknown>> {
  const uploadIds: string[] = [];
  for (const source of sources) uploadIds.push(await uploadSource(transport, source));
  const accepted = await submit(transport, operation, params, uploadIds);
  const answer = (await accepted.json()) as OperationResult;
  const ended = await waitFor(transport, answer.id);
  return resultOf(transport, ended, accepted.headers);
}

/** POST /v1/pipelines with `body` (a new Idempotency-Key): the operation it became (202). */
export async function submitPipeline(transport: Transport, body: Record<string, unknown>, idempotencyKey: string = randomUUID()): Promise<OperationResult> {
  const headers = { ...authorization(transport), "Content-Type": "application/json", "Idempotency-Key": idempotencyKey };
  const response = await send(transport, "POST", `${transport.baseUrl}/v1/pipelines`, { headers, body: JSON.stringify(body) });
  return (await response.json()) as OperationResult;
}
