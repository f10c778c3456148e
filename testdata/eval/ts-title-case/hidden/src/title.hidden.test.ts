import { test } from "node:test";
import assert from "node:assert/strict";
import { titleCase } from "./title.js";

test("titleCase", () => {
  assert.equal(titleCase("the LORD of the rings"), "The Lord of the Rings");
  assert.equal(titleCase("a tale OF two cities"), "A Tale of Two Cities");
  assert.equal(titleCase("hello"), "Hello");
  assert.equal(titleCase(""), "");
});
