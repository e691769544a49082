"""The names of the Gregorian calendar's months in the languages memtrails reads a date in,
one set of tables for every reader (``written_dates`` for a value or a mail's Date header,
``world_dates`` for Cyrillic days), and the names of other calendars' months, which make a
value no Gregorian date.

A word is looked up by :func:`month_of` as it is written or in another case, with or
without its accents and its dot ("Mai", "MAÏ", "mai."), Arabic's letter forms made one
(``أ`` ``إ`` ``آ`` are ``ا``, Persian's ``ی`` ``ک`` Arabic's ``ي`` ``ك``), Hebrew's ``ב``
("in") before the month read through ("במאי" is May).
"""

# ruff: noqa: RUF001, RUF002, RUF003 (Greek, Hebrew, Arabic, Cyrillic and Indic words, on purpose)

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "CYRILLIC",
    "ENGLISH",
    "INDIC_LETTERS",
    "LETTER",
    "misread_month",
    "month_of",
    "nameless_month",
    "one_word",
    "other_calendar",
    "unsure_month",
    "weekday_last",
]

# English, and the usual abbreviations and full names of German, Dutch, French, Spanish,
# Italian, Portuguese, Catalan, Galician, the Nordic languages, Estonian, Polish, Czech and
# Slovak (their genitive, as a date writes it, and their nominative, as a month alone does),
# Slovenian, Finnish (its partitive too), Hungarian, Turkish, Romanian, Albanian, Afrikaans,
# Indonesian, Malay, Swahili, Filipino, Azerbaijani, Uzbek, Lithuanian, Latvian, Irish, Welsh,
# Serbian and Bosnian (Latin), Basque, and Croatian's own words. Croatian's "listopad(a)" and
# "lis" are October, Czech's and Polish's November, and its "lip" is June, Polish's July: those
# are read as Croatian only on its evidence (:func:`one_word`). Seasons are no months ("kesä").
_LATIN: dict[int, str] = {
    1: "jan janv ene gen sty january januar janvier enero gennaio januari janeiro stycznia"
    " ledna leden tammikuuta tammikuu január ocak oca ianuarie ian styczeń januára"
    " gener xaneiro januarie janar yanvar jaanuar"
    " jänner jän tammi yan jaan xan eanáir ean ionawr ion sausis sausio janvāris janvāra"
    " siječanj siječnja sij"
    " urtarrila urtarrilaren urt",
    2: "feb febr fév févr fev fevr lut february februar février fevrier febrero febbraio "
    "februari fevereiro lutego"
    " února únor helmikuuta helmikuu február şubat subat şub februarie luty februára"
    " febrer febreiro shkurt fevral pebrero veebruar"
    " helmi peb veebr feabhra feabh chwefror chwef chw vasaris vasario februāris februāra"
    " veljača veljače velj"
    " otsaila otsailaren ots",
    3: "mar mär mrz mrt march märz maerz mars marzo maart março marca"
    " března březen maaliskuuta maaliskuu március márc mart martie marzec marec"
    " març mac maret machi marso märts"
    " maalis márta mawrth maw kovas kovo marts ožujak ožujka ožu"
    " martxoa martxoaren",
    4: "apr avr abr kwi april avril abril aprile kwietnia"
    " dubna duben huhtikuuta huhtikuu április ápr nisan nis aprilie kwiecień apríl apríla"
    " aprill prill aprel aprili"
    " huhti aibreán aib ebrill ebr balandis balandžio aprīlis aprīļa pri travanj travnja"
    " apirila apirilaren api",
    5: "may mai mei maj mag mayo maggio maio maja"
    " května květen toukokuuta toukokuu május máj may\u0131s mayis mája"
    " maig"
    " touko bealtaine beal gegužė gegužės maijs maija svibanj svibnja"
    " maiatza maiatzaren",
    6: "jun juin giu cze june juni junio giugno junho czerwca"
    " června červen kesäkuuta kesäkuu június jún haziran haz iunie iun czerwiec júna"
    " juny xuño junie qershor iyun hunyo junij juuni"
    " meitheamh meith mehefin meh birželis birželio jūnijs jūnija iyn hun qer lipanj lipnja"
    " ekaina ekainaren eka",
    7: "jul juil lug lip july juli juillet julio luglio julho lipca"
    " července červenec heinäkuuta heinäkuu július júl temmuz tem iulie iul lipiec júla"
    " juliol xullo julie korrik iyul hulyo julij juuli julai"
    " heinä iúil gorffennaf gorff gor liepa liepos jūlijs jūlija iyl hul korr srpanj srpnja"
    " uztaila uztailaren uzt",
    8: "aug aoû aou ago sie august août aout agosto augustus sierpnia"
    " srpna srpen elokuuta elokuu augusztus ağustos agustos ağu augusti sierpień augusta"
    " agost gusht avqust avgust agustus ogos agosti ágúst"
    " elo lúnasa lún awst rugpjūtis rugpjūčio augusts augusta avq avg ogo gush kolovoz kolovoza"
    " abuztua abuztuaren abu",
    9: "sep sept set wrz september septembre septiembre setiembre settembre setembro "
    "września wrzesnia"
    " září syyskuuta syyskuu szeptember szept eylül eylul eyl septembrie wrzesień septembra"
    " setembre shtator sentyabr sentabr septemba setyembre"
    " syys medi rugsėjis rugsėjo septembris septembra septembar sen sht rujan rujna"
    " iraila irailaren ira",
    10: "oct okt ott out paź paz october oktober octobre octubre ottobre outubro "
    "października pazdziernika"
    " října říjen lokakuuta lokakuu október ekim eki octombrie październik októbra"
    " tetor oktyabr oktabr oktoba oktubre oktoober"
    " loka hydref hyd spalis spalio oktobris oktobra oktobar tet"
    " urria urriaren urr",
    11: "nov lis november novembre noviembre novembro listopada"
    " listopadu listopad marraskuuta marraskuu kas\u0131m kasim kas noiembrie novembra"
    " nëntor noyabr novemba nobyembre"
    " marras samhain samh tachwedd tach lapkritis lapkričio novembris novembra novembar noy"
    " nob nën studeni studenoga studenog"
    " azaroa azaroaren aza",
    12: "dec dez déc dic gru december dezember décembre decembre diciembre dicembre "
    "dezembro grudnia"
    " prosince prosinec joulukuuta joulukuu aral\u0131k aralik ara decembrie grudzień decembra"
    " desembre decembro desember disember dhjetor dekabr desemba disyembre detsember"
    " joulu nollaig noll rhagfyr rhag gruodis gruodžio decembris decembra decembar dek dis"
    " des dets dhj prosinac prosinca"
    " abendua abenduaren abe",
}

