// Days as Intl.DateTimeFormat writes them in 84 locales, 8 seeded random instants (UTC), 12
// forms each (dateStyle full/long/medium/short, with a time, month and year, toUTCString,
// toLocaleString): one JSON array of {loc, form, text, wall, day} on stdout, `wall` the
// instant the text names (UTC wall clock, ms), `day` its midnight. Scored by dates_intl.py.
// Run: node benchmarks/dates_intl.mjs SEED
const locales = ["en-US","en-GB","en-AU","en-IN","en-CA","fr","fr-CA","de","de-AT","de-CH","es","es-MX","it","pt","pt-BR","nl","sv","da","nb","fi","is","pl","cs","sk","sl","hr","sr-Latn","sr","bs","hu","ro","bg","ru","uk","be","el","tr","az","ka","hy","he","ar","ar-EG","fa","ur","hi","bn","mr","ta","te","gu","kn","ml","pa","th","vi","id","ms","fil","sw","zh","zh-TW","ja","ko","lt","lv","et","ca","gl","eu","sq","mk","kk","uz","mn","am","af","ga","cy","km","lo","my","si","ne"];
let seed = Number(process.argv[2] || 7); const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648); const dates = Array.from({length: 8}, () => [1990 + Math.floor(rnd()*45), 1 + Math.floor(rnd()*12), 1 + Math.floor(rnd()*28), Math.floor(rnd()*24), Math.floor(rnd()*60), Math.floor(rnd()*60)]);
const forms = {
  full: {dateStyle:"full"}, long: {dateStyle:"long"}, medium: {dateStyle:"medium"}, short: {dateStyle:"short"},
  long_short: {dateStyle:"long", timeStyle:"short"}, medium_medium: {dateStyle:"medium", timeStyle:"medium"},
  full_short: {dateStyle:"full", timeStyle:"short"}, short_short: {dateStyle:"short", timeStyle:"short"},
  month_year: {year:"numeric", month:"long"}, month_year_short: {year:"numeric", month:"short"},
  toString: null, toLocaleString: "ls",
};
const out = [];
for (const loc of locales) for (const [y,m,d,h,mi,s] of dates) {
  const at = new Date(Date.UTC(y,m-1,d,h,mi,s));
  for (const [form, o] of Object.entries(forms)) {
    let text;
    if (o === null) { if (loc !== "en-US") continue; text = at.toUTCString(); }
    else if (o === "ls") text = at.toLocaleString(loc, {timeZone: "UTC"});
    else { try { text = new Intl.DateTimeFormat(loc, {...o, timeZone:"UTC"}).format(at); } catch (e) { continue; } }
    const day = form.startsWith("month_year") ? 1 : d;
    const hasTime = ["long_short","medium_medium","full_short","short_short","toString","toLocaleString"].includes(form);
    let wall = Date.UTC(y,m-1,day, hasTime?h:0, hasTime?mi:0, ["medium_medium","toString","toLocaleString"].includes(form)?s:0);
    out.push({loc, form, text, wall, day: Date.UTC(y,m-1,day)});
  }
}
console.log(JSON.stringify(out));
