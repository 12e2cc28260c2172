// A random bot for any arena game, written against the protocol alone (protocol/README.md).
// Run: node random_bot.js ipc:///path/to/bot.sock
//
// It draws from a small generator seeded with each game's `game_start.seed` (Math.random can not be
// seeded), so it plays a game the same way whether it is warm or was just restarted: what lets an
// interrupted tournament resume to the same results. Generators are kept per game_id, so the bot
// would stay reproducible if it offered to play several games at once (it does not: one at a time).
"use strict";
const zmq = require("zeromq");

// FNV-1a: a string to an unsigned 32-bit integer.
function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// mulberry32: a 32-bit state, a float in [0, 1) per call.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const endpoint = process.env.ARENA_ENDPOINT || process.argv[2];
  if (!endpoint) throw new Error("usage: node random_bot.js ENDPOINT");
  const sock = new zmq.Dealer({ linger: 0 });
  sock.connect(endpoint);
  const send = (msg) => sock.send(JSON.stringify(msg));
  const rngs = new Map(); // game_id -> generator
  await send({ type: "hello", protocol: 1, name: "js-random", version: "1.0.0" });
  for await (const [frame] of sock) {
    const msg = JSON.parse(frame.toString("utf8"));
    if (msg.type === "game_start") {
      rngs.set(msg.game_id, generator(hash32(String(msg.seed ?? msg.game_id))));
    } else if (msg.type === "request") {
      let rng = rngs.get(msg.game_id);
      if (rng === undefined) { // no game_start seen: still deterministic
        rng = generator(hash32(msg.game_id));
        rngs.set(msg.game_id, rng);
      }
      // The legal actions come with every request: pick one and send it back unchanged.
      const action = msg.legal[Math.floor(rng() * msg.legal.length)];
      await send({ type: "action", id: msg.id, action });
    } else if (msg.type === "game_over") {
      rngs.delete(msg.game_id);
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
