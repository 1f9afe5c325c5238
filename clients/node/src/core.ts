// What every operation shares: inputs, requests, results, errors and the retry rule.

import { readFile } from "node:fs/promises";

export const VERSION = "0.1.0";
export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";

/**
 * File contents: bytes, an ArrayBuffer, a Blob, a local path (string or URL), or a stream of bytes
 * (a Node Readable such as fs.createReadStream(path), a web ReadableStream, or any async iterable of chunks).
 */
export type FileInput = Uint8Array | ArrayBuffer | Blob | string | URL | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface Operation {
  id: string;
  method: string;
  path: string;
  auth: boolean;
  body: "none" | "file" | "text" | "json" | "fields" | "multipart";
  contentType: string | null;
  query: string[];
  fields: string[];
  files: string[];
  result: "json" | "text" | "bytes" | "media" | "redirect" | "empty";
  /** Parameters in the path (`/v1/operations/{operation_id}`). */
  pathParams?: string[];
  /** Keys of the JSON answer that hold dots (a favicon set's file names): one step of a result's field path. */
  dottedKeys?: string[];
}

/** Retry on 429 rate_limited after Retry-After (never on quota_exceeded); maxWait in seconds. */
export interface RetryPolicy {
  enabled: boolean;
  maxRetries: number;
  maxWait: number;
}

export const DEFAULT_RETRY: RetryPolicy = { enabled: true, maxRetries: 3, maxWait: 60 };

export interface ClientOptions {
  /** Default: process.env.FILEAPI_API_KEY. */
  apiKey?: string;
  /** Default: process.env.FILEAPI_BASE_URL, else http://127.0.0.1:3000 (`make run`). */
  baseUrl?: string;
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout in milliseconds (default 60000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
}

/** An operation's answer: `data` (typed per operation) and the response's metering headers. */
export class Result<T> {
  constructor(
    readonly data: T,
    readonly status: number,
    readonly contentType: string,
    readonly headers: Headers,
  ) {}

  /** X-Quota-Remaining: requests left this UTC month after this one. */
  get quotaRemaining(): number | null {
    return intHeader(this.headers, "x-quota-remaining");
  }

  /** RateLimit-Limit: the key's burst capacity. */
  get rateLimitLimit(): number | null {
    return intHeader(this.headers, "ratelimit-limit");
  }

  /** RateLimit-Remaining: requests that may be sent at once now. */
  get rateLimitRemaining(): number | null {
    return intHeader(this.headers, "ratelimit-remaining");
  }

  get rateLimitPolicy(): string | null {
    return this.headers.get("ratelimit-policy");
  }

  get requestId(): string | null {
    return this.headers.get("x-request-id");
  }
}

export interface ApiErrorOptions {
  status: number;
  code?: string;
  headers?: Headers;
  upgradeUrl?: string | null;
}

/** An ApiError answer; one subclass per code (InvalidInput, RateLimited, ...). */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly headers: Headers;
  readonly upgradeUrl: string | null;
  /** Set when the error is an operation's (it failed or was cancelled): the operation's id. */
  operationId: string | null = null;

  constructor(message: string, options: ApiErrorOptions) {
    super(message);
    this.name = new.target.name;
    this.code = options.code ?? "api_error";
    this.status = options.status;
    this.headers = options.headers ?? new Headers();
    this.upgradeUrl = options.upgradeUrl ?? null;
  }

  get requestId(): string | null {
    return this.headers.get("x-request-id");
  }
}

/** 429 rate_limited: `retryAfter` is the server's Retry-After in seconds. */
export class RateLimitedBase extends ApiError {
  get retryAfter(): number | null {
    const value = this.headers.get("retry-after");
    const seconds = value === null ? Number.NaN : Number(value);
    return Number.isFinite(seconds) ? seconds : null;
  }
}

