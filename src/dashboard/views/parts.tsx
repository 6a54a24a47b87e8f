import type { Child, FC } from "hono/jsx";
import { entryOf } from "../http.js";
import type { V1Answer } from "../v1-client.js";
import { Csrf, Notice, TableWrap } from "./layout.js";

/** A /v1 answer that failed: its message and error type, as the API said them. */
export const V1Error: FC<{ answer: V1Answer | null | undefined }> = ({ answer }) =>
  answer && !answer.ok ? (
    <Notice kind="error">
      {answer.error.message} <span class="muted">({answer.error.type})</span>
    </Notice>
  ) : null;

/** The notice a page shows after an action redirected to it with ?ok=<code>. */
export const Done: FC<{ messages: Record<string, string>; code: string | undefined }> = ({ messages, code }) =>
  entryOf(messages, code) ? <Notice kind="success">{entryOf(messages, code)}</Notice> : null;

/** One button that posts (with the CSRF token) to `action`; `confirm` asks first (the script). */
export const PostButton: FC<{
  csrf: string;
  action: string;
  label: string;
  kind?: "primary" | "danger";
  small?: boolean;
  confirm?: string;
}> = ({ csrf, action, label, kind, small, confirm }) => (
  <form method="post" action={action} class="inline" data-confirm={confirm}>
    <Csrf token={csrf} />
    <button type="submit" class={[kind, small ? "small" : ""].filter(Boolean).join(" ") || undefined}>
      {label}
    </button>
  </form>
);

/** A name edited in place in a table row (keys, lists). */
export const RenameForm: FC<{
  csrf: string;
  action: string;
  id: string;
  label: string;
  value: string;
  maxlength: number;
}> = ({ csrf, action, id, label, value, maxlength }) => (
  <form method="post" action={action} class="row">
    <Csrf token={csrf} />
    <div>
      <label class="sr-only" for={id}>
        {label}
      </label>
      <input id={id} name="name" type="text" value={value} maxlength={maxlength} required />
    </div>
    <div class="shrink">
      <button type="submit" class="small">
        Rename
      </button>
    </div>
  </form>
);

/** A table of rows (the children) under column headings; "#" after a heading right-aligns a numeric column. */
export const DataTable: FC<{ label: string; columns: string[]; children?: Child }> = ({ label, columns, children }) => (
  <TableWrap label={label}>
    <table>
      <thead>
        <tr>
          {columns.map((c) =>
            c.endsWith(" #") ? (
              <th scope="col" class="num">
                {c.slice(0, -2)}
              </th>
            ) : (
              <th scope="col">{c}</th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </TableWrap>
);

/** A value to copy (a key, a secret), with its copy button (the script; without it, the text selects whole). */
export const Copyable: FC<{ id: string; value: string; what: string }> = ({ id, value, what }) => (
  <div class="secret">
    <code id={id}>{value}</code>
    <button type="button" class="small" data-copy={id} aria-label={`Copy the ${what}`}>
      Copy
    </button>
  </div>
);
