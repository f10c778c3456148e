import { test } from "node:test";
import assert from "node:assert/strict";
import { clamp } from "./math.js";

test("clamp", () => {
  assert.equal(clamp(15, 0, 10), 10);
  assert.equal(clamp(-5, 0, 10), 0);
  assert.equal(clamp(5, 0, 10), 5);
  assert.throws(() => clamp(1, 10, 0), RangeError);
});
