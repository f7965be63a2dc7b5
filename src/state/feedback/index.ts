/** Members' votes on answers: each answered turn's record, per guild, in the shared storage. */
export { createFeedbackStore, type FeedbackStore, type FeedbackStoreOptions, type MemberVote, type VoteInput, type VoteOutcome } from './feedback-store.js';
export { tally, type AnsweredTurn, type FeedbackRecord, type Vote } from './feedback-record.js';
