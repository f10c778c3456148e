// An ACP client built on the official TypeScript SDK (its client side),
// driving the real `agentls acp` binary. One scenario per run:
//   node client.mjs task|disk|deny|cancel|load|malformed|worktree|
//                   trust-elicit|trust-decline|trust-permission|cancel-request|cancel-permission|fork|mcp
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
// fs/*; answer: the permission option it picks; elicit: when set, the
// client takes form elicitations and elicit(params, signal) answers them.
function makeClient({ answer = "reject", elicit } = {}) {
  const seen = { updates: [], reads: [], writes: [], asked: [], elicited: [], buffers: new Map(), firstAt: 0, waiters: [], elicit };
  let app = acp
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
  if (elicit) {
    app = app.onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => {
      seen.elicited.push(params);
      for (const w of seen.waiters.splice(0)) w();
      return elicit(params, signal);
    });
  }
  return { app, seen };
}

async function init(ctx, fs, seen) {
  const clientCapabilities = { fs: { readTextFile: fs, writeTextFile: fs } };
  if (seen && seen.elicit) clientCapabilities.elicitation = { form: {} };
  const res = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
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
// listed by /worktrees, merged later by /merge and removed by /discard.
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
    const beforeMerge = seen.updates.length;
    await prompt(ctx, s.sessionId, "/merge " + id);
    const merged = calls(seen.updates.slice(beforeMerge)).text;
    check(seen.buffers.get(file) && seen.buffers.get(file).includes("GOODBYE"), "/merge wrote the kept change through the client: " + seen.buffers.get(file) + " / " + merged);
    check(readFileSync(file, "utf8").includes("hello"), "the disk stays untouched after /merge");
    await prompt(ctx, s.sessionId, "/discard " + id);
    check(!existsSync(dir), "/discard removed the worktree " + dir);
    return { asked: seen.asked.length, worktree: id };
  });
}

const until = async (seen, cond) => {
  while (!cond()) await new Promise((r) => seen.waiters.push(r));
};

// The workspace's .agentls.json (tools.allow ["*"]) is held back until
// trusted; the first prompt asks. Answered yes, the command runs without a
// permission request of its own, as the trusted rule admits it.
function trustChecks(seen) {
  check(existsSync(join(root, "made")), "the trusted allow rule let the command run");
  check(calls(seen.updates).ends.call_cmd.status === "completed", "the command's tool call completed");
}

// A client that takes form elicitations is asked with one.
async function trustElicit() {
  const elicit = () => ({ action: "accept", content: { answer: "allow-once" } });
  return withAgent({ elicit, answer: "reject" }, async (ctx, seen) => {
    await init(ctx, false, seen);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const res = await prompt(ctx, s.sessionId, "make a file");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    check(seen.elicited.length === 1, "one elicitation: " + JSON.stringify(seen.elicited));
    check(seen.asked.length === 0, "no permission request: " + JSON.stringify(seen.asked));
    const q = seen.elicited[0];
    check(q.mode === "form" && q.sessionId === s.sessionId, "a form in the session: " + JSON.stringify(q));
    check(q.message.includes(".agentls.json"), "the message names the file: " + q.message);
    const field = q.requestedSchema.properties.answer;
    check(q.requestedSchema.required.includes("answer") && field.type === "string", "one required choice: " + JSON.stringify(q.requestedSchema));
    check(field.oneOf.map((o) => o.const).join() === "allow-once,reject", "the choices are the permission's options: " + JSON.stringify(field.oneOf));
    trustChecks(seen);
    return { elicited: seen.elicited.length };
  });
}

// Declined, the form is a no, as "reject" is: the settings stay held
// back, so the command is asked about on its own (and rejected here).
async function trustDecline() {
  const elicit = () => ({ action: "decline" });
  return withAgent({ elicit, answer: "reject" }, async (ctx, seen) => {
    await init(ctx, false, seen);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const res = await prompt(ctx, s.sessionId, "make a file");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    check(seen.elicited.length === 1, "one elicitation");
    check(seen.asked.length === 1 && seen.asked[0].toolCall.toolCallId === "call_cmd", "the command asked about: " + JSON.stringify(seen.asked));
    check(!existsSync(join(root, "made")), "the held-back allow rule admitted nothing");
    return { elicited: seen.elicited.length, asked: seen.asked.length };
  });
}

// A client without elicitation gets the same question as a permission
// request, whose "allow-once" means the same yes.
async function trustPermission() {
  const answer = (p) => (p.toolCall.title.startsWith("Trust ") ? "allow-once" : "reject");
  return withAgent({ answer }, async (ctx, seen) => {
    await init(ctx, false, seen);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const res = await prompt(ctx, s.sessionId, "make a file");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    check(seen.asked.length === 1, "asked once, the trust question: " + JSON.stringify(seen.asked.map((a) => a.toolCall.title)));
    check(seen.asked[0].toolCall.title.includes(".agentls.json"), "the question names the file");
    check(seen.asked[0].options.map((o) => o.optionId).join() === "allow-once,reject", "options " + JSON.stringify(seen.asked[0].options));
    trustChecks(seen);
    return { asked: seen.asked.length };
  });
}

