/**
 * Why the bot could not connect, in words that say which setting or switch to fix. discord.js reports
 * a refused token as `TokenInvalid` ("An invalid token was provided.") or a 401, and a privileged
 * intent the application has not enabled as close code 4014 ("Used disallowed intents").
 */
import { describeError } from '../errors.js';

/** The sentence to print when starting failed with `error`: what happened and what to do. */
export function describeStartupError(error: unknown): string {
  const detail = withStop(describeError(error).trim());
  const code = (error as { code?: unknown } | null)?.code;
  const status = (error as { status?: unknown } | null)?.status;
  if (code === 'TokenInvalid' || code === 'TokenMissing' || status === 401 || /\b401\b|Unauthorized/i.test(detail)) {
    // The library's own words ("An invalid token was provided.", "401: Unauthorized") add nothing to this.
    return (
      'Discord refused the bot token (401 Unauthorized). Check DISCORD_TOKEN: in the Discord Developer Portal, ' +
      'open your application → Bot → Reset Token, and put the new token in .env (without quotes or a "Bot " prefix).'
    );
  }
  if (code === 4014 || /disallowed intents/i.test(detail)) {
    return (
      `${detail} Discord refused the Message Content intent (close code 4014). Either turn it on in the Discord ` +
      'Developer Portal (your application → Bot → Privileged Gateway Intents → Message Content Intent), or set ' +
      'DISCORD_MESSAGE_CONTENT=false (people then mention the bot, or use /ask, to continue a thread).'
    );
  }
  return detail;
}

/** End with exactly one full stop, whatever the library's message ended with. */
function withStop(text: string): string {
  if (!text) return 'Unknown error.';
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
