import robotsParser from "robots-parser";
import { getDomain } from "tldts";
import type { Env } from "../../env.js";
import { detectMailProvider, resolveMx, resolveTxt } from "../dns/resolver.js";
import { SiteFailed } from "../errors.js";
import { ROBOTS_AGENT } from "../web/crawl/crawler.js";
import { EgressError, guardedFetch } from "../web/egress.js";
import { fetchPage } from "../web/fetch-page.js";

/**
 * Technologies a domain visibly uses, from evidence anyone can check: the home page's response
 * headers, HTML and script URLs, and the domain's DNS (MX provider, SPF `include:` mechanisms,
 * ownership-verification TXT records). A technology is listed only when one of its fingerprints
 * matched; nothing is inferred from industry or size.
 */

export const CATEGORIES = {
  cms: { id: 1, slug: "cms", name: "CMS" },
  analytics: { id: 2, slug: "analytics", name: "Analytics" },
  payments: { id: 3, slug: "payment-processors", name: "Payment processors" },
  marketing: { id: 4, slug: "marketing-automation", name: "Marketing automation" },
  email: { id: 5, slug: "email", name: "Email hosting" },
  transactional: { id: 6, slug: "transactional-email", name: "Transactional email" },
  cdn: { id: 7, slug: "cdn", name: "CDN" },
  server: { id: 8, slug: "web-servers", name: "Web servers" },
  js: { id: 9, slug: "javascript-frameworks", name: "JavaScript frameworks" },
  ecommerce: { id: 10, slug: "ecommerce", name: "Ecommerce" },
  support: { id: 11, slug: "customer-support", name: "Customer support" },
  tags: { id: 12, slug: "tag-managers", name: "Tag managers" },
  collaboration: { id: 13, slug: "collaboration", name: "Collaboration" },
  language: { id: 14, slug: "programming-languages", name: "Programming languages" },
  crm: { id: 15, slug: "crm", name: "CRM" },
  chat: { id: 16, slug: "live-chat", name: "Live chat" },
  hosting: { id: 17, slug: "hosting", name: "Hosting" },
  security: { id: 18, slug: "security", name: "Security" },
  social: { id: 19, slug: "social", name: "Social and advertising" },
} as const;
type CategoryKey = keyof typeof CATEGORIES;

export interface Fingerprint {
  slug: string;
  name: string;
  website: string;
  categories: CategoryKey[];
  /** Response header name (lowercase) -> pattern over its value. */
  headers?: Record<string, RegExp>;
  /** Patterns over the HTML. */
  html?: RegExp[];
  /** Patterns over script src URLs. */
  scripts?: RegExp[];
  /** <meta name=...> -> pattern over content. */
  meta?: Record<string, RegExp>;
  /** SPF include: domains (suffix match). */
  spf?: string[];
  /** Patterns over TXT records of the apex. */
  txt?: RegExp[];
  /** Mail provider names as detectMailProvider (dns.ts) reports them. */
  mx?: string[];
}

