import { it } from "vitest";
import { extractPage } from "../../src/engine/web/extract/page.js";
import { inferPatterns } from "../../src/engine/finder/patterns.js";
it("scratch", async () => {
  const people = [["Günter Maßmann","guenter.massmann","Geschäftsführer","+49 89 1234 5678"],["Hans-Peter Köhler","hans-peter.koehler","Prokurist","+49 89 1234 5679"],["Ayşe Yılmaz","ayse.yilmaz","Buchhaltung","+49 89 1234 5670"]];
  const html = `<html lang="de"><body>${people.map(([n,l,t,p])=>`<div class="card"><h3>${n}</h3><p>${t}</p><p>Telefon: ${p}</p><p>E-Mail: <a href="mailto:${l}@beispiel-gmbh.de">${l}@beispiel-gmbh.de</a></p></div>`).join("")}</body></html>`;
  const page = await extractPage(html, "https://beispiel-gmbh.de/team", "beispiel-gmbh.de");
  console.log(JSON.stringify(page.addresses));
  console.log(JSON.stringify(inferPatterns(page.addresses.filter(a=>a.name).map(a=>({localPart:a.email.split("@")[0]!, name:a.name!})))));
  const html2 = `<html><body><p>Lena Berg</p><p><a href="mailto:lena@x-firma.de">lena@x-firma.de</a></p><p>Tomas Novak</p><p>tomas@x-firma.de</p></body></html>`;
  const p2 = await extractPage(html2, "https://x-firma.de/team", "x-firma.de");
  console.log(JSON.stringify(p2.addresses));
});
