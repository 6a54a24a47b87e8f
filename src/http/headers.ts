/** Sets each header on a response (mutable Response headers, as Hono and `new Response` give). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
  return response;
}
