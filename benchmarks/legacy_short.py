"""Short and long notes in every legacy 8-bit family, read back without a charset: the table
for short notes (2 to 10 characters: a word, a title, an abbreviation) and sentences.

The texts were written for this table (none is in ``benchmarks/legacy_charsets.py``; the
commonest short words, да, не, שלום, are in the prose ``_legacy_langs`` models are built
from, as they are in any text of their language); each language's texts are split in two
halves, alternately: ``tune`` (what the choice was tried on while it was changed) and
``held`` (looked at once, for the figure reported: short 83 of 127 before the change that
added this table, 86 after; long 23 of 24, then 24). Vietnamese is written in Windows-1258
as Windows writes it: a precomposed letter where the code page has one, else the base
letter and its combining tone mark. Run: ``python benchmarks/legacy_short.py [tune|held]``;
with ``note`` after it, each text is read as a notes folder reads a file (a text it calls
binary is wrong). A note of a two-letter word, or of a word only a rarer code page reads
as letters, read as text (files._text), and a word of four capitals or more made less
likely than one in small letters (_legacy_langs: KOI8-R's книга is ЛОЙЗБ in Windows-1251):
held short 86 -> 87 of 127 as text's bytes, 86 -> 89 as notes; tune 95 -> 96, 97 -> 100
(benchmarks/legacy_charsets.py 111 -> 112 of 142).
"""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

import itertools
import sys
import unicodedata
from collections import defaultdict

from memtrails.importers._legacy_text import utf8_first

