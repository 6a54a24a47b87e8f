// The dashboard's pages share the browser session of every signed-in page (src/auth/browser-session.ts).
export * from "../auth/browser-session.js";
