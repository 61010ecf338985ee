#!/usr/bin/env node
// Runs one task with feiyu as a library and prints its events as they come, then its result
// (the object `feiyu -p --output-format json` prints). The model comes from keys.json or
// ANTHROPIC_API_KEY / OPENAI_API_KEY, as for the CLI; nothing is written to the state folder.
//
//   node examples/run-task.mjs "What does this project do?"
//   FEIYU_EXAMPLE_MODE=auto node examples/run-task.mjs "Add a .editorconfig"
import { createHost } from 'feiyu';

const prompt = process.argv.slice(2).join(' ') || 'List the files here and say in two sentences what this project is.';
// readonly: the model may read and search, never change anything; default would ask below.
const mode = process.env.FEIYU_EXAMPLE_MODE ?? 'readonly';

const host = await createHost({ cwd: process.cwd(), mode });
try {
  const id = await host.submit({ prompt });
  console.log(`task ${id}`);
  for await (const event of host.events(id)) {
    switch (event.type) {
      case 'text_delta':
        process.stdout.write(event.text);
        break;
      case 'tool_call':
        console.log(`\n→ ${event.title ?? event.name}`);
        break;
      case 'tool_result':
        console.log(`← ${event.name} ${event.isError ? 'failed' : 'ok'} in ${event.durationMs} ms`);
        break;
      case 'permission':
        if (event.decision === 'deny') console.log(`✗ refused: ${event.reason}`);
        break;
      case 'approval':
        // A script has no one to ask: this one says no, and the model is told.
        console.log(`? ${event.approval.kind === 'call' ? event.approval.request.display : 'a plan'}: answered no`);
        host.answer(id, event.id, event.approval.kind === 'call' ? { answer: 'no', reason: 'this example only reads' } : { approved: false });
        break;
      case 'notice':
        console.log(`[${event.code}]`);
        break;
      case 'turn_end':
        console.log(`\n(${event.stopReason}, ${event.rounds} rounds)`);
        break;
    }
  }
  const result = await host.wait(id);
  console.log(JSON.stringify(result));
  process.exitCode = result.subtype === 'success' ? 0 : 1;
} finally {
  await host.close();
}