/** Seconds to wait before retrying after `error` on try `attempt` (0-based), or null. */
export function retryDelay(policy: RetryPolicy, error: ApiError, attempt: number): number | null {
  if (!policy.enabled || !(error instanceof RateLimitedBase) || attempt >= policy.maxRetries) {
    return null;
  }
  const wait = error.retryAfter ?? 1;
  return wait >= 0 && wait <= policy.maxWait ? wait : null;
}

function intHeader(headers: Headers, name: string): number | null {
  const value = headers.get(name);
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

export async function readInput(value: unknown, name: string): Promise<Uint8Array> {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof Blob !== "undefined" && value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  if (typeof value === "string" || value instanceof URL) return new Uint8Array(await readFile(value));
  if (typeof ReadableStream !== "undefined" && value instanceof ReadableStream) return collect(streamChunks(value));
  if (value !== null && typeof value === "object" && Symbol.asyncIterator in value) {
    return collect(value as AsyncIterable<Uint8Array>);
  }
  throw new TypeError(`${name}: expected bytes, an ArrayBuffer, a Blob, a path or a stream of bytes`);
}

async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** The chunks of a stream as one array (the API takes whole bodies, at most a few MB). */
async function collect(chunks: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    if (typeof chunk === "string") throw new TypeError("a stream of bytes is expected, not of text");
    parts.push(chunk);
    length += chunk.byteLength;
  }
  const whole = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.byteLength;
  }
  return whole;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function queryValue(value: unknown): string {
  return typeof value === "boolean" ? (value ? "true" : "false") : String(value);
}

/** The operation's path with its path parameters filled in (URL-encoded). */
export function pathOf(operation: Operation, params: Record<string, unknown>): string {
  let path = operation.path;
  for (const name of operation.pathParams ?? []) {
    const value = params[name];
    if (value === undefined || value === null || value === "") throw new TypeError(`${name} is required`);
    path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
  }
  return path;
}

export interface PreparedRequest {
  url: string;
  init: RequestInit;
}

/** The HTTP request of one call: query parameters, the body and its content type. */
export async function prepare(
  operation: Operation,
  params: Record<string, unknown>,
  baseUrl: string,
  apiKey: string | undefined,
): Promise<PreparedRequest> {
  const url = new URL(baseUrl + pathOf(operation, params));
  for (const name of operation.query) {
    const value = params[name];
    if (value !== undefined && value !== null) url.searchParams.set(name, queryValue(value));
  }
  const headers: Record<string, string> = { "User-Agent": `fileapi-client-node/${VERSION}` };
  if (operation.auth && apiKey) headers["Authorization"] = `Bearer ${apiKey}`;
  let body: string | Uint8Array | FormData | undefined;
  if (operation.body === "file") {
    body = await readInput(params["file"], "file");
  } else if (operation.body === "text") {
    const text = params["text"];
    body = typeof text === "string" ? text : await readInput(text, "text");
  } else if (operation.body === "json") {
    const data = params["data"];
    body = typeof data === "string" || data instanceof Uint8Array ? data : JSON.stringify(data);
  } else if (operation.body === "fields") {
    const document: Record<string, unknown> = {};
    for (const name of operation.fields) {
      const value = params[name];
      if (value === undefined || value === null) continue;
      if (!operation.files.includes(name)) document[name] = value;
      else if (Array.isArray(value)) document[name] = await Promise.all(value.map(async (item, index) => base64(await readInput(item, `${name}[${index}]`))));
      else document[name] = base64(await readInput(value, name));
    }
    body = JSON.stringify(document);
  } else if (operation.body === "multipart") {
    const form = new FormData();
    for (const name of operation.fields) {
      const value = params[name];
      const values = Array.isArray(value) ? value : [value];
      for (const [index, item] of values.entries()) {
        const bytes = await readInput(item, `${name}[${index}]`);
        form.append(name, new Blob([bytes]), `${name}-${index + 1}`);
      }
    }
    body = form;
  }
  if (body !== undefined && operation.contentType && operation.body !== "multipart") {
    headers["Content-Type"] = operation.contentType;
  }
  return { url: url.toString(), init: { method: operation.method, headers, body, redirect: "manual" } };
}