export const FINGERPRINTS: Fingerprint[] = [
  // Web servers, CDNs, hosting
  {
    slug: "cloudflare",
    name: "Cloudflare",
    website: "https://www.cloudflare.com",
    categories: ["cdn"],
    headers: { server: /^cloudflare/i, "cf-ray": /./ },
  },
  { slug: "nginx", name: "Nginx", website: "https://nginx.org", categories: ["server"], headers: { server: /nginx/i } },
  {
    slug: "apache",
    name: "Apache HTTP Server",
    website: "https://httpd.apache.org",
    categories: ["server"],
    headers: { server: /apache/i },
  },
  {
    slug: "microsoft-iis",
    name: "Microsoft IIS",
    website: "https://www.iis.net",
    categories: ["server"],
    headers: { server: /microsoft-iis/i },
  },
  {
    slug: "vercel",
    name: "Vercel",
    website: "https://vercel.com",
    categories: ["hosting"],
    headers: { server: /^vercel/i, "x-vercel-id": /./ },
  },
  {
    slug: "netlify",
    name: "Netlify",
    website: "https://www.netlify.com",
    categories: ["hosting"],
    headers: { server: /netlify/i, "x-nf-request-id": /./ },
  },
  {
    slug: "amazon-cloudfront",
    name: "Amazon CloudFront",
    website: "https://aws.amazon.com/cloudfront/",
    categories: ["cdn"],
    headers: { via: /cloudfront/i, "x-amz-cf-id": /./ },
  },
  {
    slug: "fastly",
    name: "Fastly",
    website: "https://www.fastly.com",
    categories: ["cdn"],
    headers: { "x-served-by": /cache-/i, "fastly-debug-digest": /./ },
  },
  {
    slug: "github-pages",
    name: "GitHub Pages",
    website: "https://pages.github.com",
    categories: ["hosting"],
    headers: { server: /^github\.com$/i },
  },
  {
    slug: "php",
    name: "PHP",
    website: "https://www.php.net",
    categories: ["language"],
    headers: { "x-powered-by": /php/i },
  },
  {
    slug: "asp-net",
    name: "ASP.NET",
    website: "https://dotnet.microsoft.com/apps/aspnet",
    categories: ["language"],
    headers: { "x-aspnet-version": /./, "x-powered-by": /asp\.net/i },
  },
  {
    slug: "express",
    name: "Express",
    website: "https://expressjs.com",
    categories: ["server"],
    headers: { "x-powered-by": /^express$/i },
  },
  // CMS and ecommerce
  {
    slug: "wordpress",
    name: "WordPress",
    website: "https://wordpress.org",
    categories: ["cms"],
    meta: { generator: /wordpress/i },
    html: [/\/wp-content\//i, /\/wp-includes\//i],
  },
  {
    slug: "drupal",
    name: "Drupal",
    website: "https://www.drupal.org",
    categories: ["cms"],
    meta: { generator: /drupal/i },
    headers: { "x-generator": /drupal/i },
  },
  {
    slug: "joomla",
    name: "Joomla",
    website: "https://www.joomla.org",
    categories: ["cms"],
    meta: { generator: /joomla/i },
  },
  {
    slug: "wix",
    name: "Wix",
    website: "https://www.wix.com",
    categories: ["cms"],
    meta: { generator: /wix\.com/i },
    headers: { "x-wix-request-id": /./ },
  },
  {
    slug: "squarespace",
    name: "Squarespace",
    website: "https://www.squarespace.com",
    categories: ["cms"],
    html: [/static1\.squarespace\.com/i],
  },
  {
    slug: "webflow",
    name: "Webflow",
    website: "https://webflow.com",
    categories: ["cms"],
    meta: { generator: /webflow/i },
  },
  { slug: "ghost", name: "Ghost", website: "https://ghost.org", categories: ["cms"], meta: { generator: /^ghost/i } },
  {
    slug: "hubspot-cms",
    name: "HubSpot CMS Hub",
    website: "https://www.hubspot.com/products/cms",
    categories: ["cms"],
    meta: { generator: /hubspot/i },
  },
  {
    slug: "shopify",
    name: "Shopify",
    website: "https://www.shopify.com",
    categories: ["ecommerce"],
    headers: { "x-shopid": /./, "x-shopify-stage": /./ },
    scripts: [/cdn\.shopify\.com/i],
  },
  {
    slug: "woocommerce",
    name: "WooCommerce",
    website: "https://woocommerce.com",
    categories: ["ecommerce"],
    html: [/\/wp-content\/plugins\/woocommerce\//i],
  },
  {
    slug: "magento",
    name: "Magento",
    website: "https://business.adobe.com/products/magento/magento-commerce.html",
    categories: ["ecommerce"],
    html: [/\/static\/version\d+\/frontend\//i, /Mage\.Cookies/],
  },
  // JavaScript
  {
    slug: "next-js",
    name: "Next.js",
    website: "https://nextjs.org",
    categories: ["js"],
    headers: { "x-powered-by": /next\.js/i },
    html: [/<script[^>]+id="__NEXT_DATA__"/i, /\/_next\/static\//],
  },
  {
    slug: "nuxt-js",
    name: "Nuxt",
    website: "https://nuxt.com",
    categories: ["js"],
    html: [/window\.__NUXT__/, /\/_nuxt\//],
  },
  {
    slug: "react",
    name: "React",
    website: "https://react.dev",
    categories: ["js"],
    html: [/data-reactroot/i],
    scripts: [/react(-dom)?(\.production)?(\.min)?\.js/i],
  },
  {
    slug: "vue-js",
    name: "Vue.js",
    website: "https://vuejs.org",
    categories: ["js"],
    scripts: [/vue(\.runtime)?(\.global)?(\.prod)?(\.min)?\.js/i],
  },
  {
    slug: "jquery",
    name: "jQuery",
    website: "https://jquery.com",
    categories: ["js"],
    scripts: [/jquery(-\d[\d.]*)?(\.min)?\.js/i],
  },
  // Analytics, tags, marketing
  {
    slug: "google-analytics",
    name: "Google Analytics",
    website: "https://marketingplatform.google.com/about/analytics/",
    categories: ["analytics"],
    scripts: [/googletagmanager\.com\/gtag\/js/i, /google-analytics\.com\/(analytics|ga)\.js/i],
  },
  {
    slug: "google-tag-manager",
    name: "Google Tag Manager",
    website: "https://tagmanager.google.com",
    categories: ["tags"],
    scripts: [/googletagmanager\.com\/gtm\.js/i],
    html: [/googletagmanager\.com\/ns\.html/i],
  },
  {
    slug: "segment",
    name: "Segment",
    website: "https://segment.com",
    categories: ["analytics"],
    scripts: [/cdn\.segment\.com/i],
  },
  {
    slug: "hotjar",
    name: "Hotjar",
    website: "https://www.hotjar.com",
    categories: ["analytics"],
    scripts: [/static\.hotjar\.com/i],
    html: [/static\.hotjar\.com/i],
  },
  {
    slug: "plausible",
    name: "Plausible Analytics",
    website: "https://plausible.io",
    categories: ["analytics"],
    scripts: [/plausible\.io\/js\//i],
  },
  {
    slug: "mixpanel",
    name: "Mixpanel",
    website: "https://mixpanel.com",
    categories: ["analytics"],
    scripts: [/cdn\.mxpnl\.com/i],
    html: [/cdn\.mxpnl\.com/i],
  },
  {
    slug: "hubspot",
    name: "HubSpot",
    website: "https://www.hubspot.com",
    categories: ["marketing", "crm"],
    scripts: [/js\.hs-scripts\.com/i, /js\.hsforms\.net/i],
    txt: [/^hubspot-developer-verification=/i],
    spf: ["hubspotemail.net"],
  },
  {
    slug: "marketo",
    name: "Marketo",
    website: "https://business.adobe.com/products/marketo/adobe-marketo.html",
    categories: ["marketing"],
    scripts: [/munchkin\.marketo\.net/i],
    spf: ["mktomail.com"],
  },
  {
    slug: "mailchimp",
    name: "Mailchimp",
    website: "https://mailchimp.com",
    categories: ["marketing"],
    scripts: [/chimpstatic\.com/i],
    spf: ["servers.mcsv.net"],
  },
  {
    slug: "salesforce",
    name: "Salesforce",
    website: "https://www.salesforce.com",
    categories: ["crm"],
    spf: ["_spf.salesforce.com"],
    txt: [/^salesforce-domain-verification=/i],
  },
  {
    slug: "facebook-pixel",
    name: "Meta Pixel",
    website: "https://www.facebook.com/business/tools/meta-pixel",
    categories: ["social"],
    html: [/connect\.facebook\.net\/[^"']*\/fbevents\.js/i],
    txt: [/^facebook-domain-verification=/i],
  },
  {
    slug: "linkedin-insight",
    name: "LinkedIn Insight Tag",
    website: "https://business.linkedin.com/marketing-solutions/insight-tag",
    categories: ["social"],
    scripts: [/snap\.licdn\.com/i],
  },
  // Payments
  {
    slug: "stripe",
    name: "Stripe",
    website: "https://stripe.com",
    categories: ["payments"],
    scripts: [/js\.stripe\.com/i],
    txt: [/^stripe-verification=/i],
  },
  {
    slug: "paypal",
    name: "PayPal",
    website: "https://www.paypal.com",
    categories: ["payments"],
    scripts: [/paypal\.com\/sdk\/js/i, /paypalobjects\.com/i],
  },
  // Support and chat
  {
    slug: "zendesk",
    name: "Zendesk",
    website: "https://www.zendesk.com",
    categories: ["support"],
    scripts: [/static\.zdassets\.com/i],
    spf: ["mail.zendesk.com"],
    txt: [/^zendesk(-domain)?-verification=/i],
  },
  {
    slug: "intercom",
    name: "Intercom",
    website: "https://www.intercom.com",
    categories: ["chat", "support"],
    scripts: [/widget\.intercom\.io/i, /js\.intercomcdn\.com/i],
    spf: ["intercom.io"],
  },
  {
    slug: "freshdesk",
    name: "Freshdesk",
    website: "https://www.freshworks.com/freshdesk/",
    categories: ["support"],
    spf: ["email.freshdesk.com"],
  },
  {
    slug: "drift",
    name: "Drift",
    website: "https://www.drift.com",
    categories: ["chat"],
    scripts: [/js\.driftt\.com/i],
  },
  {
    slug: "crisp",
    name: "Crisp",
    website: "https://crisp.chat",
    categories: ["chat"],
    scripts: [/client\.crisp\.chat/i],
  },
  // Email (MX and SPF)
  {
    slug: "google-workspace",
    name: "Google Workspace",
    website: "https://workspace.google.com",
    categories: ["email", "collaboration"],
    mx: ["Google Workspace"],
    spf: ["_spf.google.com"],
    txt: [/^google-site-verification=/i],
  },
  {
    slug: "microsoft-365",
    name: "Microsoft 365",
    website: "https://www.microsoft.com/microsoft-365",
    categories: ["email", "collaboration"],
    mx: ["Microsoft 365"],
    spf: ["spf.protection.outlook.com"],
    txt: [/^MS=ms\d+/],
  },
  {
    slug: "proofpoint",
    name: "Proofpoint",
    website: "https://www.proofpoint.com",
    categories: ["security"],
    mx: ["Proofpoint", "Proofpoint Essentials"],
    spf: ["pphosted.com"],
  },
  {
    slug: "mimecast",
    name: "Mimecast",
    website: "https://www.mimecast.com",
    categories: ["security"],
    mx: ["Mimecast"],
    spf: ["_netblocks.mimecast.com"],
  },
  {
    slug: "zoho-mail",
    name: "Zoho Mail",
    website: "https://www.zoho.com/mail/",
    categories: ["email"],
    mx: ["Zoho Mail"],
    spf: ["zoho.com", "zoho.eu"],
    txt: [/^zoho-verification=/i],
  },
  {
    slug: "fastmail",
    name: "Fastmail",
    website: "https://www.fastmail.com",
    categories: ["email"],
    mx: ["Fastmail"],
    spf: ["spf.messagingengine.com"],
  },
  {
    slug: "proton-mail",
    name: "Proton Mail",
    website: "https://proton.me/mail",
    categories: ["email"],
    mx: ["Proton Mail"],
    spf: ["_spf.protonmail.ch"],
    txt: [/^protonmail-verification=/i],
  },
  {
    slug: "cloudflare-email-routing",
    name: "Cloudflare Email Routing",
    website: "https://www.cloudflare.com/developer-platform/email-routing/",
    categories: ["email"],
    mx: ["Cloudflare Email Routing"],
    spf: ["_spf.mx.cloudflare.net"],
  },
  {
    slug: "sendgrid",
    name: "SendGrid",
    website: "https://sendgrid.com",
    categories: ["transactional"],
    spf: ["sendgrid.net"],
    mx: ["SendGrid"],
  },
  {
    slug: "mailgun",
    name: "Mailgun",
    website: "https://www.mailgun.com",
    categories: ["transactional"],
    spf: ["mailgun.org"],
    mx: ["Mailgun"],
  },
  {
    slug: "amazon-ses",
    name: "Amazon SES",
    website: "https://aws.amazon.com/ses/",
    categories: ["transactional"],
    spf: ["amazonses.com"],
    mx: ["Amazon SES"],
    txt: [/^amazonses:/i],
  },
  {
    slug: "postmark",
    name: "Postmark",
    website: "https://postmarkapp.com",
    categories: ["transactional"],
    spf: ["spf.mtasv.net"],
  },
  {
    slug: "mandrill",
    name: "Mandrill",
    website: "https://mailchimp.com/features/transactional-email/",
    categories: ["transactional"],
    spf: ["spf.mandrillapp.com"],
  },
  // Collaboration and verification tokens
  {
    slug: "atlassian",
    name: "Atlassian Cloud",
    website: "https://www.atlassian.com",
    categories: ["collaboration"],
    txt: [/^atlassian-domain-verification=/i],
    spf: ["_spf.atlassian.net"],
  },
  {
    slug: "slack",
    name: "Slack",
    website: "https://slack.com",
    categories: ["collaboration"],
    txt: [/^slack-domain-verification=/i],
  },
  {
    slug: "docusign",
    name: "DocuSign",
    website: "https://www.docusign.com",
    categories: ["collaboration"],
    txt: [/^docusign=/i],
  },
  {
    slug: "apple",
    name: "Apple Business",
    website: "https://www.apple.com/business/",
    categories: ["collaboration"],
    txt: [/^apple-domain-verification=/i],
  },
  {
    slug: "adobe",
    name: "Adobe",
    website: "https://www.adobe.com",
    categories: ["collaboration"],
    txt: [/^adobe-(idp-site|sign)-verification=/i],
  },
  {
    slug: "dropbox",
    name: "Dropbox",
    website: "https://www.dropbox.com",
    categories: ["collaboration"],
    txt: [/^dropbox-domain-verification=/i],
  },
  { slug: "zoom", name: "Zoom", website: "https://zoom.us", categories: ["collaboration"], txt: [/^ZOOM_verify_/i] },
];

export interface Evidence {
  headers: Headers | null;
  html: string | null;
  mxProvider: string | null;
  txt: string[];
}

const META_RE = /<meta\s[^>]*>/gi;
const SCRIPT_SRC_RE = /<script\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi;
const attr = (tag: string, name: string) => new RegExp(`\\b${name}\\s*=\\s*["']([^"']*)["']`, "i").exec(tag)?.[1];

/** SPF include: targets of the apex's v=spf1 records. */
export function spfIncludes(txt: readonly string[]): string[] {
  return txt
    .filter((t) => /^v=spf1\b/i.test(t.trim()))
    .flatMap((t) =>
      [...t.matchAll(/\binclude:([^\s]+)/gi)].map(([, host = ""]) => host.toLowerCase().replace(/\.$/, "")),
    );
}

/** Every fingerprint that matched some of the evidence. */
export function matchFingerprints(ev: Evidence, fingerprints: readonly Fingerprint[] = FINGERPRINTS): Fingerprint[] {
  const metas = new Map<string, string>();
  const scripts: string[] = [];
  if (ev.html) {
    for (const tag of ev.html.match(META_RE) ?? []) {
      const name = (attr(tag, "name") ?? attr(tag, "property"))?.toLowerCase();
      const content = attr(tag, "content");
      if (name && content !== undefined && !metas.has(name)) metas.set(name, content);
    }
    for (const [, src = ""] of ev.html.matchAll(SCRIPT_SRC_RE)) scripts.push(src);
  }
  const includes = spfIncludes(ev.txt);
  return fingerprints.filter((f) => {
    if (
      f.headers &&
      Object.entries(f.headers).some(([h, re]) => {
        const value = ev.headers?.get(h);
        return value !== null && value !== undefined && re.test(value);
      })
    )
      return true;
    if (
      f.meta &&
      Object.entries(f.meta).some(([n, re]) => {
        const content = metas.get(n);
        return content !== undefined && re.test(content);
      })
    )
      return true;
    const { html } = ev;
    if (f.html && html && f.html.some((re) => re.test(html))) return true;
    if (f.scripts?.some((re) => scripts.some((s) => re.test(s)))) return true;
    if (f.spf?.some((d) => includes.some((i) => i === d || i.endsWith(`.${d}`)))) return true;
    if (f.txt?.some((re) => ev.txt.some((t) => re.test(t.trim())))) return true;
    if (f.mx && ev.mxProvider && f.mx.includes(ev.mxProvider)) return true;
    return false;
  });
}

export function technologyItem(f: Fingerprint) {
  return {
    slug: f.slug,
    name: f.name,
    // No icon set is shipped; null rather than a URL that may not exist.
    icon: null,
    website: f.website,
    categories: f.categories.map((c) => CATEGORIES[c]),
  };
}

const MAX_HTML = 1_500_000;

/**
 * The home page with its headers; null when the site cannot be reached (network error or 5xx).
 * robots.txt is honoured like the crawler does: a home page it disallows is not read (the
 * headers of the robots.txt answer still count), and an unreachable robots.txt means unreachable.
 * Both go through the egress guard: every hop's addresses checked, at most MAX_HTML bytes read.
 * A host the guard refuses (private address) throws EgressError, which the HTTP layer answers 422.
 */
async function fetchHome(env: Env, domain: string): Promise<{ headers: Headers; html: string } | null> {
  const robotsUrl = `https://${domain}/robots.txt`;
  const robots = await fetchPage(robotsUrl, env, { timeoutMs: 6_000, maxBytes: 512 * 1024 });
  if (robots.kind === "unusable" && robots.refused) throw new EgressError("refused", robots.url, robots.reason);
  if (robots.kind === "unreachable") return null;
  if (
    robots.kind === "ok" &&
    robotsParser(robotsUrl, robots.body).isAllowed(`https://${domain}/`, ROBOTS_AGENT) === false
  ) {
    return { headers: new Headers(), html: "" };
  }
  try {
    const res = await guardedFetch(env, `https://${domain}/`, {
      timeoutMs: 8_000,
      maxBytes: MAX_HTML,
      accept: /^(text\/html|application\/xhtml\+xml)|^$/i,
      site: getDomain(domain) ?? domain,
    });
    if (res.status >= 500) return null;
    // A redirect off the site ends here: its headers still say something about the stack.
    return { headers: res.headers, html: res.text() };
  } catch (err) {
    if (err instanceof EgressError && err.kind !== "refused") return null;
    if (err instanceof EgressError && /^leaves /.test(err.reason)) return { headers: new Headers(), html: "" };
    throw err;
  }
}

/**
 * Technologies of a domain. 404-like: a domain that does not exist answers null. A site that
 * cannot be reached is a 502 (an answer from DNS alone would look complete while missing the site).
 */
export async function detectTechnologies(env: Env, domain: string) {
  const [mx, txt, home] = await Promise.all([resolveMx(env, domain), resolveTxt(env, domain), fetchHome(env, domain)]);
  if (mx.nxdomain && txt.nxdomain) return null;
  if (!home)
    throw new SiteFailed(
      "unreachable",
      `The site of ${domain} could not be reached, so nothing was charged. Try again later.`,
    );
  const matched = matchFingerprints({
    headers: home.headers,
    html: home.html,
    mxProvider: detectMailProvider(mx.records.map((r) => r.exchange)),
    txt: txt.records,
  });
  return matched.map(technologyItem).sort((a, b) => a.name.localeCompare(b.name));
}
