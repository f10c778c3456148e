export function formatCents(cents: number): string {
  const dollars = Math.floor(cents / 100);
  const rest = cents % 100;
  return "$" + dollars + "." + rest;
}
