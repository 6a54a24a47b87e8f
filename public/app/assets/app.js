// The dashboard's only script (/app): copy buttons, confirmations, the bulk upload's drop zone and
// column preview, and the live progress of a running bulk job. Every page works without it.
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (<script defer>), not a module, so not strict by default.
"use strict";
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
  const csrf = () => $("meta[name=csrf-token]")?.content ?? "";
  const say = (text) => {
    const live = $("#live");
    if (live) live.textContent = text;
  };

  // Copy buttons: data-copy names the element whose text is copied.
  document.addEventListener("click", async (e) => {
    const button = e.target.closest("[data-copy]");
    if (!button) return;
    const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
      say("Copied to the clipboard");
    } catch {
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(button.dataset.copy));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      say("Selected: press Ctrl+C to copy");
    }
  });

  // Forms that change something for good ask first.
  document.addEventListener("submit", (e) => {
    const message = e.target.dataset?.confirm;
    if (message && !confirm(message)) e.preventDefault();
  });

  // Bulk upload: drop zone, and a preview of the file's first rows with the columns the job would use.
  const upload = $("#bulk-upload");
  if (upload) {
    const zone = $(".dropzone", upload);
    const input = $("input[type=file]", upload);
    const preview = $("#column-preview");
    const stop = (e) => {
      e.preventDefault();
      e.stopPropagation();
    };
    for (const n of ["dragenter", "dragover"]) {
      zone.addEventListener(n, (e) => {
        stop(e);
        zone.classList.add("over");
      });
    }
    for (const n of ["dragleave", "drop"]) {
      zone.addEventListener(n, (e) => {
        stop(e);
        zone.classList.remove("over");
      });
    }
    zone.addEventListener("drop", (e) => {
      if (!e.dataTransfer?.files?.length) return;
      input.files = e.dataTransfer.files;
      input.dispatchEvent(new Event("change"));
    });
    const nameInput = $("input[name=name]", upload);
    const showPreview = async () => {
      const file = input.files?.[0];
      if (!file) return;
      if (nameInput && !nameInput.value)
        nameInput.value = file.name
          .replace(/\.[^.]+$/, "")
          .slice(0, 200)
          .padEnd(3, "_");
      const head = await file.slice(0, 256 * 1024).text();
      const text = file.size > 256 * 1024 ? head.slice(0, head.lastIndexOf("\n") + 1) : head;
      preview.innerHTML = "<p>Reading the first rows…</p>";
      const res = await fetch(upload.dataset.columnsUrl, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf() },
        body: JSON.stringify({ text }),
      });
      const answer = await res.json().catch(() => null);
      preview.replaceChildren(
        ...renderPreview(res.ok ? answer : null, res.ok ? null : (answer?.error ?? "The file could not be read.")),
      );
      say(res.ok ? "Preview ready: check the columns before uploading" : "The file could not be read");
    };
    input.addEventListener("change", showPreview);
    // Columns left on "Not in this file" are not sent; the others are sent as chosen (zero-based *_field_index).
    upload.addEventListener("submit", () => {
      for (const s of $$("#column-preview select", upload)) s.disabled = s.value === "";
    });

    const el = (tag, attrs = {}, ...children) => {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
      node.append(...children);
      return node;
    };
    function renderPreview(data, error) {
      if (!data) return [el("p", { class: "error", role: "alert" }, error)];
      const { header, rows, fields, problem, choices } = data;
      const width = Math.max(header?.length ?? 0, ...rows.map((r) => r.length));
      const names = Array.from({ length: width }, (_, i) => header?.[i] || `Column ${i + 1}`);
      const out = [];
      if (problem) out.push(el("p", { class: "warning", role: "alert" }, problem, " Choose the columns below."));
      const pickers = el("div", { class: "row" });
      for (const choice of choices) {
        const id = `col-${choice.field}`;
        const select = el("select", { id, name: choice.field }, el("option", { value: "" }, "Not in this file"));
        for (const [i, n] of names.entries()) select.append(el("option", { value: String(i) }, `${i + 1}. ${n}`));
        select.value = fields[choice.field] === undefined ? "" : String(fields[choice.field]);
        pickers.append(el("div", {}, el("label", { for: id }, choice.label), select));
      }
      out.push(el("h3", {}, "Columns the job will use"), pickers);
      const table = el("table", {}, el("caption", { class: "sr-only" }, "First rows of the file"));
      table.append(el("thead", {}, el("tr", {}, ...names.map((n) => el("th", { scope: "col" }, n)))));
      table.append(
        el("tbody", {}, ...rows.slice(0, 5).map((r) => el("tr", {}, ...names.map((_, i) => el("td", {}, r[i] ?? ""))))),
      );
      out.push(
        el("h3", {}, "First rows"),
        el("section", { class: "table-wrap", tabindex: "0", "aria-label": "First rows of the file" }, table),
      );
      return out;
    }
  }

  // A running bulk job: follow its progress, and show the finished job in place when it ends.
  const live = $("[data-progress-url]");
  if (live) {
    const bar = $("progress", live);
    const line = $("[data-progress-line]", live);
    const fmt = new Intl.NumberFormat("en");
    const tick = async () => {
      const res = await fetch(live.dataset.progressUrl, { headers: { accept: "application/json" } }).catch(() => null);
      const p = res?.ok ? await res.json() : null;
      if (p) {
        bar.value = p.progress;
        bar.textContent = `${p.progress}%`;
        const eta =
          p.eta_seconds === null
            ? ""
            : ` · about ${p.eta_seconds < 90 ? `${p.eta_seconds} s` : `${Math.round(p.eta_seconds / 60)} min`} left`;
        line.textContent = `${fmt.format(p.processed)} of ${fmt.format(p.total)} rows (${p.progress}%) · ${fmt.format(p.rows_per_second)} rows/s${eta}`;
        if (p.status) {
          const page = await fetch(location.href).then((r) => r.text());
          const next = new DOMParser().parseFromString(page, "text/html").getElementById("job-live");
          if (next) live.replaceWith(next);
          say(`The job is ${p.state}.`);
          return;
        }
      }
      setTimeout(tick, 1000);
    };
    setTimeout(tick, 500);
  }
})();
