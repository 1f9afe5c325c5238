// Typed Node.js client of the File and Data Utility API: one method per operation.

import { Result } from "./core.js";
import type { ClientOptions, FileInput, Operation } from "./core.js";
import { ERRORS, FileApiOperations, OPERATIONS } from "./generated.js";
import type { OperationFile, OperationResult } from "./generated.js";
import { callLarge, download, largeSources, resultOf, sourceOf, submit, submitPipeline, uploadSource, waitFor } from "./large.js";
import { Pipeline } from "./pipeline.js";
import type { LargeFileOptions, Transport } from "./large.js";

export * from "./generated.js";
export { ApiError, DEFAULT_BASE_URL, DEFAULT_RETRY, RateLimitedBase, Result, VERSION, retryDelay } from "./core.js";
export type { CallOptions, ClientOptions, FileInput, Operation, RetryPolicy } from "./core.js";
export { DEFAULT_WAIT_MS, OperationCancelled, OperationTimeout, SYNC_LIMIT_BYTES, parseField } from "./large.js";
export type { LargeFileOptions } from "./large.js";
export { Pipeline } from "./pipeline.js";
export type { PipelineResult } from "./pipeline.js";

export interface FileApiOptions extends ClientOptions {
  /** Files over the synchronous limit: the threshold, the wait and the progress callbacks. */
  largeFiles?: LargeFileOptions;
}

/**
 * A client of the API. apiKey defaults to FILEAPI_API_KEY and baseUrl to FILEAPI_BASE_URL (else
 * http://127.0.0.1:3000). 429 rate_limited answers are retried after Retry-After (retry: {enabled:
 * false} switches it off); every other error rejects with the ApiError subclass of its code.
 *
 * A call whose request body would be over largeFiles.thresholdBytes (default 4,500,000, the API's synchronous
 * limit) goes through an upload and an operation and answers as the synchronous call does; uploadFile,
 * submitOperation, waitOperation, operationResult and cancelOperation do it step by step.
 */
export class FileApi extends FileApiOperations {
  readonly largeFiles: LargeFileOptions;

  constructor(options: FileApiOptions = {}) {
    super(options, OPERATIONS, ERRORS);
    this.largeFiles = { ...options.largeFiles };
  }

  private get transport(): Transport {
    return {
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      retry: this.retry,
      fetch: this.fetchImpl,
      timeoutMs: this.timeoutMs,
      errors: this.errors,
      operations: this.operations,
      large: this.largeFiles,
    };
  }

  protected override async sendOtherwise(operation: Operation, params: Record<string, unknown>): Promise<Result<unknown> | Record<string, unknown>> {
    const planned = await largeSources(this.transport, operation, params);
    return planned.sources ? callLarge(this.transport, operation, planned.params, planned.sources) : planned.params;
  }

  /** Upload a file of any size (up to the plan's upload limit): its upload id (upl_...). A path is read as it is sent. */
  async uploadFile(file: FileInput, options: { contentType?: string; filename?: string; onProgress?: (sent: number, total: number) => void } = {}): Promise<string> {
    const source = await sourceOf(file, options.filename ?? "file", options.contentType ?? "application/octet-stream");
    if (options.filename) source.filename = options.filename;
    return uploadSource(this.transport, source, options.onProgress ?? this.largeFiles.onUpload);
  }

  /** Run the operation `operationId` (e.g. "pdf_split") over uploads, with its query options by their API
   * names: the operation (202). The same idempotencyKey again gives the same operation, counted once. */
  async submitOperation(operationId: string, uploads: string[], options: Record<string, unknown> = {}, idempotencyKey?: string): Promise<OperationResult> {
    const operation = OPERATIONS[operationId];
    if (!operation) throw new TypeError(`unknown operation ${operationId}`);
    return (await (await submit(this.transport, operation, options, uploads, idempotencyKey)).json()) as OperationResult;
  }

  /** The operation once it has succeeded; rejects with OperationTimeout after waitMs (it goes on), with the
   * ApiError of its code when it failed (operationId set), OperationCancelled when it was cancelled. */
  waitOperation(operationId: string, options: { waitMs?: number; onStatus?: (operation: OperationResult) => void } = {}): Promise<OperationResult> {
    return waitFor(this.transport, operationId, options.waitMs ?? this.largeFiles.waitMs, options.onStatus ?? this.largeFiles.onStatus);
  }

  /** The synchronous answer of a succeeded operation: its files fetched (SHA-256 checked) and put back together. */
  operationResult(operation: OperationResult): Promise<Result<unknown>> {
    return resultOf(this.transport, operation);
  }

  /** The file a result link serves. */
  download(url: string): Promise<Uint8Array> {
    return download(this.transport, url);
  }

  /** A pipeline to build: .input(pathOrUrl).then("pdf/merge").then("pdf/compress", { imageMaxSide: 2000 }).run(). */
  pipeline(): Pipeline {
    return new Pipeline(this);
  }

  /** POST /v1/pipelines with `body`: the operation (202); the same idempotencyKey again gives the same one. */
  submitPipeline(body: Record<string, unknown>, idempotencyKey?: string): Promise<OperationResult> {
    return submitPipeline(this.transport, body, idempotencyKey);
  }

  /** A result file's bytes, checked against its SHA-256. */
  downloadChecked(file: OperationFile): Promise<Uint8Array> {
    return download(this.transport, file.url, file);
  }

  /** Cancel a running operation, or delete an ended one with its files. */
  async cancelOperation(operationId: string): Promise<void> {
    await this.operationsDelete({ operation_id: operationId });
  }
}
