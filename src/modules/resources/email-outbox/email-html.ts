/**
 * The HTML part of every e-mail (issue 44): a band in the workspace's colour with its logo and name, then the e-mail's
 * text, escaped, its paragraphs kept and its web addresses made links. Rendered at delivery from the outbox row's text
 * and the workspace as it is then; the text part is the row's text as it is, so the two always say the same.
 */

/** Who an e-mail comes from, as its HTML shows it: the workspace's name, colour (#rrggbb) and logo (an absolute URL). */
export interface EmailBrand {
  name: string;
  color: string;
  logo?: { url: string; width: number; height: number };
}

/** The logo's height in the band (px); its width follows, up to LOGO_MAX_WIDTH. */
const LOGO_HEIGHT = 32;
const LOGO_MAX_WIDTH = 160;
const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text as HTML text or an attribute's value. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** http(s) addresses in text; a trailing full stop, comma, colon, semicolon, ! ? or ) is the sentence's, not the address's. */
const ADDRESS = /\bhttps?:\/\/[^\s<>"']+/g;
const TRAILING = /[.,:;!?)]+$/;

/** One line of text as HTML: escaped, each web address a link. */
function lineHtml(line: string, linkColor: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(ADDRESS)) {
    const address = match[0].replace(TRAILING, '');
    const at = match.index ?? 0;
    out += escapeHtml(line.slice(last, at));
    out += `<a href="${escapeHtml(address)}" style="color:${linkColor};text-decoration:underline">${escapeHtml(address)}</a>`;
    last = at + address.length;
  }
  return out + escapeHtml(line.slice(last));
}

const channels = (hex: string) => [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
const toHex = (rgb: number[]) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** WCAG's relative luminance of #rrggbb. */
function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** White or near-black: whichever reads better on `color`. */
function inkOn(color: string): string {
  const l = luminance(channels(color));
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#111111';
}

/** The colour darkened until it reads on white at WCAG AA (4.5:1): the links' colour. */
function readableOnWhite(color: string): string {
  let rgb = channels(color);
  for (let step = 0; step < 20 && 1.05 / (luminance(rgb) + 0.05) < 4.5; step++) rgb = rgb.map((c) => Math.floor(c * 0.9));
  return toHex(rgb);
}

/** The e-mail's HTML: the brand's band, then `text` (its paragraphs, line breaks and links), under `subject` as its title. */
export function emailHtml(subject: string, text: string, brand: EmailBrand): string {
  const color = /^#[0-9a-f]{6}$/i.test(brand.color) ? brand.color.toLowerCase() : '#334155';
  const ink = inkOn(color);
  const linkColor = readableOnWhite(color);
  const logo = brand.logo;
  let logoHtml = '';
  if (logo && logo.width > 0 && logo.height > 0) {
    const width = Math.round(Math.min(LOGO_MAX_WIDTH, (LOGO_HEIGHT * logo.width) / logo.height));
    const height = Math.round((width * logo.height) / logo.width);
    // Decorative: the name is written beside it.
    logoHtml =
      `<img src="${escapeHtml(logo.url)}" alt="" width="${width}" height="${height}" ` +
      `style="display:inline-block;vertical-align:middle;border:0;width:${width}px;height:${height}px;margin-right:12px">`;
  }
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .trim()
    .split(/\n{2,}/)
    .map(
      (paragraph) =>
        `<p style="margin:0 0 16px">${paragraph
          .split('\n')
          .map((line) => lineHtml(line, linkColor))
          .join('<br>')}</p>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f5">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f4f5">
<tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;background:#ffffff;border-collapse:collapse">
<tr><td style="background:${color};color:${ink};padding:16px 24px;${FONT};font-size:18px;line-height:1.3;font-weight:bold">${logoHtml}<span style="vertical-align:middle">${escapeHtml(brand.name)}</span></td></tr>
<tr><td style="padding:24px;${FONT};font-size:15px;line-height:1.5;color:#111111;overflow-wrap:anywhere">
${paragraphs}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}
