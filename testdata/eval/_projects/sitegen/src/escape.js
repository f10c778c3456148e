// Escaping text for HTML.

const HTML = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => HTML[c]);
}

// escapeAttr is escapeHtml for attribute values (the same set suffices
// inside double quotes).
export const escapeAttr = escapeHtml;

const XML = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

// escapeXml escapes text for XML (feeds, sitemaps), where HTML's named
// entities other than these five do not exist.
export function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => XML[c]);
}
