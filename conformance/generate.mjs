// Compute memtrails' JavaScript-defined keys with the real oracle (Node.js: V8 + ICU) and write
// them to conformance/fixtures/*.json. Plain Node, no npm packages.
//
//   node conformance/generate.mjs           write the fixtures
//   node conformance/generate.mjs --check   compare with the committed ones (exit 1 if they differ)
//
// Both run under TZ=America/New_York, whatever TZ the caller has: the script sets it.
//
// The rules every function here implements are written in conformance/README.md; where a rule
// is ours rather than JavaScript's (cuts never inside a surrogate pair, the word filter, the
// record keys), the function below *is* the specification the Python side must follow.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TZ = 'America/New_York';
const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'fixtures');
const CHECK = process.argv.includes('--check');

// Date.parse reads forms without an offset as local time, so the zone is part of the fixtures:
// always run in TZ. Node applies a TZ assigned at run time; check that it did.
if (process.env.TZ && process.env.TZ !== TZ) console.error(`note: TZ=${process.env.TZ} replaced by TZ=${TZ}`);
process.env.TZ = TZ;
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (zone !== TZ || Date.parse('2024-07-01T12:00') !== Date.UTC(2024, 6, 1, 16)) {
  console.error(`could not switch Node to TZ=${TZ} (zone ${zone})`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// The rules (the specification of memtrails/portable.py, words.py and keys.py)

const isHigh = (c) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff;

/** Move a cut position back by one if it falls between the two halves of a surrogate pair. */
function safeCut(s, k) {
  if (k > 0 && k < s.length && isHigh(s.charCodeAt(k - 1)) && isLow(s.charCodeAt(k))) return k - 1;
  return k;
}

/** The longest prefix of at most n UTF-16 units, never ending inside a pair. */
function utf16Cut(s, n) {
  if (n <= 0) return '';
  if (n >= s.length) return s;
  return s.slice(0, safeCut(s, n));
}

/** s.slice(start, end) in UTF-16 units, with both ends moved before a pair they would split. */
function utf16Slice(s, start, end) {
  const n = s.length;
  let a = start < 0 ? Math.max(0, n + start) : Math.min(start, n);
  let b = end === undefined ? n : end < 0 ? Math.max(0, n + end) : Math.min(end, n);
  if (b <= a) return '';
  return s.slice(safeCut(s, a), safeCut(s, b));
}

/** 32-bit FNV-1a over UTF-16 code units, each unit XORed in whole. */
function fnv1a32(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// 'und' is not a locale ICU has data for, so V8 resolves it to the default locale; the word
// rules are the same in root and every locale memtrails can meet (no locale tailors word breaks
// except the POSIX variants), which is what the Python side's Locale.getRoot() uses.
const SEGMENTER = new Intl.Segmenter('und', { granularity: 'word' });

function words(text) {
  const out = [];
  for (const seg of SEGMENTER.segment(text)) {
    if (!seg.isWordLike) continue;
    const w = seg.segment.normalize('NFKC').toLowerCase();
    if (w.length >= 2 && w.length <= 60) out.push(w);
  }
  return out;
}

function keywordVector(text) {
  const counts = new Map();
  for (const w of words(text)) {
    const id = fnv1a32(w);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

function utf8(s) {
  const b = Buffer.from(s, 'utf8');
  const t = Buffer.from(new TextEncoder().encode(s));
  // The record keys rely on Buffer and TextEncoder agreeing (lone surrogates -> U+FFFD).
  if (!b.equals(t)) throw new Error(`Buffer and TextEncoder differ on ${JSON.stringify(s)}`);
  return b;
}

const sha256Hex = (s) => createHash('sha256').update(utf8(s)).digest('hex');
const recordUid = (source, id) => sha256Hex(JSON.stringify([source, id])).slice(0, 32);
function pointId(uid, n) {
  const h = sha256Hex(`${uid}:${n}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
const fingerprint = (content) => sha256Hex(JSON.stringify(content));

// ---------------------------------------------------------------------------------------------
// Encoding inputs so Python rebuilds the very same JavaScript value

const f64 = new DataView(new ArrayBuffer(8));
function bitsOf(x) {
  f64.setFloat64(0, x);
  return f64.getBigUint64(0).toString(16).padStart(16, '0');
}

/** An object built from key/value pairs in this insertion order (JS reorders index keys). */
class Pairs {
  constructor(pairs) { this.pairs = pairs; }
}
const P = (...pairs) => new Pairs(pairs);
/** A number Python receives as an int (it may exceed 2**53: JS sees Number(n)). */
class PyInt {
  constructor(text) { this.text = text; }
}
const I = (text) => new PyInt(text);

function toJs(v) {
  if (v instanceof Pairs) {
    const o = {};
    for (const [k, x] of v.pairs) o[k] = toJs(x);
    return o;
  }
  if (v instanceof PyInt) return Number(BigInt(v.text));
  if (Array.isArray(v)) return v.map(toJs);
  return v;
}

/** Tagged form for the fixture: {"f": bits} a float, {"i": digits} an int, {"o": pairs}. */
function encode(v) {
  if (v instanceof Pairs) return { o: v.pairs.map(([k, x]) => [k, encode(x)]) };
  if (v instanceof PyInt) return { i: v.text };
  if (typeof v === 'number') return { f: bitsOf(v) };
  if (Array.isArray(v)) return v.map(encode);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Inputs (invented)

const TEXTS = [
  // Latin, with the punctuation of real mail and chat
  ['latin-plain', 'The quick brown fox jumps over the lazy dog.'],
  ['latin-mail', 'Re: Q3 budget — can we meet Tue at 10:30? Thanks, Ana'],
  ['latin-contractions', "Don't stop; it's John's car, isn't it? We'll see..."],
  ['latin-numbers', 'Invoice #4521 totals $1,234.56 (incl. 20% VAT) due 2024-04-02.'],
  ['latin-decimal', 'pi is 3.14159 and e is 2,71828 in Europe; v1.2.3-beta'],
  ['latin-email-url', 'Mail ana.lopez@example.com or see https://example.org/a/b?c=d&e=f#g'],
  ['latin-accents', 'Crème brûlée, façade, naïve coöperation, Ångström, Øresund, Łódź'],
  ['latin-decomposed', 'Cre\u0300me bru\u0302le\u0301e and fac\u0327ade (decomposed)'],
  ['latin-german', 'Straße GROSSE Größe Maßstab ÄÖÜ äöü'],
  ['latin-turkish', 'İstanbul ILIK ılık Işık'],
  ['latin-ligatures', 'ﬁnal ﬂow ﬀ ﬃ ﬄ ﬆ office'],
  ['latin-fullwidth', 'ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ １２３ ＡＢＣ'],
  ['latin-superscripts', 'E=mc² x³ H₂O ½ ¼ ℃ № ™ ㎏ ㎞'],
  ['latin-roman', 'Chapter Ⅻ and ⅷ, part Ⅳ'],
  ['latin-mixed-case', 'camelCase snake_case kebab-case PascalCase SCREAMING_CASE'],
  ['latin-apostrophes', 'l\u2019homme, aujourd\u2019hui, rock \u2019n\u2019 roll, O\u2019Brien'],
  ['latin-single-letters', 'a b c I x y z'],
  ['latin-long-word', 'Pneumonoultramicroscopicsilicovolcanoconiosis and ' + 'x'.repeat(59) + ' ' + 'y'.repeat(60) + ' ' + 'z'.repeat(61)],
  ['latin-hyphens', 'state-of-the-art well\u2010known e\u2011mail co\u2013operate'],
  ['latin-underscore', '__init__ foo_bar _private a_b_c'],
  ['latin-hashtags', '#release @ana !important $HOME %TEMP% ~/notes'],
  ['latin-colons', 'foo:bar 10:30 12:30:45 deadline:friday x\ufe55y a\u00b7b a.b.c 3.14 re:re: at@sign x@y 5@6'],
  ['latin-code', 'if (x >= 10) { return fooBar(x, "baz"); } // TODO'],
  ['latin-vietnamese', 'Tiếng Việt có dấu: Người, được, những'],
  ['latin-polish', 'Zażółć gęślą jaźń'],
  ['latin-icelandic', 'Þórður og Ðóra ætla að fara'],
  ['latin-mixed-digits', 'abc123 123abc 1a2b3c 0x1F 1e10 ٣ ४२'],
  ['greek', 'Καλημέρα κόσμε, ΟΔΟΣ ΟΔΥΣΣΕΥΣ σίσυφος'],
  ['greek-final-sigma', 'ΣΊΣΥΦΟΣ ΣΑΣ Σ ΑΣ.'],
  ['cyrillic', 'Съешь же ещё этих мягких французских булок, да выпей чаю'],
  ['cyrillic-ukrainian', 'Ґанок, їжак, єнот — Київ'],
  ['armenian', 'Բարեւ աշխարհ, Երեւան'],
  ['georgian', 'გამარჯობა მსოფლიო'],
  // CJK
  ['chinese-simplified', '我们明天下午三点在会议室讨论预算问题。'],
  ['chinese-traditional', '請於星期二前回覆這封電子郵件，謝謝。'],
  ['chinese-mixed', '使用Python3和Node.js处理UTF-16字符串'],
  ['chinese-numbers', '二〇二四年四月二日，共计一百二十三元'],
  ['chinese-rare', '𠀀𠀁𪚥 are astral ideographs; 𡈽 too'],
  ['japanese', '今日は東京で会議があります。よろしくお願いします。'],
  ['japanese-katakana', 'コンピューターとインターネットのセキュリティ'],
  ['japanese-halfwidth', 'ｶﾀｶﾅ ﾃｽﾄ ｺﾝﾋﾟｭｰﾀｰ'],
  ['japanese-mixed', 'メールを送信しました（件名：Q3予算）'],
  ['japanese-long', '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。'],
  ['korean', '안녕하세요, 내일 회의는 오후 3시에 시작합니다.'],
  ['korean-jamo', '\u1100\u1161\u11A8 \u1112\u1161\u11AB\u1100\u1173\u11AF decomposed Hangul'],
  ['korean-mixed', 'PR #42 리뷰 부탁드립니다 thanks'],
  // South-east Asian scripts (dictionary segmentation)
  ['thai', 'ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ'],
  ['thai-mail', 'สวัสดีครับ ประชุมวันพรุ่งนี้เวลาสิบโมงเช้า'],
  ['lao', 'ສະບາຍດີ ພາສາລາວບໍ່ມີການເວັ້ນວັກລະຫວ່າງຄຳ'],
  ['khmer', 'សួស្តី ភាសាខ្មែរមិនដកឃ្លារវាងពាក្យទេ'],
  ['myanmar', 'မင်္ဂလာပါ မြန်မာဘာသာစကား'],
  // Right-to-left and Indic
  ['arabic', 'مرحبا بالعالم، الاجتماع غداً الساعة العاشرة'],
  ['arabic-diacritics', 'السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللهِ'],
  ['arabic-presentation', 'ﻻ ﷲ ﷺ ﻹ'],
  ['arabic-digits', 'الفاتورة رقم ١٢٣٤ بتاريخ ٢٠٢٤'],
  ['persian', 'سلام دنیا، جلسه\u200cی فردا ساعت ۱۰'],
  ['hebrew', 'שלום עולם, הפגישה מחר בשעה עשר'],
  ['hebrew-points', 'בְּרֵאשִׁית בָּרָא אֱלֹהִים'],
  ['hebrew-quotes', 'צה"ל ו־ארה"ב'],
  ['devanagari', 'नमस्ते दुनिया, कल सुबह दस बजे बैठक है'],
  ['devanagari-conjuncts', 'क्षत्रिय ज्ञान श्री द्वार'],
  ['bengali', 'আমার সোনার বাংলা'],
  ['tamil', 'வணக்கம் உலகம்'],
  ['sinhala', 'ආයුබෝවන් ලෝකය'],
  ['ethiopic', 'ሰላም ልዑል ዓለም'],
  ['mongolian', 'ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ'],
  ['tibetan', 'བོད་སྐད་ཡིག་གེ'],
  // Emoji and other astral characters
  ['emoji-simple', 'Great job 👍 see you 🙂 soon 🎉🎉'],
  ['emoji-zwj-family', 'family 👨‍👩‍👧‍👦 and 👩‍💻 coder'],
  ['emoji-skin-tones', 'wave 👋🏽 thumbs 👍🏿 ok 👌🏻'],
  ['emoji-flags', 'flags 🇫🇷🇩🇪🇯🇵 and 🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland'],
  ['emoji-keycaps', 'press 1️⃣ or #️⃣ then *️⃣'],
  ['emoji-in-word', 'hello👋world ab😀cd x🇺🇳y'],
  ['emoji-variation', 'heart ❤️ vs ❤ and ☺️ ✈︎'],
  ['math-alnum', '𝐀𝐁𝐂 𝒳𝒴 𝕬𝕭 𝟏𝟐𝟑 bold math'],
  ['astral-scripts', 'Gothic 𐌰𐌱𐌲 Deseret 𐐀𐐨 Linear B 𐀀𐀁'],
  ['deseret-case', '𐐔𐐯𐑅𐐨𐑉𐐯𐐻 𐐜𐐮𐐻'],
  ['music-symbols', '𝄞 𝄢 notes'],
  // Combining marks and invisible characters
  ['combining-stack', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇ text'],
  ['combining-alone', '\u0301start \u0308 a\u0301 \u20dd circle'],
  ['zwj-zwnj', 'ab\u200dcd ef\u200cgh \u200d alone'],
  ['zero-width-space', 'word\u200bword foo\u200b\u200bbar'],
  ['bom-inside', '\ufeffstart mid\ufeffdle end\ufeff'],
  ['nel-and-nbsp', 'one\u0085two three\u00a0four five\u2028six seven\u2029eight'],
  ['ideographic-space', '全角\u3000スペース\u3000test'],
  ['soft-hyphen', 'hyphen\u00adated co\u00adop'],
  ['bidi-controls', 'abc\u202edef\u202c \u200fghi\u200e'],
  ['tabs-newlines', 'line one\nline two\r\nline\tthree\vfour\ffive'],
  ['control-chars', 'bell\u0007 esc\u001b[0m nul\u0000end'],
  // Lone surrogates (JS allows them; JSON.stringify escapes them)
  ['lone-high', 'abc\ud800def'],
  ['lone-low', 'abc\udc00def'],
  ['lone-high-end', 'word \ud83d'],
  ['lone-low-start', '\ude00 word'],
  ['reversed-pair', 'x\ude00\ud83dy'],
  ['mixed-lone-and-pair', '\ud800😀\udfff'],
  // Characters newer than some ICUs (Unicode 15.1 CJK Extension I, Unicode 16 emoji and scripts)
  ['cjk-ext-i', '\u{2EBF0}\u{2EBF1}\u{2EBF2} are Unicode 15.1 ideographs 𠀀'],
  ['unicode16-emoji', 'tired 🫩 fingerprint 🫆 harp 🪉 splat 🫟'],
  ['unicode16-scripts', 'Garay \u{10D50}\u{10D51}\u{10D70}\u{10D71} Todhri \u{105C0}\u{105C1} Sunuwar \u{11BC0}\u{11BC1}'],
  ['unicode16-latin', 'Latin \uA7CB\uA7CC\uA7DA\uA7DB \uA7DC letters'],
  ['kawi', 'Kawi \u{11F04}\u{11F05}\u{11F34}'],
  ['wordbreak-unicode16', 'No. \u0600١٢٣ \u06DD12 ab\u0603cd ca\u00B8ca 12\uFE1034 56\uFE1478 \u070Fxy \u{110BD}12'],
  // Longer dictionary-segmented text (where ICU versions differ most)
  ['japanese-news', '気象庁によりますと、明日は全国的に晴れる見込みですが、北日本では夕方から雨が降るところがあるでしょう。'],
  ['japanese-chat', 'ありがとうございます！明日の打ち合わせ、よろしくお願いいたします。資料は共有フォルダにあります。'],
  ['chinese-news', '据新华社报道，国家统计局今天发布数据显示，一季度国内生产总值同比增长百分之五点三。'],
  ['chinese-chat', '好的没问题，我下班以后给你打电话，顺便把合同的扫描件发过去。'],
  ['thai-long', 'กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทยและเป็นศูนย์กลางทางเศรษฐกิจการเงินและการคมนาคม'],
  ['khmer-long', 'ព្រះរាជាណាចក្រកម្ពុជាជាប្រទេសមួយនៅអាស៊ីអាគ្នេយ៍'],
  ['lao-long', 'ສາທາລະນະລັດ ປະຊາທິປະໄຕ ປະຊາຊົນລາວ ເປັນປະເທດທີ່ບໍ່ມີທາງອອກສູ່ທະເລ'],
  ['myanmar-long', 'ပြည်ထောင်စုသမ္မတမြန်မာနိုင်ငံတော်သည်အရှေ့တောင်အာရှတွင်တည်ရှိသည်'],
  ['korean-long', '대한민국의 수도는 서울특별시이며, 인구는 약 오천만 명입니다.'],
  // Mixed-script mail and chat
  ['chat-mixed', 'Meeting 明天 at 3pm 😀 — ok? Да! नमस्ते'],
  ['mail-signature', '--\nAna López | Head of Ops\n+34 600 123 456 | ana@example.es'],
  ['slack-markup', '<@U12345> please review <https://x.io|this PR> :tada: `code` *bold*'],
  ['git-commit', 'fix(parser): handle CRLF in headers (#1234)\n\nSigned-off-by: Bo <bo@x.org>'],
  ['log-line', '2024-04-02T10:15:30.123Z ERROR [worker-3] Timeout after 30000ms (retry 2/5)'],
  ['markdown', '# Title\n\n- item **one**\n- item _two_\n\n[link](http://a.b)'],
  ['numbers-mixed', '1st 2nd 3rd 4th 10,000 10.000 1_000 ½ 3½ ⅔'],
  ['empty', ''],
  ['spaces-only', '   \t\n  '],
  ['punct-only', '!?.,;:—…()[]{}«»“”'],
  ['one-char', 'a'],
  ['two-chars', 'ab'],
  ['cjk-single', '字'],
  ['emoji-only', '😀'],
];

// Extra strings for lengths, cuts and FNV (besides the texts above).
const UTF16_EXTRA = [
  ['astral-run', '😀😁😂🤣😃'],
  ['pair-at-60', 'a'.repeat(59) + '😀' + 'b'],
  ['pair-at-start', '😀abc'],
  ['pairs-and-lone', '\ud83d😀\ude00😀'],
  ['flag-pairs', '🇫🇷🇩🇪'],
  ['bmp-only', 'héllo wörld ✓ ★ €'],
];

// ---------------------------------------------------------------------------------------------
// Seeded randomness: mulberry32, so "random" inputs are the same on every run and machine.

function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
const pick = (rand, xs) => xs[rand() % xs.length];
const shortId = (s) => createHash('sha256').update(utf8(s)).digest('hex').slice(0, 10);

// ---------------------------------------------------------------------------------------------
// Fixtures

function utf16Cases() {
  const cases = [];
  for (const [id, s] of [...TEXTS, ...UTF16_EXTRA]) {
    const n = s.length;
    const positions = [...new Set([-3, -1, 0, 1, 2, 3, 5, 7, 10, 13, 20, 31, 59, 60, 61, Math.floor(n / 2), n - 1, n, n + 1])].sort((a, b) => a - b);
    const cuts = positions.filter((k) => k >= 0).map((k) => [k, utf16Cut(s, k)]);
    const bounds = [[0, undefined], [1, undefined], [-2, undefined], [0, 3], [1, 4], [2, 6], [3, -1], [-5, -2], [5, 2], [Math.floor(n / 3), Math.floor((2 * n) / 3)], [n - 4, n + 10]];
    const slices = bounds.map(([a, b]) => [a, b === undefined ? null : b, utf16Slice(s, a, b)]);
    cases.push({ id: `utf16/${id}`, text: s, length: n, cuts, slices });
  }
  return cases;
}

function wordCases() {
  return TEXTS.map(([id, s]) => ({ id: `words/${id}`, text: s, words: words(s) }));
}

function fnvCases() {
  const seen = new Set();
  const cases = [];
  const add = (id, s) => {
    if (seen.has(s)) return;
    seen.add(s);
    cases.push({ id: `fnv/${id}`, text: s, fnv1a32: fnv1a32(s) });
  };
  for (const s of ['', 'a', 'ab', 'foobar', 'hello', 'Hello', 'HELLO', '0', '00', ' ', '\u0000', '\uffff', '\ud800', '\udfff', '😀', '\ud83d\ude00x', 'é', 'e\u0301', 'ß', 'ǅ', '𝐀', '全角']) add(`literal-${cases.length}`, s);
  for (const [id, s] of TEXTS) {
    add(`text-${id}`, s);
    words(s).forEach((w, i) => add(`word-${id}-${i}`, w));
  }
  return cases;
}

function vectorCases() {
  return TEXTS.map(([id, s]) => ({ id: `vector/${id}`, text: s, vector: keywordVector(s) }));
}

// Numbers: awkward ones by hand, then seeded random doubles of every magnitude.
function numberCases() {
  const hand = [0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 1 / 3, 2 / 3, 1e21, 1e21 - 65536, 999999999999999900000, 1e-6, 1e-7, 1.5e-7, 0.000001, 0.0000012345,
    123456789012345680000, 2 ** 53, 2 ** 53 + 1, 2 ** 53 - 1, -(2 ** 53), 2 ** 63, 2 ** 64, 2 ** 31, 2 ** 32, -(2 ** 31), 4294967295,
    5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308, Number.EPSILON, 1 + Number.EPSILON,
    100, 1e20, 1e22, 12345.6789, 0.5, 1.005, 4.35, 0.07, 9.95, 1.1e-6, 123e-20, 1e300, 1.2e-300, 3.0000000000000004, 0.30000000000000004,
    Math.PI, Math.E, -Math.PI * 1e10, 1e15 + 0.3, 1e16, 1e17, 9007199254740993, 18014398509481984, 25, 1.25e21, 4.9406564584124654e-324,
    Infinity, -Infinity, NaN];
  const rand32 = prng(0x5eed1234);
  const random = [];
  const dv = new DataView(new ArrayBuffer(8));
  while (random.length < 600) {
    dv.setUint32(0, rand32());
    dv.setUint32(4, rand32());
    const x = dv.getFloat64(0);
    if (Number.isFinite(x)) random.push(x);
  }
  for (let i = 0; i < 250; i++) random.push((rand32() / 2 ** 32) * 10 ** ((rand32() % 50) - 25)); // decimal-looking
  for (let i = 0; i < 150; i++) random.push(Math.round((rand32() / 2 ** 32) * 1e6) / 10 ** (rand32() % 8)); // money-like
  const all = [...hand, ...random];
  return all.map((x, i) => ({ id: `number/${i < hand.length ? 'hand' : 'random'}-${i}`, bits: bitsOf(x), string: String(x), json: JSON.stringify(x) }));
}

function jsonCases() {
  const values = [
    ['awkward-numbers', P(['a', 1e21], ['b', 1e-7], ['c', -0], ['d', 0.1 + 0.2], ['e', 2 ** 53 + 1], ['f', 5e-324], ['g', 123456789012345680000], ['h', 1.5], ['i', 100])],
    ['index-keys', P(['b', 1], ['10', 2], ['a', 3], ['2', 4], ['01', 5], ['-1', 6], ['4294967295', 7], ['4294967294', 8], ['0', 9], ['1.5', 10], ['', 11])],
    ['big-index-keys', P(['9007199254740991', 1], ['4294967296', 2], ['42', 3], ['x', 4])],
    ['nested', P(['z', P(['2', 'two'], ['1', 'one'], ['y', [3, 2, 1, P(['10', true], ['9', false])]])], ['a', null])],
    ['strings', ['quote " backslash \\ slash / ', 'ctl \u0000\u0001\u0008\u0009\u000a\u000b\u000c\u000d\u001f\u007f', 'uni é 全 😀 \u2028 \u2029 \ufeff \u0085']],
    ['lone-surrogates', ['\ud800', '\udfff', 'a\ud83d', '\ude00b', '😀', '\ud83d\ude00', '\udc00\ud800']],
    ['non-finite', [NaN, Infinity, -Infinity, -0, 0]],
    ['empty', [P(), [], '', P(['', ''])]],
    ['booleans-null', P(['t', true], ['f', false], ['n', null])],
    ['int-inputs', [I('0'), I('-1'), I('9007199254740991'), I('9007199254740993'), I('18446744073709551615'), I('1000000000000000000000'), I('-99999999999999999999999'), I('123456789012345678901234567890')]],
    ['integer-floats', [1.0, -2.0, 1e20, 1e21, 1e15, 123456789.0, 0.000001, 0.0000001]],
    ['record-like', P(['id', '<abc@mail>'], ['source', 'mbox:/a'], ['kind', 'mail'], ['title', 'Re: hi'], ['author', 'Ana'], ['at', '2024-04-02T10:00:00.000Z'], ['thread', null], ['text', 'Hello\nworld'], ['meta', P(['to', ['b@x']], ['size', 1234], ['1', 'one'])])],
    ['deep', [[[[[[['deep']]]]]]]],
    ['unicode-keys', P(['ключ', 1], ['鍵', 2], ['😀', 3], ['\ud800', 4], ['é', 5])],
    ['numeric-string-values', P(['a', '1e21'], ['b', '-0'], ['c', '01'])],
  ];
  return values.map(([id, v]) => ({ id: `json/${id}`, value: encode(v), json: JSON.stringify(toJs(v)) }));
}

function whitespaceCases() {
  const space = [];
  for (let c = 0; c <= 0xffff; c++) if (/\s/.test(String.fromCharCode(c))) space.push(c);
  const cases = [{ id: 'ws/class', codepoints: space }];
  const samples = [
    ['ascii', '  hello world  '],
    ['tabs', '\thello\tworld\t'],
    ['newlines', '\r\n hello \n\n world \r\n'],
    ['nbsp', '\u00a0hello\u00a0world\u00a0'],
    ['bom', '\ufeffhello world\ufeff'],
    ['nel', '\u0085hello\u0085world\u0085'],
    ['info-separators', '\u001chello\u001dworld\u001e\u001f'],
    ['ideographic', '\u3000こんにちは\u3000世界\u3000'],
    ['en-quad-run', '\u2000\u2001\u2002x\u2003\u2004\u2005\u2006y\u2007\u2008\u2009\u200az'],
    ['line-sep', '\u2028a\u2029b\u2028'],
    ['narrow-nbsp', '\u202fa\u205fb\u1680c'],
    ['zero-width', '\u200ba\u200bb\u200c\u200d'],
    ['mongolian-vowel-sep', '\u180ea\u180eb'],
    ['vt-ff', '\u000ba\u000cb'],
    ['empty', ''],
    ['only-space', ' \t\n\u00a0\ufeff\u3000'],
    ['no-space', 'abc'],
    ['lone-surrogate', ' \ud800 x '],
    ['mixed', ' one  two\u00a0\u00a0three\u2003four\u0085five '],
    ['emoji', ' 😀 😁\u3000😂 '],
  ];
  for (const [id, s] of samples) {
    cases.push({ id: `ws/${id}`, text: s, trim: s.trim(), split: s.split(/\s+/).filter((x) => x !== '') });
  }
  return cases;
}

const DATES = [
  // ISO 8601 (ES Date Time String Format and V8's extensions)
  '2024-04-02', '2024-04', '2024', '2024-04-02T10:15', '2024-04-02T10:15:30', '2024-04-02T10:15:30.123',
  '2024-04-02T10:15:30Z', '2024-04-02T10:15:30.123Z', '2024-04-02T10:15:30.1Z', '2024-04-02T10:15:30.12345Z',
  '2024-04-02T10:15:30.123456789Z', '2024-04-02T10:15:30+02:00', '2024-04-02T10:15:30-05:30', '2024-04-02T10:15:30+0200',
  '2024-04-02T10:15+01:00', '2024-04-02t10:15:30z', '2024-04-02T24:00', '2024-04-02T24:00:00Z', '2024-04-02T24:01Z',
  '2024-04-02T25:00Z', '2024-02-30', '2024-02-31T00:00Z', '2023-02-29', '2024-13-01', '2024-00-10', '2024-04-32',
  '+002024-04-02T00:00:00Z', '-000001-01-01T00:00:00Z', '-000000-01-01T00:00:00Z', '+275760-09-13T00:00:00Z',
  '+275760-09-13T00:00:00.001Z', '0000-01-01', '0050-06-15', '0099-12-31T23:59:59Z', '1969-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00Z', '1800-01-01T00:00', '2024-04-02 10:15:30', '2024-04-02 10:15:30Z', '2024-04-02 10:15:30+02:00',
  '2024-04-02T10:15:30 Z', '2024-04-02T10:15:30+02', '2024-04-02T10', '2024-04-02T1015', '2024-4-2', '2024-04-2',
  // DST edges in the fixture's zone (local-time forms)
  '2024-03-10T02:30', '2024-03-10T01:59:59', '2024-03-10T03:00', '2024-11-03T01:30', '2024-11-03T00:59', '2024-11-03T02:00',
  '2024-07-01T12:00', '2024-01-15T12:00', '1970-01-01T00:00', '2038-01-19T03:14:08', '2100-07-04T12:00',
  // RFC 2822 (mail)
  'Tue, 1 Apr 2003 10:00:00 -0500', 'Tue, 01 Apr 2003 10:00:00 +0000', '1 Apr 2003 10:00:00 -0500', 'Tue, 2 Apr 2024 10:15:30 GMT',
  'Tue, 2 Apr 2024 10:15:30 UT', 'Tue, 2 Apr 2024 10:15:30 UTC', 'Tue, 2 Apr 2024 10:15:30 EST', 'Tue, 2 Apr 2024 10:15:30 EDT',
  'Tue, 2 Apr 2024 10:15:30 CST', 'Tue, 2 Apr 2024 10:15:30 CDT', 'Tue, 2 Apr 2024 10:15:30 MST', 'Tue, 2 Apr 2024 10:15:30 MDT',
  'Tue, 2 Apr 2024 10:15:30 PST', 'Tue, 2 Apr 2024 10:15:30 PDT', 'Tue, 2 Apr 2024 10:15:30 Z', 'Tue, 2 Apr 2024 10:15:30 CET',
  'Tue, 2 Apr 2024 10:15:30 +0530 (IST)', 'Tue, 2 Apr 2024 10:15:30 -0800 (PST)', 'Tue, 2 Apr 2024 10:15:30 +0000 (UTC) (extra (nested))',
  'Tue, 2 Apr 2024 10:15 -0700', 'Tue, 2 Apr 24 10:15:30 -0700', 'Tue, 2 Apr 99 10:15:30 -0700', 'Tue, 2 Apr 49 10:15:30 GMT',
  'Tue, 2 Apr 50 10:15:30 GMT', 'Tue,  2 Apr 2024 10:15:30 GMT+0200', 'Tue, 2 Apr 2024 10:15:30 GMT-8', 'Tue, 2 Apr 2024 10:15:30 GMT+05:30',
  'Tue, 2 Apr 2024 10:15:30 UTC+1', 'Tue, 2 Apr 2024 10:15:30 +02:00', 'Tue, 2 Apr 2024 10:15:30 +2', 'Tue, 2 Apr 2024 10:15:30 -12345',
  'Tue, 2 Apr 2024 10:15:30', 'Tue 2 Apr 2024 10:15:30 GMT', 'tue, 2 apr 2024 10:15:30 gmt', 'TUE, 02 APR 2024 10:15:30 GMT',
  'Tuesday, 2 April 2024 10:15:30 GMT', 'Tue, 2 Apr 2024 10:15:30.250 GMT', 'Tue, 2 Apr 2024 10:15:30 GMT garbage',
  'Date: Tue, 2 Apr 2024 10:15:30 +0000', 'Tue, 02 Apr 2024 10:15:30 +0000 (Coordinated Universal Time)',
  'Mon, 31 Feb 2024 10:00:00 GMT', 'Tue, 2 Apr 2024 25:00:00 GMT', 'Tue, 2 Apr 2024 24:00:00 GMT',
  // JavaScript's own output forms
  'Tue Apr 02 2024 10:15:30 GMT-0400 (Eastern Daylight Time)', 'Tue Apr 02 2024', 'Tue, 02 Apr 2024 14:15:30 GMT',
  'Tue Apr 02 2024 10:15:30 GMT+0000 (Coordinated Universal Time)',
  // asctime and ctime
  'Tue Apr  2 10:15:30 2024', 'Tue Apr 2 10:15:30 2024', 'Sun Nov  6 08:49:37 1994', 'Tue Apr  2 10:15:30 UTC 2024',
  // month names, day-month orders, two-digit years
  'April 2026', 'April 2, 2024', 'April 2 2024 10:15 AM', 'April 2, 2024 10:15 pm', '2 April 2024', '2 Apr 2024', 'Apr 2', 'April 2',
  '2-Apr-2024', '02-Apr-24', 'Apr-02-2024', '2024 April 2', '2024 Apr 02 10:15', 'apr 2 2024', 'APRIL 2 2024', 'Aprilis 2 2024',
  'Sept 5 2024', 'Sep 5, 2024 12:00 AM', 'Sep 5, 2024 12:00 PM', 'Sep 5, 2024 12:30 am', 'Sep 5, 2024 13:00 PM', 'Sep 5, 2024 0:00 AM',
  'Dec 25 99', 'Dec 25 49', 'Dec 25 50', 'Dec 25 100', 'Dec 25 0', 'January 1, 1970 00:00:00 UTC', 'Jan 1 1970 GMT+0100',
  'mayo 3 2024', 'Mars 2024',
  // slashes and dots
  '2024/04/02', '2024/04/02 10:15', '2024/04/02 10:15:30 +0000', '4/2/2024', '04/02/2024', '4/2/24', '4/2/99', '4/2', '13/2/2024',
  '2/30/2024', '4/2/2024 10:15 AM', '4/2/2024 10:15:30.5', '4/2/2024 10:15:30.', '4/2/2024 1:2:3', '4/2/2024 10:15 UTC',
  '4/2/2024 10:15 PM EDT', '2.4.2024', '02.04.2024 10:15', '2024.04.02', '4-2-2024', '2024-4-2 10:15',
  // times first, odd separators, garbage
  '10:15 4/2/2024', '10:15:30 Apr 2 2024', '10:: Apr 2 2024', '10:15:: Apr 2 2024', '  2024-04-02  ', '\t2 Apr 2024\n',
  'on 2 Apr 2024', 'Sent on: Apr 2, 2024 at 10:15', 'Apr 2, 2024, 10:15:30 AM', 'Apr 2 2024 (a comment) 10:15',
  'Apr 2 2024 ) 10:15', '(leading) Apr 2 2024', 'x2024-04-02', '2024-04-02x', 'Apr2 2024', 'foo 2 Apr 2024', 'foo2 Apr 2024',
  '[2024-04-02 10:15:30]', '<2 Apr 2024>', '"2 Apr 2024"', '2 Apr 2024 +0100', '2 Apr 2024 10:15 +0100', '2 Apr 2024 GMT',
  '2 Apr 2024 10:15 GMT +0100', '2 Apr 2024 10:15 -', '2 Apr 2024 10:15 +', 'Apr 2 2024 10:15:30.123456', 'Apr 2 2024 10.15',
  'Apr 2 2024 10:15:30:45', 'Apr 2 2024 10:60', 'Apr 2 2024 10:15:60', 'Apr 2 2024 10:15pm', 'Apr 2 2024 10pm', 'Apr 2 2024 10 pm',
  'Apr 2 2024 am', '2 3 4 5', '1 2 3', '2024 4', '12345678901 1 1', '1000000 1 1', '999999 1 1', '+275760 9 13',
  'Apr\u00a02\u00a02024', 'Apr\u20282 2024', '2 Apr 2024 10:00\u0085', '2 Apr 2024 10:00\u3000PM', 'Apr 2 2024\u0000 10:00',
  '２０２４-04-02', '2024年4月2日', '4月2日 2024', 'Apr 2 2024 T10:00', 'T10:00 Apr 2 2024', 'Apr 2 2024 z', 'Apr 2 2024 10:00 z',
  // the canonical toISOString form (Python has a fast path for it)
  '2024-04-02T24:00:00.000Z', '2024-04-02T24:00:00.001Z', '2024-02-31T10:00:00.000Z', '0000-01-01T00:00:00.000Z', '2024-13-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z', '2024-04-02T10:60:00.000Z', '2024-04-00T10:00:00.000Z', '2024-04-02T10:00:00.000z', '2024-04-02T10:00:00.000Z ',
  // invalid
  '', ' ', 'now', 'yesterday', 'not a date', '2024-04-02T', 'T10:15', '10:15', '10:15:30', '2 Apr', 'Apr', '32 Apr 2024',
  'Apr 32 2024', '0 Apr 2024', '2024-04-02T10:15:30+25:00', '2024-04-02T10:15:30+02:60', 'Tue, 2 Apr 2024 10:15:30 +0000 +0100 -', 'NaN',
  '1e10', '-1', '+1', '2024--04', '---', ':::', '0', '00', '000', '0000', '99999',
];

function dateCases() {
  const cases = [];
  const seen = new Set();
  DATES.forEach((s) => {
    if (seen.has(s)) throw new Error(`duplicate date input ${JSON.stringify(s)}`);
    seen.add(s);
    const ms = Date.parse(s);
    // Ids from the text, so adding an input never renumbers the others.
    cases.push({ id: `date/${shortId(s)}`, text: s, ms: Number.isNaN(ms) ? null : ms, iso: Number.isNaN(ms) ? null : new Date(ms).toISOString() });
  });
  return cases;
}

function isoCases() {
  const values = [0, -1, 1, 999, -999, 1711965600123, -62198755200000, -62198755200001, -62167219200000, -62167219200001, 253402300799999,
    253402300800000, 8.64e15, -8.64e15, 951782400000, 951868800000, -2208988800000, 4102444800000, 1e12, -1e12, 86399999, -86400001];
  return values.map((ms, i) => {
    const iso = new Date(ms).toISOString();
    return { id: `iso/${i}`, ms, iso, parsed: Date.parse(iso) };
  });
}


// Fuzz: seeded random strings built from fragments that exercise every branch of the rules.

const DATE_TOKENS = ['2024', '24', '99', '49', '50', '1', '02', '12', '31', '32', '0', '00', '13', '100', '2024-04-02', '2024-04', '10:15',
  '10:15:30', '10:15:30.5', '23:59:59.999', '24:00', '12:00', '0:00', '10::', '10:', '.5', '.', ':', 'Apr', 'April', 'apr', 'Sept', 'DEC',
  'Mon', 'Tue,', 'GMT', 'UTC', 'UT', 'Z', 'z', 'EST', 'PDT', 'CDT', 'MST', 'CET', 'AM', 'PM', 'am', 'pm', '+0100', '-0500', '+01:00',
  '-8', '+5', '+', '-', ')', '(', '(comment)', '(a(b)c)', 'T', 'T10:15', 't', '/', ',', 'x', 'foo', 'on', 'at', '年', '\u00a0', '\u3000',
  '\u2028', '\u0085', '\ufeff', '2024/04/02', '4/2/2024', '+002024', '-000001', '275760', '999999999', '1234567890', '0000', '2024-02-30',
  '1970-01-01T00:00:00Z', '2024-03-10T02:30', '2024-11-03T01:30', 'Mar 10 2024 2:30', 'Nov 3 2024 1:30 AM', '123', '4567', '000123'];
const DATE_SEPS = ['', ' ', ' ', ' ', ', ', '-', '/', '  '];

function dateFuzzCases() {
  const rand = prng(0xda7e);
  const cases = [];
  const seen = new Set(DATES);
  while (cases.length < 800) {
    const n = 1 + (rand() % 6);
    let s = '';
    for (let i = 0; i < n; i++) s += (i ? pick(rand, DATE_SEPS) : '') + pick(rand, DATE_TOKENS);
    if (seen.has(s)) continue;
    seen.add(s);
    const ms = Date.parse(s);
    cases.push({ id: `datefuzz/${shortId(s)}`, text: s, ms: Number.isNaN(ms) ? null : ms });
  }
  return cases;
}

// Structured: well-formed forms with random fields, many of them near DST changes in the
// fixture's zone across its history (LMT before 1883, war time, the 1967/1987/2007 rules).
function dateFormCases() {
  const rand = prng(0xd57);
  const pad = (n, w = 2) => String(n).padStart(w, '0');
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const ZONES = ['GMT', 'UT', 'EST', 'EDT', 'CST', 'CDT', 'MST', 'MDT', 'PST', 'PDT', '+0000', '-0500', '+0530', '+1400', '-1200', '+0945', ''];
  const cases = [];
  const seen = new Set();
  while (cases.length < 400) {
    const year = pick(rand, [1800 + (rand() % 100), 1883 + (rand() % 150), 1960 + (rand() % 90), 1 + (rand() % 9999)]);
    const month = pick(rand, [3, 4, 10, 11, 1 + (rand() % 12)]);
    const day = 1 + (rand() % 31);
    const hour = pick(rand, [0, 1, 2, 3, rand() % 24]);
    const minute = pick(rand, [0, 30, 59, rand() % 60]);
    const second = rand() % 60;
    let s;
    switch (rand() % 4) {
      case 0: s = `${pad(year, 4)}-${pad(month)}-${pad(Math.min(day, 28))}T${pad(hour)}:${pad(minute)}:${pad(second)}`; break;
      case 1: s = `${pad(day)} ${MONTHS[month - 1]} ${year} ${pad(hour)}:${pad(minute)}:${pad(second)} ${pick(rand, ZONES)}`.trim(); break;
      case 2: s = `${month}/${day}/${year} ${hour % 12 || 12}:${pad(minute)} ${hour < 12 ? 'AM' : 'PM'}`; break;
      default: s = `${MONTHS[month - 1]} ${day}, ${year} ${hour}:${pad(minute)}`;
    }
    if (seen.has(s)) continue;
    seen.add(s);
    const ms = Date.parse(s);
    cases.push({ id: `dateform/${shortId(s)}`, text: s, ms: Number.isNaN(ms) ? null : ms });
  }
  return cases;
}

// Every assigned code point (Unicode of Node's ICU), segmented alone and between letters,
// digits, katakana and Thai, probes separated by LF (which always breaks). The signature lists
// the segments: "+n" word-like of n units, "-n" not word-like, "/" the LF. Runs of code points
// with the same signature are one case. This catches any Word_Break difference between ICUs.
const WORDCLASS_PROBES = (ch) => [ch, 'a' + ch + 'a', '1' + ch + '1', ch + ch, '\u30a2' + ch + '\u30a2', '\u0e01' + ch + '\u0e01'];

function wordClassCases() {
  const assigned = /\p{Assigned}/u;
  const cases = [];
  let run = null;
  for (let c = 0; c <= 0x10ffff; c++) {
    const ch = String.fromCodePoint(c);
    if ((c >= 0xd800 && c <= 0xdfff) || !assigned.test(ch)) {
      run = null;
      continue;
    }
    let sig = '';
    for (const x of SEGMENTER.segment(WORDCLASS_PROBES(ch).join('\n'))) {
      sig += x.segment === '\n' ? '/' : (x.isWordLike ? '+' : '-') + x.segment.length;
    }
    if (run && run.signature === sig && run.last === c - 1) {
      run.last = c;
    } else {
      run = { first: c, last: c, signature: sig };
      cases.push(run);
    }
  }
  return cases.map((r) => ({ id: `wordclass/${r.first.toString(16)}`, first: r.first, last: r.last, signature: r.signature }));
}

// Wall-clock time -> instant, as `new Date(y, m, d, h, mi, s, ms)` reads it in the fixture's
// zone: the conversion behind every local-time date (dates.utc_from_local_ms).
function localTimeCases() {
  const rand = prng(0x10ca1);
  const walls = [[2024, 3, 10, 2, 30, 0, 0], [2024, 3, 10, 1, 59, 59, 999], [2024, 3, 10, 3, 0, 0, 0], [2024, 11, 3, 1, 30, 0, 0],
    [2024, 11, 3, 0, 59, 59, 999], [2024, 11, 3, 2, 0, 0, 0], [1883, 11, 18, 12, 3, 58, 0], [1883, 11, 18, 12, 0, 0, 0], [1945, 8, 14, 19, 0, 0, 0],
    [1974, 1, 6, 2, 30, 0, 0], [2007, 3, 11, 2, 30, 0, 0], [2038, 1, 19, 3, 14, 8, 0], [9999, 12, 31, 23, 59, 59, 999], [100, 1, 1, 0, 0, 0, 0],
    [1000, 6, 15, 12, 0, 0, 0], [2100, 3, 14, 2, 30, 0, 0], [3000, 11, 2, 1, 30, 0, 0], [275760, 9, 12, 0, 0, 0, 0], [-271821, 4, 21, 0, 0, 0, 0]];
  while (walls.length < 300) {
    const y = pick(rand, [1850 + (rand() % 250), 100 + (rand() % 9900), 1918 + (rand() % 120)]);
    const mo = pick(rand, [3, 4, 10, 11, 1 + (rand() % 12)]);
    walls.push([y, mo, 1 + (rand() % 28), pick(rand, [0, 1, 2, 3, rand() % 24]), pick(rand, [0, 30, rand() % 60]), rand() % 60, rand() % 1000]);
  }
  return walls.map(([y, mo, d, h, mi, s, ms]) => {
    const date = new Date(2000, 0, 1);
    date.setFullYear(y, mo - 1, d); // setFullYear: years 0..99 stay as they are
    date.setHours(h, mi, s, ms);
    const wall = new Date(0);
    wall.setUTCFullYear(y, mo - 1, d);
    wall.setUTCHours(h, mi, s, ms);
    const utc = date.getTime();
    return { id: `local/${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}`, wall_ms: wall.getTime(), ms: Number.isNaN(utc) ? null : utc };
  });
}

const WORD_FRAGMENTS = ['hello', 'Wörld', 'İ', 'ß', 'ﬁ', '123', '3.14', '1,000', "don't", 'l\u2019a', 'a.b', 'foo:bar', 'x@y', '_init',
  '#tag', 'CamelCase', 'ID42', '東京', '会議', 'です', 'カタカナ', 'ｶﾀｶﾅ', '한국어', 'ภาษาไทย', 'ພາສາລາວ', 'ភាសា', 'မြန်မာ', 'مرحبا', 'שלום',
  'צה"ל', 'नमस्ते', '😀', '👨‍👩‍👧', '🇫🇷', '1️⃣', '\u0301', '\u200d', '\u200b', '\ufeff', '\u00ad', '\ud800', '\udc00', 'Σ', 'ΟΔΟΣ',
  '𝐀𝐁', '𠀀', '①', '½', '²', '٣', ' ', ' ', '  ', '\n', '\r\n', '\t', '.', ',', '!', '-', '—', "'", '"', '(', ')', ':', '@', '/', '\u3000',
  '\u00a0', '。', '、', 'a', 'x'.repeat(30)];

function wordFuzzCases() {
  const rand = prng(0x3042);
  const cases = [];
  const seen = new Set();
  while (cases.length < 400) {
    const n = 1 + (rand() % 12);
    let s = '';
    for (let i = 0; i < n; i++) s += pick(rand, WORD_FRAGMENTS);
    if (seen.has(s)) continue;
    seen.add(s);
    cases.push({ id: `wordfuzz/${shortId(s)}`, text: s, words: words(s), vector: keywordVector(s) });
  }
  return cases;
}

const UNIT_POOL = ['a', 'b', 'é', '全', '😀', '🇫', '\ud800', '\udbff', '\udc00', '\udfff', '\u0301', '\u200d', '\ufeff', ' ', '\u0000'];

function utf16FuzzCases() {
  const rand = prng(0x1616);
  const cases = [];
  for (let k = 0; k < 250; k++) {
    const n = rand() % 16;
    let s = '';
    for (let i = 0; i < n; i++) s += pick(rand, UNIT_POOL);
    const len = s.length;
    const pos = () => (rand() % (len + 5)) - 2;
    const cuts = [0, 1, 2, 3].map(() => pos()).map((c) => [c, utf16Cut(s, c)]);
    const slices = [0, 1, 2, 3].map(() => [pos(), rand() % 3 ? pos() : null]).map(([a, b]) => [a, b, utf16Slice(s, a, b ?? undefined)]);
    cases.push({ id: `utf16fuzz/${k}`, text: s, length: len, fnv1a32: fnv1a32(s), utf8_hex: utf8(s).toString('hex'), cuts, slices });
  }
  return cases;
}

const JSON_KEYS = ['a', 'b', 'z', '0', '1', '2', '10', '01', '-1', '1.0', '4294967294', '4294967295', '', 'é', '\ud800', 'x y', '😀', '"q"'];
const JSON_STRINGS = ['', 'x', 'é', '😀', '\ud83d', '\n\t"\\', '\u0000\u001f\u007f', '\u2028', 'long '.repeat(10)];

function jsonFuzzCases() {
  const rand = prng(0x150);
  const dv = new DataView(new ArrayBuffer(8));
  const number = () => {
    switch (rand() % 6) {
      case 0: return rand() % 1000;
      case 1: return -(rand() % 100000) / 100;
      case 2: return (rand() / 2 ** 32) * 10 ** ((rand() % 60) - 30);
      case 3: { dv.setUint32(0, rand()); dv.setUint32(4, rand()); const x = dv.getFloat64(0); return Number.isFinite(x) ? x : 0; }
      case 4: return I(String(BigInt(rand()) * BigInt(rand()) * BigInt(rand() % 3 ? 1 : rand())));
      default: return pick(rand, [0, -0, 1e21, 1e-7, 2 ** 53, 0.1 + 0.2, 5e-324, NaN, Infinity]);
    }
  };
  const value = (depth) => {
    const r = rand() % (depth > 2 ? 4 : 7);
    if (r === 0) return number();
    if (r === 1) return pick(rand, JSON_STRINGS);
    if (r === 2) return pick(rand, [null, true, false]);
    if (r === 3) return number();
    if (r === 4) return Array.from({ length: rand() % 4 }, () => value(depth + 1));
    const pairs = [];
    const used = new Set();
    for (let i = rand() % 5; i > 0; i--) {
      const k = pick(rand, JSON_KEYS);
      if (used.has(k)) continue; // a repeated key would keep its first place in JS, not in the pairs
      used.add(k);
      pairs.push([k, value(depth + 1)]);
    }
    return P(...pairs);
  };
  const cases = [];
  for (let k = 0; k < 300; k++) {
    const v = value(0);
    cases.push({ id: `jsonfuzz/${k}`, value: encode(v), json: JSON.stringify(toJs(v)) });
  }
  return cases;
}

function keyCases() {
  const records = [
    ['mail', P(['id', '<CAF123@mail.example.com>'], ['source', 'mbox:/home/ana/mail/archive.mbox'], ['kind', 'mail'], ['title', 'Re: Q3 budget'], ['author', 'Ana López <ana@example.es>'], ['at', '2024-04-02T14:15:30.000Z'], ['thread', '<CAF100@mail.example.com>'], ['text', 'Can we meet Tue at 10:30?\n\nThanks, Ana'], ['meta', P(['to', ['bo@example.org']], ['cc', []], ['size', 1234])])],
    ['chat', P(['id', '1712067330.000200'], ['source', 'slack:acme/general'], ['kind', 'chat'], ['title', null], ['author', 'U12345'], ['at', '2024-04-02T14:15:30.000Z'], ['thread', '1712067000.000100'], ['text', 'ship it 🚀 <@U999>'], ['meta', P(['channel', 'general'], ['reactions', P(['tada', 3], ['+1', 2])])])],
    ['commit', P(['id', '3f2a9c1d4e5b6a7980a1b2c3d4e5f60718293a4b'], ['source', 'git:/src/memtrails'], ['kind', 'commit'], ['title', 'fix: handle CRLF'], ['author', 'Bo <bo@x.org>'], ['at', '2003-04-01T15:00:00.000Z'], ['thread', null], ['text', 'fix: handle CRLF\r\n\r\nBody'], ['meta', P(['files', ['a.py', 'b.py']], ['insertions', 10], ['deletions', 0])])],
    ['note-minimal', P(['id', 'n1'], ['source', ''], ['kind', 'note'], ['title', null], ['author', null], ['at', null], ['thread', null], ['text', ''], ['meta', P()])],
    ['index-meta-keys', P(['id', 'row-7'], ['source', 'pg:public.notes'], ['kind', 'row'], ['title', null], ['author', null], ['at', '1969-12-31T23:59:59.999Z'], ['thread', null], ['text', 'x'], ['meta', P(['b', 1], ['10', 2], ['2', 3], ['a', 1e21], ['0', -0], ['01', 0.1 + 0.2])])],
    ['cjk-emoji', P(['id', '会議-2024-04-02'], ['source', 'files:/ノート'], ['kind', 'file'], ['title', '会議メモ 📝'], ['author', '山田'], ['at', '2024-04-01T15:00:00.000Z'], ['thread', null], ['text', '今日は東京で会議があります。👨‍👩‍👧‍👦 🇯🇵'], ['meta', P(['path', '/ノート/会議.md'], ['bytes', 321])])],
    ['rtl', P(['id', 'msg-א'], ['source', 'jsonl:/data/he.jsonl'], ['kind', 'chat'], ['title', 'שלום'], ['author', 'مريم'], ['at', '2024-04-02T07:00:00.000Z'], ['thread', 't1'], ['text', 'שלום עולם, مرحبا بالعالم'], ['meta', P()])],
    ['lone-surrogates', P(['id', 'bad\ud800id'], ['source', 'jsonl:/x'], ['kind', 'note'], ['title', '\udfff'], ['author', null], ['at', null], ['thread', null], ['text', 'abc\ud83d'], ['meta', P(['k\udc00', 'v\ud800'])])],
    ['controls', P(['id', 'c\u0000\u001f'], ['source', 's\n\t'], ['kind', 'note'], ['title', '"quoted" \\ back'], ['author', null], ['at', '0000-01-01T00:00:00.000Z'], ['thread', null], ['text', '\u2028\u2029\ufeff\u0085'], ['meta', P(['nested', P(['deep', [null, true, false, 1.5, -1e-7]])])])],
    ['big-numbers', P(['id', '9007199254740993'], ['source', 'api'], ['kind', 'row'], ['title', null], ['author', null], ['at', '+275760-09-13T00:00:00.000Z'], ['thread', null], ['text', 'n'], ['meta', P(['big', I('9007199254740993')], ['huge', I('123456789012345678901234567890')], ['neg', -1e21], ['tiny', 5e-324])])],
    ['long-text', P(['id', 'long'], ['source', 'files:/big.txt'], ['kind', 'file'], ['title', 'Big'], ['author', null], ['at', '2024-04-02T10:15:30.123Z'], ['thread', null], ['text', 'lorem ipsum dolor sit amet 😀 '.repeat(200)], ['meta', P()])],
  ];
  const uidInputs = [
    ['mbox:/a', '<1@x>'], ['', ''], ['slack:acme/general', '1712067330.000200'], ['git:/r', '3f2a9c1d'], ['files:/ノート', '会議.md'],
    ['a"b', 'c\\d'], ['\ud800', '\udfff'], ['s', '😀'], ['s', '\ud83d'], ['x:', ':y'], ['a', 'b'], ['a', 'b '], ['["a"', '"b"]'],
    ['src\n', 'id\t'], ['jsonl:/data.jsonl', '42'], ['pg:public.notes', '-0'], ['emoji 👨‍👩‍👧‍👦', 'flag 🇫🇷'],
  ];
  const cases = [];
  uidInputs.forEach(([source, id], i) => {
    const uid = recordUid(source, id);
    cases.push({ id: `uid/${i}`, source, record_id: id, uid, points: [0, 1, 2, 17, 1000].map((n) => [n, pointId(uid, n)]) });
  });
  for (const [id, content] of records) {
    const js = toJs(content);
    cases.push({ id: `fingerprint/${id}`, content: encode(content), json: JSON.stringify(js), fingerprint: fingerprint(js), uid: recordUid(js.source, js.id) });
  }
  // Normalisation: every string a record holds (meta keys too) made well-formed, as TextEncoder
  // would make its bytes; text and title without NULs and trimmed. The keys are taken after it.
  const wellFormed = (v) => {
    if (typeof v === 'string') return v.toWellFormed();
    if (Array.isArray(v)) return v.map(wellFormed);
    if (v !== null && typeof v === 'object') {
      const o = {};
      for (const [k, x] of Object.entries(v)) o[k.toWellFormed()] = wellFormed(x);
      return o;
    }
    return v;
  };
  const clean = (s) => (s === null ? null : s.replace(/\0/g, '').trim() || null);
  const normalised = [
    ['lone-everywhere', P(['id', 'bad\ud800id'], ['source', 'jsonl:/x\udc00'], ['kind', 'note\ud83d'], ['title', ' \udfff title'], ['author', 'Ana \udc00'], ['at', null], ['thread', '\ud800'], ['text', 'x \ud800 y \ude00\ud83d z\ud83d'], ['meta', P(['k\udc00', 'v\ud800'], ['nested', P(['list', ['\ud800', 1, P(['\udfff', '\ud83d\ude00'])]])], ['2', '\udc00'])])],
    ['pairs-kept', P(['id', 'e\ud83d\ude00'], ['source', 'slack:acme/\ud83d\ude80'], ['kind', 'chat'], ['title', null], ['author', null], ['at', '2024-04-02T14:15:30.000Z'], ['thread', null], ['text', '\u0000ship it \ud83d\ude80\u0000 '], ['meta', P(['emoji', '\ud83d\ude80'])])],
    ['replacement-char-already', P(['id', 'r\ufffd'], ['source', 's'], ['kind', 'note'], ['title', null], ['author', null], ['at', null], ['thread', null], ['text', 'a \ufffd b'], ['meta', P()])],
  ];
  for (const [id, content] of normalised) {
    const js = wellFormed(toJs(content));
    js.text = clean(js.text) ?? '';
    js.title = clean(js.title);
    cases.push({ id: `normalised/${id}`, content: encode(content), json: JSON.stringify(js), fingerprint: fingerprint(js), uid: recordUid(js.source, js.id) });
  }
  const utf8Inputs = ['', 'abc', 'é', '😀', '\ud800', '\udfff', 'a\ud83db', '\ude00\ud83d', '\ud83d\ude00', '\u0000', '\uffff', '\ufeff'];
  utf8Inputs.forEach((s, i) => cases.push({ id: `utf8/${i}`, text: s, utf8_hex: utf8(s).toString('hex'), sha256: sha256Hex(s) }));
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Writing and checking

function render(name, cases) {
  const header = {
    fixture: name,
    generator: 'conformance/generate.mjs',
    oracle: { node: process.version, v8: process.versions.v8, icu: process.versions.icu, unicode: process.versions.unicode, tz_data: process.versions.tz },
    tz: TZ,
    count: cases.length,
  };
  // One case per line: stable, deterministic, and diffs show exactly which case changed.
  const lines = cases.map((c) => '  ' + JSON.stringify(c));
  const head = JSON.stringify(header).slice(0, -1);
  return `${head},"cases":[\n${lines.join(',\n')}\n]}\n`;
}

const FIXTURES = {
  utf16: utf16Cases,
  words: wordCases,
  fnv: fnvCases,
  vectors: vectorCases,
  numbers: numberCases,
  json: jsonCases,
  whitespace: whitespaceCases,
  dates: dateCases,
  iso: isoCases,
  keys: keyCases,
  dates_fuzz: dateFuzzCases,
  dates_forms: dateFormCases,
  local_time: localTimeCases,
  words_fuzz: wordFuzzCases,
  word_classes: wordClassCases,
  utf16_fuzz: utf16FuzzCases,
  json_fuzz: jsonFuzzCases,
};

let differing = 0;
let total = 0;
if (!CHECK) mkdirSync(OUT, { recursive: true });
for (const [name, make] of Object.entries(FIXTURES)) {
  const cases = make();
  const ids = new Set(cases.map((c) => c.id));
  if (ids.size !== cases.length) throw new Error(`duplicate case ids in ${name}`);
  total += cases.length;
  const text = render(name, cases);
  const path = join(OUT, `${name}.json`);
  if (!CHECK) {
    writeFileSync(path, text);
    console.log(`${name}.json: ${cases.length} cases`);
    continue;
  }
  if (!existsSync(path)) {
    console.error(`${name}.json: missing`);
    differing++;
    continue;
  }
  const committed = readFileSync(path, 'utf8');
  if (committed === text) continue;
  differing++;
  const old = committed.split('\n');
  const now = text.split('\n');
  const changed = [];
  for (let i = 0; i < Math.max(old.length, now.length); i++) if (old[i] !== now[i]) changed.push(i + 1);
  console.error(`${name}.json differs from what Node computes now: ${changed.length} line(s), first at line ${changed[0]}`);
  for (const i of changed.slice(0, 5)) {
    console.error(`  line ${i}\n    committed: ${(old[i - 1] ?? '<none>').slice(0, 300)}\n    now:       ${(now[i - 1] ?? '<none>').slice(0, 300)}`);
  }
}
if (CHECK) {
  if (differing) {
    console.error(`${differing} fixture file(s) differ; regenerate with: TZ=${TZ} node conformance/generate.mjs`);
    process.exit(1);
  }
  console.log(`conformance fixtures match Node ${process.version} (ICU ${process.versions.icu}): ${total} cases`);
} else {
  console.log(`total: ${total} cases`);
}
