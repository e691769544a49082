// Writes intl_months.json: days and months as Intl.DateTimeFormat (Node, ICU) writes them in
// the locales whose month names memtrails reads (memtrails/month_names.py), for every month.
// Run: node tests/data/dates/intl_months.mjs > tests/data/dates/intl_months.json
const locales = [
  "ar", "ar-EG", "ar-LB", "ar-SY", "ar-IQ", "ar-JO", "ar-MA", "ar-DZ", "ar-TN", "he",
  "fa-u-ca-gregory", "ur", "el", "tr", "pl", "cs", "sk", "uk", "ru", "bg", "ro", "de", "fr",
  "es", "it", "pt", "nl", "sv", "fi", "hu",
  // Indic scripts: their long days and months are read; no form may read as another day.
  "hi", "mr", "ne", "bn", "pa", "gu", "or", "ta", "te", "kn", "ml",
];
const forms = {
  long: { dateStyle: "long" },
  medium: { dateStyle: "medium" },
  full: { dateStyle: "full" },
  long_time: { dateStyle: "long", timeStyle: "short" },
  month_year: { year: "numeric", month: "long" },
};
const cases = [];
for (const locale of locales) {
  for (let month = 1; month <= 12; month++) {
    const at = new Date(Date.UTC(2024, month - 1, 3, 10, 30));
    for (const [form, options] of Object.entries(forms)) {
      const text = new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" }).format(at);
      const day = form === "month_year" ? "01" : "03";
      const clock = form === "long_time" ? "10:30" : "00:00";
      cases.push([locale, form, text, `2024-${String(month).padStart(2, "0")}-${day}T${clock}`]);
    }
  }
}
const rows = cases.map((c) => "  " + JSON.stringify(c)).join(",\n");
console.log(`{"node": "${process.version}", "icu": "${process.versions.icu}",\n "cases": [\n${rows}\n]}`);
