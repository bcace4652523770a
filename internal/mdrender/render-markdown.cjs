// Renders the Markdown on standard input to HTML with markdown-it (CommonMark with GFM's tables and
// strike-through, as GitHub renders a job summary), HTML allowed as GitHub allows it, and prints it.
//
// Usage: NODE_PATH=tools/node_modules node render-markdown.cjs < summary.md
"use strict";
const markdownit = require("markdown-it");

let source = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { source += chunk; });
process.stdin.on("end", () => { process.stdout.write(markdownit({ html: true }).render(source)); });
