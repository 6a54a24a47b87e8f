/** POST /v1/bulk/{type} with a multipart body: the one request allowed past the 4 MB body limit. */
export function isBulkUpload(request: Request): boolean {
  if (request.method !== "POST") return false;
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) return false;
  return /^\/v1\/bulk\/[a-z-]+\/?$/.test(new URL(request.url).pathname);
}
