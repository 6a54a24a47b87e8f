/**
 * POST /v1/bulk/{type} with a multipart body, and the dashboard's upload form that streams into it
 * (POST /app/bulk/upload/{type}): the requests allowed past the 4 MB body limit.
 */
export function isBulkUpload(request: Request): boolean {
  if (request.method !== "POST") return false;
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")) return false;
  return /^\/(v1\/bulk|app\/bulk\/upload)\/[a-z-]+\/?$/.test(new URL(request.url).pathname);
}
