import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCents } from "./money.js";

test("formatCents", () => {
  assert.equal(formatCents(1205), "$12.05");
  assert.equal(formatCents(-350), "-$3.50");
  assert.equal(formatCents(0), "$0.00");
  assert.equal(formatCents(123456789), "$1,234,567.89");
  assert.equal(formatCents(99), "$0.99");
});
