// A pipeline builder: inputs, stages and outputs, then one POST /v1/pipelines and its files.
//
//   const { files } = await api.pipeline().input("scan.pdf").input("https://example.com/b.pdf")
//     .then("pdf/merge").then("pdf/compress", { imageMaxSide: 2000 }).run();
//
// A local input (a path, bytes, a Blob or a stream) is uploaded first; a string starting with https:// or http://
// is a URL input, fetched by the service. run() polls the operation as its Retry-After says, then downloads each
// result and checks its SHA-256.

import type { FileInput } from "./core.js";
import type { OperationResult } from "./generated.js";

/** What a pipeline needs of the client (FileApi). */
export interface PipelineClient {
  uploadFile(file: FileInput, options?: { contentType?: string }): Promise<string>;
  submitPipeline(body: Record<string, unknown>, idempotencyKey?: string): Promise<OperationResult>;
  waitOperation(operationId: string, options?: { waitMs?: number; onStatus?: (operation: OperationResult) => void }): Promise<OperationResult>;
  downloadChecked(file: NonNullable<OperationResult["results"]>[number]): Promise<Uint8Array>;
}

/** A finished pipeline: the operation as GET shows it (stages, outputs, details) and its files' bytes. */
export interface PipelineResult {
  operation: OperationResult;
  files: Uint8Array[];
}

type Input = { url: string } | { file: FileInput; contentType: string };

export class Pipeline {
  private readonly inputs: Input[] = [];
  private readonly stages: Array<{ run: string; options: Record<string, unknown> }> = [];
  private readonly puts: Array<{ url: string; headers: Record<string, string> }> = [];

  constructor(private readonly client: PipelineClient) {}

  /** Add an input: a URL (https://...), or a path, bytes, a Blob or a stream (uploaded by run()). */
  input(source: FileInput, contentType = "application/octet-stream"): this {
    const isUrl = typeof source === "string" && /^https?:\/\//.test(source);
    this.inputs.push(isUrl ? { url: source as string } : { file: source, contentType });
    return this;
  }

  /** Add a stage: a conversion by its path without /v1/ ("pdf/compress") and its options by their API names. */
  then(run: string, options: Record<string, unknown> = {}): this {
    this.stages.push({ run, options });
    return this;
  }

  /** Also PUT the next final file to `url` (a presigned PUT URL of your storage), with `headers`. */
  put(url: string, headers: Record<string, string> = {}): this {
    this.puts.push({ url, headers });
    return this;
  }

  /** Upload the local inputs, submit, wait, and fetch the files; rejects with the ApiError of a refusal or of
   * the failed stage (operationId set), OperationTimeout after waitMs. */
  async run(options: { waitMs?: number; onStatus?: (operation: OperationResult) => void; idempotencyKey?: string } = {}): Promise<PipelineResult> {
    const inputs: Array<Record<string, string>> = [];
    for (const item of this.inputs) {
      inputs.push("url" in item ? { url: item.url } : { upload: await this.client.uploadFile(item.file, { contentType: item.contentType }) });
    }
    const body: Record<string, unknown> = { inputs, stages: this.stages };
    if (this.puts.length) body.output = { put: this.puts };
    const accepted = await this.client.submitPipeline(body, options.idempotencyKey);
    const operation = await this.client.waitOperation(accepted.id, { waitMs: options.waitMs, onStatus: options.onStatus });
    const files: Uint8Array[] = [];
    for (const file of operation.results ?? []) files.push(await this.client.downloadChecked(file));
    return { operation, files };
  }
}