# Cyrillic month names, as a date writes them (the genitive: "3 мая 2024") and alone, with
# their usual abbreviations: Russian, Ukrainian, Belarusian, Bulgarian, Serbian, Macedonian,
# Kazakh. Not an abbreviation that is a word too ("нов", new; "ліс", forest; "там", there).
_CYRILLIC: dict[int, str] = {
    1: "январь января янв січень січня січ студзень студзеня студз януари яну јануар јануари сту"
    " јан қаңтар қаң",
    2: "февраль февраля фев февр лютий лютого лют люты лютага февруари фебруар февруари феб"
    " ақпан ақп",
    3: "март марта мар березень березня бер сакавік сакавіка сак наурыз",
    4: "апрель апреля апр квітень квітня квіт красавік красавіка крас април кра сәуір сәу",
    5: "май мая травень травня трав мај мамыр",
    6: "июнь июня июн червень червня черв чэрвень чэрвеня чэрв юни јун јуни чэр маусым",
    7: "июль июля июл липень липня лип ліпень ліпеня ліп юли јул јули шілде шіл",
    8: "август августа авг серпень серпня серп жнівень жніўня жнів жні тамыз",
    9: "сентябрь сентября сен сент вересень вересня вер верасень верасня вер сеп септември "
    "септембар қыркүйек қыр",
    10: "октябрь октября окт жовтень жовтня жовт кастрычнік кастрычніка кастр октомври октобар"
    " кас қазан қаз",
    11: "ноябрь ноября ноя нояб листопад листопада лист лістапад лістапада ліст ное ноември "
    "новембар қараша қар",
    12: "декабрь декабря дек грудень грудня груд снежань снежня снеж декември децембар дец"
    " желтоқсан",
}

