// A random bot for any arena game, written against the protocol alone (protocol/README.md).
// Run: node random_bot.js ipc:///path/to/bot.sock
"use strict";
const zmq = require("zeromq");

async function main() {
  const endpoint = process.argv[2] || process.env.ARENA_ENDPOINT;
  if (!endpoint) throw new Error("usage: node random_bot.js ENDPOINT");
  const sock = new zmq.Dealer({ linger: 0 });
  sock.connect(endpoint);
  const send = (msg) => sock.send(JSON.stringify(msg));
  await send({ type: "hello", protocol: 1, name: "js-random", version: "1.0.0" });
  for await (const [frame] of sock) {
    const msg = JSON.parse(frame.toString("utf8"));
    if (msg.type === "request") {
      // The legal actions come with every request: pick one and send it back unchanged.
      const action = msg.legal[Math.floor(Math.random() * msg.legal.length)];
      await send({ type: "action", id: msg.id, action });
    } else if (msg.type === "shutdown" || (msg.type === "error" && msg.kind === "protocol_version")) {
      break;
    }
  }
  sock.close();
}

main().then(
  () => process.exit(0),
  (err) => { console.error(err); process.exit(1); }
);
