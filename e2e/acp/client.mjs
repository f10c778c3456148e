// An ACP client built on the official TypeScript SDK (its client side),
// driving the real `agentls acp` binary. One scenario per run:
//   node client.mjs task|disk|deny|cancel|load|malformed|worktree
// The Go test (e2e/acp_node_test.go) starts the fake model, sets
// AGENTLS_BIN, WORKSPACE and the model's environment, and reads the last
// stdout line: a JSON object of measurements. Failures exit 1.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import * as acp from "@agentclientprotocol/sdk/unstable";

const bin = process.env.AGENTLS_BIN;
const root = process.env.WORKSPACE;
const settings = process.env.AGENTLS_SETTINGS || '{"verify":{"enabled":false}}';
const scenario = process.argv[2];

function check(cond, what) {
  if (!cond) {
    throw new Error("check failed: " + what);
  }
}

function startAgent() {
  const child = spawn(bin, ["acp", "--settings", settings], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

// A client app recording what the agent sends. fs: whether it offers
// fs/*; answer: the permission option it picks.
function makeClient({ answer = "reject" } = {}) {
  const seen = { updates: [], reads: [], writes: [], asked: [], buffers: new Map(), firstAt: 0, waiters: [] };
  const app = acp
    .client({ name: "agentls-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (!seen.firstAt) seen.firstAt = performance.now();
      seen.updates.push(params.update);
      for (const w of seen.waiters.splice(0)) w();
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      seen.reads.push(params.path);
      if (seen.buffers.has(params.path)) return { content: seen.buffers.get(params.path) };
      return { content: readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      seen.writes.push(params.path);
      seen.buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      seen.asked.push(params);
      const optionId = typeof answer === "function" ? answer(params) : answer;
      return { outcome: { outcome: "selected", optionId } };
    });
  return { app, seen };
}

async function init(ctx, fs) {
  const res = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs } },
  });
  check(res.agentCapabilities.loadSession === true, "loadSession capability");
  return res;
}

const prompt = (ctx, sessionId, text) =>
  ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });

const calls = (updates) => {
  const starts = {}, ends = {};
  let text = "";
  for (const u of updates) {
    if (u.sessionUpdate === "tool_call") starts[u.toolCallId] = u;
    if (u.sessionUpdate === "tool_call_update" && u.status) ends[u.toolCallId] = u;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") text += u.content.text;
  }
  return { starts, ends, text };
};

async function withAgent(opts, op) {
  const { child, stream } = startAgent();
  const { app, seen } = makeClient(opts);
  try {
    return await app.connectWith(stream, (ctx) => op(ctx, seen));
  } finally {
    child.stdin.end();
    await new Promise((r) => (child.exitCode !== null ? r() : child.on("exit", r)));
  }
}

async function task(fs) {
  return withAgent({}, async (ctx, seen) => {
    await init(ctx, fs);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    check(s.modes && s.modes.availableModes.length === 2, "modes");
    const t0 = performance.now();
    const res = await prompt(ctx, s.sessionId, "Replace hello with goodbye in hello.txt");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    const { starts, ends, text } = calls(seen.updates);
    check(starts.call_read && starts.call_read.kind === "read", "read tool call");
    check(starts.call_edit && starts.call_edit.kind === "edit", "edit tool call");
    const diff = (ends.call_edit.content || []).find((c) => c.type === "diff");
    check(diff && diff.oldText.includes("hello") && diff.newText.includes("goodbye"), "diff content " + JSON.stringify(diff));
    check(text.includes("goodbye"), "agent text");
    const file = join(root, "hello.txt");
    const disk = readFileSync(file, "utf8");
    if (fs) {
      check(seen.writes.length === 1 && seen.buffers.get(file).includes("goodbye"), "write through the client");
      check(!disk.includes("goodbye"), "the disk stays untouched");
      check(ends["verify-1"] && ends["verify-1"].status === "completed", "verify tool call " + JSON.stringify(ends["verify-1"]));
    } else {
      check(seen.reads.length + seen.writes.length === 0, "no client fs");
      check(disk.includes("goodbye"), "edit on disk");
    }
    return { firstUpdateMs: seen.firstAt - t0, updates: seen.updates.length, sessionId: s.sessionId };
  });
}

async function deny() {
  return withAgent({ answer: "reject" }, async (ctx, seen) => {
    await init(ctx, false);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const res = await prompt(ctx, s.sessionId, "make a file");
    check(res.stopReason === "end_turn", "stop reason");
    check(seen.asked.length === 1, "asked once");
    check(seen.asked[0].options.map((o) => o.kind).join() === "allow_once,allow_always,reject_once", "options");
    check(!existsSync(join(root, "pwned")), "the rejected command did not run");
    check(calls(seen.updates).ends.call_cmd.status === "failed", "the command's tool call failed");
    return { asked: seen.asked.length };
  });
}

