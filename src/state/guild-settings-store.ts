/**
 * Guild settings as one versioned Keyv record per guild. Updates are serialized per guild in this
 * process; the project runs each guild on exactly one shard, so that is the only writer (two processes
 * updating the same guild at the same moment would be last-writer-wins). A record that cannot be read
 * is set aside under a quarantine key and reported, and the guild gets defaults until someone saves.
 */
import { StorageError } from '../errors.js';
import type { Backend } from '../storage/registry.js';
import { storageFailure } from '../storage/storage-failure.js';
import { checkId } from './conversation-store.js';
import {
  AUDIT_LOG_LIMIT,
  GUILD_SETTINGS_VERSION,
  GuildSettingsSchema,
  defaultGuildSettings,
  type GuildSettings,
} from './guild-settings-schema.js';
import { KeyedSerializer } from '../storage/keyed-serializer.js';
import type { GuildSettingsStore, StorageLogger } from './types.js';

/** What the guild settings store is built from. */
export interface GuildSettingsStoreOptions {
  backend: Backend;
  namespace: string;
  now: () => Date;
  logger: StorageLogger;
}

/** Build the guild settings store for a backend. */
export function createGuildSettingsStore(options: GuildSettingsStoreOptions): GuildSettingsStore {
  const { backend, namespace, now, logger } = options;
  const serial = new KeyedSerializer();
  const keyOf = (guildId: string) => `${namespace}:guild:${checkId('guild', guildId)}`;

  async function setAside(guildId: string, raw: unknown, reason: string): Promise<void> {
    const quarantineKey = `${namespace}:quarantine:guild:${guildId}:${now().getTime()}`;
    await backend.keyv.set(quarantineKey, { guildId, reason, raw: typeof raw === 'string' ? raw : JSON.stringify(raw) });
    await backend.keyv.delete(keyOf(guildId));
    logger({
      level: 'warn',
      code: 'corrupt-record',
      guildId,
      quarantineKey,
      message: `The settings of guild ${guildId} could not be read (${reason}); they were set aside under ${quarantineKey} and defaults apply.`,
    });
  }

  async function read(guildId: string): Promise<{ settings: GuildSettings; newer: boolean }> {
    const key = keyOf(guildId);
    let value: unknown;
    try {
      value = await backend.keyv.get(key);
    } catch (error) {
      // Keyv parses the stored text outside its own error handling; a SyntaxError means a bad record.
      if (!(error instanceof SyntaxError)) throw error;
      await setAside(guildId, await backend.keyv.store.get(key), 'not JSON');
      return { settings: defaultGuildSettings(), newer: false };
    }
    if (value === undefined) return { settings: defaultGuildSettings(), newer: false };
    const parsed = GuildSettingsSchema.safeParse(value);
    if (!parsed.success) {
      await setAside(guildId, value, `unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return { settings: defaultGuildSettings(), newer: false };
    }
    return { settings: parsed.data, newer: parsed.data.v > GUILD_SETTINGS_VERSION };
  }

  return {
    get: (guildId) => serial.run(guildId, async () => (await guard('reading', guildId, () => read(guildId))).settings),
    update: (guildId, change) =>
      serial.run(guildId, () =>
        guard('saving', guildId, async () => {
          const { settings, newer } = await read(guildId);
          if (newer) {
            throw new StorageError(
              `The settings of guild ${guildId} were saved by a newer threadwise (format ${settings.v}); update the bot before changing them.`,
            );
          }
          const changed = await change(structuredClone(settings));
          const parsed = GuildSettingsSchema.safeParse(changed);
          if (!parsed.success) {
            throw new StorageError(`Refusing to save invalid settings for guild ${guildId}: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
          }
          const next: GuildSettings = {
            ...parsed.data,
            v: GUILD_SETTINGS_VERSION,
            auditLog: parsed.data.auditLog.slice(-AUDIT_LOG_LIMIT),
            updatedAt: now().getTime(),
          };
          await backend.keyv.set(keyOf(guildId), next);
          return next;
        }),
      ),
  };

  async function guard<T>(action: string, guildId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw storageFailure(backend.kind, backend.where, `${action} the settings of guild ${guildId}`, error);
    }
  }
}
