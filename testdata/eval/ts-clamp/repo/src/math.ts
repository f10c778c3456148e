/** Limits value to the range [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return Math.max(max, Math.min(min, value));
}

export function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}
