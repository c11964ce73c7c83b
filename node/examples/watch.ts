// A TypeScript orchestrator's use of sjlint: check a finished run, read its statistics, and
// follow a live agent's stdout as it arrives. Type-checked by node/test/types.test.mjs
// (`tsc --noEmit --strict`).
import { spawn } from "node:child_process";
import { check, checkAsync, isFinding, stats, Stream, type CommonEvent, type Finding } from "sjlint";

const { findings, agent, records } = check("run.ndjson", { ignore: ["blank-line"] });
for (const f of findings) {
  console.log(`${f.file}:${f.line}: ${f.severity} ${f.rule} ${f.message}`);
}
console.log(agent ?? "unknown agent", records, stats("run.ndjson").usage.output_tokens);

async function summary(path: string): Promise<number> {
  const result = await checkAsync(path, { severity: { "missing-result": "warning" } });
  return result.findings.filter((f: Finding) => f.severity === "error").length;
}
void summary("run.ndjson");

const claude = spawn("claude", ["-p", "fix the test", "--output-format", "stream-json", "--verbose"]);
const stream = new Stream({ agent: "claude" });
const seen = (items: Array<Finding | CommonEvent>) => {
  for (const item of items) {
    if (isFinding(item)) {
      console.error(`line ${item.line}: ${item.rule}: ${item.message}`);
    } else if (item.type === "tool_start") {
      console.log(`tool ${item.name ?? "?"} (${item.tool_kind ?? "other"})`);
    } else if (item.type === "end") {
      console.log(`ended: ${item.outcome ?? "?"}`);
    }
  }
};
claude.stdout.on("data", (chunk: Buffer) => seen(stream.feed(chunk)));
claude.on("close", () => seen(stream.finish()));