# Greek (the genitive a date writes, the nominative, the abbreviations), Hebrew, Georgian,
# Armenian, Amharic, Khmer, Lao (as Intl writes them), and the
# Gregorian months in Arabic script: Egypt's and the Gulf's, the Maghreb's (Morocco's
# "ماي", "غشت"; Algeria's and Tunisia's "جانفي", "جوان"), the Levant's and Iraq's Syriac
# names ("أيار"; "كانون الثاني" is made one word first, :func:`one_word`), Persian's
# (Intl's "fa-u-ca-gregory": "مهٔ"), Urdu's.
_OTHER_SCRIPTS: dict[int, str] = {
    1: "Ιανουαρίου Ιανουάριος Ιαν ינואר ינו يناير جانفي ژانویه جنوری იანვარი იან ጃንዋሪ ጃን មករា ມັງກອນ հունվար հունվարի հնվ",
    2: "Φεβρουαρίου Φεβρουάριος Φεβ Φεβρ פברואר פבר فبراير فيفري شباط فوریه فروری თებერვალი თებ ፌብሩዋሪ ፌብ កុម្ភៈ ກຸມພາ փետրվար փետրվարի փտվ",
    3: "Μαρτίου Μάρτιος Μαρ מרץ מרס مارس آذار مارچ მარტი მარ ማርች មីនា ມີນາ մարտ մարտի մրտ",
    4: "Απριλίου Απρίλιος Απρ אפריל אפר أبريل إبريل أفريل نيسان آوریل اپریل აპრილი აპრ ኤፕሪል ኤፕሪ មេសា ເມສາ ապրիլ ապրիլի ապր",
    5: "Μαΐου Μάιος Μαΐ Μάι מאי مايو ماي أيار مه مئی მაისი მაი ሜይ ឧសភា ພຶດສະພາ մայիս մայիսի մյս",
    6: "Ιουνίου Ιούνιος Ιουν יוני يونيو يونية جوان حزيران ژوئن جون ივნისი ივნ ጁን មិថុនា ມິຖຸນາ հունիս հունիսի հնս",
    7: "Ιουλίου Ιούλιος Ιουλ יולי يوليو يولية يوليوز جويلية تموز ژوئیه ژوییه جولائی ივლისი ივლ ጁላይ កក្កដា ກໍລະກົດ հուլիս հուլիսի հլս",
    8: "Αυγούστου Αύγουστος Αυγ אוגוסט אוג أغسطس غشت أوت آب اوت اگست აგვისტო აგვ ኦገስት ኦገስ សីហា ສິງຫາ օգոստոս օգոստոսի օգս",
    9: "Σεπτεμβρίου Σεπτέμβριος Σεπ Σεπτ ספטמבר ספט سبتمبر شتنبر أيلول سپتامبر ستمبر სექტემბერი სექ ሴፕቴምበር ሴፕቴ កញ្ញា ກັນຍາ սեպտեմբեր սեպտեմբերի սեպ",
    10: "Οκτωβρίου Οκτώβριος Οκτ אוקטובר אוק أكتوبر اکتبر اکتوبر ოქტომბერი ოქტ ኦክቶበር ኦክቶ តុលា ຕຸລາ հոկտեմբեր հոկտեմբերի հոկ",
    11: "Νοεμβρίου Νοέμβριος Νοε Νοεμ נובמבר נוב نوفمبر نونبر نوامبر نومبر ნოემბერი ნოე ኖቬምበር ኖቬም វិច្ឆិកា ພະຈິກ նոյեմբեր նոյեմբերի նոյ",
    12: "Δεκεμβρίου Δεκέμβριος Δεκ דצמבר דצמ ديسمبر دجنبر دسامبر دسمبر დეკემბერი დეკ ዲሴምበር ዲሴም ធ្នូ ທັນວາ դեկտեմբեր դեկտեմբերի դեկ",
}

