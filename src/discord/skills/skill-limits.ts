/**
 * Limits shared by a skill's command and its run. A run's message (`/name input: value …`) must pass the
 * checks of any question (QUESTION_MAX_CHARS, 4,000 by default): the inputs together get a little less,
 * so the command's own length limits keep a run from being refused for its length.
 */
export const QUESTION_CHARS_FOR_INPUTS = 3_500;
