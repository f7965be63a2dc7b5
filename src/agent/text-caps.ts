/**
 * How much outside text the bot keeps: one table of named caps on untrusted text (tools' output, web
 * pages, MCP servers, files, what members wrote or are called, what the model wrote), each with why it
 * is that size, and the one way a cap cuts text (never inside a character). Cleaning the text is
 * clean-text.ts's; this file says how long it may be. Pure values, no dependencies: every layer imports
 * them. A setting the operator may change (TOOL_OUTPUT_MAX_CHARS, QUESTION_MAX_CHARS, the attachment
 * caps...) stays in config.ts; where its default is a cap on outside text, the default is named here.
 * Discord's own limits (2,000 characters a message, 100 a thread name, 25 choices) are Discord's rules,
 * not ours, and live where messages are fitted (src/discord/posting/split-message.ts).
 */

/** The caps, in characters unless the name says bytes: UTF-16 units as `String.length` counts them, but code points for speaker labels and memory notes (their cutters count so). */
export const TEXT_CAPS = {
  // What members wrote, quoted to the model as data.
  /** One quoted message (a reply's chain, an earlier thread's exchange): its gist, not a wall of text. */
  quotedMessage: 1_500,
  /** All the messages quoted with one question (or kept of one exchange): a few thousand characters, so quotes never crowd out the question. */
  quotedConversation: 6_000,
  /** One hit of `search_threads`: enough of an earlier exchange to judge it, several fit in one tool output. */
  threadExcerpt: 360,
  /** A member's question quoted back in a message (the answer's header, a scheduled run's): most of one, with room for the rest. */
  quotedQuestion: 1_500,
  /** A member memory note: one line of fact about a person, short enough that 50 of them fit a prompt. */
  memoryNote: 300,
  /** A note in a list line (`#id text…`): a few words to recognise it. */
  noteLabel: 80,
  /** A note repeated in a confirmation (forgotten, shared): most of it. */
  noteQuoted: 200,
  /** A persona (`/settings assistant persona`): instructions of a paragraph or two, a member's words the model reads. */
  persona: 1_000,
  /** A persona quoted in the audit log: enough to recognise it (the persona itself may be 1,000). */
  personaQuoted: 200,
  /** A persona shown by `/settings show`: most of one, leaving room for the other settings in the message. */
  personaShown: 600,
  /** A persona in a table cell of the console's policy page: its opening words tell the personas apart. */
  personaInTable: 120,

  // Names people and servers chose.
  /** A display name in a message. Discord allows 32; webhooks and old records may exceed it. */
  displayName: 80,
  /** A name in a ranking line (`/usage` top members): ten of them fit one message with their numbers. */
  rankedName: 40,
  /** A speaker's label the model sees (`[label] message`): a name, not a place to hide a paragraph. */
  speakerLabel: 40,
  /** A tool's name as a server or the model wrote it: tool names are at most 64 characters (OpenAI's rule). */
  toolName: 64,
  /** A file's name in a header line or a notice: one line, recognisable. */
  fileName: 100,
  /** A document's name kept for the knowledge base (from a member's attachment). */
  documentName: 200,
  /** A message added to the knowledge base is titled by its first line, this long. */
  messageTitle: 80,

  // Tools, web pages and MCP servers.
  /** The built-in default of TOOL_OUTPUT_MAX_CHARS: about a thousand tokens of one call's output. */
  toolOutput: 4_000,
  /** A source's title under an answer (a tool wrote it): a line. */
  sourceTitle: 100,
  /** A search query, as the knowledge base reads it: a question's worth of words. */
  searchQuery: 2_000,
  /** A web search result's title, snippet and date: a result is a pointer to read, not the page. */
  webTitle: 200,
  webSnippet: 300,
  webDate: 40,
  /** Bytes read of one web service's JSON reply (web search, Wikipedia): far more than any answer, far less than memory. */
  webResponseBytes: 2_000_000,
  /** A URL the bot prints or keeps (a longer one is no link it shows): browsers' practical limit. */
  url: 2_048,
  /** An MCP tool's description the model reads: a paragraph, like a built-in tool's. */
  mcpDescription: 1_000,
  /** An MCP tool's title: a line. */
  mcpTitle: 100,
  /** An MCP tool's description on its line of `/tools status`: a glance; `/tools show` has the whole. */
  mcpDescriptionLine: 160,
  /** A parameter's name in an MCP tool's schema (a longer one is refused rather than cut). */
  mcpPropertyName: 64,
  /** One string inside an MCP tool's parameter schema (a description, an enum value). */
  mcpSchemaString: 500,
  /** An MCP tool's whole parameter schema once cleaned: larger is refused, as it would crowd the prompt. */
  mcpSchema: 16_000,
  /** A resource link's title and description in an MCP result. */
  mcpLinkTitle: 200,
  mcpLinkDescription: 300,
  /** Why a server's tool is not offered, as `/tools` shows it: a sentence, with the server's words in it. */
  refusalReason: 400,
  /** Why a server was not started (its own error text may be in it), as `/tools status` shows it. */
  blockedReason: 600,
  /** A field of a tool's listing that changed (`/tools show`), before and after: enough to see the change. */
  changedField: 200,
  /** One event of a model server's stream: far more than any real one, bounded so a server cannot fill memory. */
  serverEvent: 8 * 1024 * 1024,
  /** A model server's error message as the bot repeats it: the gist of what it said, on one line. */
  serverMessage: 400,
  /** The body of a model server's reply that says nothing more useful, quoted as its error. */
  serverBody: 300,

  // What the model wrote.
  /** A tool call described for people (`calculate(2 + 2)`): its arguments are the model's, of any size. */
  actionDescription: 1_000,
  /** An approval's "why" (the model's words) on the approval request. */
  approvalReason: 200,
  /** A tool's progress line shown beside its call while it runs: a glance, on the step's own line. */
  progressNote: 80,

  /**
   * Outside text repeated inside an error or a note (a URL that did not parse, a query that found
   * nothing, the model's unknown action, a server's detail, a call in the audit log): enough to
   * recognise it, too short to carry instructions of its own.
   */
  echo: 200,
  /** The model's words repeated in a tool's short refusal (a person or a note it named that is not there). */
  echoShort: 80,
  /** A note shown beside its id where the model must pick one: enough to tell notes apart. */
  notePreview: 60,
  /** A library's error about the model's input (the calculator's, the chart renderer's): its first sentence or two. */
  libraryMessage: 300,
  /** A MIME type a server sent: real ones are short. */
  mimeType: 40,
  /** A value of a chart spec quoted in its refusal (a URL where data belongs). */
  specValue: 40,

  // What a member typed, echoed back to them in a refusal: enough to see the typo.
  /** A word that is not one of the choices (a display level, a limit's name). */
  typedWord: 30,
  /** A mode or a note's id. */
  typedId: 20,
  /** A schedule's id (eight characters when right). */
  typedScheduleId: 16,
  /** A tool's name. */
  typedTool: 50,
  /** A model's name. */
  typedModel: 60,
  /** A skill's, an input's or a SKILL.md field's name (a right one is at most 32). */
  typedName: 40,
  /** A file's name, as it was attached. */
  typedFileName: 60,

  // Files.
  /** The line that says which files were read and why others were not: a notice, not a list of a hundred names. */
  filesNotice: 1_000,

  // Answers kept for rating (👍 / 👎) and what is shown of them.
  /** A 👎's reason: Discord's text input is capped there (`max_length`), and the submit is checked again. */
  feedbackReason: 300,
  /** A reason too long, shown back to the member so nothing they typed is lost: most of one, within a message. */
  feedbackReasonEcho: 1_500,
  /** A rated turn's question kept for the summary and the export: a long question whole, a pasted log cut. */
  keptQuestion: 10_000,
  /** A rated turn's answer kept: a long answer (four messages' worth) whole. */
  keptAnswer: 8_000,
  /** A question in a member's `/memory export` of their votes: enough to recognise it. */
  exportedQuestion: 500,
  /** A question listed among the worst-rated in `/feedback summary`: one line of it. */
  summaryQuestion: 80,
  /** A persona named in `/feedback summary`: its opening words tell the personas apart. */
  summaryPersona: 40,
} as const;

/** `text` cut to at most `max` characters with an ellipsis when it was longer, never inside a character. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, graphemeBoundary(text, max - 1))}…`;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * The last grapheme boundary at or before `index` (never 0 when the text has room for one cluster): where
 * a cap may cut `text` without splitting an emoji, an accented letter or a surrogate pair.
 */
export function graphemeBoundary(text: string, index: number): number {
  if (index >= text.length) return text.length;
  // Clusters are short: looking at a little before the cut is enough to find where the one it falls in starts.
  const from = Math.max(0, index - 64);
  let boundary = from;
  for (const { index: at } of graphemes.segment(text.slice(from, index + 64))) {
    if (from + at > index) break;
    boundary = from + at;
  }
  return boundary > 0 ? boundary : index;
}
