/**
 * How a turn begins (its origin): what the person did, as data, and what it carries. Every origin goes
 * through the pipeline's one `start` and its one sequence (admit → place → queue → record → run → reply);
 * an origin is read, in one place each, for where its turn posts (place.ts) and what its person hears
 * back when it ends (reply.ts), and here for how it is admitted (`ADMISSION`). What an
 * origin needs besides (a schedule's claim on its occurrence, a resumed turn's record) it carries as
 * hooks, called at the named points of the sequence. A new way to ask is a new case here and in those two.
 */
import type { ButtonInteraction, ChatInputCommandInteraction, Client, Message, ModalSubmitInteraction, NewsChannel, TextChannel, ThreadChannel } from 'discord.js';
import type { CallDecision, RunState } from '../../agent/engine.js';
import type { SkillRun } from '../../skills/skill-run.js';
import type { AdmitOptions, NewMessage } from '../../state/index.js';
import type { AskedAbout } from '../pending-asks.js';
import type { PlaceRef, TurnTarget } from '../posting/target.js';
import type { TurnOutcome } from './outcome.js';
import type { TurnMessage, TurnRecord } from './record.js';

/** The person's message that starts the turn, and what to log it by. */
export interface TurnRequest extends TurnMessage {
  /** Log fields for every line about this turn (interaction, guild, thread, user ids). */
  logFields: Record<string, string | undefined>;
}

/** Where a scheduled run posted: its thread, or why it could not open one. */
export type ScheduledPlace = { threadId: string } | { unable: string };

/** What a turn taken up after a person decided its waiting calls goes on from. */
export interface Resume {
  state: RunState;
  decisions: Readonly<Record<string, CallDecision>>;
  /** The people's messages as the model was first given them. */
  asked: NewMessage[];
}

/** What an origin may ask of the one sequence, at its named points (each optional). */
export interface OriginHooks {
  /** Once the turn has its place (or why it has none), before it is queued. */
  placed?(where: { place: PlaceRef } | { unable: string }): Promise<void>;
  /**
   * Just before the run's first model call, its record made: an outcome ends the turn there, with no
   * model call (the hook has said in the thread whatever needs saying).
   */
  beforeRun?(target: TurnTarget): Promise<TurnOutcome | undefined>;
  /** Once the turn is over and its person told, however it ended (a throw included). */
  ended?(): Promise<void>;
}

export type TurnOrigin = OriginHooks &
  (
    /** `/ask`: in a channel a new thread on its reply, in a thread that thread, in a DM the interaction. */
    | { kind: 'ask'; interaction: ChatInputCommandInteraction; request: TurnRequest }
    /**
     * A skill run (its own command `/<name>`, or `/skill run`): placed like `/ask`, its headline and thread
     * naming the skill; the skill's instructions and tools ride on the turn (its record keeps them).
     * `note` is a line the reply keeps (the skill has no command of its own here).
     */
    | { kind: 'skill'; interaction: ChatInputCommandInteraction; request: TurnRequest; skill: SkillRun; note?: string }
    /** Ask about this message: a new thread on that message (or the thread it is in), privately acknowledged. */
    | { kind: 'ask-about'; interaction: ModalSubmitInteraction; about: AskedAbout; request: TurnRequest }
    /** Continue past the step limit: the same thread, from its memory. */
    | {
        kind: 'continue';
        interaction: ButtonInteraction;
        thread: ThreadChannel;
        request: TurnRequest;
        /** Give the button's one-time claim back (the turn was refused: the button is offered again). */
        unclaim(): void;
      }
    /**
     * A message that mentions the bot (or, where it answers always, any new message) in a text or
     * announcement channel: the bot opens a thread on that message and answers there.
     */
    | {
        kind: 'mention';
        message: Message<true>;
        request: TurnRequest;
        /** Say something under the message (why it was not taken); quiet where the bot answers always. */
        tell(text: string): Promise<void>;
      }
    /**
     * A scheduled question's run, as its owner: a new thread per run on a message that starts it in the
     * schedule's channel (named with the date), or the schedule's one thread for all runs. The schedule
     * side brings its hooks (where the run posted; its claim on the occurrence before the model call).
     */
    | {
        kind: 'schedule';
        request: TurnRequest;
        channel: TextChannel | NewsChannel;
        /** The schedule's own thread, when it has one for all runs still open. */
        thread?: ThreadChannel;
        /** The message that starts the run, and the new thread's name. */
        headline: string;
        threadName: string;
        /** The first line of the run's thread (runs skipped while the bot was down). */
        note?: string;
        /** The skill it runs, as its owner (`/schedule add skill:`). */
        skill?: SkillRun;
      }
    /**
     * A message in a bot thread: it waits while the thread is busy and is answered with every other
     * message waiting there by the thread's next turn (follow-up-batches.ts).
     */
    | {
        kind: 'follow-up';
        thread: TurnTarget;
        request: TurnRequest;
        /** Acknowledge that a turn took the message (a reaction under it). Never throws. */
        taken(): void;
        /** Say something under the message (why it was not taken). Never throws. */
        tell(text: string): Promise<void>;
      }
    /**
     * A turn that stopped for an approval, going on once its calls are decided (waiting-turns.ts hands
     * it back): the same turn, of the kind it began as, for the same people, in the same place, with the
     * settings it began with, from its saved state. `request` is its payer's message.
     */
    | { kind: 'resume'; client: Client<true>; turn: TurnRecord; request: TurnRequest; resume: Resume }
  );

/**
 * How each origin is admitted: a follow-up waits holding no slot (the turn that takes it holds one), and
 * a resumed turn takes a slot and meets the caps but is not another run of the member's hour.
 */
export const ADMISSION: Readonly<Record<TurnOrigin['kind'], AdmitOptions | undefined>> = {
  ask: undefined,
  skill: undefined,
  'ask-about': undefined,
  continue: undefined,
  mention: undefined,
  schedule: undefined,
  'follow-up': { slot: 'later' },
  resume: { countRun: false },
};
