// Dates are UTC days: pages have no time of day.

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

// monthName is the English name of d's month.
export function monthName(d) {
  return MONTHS[d.getUTCMonth()];
}

export function isoDate(d) {
  return d.toISOString().slice(0, 10);
}

// formatDate writes d as "iso" (2024-03-05), "long" (March 5, 2024) or
// "rfc822" (Tue, 05 Mar 2024 00:00:00 GMT, for feeds).
export function formatDate(d, style = 'iso') {
  switch (style) {
    case 'iso':
      return isoDate(d);
    case 'long':
      return `${monthName(d)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
    case 'rfc822':
      return d.toUTCString();
  }
  throw new Error(`unknown date style ${style}`);
}