#: (language, code pages, short texts, long texts)
TEXTS: list[tuple[str, tuple[str, ...], list[str], list[str]]] = [
    (
        "French",
        ("cp1252",),
        ["àéè", "café crème", "élève", "déjà", "forêt", "où", "août", "reçu", "même", "Noël"],
        [
            "Le médecin a prescrit du repos; je reviendrai au bureau après la fête.",
            "Il faut réserver l'hôtel près de la cathédrale avant vendredi soir.",
        ],
    ),
    (
        "German",
        ("cp1252",),
        ["Küche", "öde", "Maß", "grün", "Tür", "süß", "Müll", "Hölle", "für", "ärgern"],
        [
            "Die Heizung ist kaputt, der Techniker kommt erst nächste Woche vorbei.",
            "Vergiss nicht, die Blumen zu gießen, während ich im Urlaub bin.",
        ],
    ),
    (
        "Spanish+Portuguese",
        ("cp1252",),
        ["años", "ñu", "acción", "café", "pão", "João", "irmã", "señal", "ayer él", "avó"],
        [
            "El técnico vendrá el martes para revisar la calefacción del salón.",
            "A reunião foi adiada para sexta-feira por causa da greve dos ônibus.",
        ],
    ),
    (
        "Polish",
        ("cp1250", "iso8859_2"),
        ["łąka", "góra", "ślub", "wieś", "mąż", "Łódź", "żółw", "dąb", "się", "źle"],
        [
            "Jutro rano przyjedzie hydraulik, więc proszę zostawić klucze u sąsiadki.",
            "Zapłaciłem już rachunek za prąd, ale gaz jeszcze czeka na przelew.",
        ],
    ),
    (
        "Czech+Slovak",
        ("cp1250", "iso8859_2"),
        ["řeka", "dům", "čas", "měsíc", "žena", "ďaleko", "kôň", "ľúbiť", "tři", "šest"],
        [
            "Zítra ráno přijde instalatér, nechte prosím klíče u sousedky.",
            "Zaplatil som účet za elektrinu, ale plyn ešte čaká na prevod.",
        ],
    ),
    (
        "Hungarian",
        ("cp1250",),
        ["szív", "kő", "víz", "hűtő", "fél", "tő", "nyúl", "ház", "őr", "szőlő"],
        [
            "Holnap reggel jön a vízvezeték-szerelő, hagyd a kulcsot a szomszédnál.",
            "A villanyszámlát már kifizettem, a gázt még át kell utalni.",
        ],
    ),
    (
        "Russian",
        ("cp1251", "koi8_r", "cp866"),
        ["да", "он", "мы", "не", "шум", "ночь", "ГИБДД", "сад", "еда", "чай", "МВД", "ёж"],
        [
            "Завтра утром придёт сантехник, оставьте, пожалуйста, ключи у соседки.",
            "Счёт за электричество я уже оплатил, а за газ ещё нужно перевести деньги.",
        ],
    ),
    (
        "Ukrainian+Bulgarian",
        ("cp1251",),
        ["їжа", "ще", "дім", "хліб", "ґрунт", "път", "щастие", "ъгъл", "Київ", "бъде"],
        [
            "Завтра вранці прийде сантехнік, залиште, будь ласка, ключі в сусідки.",
            "Утре сутринта ще дойде водопроводчик, оставете ключовете при съседката.",
        ],
    ),
    (
        "Greek",
        ("cp1253", "iso8859_7"),
        ["ναι", "όχι", "νερό", "ΟΤΕ", "σπίτι", "καλά", "ώρα", "εγώ", "ήλιος", "μέλι"],
        [
            "Αύριο το πρωί θα έρθει ο υδραυλικός, αφήστε τα κλειδιά στη γειτόνισσα.",
            "Πλήρωσα ήδη τον λογαριασμό του ρεύματος, αλλά το φυσικό αέριο περιμένει.",
        ],
    ),
    (
        "Turkish",
        ("cp1254",),
        ["şu", "ağaç", "ışık", "göz", "çiçek", "İzmit", "düş", "kış", "yağ", "işçi"],
        [
            "Yarın sabah tesisatçı gelecek, anahtarı lütfen komşuya bırakın.",
            "Elektrik faturasını ödedim ama doğalgaz faturası hâlâ bekliyor.",
        ],
    ),
    (
        "Hebrew",
        ("cp1255", "iso8859_8"),
        ["שלום", "כן", "לא", "מים", "בית", "אבא", "יום", "ספר", "לחם", "עיר"],
        [
            "מחר בבוקר יגיע השרברב, בבקשה השאירו את המפתח אצל השכנה.",
            "כבר שילמתי את חשבון החשמל, אבל הגז עדיין מחכה להעברה.",
        ],
    ),
    (
        "Arabic",
        ("cp1256",),
        ["نعم", "لا", "ماء", "بيت", "كتاب", "شكرا", "يوم", "قلم", "باب", "حب"],
        [
            "سيأتي السباك صباح الغد، من فضلك اترك المفتاح عند الجارة.",
            "دفعت فاتورة الكهرباء، لكن فاتورة الغاز ما زالت تنتظر.",
        ],
    ),
    (
        "Baltic",
        ("cp1257",),
        [
            "ačiū",
            "žmogus",
            "šiandien",
            "ąžuolas",
            "Rīga",
            "ūdens",
            "ģimene",
            "sūris",
            "ėjo",
            "ķēde",
        ],
        [
            "Rytoj ryte atvyks santechnikas, prašau palikti raktus pas kaimynę.",
            "Rīt no rīta ieradīsies santehniķis, lūdzu, atstājiet atslēgas pie kaimiņienes.",
        ],
    ),
    (
        "Vietnamese",
        ("cp1258",),
        ["Việt Nam", "cảm ơn", "phở", "nước", "đường", "chào", "người", "tiếng", "mẹ", "bạn"],
        [
            "Sáng mai thợ sửa ống nước sẽ đến, xin để chìa khóa ở nhà hàng xóm.",
            "Tôi đã trả tiền điện rồi, nhưng tiền ga vẫn chưa chuyển.",
        ],
    ),
    (
        "Chinese",
        ("gb18030", "big5"),
        ["中文", "你好", "会议", "北京", "电话", "学习", "明天", "朋友", "工作", "时间"],
        ["明天上午水管工会来，请把钥匙留在邻居家。", "电费我已经交了，但是煤气费还没有转账。"],
    ),
    (
        "Japanese",
        ("cp932", "euc_jp"),
        ["東京", "日本", "会議", "ありがとう", "電話", "明日", "メモ", "仕事", "時間", "さくら"],
        [
            "明日の朝、配管工が来ますので、鍵を隣の人に預けてください。",
            "電気代はもう払いましたが、ガス代はまだ振り込んでいません。",
        ],
    ),
    (
        "Korean",
        ("cp949",),
        ["한국", "서울", "회의", "감사", "사랑", "내일", "전화", "친구", "시간", "학교"],
        [
            "내일 아침에 배관공이 올 테니 열쇠를 이웃집에 맡겨 주세요.",
            "전기 요금은 냈지만 가스 요금은 아직 안 냈어요.",
        ],
    ),
]

