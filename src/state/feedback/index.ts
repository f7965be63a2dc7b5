/** Members' votes on answers: each answered turn's record, per guild, in the shared storage. */
export { createFeedbackStore, type FeedbackStore, type FeedbackStoreOptions, type MemberVote, type VoteInput, type VoteOutcome } from './feedback-store.js';
export { ANSWER_KEPT_CHARS, capText, QUESTION_KEPT_CHARS, REASON_MAX_CHARS, tally, type AnsweredTurn, type FeedbackRecord, type Vote } from './feedback-record.js';