async function cancel() {
  return withAgent({}, async (ctx, seen) => {
    await init(ctx, false);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const t0 = performance.now();
    const pending = prompt(ctx, s.sessionId, "talk");
    while (seen.updates.length < 3) await new Promise((r) => seen.waiters.push(r));
    const sent = performance.now();
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
    const res = await pending;
    const cancelMs = performance.now() - sent;
    check(res.stopReason === "cancelled", "stop reason " + res.stopReason);
    return { firstUpdateMs: seen.firstAt - t0, cancelMs };
  });
}

async function load() {
  const first = await task(false);
  return withAgent({}, async (ctx, seen) => {
    await init(ctx, false);
    await ctx.request(acp.methods.agent.session.load, { sessionId: first.sessionId, cwd: root, mcpServers: [] });
    const user = seen.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text).join("");
    const { starts, ends } = calls(seen.updates);
    check(user.includes("Replace hello with goodbye"), "the user's prompt replayed");
    check(starts.call_read && ends.call_edit, "tool calls replayed");
    return { replayed: seen.updates.length };
  });
}

// Raw lines, outside the SDK: errors come back and the agent serves on.
async function malformed() {
  const child = spawn(bin, ["acp"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ask = async (line) => {
    child.stdin.write(line + "\n");
    const { value } = await lines.next();
    return JSON.parse(value);
  };
  const parse = await ask('{"jsonrpc":"2.0","id":1,"method":"initialize",');
  check(parse.error && parse.error.code === -32700 && parse.id === null, "parse error " + JSON.stringify(parse));
  const params = await ask('{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"prompt":7}}');
  check(params.error && params.error.code === -32602 && params.id === 2, "invalid params " + JSON.stringify(params));
  const ok = await ask(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: 1 } }));
  check(ok.result && ok.result.protocolVersion === 1, "serves on " + JSON.stringify(ok));
  child.stdin.end();
  return { errors: [parse.error.code, params.error.code] };
}

// A worktree task (agent.isolation "worktree"): its change arrives as a
// tool call with diff content and a permission request; "merge" writes it
// through the client's fs; a second task's change kept in its worktree is
// listed by /worktrees and removed by /discard.
async function worktree() {
  const answers = ["merge", "keep"];
  return withAgent({ answer: () => answers.shift() }, async (ctx, seen) => {
    await init(ctx, true);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const file = join(root, "hello.txt");
    let res = await prompt(ctx, s.sessionId, "Say goodbye");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    check(seen.asked.length === 1, "asked once, about the merge: " + JSON.stringify(seen.asked));
    const q = seen.asked[0];
    check(q.options.map((o) => o.kind).join() === "allow_once,reject_once", "merge options " + JSON.stringify(q.options));
    const diff = (q.toolCall.content || []).find((c) => c.type === "diff");
    check(diff && diff.path === file && diff.oldText.includes("hello") && diff.newText.includes("goodbye"), "the merge question's diff " + JSON.stringify(diff));
    const { starts } = calls(seen.updates);
    const wt = Object.values(starts).find((u) => String(u.toolCallId).startsWith("worktree-"));
    check(wt && (wt.content || []).some((c) => c.type === "diff"), "a worktree tool call with diff content");
    check(seen.buffers.get(file) && seen.buffers.get(file).includes("goodbye"), "the merge wrote through the client: " + seen.buffers.get(file));
    check(readFileSync(file, "utf8").includes("hello"), "the disk stays untouched");

    res = await prompt(ctx, s.sessionId, "Shout it");
    check(seen.asked.length === 2, "asked about the second merge");
    const second = calls(seen.updates).starts;
    const kept = Object.values(second).filter((u) => String(u.toolCallId).startsWith("worktree-")).pop();
    const id = kept.rawInput.worktree;
    const dir = kept.rawInput.path;
    check(id && existsSync(dir), "the kept worktree exists: " + dir);
    const before = seen.updates.length;
    await prompt(ctx, s.sessionId, "/worktrees");
    const listed = calls(seen.updates.slice(before)).text;
    check(listed.includes(id), "/worktrees lists " + id + ": " + listed);
    await prompt(ctx, s.sessionId, "/discard " + id);
    check(!existsSync(dir), "/discard removed the worktree " + dir);
    return { asked: seen.asked.length, worktree: id };
  });
}

const scenarios = { task: () => task(true), disk: () => task(false), deny, cancel, load, malformed, worktree };
try {
  const out = await scenarios[scenario]();
  console.log(JSON.stringify(out));
  process.exit(0);
} catch (e) {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
}
