export function helper(): string {
  let x: string | undefined;
  return x.length;
}