_BIG5_FORMS = str.maketrans("会议电话习时后这来说们对国学", "會議電話習時後這來說們對國學")


def encode(text: str, page: str) -> bytes | None:
    """``text`` in ``page`` as a writer would put it; None where the page cannot hold it."""
    if page == "big5":
        text = text.translate(_BIG5_FORMS)
    if page != "cp1258":
        try:
            return text.encode(page)
        except UnicodeEncodeError:
            return None
    out = bytearray()
    for char in unicodedata.normalize("NFC", text):
        try:
            out += char.encode(page)
            continue
        except UnicodeEncodeError:
            pass
        base, *marks = unicodedata.normalize("NFD", char)
        for size in range(len(marks), -1, -1):  # the most marks a precomposed letter holds
            done = False
            for kept in itertools.combinations(marks, size):
                letter = unicodedata.normalize("NFC", base + "".join(kept))
                rest = [m for m in marks if m not in kept]
                try:
                    out += letter.encode(page) + "".join(rest).encode(page)
                except UnicodeEncodeError:
                    continue
                done = True
                break
            if done:
                break
        else:
            return None
    return bytes(out)


def _as_note(data: bytes) -> tuple[str, str]:
    """Read as a notes folder reads a file (``binary`` where it is refused as one)."""
    from memtrails.importers.files._text import decode

    return decode(data) or ("", "binary")


def rows(half: str, note: bool = False) -> list[tuple[str, str, str, bool, str]]:
    """Each text of ``half`` read back: (language, page, short/long, right?, read as);
    ``note``: as a notes folder's file (told from binary first), not as a text's bytes."""
    part = 0 if half == "tune" else 1
    read_back = _as_note if note else utf8_first
    out = []
    for language, pages, short, long in TEXTS:
        for page in pages:
            for size, texts in (("short", short[part::2]), ("long", long[part::2])):
                for text in texts:
                    data = encode(text, page)
                    if data is None:
                        continue
                    read, codec = read_back(data)
                    read = read.strip() if note else read
                    right = unicodedata.normalize("NFC", read) == text
                    if page == "big5":
                        right = read == text.translate(_BIG5_FORMS)
                    out.append((language, page, size, right, f"{read} ({codec})"))
    return out


def main() -> None:
    half = sys.argv[1] if len(sys.argv) > 1 else "held"
    note = "note" in sys.argv[2:]
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for language, page, size, right, read in rows(half, note):
        cell = table[(language, page)]
        k = 0 if size == "short" else 2
        cell[k] += right
        cell[k + 1] += 1
        if not right:
            print(f"  wrong: {language} {page} {size}: {read}")
    print(
        f"{half} half{' (as notes)' if note else ''}\n| language | code page | short | long |\n|---|---|---|---|"
    )
    total = [0, 0, 0, 0]
    for (language, page), cell in table.items():
        print(f"| {language} | {page} | {cell[0]}/{cell[1]} | {cell[2]}/{cell[3]} |")
        total = [a + b for a, b in zip(total, cell, strict=True)]
    print(f"| all | | {total[0]}/{total[1]} | {total[2]}/{total[3]} |")


if __name__ == "__main__":
    main()