# The Indic scripts' Gregorian months, as Intl writes them (Hindi, Marathi, Nepali, Bengali,
# Assamese, Punjabi, Gujarati, Odia, Tamil, Telugu, Kannada, Malayalam), and their
# abbreviations.
_INDIC_MONTHS: dict[int, str] = {
    1: "जनवरी जानेवारी जाने জানুয়ারি জানু জানুৱাৰী ਜਨਵਰੀ ਜਨ જાન્યુઆરી જાન્યુ ଜାନୁଆରୀ ஜனவரி ஜன"
    " జనవరి జన ಜನವರಿ ಜನ ജനുവരി ജനു जन",
    2: "फ़रवरी फेब्रुवारी फेब्रु फेब्रुअरी ফেব্রুয়ারি ফেব ফেব্ৰুৱাৰী ফেব্ৰু ਫ਼ਰਵਰੀ ਫ਼ਰ"
    " ફેબ્રુઆરી ફેબ્રુ ଫେବୃଆରୀ பிப்ரவரி பிப் ఫిబ్రవరి ఫిబ్ర ಫೆಬ್ರವರಿ ಫೆಬ್ರ ഫെബ്രുവരി ഫെബ്രു"
    " फ़र",
    3: "मार्च মার্চ মাৰ্চ ਮਾਰਚ માર્ચ ମାର୍ଚ୍ଚ மார்ச் மார் మార్చి ಮಾರ್ಚ್ മാർച്ച് മാർ",
    4: "अप्रैल एप्रिल एप्रि अप्रिल এপ্রিল এপ্রি এপ্ৰিল ਅਪ੍ਰੈਲ ਅਪ੍ਰੈ એપ્રિલ ଅପ୍ରେଲ ஏப்ரல் ஏப்"
    " ఏప్రిల్ ఏప్రి ಏಪ್ರಿಲ್ ಏಪ್ರಿ ഏപ്രിൽ ഏപ്രി",
    5: "मई मे মে ਮਈ મે ମଇ மே మే ಮೇ മേയ്",
    6: "जून जुन জুন ਜੂਨ જૂન ଜୁନ ஜூன் జూన్ ಜೂನ್ ജൂൺ",
    7: "जुलाई जुलै জুলাই জুল ਜੁਲਾਈ ਜੁਲਾ જુલાઈ ଜୁଲାଇ ஜூலை జులై ಜುಲೈ ജൂലൈ जुल",
    8: "अगस्त ऑगस्ट ऑग अगस्ट আগস্ট আগ আগষ্ট ਅਗਸਤ ਅਗ ઑગસ્ટ ଅଗଷ୍ଟ ஆகஸ்ட் ஆக ఆగస్టు ఆగ ಆಗಸ್ಟ್ ಆಗ ഓഗസ്റ്റ് ഓഗ अग",
    9: "सितंबर सितम्बर सप्टेंबर सप्टें सेप्टेम्बर সেপ্টেম্বর সেপ্ট ছেপ্তেম্বৰ ਸਤੰਬਰ ਸਤੰ"
    " સપ્ટેમ્બર સપ્ટે ସେପ୍ଟେମ୍ବର செப்டம்பர் செப் సెప్టెంబర్ సెప్టెం ಸೆಪ್ಟೆಂಬರ್ ಸೆಪ್ಟೆಂ"
    " സെപ്റ്റംബർ സെപ്റ്റം सित সেপ",
    10: "अक्टूबर अक्तूबर ऑक्टोबर ऑक्टो अक्टोबर অক্টোবর অক্টো অক্টোবৰ ਅਕਤੂਬਰ ਅਕਤੂ ઑક્ટોબર ઑક્ટો"
    " ଅକ୍ଟୋବର அக்டோபர் అక్టోబర్ అక్టో ಅಕ್ಟೋಬರ್ ಅಕ್ಟೋ ഒക്ടോബർ ഒക്ടോ अक्टू அக்",
    11: "नवंबर नवम्बर नोव्हेंबर नोव्हें नोभेम्बर নভেম্বর নভে নৱেম্বৰ ਨਵੰਬਰ ਨਵੰ નવેમ્બર નવે"
    " ନଭେମ୍ବର நவம்பர் నవంబర్ నవం ನವೆಂಬರ್ ನವೆಂ നവംബർ നവം नव நவ",
    12: "दिसंबर दिसम्बर डिसेंबर डिसें डिसेम्बर ডিসেম্বর ডিসে ডিচেম্বৰ ਦਸੰਬਰ ਦਸੰ ડિસેમ્બર ડિસે"
    " ଡିସେମ୍ବର டிசம்பர் டிச డిసెంబర్ డిసెం ಡಿಸೆಂಬರ್ ಡಿಸೆಂ ഡിസംബർ ഡിസം दिस",
}
# Their letters and the vowel signs they write in a word (Python's \\w takes a sign for no
# letter), not their digits nor dandas.
_INDIC = (
    "\u0900-\u0963\u0971-\u09e5\u09f0-\u0a65\u0a70-\u0ae5\u0af0-\u0b65\u0b70-\u0be5"
    "\u0bf0-\u0c65\u0c70-\u0ce5\u0cf0-\u0d65\u0d70-\u0d7f\u0e80-\u0ecf\u1780-\u17d3"
)
#: One letter of a word, as the date readers take words: a letter, or an Indic script's sign.
LETTER = rf"(?:[^\W\d_]|[{_INDIC}])"
#: A character of an Indic script's word: ``world_dates`` asks its readers first for it.
INDIC_LETTERS = f"[{_INDIC}]"

