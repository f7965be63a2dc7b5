/** Schema statements when several processes start at once: the race's loser goes on, any other error stops. */
import { expect, it } from 'vitest';
import { createAll, lostCreateRace } from '../../src/storage/postgres-schema.js';

const failing = (code: string) => Object.assign(new Error(`code ${code}`), { code });

it('goes on past a table or index another process created at the same moment, running every statement', async () => {
  const ran: string[] = [];
  await createAll(async (s) => {
    ran.push(s);
    if (s === 'b') throw failing('42P07');
    if (s === 'c') throw failing('23505');
  }, ['a', 'b', 'c', 'd']);
  expect(ran).toEqual(['a', 'b', 'c', 'd']);
});

it('stops at any other error, running nothing after it', async () => {
  const ran: string[] = [];
  await expect(createAll(async (s) => {
    ran.push(s);
    if (s === 'b') throw failing('42501'); // insufficient privilege
  }, ['a', 'b', 'c'])).rejects.toThrow('code 42501');
  expect(ran).toEqual(['a', 'b']);
  expect(lostCreateRace(undefined)).toBe(false);
  expect(lostCreateRace(new Error('no code'))).toBe(false);
});
