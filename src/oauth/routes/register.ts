import { createRoute, z } from "@hono/zod-openapi";
import {
  authorizationServer,
  DEVICE_CODE_GRANT,
  OAUTH_PATHS,
  SUPPORTED_SCOPES,
  workerCtx,
} from "../../auth/oauth-config.js";
import { errorBody } from "../../http/errors.js";
import type { ApiApp } from "../../http/openapi.js";
import { ErrorSchema } from "../../http/openapi-shared.js";

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** RFC 6749 §3.1.2 and RFC 8252 §7.3: https anywhere, plain http only to this machine; no fragment. */
export function isAllowedRedirectUri(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.hash || value.includes("#") || url.username || url.password) return false;
  return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.test(url.hostname));
}

const httpsUrl = z.url({ protocol: /^https$/ }).max(2000);

/** RFC 7591 §2 client metadata this server understands; other members are ignored, as §2 requires. */
export const ClientRegistrationSchema = z
  .object({
    redirect_uris: z
      .array(
        z.string().max(2000).refine(isAllowedRedirectUri, {
          message:
            "each redirect URI must be https, or http on a loopback address (127.0.0.1, [::1], localhost), without a fragment",
        }),
      )
      .min(1)
      .max(10),
    client_name: z.string().min(1).max(100).optional(),
    grant_types: z
      .array(z.enum(["authorization_code", "refresh_token", DEVICE_CODE_GRANT]))
      .min(1)
      .optional(),
    response_types: z.array(z.literal("code")).min(1).optional(),
    token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]).optional(),
    scope: z
      .string()
      .max(200)
      .refine(
        (s) =>
          s
            .split(" ")
            .filter(Boolean)
            .every((x) => (SUPPORTED_SCOPES as string[]).includes(x)),
        {
          message: `scopes must be among: ${SUPPORTED_SCOPES.join(" ")}`,
        },
      )
      .optional(),
    client_uri: httpsUrl.optional(),
    logo_uri: httpsUrl.optional(),
    policy_uri: httpsUrl.optional(),
    tos_uri: httpsUrl.optional(),
    contacts: z.array(z.email()).max(5).optional(),
  })
  .loose()
  .openapi("OAuthClientRegistration");

const ClientInformationSchema = z
  .object({
    client_id: z.string(),
    client_secret: z.string().optional().openapi({ description: "Only for confidential clients; shown once." }),
    client_id_issued_at: z.number().int(),
    client_secret_expires_at: z.number().int().optional(),
    redirect_uris: z.array(z.string()),
    client_name: z.string().optional(),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
  })
  .loose()
  .openapi("OAuthClientInformation");

const RegistrationErrorSchema = z
  .object({
    error: z.enum(["invalid_redirect_uri", "invalid_client_metadata"]),
    error_description: z.string(),
    errors: ErrorSchema.shape.errors,
  })
  .openapi("OAuthRegistrationError");

const route = createRoute({
  method: "post",
  path: "/oauth/register",
  tags: ["OAuth"],
  summary: "Register an OAuth app (RFC 7591 dynamic client registration)",
  description:
    "No credentials needed. Public apps (`token_endpoint_auth_method: none`) must use PKCE; confidential apps get a `client_secret` once. " +
    "Every registered app may also use the device flow.",
  request: { body: { required: true, content: { "application/json": { schema: ClientRegistrationSchema } } } },
  responses: {
    201: { description: "Registered", content: { "application/json": { schema: ClientInformationSchema } } },
    400: {
      description: "Invalid metadata (RFC 7591 §3.2.2 error, with the usual error envelope beside it)",
      content: { "application/json": { schema: RegistrationErrorSchema } },
    },
  },
});

function registrationError(error: "invalid_redirect_uri" | "invalid_client_metadata", description: string) {
  return { error, error_description: description, ...errorBody(400, "params_invalid", description) };
}

/** POST /v1/oauth/register: validated here, stored by the library (which owns clients in KV). */
export function registerClientRegistrationRoute(v1: ApiApp) {
  v1.openapi(
    route,
    async (c) => {
      const metadata = c.req.valid("json");
      // The library knows only the grants it implements; the device grant is ours and open to every client.
      const wantsDevice = metadata.grant_types?.includes(DEVICE_CODE_GRANT) ?? false;
      const libraryGrants = metadata.grant_types?.filter((g) => g !== DEVICE_CODE_GRANT);
      const forwarded = { ...metadata, grant_types: libraryGrants?.length ? libraryGrants : undefined };
      if (wantsDevice && !libraryGrants?.length) {
        // A device-only app still gets the code grant underneath: the device flow redeems a code for it.
        forwarded.grant_types = ["authorization_code", "refresh_token"];
      }
      const url = new URL(c.req.url);
      const res = await authorizationServer(c.env, url).fetch(
        new Request(new URL(OAUTH_PATHS.register, url), {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(forwarded),
        }),
        c.env,
        workerCtx(c),
      );
      const body = (await res.json()) as Record<string, unknown>;
      if (!res.ok) {
        const description =
          typeof body.error_description === "string" ? body.error_description : "The client metadata is not valid.";
        return c.json(registrationError("invalid_client_metadata", description), 400);
      }
      if (wantsDevice && Array.isArray(body.grant_types)) body.grant_types = [...body.grant_types, DEVICE_CODE_GRANT];
      return c.json(body as z.infer<typeof ClientInformationSchema>, 201, { "Cache-Control": "no-store" });
    },
    (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const field = issue?.path.join(".") || "body";
      const description = `${field}: ${issue?.message ?? "invalid"}`;
      const kind = issue?.path[0] === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
      return c.json(registrationError(kind, description), 400);
    },
  );
}
