// Days as Intl.DateTimeFormat writes them in every locale this Node knows (each two-letter
// language ICU has, by Intl.DateTimeFormat.supportedLocalesOf), in its default calendar (fa
// writes the Persian one, th the Buddhist era...), then in each other calendar (-u-ca-buddhist,
// japanese, persian, islamic, hebrew, roc), in other digits (-u-nu-fullwide, arab, deva, beng,
// thai) and with an era (era: "long"); 6 seeded instants (UTC), 5 forms each. One JSON array of
// {group, loc, form, text, wall, day, gregorian} on stdout; scored by dates_intl.py --world.
// Run: node benchmarks/dates_intl_world.mjs SEED
let seed = Number(process.argv[2] || 7);
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const dates = Array.from({length: 6}, () => [1990 + Math.floor(rnd()*45), 1 + Math.floor(rnd()*12), 1 + Math.floor(rnd()*28), Math.floor(rnd()*24), Math.floor(rnd()*60)]);
const letters = "abcdefghijklmnopqrstuvwxyz";
const langs = [];
for (const a of letters) for (const b of letters) {
  const tag = a + b;
  if (Intl.DateTimeFormat.supportedLocalesOf([tag]).length && new Intl.Locale(tag).maximize().language === tag) langs.push(tag);
}
const forms = {
  full: {dateStyle: "full"}, long: {dateStyle: "long"}, medium: {dateStyle: "medium"},
  short: {dateStyle: "short"}, long_short: {dateStyle: "long", timeStyle: "short"},
};
const variants = [];
for (const l of langs) variants.push(["locale", l]);
for (const ca of ["buddhist", "japanese", "persian", "islamic", "hebrew", "roc"])
  for (const l of ["en", "th", "ja", "fa", "ar", "he", "zh-TW", "de"]) variants.push(["calendar", `${l}-u-ca-${ca}`]);
for (const nu of ["fullwide", "arab", "deva", "beng", "thai"])
  for (const l of ["en", "ja", "zh", "ar", "hi", "fr"]) variants.push(["digits", `${l}-u-nu-${nu}`]);
for (const l of ["en", "de", "fr", "ja", "zh", "ru", "es", "ko"]) variants.push(["era", l]);
const out = [];
for (const [group, loc] of variants) for (const [y, m, d, h, mi] of dates) {
  const at = new Date(Date.UTC(y, m - 1, d, h, mi));
  for (const [form, o] of Object.entries(forms)) {
    const opts = group === "era" ? {year: "numeric", month: "long", day: "numeric", era: "long", ...(form === "long_short" ? {hour: "numeric", minute: "numeric"} : {})} : o;
    let f;
    try { f = new Intl.DateTimeFormat(loc, {...opts, timeZone: "UTC"}); } catch (e) { continue; }
    const text = f.format(at);
    const hasTime = form === "long_short";
    const cal = f.resolvedOptions().calendar;
    out.push({group, loc, form, text, calendar: cal, gregorian: cal === "gregory" || cal === "iso8601",
      wall: Date.UTC(y, m - 1, d, hasTime ? h : 0, hasTime ? mi : 0), day: Date.UTC(y, m - 1, d)});
  }
}
console.log(JSON.stringify(out));
