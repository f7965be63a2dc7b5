/**
 * The skills store on every backend: a guild's skills in one record, each with its revisions (the newest
 * 20, numbered on from 1), the caller's cap checked inside the serialized change (ten creates at once
 * never pass a cap of three), a record that does not read set aside and reported, and which skill each
 * skill thread runs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createStorage, type RevisionDraft, type Storage } from '../../../src/state/index.js';
import { openBackend } from '../../../src/storage/open.js';
import { DEFAULT_TIMEOUTS } from '../../../src/storage/key-value.js';
import { purgeSchedules } from '../helpers/schedules.js';
import { targets, uniqueNamespace } from '../helpers/targets.js';

const revision = (instructions: string, at = 1): RevisionDraft => ({ description: 'Summarise', instructions, inputs: ['incident'], tools: ['calculate'], authorId: 'M1', authorName: 'Mod', at });

for (const target of await targets('skill-store')) {
  describe.runIf(target.available)(`skills store on ${target.kind}`, () => {
    const namespace = uniqueNamespace(`skills-${target.kind}`);
    const events: string[] = [];
    let storage: Storage | undefined;
    afterAll(async () => {
      await storage?.close();
      // The same namespace purge as the schedules' (it removes every key under the namespace).
      await purgeSchedules(target.url, namespace);
    });
    const open = async () => (storage ??= await createStorage({ keyvUrl: target.url, historyTokenBudget: 8_000 }, { namespace, logger: (e) => events.push(e.code) }));

    it('creates, revises (the newest 20 kept, numbers going on), limits to roles and removes; a guild that had skills is still known', async () => {
      const { skills } = await open();
      const created = await skills.create('G1', { name: 'incident-summary', ownerId: 'M1', first: revision('v1') }, () => undefined);
      expect(created.ok && created.skill.revisions.map((r) => r.n)).toEqual([1]);
      for (let i = 2; i <= 23; i++) await skills.revise('G1', 'incident-summary', revision(`v${i}`, i));
      const [skill] = await skills.list('G1');
      expect(skill!.revisions.map((r) => r.n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 4));
      expect(skill!.revisions.at(-1)!.instructions).toBe('v23');
      expect((await skills.setRoles('G1', 'incident-summary', ['R1', 'R1', 'R2']))?.roles).toEqual(['R1', 'R2']);
      expect(await skills.revise('G1', 'nope', revision('x'))).toBeUndefined();
      expect((await skills.remove('G1', 'incident-summary'))?.name).toBe('incident-summary');
      expect(await skills.list('G1')).toEqual([]);
      expect(await skills.guildsWithSkills(['G1', 'G2'])).toEqual(['G1']);
    });

    it('holds the cap when ten creates arrive at once', async () => {
      const { skills } = await open();
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        skills.create('G3', { name: `s${i}`, ownerId: 'M1', first: revision('x') }, (all) => (all.length >= 3 ? 'full' : undefined))));
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(await skills.list('G3')).toHaveLength(3);
    });

    // Another process's backend over the same data: memory has none to share.
    if (target.kind !== 'memory') it('sets a record it cannot read aside, reports it, and the guild starts again with none', async () => {
      const { skills } = await open();
      const backend = await openBackend(target.url, process.cwd(), { timeouts: DEFAULT_TIMEOUTS, onBackgroundError: () => {} });
      try {
        await backend.keyv.set(`${namespace}:skills:G4`, { v: 1, skills: [{ name: 'Bad Name!', revisions: [] }] });
      } finally {
        await backend.close();
      }
      expect(await skills.list('G4')).toEqual([]);
      expect(events).toContain('corrupt-record');
    });

    it("remembers which skill a thread runs, and reads nothing for a thread that runs none", async () => {
      const { skills } = await open();
      const run = { name: 'incident-summary', revision: 3, instructions: 'Summarise <input name="incident">x</input>.', tools: ['calculate'], author: { id: 'M1', name: 'Mod' } };
      await skills.rememberThread('T1', 'G1', run);
      expect(await skills.threadSkill('T1')).toEqual({ guildId: 'G1', run });
      expect(await skills.threadSkill('T2')).toBeUndefined();
    });
  });
}