export async function errorFrom(response: Response, errors: Record<string, typeof ApiError>): Promise<ApiError> {
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const body = parsed as { error?: unknown; message?: unknown; upgrade_url?: unknown } | null;
  if (!body || typeof body.error !== "string") {
    return new ApiError(text.slice(0, 200) || response.statusText, {
      status: response.status,
      code: `http_${response.status}`,
      headers: response.headers,
    });
  }
  const ErrorClass = errors[body.error] ?? ApiError;
  return new ErrorClass(String(body.message ?? ""), {
    status: response.status,
    code: body.error,
    headers: response.headers,
    upgradeUrl: typeof body.upgrade_url === "string" ? body.upgrade_url : null,
  });
}

/** Whether a response of this media type is text (SVG, text/*) rather than bytes. */
export function isTextual(contentType: string): boolean {
  const media = (contentType.split(";")[0] ?? "").trim().toLowerCase();
  return media.startsWith("text/") || media.endsWith("+xml") || media.endsWith("+json");
}

export async function resultFrom(operation: Operation, response: Response): Promise<Result<unknown>> {
  const contentType = response.headers.get("content-type") ?? "";
  let data: unknown;
  if (operation.result === "json") data = await response.json();
  else if (operation.result === "text" || (operation.result === "media" && isTextual(contentType)))
    data = new TextDecoder().decode(await response.arrayBuffer());
  else if (operation.result === "redirect") data = response.headers.get("location") ?? "";
  else if (operation.result === "empty") data = null;
  else data = new Uint8Array(await response.arrayBuffer());
  return new Result(data, response.status, contentType, response.headers);
}

/** 200, 201 (created) or 204 (deleted); 303 for an operation that answers a redirect. */
function isSuccess(operation: Operation, response: Response): boolean {
  return [200, 201, 204].includes(response.status) || (operation.result === "redirect" && response.status === 303);
}

/** The client machinery; FileApi adds one method per operation. */
export abstract class FileApiBase {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly retry: RetryPolicy;
  protected readonly timeoutMs: number;
  protected readonly fetchImpl: typeof fetch;

  constructor(
    options: ClientOptions,
    protected readonly operations: Record<string, Operation>,
    protected readonly errors: Record<string, typeof ApiError>,
  ) {
    const env = typeof process !== "undefined" ? process.env : {};
    this.baseUrl = (options.baseUrl ?? env["FILEAPI_BASE_URL"] ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.apiKey = options.apiKey ?? env["FILEAPI_API_KEY"];
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /**
   * A call answered another way (FileApi sends a file over the synchronous limit through an upload), or the
   * parameters to send synchronously (streams read once into bytes).
   */
  protected async sendOtherwise(_operation: Operation, params: Record<string, unknown>): Promise<Result<unknown> | Record<string, unknown>> {
    return params;
  }

  protected async call(id: string, params: object, options?: CallOptions): Promise<Result<unknown>> {
    const operation = this.operations[id];
    if (!operation) throw new TypeError(`unknown operation ${id}`);
    const policy = { ...this.retry, ...options?.retry };
    const given = await this.sendOtherwise(operation, params as Record<string, unknown>);
    if (given instanceof Result) return given;
    const request = await prepare(operation, given, this.baseUrl, this.apiKey);
    for (let attempt = 0; ; attempt += 1) {
      const signal = options?.signal ?? AbortSignal.timeout(this.timeoutMs);
      const response = await this.fetchImpl(request.url, { ...request.init, signal });
      if (isSuccess(operation, response)) return resultFrom(operation, response);
      const error = await errorFrom(response, this.errors);
      const delay = retryDelay(policy, error, attempt);
      if (delay === null) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay * 1000));
    }
  }
}
