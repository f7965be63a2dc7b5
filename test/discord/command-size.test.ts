/**
 * Discord refuses a command over 8,000 characters (names, descriptions, choice names and values, and
 * their localisations, through the whole tree), and a refused registration takes every command of the
 * deploy down with it (Hermes #10259, #11321). Counted here with the fake Discord's own count, for every
 * built-in command and for a skill's command at its largest; the registrar's count must agree with it.
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { commandBody, commandSize } from '../../src/discord/skills/skill-command-body.js';
import { COMMAND_MAX_SIZE, commandCharacters } from '../fake-discord/command-schema.js';

/**
 * Half the limit: every shipped locale's translations will count too, and a translation is about as
 * long as the English, so a command has to leave room for at least one.
 */
const BUILT_IN_MAX = COMMAND_MAX_SIZE / 2;

describe("the commands' size, as Discord counts it", () => {
  it('every built-in command, /skill and /settings included, takes at most half of the 8,000 characters', () => {
    const sizes = Object.fromEntries(commands.map((c) => [c.data.name, commandCharacters(c.data.toJSON() as unknown as Record<string, unknown>)]));
    expect(Object.keys(sizes)).toContain('skill');
    for (const [name, size] of Object.entries(sizes)) expect({ name, size, fits: size <= BUILT_IN_MAX }).toEqual({ name, size, fits: true });
  });

  it("a skill's command at its largest (32-character name, 100-character description, 5 inputs of 32) is well within the limit", () => {
    const body = commandBody({ name: 'n'.repeat(32), description: 'd'.repeat(100), inputs: ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(32)) });
    expect(commandCharacters(body)).toBe(32 + 100 + 5 * (32 + 'Input: '.length + 32));
    expect(commandCharacters(body)).toBeLessThanOrEqual(COMMAND_MAX_SIZE);
  });

  it("the registrar counts as Discord does: the same size as the fake's for every command", () => {
    for (const c of commands) {
      const json = c.data.toJSON() as unknown as Record<string, unknown>;
      expect(commandSize(json)).toBe(commandCharacters(json));
    }
  });
});
