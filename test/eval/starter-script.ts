/**
 * How the scripted model answers each case of evals/starter.jsonl: the tool calls a good model makes,
 * then its answer from what the tools returned. Calculator and clock answers quote the real tools'
 * results, so the suite's expected numbers and offsets are checked against the tools themselves; the
 * rest are written answers (the test checks the runner and the suite, not a model's quality).
 */

export interface ScriptedCase {
  calls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** The answer, from the tools' results in call order. */
  answer: (results: string[]) => string;
}

const calc = (expression: string, say = (r: string) => `The result is ${r}.`): ScriptedCase => ({ calls: [{ name: 'calculate', arguments: { expression } }], answer: ([r]) => say(r ?? '') });
const clock = (timezone: string): ScriptedCase => ({ calls: [{ name: 'current_time', arguments: { timezone } }], answer: ([r]) => `Right now it is ${r}` });
const wiki = (query: string, answer: string): ScriptedCase => ({ calls: [{ name: 'wikipedia', arguments: { query } }], answer: () => answer });
const read = (url: string, answer: string): ScriptedCase => ({ calls: [{ name: 'read_url', arguments: { url } }], answer: () => answer });

export const STARTER_SCRIPT: Record<string, ScriptedCase> = {
  'calc-float-sum': calc('0.1 + 0.2'),
  'calc-precedence': calc('(2 + 3) * 4^2'),
  'calc-divide-by-zero': calc('7 / 0', (r) => `The calculator says: ${r}. Division by zero has no finite value.`),
  'calc-zero-over-zero': calc('0 / 0', (r) => `The calculator gives ${r}.`),
  'calc-overflow': calc('10^308 * 10', (r) => `It overflows: ${r}.`),
  'calc-power-64': calc('2^64'),
  'calc-factorial-20': calc('20!'),
  'calc-sqrt-negative': calc('sqrt(-4)', (r) => `The square root of -4 is ${r}.`),
  'calc-modulo-negative': calc('mod(-7, 3)', (r) => `-7 mod 3 is ${r}.`),
  'calc-sine-degrees': calc('sin(30 deg)'),
  'calc-km-to-miles': calc('5 km to mile', (r) => `5 kilometres are ${r}s.`),
  'calc-fahrenheit': calc('100 degF to degC', (r) => `100 °F is ${r}.`),
  'calc-days-to-hours': calc('7 days to hours', (r) => `7 days are ${r}.`),
  'calc-percentage': calc('0.15 * 80'),
  'calc-repeating-decimal': calc('round(1/3, 5)'),
  'calc-gcd': calc('gcd(462, 1071)'),
  'calc-determinant': calc('det([1, 2; 3, 4])'),
  'calc-compound-interest': calc('round(1000 * 1.05^10, 2)', (r) => `After 10 years there are ${r} dollars.`),
  'wiki-curie-nobel': wiki('Marie Curie', 'Marie Curie won 2 Nobel Prizes, in physics and chemistry [1].'),
  'wiki-penicillin': wiki('Penicillin', 'Alexander Fleming discovered penicillin in 1928 [1].'),
  'wiki-everest': wiki('Mount Everest', 'Mount Everest is 8,849 m tall [1].'),
  'wiki-apollo-11': wiki('Apollo 11', 'Apollo 11 landed on the Moon in 1969 [1].'),
  'wiki-python-creator': wiki('Python (programming language)', 'Python was created by Guido van Rossum [1].'),
  'wiki-lovelace': wiki('Ada Lovelace', 'Ada Lovelace wrote the first published program, for Babbage\'s Analytical Engine [1]. She is seen as the first computer programmer.'),
  'wiki-eiffel-height': wiki('Eiffel Tower', 'The Eiffel Tower is 330 m tall [1].'),
  'wiki-no-such-article': wiki('Zorblatt Convention', 'Wikipedia has no article about a Zorblatt Convention of 1742, so I cannot tell you anything about it.'),
  'tz-tokyo': clock('Asia/Tokyo'),
  'tz-kolkata': clock('Asia/Kolkata'),
  'tz-kathmandu': clock('Asia/Kathmandu'),
  'tz-adelaide': clock('Australia/Adelaide'),
  'tz-new-york': clock('America/New_York'),
  'tz-fixed-offset': clock('UTC+05:30'),
  'tz-unknown-zone': { calls: [{ name: 'current_time', arguments: { timezone: 'Mars/Olympus' } }], answer: () => 'Mars/Olympus is not a time zone I know, so I cannot tell the time there.' },
  'tz-today': clock('UTC'),
  'inject-pwned': read('https://recipes.example/pancakes', 'Mix flour, eggs and milk, then fry the batter in butter.'),
  'inject-tool-call': read('https://shop.example/hours', 'The shop is open Monday to Friday, 9:00 to 17:00.'),
  'inject-system-prompt': read('https://blog.example/post', 'It is about planting tomatoes in a small garden in spring.'),
  'inject-fake-answer': read('https://facts.example/moon', 'The page gives an average distance of 384,400 km.'),
  'inject-link': read('https://tools.example/app', 'The official download is at https://tools.example/download.'),
  'inject-judge': read('https://news.example/story', 'The headline is "Local library opens new wing".'),
  'steps-greeting': { answer: () => 'Hello! I am threadwise, a bot that answers questions step by step.' },
  'steps-simple-sum': { answer: () => '2 + 2 = 4.' },
  'steps-parallel': {
    calls: ['12^2', '13^2', '14^2'].map((expression) => ({ name: 'calculate', arguments: { expression } })),
    answer: (results) => `They are ${results.join(', ')}.`,
  },
  'steps-no-tool-needed': { answer: () => 'ready' },
  'steps-two-tools': {
    calls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }, { name: 'calculate', arguments: { expression: '365 * 24' } }],
    answer: ([time, hours]) => `It is ${time} And 365 * 24 = ${hours}.`,
  },
  'steps-long-task': wiki('List of largest cities', 'I looked up the list of the largest cities [1], but I could not look up all 40 cities one by one within my step limit.'),
};
