/**
 * Which part of a text-protocol reply is being written, as it streams: thought text and answer text
 * are passed on as they arrive; `Action:` lines, PAUSE and anything from a model-written `Observation:`
 * on are held back (the action is shown as an event of its own once the reply is read, and only the
 * engine observes). A line is passed on once its start shows whether it carries a label.
 */
import { lineLabel } from './text-parser.js';

export interface StreamedText {
  kind: 'thought' | 'answer';
  text: string;
  /** Answer text that may still turn out to be the thought before a tool call (native protocol). */
  provisional?: boolean;
}

type Section = 'thought' | 'answer' | 'hidden' | 'ended';

/** A line start longer than this without a colon cannot be a label. */
const LABEL_WINDOW = 40;

export class TextStreamClassifier {
  private section: Section;
  /** The start of the current line, while it is still unknown whether it is a label line. */
  private pending = '';
  /** Whether the current line's label (or lack of one) is known, so its text flows straight through. */
  private decided = false;
  private wroteIn: Section | undefined;
  /** A line break is written only once the next line's section is known (it may be hidden). */
  private newline = false;
  /** Right after a label, the text up to its value's first character: held until it shows its shape. */
  private lead: string | undefined;

  /** `start`: what unlabelled text at the start is (the forced last reply is the answer). */
  constructor(start: 'thought' | 'answer' = 'thought') {
    this.section = start;
  }

  /** Classify the next piece of the reply. */
  push(chunk: string): StreamedText[] {
    const out: StreamedText[] = [];
    const lines = chunk.split('\n');
    lines.forEach((piece, i) => {
      if (i > 0) this.endLine(out);
      this.add(piece, out);
    });
    return out;
  }

  /** The reply ended: whatever is held back of the last line. */
  end(): StreamedText[] {
    const out: StreamedText[] = [];
    if (!this.decided && this.pending) this.decide(true, out);
    return out;
  }

  private add(piece: string, out: StreamedText[]): void {
    if (this.decided) return this.emit(piece, out);
    this.pending += piece;
    const colon = this.pending.search(/[:：]/);
    if (colon !== -1 && colon < LABEL_WINDOW) this.decide(false, out);
    else if (this.pending.length > LABEL_WINDOW) this.decide(false, out);
  }

  private endLine(out: StreamedText[]): void {
    if (!this.decided && this.pending) this.decide(true, out);
    this.pending = '';
    this.decided = false;
    this.lead = undefined;
    this.newline = true;
  }

  private decide(wholeLine: boolean, out: StreamedText[]): void {
    const line = this.pending;
    this.pending = '';
    this.decided = true;
    const labelled = wholeLine || /[:：]/.test(line) ? lineLabel(line) : undefined;
    if (!labelled) return this.emit(line, out);
    switch (labelled.label) {
      case 'thought':
        this.section = this.section === 'ended' ? 'ended' : 'thought';
        break;
      case 'answer':
        this.section = this.section === 'ended' ? 'ended' : 'answer';
        break;
      case 'observation':
      case 'question': // a model that invents the next question has finished its reply
        this.section = 'ended';
        break;
      default:
        if (this.section !== 'ended') this.section = 'hidden';
    }
    this.newline = false; // a label starts its section afresh
    this.lead = '';
    // The raw text after the colon: emphasis there may close the label's bold or open the value's.
    this.emit(line.slice(line.search(/[:：]/) + 1), out);
  }

  private emit(text: string, out: StreamedText[]): void {
    const section = this.section;
    if (section === 'hidden' || section === 'ended') return;
    if (this.lead !== undefined) {
      const lead = this.lead + text;
      if (!/[^\s*_`]/.test(lead)) {
        this.lead = lead;
        return;
      }
      this.lead = undefined;
      // `**Answer:** x` closes its bold right after the colon; `Answer: **x**` opens the answer's own.
      text = lead.replace(/^[*_`]{1,3}(?=\s)/, '').replace(/^\s+/, '');
    }
    if (this.newline && this.wroteIn === section) text = `\n${text}`;
    this.newline = false;
    if (!text) return;
    this.wroteIn = section;
    const last = out.at(-1);
    if (last && last.kind === section) last.text += text;
    else out.push({ kind: section, text });
  }
}
