// Typed Node.js client of the File and Data Utility API: one method per operation.

import { ERRORS, FileApiOperations, OPERATIONS } from "./generated.js";
import type { ClientOptions } from "./core.js";

export * from "./generated.js";
export { ApiError, DEFAULT_BASE_URL, DEFAULT_RETRY, RateLimitedBase, Result, VERSION, retryDelay } from "./core.js";
export type { CallOptions, ClientOptions, FileInput, Operation, RetryPolicy } from "./core.js";

/**
 * A client of the API. apiKey defaults to FILEAPI_API_KEY and baseUrl to FILEAPI_BASE_URL (else
 * http://127.0.0.1:3000). 429 rate_limited answers are retried after Retry-After (retry: {enabled:
 * false} switches it off); every other error rejects with the ApiError subclass of its code.
 */
export class FileApi extends FileApiOperations {
  constructor(options: ClientOptions = {}) {
    super(options, OPERATIONS, ERRORS);
  }
}
