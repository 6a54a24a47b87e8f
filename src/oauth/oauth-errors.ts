/** An OAuth protocol error body (RFC 6749 §5.2, RFC 8628 §3.5), never cached. */
export function oauthError(
  error: string,
  description: string,
  status = 400,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers },
  });
}
