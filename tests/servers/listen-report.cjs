// Preload for HTTP test servers: `node --require /abs/path/listen-report.cjs SERVER.js ...`
//
// server-everything's `streamableHttp` and `sse` transports read PORT (default 3001) and
// bind all interfaces. With PORT=0 the OS picks a free port, but the server's own
// readiness line then says "port 0". This preload prints the real address once any
// net.Server is listening, as one line on stderr:
//
//     MCPBIND_LISTENING <address> <port>
//
// If MCPBIND_LISTEN_HOST is set (e.g. 127.0.0.1), a listen(port[, cb]) call without a
// host is bound to that host instead of all interfaces.
"use strict";
const net = require("node:net");
const origListen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const host = process.env.MCPBIND_LISTEN_HOST;
  const portLike = typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]));
  if (host && portLike && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, host);
  }
  this.once("listening", () => {
    const a = this.address();
    if (a && typeof a === "object") {
      process.stderr.write(`MCPBIND_LISTENING ${a.address} ${a.port}\n`);
    }
  });
  return origListen.apply(this, args);
};
