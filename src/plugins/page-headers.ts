/**
 * The headers of the pages this service serves (the admin console, the API reference at /docs): a policy
 * that allows only this origin's own files (no inline script or style, no eval, no CDN) and no framing
 * (clickjacking). `extra` adds sources to one directive, for what a page really needs; `frameSrc`, the origins
 * a page may frame besides its own (a portal's installed apps; none: the default's, this origin only).
 */
export function pageSecurityHeaders(
  extra: { styleSrc?: string; imgSrc?: string; frameSrc?: readonly string[] } = {},
): Record<string, string> {
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    `style-src 'self'${extra.styleSrc ? ` ${extra.styleSrc}` : ''}`,
    `img-src 'self'${extra.imgSrc ? ` ${extra.imgSrc}` : ''}`,
    "font-src 'self'",
    "connect-src 'self'",
    ...(extra.frameSrc && extra.frameSrc.length > 0 ? [`frame-src 'self' ${extra.frameSrc.join(' ')}`] : []),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': policy,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}
