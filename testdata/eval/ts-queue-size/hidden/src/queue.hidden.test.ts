import { test } from "node:test";
import assert from "node:assert/strict";
import { Queue } from "./queue.js";

test("queue", () => {
  const q = new Queue<number>();
  assert.equal(q.dequeue(), undefined);
  assert.equal(q.size, 0);
  q.enqueue(1);
  q.enqueue(2);
  assert.equal(q.dequeue(), 1);
  assert.equal(q.size, 1);
  assert.equal(q.dequeue(), 2);
  assert.equal(q.dequeue(), undefined);
  assert.equal(q.size, 0);
  for (let i = 0; i < 100; i++) q.enqueue(i);
  for (let i = 0; i < 70; i++) assert.equal(q.dequeue(), i);
  assert.equal(q.size, 30);
});
