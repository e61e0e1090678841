import fc from "fast-check";
import { expect, test } from "vitest";
import { listMessages } from "../test-support/client.ts";
import { expectPage } from "../test-support/expect.ts";
import { fakeServer } from "../test-support/server.ts";
import { ContinueCommand } from "../test-support/scope-model/continue-command.ts";
import { CreateCommand } from "../test-support/scope-model/create-command.ts";
import { DeleteCommand } from "../test-support/scope-model/delete-command.ts";
import { ListCommand } from "../test-support/scope-model/list-command.ts";
import { AGENTS, KEYS, keySpecs, type Identity, type ScopeModel } from "../test-support/scope-model/model.ts";

const identity: fc.Arbitrary<Identity> = fc.record({
  key: fc.constantFrom(...KEYS),
  agent: fc.constantFrom(...AGENTS),
});
const target = fc.tuple(fc.nat(20), fc.uuid({ version: 4 }));

const commands = [
  identity.map((who) => new CreateCommand(who)),
  fc.tuple(identity, target).map(([who, [index, unknown]]) => new ContinueCommand(who, index, unknown)),
  fc.tuple(identity, target).map(([who, [index, unknown]]) => new ListCommand(who, index, unknown)),
  fc.tuple(identity, target).map(([who, [index, unknown]]) => new DeleteCommand(who, index, unknown)),
];

test("no read, delete or continue ever crosses an (agent, channel) scope", async () => {
  const fake = await fakeServer({ keys: keySpecs() });
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (cmds) => {
      fake.reset();
      const model: ScopeModel = { live: [], deleted: [] };
      await fc.asyncModelRun(() => ({ model, real: { url: fake.url } }), cmds);
      // Every surviving conversation still holds exactly what its own scope put in it.
      for (const conversation of model.live) {
        const owner = KEYS.find(
          (key) => key.channel === conversation.channel && key.agents.includes(conversation.agent),
        );
        const page = expectPage(
          await listMessages(fake.url, conversation.id, {
            key: owner?.token ?? null,
            agent: conversation.agent,
            query: "page_size=100",
          }),
        );
        expect(page.total).toBe(conversation.messages);
      }
    }),
    { numRuns: 30, interruptAfterTimeLimit: 15_000, markInterruptAsFailure: true },
  );
});