// $/cancel_request both ways: the client cancels its pending
// session/prompt by request id while the agent waits on an elicitation;
// the agent cancels that elicitation with $/cancel_request, and the
// prompt answers "cancelled".
async function cancelRequest() {
  let cancelledByAgent = false;
  const elicit = (params, signal) =>
    new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        cancelledByAgent = true;
        resolve({ action: "cancel" });
      });
    });
  return withAgent({ elicit }, async (ctx, seen) => {
    await init(ctx, false, seen);
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const stop = new AbortController();
    const pending = ctx.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "make a file" }] },
      { cancellationSignal: stop.signal });
    await until(seen, () => seen.elicited.length === 1);
    stop.abort();
    const res = await pending;
    check(res.stopReason === "cancelled", "stop reason " + res.stopReason);
    check(cancelledByAgent, "the agent cancelled its pending elicitation with $/cancel_request");
    check(!existsSync(join(root, "made")), "nothing ran");
    return { cancelled: true };
  });
}

// session/cancel while the turn waits on a permission request (a client
// without elicitation): the agent cancels that request with
// $/cancel_request, and the prompt answers "cancelled".
async function cancelPermission() {
  let cancelledByAgent = false;
  let asked = 0;
  const { child, stream } = startAgent();
  const seen = { updates: [], waiters: [] };
  const app = acp
    .client({ name: "agentls-e2e" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      seen.updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ signal }) =>
      new Promise((resolve) => {
        asked++;
        for (const w of seen.waiters.splice(0)) w();
        signal.addEventListener("abort", () => {
          cancelledByAgent = true;
          resolve({ outcome: { outcome: "cancelled" } });
        });
      }));
  try {
    return await app.connectWith(stream, async (ctx) => {
      await init(ctx, false);
      const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
      const pending = prompt(ctx, s.sessionId, "make a file");
      await until(seen, () => asked === 1);
      await ctx.notify(acp.methods.agent.session.cancel, { sessionId: s.sessionId });
      const res = await pending;
      check(res.stopReason === "cancelled", "stop reason " + res.stopReason);
      check(cancelledByAgent, "the agent cancelled its pending permission request with $/cancel_request");
      check(!existsSync(join(root, "made")), "nothing ran");
      return { cancelled: true };
    });
  } finally {
    child.stdin.end();
    await new Promise((r) => (child.exitCode !== null ? r() : child.on("exit", r)));
  }
}

// session/fork: the fork has the conversation so far and goes on apart
// from the session it came from (the Go test checks what the model saw).
async function fork() {
  const { A, B } = await withAgent({}, async (ctx, seen) => {
    const init0 = await init(ctx, false, seen);
    check(JSON.stringify(init0.agentCapabilities.sessionCapabilities.fork) === "{}", "fork advertised");
    check(!init0.agentCapabilities.auth || !init0.agentCapabilities.auth.logout, "logout not advertised");
    const a = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    let res = await prompt(ctx, a.sessionId, "first question");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    const b = await ctx.request(acp.methods.agent.session.fork, { sessionId: a.sessionId, cwd: root, mcpServers: [] });
    check(b.sessionId && b.sessionId !== a.sessionId, "a new session: " + JSON.stringify(b));
    check(b.modes && b.configOptions, "modes and config options");
    res = await prompt(ctx, b.sessionId, "fork question");
    check(res.stopReason === "end_turn", "fork stop reason " + res.stopReason);
    res = await prompt(ctx, a.sessionId, "parent question");
    check(res.stopReason === "end_turn", "parent stop reason " + res.stopReason);
    const list = await ctx.request(acp.methods.agent.session.list, { cwd: root });
    check(list.sessions.some((x) => x.sessionId === b.sessionId), "the fork is listed");
    return { A: a.sessionId, B: b.sessionId };
  });
  // In a new process, each session replays its own conversation.
  const replayed = async (id) =>
    withAgent({}, async (ctx, seen) => {
      await init(ctx, false, seen);
      await ctx.request(acp.methods.agent.session.load, { sessionId: id, cwd: root, mcpServers: [] });
      return seen.updates.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text).join("|");
    });
  const b = await replayed(B), a = await replayed(A);
  check(b.includes("first question") && b.includes("fork question") && !b.includes("parent question"), "the fork's replay: " + b);
  check(a.includes("first question") && a.includes("parent question") && !a.includes("fork question"), "the parent's replay: " + a);
  return { parent: A, fork: B };
}

// The client's own MCP servers (JetBrains passes the IDE's): a stdio
// server given in session/new is started for the session, and its tool,
// asked about as a command is, runs.
async function mcp() {
  return withAgent({ answer: "allow-once" }, async (ctx, seen) => {
    await init(ctx, false, seen);
    const server = { name: "loud", command: process.env.MCP_SERVER_BIN, args: [], env: [] };
    const s = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [server] });
    const res = await prompt(ctx, s.sessionId, "shout");
    check(res.stopReason === "end_turn", "stop reason " + res.stopReason);
    const { ends, text } = calls(seen.updates);
    check(ends.c1 && ends.c1.status === "completed", "the MCP tool call completed: " + JSON.stringify(ends.c1));
    check(text.includes("it shouted"), "the model saw the tool's answer: " + text);
    return { asked: seen.asked.length };
  });
}

const scenarios = {
  task: () => task(true), disk: () => task(false), deny, cancel, load, malformed, worktree,
  "trust-elicit": trustElicit, "trust-decline": trustDecline, "trust-permission": trustPermission, "cancel-request": cancelRequest, "cancel-permission": cancelPermission, fork, mcp,
};
try {
  const out = await scenarios[scenario]();
  console.log(JSON.stringify(out));
  process.exit(0);
} catch (e) {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
}
