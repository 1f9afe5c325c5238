"""Files beyond the synchronous limit: uploads to S3, operations run from SQS, their results and records."""
