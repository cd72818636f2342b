// A minimal OpenAI-compatible server for benchmarks, in Node.js: answers every request after a
// fixed delay and echoes the prompt upper-cased, like _latency_server.py, but without taking the
// client's CPU (one process, libuv, a timer per request). Loopback only; prints its port.
//
//     node benchmarks/_latency_server.js --delay 0.05
"use strict";
const http = require("http");

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 && at + 1 < process.argv.length ? Number(process.argv[at + 1]) : fallback;
}

const delayMs = option("--delay", 0.05) * 1000;
const models = JSON.stringify({ object: "list", data: [{ id: "bench-model", object: "model" }] });

function send(response, payload) {
  response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) });
  response.end(payload);
}

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on("data", (chunk) => chunks.push(chunk));
  request.on("end", () => {
    if (request.method === "GET" && request.url.endsWith("/models")) {
      send(response, models);
      return;
    }
    setTimeout(() => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      let choice;
      if (request.url.endsWith("/chat/completions")) {
        const text = body.messages[body.messages.length - 1].content.toUpperCase();
        choice = { index: 0, message: { role: "assistant", content: text } };
      } else {
        choice = { index: 0, text: String(body.prompt === undefined ? "" : body.prompt).toUpperCase() };
      }
      send(response, JSON.stringify({ choices: [choice] }));
    }, delayMs);
  });
});
server.keepAliveTimeout = 600000; // the client keeps its connections for the whole benchmark
server.maxRequestsPerSocket = 0;
server.listen(option("--port", 0), "127.0.0.1", 1024, () => console.log(server.address().port));
