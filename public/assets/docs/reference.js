// Mounts the API reference (GET /docs). The configuration is the page's JSON block, written by
// src/oauth/pages/docs.ts, so no inline script has to run and the page's CSP allows scripts from
// this origin only.
(() => {
  var config = JSON.parse(document.getElementById("reference-config").textContent);
  window.Scalar.createApiReference("#app", config);
  var loading = document.getElementById("reference-loading");
  if (loading) loading.remove();
})();