# Months of other calendars: a date that names one is no Gregorian date, whatever its year
# looks like ("3 اردیبهشت 2024"). The Solar Hijri calendar's (Iran's), the Islamic one's,
# the Hebrew one's.
_OTHER_CALENDARS = (
    "فروردین اردیبهشت خرداد تیر مرداد شهریور مهر آبان آذر دی بهمن اسفند "
    "محرم صفر ربيع جمادى جمادي رجب شعبان رمضان شوال القعدة الحجة "
    "תשרי חשון חשוון מרחשון כסלו כסליו טבת שבט אדר ניסן אייר סיון סיוון תמוז אב אלול"
)

# Weekdays as a date may write them after the day ("3 Mayıs 2024 Cuma", "2024. május 3.,
# péntek"): English, Turkish, Hungarian.
_WEEKDAY_WORDS = (
    "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun"
    " pazartesi salı çarşamba perşembe cuma cumartesi pazar"
    " hétfő kedd szerda csütörtök péntek szombat vasárnap"
)
_AFTER_DAY = re.compile(r"[.,]*\s+([^\W\d_]{2,})\.?\s*")

# The Levant's two-word names, whose first word alone names two months.
_TWO_WORDS = re.compile(r"(كانون|تشرين)[\s\u00a0]+ال(?:([أإآا]ول|اول)|ثاني|ثانى)(?![^\W\d_])")
_ONE_WORD = {("كانون", False): "يناير", ("كانون", True): "ديسمبر"}
_ONE_WORD |= {("تشرين", True): "أكتوبر", ("تشرين", False): "نوفمبر"}
# Greek's "π.μ." and "μ.μ." after a time: before and after noon.
_GREEK_HALF = re.compile(r"(?<=\d)(\s*)([πμ])\.?\s?μ\.?(?![^\W\d_])")
_ARABIC_LETTERS = str.maketrans(
    {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي", "ی": "ي", "ک": "ك", "ـ": None}
    | dict.fromkeys("\u200c\u200d")
)
_HEBREW_IN = "ב"  # "במאי": in May
# Arabic's vowel marks, Persian's "ٔ" ("مهٔ"), the zero-width (non-)joiner Malayalam writes
# in a word ("ഒക്‌ടോബർ"): no part of a month's name.
_MARKS = dict.fromkeys([*range(0x064B, 0x0660), 0x0670, 0x200C, 0x200D])
# Date.parse reads a word by its first three letters: "marraskuuta" (Finnish, November) as
# March. The English months' abbreviations, as its table has them.
_DATE_PARSE = {words.split()[0]: month for month, words in _LATIN.items()}
_LATIN_WORD = re.compile(r"[^\W\d_]{3,}")


def _key(word: str) -> str:
    """A word as the tables are looked up: lower case, no accents, one form per letter."""
    folded = unicodedata.normalize("NFD", word.casefold().rstrip("."))
    bare = "".join(c for c in folded if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", bare).translate(_ARABIC_LETTERS)


def _table(*tables: dict[int, str]) -> dict[str, int]:
    names: dict[str, int] = {}
    for table in tables:
        for month, words in table.items():
            for word in words.split():
                names[_key(word)] = month
    return names


_MONTHS = _table(_LATIN, _CYRILLIC, _OTHER_SCRIPTS, _INDIC_MONTHS)
_OTHERS = frozenset(_key(word) for word in _OTHER_CALENDARS.split())
_WEEKDAYS = frozenset(_key(word) for word in _WEEKDAY_WORDS.split())

#: Cyrillic month names (lower case) and their months: ``world_dates`` reads a Cyrillic day.
CYRILLIC: dict[str, int] = {
    word: month for month, words in _CYRILLIC.items() for word in words.split()
}
_FULL_NAMES = (
    "sept january february march april june july august september october november december"
)
#: English month words (their abbreviations and full names): of two month words in a value,
#: an English one is taken first.
ENGLISH = frozenset(_LATIN[m].split()[0] for m in _LATIN) | set(_FULL_NAMES.split())


def month_of(word: str) -> int | None:
    """Return the month (1 to 12) a word names in any language of the tables, or None.

    Example:
        >>> month_of("Mai."), month_of("Μαΐου"), month_of("במאי"), month_of("أيار")
        (5, 5, 5, 5)
        >>> month_of("mayo"), month_of("friday") is None
        (5, True)
    """
    key = _key(word)
    month = _MONTHS.get(key)
    if month is None and key.startswith(_HEBREW_IN) and len(key) > 2:
        month = _MONTHS.get(key[1:])
    return month


def misread_month(text: str) -> bool:
    """Tell whether ``text`` names a month that ``Date.parse`` would not read as that month:
    it takes the first word whose first three letters are an English month's ("marraskuuta",
    Finnish November, is March; Filipino's "Martes", Tuesday, makes "Setyembre" March;
    French "mar.", Tuesday, makes "mar. 3 déc. 2024" March).

    Example:
        >>> misread_month("3. marraskuuta 2024"), misread_month("3 March 2024")
        (True, False)
    """
    ours: set[int] = set()  # two months: one is a weekday ("mar. 3 déc. 2024": Tuesday)
    theirs = None
    for m in _LATIN_WORD.finditer(text):
        if theirs is None:
            theirs = _DATE_PARSE.get(m[0][:3].lower())
        if (month := month_of(m[0])) is not None:
            ours.add(month)
    return bool(ours) and ours != {theirs}


# A year and words, no other number ("Spring 2024", "Bealtaine 2024", "Copyright 2024").
_YEAR_AMONG_WORDS = re.compile(
    rf"[^\d]*{LETTER}[^\d]*(?<!\d)\d{{4}}(?!\d)[^\d]*|\s*\d{{4}}\s+{LETTER}[^\d]*"
)


def nameless_month(text: str) -> bool:
    """Tell whether ``text`` is a year beside words none of which names a month, or that name
    several: ``Date.parse`` passes over a word it does not know and makes "Spring 2024" (or a
    month in a language no table has) 1 January, a day the text does not name, and a span
    ("Jan-Mar 2024") its last month. A season is no month: its months depend on the
    hemisphere.

    Example:
        >>> nameless_month("Spring 2024"), nameless_month("Mai 2024"), nameless_month("2024")
        (True, False, False)
    """
    if _YEAR_AMONG_WORDS.fullmatch(text) is None:
        return False
    words = re.findall(rf"{LETTER}+", text)
    months = {month_of(w) or _DATE_PARSE.get(w[:3].lower()) for w in words} - {None}
    return len(months) != 1  # none, or a span of months ("Jan-Mar 2024": Date.parse's March)


def weekday_last(tail: str) -> bool:
    """Tell whether ``tail``, what follows a day's last number, is its weekday alone.

    Example:
        >>> weekday_last(" Cuma"), weekday_last("., szerda"), weekday_last(" foo")
        (True, True, False)
    """
    m = _AFTER_DAY.fullmatch(tail)
    return m is not None and _key(m[1]) in _WEEKDAYS


def other_calendar(word: str) -> bool:
    """Tell whether a word names a month of the Solar Hijri, Islamic or Hebrew calendar.

    Example:
        >>> other_calendar("اردیبهشت"), other_calendar("בתשרי"), other_calendar("mai")
        (True, True, False)
    """
    key = _key(word)
    return key in _OTHERS or (key.startswith(_HEBREW_IN) and key[1:] in _OTHERS)


# Croatian's words that Polish or Czech read as another month, and what tells a Croatian date:
# the dot after its year ("1. listopada 2021.", "listopad 2021.") or after its day (Polish
# writes "1 listopada 2021", Czech "1. listopadu"), a Croatian weekday, "u" before the time.
_CROATIAN_OWN = {"listopad": "oktobar", "listopada": "oktobar", "lis": "oktobar", "lip": "lipnja"}
_CROATIAN_WORD = re.compile(r"(?<![^\W\d_])(listopada?|lis|lip)\.?(?![^\W\d_])", re.I)
_CROATIAN = re.compile(
    r"\d{4}\.(?!\d)|\d\.\s*(?:listopada?|lis|lip)\b|\b(?:ponedjeljak|utorak|srijeda|četvrtak|petak"
    r"|subota|nedjelja)\b|\d\s+u\s+\d",
    re.I,
)


# Polish's and Czech's own letters and weekdays, Polish's "r." after a year: a text of theirs.
_POLISH_OR_CZECH = re.compile(
    r"[ąęłńśźżěřůĄĘŁŃŚŹŻĚŘŮ]|\b(?:poniedziałek|wtorek|czwartek|piątek|sobota|niedziela|pondělí"
    r"|úterý|středa|čtvrtek|pátek|neděle)\b|\d{4}\s*r\.",
    re.I,
)
_LISTOPAD = re.compile(r"(?<![^\W\d_])listopad(?![^\W\d_])", re.I)


def unsure_month(text: str) -> bool:
    """Tell whether ``text`` names its month by the nominative "listopad" with no evidence
    of its language: October in Croatian ("listopad 2021." with its dot), November in Polish
    and Czech; either is a guess, so no date. (The genitive "listopada" without a dot is
    Polish's date, "1 listopada 2021"; Croatian dots its day: "1. listopada 2021.".)"""
    return (
        _LISTOPAD.search(text) is not None
        and _CROATIAN.search(text) is None
        and _POLISH_OR_CZECH.search(text) is None
    )


def one_word(text: str) -> str:
    """Return ``text`` with the Levant's two-word month names as one word ("كانون الثاني"
    is January: "يناير"), Croatian's "listopad" as October on Croatian's evidence, Greek's "π.μ."/"μ.μ." after a time as "am"/"pm", and without
    Arabic's vowel marks and zero-width joiners.

    Example:
        >>> one_word("3 كانون الأول 2024"), one_word("10:30 μ.μ.")
        ('3 ديسمبر 2024', '10:30 pm')
    """
    if _CROATIAN_WORD.search(text) and _CROATIAN.search(text):
        text = _CROATIAN_WORD.sub(lambda m: _CROATIAN_OWN[m[1].lower()], text)
    if text.isascii():
        return text
    text = _TWO_WORDS.sub(lambda m: _ONE_WORD[m[1], m[2] is not None], text.translate(_MARKS))
    return _GREEK_HALF.sub(lambda m: f"{m[1] or ' '}{'a' if m[2] == 'π' else 'p'}m", text)
