import { test } from "node:test";
import assert from "node:assert/strict";
import { range } from "./range.js";

test("range", () => {
  assert.deepEqual(range(0, 3), [0, 1, 2]);
  assert.deepEqual(range(5, 0, -2), [5, 3, 1]);
  assert.deepEqual(range(2, 2), []);
  assert.deepEqual(range(0, 10, 4), [0, 4, 8]);
  assert.throws(() => range(0, 1, 0), RangeError);
});
