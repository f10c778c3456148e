import { test } from "node:test";
import assert from "node:assert/strict";
import { parseQuery } from "./query.js";

test("parseQuery", () => {
  assert.deepEqual(parseQuery("a=1&b=x+y&a=3"), { a: ["1", "3"], b: "x y" });
  assert.deepEqual(parseQuery("?q=caf%C3%A9&flag"), { q: "café", flag: "" });
  assert.deepEqual(parseQuery(""), {});
  assert.deepEqual(parseQuery("x=a%3Db"), { x: "a=b" });
});
