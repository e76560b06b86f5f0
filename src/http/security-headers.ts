// Headers that every page (HTML) and every static file is served with. The pages load only their own
// bundled script and style (no inline code, no CDN: ui/README.md), so the policy allows exactly that;
// `data:` images are the inline SVG favicons. `frame-ancestors 'none'` keeps the pages out of frames
// (clickjacking), and no page tells other sites where its users came from.
import type { Headers } from './reply.js';

export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** For every static file: no content sniffing, no Referer sent from it. */
export const fileSecurityHeaders: Headers = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** For HTML pages: the file headers and the content security policy. */
export const pageSecurityHeaders: Headers = {
  ...fileSecurityHeaders,
  'Content-Security-Policy': contentSecurityPolicy,
};
