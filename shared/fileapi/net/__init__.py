"""The network edge: every URL the service stores or calls is parsed by `urls.parse_url`, reached only at public
addresses checked after DNS resolution (`addresses`), over a connection pinned to the checked address
(`connection`); `fetch.fetch_to_file` brings an input in, `put.put_file` sends a result out. Imports nothing of
fileapi but its errors."""
