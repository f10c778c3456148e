// Escaping text for HTML.

const HTML = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => HTML[c]);
}

// escapeAttr is escapeHtml for attribute values (the same set suffices
// inside double quotes).
export const escapeAttr = escapeHtml;
