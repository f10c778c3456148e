import { helper } from "./helper";

const n: number = "five";
function greet(name: string): string {
  return name.toFixed(2);
}
console.log(greet(42), helper(), missing);
