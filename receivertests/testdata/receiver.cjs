// A merchant's webhook receiver in Node.js that verifies with the official standardwebhooks package,
// for TestNodeReceivers. MODE=raw verifies the body as received; MODE=stringify verifies
// JSON.stringify(JSON.parse(body)), as an Express app that signs JSON.stringify(req.body) after
// express.json() parsed it. SECRET is the whsec_ secret. It listens on a free port of 127.0.0.1 and
// prints the port.
const http = require("node:http");
const { Webhook } = require("standardwebhooks");

const wh = new Webhook(process.env.SECRET);
const mode = process.env.MODE;

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    const raw = Buffer.concat(chunks);
    let payload = raw;
    if (mode === "stringify") {
      try {
        payload = JSON.stringify(JSON.parse(raw.toString("utf8")));
      } catch {
        res.writeHead(400).end("not JSON");
        return;
      }
    }
    try {
      wh.verify(payload, req.headers);
    } catch {
      res.writeHead(401).end("invalid signature");
      return;
    }
    res.writeHead(204).end();
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
